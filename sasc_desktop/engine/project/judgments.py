"""Judgments stored in a project: personas, topics, relevance (qrels) and sensitivity.

Document ids here are external ids (the messages' doc_id, usually the Message-ID), so
judgments may be imported before or after the mail they are about.

Every ``save_*`` function writes in its own transaction, or, given ``con=`` (a connection
inside the caller's ``store.transaction()``), as part of the caller's, so that an import of
several files is all or nothing. The ``*_changes`` functions say, before writing, which stored
values a write would change and which import (``source``) made them.

Sources. An import records where each value came from: the resolved absolute path of the file
(or, for ``.cats`` labels, the folder), so one physical file is one source however it was
named (relative, ``./``, a symlink, absolute) and two different files with the same name are
two sources. A write that leaves a stored value as it is keeps that value's source (only a
changed value takes the new one), so importing a file that merely agrees with a person's
judgment does not take the judgment over. Projects made before sources were resolved may hold
a path as it was typed (``judgments.txt``, ``../h.qrels``): the folder it was relative to is not
known, so such a source is never taken to be the same as a new one (it is "another import": a
change to its values is refused without ``--replace``; the safe side). A stored absolute path
is compared in resolved form (:func:`same_source`); any other stored name (``demo``, ``""``,
``stdin`` for judgments read from standard input: see :func:`source_of`) is the same source only
when equal.
"""
from __future__ import annotations

import json
import os
import sqlite3
import stat
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Optional, TypeVar

from .store import Store

T = TypeVar("T")


def _write(store: Store, con: Optional[sqlite3.Connection], work: Callable[[sqlite3.Connection], T]) -> T:
    if con is not None:
        return work(con)
    with store.transaction() as c:
        return work(c)


def tidy_card(card: dict[str, Any]) -> dict[str, Any]:
    """The card as it is stored: its name without white space around it, and a name that is
    empty or only white space replaced by the id (stored as it was, "   " showed the persona as
    blank in ``sasc personas`` and in the app)."""
    name = card.get("name")
    if not isinstance(name, str):
        return card
    tidy = name.strip() or str(card["id"])
    return card if tidy == name else {**card, "name": tidy}


def save_personas(store: Store, cards: Iterable[dict[str, Any]], con: Optional[sqlite3.Connection] = None) -> int:
    cards = [tidy_card(c) for c in cards]
    rows = [(c["id"], c.get("name") or c["id"], json.dumps(c)) for c in cards]
    _write(store, con, lambda c: c.executemany(
        "INSERT INTO personas(id, name, card) VALUES (?, ?, ?) ON CONFLICT(id) DO UPDATE "
        "SET name = excluded.name, card = excluded.card", rows))
    return len(rows)


def personas(store: Store) -> list[dict[str, Any]]:
    return [{"id": r[0], "name": r[1], "card": json.loads(r[2])}
            for r in store.con.execute("SELECT id, name, card FROM personas ORDER BY id")]


def _topic_row(t: dict[str, Any]) -> tuple[str, str, str, str]:
    return (str(t["id"]), t.get("title") or "", t.get("description") or "", t.get("narrative") or "")


def save_topics(store: Store, topics: Iterable[dict[str, Any]], con: Optional[sqlite3.Connection] = None) -> int:
    rows = [_topic_row(t) for t in topics]
    _write(store, con, lambda c: c.executemany(
        "INSERT INTO topics(id, title, description, narrative) VALUES (?, ?, ?, ?) "
        "ON CONFLICT(id) DO UPDATE SET title = excluded.title, description = excluded.description, "
        "narrative = excluded.narrative", rows))
    return len(rows)


def topics(store: Store) -> list[dict[str, str]]:
    rows = store.con.execute("SELECT id, title, description, narrative FROM topics")
    return sorted((dict(r) for r in rows), key=lambda t: (len(t["id"]), t["id"]))


def save_qrels(store: Store, qrels: Iterable[tuple[str, str, int]], source: str = "",
               con: Optional[sqlite3.Connection] = None) -> int:
    """(topic, doc_id, rel) triples; a later judgment of the same pair replaces the earlier.
    A stored grade that stays the same keeps its source."""
    rows = [(str(t), d, int(r), source) for t, d, r in qrels]
    _write(store, con, lambda c: c.executemany(
        "INSERT INTO qrels(topic, doc_id, rel, source) VALUES (?, ?, ?, ?) "
        "ON CONFLICT(topic, doc_id) DO UPDATE SET rel = excluded.rel, source = excluded.source "
        "WHERE qrels.rel IS NOT excluded.rel", rows))
    return len(rows)


