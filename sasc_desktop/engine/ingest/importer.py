"""Ingest sources into a project: parse, deduplicate, thread, store, index.

Consistency: messages are written to SQLite in batches, each one transaction, with
``indexed = 0``; they are marked indexed only after the Whoosh commit that contains them.
A killed import therefore leaves SQLite consistent, and :func:`repair_index` (run before every
import and when a project opens) re-adds whatever the index is missing. An interrupted one
(Ctrl+C: KeyboardInterrupt) stops at once: the worker processes end their tasks (see
:mod:`..procpool`); a batch is stored and added to the index writer whole (Ctrl+C waits for
it), and what the writer holds is committed, or dropped (the same state as a kill) when Ctrl+C
is pressed again while it stops. Copies are keyed by the SHA-256 of their bytes and where they
are (a mailbox: an mbox file, a maildir or a folder of message files), so running the same import
again adds nothing and completes a job that was cut short. Copies with the same bytes in several
mailboxes (a message in its sender's Sent mailbox and in its recipients' inboxes) are parsed
once and each recorded as a copy; the sender's is kept.
"""
from __future__ import annotations

import dataclasses
import json
import os
import re
import sqlite3
import sys
import time
import zlib
from collections import deque
from dataclasses import asdict
from concurrent.futures import ProcessPoolExecutor
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterable, Iterator, Optional

from ..errors import Cancelled, InputError
from ..index import SearchIndex
from ..index.schema import analyse_document, date_items
from ..index.search_index import analyse_row, document_fields
from ..procpool import deferred_interrupts, process_pool, try_lock_file, unlock_file
from ..progress import Progress, ensure
from ..project import Store
from ..project.store import ProjectBusyError
from ..records import IngestReport, Message, SkippedMessage
from .parse import (MalformedMessage, addresses, copy_folder, message_bytes, parse_message, raw_digest,
                    synthetic_message_id)
from .sources import PROJECT_INTERNALS, RawItem, checked_source_kind, count_messages, iter_source, path_text
from .text import normalise_subject
from .threading_rules import CHECKED_THROUGH, rethread, thread_at_insert

BATCH = 500            # messages per SQLite transaction
CHUNK = 50             # messages per task sent to a worker process
LOOKAHEAD = 2          # batches being parsed ahead of the one being stored
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


def _prepare_one(item: tuple[str, str, bytes]):
    """Everything that does not need the project, done in a worker: parse, analyse the text
    for the index, compress the raw bytes. -> SkippedMessage | (Message, analysed, zraw)."""
    m = _parse_one(item)
    if isinstance(m, SkippedMessage):
        return m
    try:
        analysed = analyse_document(m.subject, m.body, m.attachment_text, m.sender, m.to, m.cc, m.bcc,
                                    m.from_addr, m.recipient_addrs)
    except Exception as exc:  # pragma: no cover - analysis of decoded text does not fail
        return SkippedMessage(m.location, f"could not be indexed ({exc.__class__.__name__}: {exc})")
    analysed["date"] = date_items(m.date)   # (the sender's clock: the day the message says)
    raw = message_bytes(item[2])  # (the bytes hashed: no From line, byte order mark or blank lines first)
    edges = [(kind, addrs) for kind, header in (("to", m.to), ("cc", m.cc), ("bcc", m.bcc))
             if header and (addrs := addresses(header))] if m.from_addr else []
    return m, (analysed, edges), zlib.compress(raw, 1)


def _prepare_many(items: list[tuple[str, str, bytes]]) -> list:
    return [_prepare_one(i) for i in items]


def worker_pool(workers: int) -> ProcessPoolExecutor:
    """Worker processes started from a fork server where there is one: forking the caller
    directly is unsafe when it runs threads (the GUI imports from a worker thread)."""
    return process_pool(workers)


def _batches(items: Iterable[RawItem], size: int) -> Iterator[list[RawItem]]:
    batch: list[RawItem] = []
    for item in items:
        batch.append(item)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


class _Job:
    """One batch on its way: items whose bytes are new, sent to the workers; the rest have the
    bytes of a copy already stored or read earlier in this run (the fate of the first decides):
    in a mailbox that has them already (known: nothing to record), or elsewhere (repeats: a
    copy of the same message)."""
    __slots__ = ("todo", "futures", "results", "known", "known_at", "repeats", "unreadable", "size")

    def __init__(self):
        self.todo: list[tuple[str, str, bytes, str]] = []
        self.futures: list = []
        self.results: list | None = None
        self.known = 0
        self.known_at: list[str] = []  # their locations
        self.repeats: list[tuple[str, Optional[str], str]] = []  # (location, its folder, digest of the first)
        self.unreadable: list[SkippedMessage] = []
        self.size = 0

    def wait(self) -> list:
        if self.results is None:
            self.results = [r for f in self.futures for r in (f.result() if hasattr(f, "result") else f)]
        return self.results


def _without_message_number(location: str) -> str:
    """An mbox copy's location without its '#N' (the message's number in the mbox); any other
    location as it is."""
    path, hash_, n = location.rpartition("#")
    return path if hash_ and n.isdigit() else location


def mailbox_of(location: str) -> str:
    """The mailbox a copy's location is in: an mbox (its path without '#N'), or the folder of a
    message file (a maildir's, for its cur/ and new/). The same bytes twice in one mailbox are
    one copy: a re-import after the mbox grew (its '#N' moved) or a maildir file was renamed
    (its flags changed) adds no copy."""
    path = _without_message_number(location)
    if path != location:
        return path
    head, _, _ = location.replace("\\", "/").rpartition("/")
    folder, _, last = head.rpartition("/")
    return folder if last in ("cur", "new") else head


