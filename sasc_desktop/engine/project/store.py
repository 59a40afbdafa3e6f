"""The project's SQLite store: WAL mode, versioned schema, migrations in one transaction.

One connection per thread (SQLite connections must not be shared across threads); WAL lets
readers run while a writer works.
"""
from __future__ import annotations

import json
import sqlite3
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from ..errors import ProjectError
from .schema import MIGRATIONS

SCHEMA_VERSION = len(MIGRATIONS)


def _connect(path: Path) -> sqlite3.Connection:
    con = sqlite3.connect(str(path), isolation_level=None, timeout=30.0, check_same_thread=True)
    con.row_factory = sqlite3.Row
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA synchronous=NORMAL")  # durable at checkpoint; WAL keeps it consistent
    con.execute("PRAGMA foreign_keys=ON")
    return con


def migrate(con: sqlite3.Connection) -> int:
    """Bring the schema up to date in ONE transaction. Returns the version found before."""
    found = con.execute("PRAGMA user_version").fetchone()[0]
    if found > SCHEMA_VERSION:
        raise ProjectError(
            f"this project was written by a newer version of SASC Desktop (schema {found}; "
            f"this version reads up to {SCHEMA_VERSION}). Update SASC Desktop to open it.")
    if found == SCHEMA_VERSION:
        return found
    con.execute("BEGIN IMMEDIATE")
    try:
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


BUSY_MESSAGE = "the project is busy (another program is writing to it); try again"


class ProjectBusyError(ProjectError, sqlite3.OperationalError):
    """Another connection kept the project's write lock past the busy timeout.

    A ProjectError (the CLI and GUI show its message) that is still an sqlite3.OperationalError,
    so code that already tolerates a locked database (``except sqlite3.Error``) keeps doing so."""


def _raise_if_busy(exc: sqlite3.OperationalError) -> None:
    """Turn SQLite's "database is locked" (after the busy timeout) into a clear ProjectError."""
    if isinstance(exc, ProjectBusyError):
        raise exc
    text = str(exc).lower()
    if "locked" in text or "busy" in text:
        raise ProjectBusyError(BUSY_MESSAGE) from exc


class Store:
    def __init__(self, path: Path, create: bool = False):
        self.path = Path(path)
        if not create and not self.path.exists():
            raise ProjectError(f"no project database at {self.path}")
        self._local = threading.local()
        try:
            migrate(self.con)
        except sqlite3.DatabaseError as exc:
            raise ProjectError(f"{self.path} is not a readable project database: {exc}") from exc

    @property
    def con(self) -> sqlite3.Connection:
        con = getattr(self._local, "con", None)
        if con is None:
            try:
                con = _connect(self.path)
            except sqlite3.DatabaseError as exc:
                raise ProjectError(f"cannot open {self.path}: {exc}") from exc
            self._local.con = con
        return con

    def close(self) -> None:
        con = getattr(self._local, "con", None)
        if con is not None:
            con.close()
            self._local.con = None

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (BEGIN IMMEDIATE ... COMMIT; rolled back on any exception).

        Waits up to the connection's busy timeout for another writer; if the project is still
        locked after that, raises ProjectError saying it is busy instead of SQLite's error."""
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
