"""Getting judgments into a project: TREC-style files and Berkeley ``.cats`` category labels.

Training data rules (the dissertation's): a message judged "I don't know" (level -1, or no
judgment at all) is left out; a message judged sensitive under any topic counts as sensitive.
A reason why a message is sensitive makes it sensitive (see :func:`training_labels`); an import
never lets a reason stand beside a level 0 or -1 (see :func:`_reasons_against_levels`).
"""
from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from ..errors import InputError
from ..ingest.parse import parse_message, raw_digest
from ..progress import Progress, ensure
from ..project import judgments as J

ENRON_PERSONA = "dana-whitfield"
RESOURCES = Path(__file__).resolve().parents[3] / "resources"

# The mapping of ../shared/spec/enron-categories-collection.md
ENRON_TOPICS: list[dict[str, str]] = [
    {"id": "1", "title": "regulators and price caps", "description": "Dealings with energy regulators and rules such as price caps.",
     "narrative": "Relevant: discussion of regulatory bodies, filings, rulings, tariffs, price caps. Not relevant: market chatter with no regulatory angle."},
    {"id": "2", "title": "internal projects", "description": "Progress and strategy of the company's internal projects.",
     "narrative": "Relevant: status, plans, staffing or strategy of a named internal project."},
    {"id": "3", "title": "company image today", "description": "How the company is currently seen by press, public or partners.",
     "narrative": "Relevant: coverage, reputation, public perception as it stands."},
    {"id": "4", "title": "shaping the company image", "description": "Efforts to change or influence how the company is seen.",
     "narrative": "Relevant: PR campaigns, messaging plans, reputation management."},
    {"id": "5", "title": "political influence", "description": "Political contributions, lobbying and contacts with politicians.",
     "narrative": "Relevant: donations, lobbying, meetings with officials, political strategy."},
    {"id": "6", "title": "California energy crisis", "description": "The California electricity crisis and California politics.",
     "narrative": "Relevant: blackouts, the state's market, legislators, the governor, utilities' finances."},
    {"id": "7", "title": "internal company policy", "description": "The company's internal policies and rules.",
     "narrative": "Relevant: policy announcements, compliance rules, HR or IT policy."},
    {"id": "8", "title": "internal operations", "description": "Day-to-day operations of the company.",
     "narrative": "Relevant: operational processes, systems, trading operations, logistics inside the company."},
    {"id": "9", "title": "alliances and partnerships", "description": "Alliances, joint ventures and partnerships with other firms.",
     "narrative": "Relevant: partner negotiations, joint ventures, agreements with other companies."},
    {"id": "10", "title": "legal advice", "description": "Advice from lawyers and legal analysis.",
     "narrative": "Relevant: counsel's advice, privileged analysis, litigation strategy."},
    {"id": "11", "title": "talking points", "description": "Prepared talking points and messaging for meetings or media.",
     "narrative": "Relevant: lists of points to make, speech or interview preparation."},
    {"id": "12", "title": "meeting minutes", "description": "Minutes and summaries of meetings.",
     "narrative": "Relevant: records of what was discussed or decided in a meeting."},
    {"id": "13", "title": "trip reports", "description": "Reports from business trips and visits.",
     "narrative": "Relevant: accounts of a trip, site visit or conference attended."},
]
SENSITIVE_LABELS = frozenset({(3, 10), (2, 8), (4, 10), (1, 2), (1, 5), (4, 9), (4, 16), (4, 17), (4, 18), (4, 19)})
EMPTY_GENRES = frozenset({(1, 7), (1, 8)})
# Why a message is sensitive for Dana Whitfield: reason group -> the labels that carry it
ENRON_REASONS: dict[str, frozenset] = {
    "legal": frozenset({(3, 10), (2, 8)}),
    "secrecy": frozenset({(4, 10)}),
    "personal": frozenset({(1, 2)}),
    "employment": frozenset({(1, 5)}),
    "tone": frozenset({(4, 9), (4, 16), (4, 17), (4, 18), (4, 19)}),
}

DANA_WHITFIELD: dict[str, Any] = {
    "id": ENRON_PERSONA,
    "name": "Dana Whitfield",
    "nickname": "The Retired Executive",
    "occupation": "Retired senior executive",
    "institution": "An energy-trading company",
    "background": "Spent her career in senior roles at an energy-trading company and is donating her work "
                  "mailbox to a university archive.",
    "use_of_email": "Work email for trading, regulation, legal matters and, now and then, private life.",
    "why_useful": "Documents how an energy-trading company worked through a market crisis.",
    "audience": "Researchers at a university archive.",
    "pain_points": ["legal advice and pending litigation", "business secrets", "private life and family",
                    "personnel matters of named people", "frank, angry or scornful remarks about people"],
}


# ------------------------------------------------------------------------------ file readers
def _load_json(path: Path, what: str) -> Any:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8-sig"))
    except FileNotFoundError:
        raise InputError(f"{path}: no such {what} file") from None
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: cannot read the {what} file: not UTF-8 text "
                         f"({exc.reason} at byte {exc.start})") from None
    except (OSError, ValueError) as exc:
        raise InputError(f"{path}: cannot read the {what} file: {exc}") from None


_TEXT_FIELDS = {"topic": ("title", "description", "narrative"), "persona": ("name",)}


