"""Ingest sources into a project: parse, deduplicate, thread, store, index.

Consistency: messages are written to SQLite in batches, each one transaction, with
``indexed = 0``; they are marked indexed only after the Whoosh commit that contains them.
A killed import therefore leaves SQLite consistent, and :func:`repair_index` (run before every
import and when a project opens) re-adds whatever the index is missing. Copies are keyed by the
SHA-256 of their bytes, so running the same import again adds nothing and completes a job that
was cut short.
"""
from __future__ import annotations

import json
import os
import re
import time
import zlib
from concurrent.futures import ProcessPoolExecutor
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterable, Iterator, Optional

from ..errors import Cancelled, InputError
from ..index import SearchIndex
from ..index.search_index import document_fields
from ..progress import Progress, ensure
from ..project import Store
from ..records import IngestReport, Message, SkippedMessage
from .parse import MalformedMessage, addresses, parse_message, raw_digest
from .sources import RawItem, count_messages, iter_source, source_kind
from .text import is_reply_or_forward, normalise_subject

BATCH = 400
INDEX_COMMIT_EVERY = 25_000
_SENT = re.compile(r"(^|[^a-z])sent([^a-z]|$)|sent[ _-]?items|gesendet|envoy", re.I)


def _parse_one(item: tuple[str, str, bytes]):
    location, folder, data = item
    try:
        return parse_message(data, location, folder)
    except MalformedMessage as exc:
        return SkippedMessage(location, str(exc))
    except RecursionError:
        return SkippedMessage(location, "MIME structure nested too deeply to read")
    except Exception as exc:  # a parser bug must not stop an archive import: record it
        return SkippedMessage(location, f"could not be parsed ({exc.__class__.__name__}: {exc})")


def _batches(items: Iterable[RawItem], size: int) -> Iterator[list[RawItem]]:
    batch: list[RawItem] = []
    for item in items:
        batch.append(item)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


