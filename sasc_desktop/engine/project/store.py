"""The project's SQLite store: WAL mode, versioned schema, migrations in one transaction.

One connection per thread (SQLite connections must not be shared across threads); WAL lets
readers run while a writer works.

A project whose folder (or project.sqlite) cannot be written, on a read-only medium or share,
say, is opened for reading only: SQLite in WAL mode must create project.sqlite-wal and -shm
beside the database even to read, so it is opened as an immutable file instead (no locks, no
WAL), which is sound only while nobody changes it; hence only when no -wal file holds changes
(none was left by a crash, no other program has it open for writing). Opening such a project
needs no write, or it is refused with a ProjectError saying why and what to do; every write then
is a ProjectReadOnlyError saying the same.
"""
from __future__ import annotations

import json
import os
import sqlite3
import tempfile
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Optional
from urllib.parse import quote_from_bytes

from ..errors import ProjectError
from .schema import MIGRATIONS

SCHEMA_VERSION = len(MIGRATIONS)

_SQLITE_READONLY, _SQLITE_CANTOPEN = 8, 14  # primary result codes (the low byte of extended ones)
_SQLITE_BUSY = 5
# Seconds a connection waits for another program's write lock before ProjectBusyError.
BUSY_TIMEOUT = 30.0
READ_ONLY_FIX = "copy the project folder to a place you can write to and open the copy"


def _connect(path: Path, read_only: bool = False, check: bool = False) -> sqlite3.Connection:
    """A connection to the project database. ``check``: refuse (ProjectDamagedError) a database
    that is empty, not a database or without the project's tables before anything is written
    to it (call :func:`_check_file` first)."""
    if read_only:
        con = sqlite3.connect(_read_only_uri(path), uri=True, isolation_level=None, timeout=BUSY_TIMEOUT,
                              check_same_thread=True, factory=_ReadOnlyConnection)
        con.db_path = Path(path)
        con.row_factory = sqlite3.Row
        con.execute("PRAGMA query_only=ON")
        return con
    con = sqlite3.connect(str(path), isolation_level=None, timeout=BUSY_TIMEOUT, check_same_thread=True,
                          factory=_Connection)
    con.db_path = Path(path)
    con.row_factory = sqlite3.Row
    if check:
        try:
            _check_schema(con, Path(path))
        except BaseException:
            con.close()
            raise
    con.execute("PRAGMA journal_mode=WAL")  # (writes to the file when it was not in WAL mode)
    con.execute("PRAGMA synchronous=NORMAL")  # durable at checkpoint; WAL keeps it consistent
    con.execute("PRAGMA foreign_keys=ON")
    return con


def _read_only_uri(path: Path) -> str:
    """An SQLite URI opening ``path`` read-only as an immutable file (no -wal, -shm or locks).
    The path is percent-encoded (a '?', '#' or '%' in a folder name is not a URI part) and the
    authority is always empty, so a Windows share (//server/share/...) is a path, not a host."""
    text = os.path.abspath(path).replace(os.sep, "/")
    if not text.startswith("/"):
        text = "/" + text  # C:/... -> /C:/...
    return "file://" + quote_from_bytes(os.fsencode(text), safe="/:") + "?mode=ro&immutable=1"


def _unwritable(db: Path, really: bool = False) -> Optional[str]:
    """Why this process cannot write the database or create files beside it (SQLite's -wal and
    -shm), as words naming the folder or the file; None when it can. First by the permission
    check, which knows read-only file systems, immutable files and this process's rights;
    ``really``: by trying, for where that check cannot tell (Windows folders, some network
    shares): a temporary file made beside it and removed at once, the database opened for
    writing (and closed, changing nothing)."""
    if really:
        try:
            with tempfile.TemporaryFile(dir=db.parent):
                pass
        except OSError:
            return f"the project folder {db.parent} is read-only"
        try:
            os.close(os.open(db, os.O_RDWR | getattr(os, "O_BINARY", 0)))
        except OSError:
            return f"the project's database {db} is read-only"
        return None
    kw = {"effective_ids": True} if os.access in os.supports_effective_ids else {}
    if not os.access(db.parent, os.W_OK, **kw):
        return f"the project folder {db.parent} is read-only"
    if not os.access(db, os.W_OK, **kw):
        return f"the project's database {db} is read-only"
    return None


