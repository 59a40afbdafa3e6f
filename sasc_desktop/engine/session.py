"""The one facade the GUI and the CLI call: open a project, run named operations on it.

Every operation is plain Python, runs without Qt, takes an optional Progress for long work, and
returns small records or plain dicts; errors are SascError subclasses with readable messages.
A Session may be used from a worker thread: the store keeps one SQLite connection per thread.
"""
from __future__ import annotations

import json
import operator
import re
import time
import zlib
from collections import Counter
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable, Iterable, Optional

from .errors import InputError, ProjectError
from .index import DEFAULT_FIELD_WEIGHTS, INDEX_VERSION, SearchIndex
from .index.search_index import IndexDamagedError, IndexUnwritableError, index_write_problem
from .ingest.importer import ANOTHER_IMPORT, IMPORT_LOCK, Importer, repair_index, take_import_lock
from .ingest.threading_rules import reread_reply_ids, rethread
from .procpool import unlock_file
from .progress import Progress
from .project import Store, init_project, open_project_paths
from .project.store import ProjectBusyError
from .project.layout import make_project_folders
from .project.layout import ProjectPaths
from .project.modelfile import unwritable_reason
from .records import IngestReport, SearchHit, SearchResult
from .sorting import sender_sort_key, text_sort_key

DEFAULT_SETTINGS: dict[str, Any] = {
    "field_weights": dict(DEFAULT_FIELD_WEIGHTS),
    "internal_domains": None,       # None: inferred from the collection
    "owner_addresses": [],          # the donor's addresses (their copy of a message is kept)
    "active_persona": None,
}


# Session.search(sort=...): what each sort orders by (sasc_sort_* are SQL functions of sorting.py's
# keys, registered per query).
SORT_COLUMNS = {"date": "m.ts", "sender": "sasc_sort_sender(m.sender)", "subject": "sasc_sort_text(m.subject)"}


# The largest limit or offset a search takes (SQLite's largest integer): a larger one is taken
# as this, which is "every match" or "past the last match" in any project.
MAX_COUNT = 2**63 - 1


def _count(value, name: str, least: int) -> int:
    """A search's limit or offset as a whole number from ``least`` to MAX_COUNT (a larger one is
    MAX_COUNT: an OverflowError from SQLite was a traceback); InputError for anything else."""
    try:
        value = operator.index(value)
    except TypeError:
        raise InputError(f"{name} must be a whole number, got {value!r}") from None
    if value < least:
        raise InputError(f"{name} must be at least 1" if least == 1 else f"{name} must be 0 or more")
    return min(value, MAX_COUNT)


MAX_FIELD_WEIGHT = 1_000_000.0   # BM25F scores times this stay finite; far beyond any useful emphasis


