"""Which thread a message belongs to: the one rule, computed from the stored messages.

A thread is named by the Message-ID of its first message (its root). A message's parent is

* by its headers: the first id of its References, or its In-Reply-To: the stored message with
  that Message-ID (when several have it, the first in :func:`order_key` order), or, when none
  is stored, the id itself (a thread whose root is not in the project: the replies to it are
  still one thread). The ids are those :func:`.parse.parse_message` reads: In-Reply-To's last
  <...> id, never an address of the message itself (From, To, Cc, Reply-To) nor of an
  attribution ('Message from Gary Murphy <garym@canada.com> of "date" <id>': exmh/MH;
  ``bob@x's message of "..."``: Emacs); such an address named every reply to that person one
  thread;
* else by its subject, as mail clients do when those headers are missing, and only for a reply
  or a forward ('Re:', 'Fwd:', 'AW:'... after any list tags, '[ILUG] Re: x', with something
  after the prefix: :func:`.text.is_reply_or_forward`): the nearest earlier message
  (strictly earlier; ties in :func:`order_key` order) with the same normalised subject, at most
  :data:`SUBJECT_WINDOW` seconds before it, that shares a person with it: the reply's sender
  (From or Reply-To) is among the other's sender or recipients (To, Cc), or the other way
  round. Addresses are compared lower-cased. A message without a date is never threaded by
  subject (nor a parent by subject);
* else none: it is a root.

Its thread is its parent's thread; a root's is its own Message-ID; parents that go round in a
circle (References naming each other) share the thread named by the smallest Message-ID of the
circle. Bcc is left out of the people on purpose: the recipients' copies do not have it, so the
threads would depend on which copy is kept (the sender's copy, when it arrives, replaces an
inbox copy).

The rule depends only on the set of stored messages, not on the order they were imported in:
:func:`thread_at_insert` guesses from what is stored when a message is inserted (right for
mail imported in date order), and :func:`rethread` (after every import) computes the threads
again wherever the new messages can change them and writes what changed.

Enron mail has no In-Reply-To or References at all: its threads are these subject threads. In
the Enron development set (a sample: gaps between its messages are longer than in whole
mailboxes), 72 replies have an earlier message with their subject that shares a person with
them: 68 follow the nearest within 30 days (65 within 7), 70 within 45, all 72 within 60; the
4 beyond 30 days are a forward 31 days on and a weekly call's notices a month apart. In the demo
collection the replies that are not within 30 days of such a message are other conversations
on a subject used again (its replies follow within days). A chain (each message within the
window of the one before it) keeps a longer conversation together.

The people test trades joins for precision on mailing lists: a member who replies to the list
only shares no person with the message answered (unless it names the list in Reply-To). Taking
the SpamAssassin corpus's 1913 replies that have In-Reply-To/References as if they had not,
this rule puts 1135 in their real thread, 189 in another and leaves 589 apart; any address in
common would make it 1329, 281 and 303; the subject alone 1334, 295 and 284.
"""
from __future__ import annotations

import zlib
from typing import Iterable, Optional

from .parse import addresses, reply_ids
from .text import is_reply_or_forward, normalise_subject

SUBJECT_WINDOW_DAYS = 30
SUBJECT_WINDOW = SUBJECT_WINDOW_DAYS * 86400.0  # seconds, as the stored ts
# meta key: the largest copies.id whose message's thread rethread() has checked
CHECKED_THROUGH = "ingest.threads_checked_through_copy"
# rethread() computes every thread again when the project has no mark (a project threaded by
# an earlier rule: its next import corrects it) or when this many new or rewritten messages are
# more than half of the project's
FULL_PASS_MIN = 2000
INSERT_LOOKBACK = 50  # same-subject messages thread_at_insert looks at, nearest first
_CHUNK = 500


def header_root(in_reply_to: str, refs: str) -> str:
    """The Message-ID a message's headers thread it under ('' for none): the first of its
    References (stored space-separated), else its In-Reply-To."""
    first = (refs or "").split(None, 1)
    return first[0] if first else (in_reply_to or "")