def _cannot_write(exc: sqlite3.Error) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in (_SQLITE_READONLY, _SQLITE_CANTOPEN)
    text = str(exc).lower()
    return "readonly" in text or "unable to open" in text


def _refuse_newer(found: int) -> None:
    if found > SCHEMA_VERSION:
        raise ProjectError(
            f"this project was written by a newer version of SASC Desktop (schema {found}; "
            f"this version reads up to {SCHEMA_VERSION}). Update SASC Desktop to open it.")


def migrate(con: sqlite3.Connection) -> int:
    """Bring the schema up to date in ONE transaction. Returns the version found before (by
    this connection: another that migrated first leaves nothing to do)."""
    found = con.execute("PRAGMA user_version").fetchone()[0]
    _refuse_newer(found)
    if found == SCHEMA_VERSION:
        return found
    con.execute("BEGIN IMMEDIATE")
    try:
        # Read again under the write lock: another process opening the project at the same time
        # may have migrated it since (its migration run a second time failed: "index
        # messages_subject_ts already exists").
        found = con.execute("PRAGMA user_version").fetchone()[0]
        _refuse_newer(found)
        if found == SCHEMA_VERSION:
            con.execute("COMMIT")
            return found
        for version in range(found + 1, SCHEMA_VERSION + 1):
            for statement in _statements(MIGRATIONS[version - 1]):
                con.execute(statement)
        con.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    return found


def _statements(script: str) -> list[str]:
    # executescript() would commit our transaction; split on ';' at line ends instead.
    parts, buf = [], []
    for line in script.splitlines():
        stripped = line.split("--", 1)[0].rstrip()
        buf.append(stripped)
        if stripped.endswith(";"):
            stmt = "\n".join(buf).strip().rstrip(";")
            if stmt:
                parts.append(stmt)
            buf = []
    tail = "\n".join(buf).strip()
    if tail:
        parts.append(tail)
    return parts


_SQLITE_CORRUPT, _SQLITE_NOTADB = 11, 26
_SQLITE_HEADER = b"SQLite format 3\x00"
DAMAGED_FIX = ("restore project.sqlite from a backup of the project folder (if there is none, make a new "
               "project and import the mail again)")


class ProjectDamagedError(ProjectError, sqlite3.DatabaseError):
    """The project's database is empty, not a database, or damaged ("database disk image is
    malformed"). A ProjectError saying so and what to do, still an sqlite3.DatabaseError as
    SQLite's own error was."""


def damaged_message(db: Path, why: str, opening: bool = False) -> str:
    """What to say about a damaged project database: ``why`` in brackets; ``opening``: the
    project was refused before anything was written."""
    done = "; the project was not opened and nothing in it was changed: " if opening else "; "
    return f"{db.name} in {db.parent} is empty or damaged ({why}){done}{DAMAGED_FIX}"


def _damaged(db: Path, why: str, opening: bool = False) -> ProjectDamagedError:
    """A ProjectDamagedError with :func:`damaged_message`; ``why`` kept as its ``why``."""
    exc = ProjectDamagedError(damaged_message(db, why, opening))
    exc.why = why
    return exc