def distinct_sources(paths: Iterable[Path]) -> list[Path]:
    """Resolved source paths, each read once: the same path given twice ('junk' and 'junk/')
    kept the first time, and a file or folder inside a folder also given dropped (the folder
    reads it), in the order given. (Each was read: 'sasc ingest P junk junk/ junk/x.png'
    reported every file of junk twice, as duplicates or skipped, and counted them twice.)"""
    paths = list(dict.fromkeys(paths))
    folders = {p for p in paths if p.is_dir()}
    return [p for p in paths if not any(parent in folders for parent in p.parents)]


class Importer:
    def __init__(self, store: Store, index: SearchIndex, owner_addresses: Iterable[str] = (),
                 workers: Optional[int] = None):
        self.store, self.index = store, index
        self.owners = {a.lower() for a in owner_addresses}
        cpus = os.cpu_count() or 1
        self.workers = workers if workers is not None else (min(cpus, 4) if cpus >= 2 else 0)
        self._fate: dict[str, Optional[str]] = {}   # digest -> None (kept or a copy) | skip reason
        self._mailboxes: set[tuple[str, str]] = set()  # (digest, mailbox) of the copies read in this run
        self._writer_rows: set[int] = set()          # rows added through the open index writer
        self._deferred: set[int] = set()             # replaced rows to re-index after a commit
        self._writer_broken = False                  # interrupted while adding a document
        self._pressed_again = False                  # Ctrl+C twice while a batch was stored

    # --------------------------------------------------------------------------------
    def run(self, sources: list[Path], progress: Optional[Progress] = None) -> IngestReport:
        progress = ensure(progress)
        started = time.monotonic()
        given = [Path(s).expanduser().resolve() for s in sources]
        for path in given:
            self._refuse_own_files(path)
        # A clear InputError, before anything is written, for a missing path or a PST given
        # directly that cannot be read (not a PST, or no readpst): the whole import is refused.
        # (Every path given: one inside a folder also given is then read by the folder only.)
        kind_of = {p: checked_source_kind(p) for p in given}
        paths = distinct_sources(given)
        kinds = [kind_of[p] for p in paths]
        lock = take_import_lock(self.index)  # ProjectBusyError while another import runs
        try:
            _settle(self.store)  # sources a killed import left 'running' (this holds the lock)
            return self._run(paths, kinds, progress, started)
        finally:
            if lock is not None:
                unlock_file(lock)

    def _refuse_own_files(self, path: Path) -> None:
        """A source that is this project's folder, or one of its own files or folders, is
        refused (a folder holding the project is read, the project's files skipped)."""
        root = self.store.path.parent.resolve()
        if path == root:
            raise InputError(f"{path} is this project's own folder, not a mailbox: import the mailboxes "
                             "themselves (its search index and database are never read as mail)")
        for name, what in PROJECT_INTERNALS.items():
            inner = root / name
            if path == inner or inner in path.parents:
                raise InputError(f"{path} is part of this project ({what}), not a mailbox")

    def _run(self, paths: list[Path], kinds: list[str], progress: Progress, started: float) -> IngestReport:
        repair_index(self.store, self.index, import_lock_held=True)
        report = IngestReport()
        total = sum(count_messages(p) for p in paths)
        progress.update(0, total, "starting")
        pool = worker_pool(self.workers) if self.workers else None
        writer = None
        pending: list[int] = []
        done = 0
        current = None  # the source being read: (its id, the report's counts when it began)
        try:
            for path, kind in zip(paths, kinds):
                current = self._register_source(path, kind), _counts(report)
                source_id = current[0]
                jobs: deque[_Job] = deque()
                batches = _batches(iter_source(path), BATCH)
                while True:
                    while len(jobs) <= LOOKAHEAD:
                        batch = next(batches, None)
                        if batch is None:
                            break
                        jobs.append(self._dispatch(batch, pool))
                    if not jobs:
                        break
                    job = jobs.popleft()
                    if writer is None:
                        writer = self.index.writer()
                    self._store_whole(job, source_id, report, writer, pending)
                    done += job.size
                    if len(pending) >= INDEX_COMMIT_EVERY:
                        full, writer = writer, None
                        self._commit_or_drop(full, pending)
                        pending = []
                    progress.update(done, total, path.name)
                self._finish_source(current, "done", report)
                current = None
        except Cancelled:
            report.cancelled = True
        finally:
            first = 1 if isinstance(sys.exc_info()[1], KeyboardInterrupt) else 0  # already pressed
            held = deferred_interrupts()
            try:
                with held:  # the workers' tasks end at the same Ctrl+C as this: a short wait
                    if pool is not None:
                        pool.shutdown(wait=True, cancel_futures=True)
            finally:
                try:
                    if writer is not None:
                        stopping = sys.exc_info()[1]
                        again = self._pressed_again or first + held.received > 1 or _interrupted_twice(stopping)
                        if self._writer_broken or (isinstance(stopping, KeyboardInterrupt) and again):
                            # Cut in the middle of a document, or Ctrl+C again while stopping (stop
                            # now, without writing up to INDEX_COMMIT_EVERY documents: seconds).
                            _drop(writer)
                        else:
                            self._commit_or_drop(writer, pending)  # done, cancelled, failed, interrupted
                finally:
                    try:
                        if current is not None:  # cut short: say how, with what it had done
                            self._stopped_source(current, report)
                    finally:
                        stopping = sys.exc_info()[1]
                        if stopping is not None:  # interrupted or failed: the threads of what it stored
                            again = self._pressed_again or first + held.received > 1 or _interrupted_twice(stopping)
                            self._threads_on_the_way_out(stopping, again)
        changed = fix_threads(self.store)
        if changed or self._deferred:
            repair_index(self.store, self.index, import_lock_held=True)
        report.seconds = time.monotonic() - started
        if not report.cancelled:
            try:
                progress.update(done, total, "finished")
            except Cancelled:  # asked after the last message was stored: the import is whole, say so
                pass
        return report

    # --------------------------------------------------------------------------------
    def _register_source(self, path: Path, kind: str) -> int:
        now = datetime.now(timezone.utc).isoformat(timespec="seconds")
        where = path_text(path)  # (a name that is not valid UTF-8: escaped, as its messages' locations)
        # Every write of an import is a store transaction: a project another program keeps
        # locked past the busy timeout is the store's ProjectBusyError, never SQLite's raw
        # "database is locked".
        with self.store.transaction() as con:
            con.execute("INSERT INTO sources(path, kind, first_added, last_run, status) VALUES (?, ?, ?, ?, 'running') "
                        "ON CONFLICT(path) DO UPDATE SET last_run = excluded.last_run, status = 'running'",
                        (where, kind, now, now))
            return con.execute("SELECT id FROM sources WHERE path = ?", (where,)).fetchone()[0]

    def _finish_source(self, current: tuple[int, tuple], status: str, report: IngestReport,
                       error: Optional[BaseException] = None) -> None:
        """Record how reading a source ended, with its own counts (its report as JSON)."""
        source_id, (ingested, duplicates, skipped, started) = current
        own = {"status": status, "ingested": report.ingested - ingested, "duplicates": report.duplicates - duplicates,
               "skipped": [asdict(s) for s in report.skipped[skipped:]],
               "seconds": round(time.monotonic() - started, 3)}
        if error is not None:
            own["error"] = str(error) or error.__class__.__name__
        with self.store.transaction() as con:
            con.execute("UPDATE sources SET status = ?, report = ? WHERE id = ?", (status, json.dumps(own), source_id))

    def _stopped_source(self, current: tuple[int, tuple], report: IngestReport) -> None:
        """The import stopped while reading this source: cancelled, interrupted (Ctrl+C) or
        failed (an error: its message is kept). When that cannot be recorded (the project is
        busy, say) the source stays 'running', and as no import holds the lock any more, the next
        open or import calls it interrupted."""
        stopping = sys.exc_info()[1]
        status = ("interrupted" if isinstance(stopping, KeyboardInterrupt) else
                  "failed" if stopping is not None else "cancelled")
        try:
            with deferred_interrupts():  # (a further Ctrl+C would only repeat this one)
                self._finish_source(current, status, report, stopping if status == "failed" else None)
        except Exception:  # (busy, say): never hide why the import stopped
            pass
        except KeyboardInterrupt:
            if not isinstance(stopping, KeyboardInterrupt):
                raise

    def _threads_on_the_way_out(self, stopping: BaseException, again: bool) -> None:
        """An import stopped by Ctrl+C or an error: the threads of the messages it stored as the
        rule gives them (:func:`fix_threads`), with Ctrl+C held off meanwhile; else they stay the
        guesses made when each was stored until the next import or open. Not after Ctrl+C twice
        (stop now), nor when it cannot be done (the project busy, the error itself): the next
        open of the project does it (:func:`rethread_interrupted_import`). The rows whose thread
        changed are indexed again by the next open."""
        if isinstance(stopping, KeyboardInterrupt) and again:
            return
        try:
            with deferred_interrupts():
                fix_threads(self.store)
        except Exception:  # (never hide why the import stopped)
            pass
        except KeyboardInterrupt:  # (held off so long: DEFER_SECONDS)
            if not isinstance(stopping, KeyboardInterrupt):
                raise

    def _store_whole(self, job: _Job, source_id: int, report: IngestReport, writer, pending: list[int]) -> None:
        """Store a batch and add it to the index writer with Ctrl+C held off until it is done:
        a KeyboardInterrupt in the middle of a document would leave the writer holding half of
        it, and committing that writes a segment that cannot be read. The batch's results are
        taken first: a worker's task cut by the same Ctrl+C ends with KeyboardInterrupt (sent back
        as its outcome), raised here before anything of the batch is in the writer, which stays
        whole and is committed (taken inside the block, it marked the writer broken: dropped with
        every document it held)."""
        job.wait()
        held = deferred_interrupts()
        try:
            with held:
                try:
                    pending.extend(self._store_batch(job, source_id, report, writer))
                except BaseException as exc:
                    if not isinstance(exc, Exception):  # only held off so long (DEFER_SECONDS)
                        self._writer_broken = True
                    raise
        finally:
            self._pressed_again |= held.received > 1

    def _commit_or_drop(self, writer, pending: list[int]) -> None:
        """Commit the index writer, or drop it if the commit fails or is cut short (a Ctrl+C
        during it): the index keeps its last whole commit, the rows stay indexed = 0."""
        try:
            self._commit_index(writer, pending)
        except BaseException:
            _drop(writer)
            raise

    def _commit_index(self, writer, pending: list[int]) -> None:
        writer.commit()
        self._writer_rows = set()
        with self.store.transaction() as con:
            con.executemany("UPDATE messages SET indexed = 1 WHERE id = ?",
                            ((i,) for i in pending if i not in self._deferred))

    def _dispatch(self, batch: list[RawItem], pool) -> _Job:
        """Sort out known and repeated bytes, and send the new ones to the workers."""
        job = _Job()
        job.size = len(batch)
        con = self.store.con
        job.unreadable = [SkippedMessage(i.location, i.error or "unreadable") for i in batch if i.data is None]
        readable = [i for i in batch if i.data is not None]
        digests = [raw_digest(i.data) for i in readable]
        stored: set[str] = set()
        for start in range(0, len(digests), 500):
            chunk = digests[start:start + 500]
            marks = ",".join("?" * len(chunk))
            for digest, location in con.execute(
                    f"SELECT raw_sha256, location FROM copies WHERE raw_sha256 IN ({marks})", chunk):
                stored.add(digest)
                self._mailboxes.add((digest, sys.intern(mailbox_of(location))))
        for item, digest in zip(readable, digests):
            where = (digest, sys.intern(mailbox_of(item.location)))
            seen = where in self._mailboxes       # this copy, or its twin in the same mailbox
            self._mailboxes.add(where)
            if digest in self._fate:  # read earlier in this run: its fate decides (when it is stored)
                job.repeats.append((item.location, None if seen else copy_folder(item.data, item.folder), digest))
            elif digest in stored:
                if seen:
                    job.known += 1
                    job.known_at.append(item.location)
                else:
                    job.repeats.append((item.location, copy_folder(item.data, item.folder), digest))
            else:
                self._fate[digest] = None
                job.todo.append((item.location, item.folder, item.data, digest))
        work = [t[:3] for t in job.todo]
        if pool is not None and len(work) > 1:
            job.futures = [pool.submit(_prepare_many, work[i:i + CHUNK]) for i in range(0, len(work), CHUNK)]
        else:
            job.results = _prepare_many(work)
        return job

    def _store_batch(self, job: _Job, source_id: int, report: IngestReport, writer) -> list[int]:
        results = job.wait()
        # Counted into the report once the batch's transaction has committed: a batch that
        # fails is not reported as stored (the source's saved report says what is in the project).
        ingested, duplicates = 0, job.known
        skipped = list(job.unreadable)
        stored_at = list(job.known_at)  # locations a message or a copy is stored from (known ones too)
        to_index: list[tuple[int, str, str, Message, dict, bool]] = []
        order: dict[int, int] = {}
        with self.store.transaction() as con:
            for result, (location, _, _, digest) in zip(results, job.todo):
                if isinstance(result, SkippedMessage):
                    skipped.append(result)
                    self._fate[digest] = result.reason
                    continue
                message, (analysed, edges), zraw = result
                # Each message in a savepoint: one that cannot be stored (a value SQLite refuses)
                # is skipped with the reason, not the end of its batch and of the import.
                con.execute("SAVEPOINT message")
                try:
                    outcome = self._store_message(con, message, source_id, zraw, edges)
                except _VALUE_ERRORS as exc:  # (not the database's: busy, full, I/O end the batch as before)
                    con.execute("ROLLBACK TO message")
                    con.execute("RELEASE message")
                    reason = f"could not be stored ({exc.__class__.__name__}: {exc})"
                    skipped.append(SkippedMessage(location, reason))
                    self._fate[digest] = reason
                    continue
                con.execute("RELEASE message")
                stored_at.append(location)
                if outcome is None:
                    duplicates += 1
                    continue
                row_id, status, doc_id, thread_id = outcome
                replace = status == "replaced"
                if replace:
                    duplicates += 1
                else:
                    ingested += 1
                entry = (row_id, doc_id, thread_id, message, analysed, replace)
                if replace and row_id in order:      # its first copy is in this batch: not written yet
                    to_index[order[row_id]] = entry[:5] + (False,)
                elif replace and row_id in self._writer_rows:
                    # Added through the open writer, which cannot delete its own documents: the row
                    # stays unindexed and is re-indexed after the commit.
                    self._deferred.add(row_id)
                else:
                    order[row_id] = len(to_index)
                    to_index.append(entry)
            for location, folder, digest in job.repeats:
                reason = self._fate.get(digest)
                if reason is None:
                    duplicates += 1
                    stored_at.append(location)
                    if folder is None:  # its twin in the same mailbox is recorded
                        continue
                    row_id = self._store_same_bytes(con, location, folder, digest, source_id)
                    if row_id is not None and row_id in order:  # added to the index below: as kept now
                        k = order[row_id]
                        to_index[k] = to_index[k][:3] + (dataclasses.replace(to_index[k][3], folder=folder),) \
                            + to_index[k][4:]
                    elif row_id is not None:  # its index document names the folder: re-indexed after the import
                        con.execute("UPDATE messages SET indexed = 0 WHERE id = ?", (row_id,))
                        self._deferred.add(row_id)
                else:
                    skipped.append(SkippedMessage(location, reason))
            # A location skipped by an earlier import whose mail is stored now (the file was
            # fixed, or read by a parser that reads it) is skipped no longer.
            if stored_at and con.execute("SELECT 1 FROM skipped LIMIT 1").fetchone():
                con.executemany("DELETE FROM skipped WHERE location = ?",
                                ((at,) for at in sorted(_with_containers(stored_at))))
            if skipped:
                con.executemany("INSERT INTO skipped(source_id, location, reason) VALUES (?, ?, ?) "
                                "ON CONFLICT(location) DO UPDATE SET reason = excluded.reason",
                                [(source_id, s.source, s.reason) for s in skipped])
        report.ingested += ingested
        report.duplicates += duplicates
        report.skipped.extend(skipped)
        for row_id, doc_id, thread_id, m, analysed, replace in to_index:
            fields = document_fields({"doc_id": doc_id, "id": row_id, "thread_id": thread_id,
                                      "folder": m.folder, "date": m.date, "ts": m.timestamp}, analysed)
            (writer.update_document if replace else writer.add_document)(**fields)
        self._writer_rows.update(t[0] for t in to_index)
        return [t[0] for t in to_index]

    def _is_sender_copy(self, folder: str, from_addr: str) -> bool:
        return bool(_SENT.search(folder or "")) or (from_addr.lower() in self.owners)

    def _store_same_bytes(self, con, location: str, folder: str, digest: str, source_id: int) -> Optional[int]:
        """Record a copy with the bytes of a stored one (so the same message: its text, headers,
        Bcc and attachments are the stored ones). When it is in a Sent folder or mailbox and the
        kept copy (of these bytes: not a sender's copy with other bytes that replaced it) is
        not, it becomes the kept copy: only where the message is kept changes (its folder and
        location). Returns the message's row id when so (its index document must
        follow), else None."""
        row = con.execute("SELECT m.id, m.folder, m.location, m.raw_sha256 FROM copies c "
                          "JOIN messages m ON m.id = c.message WHERE c.raw_sha256 = ? LIMIT 1", (digest,)).fetchone()
        if row is None:  # (a copy recorded in this run always has its message)
            return None
        added = con.execute("INSERT OR IGNORE INTO copies(message, raw_sha256, location, folder, kept) "
                            "VALUES (?, ?, ?, ?, 0)", (row["id"], digest, location, folder)).rowcount
        if added and row["raw_sha256"] == digest \
                and _sent_place(folder, location) > _sent_place(row["folder"], row["location"]):
            con.execute("UPDATE messages SET folder = ?, location = ?, source_id = ? WHERE id = ?",
                        (folder, location, source_id, row["id"]))
            con.execute("UPDATE copies SET kept = (raw_sha256 = ? AND location = ?) WHERE message = ?",
                        (digest, location, row["id"]))
            return row["id"]
        return None

    def _store_message(self, con, m: Message, source_id: int, zraw: bytes, edges=None):
        """Insert a new document, or record a duplicate copy. Returns (id, 'new'|'replaced',
        doc_id, thread_id) or None for a duplicate that changed nothing."""
        existing = _with_message_id(con, m)
        row = stored_document(con, m, existing)
        if row is not None:
            sender_copy = self._is_sender_copy(m.folder, m.from_addr)
            con.execute("INSERT INTO copies(message, raw_sha256, location, folder, kept) VALUES (?, ?, ?, ?, 0)",
                        (row["id"], m.raw_sha256, m.location, m.folder))
            if sender_copy and not self._is_sender_copy(row["folder"], row["from_addr"]):
                self._replace_kept_copy(con, row["id"], m, source_id, zraw)
                return row["id"], "replaced", row["doc_id"], row["thread_id"]
            return None
        doc_id = new_doc_id(m, taken=bool(existing))
        thread_id = thread_at_insert(con, m)  # (fix_threads corrects it when later mail changes it)
        cur = con.execute(
            "INSERT INTO messages(doc_id, message_id, synthetic_id, date, ts, sender, from_addr, recipients, cc, bcc, "
            "reply_to, subject, subject_norm, in_reply_to, refs, thread_id, folder, importance, priority, "
            "sensitivity_header, body, body_is_html, n_attachments, raw_sha256, raw_size, location, source_id, notes) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (doc_id, m.message_id, int(m.synthetic_id), m.date, m.timestamp, m.sender, m.from_addr, m.to, m.cc,
             m.bcc, m.reply_to, m.subject, normalise_subject(m.subject), m.in_reply_to, " ".join(m.references),
             thread_id, m.folder, m.importance, m.priority, m.sensitivity_header, m.body,
             int(m.body_is_html), len(m.attachments), m.raw_sha256, m.raw_size, m.location, source_id,
             json.dumps(list(m.notes))))
        row_id = cur.lastrowid
        self._write_parts(con, row_id, m, zraw)
        con.execute("INSERT INTO copies(message, raw_sha256, location, folder, kept) VALUES (?, ?, ?, ?, 1)",
                    (row_id, m.raw_sha256, m.location, m.folder))
        if edges is None:
            self._add_edges(con, m)
        else:
            for kind, addrs in edges:
                _count_edges(con, m.from_addr, addrs, kind)
        return row_id, "new", doc_id, thread_id

    def _replace_kept_copy(self, con, row_id: int, m: Message, source_id: int, zraw: bytes) -> None:
        """The sender's copy arrived after a recipient's: keep the sender's (it has the Bcc). Every
        column parsed from the kept copy is this copy's now (a list's copy may have its From
        rewritten 'Alice via Team', its reply headers dropped, its subject folded otherwise), the
        sender -> recipient edges counted for the replaced copy are this copy's, and the row is
        re-indexed; a thread it changes is corrected by :func:`fix_threads` (this copy is newer
        than its mark)."""
        old = con.execute("SELECT from_addr, recipients, cc, bcc FROM messages WHERE id = ?", (row_id,)).fetchone()
        con.execute(
            "UPDATE messages SET date=?, ts=?, sender=?, from_addr=?, recipients=?, cc=?, bcc=?, reply_to=?, "
            "subject=?, subject_norm=?, in_reply_to=?, refs=?, folder=?, importance=?, priority=?, "
            "sensitivity_header=?, body=?, body_is_html=?, n_attachments=?, raw_sha256=?, raw_size=?, location=?, "
            "source_id=?, notes=?, indexed=0 WHERE id=?",
            (m.date, m.timestamp, m.sender, m.from_addr, m.to, m.cc, m.bcc, m.reply_to, m.subject,
             normalise_subject(m.subject), m.in_reply_to, " ".join(m.references), m.folder, m.importance,
             m.priority, m.sensitivity_header, m.body, int(m.body_is_html), len(m.attachments), m.raw_sha256,
             m.raw_size, m.location, source_id, json.dumps(list(m.notes)), row_id))
        con.execute("DELETE FROM attachments WHERE message = ?", (row_id,))
        con.execute("UPDATE copies SET kept = (raw_sha256 = ? AND location = ?) WHERE message = ?",
                    (m.raw_sha256, m.location, row_id))
        self._write_parts(con, row_id, m, zraw)
        if old["from_addr"]:
            for kind, header in (("to", old["recipients"]), ("cc", old["cc"]), ("bcc", old["bcc"])):
                _uncount_edges(con, old["from_addr"], addresses(header), kind)
        self._add_edges(con, m)

    def _write_parts(self, con, row_id: int, m: Message, zraw: bytes) -> None:
        """Attachments and the raw bytes (``zraw``: zlib-compressed, without an mbox From line)."""
        if m.attachments:
            con.executemany(
                "INSERT INTO attachments(message, ord, name, original_name, mime_type, size, sha256, text, is_message) "
                "VALUES (?,?,?,?,?,?,?,?,?)",
                [(row_id, n, a.name, a.original_name, a.mime_type, a.size, a.sha256, a.text, int(a.is_message))
                 for n, a in enumerate(m.attachments)])
        con.execute("INSERT OR REPLACE INTO raw(message, data) VALUES (?, ?)", (row_id, zraw))

    def _add_edges(self, con, m: Message) -> None:
        if not m.from_addr:
            return
        for kind, header in (("to", m.to), ("cc", m.cc), ("bcc", m.bcc)):
            addrs = addresses(header)
            if addrs:
                _count_edges(con, m.from_addr, addrs, kind)


