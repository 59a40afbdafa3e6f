"""Sensitivity evidence for the document view, as pure functions (no Qt): overlapping highlight
spans from the query, PII hits and sensitivity cue words merged into one escaped HTML string, and
the classifier's explanation turned into the short text the "Sensitivity" line shows.

The merge cuts the text at every span boundary, so each piece of text is written exactly once
with the set of marks that cover it; neighbouring pieces with the same look are joined. Nothing
is ever nested, so overlapping spans cannot produce broken HTML."""
from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any, Iterable, Optional, Sequence

QUERY, PII, CUE = "query", "pii", "cue"
COLOURS = {QUERY: "#ffe066", PII: "#ffb3b3", CUE: "#ffd8a8"}
# the background a piece gets when several kinds of mark cover it: PII first, then cues
PRIORITY = (PII, CUE, QUERY)
LAYER_NAMES = {QUERY: "search term", PII: "personal information", CUE: "sensitivity cue word"}
HIGHLIGHT = f"background-color:{COLOURS[QUERY]};color:#000;"
TRAIN_MENU = "Tools ▸ Train sensitivity model…"  # the main window's menu item that trains the model


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


def _title(marks: Iterable[Mark]) -> str:
    labels: list[str] = []
    for m in sorted(marks, key=lambda m: (PRIORITY.index(m.layer), m.label)):
        label = m.label or LAYER_NAMES.get(m.layer, m.layer)
        if label not in labels:
            labels.append(label)
    return "; ".join(labels)


def merged_html(text: str, marks: Sequence[Mark]) -> str:
    """``text`` HTML-escaped, with every mark's characters in a ``<span>`` coloured by the kind of
    mark (PII over cue over query term) and titled with the marks' labels (a tooltip). Marks are
    clipped to the text; empty ones are ignored; overlaps are fine. Whitespace is kept as is."""
    n = len(text)
    usable = [Mark(max(0, m.start), min(n, m.end), m.layer, m.label) for m in marks
              if m.layer in COLOURS and min(n, m.end) > max(0, m.start)]
    if not usable:
        return html.escape(text)
    cuts = sorted({0, n, *(m.start for m in usable), *(m.end for m in usable)})
    pieces: list[tuple[int, int, Optional[tuple[str, str]]]] = []  # start, end, (style, title)
    for a, b in zip(cuts, cuts[1:]):
        covering = [m for m in usable if m.start <= a and b <= m.end]
        look = (_style(frozenset(m.layer for m in covering)), _title(covering)) if covering else None
        if pieces and pieces[-1][2] == look:
            pieces[-1] = (pieces[-1][0], b, look)
        else:
            pieces.append((a, b, look))
    out = []
    for a, b, look in pieces:
        chunk = html.escape(text[a:b])
        if look is None:
            out.append(chunk)
        else:
            style, title = look
            out.append(f'<span style="{style}" title="{html.escape(title, quote=True)}">{chunk}</span>')
    return "".join(out)


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


def percent(p: float) -> str:
    return f"{100.0 * p:.1f}%"


def field_marks(explanation: Optional[dict[str, Any]], field: str, text: str) -> list[Mark]:
    """The PII and cue marks of one field ("subject", "body", "attachment:<name>") whose offsets
    really point at the hit's text in ``text`` (anything else is left out, not guessed)."""
    if not explanation:
        return []
    out = []
    for layer, key, prefix in ((PII, "pii", "PII"), (CUE, "cues", "cue")):
        for h in explanation.get(key, ()):
            s, e = int(h["start"]), int(h["end"])
            if h.get("field") == field and 0 <= s < e <= len(text) and text[s:e] == h.get("text", text[s:e]):
                out.append(Mark(s, e, layer, f"{prefix}: {kind_name(h['kind'])}"))
    return out


def legend_html() -> str:
    swatch = '<span style="background-color:{c};color:#000">&nbsp;{t}&nbsp;</span>'
    return (" ".join(swatch.format(c=COLOURS[layer], t=LAYER_NAMES[layer]) for layer in (PII, CUE, QUERY))
            + ' <span style="color:#888">— hover a highlight for its kind</span>')


def sensitivity_html(info: Optional[dict[str, Any]], top: int = 5) -> str:
    """The "Sensitivity" line for a payload's ``sensitivity`` entry; "" when there is nothing."""
    if not info:
        return ""
    who = html.escape(info.get("persona_name") or info.get("persona") or "")
    if info.get("error"):
        return f'<span style="color:#666">Sensitivity ({who}): {html.escape(info["error"])}</span>'
    e = info.get("explanation")
    if e is None:
        return (f'<span style="color:#666">No sensitivity model for {who} yet (train one with {TRAIN_MENU}, or: '
                f'sasc classify train {html.escape(info.get("train_hint", "…"))})</span>')
    sensitive = bool(e["sensitive"])
    verdict = "likely sensitive" if sensitive else "likely releasable"
    colour = "#b02a2a" if sensitive else "#2b7a3d"
    feats = [feature_label(f["block"], f["name"]) for f in e.get("towards_sensitive", [])[:top]]
    n_pii, n_cue = len(e.get("pii", ())), len(e.get("cues", ()))
    line1 = (f'<b>Sensitivity</b> for {who}: <b style="color:{colour}">{percent(e["probability"])}</b> '
             f'— <span style="color:{colour}">{verdict}</span> '
             f'<span style="color:#666">(threshold {percent(e["threshold"])}; '
             f'{n_pii} PII hit{"s" if n_pii != 1 else ""}, {n_cue} cue word{"s" if n_cue != 1 else ""})</span>')
    line2 = ('<span style="color:#555">Towards sensitive:</span> '
             + (html.escape(", ".join(feats)) if feats else '<span style="color:#666">nothing</span>'))
    return f"{line1}<br>{line2}<br>{legend_html()}"