def qrels(store: Store) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for t, d, r in store.con.execute("SELECT topic, doc_id, rel FROM qrels"):
        out.setdefault(t, {})[d] = r
    return out


def save_sensitivity(store: Store, judgments: Iterable[tuple[str, str, str, int]], source: str = "",
                     con: Optional[sqlite3.Connection] = None) -> int:
    """(persona, topic or '', doc_id, level) tuples. A stored level that stays the same keeps
    its source."""
    rows = [(p, t or "", d, int(level), source) for p, t, d, level in judgments]
    _write(store, con, lambda c: c.executemany(
        "INSERT INTO sensitivity(persona, topic, doc_id, level, source) VALUES (?, ?, ?, ?, ?) "
        "ON CONFLICT(persona, topic, doc_id) DO UPDATE SET level = excluded.level, "
        "source = excluded.source WHERE sensitivity.level IS NOT excluded.level", rows))
    return len(rows)


def sensitivity(store: Store, persona: str, topic: Optional[str] = None) -> dict[str, int]:
    """doc_id -> level for a persona. Without a topic: the most sensitive level over every
    topic (sensitive under any topic counts as sensitive)."""
    if topic is None:
        rows = store.con.execute("SELECT doc_id, MAX(level) FROM sensitivity WHERE persona = ? GROUP BY doc_id", (persona,))
    else:
        rows = store.con.execute("SELECT doc_id, level FROM sensitivity WHERE persona = ? AND topic IN ('', ?)", (persona, topic))
    return {d: lvl for d, lvl in rows}


# ------------------------------------------------------------------------------ what a write changes
STDIN_SOURCE = "stdin"
_STDIN_NAMES = ("/dev/stdin", "/dev/fd/0", "/proc/self/fd/0")


def source_of(path) -> str:
    """The source an import records for a file or folder: its resolved absolute path. A pipe,
    FIFO, socket or character device is no file to resolve: /dev/stdin resolves to
    ``/proc/<pid>/fd/pipe:[inode]``, another name every run (a corrected second import from
    stdin was refused as another import's). The process's standard input, however it is named
    (/dev/stdin, /dev/fd/0), is "stdin"; any other such path is recorded as typed, made absolute
    but not resolved. The standard input named so is "stdin" also when the shell gave it a file
    (``< file``): the same import through a pipe and through a redirect is one source."""
    p = Path(path).expanduser()
    if os.path.abspath(p) in _STDIN_NAMES:
        return STDIN_SOURCE
    try:
        st = os.stat(p)
    except OSError:
        st = None
    if st is not None and (stat.S_ISFIFO(st.st_mode) or stat.S_ISCHR(st.st_mode) or stat.S_ISSOCK(st.st_mode)):
        try:
            if os.path.samestat(st, os.fstat(0)):
                return STDIN_SOURCE
        except OSError:   # (no standard input)
            pass
        return os.path.abspath(p)
    return str(p.resolve())


def _resolved(name: str) -> str:
    try:
        return str(Path(name).resolve())
    except (OSError, RuntimeError):   # a symlink loop, an unreadable folder: compare as written
        return name


def same_source(stored: str, source: str) -> bool:
    """Whether a value stored with source ``stored`` was made by the import ``source``: equal
    names, or two absolute paths that resolve to the same file. A relative stored path (an
    older project's path as typed, relative to a folder no longer known) is another source."""
    if stored == source:
        return True
    if not stored or not source or not (os.path.isabs(stored) and os.path.isabs(source)):
        return False
    return _resolved(stored) == _resolved(source)