def _records(data: Any, key: str, path: Path, what: str) -> list[dict[str, Any]]:
    """A list of records from ``[{...}, ...]``, ``{key: [...]}``, ``{key: {id: {...}}}`` or
    ``{id: {...}}`` (an ``id: "text"`` entry gives the title or name). Ids are strings or
    integers; text fields (a topic's title, description and narrative, a persona's name) are
    strings. Anything else is an InputError naming the file and the record."""
    first = _TEXT_FIELDS[what][0]
    if isinstance(data, dict) and "id" in data and not isinstance(data["id"], dict):
        data = [data]                                   # one record on its own
    if isinstance(data, dict) and key in data:
        data = data[key]
        if not isinstance(data, (list, dict)):
            raise InputError(f"{path}: \"{key}\" must be a list of {what} objects or an object mapping ids "
                             f"to {what} objects, not {_json_type(data)}")
    if isinstance(data, dict):
        items = []
        for k, v in data.items():
            if isinstance(v, str):
                v = {first: v}
            elif not isinstance(v, dict):
                raise InputError(f"{path}: {what} {k!r} must be an object (or a {first} string), not {_json_type(v)}")
            items.append({**v, "id": k})
        data = items
    if not isinstance(data, list):
        raise InputError(f"{path}: expected a list of {what} objects, each with an \"id\"; found {_json_type(data)}")
    out: dict[str, dict[str, Any]] = {}
    for number, d in enumerate(data, 1):
        where = f"{path}: {what} {number}"
        if not isinstance(d, dict):
            raise InputError(f"{where}: expected an object with an \"id\", found {_json_type(d)}")
        ident = d.get("id")
        if isinstance(ident, bool) or not isinstance(ident, (str, int)) or not str(ident).strip():
            raise InputError(f"{where}: \"id\" must be a non-empty string or an integer, "
                             f"found {_json_type(ident) if 'id' in d else 'no id'}")
        ident = str(ident).strip()
        where = f"{path}: {what} {ident!r}"
        for name in _TEXT_FIELDS[what]:
            if name in d and not isinstance(d[name], str):
                raise InputError(f"{where}: \"{name}\" must be a string, found {_json_type(d[name])}")
        if what == "topic" and not isinstance(d["id"], int):
            check_persona_id(ident, f"{path}: topic {number}", "topic")
        if what == "persona" and any(unicodedata.category(ch) == "Cc" for ch in d.get("name", "")):
            raise InputError(f"{where}: the name {d['name']!r} contains a tab, line break or other control "
                             "character (the plain 'sasc personas' listing is one id<TAB>name line per persona)")
        record = {**d, "id": ident}
        if ident in out and out[ident] != record:
            raise InputError(f"{where} is defined twice, differently")
        out[ident] = record
    return list(out.values())


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    return {bool: "true/false", int: "a number", float: "a number", str: "a string",
            list: "a list", dict: "an object"}.get(type(value), type(value).__name__)


def read_topics(path: Path) -> list[dict[str, Any]]:
    return _records(_load_json(path, "topics"), "topics", path, "topic")


def read_personas(path: Path) -> list[dict[str, Any]]:
    cards = _records(_load_json(path, "personas"), "personas", path, "persona")
    for number, card in enumerate(cards, 1):
        check_persona_id(card["id"], f"{path}: persona {number}")
    return cards


def check_persona_id(persona: str, where: str, what: str = "persona") -> None:
    """A new persona's (or topic's) id names it on the command line (--persona) and starts each
    line of the plain ``sasc personas`` listing (``id<TAB>name``) and of the judgment files: no
    space, tab, line break or other control character; no invisible formatting character (a
    zero-width space or byte-order mark: 'bob\\u200b' would be a second persona printed as
    'bob'); one way to write each letter (NFC: 'zoë' typed two ways would be two personas); and
    no '#' first (a judgment line starting with '#' is a comment: its judgments would be
    skipped); and, for a persona, no '-' first (``--persona -x`` is read as an option: the
    persona could never be trained, explained or searched as)."""
    bad = next((ch for ch in persona if ch.isspace() or unicodedata.category(ch) in ("Cc", "Cf")), None)
    if bad is not None:
        which = "a space" if bad == " " else f"the character U+{ord(bad):04X}"
        raise InputError(f"{where}: the {what} id {persona!r} contains {which}; a {what} id cannot contain "
                         "spaces, tabs, line breaks or other control or invisible characters")
    if persona.startswith("#"):
        raise InputError(f"{where}: the {what} id {persona!r} starts with '#'; a {what} id cannot (a judgment line "
                         "starting with '#' is a comment)")
    if what == "persona" and persona.startswith("-"):
        raise InputError(f"{where}: the persona id {persona!r} starts with '-'; a persona id cannot (the command "
                         f"line would read --persona {persona} as an option)")
    if unicodedata.normalize("NFC", persona) != persona:
        raise InputError(f"{where}: the {what} id {persona!r} has letters written as a letter plus a separate "
                         "accent (Unicode NFD); save the file with composed letters (NFC)")


_ONE_ID = re.compile(r"<([^<>\s]+)>(~[^<>\s]+)?")


def normalise_id(doc_id: str) -> str:
    """A judged document id as ingest writes Message-IDs: ``<a@b>`` -> ``a@b``, a copy's
    ``<a@b>~hash`` -> ``a@b~hash``, blanks around it dropped. Any other id with '<', '>' or white
    space is an InputError (the caller adds the file and line): taking its first ``<...>`` or its
    first word, as before, put a copy's judgment on the other message with its Message-ID and
    cut a reasons file's doc id at its first space, silently."""
    text = doc_id.strip()
    m = _ONE_ID.fullmatch(text)
    if m:
        return m.group(1) + (m.group(2) or "")
    if any(ch in "<>" or ch.isspace() for ch in text):
        raise InputError(f"the document id {doc_id!r} is not one id: write <id> or id (a copy's id <id>~hash "
                         "or id~hash), with no white space and no other '<' or '>'")
    return text


