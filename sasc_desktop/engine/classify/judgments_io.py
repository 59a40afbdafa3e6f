"""Getting judgments into a project: TREC-style files and Berkeley ``.cats`` category labels.

Training data rules (the dissertation's): a message judged "I don't know" (level -1, or no
judgment at all) is left out; a message judged sensitive under any topic counts as sensitive.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Optional

from ..errors import InputError
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
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"{path}: no such {what} file") from None
    except (OSError, ValueError) as exc:
        raise InputError(f"{path}: cannot read the {what} file: {exc}") from None


def _records(data: Any, key: str, path: Path, what: str) -> list[dict[str, Any]]:
    """A list of dicts from ``[...]``, ``{key: [...]}`` or ``{id: {...}}``."""
    if isinstance(data, dict) and isinstance(data.get(key), list):
        data = data[key]
    if isinstance(data, dict):
        data = [{"id": k, **(v if isinstance(v, dict) else {"title": str(v)})} for k, v in data.items()]
    if not isinstance(data, list) or not all(isinstance(d, dict) and "id" in d for d in data):
        raise InputError(f"{path}: expected a list of {what} objects, each with an \"id\"")
    return [{**d, "id": str(d["id"])} for d in data]


def read_topics(path: Path) -> list[dict[str, Any]]:
    return _records(_load_json(path, "topics"), "topics", path, "topic")


def read_personas(path: Path) -> list[dict[str, Any]]:
    return _records(_load_json(path, "personas"), "personas", path, "persona")


def import_judgments(session, qrels_path=None, sensitivity_path=None, topics_path=None,
                     personas_path=None, reasons_path=None) -> dict[str, int]:
    """Load TREC qrels, sensitivity judgments (``persona docid level`` or
    ``topic persona docid level``), topics (JSON) and persona cards (JSON) into the project.
    Personas named by the sensitivity file but without a card get a minimal card."""
    from ..evaluate.formats import read_qrels, read_sensitivity

    if not any((qrels_path, sensitivity_path, topics_path, personas_path, reasons_path)):
        raise InputError("nothing to import: give qrels, sensitivity, topics, personas or reasons")
    store = session.store
    counts = {"personas": 0, "topics": 0, "qrels": 0, "sensitivity": 0}
    if personas_path:
        counts["personas"] = J.save_personas(store, read_personas(Path(personas_path)))
    if topics_path:
        counts["topics"] = J.save_topics(store, read_topics(Path(topics_path)))
    if qrels_path:
        qrels = read_qrels(qrels_path)
        counts["qrels"] = J.save_qrels(store, ((q.topic, q.docid, q.rel) for q in qrels), source=str(qrels_path))
    if sensitivity_path:
        sens = read_sensitivity(sensitivity_path)
        known = {p["id"] for p in J.personas(store)}
        missing = sorted({s.persona for s in sens} - known)
        if missing:
            counts["personas"] += J.save_personas(store, [{"id": p, "name": p} for p in missing])
        counts["sensitivity"] = J.save_sensitivity(
            store, ((s.persona, s.topic or "", s.docid, s.level) for s in sens), source=str(sensitivity_path))
    if reasons_path:  # docid<TAB>persona<TAB>reason, as the demo generator's reasons.tsv
        counts["reasons"] = save_reasons(session, read_reasons(reasons_path), source=str(reasons_path))
    return counts


# ------------------------------------------------------------------------------ Berkeley .cats
def read_cats(path: Path) -> list[tuple[int, int, int]]:
    """``n1,n2,n3`` lines -> (top-level category, second-level category, frequency)."""
    out = []
    try:
        lines = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
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
def save_reasons(session, rows, source: str = "") -> int:
    """(persona, doc_id, reason) rows; a (persona, doc_id) given here has its old reasons replaced."""
    rows = [(p, d, str(r)) for p, d, r in rows]
    with session.store.transaction() as con:
        for p, d in dict.fromkeys((p, d) for p, d, _ in rows):
            con.execute("DELETE FROM sensitivity_reasons WHERE persona = ? AND doc_id = ?", (p, d))
        con.executemany("INSERT OR IGNORE INTO sensitivity_reasons(persona, doc_id, reason, source) VALUES (?, ?, ?, ?)",
                        [(p, d, r, source) for p, d, r in rows])
    return len(rows)


def sensitivity_reasons(session, persona: str) -> dict[str, list[str]]:
    """doc_id -> sorted reasons why the persona finds it sensitive (only documents with a reason)."""
    out: dict[str, list[str]] = {}
    for d, r in session.store.con.execute(
            "SELECT doc_id, reason FROM sensitivity_reasons WHERE persona = ? ORDER BY doc_id, reason", (persona,)):
        out.setdefault(d, []).append(r)
    return out


def read_reasons(path) -> list[tuple[str, str, str]]:
    """A ``docid<TAB>persona<TAB>reason`` file (header line optional) -> (persona, docid, reason)."""
    out = []
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    for number, line in enumerate(lines, 1):
        if not line.strip() or (number == 1 and line.lower().startswith("docid")):
            continue
        parts = line.split("\t")
        if len(parts) != 3 or not all(p.strip() for p in parts):
            raise InputError(f"{path}, line {number}: expected 'docid<TAB>persona<TAB>reason', got {line!r}")
        out.append((parts[1].strip(), parts[0].strip(), parts[2].strip()))
    return out


_MESSAGE_ID = re.compile(rb"^Message-ID:[ \t]*<?([^>\r\n]+?)>?[ \t]*\r?$", re.I | re.M)


def _header_message_id(path: Path) -> Optional[str]:
    try:
        with open(path, "rb") as fh:
            head = fh.read(65536)
    except OSError:
        return None
    head = re.split(rb"\r?\n\r?\n", head, maxsplit=1)[0]
    m = _MESSAGE_ID.search(head)
    return m.group(1).decode("utf-8", "replace").strip() if m else None


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


def import_categories(session, folder, progress: Optional[Progress] = None) -> dict[str, int]:
    """Import Berkeley-style labels (``NNN.cats`` beside ``NNN.txt``) as the Enron categories
    test collection: 13 topics with graded relevance and sensitivity for Dana Whitfield.

    A message's document id is the project doc_id of its ``NNN.txt`` (found by its location in
    the project, else by its Message-ID header). Every labelled message gets a qrels line for
    every topic (grade 0 when not relevant) and one topic-independent sensitivity judgment.
    """
    folder = Path(folder).expanduser().resolve()
    if not folder.is_dir():
        raise InputError(f"{folder}: no such folder")
    cats_files = sorted(folder.rglob("*.cats"))
    if not cats_files:
        raise InputError(f"{folder}: no .cats label files found")
    progress = ensure(progress)
    store = session.store
    by_location = {r[0]: r[1] for r in store.con.execute("SELECT location, doc_id FROM messages")}
    qrels, sens, reasons = [], [], []
    missing_txt = 0
    for i, cats_path in enumerate(cats_files):
        if i % 200 == 0:
            progress.update(i, len(cats_files), "reading labels")
        txt = cats_path.with_suffix(".txt")
        doc_id = by_location.get(str(txt))
        if doc_id is None:
            doc_id = _header_message_id(txt) if txt.exists() else None
        if doc_id is None:
            missing_txt += 1
            continue
        cats = read_cats(cats_path)
        grades, level = enron_judgments(cats)
        reasons += [(ENRON_PERSONA, doc_id, r) for r in enron_reasons(cats)]
        for t in ENRON_TOPICS:
            qrels.append((t["id"], doc_id, grades.get(t["id"], 0)))
        sens.append((ENRON_PERSONA, "", doc_id, level))
    J.save_personas(store, [_persona_card(ENRON_PERSONA, DANA_WHITFIELD)])
    J.save_topics(store, ENRON_TOPICS)
    J.save_qrels(store, qrels, source=str(folder))
    J.save_sensitivity(store, sens, source=str(folder))
    with store.transaction() as con:
        con.executemany("DELETE FROM sensitivity_reasons WHERE persona = ? AND doc_id = ?",
                        [(ENRON_PERSONA, s[2]) for s in sens])
    save_reasons(session, reasons, source=str(folder))
    progress.update(len(cats_files), len(cats_files), "labels imported")
    return {"messages": len(sens), "sensitive": sum(s[3] for s in sens), "qrels": len(qrels),
            "topics": len(ENRON_TOPICS), "personas": 1, "without_message": missing_txt, "reasons": len(reasons)}


# ------------------------------------------------------------------------------ training labels
def persona_ids(session) -> list[dict[str, str]]:
    return [{"id": p["id"], "name": p["name"]} for p in J.personas(session.store)]


def check_persona(session, persona: str) -> None:
    known = [p["id"] for p in J.personas(session.store)]
    if persona not in known:
        listing = ", ".join(known) if known else "none yet (import judgments first)"
        raise InputError(f"unknown persona {persona!r}; this project's personas are: {listing}")


def training_labels(session, persona: str) -> dict[str, int]:
    """doc_id -> 1 (sensitive under any topic) or 0, for judged documents in the project.
    "Don't know" (every judgment < 0) is left out."""
    levels = J.sensitivity(session.store, persona)
    present = {r[0] for r in session.store.con.execute("SELECT doc_id FROM messages")}
    return {d: int(lvl >= 1) for d, lvl in levels.items() if lvl >= 0 and d in present}