@dataclass
class Changes:
    """Stored values a write would change. ``changed`` counts every changed value of its kind;
    ``foreign`` counts, per source, those another import (a different ``source``) wrote."""
    changed: int = 0
    foreign: Counter = field(default_factory=Counter)
    _same: dict = field(default_factory=dict, repr=False, compare=False)   # (stored, source) -> same_source

    def is_foreign(self, old_source: str, source: str) -> bool:
        key = (old_source, source)
        if key not in self._same:
            self._same[key] = same_source(old_source, source)
        return not self._same[key]

    def add(self, old_source: str, source: str) -> None:
        self.changed += 1
        if self.is_foreign(old_source, source):
            self.foreign[old_source] += 1


def _existing(con: sqlite3.Connection, sql: str, keys: set, params: tuple = ()) -> dict:
    """key (all columns but the last two) -> (value, source) for stored rows whose key is in ``keys``."""
    out = {}
    if not keys:
        return out
    for row in con.execute(sql, params):
        key = tuple(row[:-2])
        if key in keys:
            out[key] = (row[-2], row[-1])
    return out


def qrels_changes(con: sqlite3.Connection, new: dict[tuple[str, str], int], source: str) -> Changes:
    """``new``: (topic, doc_id) -> rel. Stored grades ``new`` would change."""
    ch = Changes()
    old = _existing(con, "SELECT topic, doc_id, rel, source FROM qrels", set(new))
    for key, (rel, src) in old.items():
        if rel != new[key]:
            ch.add(src, source)
    return ch


def sensitivity_changes(con: sqlite3.Connection, new: dict[tuple[str, str, str], int], source: str) -> Changes:
    """``new``: (persona, topic or '', doc_id) -> level. Stored levels ``new`` would change."""
    ch = Changes()
    found = sorted({k[0] for k in new})
    if not found:
        return ch
    marks = ",".join("?" * len(found))
    old = _existing(con, f"SELECT persona, topic, doc_id, level, source FROM sensitivity WHERE persona IN ({marks})",
                    set(new), tuple(found))
    for key, (level, src) in old.items():
        if level != new[key]:
            ch.add(src, source)
    return ch


def reasons_changes(con: sqlite3.Connection, new: dict[tuple[str, str], set[str]], source: str) -> Changes:
    """``new``: (persona, doc_id) -> the reasons that replace the stored ones. Counts the
    (persona, doc_id) pairs whose stored, non-empty set of reasons would change."""
    ch = Changes()
    found = sorted({k[0] for k in new})
    if not found:
        return ch
    marks = ",".join("?" * len(found))
    stored: dict[tuple[str, str], tuple[set[str], set[str]]] = {}
    for p, d, r, src in con.execute(
            f"SELECT persona, doc_id, reason, source FROM sensitivity_reasons WHERE persona IN ({marks})", tuple(found)):
        if (p, d) in new:
            reasons, sources = stored.setdefault((p, d), (set(), set()))
            reasons.add(r)
            sources.add(src)
    for key, (reasons, sources) in stored.items():
        if reasons != set(new[key]):
            ch.changed += 1
            for src in sorted(s for s in sources if ch.is_foreign(s, source))[:1]:
                ch.foreign[src] += 1
    return ch


def topic_changes(con: sqlite3.Connection, new: Iterable[dict[str, Any]]) -> list[tuple[str, str, str]]:
    """(id, stored title, new title) for every stored topic the new definitions would redefine
    (a different title, description or narrative)."""
    rows = {r[0]: tuple(r) for r in con.execute("SELECT id, title, description, narrative FROM topics")}
    out = []
    for t in new:
        row = _topic_row(t)
        old = rows.get(row[0])
        if old is not None and old != row:
            out.append((row[0], old[1], row[1]))
    return out


def persona_changes(con: sqlite3.Connection, cards: Iterable[dict[str, Any]]) -> list[str]:
    """Ids of stored persona cards that the new cards differ from. A stored minimal card
    (``{"id": x, "name": x}``, made for a persona a sensitivity file named) is not counted:
    filling it in replaces nothing anyone wrote."""
    stored = {r[0]: r[1] for r in con.execute("SELECT id, card FROM personas")}
    out = []
    for card in cards:
        old = stored.get(card["id"])
        if old is None:
            continue
        try:
            old = json.loads(old)
        except ValueError:
            old = None
        if old == {"id": card["id"], "name": card["id"]}:
            continue
        same = isinstance(old, dict) and tidy_card(old) == json.loads(json.dumps(tidy_card(card)))
        if not same:
            out.append(card["id"])
    return out