def subject_key(subject: str, root: str, ts: Optional[float]) -> str:
    """The normalised subject a message is threaded by ('' when it is not threaded by subject:
    it has a header parent, is not a reply or forward, has no date, or nothing after the prefix)."""
    if root or ts is None or not is_reply_or_forward(subject):
        return ""
    return normalise_subject(subject)


def order_key(ts: Optional[float], message_id: str, raw_sha256: str) -> tuple:
    """A total order on messages that does not depend on the order they were imported in."""
    return (ts is None, ts or 0.0, message_id, raw_sha256)


class People:
    """A message's senders (From, Reply-To) and everyone on it (senders, To, Cc), lower-cased."""
    __slots__ = ("senders", "everyone")

    def __init__(self, from_addr: str, reply_to: str, to: str, cc: str):
        senders = {a for a in [(from_addr or "").strip().lower(), *addresses(reply_to)] if a}
        self.senders = frozenset(senders)
        self.everyone = frozenset(senders.union(addresses(to, cc)))

    def related(self, other: "People") -> bool:
        return not (self.senders.isdisjoint(other.everyone) and other.senders.isdisjoint(self.everyone))


def thread_at_insert(con, m) -> str:
    """The thread of the parsed message ``m`` given what is stored now (see the module)."""
    root = header_root(m.in_reply_to, " ".join(m.references))
    if root:
        row = con.execute("SELECT thread_id FROM messages WHERE message_id = ? "
                          "ORDER BY ts IS NULL, ts, message_id, raw_sha256 LIMIT 1", (root,)).fetchone()
        return row[0] if row else root
    norm = subject_key(m.subject, root, m.timestamp)
    if norm:
        mine = None
        # (a guess: rethread() after the import computes it exactly; looking further back would
        # make an import of thousands of same-subject replies sharing nobody quadratic)
        for row in con.execute(
                "SELECT thread_id, from_addr, reply_to, recipients, cc FROM messages "
                "WHERE subject_norm = ? AND ts < ? AND ts >= ? ORDER BY ts DESC, message_id DESC, raw_sha256 DESC "
                "LIMIT ?", (norm, m.timestamp, m.timestamp - SUBJECT_WINDOW, INSERT_LOOKBACK)):
            mine = mine or People(m.from_addr, m.reply_to, m.to, m.cc)
            if mine.related(People(row[1], row[2], row[3], row[4])):
                return row[0]
    return m.message_id


# ------------------------------------------------------------------------------------------
_ROW = "id, message_id, in_reply_to, refs, subject, subject_norm, ts, raw_sha256, thread_id"
_GROUP = "id, message_id, ts, raw_sha256, thread_id, from_addr, reply_to, recipients, cc"


def _chunks(values: list, size: int = _CHUNK) -> Iterable[list]:
    for i in range(0, len(values), size):
        yield values[i:i + size]


def _marks(n: int) -> str:
    return ",".join("?" * n)