class Importer:
    def __init__(self, store: Store, index: SearchIndex, owner_addresses: Iterable[str] = (),
                 workers: Optional[int] = None):
        self.store, self.index = store, index
        self.owners = {a.lower() for a in owner_addresses}
        cpus = os.cpu_count() or 1
        self.workers = workers if workers is not None else (1 if cpus >= 2 else 0)

    # --------------------------------------------------------------------------------
    def run(self, sources: list[Path], progress: Optional[Progress] = None) -> IngestReport:
        progress = ensure(progress)
        started = time.monotonic()
        paths = [Path(s).expanduser().resolve() for s in sources]
        kinds = [source_kind(p) for p in paths]  # raises a clear InputError for a missing path
        repair_index(self.store, self.index)
        report = IngestReport()
        total = sum(count_messages(p) for p in paths)
        progress.update(0, total, "starting")
        pool = ProcessPoolExecutor(self.workers) if self.workers else None
        writer = None
        pending: list[int] = []
        done = 0
        try:
            for path, kind in zip(paths, kinds):
                source_id = self._register_source(path, kind)
                for batch in _batches(iter_source(path), BATCH):
                    if writer is None:
                        writer = self.index.writer()
                    pending.extend(self._ingest_batch(batch, source_id, report, writer, pool))
                    done += len(batch)
                    if len(pending) >= INDEX_COMMIT_EVERY:
                        self._commit_index(writer, pending)
                        writer, pending = None, []
                    progress.update(done, total, path.name)
                self._finish_source(source_id, "done", report)
        except Cancelled:
            report.cancelled = True
        finally:
            if pool is not None:
                pool.shutdown(cancel_futures=True)
            if writer is not None:
                self._commit_index(writer, pending)
        changed = fix_threads(self.store)
        if changed:
            repair_index(self.store, self.index)
        report.seconds = time.monotonic() - started
        if not report.cancelled:
            progress.update(done, total, "finished")
        return report

    # --------------------------------------------------------------------------------
    def _register_source(self, path: Path, kind: str) -> int:
        now = datetime.now(timezone.utc).isoformat(timespec="seconds")
        con = self.store.con
        con.execute("INSERT INTO sources(path, kind, first_added, last_run, status) VALUES (?, ?, ?, ?, 'running') "
                    "ON CONFLICT(path) DO UPDATE SET last_run = excluded.last_run, status = 'running'",
                    (str(path), kind, now, now))
        return con.execute("SELECT id FROM sources WHERE path = ?", (str(path),)).fetchone()[0]

    def _finish_source(self, source_id: int, status: str, report: IngestReport) -> None:
        self.store.con.execute("UPDATE sources SET status = ?, report = ? WHERE id = ?",
                               (status, json.dumps(report.to_json()), source_id))

    def _commit_index(self, writer, pending: list[int]) -> None:
        writer.commit()
        with self.store.transaction() as con:
            con.executemany("UPDATE messages SET indexed = 1 WHERE id = ?", ((i,) for i in pending))

    def _ingest_batch(self, batch: list[RawItem], source_id: int, report: IngestReport, writer, pool) -> list[int]:
        con = self.store.con
        skipped = [SkippedMessage(i.location, i.error or "unreadable") for i in batch if i.data is None]
        readable = [i for i in batch if i.data is not None]
        digests = [raw_digest(i.data) for i in readable]
        known = set()
        for start in range(0, len(digests), 500):
            chunk = digests[start:start + 500]
            marks = ",".join("?" * len(chunk))
            known.update(r[0] for r in con.execute(f"SELECT raw_sha256 FROM copies WHERE raw_sha256 IN ({marks})", chunk))
        todo, first_of, repeats = [], {}, []
        for item, digest in zip(readable, digests):
            if digest in known:
                report.duplicates += 1
            elif digest in first_of:  # the same bytes twice in one batch: fate of the first decides
                repeats.append((item, first_of[digest]))
            else:
                first_of[digest] = len(todo)
                todo.append((item.location, item.folder, item.data))
        parsed = list(pool.map(_parse_one, todo, chunksize=25)) if pool and len(todo) > 25 else [_parse_one(t) for t in todo]
        for item, n in repeats:
            if isinstance(parsed[n], SkippedMessage):
                skipped.append(SkippedMessage(item.location, parsed[n].reason))
            else:
                report.duplicates += 1
        to_index: list[tuple[int, Message, bool]] = []
        with self.store.transaction() as con:
            for result, (_, _, data) in zip(parsed, todo):
                if isinstance(result, SkippedMessage):
                    skipped.append(result)
                    continue
                outcome = self._store_message(con, result, source_id, data)
                if outcome is None:
                    report.duplicates += 1
                elif outcome[1] == "replaced":
                    report.duplicates += 1
                    to_index.append((outcome[0], result, True))
                else:
                    report.ingested += 1
                    to_index.append((outcome[0], result, False))
            for s in skipped:
                con.execute("INSERT INTO skipped(source_id, location, reason) VALUES (?, ?, ?) "
                            "ON CONFLICT(location) DO UPDATE SET reason = excluded.reason", (source_id, s.source, s.reason))
        report.skipped.extend(skipped)
        for row_id, message, replace in to_index:
            fields = document_fields(_index_row(con, row_id, message))
            (writer.update_document if replace else writer.add_document)(**fields)
        return [row_id for row_id, _, _ in to_index]

    def _is_sender_copy(self, folder: str, from_addr: str) -> bool:
        return bool(_SENT.search(folder or "")) or (from_addr.lower() in self.owners)

    def _store_message(self, con, m: Message, source_id: int, raw: bytes):
        """Insert a new document, or record a duplicate copy. Returns (id, 'new'|'replaced') or
        None for a duplicate that changed nothing."""
        existing = con.execute("SELECT id, subject, folder, from_addr FROM messages WHERE message_id = ?",
                               (m.message_id,)).fetchall()
        same = [r for r in existing if _same_subject(r["subject"], m.subject)]
        if same and not m.synthetic_id:
            row = same[0]
            sender_copy = self._is_sender_copy(m.folder, m.from_addr)
            con.execute("INSERT INTO copies(message, raw_sha256, location, folder, kept) VALUES (?, ?, ?, ?, 0)",
                        (row["id"], m.raw_sha256, m.location, m.folder))
            if sender_copy and not self._is_sender_copy(row["folder"], row["from_addr"]):
                self._replace_kept_copy(con, row["id"], m, source_id, raw)
                return row["id"], "replaced"
            return None
        doc_id = m.message_id if not existing else f"{m.message_id}~{m.raw_sha256[:10]}"
        cur = con.execute(
            "INSERT INTO messages(doc_id, message_id, synthetic_id, date, ts, sender, from_addr, recipients, cc, bcc, "
            "reply_to, subject, subject_norm, in_reply_to, refs, thread_id, folder, importance, priority, "
            "sensitivity_header, body, body_is_html, n_attachments, raw_sha256, raw_size, location, source_id, notes) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (doc_id, m.message_id, int(m.synthetic_id), m.date, m.timestamp, m.sender, m.from_addr, m.to, m.cc,
             m.bcc, m.reply_to, m.subject, normalise_subject(m.subject), m.in_reply_to, " ".join(m.references),
             _thread_of(con, m), m.folder, m.importance, m.priority, m.sensitivity_header, m.body,
             int(m.body_is_html), len(m.attachments), m.raw_sha256, m.raw_size, m.location, source_id,
             json.dumps(list(m.notes))))
        row_id = cur.lastrowid
        self._write_parts(con, row_id, m, raw)
        con.execute("INSERT INTO copies(message, raw_sha256, location, folder, kept) VALUES (?, ?, ?, ?, 1)",
                    (row_id, m.raw_sha256, m.location, m.folder))
        self._add_edges(con, m)
        return row_id, "new"

    def _replace_kept_copy(self, con, row_id: int, m: Message, source_id: int, raw: bytes) -> None:
        """The sender's copy arrived after a recipient's: keep the sender's (it has the Bcc)."""
        con.execute(
            "UPDATE messages SET date=?, ts=?, sender=?, recipients=?, cc=?, bcc=?, reply_to=?, folder=?, "
            "importance=?, priority=?, sensitivity_header=?, body=?, body_is_html=?, n_attachments=?, "
            "raw_sha256=?, raw_size=?, location=?, source_id=?, notes=?, indexed=0 WHERE id=?",
            (m.date, m.timestamp, m.sender, m.to, m.cc, m.bcc, m.reply_to, m.folder, m.importance, m.priority,
             m.sensitivity_header, m.body, int(m.body_is_html), len(m.attachments), m.raw_sha256, m.raw_size,
             m.location, source_id, json.dumps(list(m.notes)), row_id))
        con.execute("DELETE FROM attachments WHERE message = ?", (row_id,))
        con.execute("UPDATE copies SET kept = (raw_sha256 = ?) WHERE message = ?", (m.raw_sha256, row_id))
        self._write_parts(con, row_id, m, raw)
        bcc = addresses(m.bcc)
        if m.from_addr and bcc:
            _count_edges(con, m.from_addr, bcc, "bcc")

    def _write_parts(self, con, row_id: int, m: Message, raw: bytes) -> None:
        con.executemany(
            "INSERT INTO attachments(message, ord, name, original_name, mime_type, size, sha256, text, is_message) "
            "VALUES (?,?,?,?,?,?,?,?,?)",
            [(row_id, n, a.name, a.original_name, a.mime_type, a.size, a.sha256, a.text, int(a.is_message))
             for n, a in enumerate(m.attachments)])
        raw = raw[raw.find(b"\n") + 1:] if raw.startswith(b"From ") else raw
        con.execute("INSERT OR REPLACE INTO raw(message, data) VALUES (?, ?)", (row_id, zlib.compress(raw, 1)))

    def _add_edges(self, con, m: Message) -> None:
        if not m.from_addr:
            return
        for kind, header in (("to", m.to), ("cc", m.cc), ("bcc", m.bcc)):
            addrs = addresses(header)
            if addrs:
                _count_edges(con, m.from_addr, addrs, kind)