def check_settings(values: dict[str, Any], personas: Optional[Iterable[str]] = None) -> dict[str, Any]:
    """``values`` (settings by name) as Session.update_settings stores them, checked: InputError
    names the first refused one. Writes nothing, so a form can check before it saves.
    ``personas``: the project's persona ids, which ``active_persona`` must be one of (or null)."""
    values = dict(values)
    unknown = set(values) - set(DEFAULT_SETTINGS)
    if unknown:
        raise InputError(f"unknown setting(s): {', '.join(sorted(unknown))}; "
                         f"settings are: {', '.join(DEFAULT_SETTINGS)}")
    if "field_weights" in values:
        weights = values["field_weights"]
        if not isinstance(weights, dict):
            raise InputError(f"field_weights must be an object of weights, e.g. {{\"subject\": 3}}; got {weights!r}")
        def usable(v) -> bool:
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                return False
            try:
                return 0 <= float(v) <= MAX_FIELD_WEIGHT   # (nan fails; a huge int overflows)
            except OverflowError:
                return False
        bad = {k: v for k, v in weights.items() if k not in DEFAULT_FIELD_WEIGHTS or not usable(v)}
        if bad:
            shown = {k: (v if len(repr(v)) <= 40 else repr(v)[:37] + "...") for k, v in bad.items()}
            raise InputError(f"field weights must be finite numbers from 0 to {MAX_FIELD_WEIGHT:,.0f} for "
                             f"{', '.join(DEFAULT_FIELD_WEIGHTS)} (a larger one makes scores infinite); got {shown}")
        values["field_weights"] = {**DEFAULT_FIELD_WEIGHTS, **{k: float(v) for k, v in weights.items()}}
        if not any(values["field_weights"].values()):
            raise InputError("field weights: at least one must be above 0 (with all at 0 every score is 0 "
                             "and the ranking means nothing)")
    if "owner_addresses" in values:
        owners = values["owner_addresses"]
        if not isinstance(owners, (list, tuple)) or not all(isinstance(a, str) for a in owners):
            raise InputError('owner_addresses must be a list of e-mail addresses, e.g. ["dana@corp.com"]; '
                             f"got {owners!r}")
        clean = list(dict.fromkeys(a.strip().lower() for a in owners if a.strip()))
        bad = [a for a in clean if not re.fullmatch(r"[^@\s]+@[^@\s]+\.[^@\s]+", a)]
        if bad:
            raise InputError(f"owner_addresses: {', '.join(map(repr, bad))} "
                             f"{'is not an e-mail address' if len(bad) == 1 else 'are not e-mail addresses'} "
                             '(e.g. "dana@corp.com")')
        values["owner_addresses"] = clean
    if "active_persona" in values:
        persona = values["active_persona"]
        if persona is not None and not isinstance(persona, str):
            raise InputError(f"active_persona must be a persona id (see sasc personas) or null; got {persona!r}")
        if persona is not None and personas is not None and persona not in set(personas):
            known = ", ".join(personas) or "none yet (import judgments first)"
            raise InputError(f"active_persona: unknown persona {persona!r}; this project's personas are: {known}")
    if values.get("internal_domains") is not None:
        domains = values["internal_domains"]
        if not isinstance(domains, (list, tuple)) or not all(isinstance(d, str) for d in domains):
            raise InputError('internal_domains must be a list of domain names, e.g. ["corp.com", "corp.co.uk"], '
                             f"or null to infer them from the collection; got {domains!r}")
        # Stored as typed ("münchen.de" stays so, for the form showing it), lower case, no "@",
        # no spaces, each once; the features compare them in the form mail headers carry
        # (classify.features.ascii_domain: "xn--mnchen-3ya.de"), checked here to be one.
        from .classify.features import ascii_domain
        clean = [d for d in dict.fromkeys(d.strip().lower().lstrip("@").strip() for d in domains) if d]
        unwritable = {}
        for d in clean:
            try:
                ascii_domain(d)
            except ValueError as exc:
                unwritable[d] = str(exc)
        if unwritable:
            raise InputError("internal_domains: " + "; ".join(
                f"{d!r} cannot be written in the ASCII form mail headers carry (IDNA): {why}"
                for d, why in unwritable.items()) + ' (e.g. "münchen.de" or "xn--mnchen-3ya.de")')
        # checked in ASCII form (a script's combining marks are not \w); "_" allowed as before
        form = r"(?:[a-z0-9](?:[a-z0-9_-]*[a-z0-9])?\.)+[a-z][a-z0-9_-]*[a-z0-9]"
        bad = [d for d in clean if d.endswith(".") or not re.fullmatch(form, ascii_domain(d))]
        if bad:
            raise InputError(f"internal_domains: {', '.join(map(repr, bad))} "
                             f"{'is not a domain name' if len(bad) == 1 else 'are not domain names'} "
                             '(e.g. "corp.com")')
        # (DNS: a label has at most 63 characters, a name at most 253; no mail can come from longer)
        long_ = [d for d in clean if len(ascii_domain(d)) > 253 or any(len(p) > 63 for p in ascii_domain(d).split("."))]
        if long_:
            shown = ", ".join(repr(d if len(d) <= 40 else d[:37] + "...") for d in long_)
            raise InputError(f"internal_domains: {shown} {'is' if len(long_) == 1 else 'are'} too long for a domain name "
                             "(each part between dots has at most 63 characters, the whole name at most 253)")
        values["internal_domains"] = clean or None  # none given: inferred
    return values