def _normalised(items, path, what) -> dict:
    """key -> value with the doc id (last part of the key) normalised; one key judged two ways
    (e.g. once as ``<id>`` and once as ``id``) is an InputError. ``what(key)`` names the rest
    of the key for that message."""
    out: dict = {}
    written: dict = {}
    for key, value in items:
        norm = key[:-1] + (normalise_id(key[-1]),)
        if norm in out and out[norm] != value:
            raise InputError(f"{path}: document {norm[-1]} ({what(key)}) is judged {out[norm]} as {written[norm]!r} "
                             f"and {value} as {key[-1]!r}")
        out[norm] = value
        written.setdefault(norm, key[-1])
    return out


# ------------------------------------------------------------------------------ one import, one transaction
@dataclass
class _Import:
    """Everything one import writes, parsed and checked before anything is written."""
    personas: list = field(default_factory=list)                 # cards
    topics: list = field(default_factory=list)
    qrels: dict = field(default_factory=dict)                    # (topic, doc) -> grade
    sensitivity: dict = field(default_factory=dict)              # (persona, topic or '', doc) -> level
    reasons: dict = field(default_factory=dict)                  # (persona, doc) -> reasons replacing the stored ones
    qrels_source: str = ""
    sensitivity_source: str = ""
    reasons_source: str = ""

    def doc_ids(self) -> set[str]:
        return ({d for _, d in self.qrels} | {d for _, _, d in self.sensitivity} | {d for _, d in self.reasons})


def _not_in_project(session, doc_ids: set[str]) -> dict[str, int]:
    """``not_in_project``: the judged ids that name no document; ``copy_ids``: those of them
    that are a copy's id "<mid>~<hash>" made in another project (its copies came in another
    order) whose "<mid>" is a stored Message-ID: protection applies them to every document with
    it (protect.search.judged_sensitive), training to none."""
    from ..protect.search import copy_id_message_id
    con = session.store.con
    present = {r[0] for r in con.execute("SELECT doc_id FROM messages")}
    missing = doc_ids - present
    mids = {m for d in missing if (m := copy_id_message_id(d))}
    stored = {r[0] for r in con.execute("SELECT DISTINCT message_id FROM messages")} & mids if mids else set()
    return {"not_in_project": len(missing),
            "copy_ids": sum(1 for d in missing if copy_id_message_id(d) in stored)}


def _commit(session, imp: _Import, replace: bool) -> dict[str, int]:
    """Write ``imp`` in ONE transaction: an error (or Ctrl+C) anywhere leaves the project as it
    was. Unless ``replace``, refuse (InputError, nothing written) to change judgments another
    import made, to redefine a topic, or to replace a persona card that differs."""
    store = session.store
    with store.transaction() as con:
        changes = {"relevance grade": J.qrels_changes(con, imp.qrels, imp.qrels_source),
                   "sensitivity level": J.sensitivity_changes(con, imp.sensitivity, imp.sensitivity_source),
                   "set of reasons": J.reasons_changes(con, imp.reasons, imp.reasons_source)}
        topics = J.topic_changes(con, imp.topics)
        cards = J.persona_changes(con, imp.personas)
        contradicted, overruled = _reasons_against_levels(con, imp)
        if contradicted:
            raise InputError(_contradiction(imp, contradicted))
        if overruled and not replace:
            raise InputError(_overruling(imp, overruled))
        if not replace and (any(c.foreign for c in changes.values()) or topics or cards):
            raise InputError(_refusal(changes, topics, cards))
        J.save_personas(store, imp.personas, con=con)
        J.save_topics(store, imp.topics, con=con)
        J.save_qrels(store, ((t, d, r) for (t, d), r in imp.qrels.items()), source=imp.qrels_source, con=con)
        J.save_sensitivity(store, ((p, t, d, lvl) for (p, t, d), lvl in imp.sensitivity.items()),
                           source=imp.sensitivity_source, con=con)
        if imp.reasons:
            save_reasons(session, [(p, d, r) for (p, d), rs in imp.reasons.items() for r in rs],
                         source=imp.reasons_source, pairs=imp.reasons, con=con)
        con.executemany("DELETE FROM sensitivity_reasons WHERE persona = ? AND doc_id = ?", sorted(overruled))
    return {"changed": sum(c.changed for c in changes.values()) + len(overruled), "topics_changed": len(topics),
            "personas_changed": len(cards)}