IMPORT_LOCK = "sasc-import.lock"  # in the index folder: held by the import that runs
ANOTHER_IMPORT = "another import into this project is running; try again when it has finished"


def _sent_place(folder: str, location: str) -> tuple[bool, bool]:
    """Whether a copy is in a Sent folder, and whether in a Sent mailbox (the last parts of its
    location's path: '.../alice/sent.mbox#3', '.../.Sent/cur/1:2,S'), compared in this order
    between two copies of the same bytes (their folders are the same when they name it in an
    X-Folder header, and the location then tells them apart)."""
    path = _without_message_number(location)
    tail = "/".join(path.replace("\\", "/").split("/")[-3:])
    return bool(_SENT.search(folder or "")), bool(_SENT.search(tail))


def _counts(report: IngestReport) -> tuple:
    return report.ingested, report.duplicates, len(report.skipped), time.monotonic()


def take_import_lock(index: SearchIndex) -> Optional[int]:
    """The project's import lock (an OS lock on index/sasc-import.lock, held until released or
    the process ends, however it ends), or ProjectBusyError when another import holds it.
    None on a file system that cannot lock: the import runs unlocked (and a source a killed
    import left 'running' there cannot be told from a running one: it stays so)."""
    path = Path(index.path) / IMPORT_LOCK
    for _ in range(3):
        fd, held = try_lock_file(path)
        if held:
            raise ProjectBusyError(ANOTHER_IMPORT)
        if fd is None:
            return None
        try:  # the file locked is still the one named (not one removed with its folder meanwhile)
            if os.path.samestat(os.fstat(fd), os.stat(path)):
                return fd
        except OSError:
            pass
        unlock_file(fd)
    return None