# Seconds Session.open waits for another process's import lock when the index cannot be opened
# meanwhile (a commit switching its table of contents, a rebuild emptying it): then ProjectBusyError.
INDEX_WAIT = 5.0


def _index_problem(store: Store, paths: ProjectPaths) -> tuple[Optional[SearchIndex], Optional[str]]:
    """The project's index opened, or why it cannot be used as it is: (index or None, problem or
    None; both when the index opens but does not hold what the store says it does)."""
    if store.get_meta("index_version") != str(INDEX_VERSION):
        return None, "version"
    try:
        index = SearchIndex(paths.index, create_missing=False)
    except IndexDamagedError as exc:
        if exc.missing:
            return None, f"the search index at {paths.index} was missing"
        return None, f"the search index at {paths.index} was damaged ({exc.why})"
    try:
        # Read in this order, these hold even while another process imports or rebuilds: a row
        # is marked indexed only after the commit adding its document, and stored before it.
        indexed = _indexed_messages(store)
        docs = index.doc_count()
        total = store.count_messages()
    except BaseException:
        index.close()
        raise
    if indexed <= docs <= total:
        return index, None
    return index, (f"the search index at {paths.index} holds {docs} document{'s' if docs != 1 else ''} where the "
                   f"project has {total} message{'s' if total != 1 else ''}, {indexed} of them indexed")


def _open_index(store: Store, paths: ProjectPaths, notes: list[str]) -> SearchIndex:
    """The project's search index, rebuilt from the store when it is of another version,
    damaged, missing or out of step with the store (a note in ``notes`` says why, but for a new
    version). The index is checked first without the project's import lock (the check's reads
    are safe during another process's import or rebuild: :func:`_index_problem`), so opening a
    healthy project never takes it (an import or 'sasc reindex' started meanwhile in another
    process is not refused as busy). Only when a rebuild seems needed is the lock taken and the
    index checked again under it (another process may have rebuilt it meanwhile). A rebuild
    holds the lock (never done under a running import); while another process holds it, an
    index that cannot be opened is waited for (INDEX_WAIT seconds, then ProjectBusyError), one
    that opens is used as it is. Marked for indexing only: the caller's repair_index indexes the
    messages. Read-only: a ProjectError saying how to rebuild it."""
    if store.read_only:
        return _open_read_only_index(store, paths)
    deadline = time.monotonic() + INDEX_WAIT
    while True:
        index, problem = _index_problem(store, paths)
        if problem is None:
            return index
        try:
            lock, busy = take_import_lock(SimpleNamespace(path=paths.index)), False
        except ProjectBusyError:
            lock, busy = None, True
        try:
            if busy:
                if index is not None:
                    # Out of step while another process imports: its import (or the next open) sees to it.
                    return index
            else:
                if index is not None:
                    index.close()
                index, problem = _index_problem(store, paths)   # again, under the lock
                if problem is None:
                    return index
                if index is not None and lock is None and not _lost(store, index):
                    # (No locks on this file system: only an index that lost everything is rebuilt.)
                    return index
                if index is not None:
                    index.close()
                # An index folder that cannot be written (another user's after 'sudo sasc
                # reindex') is said before anything is changed: marked unindexed, the messages
                # made every later open try (and fail) to index them.
                _require_index_writable(paths.index, message=lambda why, fix: (
                    f"the project at {paths.root} cannot be opened: {_problem_said(problem, paths)}, and it "
                    f"must be rebuilt, but {why}; {fix}"))
                # Every message is marked for indexing first (one transaction: nothing is lost
                # when the project is busy); the lock file, held, is kept.
                with store.transaction() as con:
                    con.execute("UPDATE messages SET indexed = 0")
                index = SearchIndex.recreate(paths.index, keep=(IMPORT_LOCK,))
                # The version is recorded last (an interrupted rebuild is done again).
                with store.transaction():
                    store.set_meta("index_version", str(INDEX_VERSION))
                if problem != "version":
                    notes.append(f"{problem}; it was rebuilt from the project's database")
                return index
        finally:
            if lock is not None:
                unlock_file(lock)
        if time.monotonic() > deadline:
            raise ProjectBusyError(ANOTHER_IMPORT)
        time.sleep(0.1)