def _reasons_against_levels(con, imp: _Import) -> tuple[dict[tuple[str, str], int], dict[tuple[str, str], tuple[int, list[str]]]]:
    """A reason is a person saying why a document IS sensitive for a persona (protection treats
    a document with one as judged sensitive), so it contradicts a level 0 ("not sensitive") and
    a level -1 ("I don't know": left out of training) alike. For the (persona, document) pairs
    this import touches, with levels and reasons as they would be after it, a pair judged under
    at least one topic whose highest level is 0 or -1 (no level >= 1 under any topic):
    - given a reason by this import: ``contradicted`` (pair -> that highest level; always
      refused);
    - with stored reasons this import leaves in place: ``overruled`` (pair -> (highest level,
      those reasons); refused unless ``replace``, which removes the reasons).
    A pair with no level at all contradicts nothing (a reason on its own is a positive)."""
    touched = set(imp.reasons) | {(p, d) for p, _, d in imp.sensitivity}
    if not touched:
        return {}, {}
    levels: dict[tuple[str, str], dict[str, int]] = {}
    reasons: dict[tuple[str, str], list[str]] = {}
    for persona in sorted({p for p, _ in touched}):
        for t, d, lvl in con.execute("SELECT topic, doc_id, level FROM sensitivity WHERE persona = ?", (persona,)):
            if (persona, d) in touched:
                levels.setdefault((persona, d), {})[t] = lvl
        for d, r in con.execute("SELECT doc_id, reason FROM sensitivity_reasons WHERE persona = ? ORDER BY doc_id, reason",
                                (persona,)):
            if (persona, d) in touched:
                reasons.setdefault((persona, d), []).append(r)
    for (p, t, d), lvl in imp.sensitivity.items():
        levels.setdefault((p, d), {})[t] = lvl
    contradicted: dict[tuple[str, str], int] = {}
    overruled: dict[tuple[str, str], tuple[int, list[str]]] = {}
    for pair in sorted(touched):
        if pair not in levels:
            continue
        top = max(levels[pair].values())
        if top >= 1:
            continue
        if imp.reasons.get(pair):
            contradicted[pair] = top
        elif pair not in imp.reasons and reasons.get(pair):
            overruled[pair] = (top, reasons[pair])
    return contradicted, overruled


def _pairs(pairs, detail=lambda pair: "") -> str:
    shown = ", ".join(f"{d} (persona {p}{detail((p, d))})" for p, d in list(pairs)[:5])
    return shown + (f" and {len(pairs) - 5} more" if len(pairs) > 5 else "")


_JUDGED = {0: ("not sensitive (level 0)", "not sensitive"), -1: ("'I don't know' (level -1)", "'I don't know'")}


def _judged(levels) -> tuple[str, str]:
    """How documents with these highest levels (0 or -1) are judged, in words: in full and short."""
    kinds = sorted(set(levels), reverse=True)
    if len(kinds) == 1:
        return _JUDGED[kinds[0]]
    return " or ".join(_JUDGED[k][0] for k in kinds), "so"


def _contradiction(imp: _Import, pairs: dict[tuple[str, str], int]) -> str:
    n = len(pairs)
    where = imp.reasons_source or "this import"
    mixed = len(set(pairs.values())) > 1
    return (f"{where}: a reason why a document is sensitive is given for {n} document{'s' if n != 1 else ''} "
            f"judged {_judged(pairs.values())[0]} for that persona: "
            f"{_pairs(list(pairs), lambda pair: f', level {pairs[pair]}' if mixed else '')}. "
            "A reason says the document is sensitive: correct its level (1 or more) or drop the reason; "
            "nothing was imported.")


def _overruling(imp: _Import, pairs: dict[tuple[str, str], tuple[int, list[str]]]) -> str:
    n = len(pairs)
    where = imp.sensitivity_source or "this import"
    full, short = _judged(lvl for lvl, _ in pairs.values())
    mixed = short == "so"

    def detail(pair):
        lvl, rs = pairs[pair]
        return (f", level {lvl}" if mixed else "") + ": " + ", ".join(rs)
    return (f"{where}: judges {n} document{'s' if n != 1 else ''} {full} that "
            f"{'have' if n != 1 else 'has'} stored reasons why {'they are' if n != 1 else 'it is'} sensitive: "
            f"{_pairs(list(pairs), detail)}; nothing was imported. "
            f"To judge them {short} and remove those reasons, import again with --replace.")


def _plural(kind: str, n: int) -> str:
    if n == 1:
        return kind
    head, _, tail = kind.partition(" of ")
    return (head + "s") + (f" of {tail}" if tail else "")


def _refusal(changes: dict, topics: list, cards: list) -> str:
    parts, typed = [], []
    foreign = sum(sum(c.foreign.values()) for c in changes.values())
    if foreign:
        detail = "; ".join(f"{n} {_plural(kind, n)} from {src or 'an unnamed source'}"
                           for kind, c in changes.items() for src, n in sorted(c.foreign.items()))
        parts.append(f"change {foreign} judgment{'s' if foreign != 1 else ''} another import made ({detail})")
        typed = sorted({src for c in changes.values() for src in c.foreign if _typed_path(src)})
    if topics:
        shown = ", ".join(f"{i} ({old!r} -> {new!r})" if old != new else f"{i} (another description or narrative)"
                          for i, old, new in topics[:5])
        more = f" and {len(topics) - 5} more" if len(topics) > 5 else ""
        parts.append(f"redefine {len(topics)} topic{'s' if len(topics) != 1 else ''}: {shown}{more}")
    if cards:
        parts.append(f"replace the persona card{'s' if len(cards) != 1 else ''} of {', '.join(cards)}")
    note = ""
    if foreign and typed:
        note = (f" ({', '.join(typed[:3])}{' ...' if len(typed) > 3 else ''}: recorded by an older version as typed, "
                "without its folder, so it cannot be told apart from another file of that name; "
                "if it is this file, --replace takes its judgments over.)")
    return ("this import would " + ", ".join(parts) + "; nothing was imported. "
            "To replace them, import again with --replace." + note)


def _typed_path(source: str) -> bool:
    """A stored source that is a relative file path, as older versions recorded what was typed."""
    return bool(source) and source not in ("demo", J.STDIN_SOURCE) and not Path(source).is_absolute()


