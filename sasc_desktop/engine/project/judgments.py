"""Judgments stored in a project: personas, topics, relevance (qrels) and sensitivity.

Document ids here are external ids (the messages' doc_id, usually the Message-ID), so
judgments may be imported before or after the mail they are about.
"""
from __future__ import annotations

import json
from typing import Any, Iterable, Optional

from .store import Store


def save_personas(store: Store, cards: Iterable[dict[str, Any]]) -> int:
    rows = [(c["id"], c.get("name") or c["id"], json.dumps(c)) for c in cards]
    with store.transaction() as con:
        con.executemany("INSERT INTO personas(id, name, card) VALUES (?, ?, ?) ON CONFLICT(id) DO UPDATE "
                        "SET name = excluded.name, card = excluded.card", rows)
    return len(rows)


def personas(store: Store) -> list[dict[str, Any]]:
    return [{"id": r[0], "name": r[1], "card": json.loads(r[2])}
            for r in store.con.execute("SELECT id, name, card FROM personas ORDER BY id")]


def save_topics(store: Store, topics: Iterable[dict[str, Any]]) -> int:
    rows = [(str(t["id"]), t.get("title", ""), t.get("description", ""), t.get("narrative", "")) for t in topics]
    with store.transaction() as con:
        con.executemany("INSERT INTO topics(id, title, description, narrative) VALUES (?, ?, ?, ?) "
                        "ON CONFLICT(id) DO UPDATE SET title = excluded.title, description = excluded.description, "
                        "narrative = excluded.narrative", rows)
    return len(rows)


def topics(store: Store) -> list[dict[str, str]]:
    rows = store.con.execute("SELECT id, title, description, narrative FROM topics")
    return sorted((dict(r) for r in rows), key=lambda t: (len(t["id"]), t["id"]))


def save_qrels(store: Store, qrels: Iterable[tuple[str, str, int]], source: str = "") -> int:
    """(topic, doc_id, rel) triples; a later judgment of the same pair replaces the earlier."""
    rows = [(str(t), d, int(r), source) for t, d, r in qrels]
    with store.transaction() as con:
        con.executemany("INSERT INTO qrels(topic, doc_id, rel, source) VALUES (?, ?, ?, ?) "
                        "ON CONFLICT(topic, doc_id) DO UPDATE SET rel = excluded.rel, source = excluded.source", rows)
    return len(rows)


def qrels(store: Store) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for t, d, r in store.con.execute("SELECT topic, doc_id, rel FROM qrels"):
        out.setdefault(t, {})[d] = r
    return out


def save_sensitivity(store: Store, judgments: Iterable[tuple[str, str, str, int]], source: str = "") -> int:
    """(persona, topic or '', doc_id, level) tuples."""
    rows = [(p, t or "", d, int(level), source) for p, t, d, level in judgments]
    with store.transaction() as con:
        con.executemany("INSERT INTO sensitivity(persona, topic, doc_id, level, source) VALUES (?, ?, ?, ?, ?) "
                        "ON CONFLICT(persona, topic, doc_id) DO UPDATE SET level = excluded.level, "
                        "source = excluded.source", rows)
    return len(rows)


def sensitivity(store: Store, persona: str, topic: Optional[str] = None) -> dict[str, int]:
    """doc_id -> level for a persona. Without a topic: the most sensitive level over every
    topic (sensitive under any topic counts as sensitive)."""
    if topic is None:
        rows = store.con.execute("SELECT doc_id, MAX(level) FROM sensitivity WHERE persona = ? GROUP BY doc_id", (persona,))
    else:
        rows = store.con.execute("SELECT doc_id, level FROM sensitivity WHERE persona = ? AND topic IN ('', ?)", (persona, topic))
    return {d: lvl for d, lvl in rows}