def _problem_said(problem: str, paths: ProjectPaths) -> str:
    """An :func:`_index_problem` in words."""
    if problem == "version":
        return f"its search index at {paths.index} was made by another version of SASC Desktop"
    return problem


def _require_index_writable(folder: Path, what_failed: str = "", message=None) -> None:
    """IndexUnwritableError, before anything is changed, when the index folder cannot be written
    (found by trying: index_write_problem): ``"<what_failed>: <why>; <fix>"``, or
    ``message(why, fix)``. Worded as a read-only models folder is (modelfile.unwritable_reason)."""
    error = index_write_problem(folder)
    if error is not None:
        said = message(*unwritable_reason(Path(folder), error)) if message is not None else None
        raise IndexUnwritableError(folder, error, what_failed, message=said)


def _indexed_messages(store: Store) -> int:
    """How many messages are marked indexed (counted on the table's small indexes, not its rows)."""
    return store.con.execute("SELECT (SELECT COUNT(*) FROM messages) - "
                             "(SELECT COUNT(*) FROM messages WHERE indexed = 0)").fetchone()[0]


def _lost(store: Store, index: SearchIndex) -> bool:
    """The index holds nothing, the store holds indexed messages and no import is running."""
    return (index.doc_count() == 0 and _indexed_messages(store) > 0
            and store.con.execute("SELECT 1 FROM sources WHERE status = 'running' LIMIT 1").fetchone() is None)


def _open_read_only_index(store: Store, paths: ProjectPaths) -> SearchIndex:
    # (the store checked the version and that every message is indexed: _check_read_only_open)
    index, problem = _index_problem(store, paths)
    if problem is None:
        return index
    if index is not None:
        index.close()
    raise ProjectError(f"the project at {paths.root} cannot be opened: {problem}, and it must be rebuilt, but "
                       f"{store.read_only_reason}, so the project is open for reading only; copy the project "
                       "folder to a place you can write to and run 'sasc reindex' on the copy")


# Called with each note Session.open records (Session.notes), by whoever shows them: the command
# line adds one printing them on stderr (cli/common.py); the GUI reads Session.notes itself.
NOTE_HANDLERS: list[Callable[[str], None]] = []