def rethread(con, full: Optional[bool] = None) -> int:
    """Compute the threads of the stored messages again wherever messages added or rewritten
    since the last call (copies rows after the mark in ``meta``) can change them, and write
    those that changed (marked ``indexed = 0``: their index documents name the thread). Run
    inside one write transaction. ``full``: every thread (True), only those that can change
    (False), or chosen by size (None). Returns how many messages changed thread."""
    last = con.execute("SELECT MAX(id) FROM copies").fetchone()[0] or 0
    mark = con.execute("SELECT value FROM meta WHERE key = ?", (CHECKED_THROUGH,)).fetchone()
    try:
        mark = int(mark[0]) if mark is not None else None
    except (TypeError, ValueError):
        mark = None
    if full is None and mark is None:
        full = True
    scope = None
    if not full:
        dirty = [r[0] for r in con.execute("SELECT DISTINCT message FROM copies WHERE id > ? AND kept = 1",
                                           (mark or 0,))]
        total = con.execute("SELECT COUNT(*) FROM messages").fetchone()[0]
        if full is None and len(dirty) > max(FULL_PASS_MIN, total // 2):
            full = True
        else:
            scope = _affected(con, dirty)
    changed = _rethread(con, scope)
    con.execute("INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (CHECKED_THROUGH, str(last)))
    return changed


def reread_reply_ids(con) -> int:
    """Every stored message's In-Reply-To and References read again from its kept copy's bytes
    by the current rule (:func:`.parse.reply_ids`: an earlier one took an address for an id,
    'Message from Gary Murphy <garym@canada.com> of ...', or an id broken by a space), the
    changes written, and, when any, every thread computed again (:func:`rethread`). For a
    project imported before the rule changed; run inside one write transaction. Returns how
    many messages' ids changed."""
    changes = []
    for row_id, data, sender, to, cc, reply_to, irt, refs in con.execute(
            "SELECT m.id, r.data, m.sender, m.recipients, m.cc, m.reply_to, m.in_reply_to, m.refs "
            "FROM messages m JOIN raw r ON r.message = m.id"):
        try:
            new_irt, new_refs = reply_ids(zlib.decompress(data), (sender, to, cc, reply_to))
        except Exception:  # (stored bytes parse_message read: this does not happen)
            continue
        new_refs = " ".join(new_refs)
        if (new_irt, new_refs) != (irt, refs):
            changes.append((new_irt, new_refs, row_id))
    if changes:
        con.executemany("UPDATE messages SET in_reply_to = ?, refs = ? WHERE id = ?", changes)
        rethread(con, full=True)
    return len(changes)


def _affected(con, dirty: list[int]) -> list:
    """The rows whose thread a new or rewritten message (ids ``dirty``) can change: every
    message of a thread that holds one of them, or a message whose subject parent may now be
    one of them, or a message that names one of their Message-IDs as its parent (and so the
    thread named by such an id). Any other message's parents are what they were, and their
    parents' threads too (a thread holds all its messages' ancestors)."""
    threads: set[str] = set()
    new = []
    for part in _chunks(dirty):
        new += con.execute(f"SELECT message_id, subject_norm, ts, thread_id FROM messages "
                           f"WHERE id IN ({_marks(len(part))})", part).fetchall()
    ids = sorted({r[0] for r in new})
    threads.update(r[3] for r in new)
    threads.update(ids)
    for part in _chunks(ids):
        threads.update(r[0] for r in con.execute(
            f"SELECT thread_id FROM messages WHERE message_id IN ({_marks(len(part))})", part))
    for _, norm, ts, _ in new:
        if not norm or ts is None:
            continue
        for r in con.execute("SELECT thread_id, subject, in_reply_to, refs, ts FROM messages "
                             "WHERE subject_norm = ? AND ts > ? AND ts <= ?", (norm, ts, ts + SUBJECT_WINDOW)):
            if subject_key(r[1], header_root(r[2], r[3]), r[4]):
                threads.add(r[0])
    rows = []
    for part in _chunks(sorted(threads)):
        rows += con.execute(f"SELECT {_ROW} FROM messages WHERE thread_id IN ({_marks(len(part))})", part).fetchall()
    return rows


def _rethread(con, scope: Optional[list]) -> int:
    """Threads of ``scope`` (rows of _ROW; None: every message) by the rule, parents outside the
    scope keeping their stored thread; writes the changes."""
    rows = con.execute(f"SELECT {_ROW} FROM messages").fetchall() if scope is None else scope
    stored: dict[int, str] = {}       # thread_id of every row read (in scope or a parent outside it)
    msgid: dict[int, str] = {}
    in_scope = set()
    for r in rows:
        stored[r[0]] = r[8]
        msgid[r[0]] = r[1]
        in_scope.add(r[0])
    roots = {r[0]: header_root(r[2], r[3]) for r in rows}
    # header parents: the first stored message (order_key) with the root's Message-ID
    named: dict[str, tuple] = {}
    wanted = sorted({v for v in roots.values() if v})
    if scope is None:
        wanted_set = set(wanted)
        found = ((r[0], r[1], r[6], r[7], r[8]) for r in rows if r[1] in wanted_set)
    else:
        found = (row for part in _chunks(wanted) for row in con.execute(
            f"SELECT id, message_id, ts, raw_sha256, thread_id FROM messages WHERE message_id IN ({_marks(len(part))})",
            part))
    for i, mid, ts, sha, thread in found:
        stored.setdefault(i, thread)
        msgid.setdefault(i, mid)
        key = order_key(ts, mid, sha)
        if mid not in named or key < named[mid][0]:
            named[mid] = (key, i)
    parent: dict[int, tuple] = {}
    by_subject: dict[str, list[int]] = {}
    for r in rows:
        root = roots[r[0]]
        if root:
            parent[r[0]] = ("doc", named[root][1]) if root in named else ("id", root)
        else:
            norm = r[5] if subject_key(r[4], "", r[6]) else ""
            if norm:
                by_subject.setdefault(norm, []).append(r[0])
    _subject_parents(con, by_subject, parent, stored, msgid, full=scope is None)
    threads = _resolve(in_scope, parent, stored, msgid)
    changes = [(t, i) for i, t in threads.items() if t != stored[i]]
    con.executemany("UPDATE messages SET thread_id = ?, indexed = 0 WHERE id = ?", changes)
    return len(changes)


def _subject_parents(con, by_subject: dict[str, list[int]], parent: dict, stored: dict, msgid: dict,
                     full: bool) -> None:
    """Subject parents of the messages in ``by_subject`` (normalised subject -> row ids)."""
    if not by_subject:
        return
    groups: dict[str, list] = {}
    if full:
        for r in con.execute(f"SELECT subject_norm, {_GROUP} FROM messages WHERE ts IS NOT NULL AND subject_norm <> ''"):
            if r[0] in by_subject:
                groups.setdefault(r[0], []).append(r[1:])
    else:
        for norm in by_subject:
            groups[norm] = con.execute(f"SELECT {_GROUP} FROM messages WHERE subject_norm = ? AND ts IS NOT NULL",
                                       (norm,)).fetchall()
    for norm, members in groups.items():
        members.sort(key=lambda g: order_key(g[2], g[1], g[3]))
        wanted = set(by_subject[norm])
        # One sweep in order: the latest earlier message naming each address among its senders,
        # and among everyone on it. A message's nearest related earlier one is the later of its
        # senders' latest "everyone" entries and its people's latest "sender" entries (an earlier
        # pairwise scan went back message by message: quadratic for thousands of same-subject
        # replies that share nobody). Messages of one timestamp are entered after all of them
        # are looked up: a parent is strictly earlier.
        last_everyone: dict[str, int] = {}
        last_sender: dict[str, int] = {}
        start = 0
        while start < len(members):
            ts = members[start][2]
            end = start
            while end < len(members) and members[end][2] == ts:
                end += 1
            batch = [(n, People(members[n][5], members[n][6], members[n][7], members[n][8])) for n in range(start, end)]
            for n, mine in batch:
                i = members[n][0]
                if i not in wanted:
                    continue
                k = max([last_everyone.get(a, -1) for a in mine.senders]
                        + [last_sender.get(a, -1) for a in mine.everyone] + [-1])
                if k >= 0 and ts - members[k][2] <= SUBJECT_WINDOW:
                    g = members[k]
                    stored.setdefault(g[0], g[4])
                    msgid.setdefault(g[0], g[1])
                    parent[i] = ("doc", g[0])
            for n, mine in batch:
                for a in mine.everyone:
                    last_everyone[a] = n
                for a in mine.senders:
                    last_sender[a] = n
            start = end


def _resolve(in_scope: set, parent: dict, stored: dict, msgid: dict) -> dict[int, str]:
    """Each in-scope row's thread: its parents followed to a root (its Message-ID), to an id no
    stored message has, to a parent outside the scope (its stored thread) or round a circle
    (the smallest Message-ID in it)."""
    out: dict[int, str] = {}
    for start in in_scope:
        if start in out:
            continue
        path: list[int] = []
        seen: dict[int, int] = {}
        node = start
        while True:
            if node in out:
                thread = out[node]
                break
            if node not in in_scope:
                thread = stored[node]
                break
            if node in seen:
                thread = min(msgid[n] for n in path[seen[node]:])
                break
            seen[node] = len(path)
            path.append(node)
            p = parent.get(node)
            if p is None:
                thread = msgid[node]
                break
            if p[0] == "id":
                thread = p[1]
                break
            node = p[1]
        for n in path:
            out[n] = thread
    return out