def import_judgments(session, qrels_path=None, sensitivity_path=None, topics_path=None,
                     personas_path=None, reasons_path=None, *, replace: bool = False,
                     progress: Optional[Progress] = None) -> dict[str, int]:
    """Load TREC qrels, sensitivity judgments (``persona docid level`` or
    ``topic persona docid level``; level -1 = "I don't know"), topics (JSON), persona cards
    (JSON) and reasons (``docid<TAB>persona<TAB>reason``) into the project.

    Every file is read and checked first; then everything is written in one transaction, so a
    bad file or an interruption leaves the project as it was. Document ids are normalised as
    ingest normalises Message-IDs (``<id>`` -> ``id``); ``not_in_project`` counts the judged ids
    that match no message (they are kept, for mail ingested later). A reason says a document IS
    sensitive (protection withholds a document with one, even without a level): a reason for a
    document whose highest level for the persona would be 0 or -1 ("I don't know", which training
    leaves out) is refused, and so, unless ``replace`` (which removes those reasons), is a level
    0 or -1 that would become the highest level of a document with stored reasons. Personas named by the
    sensitivity or reasons file but without a card get a minimal card (id as name). A new
    persona's id may not hold spaces or control characters (InputError). Judgments another import (another
    ``source`` file) made are changed only with ``replace=True``, and so are differing topic
    definitions and persona cards; ``changed`` counts the stored judgments this import changed.
    A file's source is its resolved absolute path: the same file however it is named is one
    source, two files with one name are two; a value left as it was keeps its old source (see
    engine/project/judgments.py for sources stored by older versions).
    """
    from ..evaluate.formats import read_qrels, read_sensitivity

    if not any((qrels_path, sensitivity_path, topics_path, personas_path, reasons_path)):
        raise InputError("nothing to import: give qrels, sensitivity, topics, personas or reasons")
    progress = ensure(progress)
    imp = _Import()
    steps = [p for p in (personas_path, topics_path, qrels_path, sensitivity_path, reasons_path) if p]
    step = 0

    def reading(path):
        nonlocal step
        progress.update(step, len(steps) + 1, f"reading {Path(path).name}")
        step += 1

    if personas_path:
        reading(personas_path)
        imp.personas = read_personas(Path(personas_path))
    if topics_path:
        reading(topics_path)
        imp.topics = read_topics(Path(topics_path))
    if qrels_path:
        reading(qrels_path)
        qrels = read_qrels(qrels_path, check_docid=normalise_id)
        imp.qrels = _normalised((((q.topic, q.docid), q.rel) for q in qrels), qrels_path, lambda k: f"topic {k[0]}")
        imp.qrels_source = J.source_of(qrels_path)
    if sensitivity_path:
        reading(sensitivity_path)
        judged = read_sensitivity(sensitivity_path, check_docid=normalise_id)
        imp.sensitivity = _normalised((((s.persona, s.topic or "", s.docid), s.level) for s in judged), sensitivity_path,
                                      lambda k: f"persona {k[0]}" + (f", topic {k[1]}" if k[1] else ""))
        imp.sensitivity_source = J.source_of(sensitivity_path)
    if reasons_path:
        reading(reasons_path)
        grouped: dict[tuple[str, str], list[str]] = {}
        for p, d, r in read_reasons(reasons_path):
            rs = grouped.setdefault((p, normalise_id(d)), [])
            if r not in rs:
                rs.append(r)
        imp.reasons = grouped
        imp.reasons_source = J.source_of(reasons_path)
    # A persona named by a judgment or a reason but without a card gets a minimal one (else
    # nothing could list it, train for it or search as it).
    known = {p["id"] for p in J.personas(session.store)} | {c["id"] for c in imp.personas}
    judged = {p for p, _, _ in imp.sensitivity}
    missing = sorted((judged | {p for p, _ in imp.reasons}) - known)
    for p in missing:
        check_persona_id(p, str(sensitivity_path if p in judged else reasons_path))
    imp.personas += [{"id": p, "name": p} for p in missing]
    progress.update(len(steps), len(steps) + 1, "saving judgments")
    changed = _commit(session, imp, replace)
    progress.update(len(steps) + 1, len(steps) + 1, "judgments saved")
    return {"personas": len(imp.personas), "topics": len(imp.topics), "qrels": len(imp.qrels),
            "sensitivity": len(imp.sensitivity), "reasons": sum(len(r) for r in imp.reasons.values()),
            **_not_in_project(session, imp.doc_ids()), **changed}


# ------------------------------------------------------------------------------ Berkeley .cats
def read_cats(path: Path) -> list[tuple[int, int, int]]:
    """``n1,n2,n3`` lines -> (top-level category, second-level category, frequency)."""
    out = []
    try:
        lines = Path(path).read_text(encoding="utf-8-sig", errors="replace").splitlines()
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    for number, line in enumerate(lines, 1):
        line = line.strip()
        if not line:
            continue
        parts = line.split(",")
        try:
            a, b, n = (int(p) for p in parts)
        except ValueError:
            raise InputError(f"{path}, line {number}: expected 'n1,n2,n3' (three integers), got {line!r}") from None
        out.append((a, b, n))
    return out


def enron_judgments(cats: list[tuple[int, int, int]]) -> tuple[dict[str, int], int]:
    """Relevance grade per topic (only topics with grade >= 1) and the Dana Whitfield
    sensitivity level (1 or 0) for one message's labels."""
    labels = {(a, b) for a, b, _ in cats}
    grades: dict[str, int] = {}
    if not labels & EMPTY_GENRES:
        for a, b, n in cats:
            if a == 3 and 1 <= b <= 13 and n >= 1:
                g = 2 if n >= 2 else 1
                grades[str(b)] = max(grades.get(str(b), 0), g)
    return grades, int(bool(labels & SENSITIVE_LABELS))