class Session:
    notes: list[str] = []   # what opening the project did that the user should know (the index rebuilt)
    rebuilt_on_open: Optional[int] = None   # messages indexed when opening rebuilt the whole index

    def __init__(self, paths: ProjectPaths, store: Store, index: SearchIndex):
        self.paths, self.store, self.index = paths, store, index
        self.notes = []

    # opening ------------------------------------------------------------------------
    @classmethod
    def create(cls, root: Path | str) -> "Session":
        paths = init_project(Path(root))
        store = Store(paths.db, create=True)
        store.set_meta("index_version", str(INDEX_VERSION))
        return cls(paths, store, SearchIndex(paths.index, create=True))

    @classmethod
    def open(cls, root: Path | str, progress: Optional[Progress] = None) -> "Session":
        """The project at ``root``. The search index is derived from the store: a writable
        project's index of another version, damaged, missing, or not holding the messages the
        store says it does, is rebuilt from the store (:func:`_open_index`; the session's
        ``notes`` say so, but for a new version); a read-only project's is a ProjectError saying
        how to rebuild it. Messages not yet indexed are indexed (``progress``)."""
        paths = open_project_paths(Path(root), make_folders=False)
        # The store refuses an empty or damaged database before anything is written (a
        # ProjectDamagedError): only then are missing folders made and may the index, derived
        # from it, be rebuilt.
        store = Store(paths.db)
        index = None
        notes: list[str] = []
        try:
            make_project_folders(paths)
            index = _open_index(store, paths, notes)
            session = cls(paths, store, index)
            session.notes = notes
            try:
                indexed = repair_index(store, index, progress)
            except IndexUnwritableError as exc:
                n = store.con.execute("SELECT COUNT(*) FROM messages WHERE indexed = 0").fetchone()[0]
                raise IndexUnwritableError(exc.folder, exc.error, message=(
                    f"the project at {paths.root} cannot be opened: {n} of its messages {'are' if n != 1 else 'is'} "
                    f"not yet in its search index (an import or a rebuild was interrupted) and must be indexed, "
                    f"but {exc.why}; {exc.fix}")) from None
            if index.rebuilt:
                session.rebuilt_on_open = indexed
        except BaseException:
            if index is not None:
                index.close()
            store.close()
            raise
        for handler in NOTE_HANDLERS:
            for note in notes:
                handler(note)
        return session

    @property
    def root(self) -> Path:
        return self.paths.root

    def close(self) -> None:
        self.index.close()
        self.store.close()

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # settings -----------------------------------------------------------------------
    def settings(self) -> dict[str, Any]:
        return {k: self.store.get_setting(k, v) for k, v in DEFAULT_SETTINGS.items()}

    def update_settings(self, **values: Any) -> dict[str, Any]:
        personas = None
        if values.get("active_persona") is not None:
            from .project.judgments import personas as stored_personas
            personas = [p["id"] for p in stored_personas(self.store)]
        values = check_settings(values, personas)
        with self.store.transaction():
            for k, v in values.items():
                self.store.set_setting(k, v)
        return self.settings()

    # ingest -------------------------------------------------------------------------
    def ingest(self, sources: Iterable[Path | str], progress: Optional[Progress] = None,
               workers: Optional[int] = None) -> IngestReport:
        sources = [Path(s) for s in sources]
        if not sources:
            raise InputError("nothing to ingest: give at least one mbox, maildir, folder or message file")
        self.store.require_writable("imported mail")
        # (before the importer registers a source or stores a message it could not index)
        _require_index_writable(self.paths.index, "the imported mail cannot be indexed")
        importer = Importer(self.store, self.index, self.settings()["owner_addresses"], workers=workers)
        return importer.run(sources, progress)

    def reindex(self, progress: Optional[Progress] = None) -> int:
        """Rebuild the search index from the store. Holds the project's import lock throughout
        (ProjectBusyError while another import or rebuild runs: the index it writes is not
        removed under it)."""
        # Before the index is emptied: a read-only store could not record the rebuild, and an
        # index folder that happens to be writable would be left empty.
        self.store.require_writable("the rebuilt search index")
        # An index folder that cannot be written, before every message is marked unindexed
        # (marked so, a failed rebuild left every later command failing to index them).
        _require_index_writable(self.paths.index, "the rebuilt search index cannot be saved")
        lock = take_import_lock(self.index)  # ProjectBusyError while another import runs
        try:
            # Every message is marked for indexing before the index is emptied (a busy or
            # damaged project fails here, the index untouched); an interrupted rebuild is
            # completed on the next open, as after an interrupted import.
            with self.store.transaction() as con:
                # (threads first: a project threaded by an older rule is corrected here too, not
                # only by its next import; the rebuilt index then names the right threads; reply
                # ids read by an older rule -- an address taken for an id -- are read again first)
                if not reread_reply_ids(con):
                    rethread(con)
                con.execute("UPDATE messages SET indexed = 0")
            self.index.close()
            self.index = SearchIndex.recreate(self.paths.index, keep=(IMPORT_LOCK,))
            return repair_index(self.store, self.index, progress, import_lock_held=True)
        finally:
            if lock is not None:
                unlock_file(lock)

    def complete_index(self, progress: Optional[Progress] = None) -> int:
        """Index the messages the store marks as not yet indexed, as :meth:`open` does, and
        return how many are still not indexed. For a session kept open (the GUI's) while another
        process imports or rebuilds the index ('sasc reindex'): when that process is interrupted
        (Ctrl+C, a kill) its messages stay unindexed, and searches miss them, until this is
        called. Nothing is done while another process holds the project's import lock (its
        messages are its own to index: the count returned says how many searches miss
        meanwhile), nor in a project open for reading. When every message is indexed (the
        normal case) this is one small query on the table's partial index of unindexed rows."""
        con = self.store.con
        if not con.execute("SELECT 1 FROM messages WHERE indexed = 0 LIMIT 1").fetchone():
            return 0
        if not self.store.read_only:
            repair_index(self.store, self.index, progress)
        return con.execute("SELECT COUNT(*) FROM messages WHERE indexed = 0").fetchone()[0]

    # search -------------------------------------------------------------------------
    def search(self, query: str, limit: int = 10, offset: int = 0, sort: Optional[str] = None,
               descending: bool = False) -> SearchResult:
        """Hits offset+1 .. offset+limit of the query's matches, in rank order, or with ``sort``
        ("date", "sender" or "subject") the whole result set in that order, ``descending`` or
        not: dates by the moment they name (UTC), senders by the name shown (sorting.display_name) and
        subjects, both ignoring case and accents (sorting.text_sort_key); messages without a date, sender or subject come last in both
        directions; ties in rank order. Every hit keeps its relevance rank and score; ``total``
        is the number of matches either way."""
        limit, offset = _count(limit, "limit", 1), _count(offset, "offset", 0)
        weights = self.settings()["field_weights"]
        if sort is not None:
            return self._sorted_search(query, limit, offset, sort, descending, weights)
        hits, total, ms, q = self.index.search(query, limit=limit, offset=offset, weights=weights)
        info = self._summaries([h[0] for h in hits])
        out = []
        for rank, (row_id, doc_id, score) in enumerate(hits, offset + 1):
            row = info.get(row_id)
            if row is None:  # in the index but gone from the store: never show it
                continue
            out.append(SearchHit(rank=rank, doc_id=doc_id, score=score, subject=row["subject"],
                                 sender=row["sender"], date=row["date"], id=row_id))
        return SearchResult(query=query, hits=tuple(out), total=total, ms=ms,
                            terms=tuple(sorted(self.index.query_terms(q))))

    def _sorted_search(self, query: str, limit: int, offset: int, sort: str, descending: bool,
                       weights) -> SearchResult:
        column = SORT_COLUMNS.get(sort)
        if column is None:
            raise InputError(f"cannot sort by {sort!r}; sort by one of: {', '.join(SORT_COLUMNS)} "
                             "(or leave it out for rank order)")
        ids, scores, total, ms, q = self.index.ranked(query, weights=weights)
        t0 = time.perf_counter()
        direction = "DESC" if descending else "ASC"
        missing = "m.ts IS NULL" if sort == "date" else f"{column} = ''"
        con = self.store.con
        con.create_function("sasc_sort_sender", 1, sender_sort_key, deterministic=True)
        con.create_function("sasc_sort_text", 1, text_sort_key, deterministic=True)
        # The matches in rank order as a JSON array: json_each's key is the rank - 1 (ties).
        rows = self.store.con.execute(
            "SELECT j.key AS pos, m.id, m.doc_id, m.subject, m.sender, m.date "
            "FROM json_each(?) AS j JOIN messages AS m ON m.id = j.value "
            f"ORDER BY {missing}, {column} {direction}, j.key LIMIT ? OFFSET ?",
            (json.dumps(ids.tolist()), limit, offset)).fetchall()
        hits = tuple(SearchHit(rank=r["pos"] + 1, doc_id=r["doc_id"], score=float(scores[r["pos"]]),
                               subject=r["subject"], sender=r["sender"], date=r["date"], id=r["id"])
                     for r in rows)
        ms += (time.perf_counter() - t0) * 1000.0
        return SearchResult(query=query, hits=hits, total=total, ms=ms,
                            terms=tuple(sorted(self.index.query_terms(q))))

    def _summaries(self, ids: list[int]) -> dict[int, Any]:
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        rows = self.store.con.execute(
            f"SELECT id, doc_id, subject, sender, date, thread_id FROM messages WHERE id IN ({marks})", ids)
        return {r["id"]: r for r in rows}

    def highlight_spans(self, text: str, terms: Iterable[str]) -> list[tuple[int, int]]:
        return self.index.highlight_spans(text, set(terms))

    # documents ----------------------------------------------------------------------
    def _row(self, doc_id: str):
        """The message with this doc_id; else, for an id of plain ASCII digits that SQLite's
        INTEGER holds, the message with that row number (``sasc show PROJECT 3``). Other digits
        (Arabic-Indic '٣', a superscript '²') are no row number: str.isdigit() takes them, and
        int() read '٣' as row 3 and failed on '²' and on an id beyond 64 bits."""
        con = self.store.con
        row = con.execute("SELECT * FROM messages WHERE doc_id = ?", (doc_id,)).fetchone()
        if row is None and doc_id.isascii() and doc_id.isdigit() and len(doc_id) <= 19 \
                and int(doc_id) <= 2 ** 63 - 1:
            row = con.execute("SELECT * FROM messages WHERE id = ?", (int(doc_id),)).fetchone()
        if row is None:
            raise InputError(f"no document {doc_id!r} in this project")
        return row

    def document(self, doc_id: str) -> dict[str, Any]:
        """The whole record of one document, as plain data."""
        row = self._row(doc_id)
        con = self.store.con
        doc = {k: row[k] for k in row.keys() if k not in ("indexed", "notes", "refs")}
        doc["from"] = doc.pop("sender")
        doc["to"] = doc.pop("recipients")
        doc["references"] = row["refs"].split() if row["refs"] else []
        doc["notes"] = json.loads(row["notes"])
        doc["attachments"] = [
            {k: a[k] for k in ("name", "original_name", "mime_type", "size", "sha256", "text")}
            | {"is_message": bool(a["is_message"])}
            for a in con.execute("SELECT * FROM attachments WHERE message = ? ORDER BY ord", (row["id"],))]
        doc["copies"] = [dict(c) for c in con.execute(
            "SELECT location, folder, raw_sha256, kept FROM copies WHERE message = ? ORDER BY id", (row["id"],))]
        doc["thread"] = self.thread(row["doc_id"])
        return doc

    def thread(self, doc_id: str) -> list[dict[str, Any]]:
        row = self._row(doc_id)
        return [dict(r) for r in self.store.con.execute(
            "SELECT id, doc_id, date, sender, subject FROM messages WHERE thread_id = ? "
            "ORDER BY ts IS NULL, ts, id", (row["thread_id"],))]

    def raw_message(self, doc_id: str) -> bytes:
        row = self._row(doc_id)
        blob = self.store.con.execute("SELECT data FROM raw WHERE message = ?", (row["id"],)).fetchone()
        if blob is None:
            raise ProjectError(f"the raw copy of {doc_id!r} is missing from the project")
        return zlib.decompress(blob[0])

    # overview -----------------------------------------------------------------------
    def stats(self) -> dict[str, Any]:
        con = self.store.con
        one = lambda sql: (con.execute(sql).fetchone() or [None])[0]  # noqa: E731
        return {
            "project": str(self.root),
            "messages": one("SELECT COUNT(*) FROM messages"),
            "copies": one("SELECT COUNT(*) FROM copies"),
            "attachments": one("SELECT COUNT(*) FROM attachments"),
            "threads": one("SELECT COUNT(DISTINCT thread_id) FROM messages"),
            "people": one("SELECT COUNT(*) FROM (SELECT sender AS a FROM edges UNION SELECT recipient FROM edges)"),
            "skipped": one("SELECT COUNT(*) FROM skipped"),
            "sources": [dict(r) for r in con.execute("SELECT path, kind, status, last_run FROM sources ORDER BY id")],
            "first_date": one("SELECT date FROM messages WHERE ts = (SELECT MIN(ts) FROM messages)"),
            "last_date": one("SELECT date FROM messages WHERE ts = (SELECT MAX(ts) FROM messages)"),
            "unindexed": one("SELECT COUNT(*) FROM messages WHERE indexed = 0"),
            "personas": [r[0] for r in con.execute("SELECT id FROM personas ORDER BY id")],
            "topics": one("SELECT COUNT(*) FROM topics"),
        }

    def skipped(self) -> list[dict[str, str]]:
        return [dict(r) for r in self.store.con.execute("SELECT location AS source, reason FROM skipped ORDER BY id")]

    def network(self) -> list[tuple[str, str, str, int]]:
        return [tuple(r) for r in self.store.con.execute("SELECT sender, recipient, kind, count FROM edges")]

    def sender_domains(self) -> Counter:
        return Counter(r[0].rpartition("@")[2] for r in self.store.con.execute("SELECT from_addr FROM messages WHERE from_addr <> ''"))

    # --- search and protect ---
    def protected_search(self, query: str, persona: str, approach: str = "joint", k: int = 10,
                         cutoff: str = "fixed", offset: int = 0, show_withheld: bool = False,
                         retrain_stale: bool = False, depth: Optional[int] = None) -> dict[str, Any]:
        """The searcher's list and the held-back uncertain documents (engine/protect); the counts
        of candidates and of documents withheld as judged sensitive only with ``show_withheld``
        (for the archivist: a searcher could learn from them that such documents exist).
        ``retrain_stale``: retrain a ranker that learned from older judgments first (else it is
        used as it is and the result says ``model_up_to_date`` False). ``depth``: how many of the
        query's first matches are ranked (default protect.search.SEARCH_DEPTH)."""
        from .protect.search import SEARCH_DEPTH, protected_search
        k, offset = _count(k, "k", 1), _count(offset, "offset", 0)
        depth = SEARCH_DEPTH if depth is None else _count(depth, "depth", 1)
        return protected_search(self, query, persona, approach=approach, k=k, cutoff=cutoff, offset=offset,
                                show_withheld=show_withheld, retrain_stale=retrain_stale, depth=depth)

    def train_protection(self, persona: str, approach: str = "joint", progress: Optional[Progress] = None,
                         **options: Any) -> dict[str, Any]:
        from .protect.search import train_protection
        return train_protection(self, persona, approach, progress=progress, **options)

    def run_experiment(self, persona: str, progress: Optional[Progress] = None, **options: Any) -> dict[str, Any]:
        from .evaluate.experiment import run_experiment
        return run_experiment(self, persona, progress=progress, **options)

    # --- classify ---
    def personas(self) -> list[dict[str, str]]:
        """[{"id", "name"}] for every persona of the project."""
        from .classify import persona_ids
        return persona_ids(self)

    def import_judgments(self, qrels=None, sensitivity=None, topics=None, personas=None, reasons=None, *,
                         replace: bool = False, progress: Optional[Progress] = None) -> dict[str, int]:
        from .classify import import_judgments
        return import_judgments(self, qrels, sensitivity, topics, personas, reasons, replace=replace, progress=progress)

    def import_categories(self, folder, progress: Optional[Progress] = None, *, replace: bool = False) -> dict[str, int]:
        from .classify import import_categories
        return import_categories(self, folder, progress, replace=replace)

    def train_classifier(self, persona: str, progress: Optional[Progress] = None, **options: Any):
        from .classify import train
        return train(self, persona, progress, **options)

    def sensitivity_probabilities(self, persona: str) -> dict[str, float]:
        from .classify import probabilities
        return probabilities(self, persona)

    def explain_sensitivity(self, doc_id: str, persona: str) -> dict[str, Any]:
        from .classify import explain
        return explain(self, doc_id, persona)

    def cross_validate_classifier(self, persona: str, progress: Optional[Progress] = None, **options: Any) -> dict[str, Any]:
        from .classify import cross_validate
        return cross_validate(self, persona, progress=progress, **options)
