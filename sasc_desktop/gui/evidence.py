"""Sensitivity evidence for the document view, as pure functions (no Qt): overlapping highlight
spans from the query, PII hits and sensitivity cue words merged into one escaped HTML string, and
the classifier's explanation turned into the short text the "Sensitivity" line shows.

The merge cuts the text at every span boundary, so each piece of text is written exactly once
with the set of marks that cover it; neighbouring pieces with the same look are joined. Nothing
is ever nested, so overlapping spans cannot produce broken HTML.

A long text is shown in parts (:class:`PagedText`, at most :data:`PAGE_CHARS` characters each),
so the work of showing one part is bounded however long the message is."""
from __future__ import annotations

import html
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from typing import Any, Iterable, Optional, Sequence

from ..engine.project.store import READ_ONLY_FIX

QUERY, PII, CUE = "query", "pii", "cue"
COLOURS = {QUERY: "#ffe066", PII: "#ffb3b3", CUE: "#ffd8a8"}
# the background a piece gets when several kinds of mark cover it: PII first, then cues
PRIORITY = (PII, CUE, QUERY)
LAYER_NAMES = {QUERY: "search term", PII: "personal information", CUE: "sensitivity cue word"}
HIGHLIGHT = f"background-color:{COLOURS[QUERY]};color:#000;"
TRAIN_MENU = "Tools ▸ Train sensitivity model…"  # the main window's menu item that trains the model


def read_only_hint(what: str) -> str:
    """What a hint that points to a change says instead in a project open for reading only,
    where the action it names is off: 'this project is open for reading only: to train one,
    copy the project folder to a place you can write to and open the copy'."""
    return f"this project is open for reading only: to {what}, {READ_ONLY_FIX}"


@dataclass(frozen=True)
class Mark:
    """One highlighted character span ``[start, end)`` of a text."""
    start: int
    end: int
    layer: str          # QUERY, PII or CUE
    label: str = ""     # shown in the tooltip, e.g. "PII: payment card"


def _style(layers: frozenset[str]) -> str:
    top = next(layer for layer in PRIORITY if layer in layers)
    style = f"background-color:{COLOURS[top]};color:#000;"
    if top != QUERY and QUERY in layers:  # a search term inside evidence: keep it visible
        style += "text-decoration:underline;"
    return style


def _title(keys: Iterable[tuple[str, str]]) -> str:
    """The tooltip of a piece covered by marks with these ``(layer, label)`` keys."""
    labels: list[str] = []
    for layer, label in sorted(keys, key=lambda k: (PRIORITY.index(k[0]), k[1])):
        label = label or LAYER_NAMES.get(layer, layer)
        if label not in labels:
            labels.append(label)
    return "; ".join(labels)


def _escaped(text: str, a: int, b: int) -> str:
    """text[a:b] HTML-escaped, without the CR of any CRLF (also one whose LF is just past b)."""
    piece = text[a:b].replace("\r\n", "\n")
    if piece.endswith("\r") and text[b:b + 1] == "\n":
        piece = piece[:-1]
    return html.escape(piece)


def merged_html(text: str, marks: Sequence[Mark]) -> str:
    """``text`` HTML-escaped, with every mark's characters in a ``<span>`` coloured by the kind of
    mark (PII over cue over query term) and titled with the marks' labels (a tooltip). Marks are
    clipped to the text; empty ones are ignored; overlaps are fine. Whitespace is kept as is,
    but for the CR of a CRLF (Qt breaks a line at each, so CRLF mail would show double-spaced).

    One sorted sweep: O(m log m) for m marks, plus O(n) for the text. The marks covering the
    piece between two neighbouring cut points are kept as a count per (layer, label); a piece's
    look is worked out again only when that set of kinds changes (and then looked up in a
    cache), so many marks of few kinds cost no more than their sorting."""
    n = len(text)
    starts: list[tuple[int, tuple[str, str]]] = []
    ends: list[tuple[int, tuple[str, str]]] = []
    for m in marks:
        a, b = max(0, m.start), min(n, m.end)
        if m.layer in COLOURS and b > a:
            key = (m.layer, m.label)
            starts.append((a, key))
            ends.append((b, key))
    if not starts:
        return _escaped(text, 0, n)
    starts.sort(key=lambda e: e[0])
    ends.sort(key=lambda e: e[0])
    cuts = sorted({0, n, *(a for a, _ in starts), *(b for b, _ in ends)})
    active: dict[tuple[str, str], int] = {}   # (layer, label) -> how many marks of it cover the piece
    looks: dict[frozenset, tuple[str, str]] = {}
    look: Optional[tuple[str, str]] = None
    si = ei = 0
    pieces: list[list] = []  # [start, end, (style, title) or None]
    for a, b in zip(cuts, cuts[1:]):
        changed = False
        while ei < len(ends) and ends[ei][0] <= a:   # marks ending here first, then those starting
            key = ends[ei][1]
            active[key] -= 1
            if not active[key]:
                del active[key]
                changed = True
            ei += 1
        while si < len(starts) and starts[si][0] <= a:
            key = starts[si][1]
            if key not in active:
                active[key] = 0
                changed = True
            active[key] += 1
            si += 1
        if changed:
            kinds = frozenset(active)
            look = looks.get(kinds)
            if look is None and kinds:
                look = looks[kinds] = (_style(frozenset(layer for layer, _ in kinds)), _title(kinds))
        if pieces and pieces[-1][2] == look:
            pieces[-1][1] = b
        else:
            pieces.append([a, b, look])
    out = []
    for a, b, piece_look in pieces:
        chunk = _escaped(text, a, b)
        if piece_look is None:
            out.append(chunk)
        else:
            style, title = piece_look
            out.append(f'<span style="{style}" title="{html.escape(title, quote=True)}">{chunk}</span>')
    return "".join(out)