def settle_interrupted_sources(store: Store, index: SearchIndex) -> int:
    """Sources left 'running' by an import that no longer runs become 'interrupted'; returns how
    many. An import holds the import lock from before it marks a source 'running' until after it
    records how reading it ended, and the OS drops the lock when the process ends, however it
    ends (SIGKILL, a crash, power loss): so a 'running' source while nobody holds the lock was
    left by an import that could write nothing more. Nothing is done in a project open for
    reading, or while the lock is held or cannot be taken (no locks on its file system)."""
    if store.read_only or not store.con.execute("SELECT 1 FROM sources WHERE status = 'running' LIMIT 1").fetchone():
        return 0
    fd, _ = try_lock_file(Path(index.path) / IMPORT_LOCK)
    if fd is None:
        return 0
    try:
        return _settle(store)
    finally:
        unlock_file(fd)


def _settle(store: Store) -> int:
    """Mark 'running' sources 'interrupted' (the caller holds the import lock)."""
    if not store.con.execute("SELECT 1 FROM sources WHERE status = 'running' LIMIT 1").fetchone():
        return 0  # (a read: no write lock is waited for when there is nothing to do)
    try:
        with store.transaction() as con:
            return con.execute("UPDATE sources SET status = 'interrupted' WHERE status = 'running'").rowcount
    except ProjectBusyError:  # another program is writing: the next open or import does it
        return 0