def _count_edges(con, sender: str, recipients: list[str], kind: str) -> None:
    con.executemany("INSERT INTO edges(sender, recipient, kind, count) VALUES (?, ?, ?, 1) "
                    "ON CONFLICT(sender, recipient, kind) DO UPDATE SET count = count + 1",
                    [(sender, r, kind) for r in dict.fromkeys(recipients)])


def _same_subject(a: str, b: str) -> bool:
    return " ".join((a or "").split()) == " ".join((b or "").split())


def _thread_of(con, m: Message) -> str:
    root = m.references[0] if m.references else m.in_reply_to
    if root:
        row = con.execute("SELECT thread_id FROM messages WHERE message_id = ? LIMIT 1", (root,)).fetchone()
        return row[0] if row else root
    if is_reply_or_forward(m.subject):
        norm = normalise_subject(m.subject)
        if norm:
            row = con.execute("SELECT thread_id FROM messages WHERE subject_norm = ? ORDER BY ts LIMIT 1", (norm,)).fetchone()
            if row:
                return row[0]
    return m.message_id


def _index_row(con, row_id: int, m: Message) -> dict:
    row = dict(con.execute("SELECT * FROM messages WHERE id = ?", (row_id,)).fetchone())
    row["attachment_text"] = m.attachment_text
    row["recipient_addrs"] = list(m.recipient_addrs)
    return row