# ---------------------------------------------------------------------------- long texts in parts
PAGE_CHARS = 100_000  # characters per part: about 0.1 s for Qt to lay out, and a merge of a few ms


def page_bounds(text: str, size: int = PAGE_CHARS) -> list[int]:
    """Where the parts of ``text`` start, then ``len(text)``: each part at most ``size``
    characters, cut after a line break in its last tenth when there is one, else after a space,
    else at ``size`` characters (one fewer rather than between a CR and its LF). An empty text
    is one empty part."""
    if size < 1:
        raise ValueError("a part must hold at least one character")
    n, bounds = len(text), [0]
    while n - bounds[-1] > size:
        hard = bounds[-1] + size
        low = hard - size // 10
        cut = text.rfind("\n", low, hard)
        if cut < 0:
            cut = text.rfind(" ", low, hard)
        if cut < 0 and size > 1 and text[hard - 1] == "\r" and text[hard] == "\n":
            cut = hard - 2   # never between the CR and LF of a CRLF (it is shown as one line break)
        bounds.append(hard if cut < 0 else cut + 1)
    bounds.append(n)
    return bounds


class PagedText:
    """A text and its marks, shown one part at a time: :meth:`page_html` merges only the marks
    that reach into that part (clipped to it), found by bisection, and keeps the result."""

    def __init__(self, text: str, marks: Sequence[Mark] = (), size: int = PAGE_CHARS):
        self.text = text
        self.bounds = page_bounds(text, size)
        self.marks = sorted((m for m in marks if m.end > m.start and m.layer in COLOURS), key=lambda m: m.start)
        self._starts = [m.start for m in self.marks]
        self._longest = max((m.end - m.start for m in self.marks), default=0)
        self._html: dict[int, str] = {}

    def __len__(self) -> int:
        return len(self.bounds) - 1

    def span(self, page: int) -> tuple[int, int]:
        return self.bounds[page], self.bounds[page + 1]

    def page_marks(self, page: int) -> list[Mark]:
        """The marks reaching into ``page``, with offsets into the page's text."""
        a, b = self.span(page)
        lo = bisect_left(self._starts, a - self._longest)
        hi = bisect_left(self._starts, b)
        return [Mark(m.start - a, m.end - a, m.layer, m.label) for m in self.marks[lo:hi] if m.end > a]

    def page_html(self, page: int) -> str:
        got = self._html.get(page)
        if got is None:
            a, b = self.span(page)
            got = self._html[page] = merged_html(self.text[a:b], self.page_marks(page))
        return got

    def pages_with(self, layer: str) -> list[int]:
        """The parts (0-based) where a mark of this kind starts, in order."""
        last = len(self) - 1
        return sorted({min(last, bisect_right(self.bounds, m.start) - 1) for m in self.marks if m.layer == layer})


# ---------------------------------------------------------------------------- explanation text
_PII_NAMES = {"payment_card": "payment card", "iban": "IBAN", "national_id": "national ID",
              "date_of_birth": "date of birth", "bank_account": "bank account"}
_BLOCKS = {"subject": "subject word", "body": "body word", "attach": "attachment word",
           "chars": "characters", "meta": "message", "pii": "personal information",
           "net": "sender network", "cue": "cue words"}


def kind_name(kind: str) -> str:
    return _PII_NAMES.get(kind, kind.replace("_", " "))