def _is_damage(exc: BaseException) -> bool:
    """SQLite's "database disk image is malformed" (SQLITE_CORRUPT) or "file is not a database"
    (SQLITE_NOTADB), also as "malformed database schema"."""
    if not isinstance(exc, sqlite3.DatabaseError) or isinstance(exc, ProjectError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in (_SQLITE_CORRUPT, _SQLITE_NOTADB)
    text = str(exc).lower()
    return "malformed" in text or "not a database" in text


def _tables_made_by(version: int) -> set[str]:
    """The tables a project database of schema ``version`` has (migrations 1..version)."""
    import re
    made: set[str] = set()
    for script in MIGRATIONS[:version]:
        for statement in _statements(script):
            m = re.match(r"\s*CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)", statement, re.I)
            if m:
                made.add(m.group(1))
            m = re.match(r"\s*DROP\s+TABLE\s+(?:IF\s+EXISTS\s+)?(\w+)", statement, re.I)
            if m:
                made.discard(m.group(1))
    return made


def _check_file(db: Path) -> None:
    """Refuse (ProjectDamagedError) a project database file that is empty or does not start as an
    SQLite database, before SQLite opens it: SQLite would take an empty file for a new database
    (and drop a -wal beside it), and setting WAL mode writes to it. Read by hand, not by SQLite."""
    try:
        with open(db, "rb") as f:
            head = f.read(len(_SQLITE_HEADER))
    except OSError:
        return  # (unreadable: SQLite says why)
    if not head:
        raise _damaged(db, "it is empty: 0 bytes", opening=True)
    if head != _SQLITE_HEADER:
        raise _damaged(db, "it is not an SQLite database", opening=True)


def _check_schema(con: sqlite3.Connection, db: Path) -> None:
    """Refuse (ProjectDamagedError) a database without the project's schema: no schema version
    (a project is made with its schema, in one transaction, so version 0 is never a project),
    or tables missing for its version; or one SQLite finds damaged. Reads only."""
    try:
        found = con.execute("PRAGMA user_version").fetchone()[0]
        if found > SCHEMA_VERSION:
            return  # (migrate() says a newer version wrote it)
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except ProjectDamagedError as exc:  # (translated by the connection's cursor)
        raise _damaged(db, getattr(exc, "why", str(exc)), opening=True) from exc.__cause__
    except sqlite3.DatabaseError as exc:
        if _is_damage(exc):
            raise _damaged(db, str(exc), opening=True) from exc
        raise
    if found == 0:
        why = "it holds no project data" if not tables else "it holds no SASC project data"
        raise _damaged(db, why, opening=True)
    missing = sorted(_tables_made_by(found) - tables)
    if missing:
        raise _damaged(db, f"table{'s' if len(missing) > 1 else ''} {', '.join(missing)} missing", opening=True)


class _Cursor(sqlite3.Cursor):
    """A cursor whose errors are the project's: a damaged database is a ProjectDamagedError
    (also when found while reading rows), a write to a read-only one a ProjectReadOnlyError, the
    write lock held by another program past the busy timeout a ProjectBusyError."""

    def _fail(self, exc: sqlite3.Error):
        # (called in the except block: a bare raise re-raises exc as it was)
        new = self.connection._translate(exc)
        if new is exc:
            raise
        raise new from exc


def _translating(name: str):
    """``sqlite3.Cursor.<name>`` with its errors translated by :meth:`_Cursor._fail`."""
    method = getattr(sqlite3.Cursor, name)

    def call(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except sqlite3.Error as exc:
            self._fail(exc)
    call.__name__ = name
    return call


for _name in ("execute", "executemany", "executescript", "fetchone", "fetchmany", "fetchall", "__next__"):
    setattr(_Cursor, _name, _translating(_name))


class _Connection(sqlite3.Connection):
    """The project's connection: its cursors (also those of ``execute``) are :class:`_Cursor`s."""
    db_path: Path

    def _translate(self, exc: sqlite3.Error) -> BaseException:
        if _is_damage(exc):
            return _damaged(self.db_path, str(exc))
        if _is_busy(exc):
            return ProjectBusyError(BUSY_MESSAGE)
        return exc

    def cursor(self, factory=_Cursor):
        return super().cursor(factory)

    def execute(self, *args, **kwargs):
        return self.cursor().execute(*args, **kwargs)

    def executemany(self, *args, **kwargs):
        return self.cursor().executemany(*args, **kwargs)

    def executescript(self, *args, **kwargs):
        return self.cursor().executescript(*args, **kwargs)


class ProjectReadOnlyError(ProjectError, sqlite3.OperationalError):
    """A write to a project opened for reading only (its folder or database is read-only).

    A ProjectError (the CLI and GUI show its message saying what to do) that is still an
    sqlite3.OperationalError, as SQLite's own "attempt to write a readonly database" was."""


class _ReadOnlyConnection(_Connection):
    """A read-only connection on which a write is a ProjectReadOnlyError saying what to do,
    not SQLite's bare "attempt to write a readonly database"."""
    message = "this change cannot be saved"

    def _translate(self, exc: sqlite3.Error) -> BaseException:
        if isinstance(exc, sqlite3.OperationalError) and not isinstance(exc, ProjectError) and _cannot_write(exc):
            return ProjectReadOnlyError(self.message)
        return super()._translate(exc)


def _check_read_only_open(con: sqlite3.Connection, db: Path, where: str) -> None:
    """Refuse (ProjectError) to open a read-only project whose opening would need a write, or
    which cannot be read soundly as an immutable file."""
    found = con.execute("PRAGMA user_version").fetchone()[0]
    if found > SCHEMA_VERSION:
        migrate(con)  # the error saying a newer version wrote it
    reason = None
    wal = db.with_name(db.name + "-wal")
    try:
        pending = wal.stat().st_size > 0
    except FileNotFoundError:
        pending = False
    except OSError:
        pending = True
    if pending:
        reason = (f"{wal.name} holds changes not yet written into {db.name} (it was not closed cleanly, or "
                  "another program has it open)")
    else:
        _check_schema(con, db)  # (only now, with no -wal: the immutable file is all there is)
        if found < SCHEMA_VERSION:
            reason = "it was made by an older version of SASC Desktop and must be upgraded to this version's format"
        else:
            from ..index.schema import INDEX_VERSION  # (Session.open rebuilds an index of another version)
            row = con.execute("SELECT value FROM meta WHERE key = 'index_version'").fetchone()
            if row is None or row[0] != str(INDEX_VERSION):
                reason = "its search index was made by another version of SASC Desktop and must be rebuilt"
            elif con.execute("SELECT 1 FROM messages WHERE indexed = 0 LIMIT 1").fetchone():
                reason = "its search index is incomplete (an import was interrupted) and must be completed"
    if reason:
        raise ProjectError(f"the project at {db.parent} cannot be opened: {where}, and opening it needs to "
                           f"write to it: {reason}; {READ_ONLY_FIX}")


BUSY_MESSAGE = "the project is busy (another program is writing to it); try again"


class ProjectBusyError(ProjectError, sqlite3.OperationalError):
    """Another connection kept the project's write lock past the busy timeout.

    A ProjectError (the CLI and GUI show its message) that is still an sqlite3.OperationalError,
    so code that already tolerates a locked database (``except sqlite3.Error``) keeps doing so."""


def _is_busy(exc: BaseException) -> bool:
    """SQLite's "database is locked" (SQLITE_BUSY: another connection holds the lock past the
    busy timeout); not "database table is locked" (SQLITE_LOCKED, within one connection)."""
    if not isinstance(exc, sqlite3.OperationalError) or isinstance(exc, ProjectError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF == _SQLITE_BUSY
    text = str(exc).lower()
    return "database is locked" in text or "busy" in text


def _raise_if_busy(exc: sqlite3.OperationalError) -> None:
    """Turn SQLite's "database is locked" (after the busy timeout) into a clear ProjectError."""
    if isinstance(exc, ProjectBusyError):
        raise exc
    if _is_busy(exc):
        raise ProjectBusyError(BUSY_MESSAGE) from exc


class Store:
    """The project database. ``read_only`` is True when the project is open for reading only
    (see the module's docstring): then ``transaction()`` and every write raise
    ProjectReadOnlyError, and ``require_writable(what)`` lets long work fail before it starts."""

    def __init__(self, path: Path, create: bool = False):
        self.path = Path(path)
        if not create and not self.path.exists():
            raise ProjectError(f"no project database at {self.path}")
        self._local = threading.local()
        self.create = create
        # Why the project is open for reading only (None: it is not).
        self.read_only_reason = None if create else _unwritable(self.path)
        try:
            try:
                self._start()
            except sqlite3.OperationalError as exc:
                # The permission check said writable, but SQLite could not write beside the
                # database (a folder whose access rules that check does not see): try for real.
                if self.read_only or create or not _cannot_write(exc):
                    raise
                self.read_only_reason = _unwritable(self.path, really=True)
                if not self.read_only:
                    raise
                self.close()
                self._start()
        except sqlite3.DatabaseError as exc:
            self.close()
            if isinstance(exc, ProjectError):
                raise
            if _is_damage(exc):
                raise _damaged(self.path, str(exc), opening=True) from exc
            raise ProjectError(f"cannot open {self.path}: {exc}") from exc
        except BaseException:
            self.close()
            raise

    @property
    def read_only(self) -> bool:
        return self.read_only_reason is not None

    def _start(self) -> None:
        """Connect this thread and check the schema (migrating it, or, read-only, refusing what
        would need a write)."""
        if not self.create:
            _check_file(self.path)
        self._local.con = self._open(check=not self.create)
        try:
            if self.read_only:
                _check_read_only_open(self._local.con, self.path, self.read_only_reason)
            else:
                migrate(self._local.con)
        except ProjectDamagedError as exc:  # (found by a query: said as on opening)
            raise _damaged(self.path, getattr(exc, "why", str(exc)), opening=True) from exc.__cause__
        except ProjectError:
            raise
        except sqlite3.OperationalError as exc:
            if _cannot_write(exc):
                raise
            raise ProjectError(f"{self.path} is not a readable project database: {exc}") from exc
        except sqlite3.DatabaseError as exc:
            if _is_damage(exc):
                raise _damaged(self.path, str(exc), opening=True) from exc
            raise ProjectError(f"{self.path} is not a readable project database: {exc}") from exc

    def _open(self, check: bool = False) -> sqlite3.Connection:
        con = _connect(self.path, self.read_only, check=check and not self.read_only)
        if self.read_only:
            con.message = self.read_only_message("this change")
        return con

    @property
    def con(self) -> sqlite3.Connection:
        con = getattr(self._local, "con", None)
        if con is None:
            try:
                con = self._open()
            except sqlite3.DatabaseError as exc:
                if isinstance(exc, ProjectError):
                    raise
                if _is_damage(exc):
                    raise _damaged(self.path, str(exc)) from exc
                raise ProjectError(f"cannot open {self.path}: {exc}") from exc
            self._local.con = con
        return con

    def read_only_message(self, what: str) -> str:
        """What to say when ``what`` ("the sensitivity model", ...) cannot be saved because the
        project is open for reading only."""
        return (f"{what} cannot be saved: {self.read_only_reason}, so the project is open for reading only "
                f"(searching and reading work); to change it, {READ_ONLY_FIX}")

    def require_writable(self, what: str) -> None:
        """Raise ProjectReadOnlyError (saying ``what`` cannot be saved) when the project is open
        for reading only: call it before long work whose result would be written."""
        if self.read_only:
            raise ProjectReadOnlyError(self.read_only_message(what))

    def close(self) -> None:
        con = getattr(self._local, "con", None)
        if con is not None:
            con.close()
            self._local.con = None

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (BEGIN IMMEDIATE ... COMMIT; rolled back on any exception).

        Waits up to the connection's busy timeout for another writer; if the project is still
        locked after that, raises ProjectError saying it is busy instead of SQLite's error.
        A project open for reading only raises ProjectReadOnlyError (before anything is done)."""
        self.require_writable("this change")
        con = self.con
        try:
            con.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            _raise_if_busy(exc)
            raise
        try:
            yield con
        except BaseException as exc:
            if con.in_transaction:
                con.execute("ROLLBACK")
            if isinstance(exc, sqlite3.OperationalError):
                _raise_if_busy(exc)
            raise
        try:
            con.execute("COMMIT")
        except sqlite3.OperationalError as exc:
            if con.in_transaction:
                con.execute("ROLLBACK")
            _raise_if_busy(exc)
            raise

    # settings -------------------------------------------------------------------------
    def get_setting(self, key: str, default: Any = None) -> Any:
        row = self.con.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
        return default if row is None else json.loads(row[0])

    def set_setting(self, key: str, value: Any) -> None:
        self.con.execute("INSERT INTO settings(key, value) VALUES (?, ?) "
                         "ON CONFLICT(key) DO UPDATE SET value = excluded.value", (key, json.dumps(value)))

    def get_meta(self, key: str, default: str | None = None) -> str | None:
        row = self.con.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return default if row is None else row[0]

    def set_meta(self, key: str, value: str) -> None:
        self.con.execute("INSERT INTO meta(key, value) VALUES (?, ?) "
                         "ON CONFLICT(key) DO UPDATE SET value = excluded.value", (key, value))

    def count_messages(self) -> int:
        return self.con.execute("SELECT COUNT(*) FROM messages").fetchone()[0]