def _interrupted_twice(exc: Optional[BaseException]) -> bool:
    """Whether ``exc`` is a KeyboardInterrupt raised while another one was on its way out."""
    if not isinstance(exc, KeyboardInterrupt):
        return False
    seen = exc.__context__
    while seen is not None:
        if isinstance(seen, KeyboardInterrupt):
            return True
        seen = seen.__context__
    return False


def _drop(writer) -> None:
    """Cancel an index writer (its documents are not added; the index lock is released), as far
    as a writer that failed or was cut short still can be."""
    try:
        writer.cancel()
    except Exception:  # closed by a commit that failed, or left unusable
        pass


# What storing one message's values can raise: text that is no valid Unicode (UnicodeEncodeError,
# a ValueError), a value SQLite refuses (too big: DataError) or a constraint it breaks.
_VALUE_ERRORS = (ValueError, sqlite3.DataError, sqlite3.IntegrityError, sqlite3.InterfaceError)


def _count_edges(con, sender: str, recipients: list[str], kind: str) -> None:
    con.executemany("INSERT INTO edges(sender, recipient, kind, count) VALUES (?, ?, ?, 1) "
                    "ON CONFLICT(sender, recipient, kind) DO UPDATE SET count = count + 1",
                    [(sender, r, kind) for r in dict.fromkeys(recipients)])