def index_row(con, row_id: int) -> dict:
    """A message row with the extra values the index needs, read back from the store."""
    row = dict(con.execute("SELECT * FROM messages WHERE id = ?", (row_id,)).fetchone())
    row["attachment_text"] = "\n\n".join(
        r[0] for r in con.execute("SELECT text FROM attachments WHERE message = ? AND text IS NOT NULL ORDER BY ord", (row_id,)))
    row["recipient_addrs"] = addresses(row["recipients"], row["cc"], row["bcc"])
    return row


def fix_threads(store: Store) -> int:
    """Messages threaded under a message that itself belongs to another thread (order of
    arrival) adopt that thread. Returns how many changed (they are marked for re-indexing)."""
    changed = 0
    for _ in range(8):
        with store.transaction() as con:
            cur = con.execute(
                "UPDATE messages SET indexed = 0, thread_id = (SELECT p.thread_id FROM messages p "
                "WHERE p.message_id = messages.thread_id AND p.thread_id <> p.message_id LIMIT 1) "
                "WHERE thread_id IN (SELECT message_id FROM messages WHERE thread_id <> message_id)")
            n = cur.rowcount
        changed += n
        if not n:
            break
    return changed


def repair_index(store: Store, index: SearchIndex, progress: Optional[Progress] = None) -> int:
    """Re-add every message not known to be in the index (after a kill or a schema change)."""
    con = store.con
    ids = [r[0] for r in con.execute("SELECT id FROM messages WHERE indexed = 0 ORDER BY id")]
    if not ids:
        return 0
    progress = ensure(progress)
    writer = index.writer()
    try:
        for n, row_id in enumerate(ids, 1):
            writer.update_document(**document_fields(index_row(con, row_id)))
            if n % 500 == 0:
                progress.update(n, len(ids), "repairing the index")
    except BaseException:
        writer.cancel()
        raise
    writer.commit()
    with store.transaction() as con:
        con.executemany("UPDATE messages SET indexed = 1 WHERE id = ?", ((i,) for i in ids))
    return len(ids)