def enron_reasons(cats: list[tuple[int, int, int]]) -> list[str]:
    """The Dana Whitfield reason groups (see ENRON_REASONS) one message's labels carry, in order."""
    labels = {(a, b) for a, b, _ in cats}
    return [g for g, ls in ENRON_REASONS.items() if labels & ls]


# ------------------------------------------------------------------------------ reasons in the store
def save_reasons(session, rows, source: str = "", *, pairs=None, con=None) -> int:
    """(persona, doc_id, reason) rows; a (persona, doc_id) given here (or in ``pairs``) has its
    old reasons replaced, unless its set of reasons stays the same: then the stored rows, and
    their sources, are kept. With ``con`` (inside the caller's transaction) nothing is committed here."""
    rows = [(p, d, str(r)) for p, d, r in rows]
    new: dict[tuple[str, str], set[str]] = {pair: set() for pair in (pairs or ())}
    for p, d, r in rows:
        new.setdefault((p, d), set()).add(r)

    def write(c):
        same = set()
        for pair, reasons in new.items():
            stored = {r for (r,) in c.execute(
                "SELECT reason FROM sensitivity_reasons WHERE persona = ? AND doc_id = ?", pair)}
            if stored == reasons:
                same.add(pair)
        c.executemany("DELETE FROM sensitivity_reasons WHERE persona = ? AND doc_id = ?",
                      [pair for pair in new if pair not in same])
        c.executemany("INSERT OR IGNORE INTO sensitivity_reasons(persona, doc_id, reason, source) VALUES (?, ?, ?, ?)",
                      [(p, d, r, source) for p, d, r in rows if (p, d) not in same])
    if con is not None:
        write(con)
    else:
        with session.store.transaction() as c:
            write(c)
    return len(rows)


def sensitivity_reasons(session, persona: str) -> dict[str, list[str]]:
    """doc_id -> sorted reasons why the persona finds it sensitive (only documents with a reason)."""
    out: dict[str, list[str]] = {}
    for d, r in session.store.con.execute(
            "SELECT doc_id, reason FROM sensitivity_reasons WHERE persona = ? ORDER BY doc_id, reason", (persona,)):
        out.setdefault(d, []).append(r)
    return out


def _reasons_header(parts: list[str]) -> bool:
    """A reasons file's header line: 'docid<TAB>persona<TAB>reason', in any case, with 'doc_id'
    or 'doc id', 'personas' or 'persona_id', 'reasons' (a first doc id "docid42@x" is data)."""
    names = [re.sub(r"[\s_-]+", "", p).casefold() for p in parts]
    return (len(names) == 3 and names[0] in ("docid", "document", "messageid") and names[1].startswith("persona")
            and names[2].startswith("reason"))


def read_reasons(path) -> list[tuple[str, str, str]]:
    """A ``docid<TAB>persona<TAB>reason`` file (header line optional) -> (persona, docid, reason)."""
    out = []
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    bom = 3 if data.startswith(b"\xef\xbb\xbf") else 0
    try:
        text = data[bom:].decode("utf-8")
    except UnicodeDecodeError as exc:
        at = bom + exc.start
        line = data.count(b"\n", 0, at) + 1
        raise InputError(f"{path}:{line}: not UTF-8 text ({exc.reason} at byte {at} of the file)") from None
    for number, line in enumerate(text.splitlines(), 1):
        line = line.removeprefix("\ufeff")   # (files joined: each one's byte-order mark, see formats._raw_lines)
        parts = line.split("\t")
        if not line.strip() or (number == 1 and _reasons_header(parts)):
            continue
        if len(parts) != 3 or not all(p.strip() for p in parts):
            raise InputError(f"{path}, line {number}: expected 'docid<TAB>persona<TAB>reason', got {line!r}")
        try:
            normalise_id(parts[0])
        except InputError as exc:
            raise InputError(f"{path}, line {number}: {exc}") from None
        out.append((parts[1].strip(), parts[0].strip(), parts[2].strip()))
    return out


# ------------------------------------------------------------------------------ which message a .txt is
@dataclass
class _NotIngested:
    """A labelled file that is not (yet) a document of the project: its parsed message, and
    whether a stored message has its Message-ID (``taken``)."""
    txt: Path
    message: Any
    taken: bool