def _uncount_edges(con, sender: str, recipients: list[str], kind: str) -> None:
    """Take back what :func:`_count_edges` counted (an edge counted down to 0 is removed)."""
    pairs = [(sender, r, kind) for r in dict.fromkeys(recipients)]
    con.executemany("UPDATE edges SET count = count - 1 WHERE sender = ? AND recipient = ? AND kind = ?", pairs)
    con.executemany("DELETE FROM edges WHERE sender = ? AND recipient = ? AND kind = ? AND count <= 0", pairs)


_DOC_COLUMNS = "id, doc_id, thread_id, subject, folder, from_addr, message_id, raw_sha256, ts"


def _with_message_id(con, m: Message) -> list:
    return con.execute(f"SELECT {_DOC_COLUMNS} FROM messages WHERE message_id = ? ORDER BY id",
                       (m.message_id,)).fetchall()


def stored_document(con, m: Message, existing: Optional[list] = None):
    """The stored document the parsed message ``m`` is a copy of (a row with id, doc_id,
    thread_id, subject, folder, from_addr, message_id, raw_sha256, ts), or None: the one rule.

    A copy is the same message as written: it has the Message-ID, the same subject and Date, and
    the same text, or the text of the other with something added before or after it
    (:func:`same_message`). Copies that differ only in what mailboxes and the mail system add
    (:func:`..parse.content_digest`) always are; so are copies a list or a server changed on the
    way: its From made 'Alice via Team', its body's transfer encoding changed, a footer, a
    disclaimer or an '[External]' banner added. Two messages with one Message-ID and another
    date or text (a broken mailer numbering every message <1234@localhost>, a mail merge's
    letters sent in one second) are two documents: the second stored is ``<mid>~<hash>``
    (:func:`new_doc_id`). (The Message-ID and subject alone made a copy: the second message was
    dropped, or, a sender's copy, replaced the first's text; the import order decided which.)

    For a message without a Message-ID, its synthetic
    id names its content (:func:`..parse.content_digest`: copies that differ only in what a
    mailbox adds or in what the mail system adds on the way, the sender's Sent copy and a
    recipient's Inbox copy with its Received, Return-Path, Delivered-To..., share it).
    Documents stored under an earlier rule keep the id it gave their first copy (the SHA-256
    of its raw bytes; later of its bytes without the mailbox headers only, so a copy with
    transit headers had its own), which other copies do not have: a document without a
    Message-ID with the subject and date of ``m`` is a copy of it when its stored copy has
    ``m``'s content digest (read back from its stored bytes, by the current rule).
    ``existing``: the stored rows with ``m``'s Message-ID, when already read."""
    if existing is None:
        existing = _with_message_id(con, m)
    for row in existing:
        if _same_subject(row["subject"], m.subject) and row["ts"] == m.timestamp:   # (before reading the body)
            body = con.execute("SELECT body FROM messages WHERE id = ?", (row["id"],)).fetchone()[0]
            if same_message(row["subject"], row["ts"], body, m.subject, m.timestamp, m.body):
                return row
    if not m.synthetic_id or existing:
        return None
    for row in con.execute(f"SELECT {_DOC_COLUMNS} FROM messages WHERE subject_norm = ? AND ts IS ? "
                           "AND synthetic_id = 1 ORDER BY id", (normalise_subject(m.subject), m.timestamp)):
        if not _same_subject(row["subject"], m.subject):
            continue
        data = con.execute("SELECT data FROM raw WHERE message = ?", (row["id"],)).fetchone()
        if data is not None and synthetic_message_id(zlib.decompress(data[0])) == m.message_id:
            return row
    return None