def feature_label(block: str, name: str) -> str:
    """A model feature for people: ``body word “salary”``, ``cue words: legal (body)``."""
    what = _BLOCKS.get(block, block)
    if block in ("subject", "body", "attach", "chars"):
        return f"{what} “{name}”"
    if block == "cue":
        family, _, field = name.rpartition("_")
        return f"{what}: {family} ({field})" if family else f"{what}: {name.replace('_', ' ')}"
    if block == "pii":
        name = name.removesuffix("_count")
        return f"{what}: {kind_name(name) if name != 'any_pii' else 'any'}"
    return f"{what}: {name.replace('_', ' ')}"


def entry_label(entry: dict[str, Any]) -> str:
    """What a listed feature says of this message: the engine's own label (true of the message:
    "sender is external", "sender is not internal"), or, for an explanation made before the
    engine gave labels, the feature's name in words."""
    return entry.get("label") or feature_label(entry["block"], entry["name"])


def percent(p: float) -> str:
    return f"{100.0 * p:.1f}%"


def field_marks(explanation: Optional[dict[str, Any]], field: str, text: str) -> list[Mark]:
    """The PII and cue marks of one field ("subject", "body", "attachment:<name>") whose offsets
    really point at the hit's text in ``text`` (anything else is left out, not guessed)."""
    if not explanation:
        return []
    out = []
    n = len(text)
    for layer, key, prefix in ((PII, "pii", "PII"), (CUE, "cues", "cue")):
        labels: dict[str, str] = {}  # a long message has many hits of few kinds
        for h in explanation.get(key, ()):
            if h.get("field") != field:
                continue
            s, e = int(h["start"]), int(h["end"])
            if 0 <= s < e <= n and ("text" not in h or text[s:e] == h["text"]):
                label = labels.get(h["kind"])
                if label is None:
                    label = labels[h["kind"]] = f"{prefix}: {kind_name(h['kind'])}"
                out.append(Mark(s, e, layer, label))
    return out


def legend_html() -> str:
    swatch = '<span style="background-color:{c};color:#000">&nbsp;{t}&nbsp;</span>'
    return (" ".join(swatch.format(c=COLOURS[layer], t=LAYER_NAMES[layer]) for layer in (PII, CUE, QUERY))
            + ' <span style="color:#888">— hover a highlight for its kind</span>')


def sensitivity_html(info: Optional[dict[str, Any]], top: int = 5, top_absent: int = 3) -> str:
    """The "Sensitivity" line for a payload's ``sensitivity`` entry; "" when there is nothing.
    It names the (up to ``top``) features the message has that push it towards sensitive, then
    (up to ``top_absent``) features whose absence does ("also: sender is not internal"); the
    engine lists the two apart, so a message is never said to be both internal and external."""
    if not info:
        return ""
    who = html.escape(info.get("persona_name") or info.get("persona") or "")
    if info.get("error"):
        return f'<span style="color:#666">Sensitivity ({who}): {html.escape(info["error"])}</span>'
    e = info.get("explanation")
    if e is None:
        if info.get("read_only"):   # Train is off: a writable copy is needed
            return (f'<span style="color:#666">No sensitivity model for {who} yet '
                    f'({html.escape(read_only_hint("train one"))})</span>')
        return (f'<span style="color:#666">No sensitivity model for {who} yet (train one with {TRAIN_MENU}, or: '
                f'sasc classify train {html.escape(info.get("train_hint", "…"))})</span>')
    sensitive = bool(e["sensitive"])
    verdict = "likely sensitive" if sensitive else "likely releasable"
    colour = "#b02a2a" if sensitive else "#2b7a3d"
    feats = [entry_label(f) for f in e.get("towards_sensitive", [])[:top]]
    lacks = [entry_label(f) for f in e.get("absent_towards_sensitive", [])[:top_absent]]
    n_pii, n_cue = len(e.get("pii", ())), len(e.get("cues", ()))
    line1 = (f'<b>Sensitivity</b> for {who}: <b style="color:{colour}">{percent(e["probability"])}</b> '
             f'— <span style="color:{colour}">{verdict}</span> '
             f'<span style="color:#666">(threshold {percent(e["threshold"])}; '
             f'{n_pii} PII hit{"s" if n_pii != 1 else ""}, {n_cue} cue word{"s" if n_cue != 1 else ""})</span>')
    line2 = '<span style="color:#555">Towards sensitive:</span> '
    if not feats and not lacks:
        line2 += '<span style="color:#666">nothing</span>'
    else:
        line2 += html.escape(", ".join(feats))
        if lacks:
            line2 += (' <span style="color:#555">· also:</span> ' if feats else "") + html.escape(", ".join(lacks))
    return f"{line1}<br>{line2}<br>{legend_html()}"
