"""Messages that carry the words of a message judged sensitive: the replies and forwards that
quote it.

A person's judgment withholds the judged message (and its copies: ``search.judged_sensitive``),
but a reply that quotes it in full, or a forward of it, holds the same words under another
Message-ID: shown to a searcher, it would show what the person restricted. Such a message is
held back for review (``protected_search`` leaves it out of the searcher's list and names the
message it quotes); it stays held back whatever its own judgment says, since its words include
restricted ones -- judging the quoted message not sensitive releases both.

What counts as quoting, checked within a thread (replies and forwards are threaded with what
they quote, by their headers or, without them, by subject: ingest's ``threading_rules``):
message Q quotes message S when, with quote marks ("> ") and runs of white space made one
space (rewrapping and quoting change nothing else), Q's text contains S's whole text, or S's own
words -- its text before the first quoted line, quoted original ("-----Original Message-----",
"... wrote:", a forward marker) or signature ("-- ") -- when they are at least MIN_QUOTED_CHARS
long (a shorter own part, a "Thanks!", would match too much that is not a quote).
"""
from __future__ import annotations

import re
import threading
from typing import Sequence

MIN_QUOTED_CHARS = 40

_QUOTE_MARKS = re.compile(r"^[ \t]*(?:>[ \t]?)+", re.M)
# the line that ends a message's own words: a quoted line, a quoted original's heading, a
# forward marker, an attribution line ("On ..., X wrote:") or the signature separator
_OWN_END = re.compile(
    r"^[ \t]*(?:>"
    r"|-{2,} *(?:original message|forwarded)"
    r"|begin forwarded message"
    r"|.{0,300}\bwrote:[ \t]*$"
    r"|--[ \t]*$)", re.I | re.M)

_TEXTS: dict[tuple[int, str], tuple[str, tuple[str, ...]]] = {}   # (row id, raw SHA-256) -> texts
_TEXTS_MAX = 20_000
_LOCK = threading.Lock()


def _squash(text: str) -> str:
    return " ".join(_QUOTE_MARKS.sub("", text).split())


def quotable_parts(body: str) -> tuple[str, ...]:
    """The texts whose presence in another message makes it a quote of this one: the whole
    text and the own words before any quoted part or signature, white space and quote marks
    squashed, each kept when at least MIN_QUOTED_CHARS long."""
    whole = _squash(body)
    end = _OWN_END.search(body)
    own = _squash(body[:end.start()]) if end else whole
    return tuple(dict.fromkeys(p for p in (whole, own) if len(p) >= MIN_QUOTED_CHARS))


def _texts(con, rows: Sequence[tuple[int, str, str, int]]) -> dict[int, tuple[str, tuple[str, ...]]]:
    """Row id -> (squashed text, quotable parts) for (row id, raw SHA-256, body, is HTML) rows."""
    from ..ingest.text import html_to_text
    out = {}
    for row_id, sha, body, is_html in rows:
        key = (row_id, sha)
        with _LOCK:
            hit = _TEXTS.get(key)
        if hit is None:
            text = html_to_text(body) if is_html else body
            hit = (_squash(text), quotable_parts(text))
            with _LOCK:
                if len(_TEXTS) >= _TEXTS_MAX:
                    _TEXTS.clear()
                _TEXTS[key] = hit
        out[row_id] = hit
    return out


def quoting_judged(session, persona: str, doc_ids: Sequence[str], judged: set[str]) -> dict[str, str]:
    """The documents of ``doc_ids`` that quote a thread-mate judged sensitive for the persona
    (see the module docstring), each mapped to the document it quotes (the first by id).
    ``judged``: ``judged_sensitive_among(session, persona, doc_ids)`` (those are left out:
    they are withheld anyway; the others' thread-mates are looked up)."""
    from .search import _chunks, judged_sensitive_among   # (search imports this module)
    con = session.store.con
    asked = [d for d in dict.fromkeys(doc_ids) if d not in judged]
    if not asked:
        return {}
    thread_of: dict[str, str] = {}
    for chunk in _chunks(asked):
        marks = ",".join("?" * len(chunk))
        thread_of.update(con.execute(f"SELECT doc_id, thread_id FROM messages WHERE doc_id IN ({marks})", chunk))
    threads = sorted(set(thread_of.values()))
    mates: dict[str, list[str]] = {}
    for chunk in _chunks(threads):
        marks = ",".join("?" * len(chunk))
        for d, t in con.execute(f"SELECT doc_id, thread_id FROM messages WHERE thread_id IN ({marks})", chunk):
            mates.setdefault(t, []).append(d)
    others = sorted({d for t in threads if len(mates.get(t, ())) > 1 for d in mates[t]} - set(doc_ids))
    sensitive = (judged_sensitive_among(session, persona, others) if others else set()) | set(judged)
    if not sensitive:
        return {}
    pairs = {d: sorted(s for s in mates[t] if s in sensitive and s != d) for d, t in thread_of.items()}
    pairs = {d: ss for d, ss in pairs.items() if ss}
    if not pairs:
        return {}
    need = sorted(set(pairs) | {s for ss in pairs.values() for s in ss})
    rows: dict[str, tuple] = {}
    for chunk in _chunks(need):
        marks = ",".join("?" * len(chunk))
        for row in con.execute(f"SELECT doc_id, id, raw_sha256, body, body_is_html FROM messages "
                               f"WHERE doc_id IN ({marks})", chunk):
            rows[row[0]] = row[1:]
    texts = _texts(con, list(rows.values()))
    out: dict[str, str] = {}
    for d, ss in pairs.items():
        text = texts[rows[d][0]][0]
        for s in ss:
            if any(part in text for part in texts[rows[s][0]][1]):
                out[d] = s
                break
    return out