def new_doc_id(m, taken: bool) -> str:
    """The doc_id a new document gets: its Message-ID, or, when another stored message already
    has that Message-ID (``taken``), the Message-ID with ``~`` and the first 10 hex digits of
    its raw SHA-256 (of the copy stored first).

    So which of two DIFFERENT messages with one Message-ID (:func:`stored_document`: another
    subject, date or text) gets the bare Message-ID depends on the order the mail is imported
    in: the first stored. A stored doc_id is never changed afterwards (judgments, scores,
    reviews and exports name documents by it), so two projects that took in such mail in other
    orders (other sources first, separate imports) give the bare id to different messages, and
    a judgment exported by doc_id from one and imported into the other attaches to the other
    message. Protection does not depend on it (:func:`..protect.search.judged_sensitive`: a
    judged ``<mid>`` or ``<mid>~<hash>`` holds back every document with that Message-ID);
    relevance and training labels do. Labels of mail not yet ingested are refused where the id
    depends on the order (:class:`..classify.judgments_io._Locator`). Choosing the bare id by
    the messages rather than by the order would mean renaming a document stored earlier in the
    same import when its twin arrives: its index document (the writer cannot delete what it
    added), and caches keyed on the largest row ids that a rename does not move, would name the
    other message; not done."""
    return m.message_id if not taken else f"{m.message_id}~{m.raw_sha256[:10]}"


def _same_subject(a: str, b: str) -> bool:
    return " ".join((a or "").split()) == " ".join((b or "").split())


def same_text(a: str, b: str) -> bool:
    """Whether two texts of messages with one Message-ID, subject and Date are one message's:
    the same, runs of whitespace made one space, or one of them (not empty) inside the other (a
    copy with a list's footer, a server's disclaimer or banner added)."""
    a, b = " ".join((a or "").split()), " ".join((b or "").split())
    return a == b or bool(a and b and (a in b or b in a))


def same_message(subject_a: str, ts_a: Optional[float], body_a: str,
                 subject_b: str, ts_b: Optional[float], body_b: str) -> bool:
    """Whether two messages with one Message-ID are copies of one message (the rule of
    :func:`stored_document`): the same subject (whitespace aside), the same Date (timestamps;
    both None without one) and :func:`same_text`."""
    return _same_subject(subject_a, subject_b) and ts_a == ts_b and same_text(body_a, body_b)


def index_row(con, row_id: int) -> dict:
    """A message row with the extra values the index needs, read back from the store."""
    row = dict(con.execute("SELECT * FROM messages WHERE id = ?", (row_id,)).fetchone())
    row["attachment_text"] = "\n\n".join(
        r[0] for r in con.execute("SELECT text FROM attachments WHERE message = ? AND text IS NOT NULL ORDER BY ord", (row_id,)))
    row["recipient_addrs"] = addresses(row["recipients"], row["cc"], row["bcc"])
    return row