class _Locator:
    """The project doc_id of a labelled ``NNN.txt``: by its location (the kept copy or any other
    copy of a message), else by its bytes (a moved or copied folder), else by parsing it as
    ingest does (Message-ID, folded headers, the synthetic ``sasc-`` id of a message without one).

    A file that is no document of the project yet (labels imported before the mail) gets the
    doc_id ingest WILL give it, decided by :meth:`predict` over all such files together with
    ingest's own rule (engine/ingest/importer.py: a message with the Message-ID, the subject,
    the Date and the text of a stored one, or its text with something added before or after it,
    is a copy of it, ``same_message``; otherwise ``new_doc_id``: the bare Message-ID when no
    stored message has it, else ``<Message-ID>~<hash of the first copy stored>``). Where that
    id depends on the order the mail will be ingested in, the import is refused (see
    :meth:`predict`)."""

    def __init__(self, con):
        self.con = con
        self.by_location = {r[0]: r[1] for r in con.execute(
            "SELECT c.location, m.doc_id FROM copies c JOIN messages m ON m.id = c.message")}
        self.by_location.update((r[0], r[1]) for r in con.execute("SELECT location, doc_id FROM messages"))

    def locate(self, txt: Path):
        """The doc_id of a stored document, a :class:`_NotIngested`, or None (unreadable, or
        not mail: ingest skips it, so do we)."""
        doc = self.by_location.get(str(txt))
        if doc is not None:
            return doc
        try:
            raw = txt.read_bytes()
        except OSError:
            return None
        row = self.con.execute("SELECT m.doc_id FROM copies c JOIN messages m ON m.id = c.message "
                               "WHERE c.raw_sha256 = ?", (raw_digest(raw),)).fetchone()
        if row is not None:
            return row[0]
        try:
            m = parse_message(raw, str(txt))
        except Exception:  # MalformedMessage, or anything the parser cannot read: ingest skips it, so do we
            return None
        from ..ingest.importer import _with_message_id, stored_document
        rows = _with_message_id(self.con, m)
        row = stored_document(self.con, m, existing=rows)  # ingest's own rule for "a copy of a stored document"
        if row is not None:
            return row["doc_id"]
        return _NotIngested(txt, m, bool(rows))

    @staticmethod
    def predict(files: list[_NotIngested], folder: Path) -> dict[Path, str]:
        """The doc_id ingest will give each file not yet in the project, from ingest's rule
        (:func:`..ingest.importer.same_message`: a copy has the Message-ID, the same subject, Date
        and text, or the other's text with something added before or after it) applied to every
        such file with one Message-ID together:
        - files that are copies of one another by that rule (none is a copy of a stored message:
          :meth:`locate` found those) are one message (ingest merges them), so they share one
          doc_id: the Message-ID when no stored message has it, else ``<Message-ID>~<hash>`` of
          their bytes;
        - files with the Message-ID that are different messages (another subject, Date or text)
          are as many documents. When a stored message has the Message-ID, each is
          ``<Message-ID>~<hash of its bytes>``. When none has it, which of them ingest stores first
          (taking the bare Message-ID, the others ``~<hash>``) depends on the order the mail is
          ingested in; so does the id of copies (different bytes) of one message whose
          Message-ID a stored message already has (the ``~<hash>`` is of the copy stored first),
          and whether copies that each add something to the text of another, but not of every
          other (a footer copy and a banner copy of one text), are one message at all (ingest
          compares a new copy with the text stored first). Labels for them cannot be placed before
          ingest: an InputError, nothing written.
        A message without a Message-ID has the synthetic ``sasc-<digest of its content>`` id, so
        its copies share it and are grouped like the rest."""
        from ..ingest.importer import new_doc_id, same_message

        def same(a: _NotIngested, b: _NotIngested) -> bool:
            ma, mb = a.message, b.message
            return same_message(ma.subject, ma.timestamp, ma.body, mb.subject, mb.timestamp, mb.body)

        out: dict[Path, str] = {}
        by_id: dict[str, list[_NotIngested]] = {}
        for f in files:
            by_id.setdefault(f.message.message_id, []).append(f)
        problems: list[str] = []
        for mid, group in by_id.items():
            messages: list[list[_NotIngested]] = []          # files grouped as ingest merges them
            for f in group:
                joined = [ms for ms in messages if any(same(f, g) for g in ms)]
                for ms in joined[1:]:                        # f is a copy of files of several: one group
                    joined[0].extend(ms)
                    messages.remove(ms)
                if joined:
                    joined[0].append(f)
                else:
                    messages.append([f])
            taken = group[0].taken
            unsure = [ms for ms in messages if not all(same(a, b) for i, a in enumerate(ms) for b in ms[i + 1:])]
            for ms in unsure:
                problems.append(f"<{mid}>: " + _and([_shown(f.txt, folder) for f in ms])
                                + " are copies of one message only in some orders (each with something added to "
                                  "the text of another, not of every other)")
            if unsure:
                continue
            if len(messages) > 1 and not taken:
                heads = [ms[0].message for ms in messages]
                subjects = {" ".join((m.subject or "").split()) for m in heads}
                differ = ("different subjects" if len(subjects) == len(heads) else
                          "different dates or texts" if len(subjects) == 1 else "different subjects, dates or texts")
                problems.append(f"<{mid}>: " + _and([f"{_shown(ms[0].txt, folder)} ({ms[0].message.subject!r})"
                                                     for ms in messages])
                                + f" are different messages ({differ}) with one Message-ID")
                continue
            for ms in messages:
                if taken and len({f.message.raw_sha256 for f in ms}) > 1:
                    problems.append(f"<{mid}>: " + _and([_shown(f.txt, folder) for f in ms])
                                    + " are copies (different bytes) of one message, and the project has another "
                                      "message with that Message-ID, so its id is the Message-ID with the hash of "
                                      "the copy ingested first")
                else:
                    doc = new_doc_id(ms[0].message, taken=taken)
                    out.update((f.txt, doc) for f in ms)
        if problems:
            shown = "; ".join(problems[:5]) + (f"; and {len(problems) - 5} more" if len(problems) > 5 else "")
            raise InputError(
                f"{folder}: the labels of mail not in the project yet cannot be placed where the document id "
                f"ingest will give a message depends on the order the mail is ingested in: "
                f"{shown}. Ingest the mail first (sasc ingest PROJECT {folder}), then import the labels again; "
                "nothing was imported.")
        return out


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _shown(path: Path, folder: Path) -> str:
    try:
        return str(path.relative_to(folder))
    except ValueError:
        return str(path)