def _with_containers(locations) -> set[str]:
    """``locations`` and the files holding them: an mbox's ``<file>#<n>`` is in ``<file>``, a
    PST's ``<pst>!<folder>/mbox#<n>`` in ``<pst>`` (a whole mailbox or PST can be skipped: a PST
    without readpst, an mbox that could not be read; storing its mail now ends that skip)."""
    out = set(locations)
    for at in locations:
        box, sep, _ = at.rpartition("#")
        if sep and box:
            out.add(box)
            pst, bang, _ = box.rpartition("!")
            if bang and pst:
                out.add(pst)
    return out


def threads_unchecked(store: Store) -> bool:
    """Whether messages were stored since the threads were last computed by the rule: the
    copies table is past the mark :func:`.threading_rules.rethread` leaves (or there is no mark,
    a project threaded by an earlier rule). So after an import that was killed, or interrupted
    before it could compute them, or while an import runs (two small reads)."""
    last = store.con.execute("SELECT MAX(id) FROM copies").fetchone()[0]
    if last is None:
        return False
    mark = store.get_meta(CHECKED_THROUGH)
    try:
        return mark is None or int(mark) < last
    except ValueError:
        return True


def rethread_interrupted_import(store: Store, index: SearchIndex, import_lock_held: bool = False) -> int:
    """When an import stored messages and was killed (or interrupted) before it computed their
    threads (:func:`threads_unchecked`), compute them now (:func:`fix_threads`): those replies
    stored before what they answer are in the threads of the rule again. Returns how many
    messages changed thread (marked for indexing: :func:`repair_index` indexes them; it calls
    this first). Nothing is done in a project open for reading, or while another import holds
    the project's import lock (its messages are its own: its end computes their threads), or
    when the project is busy (the next open does it)."""
    if store.read_only or not threads_unchecked(store):
        return 0
    fd = None
    if not import_lock_held:
        fd, held = try_lock_file(Path(index.path) / IMPORT_LOCK)
        if held:
            return 0
    try:
        return fix_threads(store)
    except ProjectBusyError:
        return 0
    finally:
        if fd is not None:
            unlock_file(fd)


def fix_threads(store: Store) -> int:
    """Threads as the rule gives them for every stored message, whatever order the mail was
    imported in (:func:`.threading_rules.rethread`: where the messages added since the last call
    can change them). Returns how many changed (they are marked for re-indexing)."""
    with store.transaction() as con:
        return rethread(con)


_ROW_KEYS = ("subject", "body", "attachment_text", "sender", "recipients", "cc", "bcc", "from_addr", "recipient_addrs", "date", "ts")


def _analyse_rows(rows: list[dict]) -> list[dict]:
    return [analyse_row(r) for r in rows]


def repair_index(store: Store, index: SearchIndex, progress: Optional[Progress] = None,
                 workers: Optional[int] = None, import_lock_held: bool = False) -> int:
    """Re-add every message not known to be in the index (after a kill or a schema change).
    Large repairs analyse the text in worker processes. Sources a killed import left
    'running' are marked 'interrupted' first (:func:`settle_interrupted_sources`), and the
    threads it left as guesses are computed (:func:`rethread_interrupted_import`: the messages
    whose thread changes are indexed again here).

    A repair holds the project's import lock (``import_lock_held``: the caller, an import,
    already does). While another process's import holds it, nothing is repaired: the messages
    not yet indexed are that import's, which indexes them (a repair then added them a second
    time, and a session opened during an import waited on the import's index writer)."""
    settle_interrupted_sources(store, index)
    rethread_interrupted_import(store, index, import_lock_held)
    if import_lock_held:
        return _repair_index(store, index, progress, workers)
    if not store.con.execute("SELECT 1 FROM messages WHERE indexed = 0 LIMIT 1").fetchone():
        # Nothing to repair (read without the lock, as settle_interrupted_sources reads): opening
        # a whole project never takes the import lock, so an import started meanwhile in another
        # process is not refused as busy.
        return 0
    fd, held = try_lock_file(Path(index.path) / IMPORT_LOCK)
    if held:
        return 0
    try:  # (no lock at all on a file system that cannot lock: repaired unlocked, as before)
        return _repair_index(store, index, progress, workers)
    finally:
        if fd is not None:
            unlock_file(fd)


def _repair_index(store: Store, index: SearchIndex, progress: Optional[Progress], workers: Optional[int]) -> int:
    con = store.con
    ids = [r[0] for r in con.execute("SELECT id FROM messages WHERE indexed = 0 ORDER BY id")]
    if not ids:
        return 0
    progress = ensure(progress)
    cpus = os.cpu_count() or 1
    if workers is None:
        workers = min(cpus, 4) if cpus >= 2 and len(ids) >= 2000 else 0
    pool = worker_pool(workers) if workers else None
    replace = index.doc_count() > 0
    writer = index.writer()
    try:
        progress.update(0, len(ids), "repairing the index")
        for start in range(0, len(ids), BATCH):
            rows = [index_row(con, i) for i in ids[start:start + BATCH]]
            texts = [{k: r[k] for k in _ROW_KEYS} for r in rows]
            if pool is not None:
                futures = [pool.submit(_analyse_rows, texts[i:i + CHUNK]) for i in range(0, len(texts), CHUNK)]
                analysed = [a for f in futures for a in f.result()]
            else:
                analysed = _analyse_rows(texts)
            for row, fields in zip(rows, analysed):
                (writer.update_document if replace else writer.add_document)(**document_fields(row, fields))
            progress.update(min(start + BATCH, len(ids)), len(ids), "repairing the index")
    except BaseException:
        writer.cancel()
        raise
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
    writer.commit()
    with store.transaction() as con:
        con.executemany("UPDATE messages SET indexed = 1 WHERE id = ?", ((i,) for i in ids))
    return len(ids)