def _persona_card(persona_id: str, default: dict[str, Any]) -> dict[str, Any]:
    path = RESOURCES / "personas.json"
    if path.exists():
        try:
            for card in read_personas(path):
                if card["id"] == persona_id:
                    return card
        except InputError:
            pass
    return dict(default)


def import_categories(session, folder, progress: Optional[Progress] = None, *, replace: bool = False) -> dict[str, int]:
    """Import Berkeley-style labels (``NNN.cats`` beside ``NNN.txt``) as the Enron categories
    test collection: 13 topics with graded relevance and sensitivity for Dana Whitfield.

    A message's document id is the project doc_id of its ``NNN.txt`` (found by the location of
    any stored copy, else by its bytes, else by parsing it as ingest does; see ``_Locator``).
    Labels imported before the mail get the ids ingest will give; where that depends on the
    order the mail is ingested in (two different messages with one Message-ID), the import is
    refused, asking for the mail to be ingested first.
    Every labelled message gets a qrels line for every topic (grade 0 when not relevant) and one
    topic-independent sensitivity judgment. Label files that map to one doc_id (copies of one
    message) are merged: the highest level, the highest grade per topic, every reason. Counts
    are per distinct doc_id. Every file is read first; everything is written in one
    transaction. Judgments another import made, a differing topic definition or persona card
    are changed only with ``replace=True``.
    """
    folder = Path(folder).expanduser().resolve()
    if not folder.is_dir():
        raise InputError(f"{folder}: no such folder")
    cats_files = sorted(folder.rglob("*.cats"))
    if not cats_files:
        raise InputError(f"{folder}: no .cats label files found")
    progress = ensure(progress)
    locator = _Locator(session.store.con)
    located: list[tuple[list, Any]] = []
    for i, cats_path in enumerate(cats_files):
        if i % 200 == 0:
            progress.update(i, len(cats_files), "reading labels")
        cats = read_cats(cats_path)
        txt = cats_path.with_suffix(".txt")
        located.append((cats, locator.locate(txt) if txt.exists() else None))
    predicted = _Locator.predict([f for _, f in located if isinstance(f, _NotIngested)], folder)
    merged: dict[str, tuple[int, dict[str, int], set[str]]] = {}
    missing_txt = 0
    for cats, found in located:
        doc_id = predicted[found.txt] if isinstance(found, _NotIngested) else found
        if doc_id is None:
            missing_txt += 1
            continue
        grades, level = enron_judgments(cats)
        old_level, old_grades, reasons = merged.get(doc_id, (0, {}, set()))
        for t, g in grades.items():
            old_grades[t] = max(old_grades.get(t, 0), g)
        merged[doc_id] = (max(old_level, level), old_grades, reasons | set(enron_reasons(cats)))
    order = list(ENRON_REASONS)
    source = J.source_of(folder)
    imp = _Import(personas=[_persona_card(ENRON_PERSONA, DANA_WHITFIELD)], topics=ENRON_TOPICS,
                  qrels={(t["id"], d): g.get(t["id"], 0) for d, (_, g, _) in merged.items() for t in ENRON_TOPICS},
                  sensitivity={(ENRON_PERSONA, "", d): lvl for d, (lvl, _, _) in merged.items()},
                  reasons={(ENRON_PERSONA, d): sorted(rs, key=order.index) for d, (_, _, rs) in merged.items()},
                  qrels_source=source, sensitivity_source=source, reasons_source=source)
    progress.update(len(cats_files), len(cats_files), "saving labels")
    changed = _commit(session, imp, replace)
    return {"messages": len(merged), "sensitive": sum(lvl for lvl, _, _ in merged.values()), "qrels": len(imp.qrels),
            "topics": len(ENRON_TOPICS), "personas": 1, "without_message": missing_txt,
            "reasons": sum(len(rs) for _, _, rs in merged.values()),
            **_not_in_project(session, set(merged)), **changed}


# ------------------------------------------------------------------------------ training labels
def persona_ids(session) -> list[dict[str, str]]:
    return [{"id": p["id"], "name": p["name"]} for p in J.personas(session.store)]


def check_persona(session, persona: str) -> None:
    known = [p["id"] for p in J.personas(session.store)]
    if persona not in known:
        listing = ", ".join(known) if known else "none yet (import judgments first)"
        raise InputError(f"unknown persona {persona!r}; this project's personas are: {listing}")


def training_labels(session, persona: str) -> dict[str, int]:
    """doc_id -> 1 or 0 for the judged documents in the project, by the highest level over
    every topic: >= 1 -> 1, 0 -> 0, -1 ("I don't know") -> left out. A document with a reason
    why it is sensitive is a positive, also without any level: the rule protection applies
    (protect.judged_sensitive), so the model learns from everything it will hide.

    Imports keep reasons and levels consistent (a reason beside a highest level 0 or -1 is
    refused; with ``--replace`` a level 0 or -1 removes the document's reasons), so a "don't
    know" never has a reason. A project written by an older version may still hold a reason
    beside a level 0 or -1: there the stored reason wins and the document is a positive, the
    side protection takes too (it withholds the document); re-importing the level with
    ``--replace`` removes the reason and the document becomes a negative (0) or is left out (-1)."""
    levels = J.sensitivity(session.store, persona)
    present = {r[0] for r in session.store.con.execute("SELECT doc_id FROM messages")}
    labels = {d: int(lvl >= 1) for d, lvl in levels.items() if lvl >= 0 and d in present}
    for (d,) in session.store.con.execute(
            "SELECT DISTINCT doc_id FROM sensitivity_reasons WHERE persona = ?", (persona,)):
        if d in present:
            labels[d] = 1
    return labels
