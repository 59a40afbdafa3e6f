"""Per-user app state kept in a small JSON file under the config folder: recent projects, the
last project, query history, window geometry. Also the log file's location."""
from __future__ import annotations

import copy
import json
import logging
import logging.handlers
import os
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Optional

log = logging.getLogger("sasc_desktop.gui")

MAX_RECENT = 10
MAX_HISTORY = 50


def config_dir() -> Path:
    env = os.environ.get("SASC_CONFIG_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "sasc-desktop"


def data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "sasc-desktop"


def demo_project_dir() -> Path:
    return data_dir() / "demo-project"


def log_path() -> Path:
    return config_dir() / "sasc-desktop.log"


_log_problem: Optional[str] = None  # why the log file could not be opened, if it could not


def setup_logging() -> Optional[Path]:
    """Log to ``log_path()``; returns it, or None when the log cannot be opened there (the config
    folder is a file, or not writable): then the app runs without a log file and says why
    (:func:`log_problem`) instead of failing to start."""
    global _log_problem
    path = log_path()
    logger = logging.getLogger("sasc_desktop")
    for h in [h for h in logger.handlers if getattr(h, "_sasc", None) not in (None, str(path))]:
        logger.removeHandler(h)  # the config folder changed (tests): log to the new one
        h.close()
    if not any(getattr(h, "_sasc", None) == str(path) for h in logger.handlers):
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            handler = logging.handlers.RotatingFileHandler(path, maxBytes=2_000_000, backupCount=2, encoding="utf-8")
        except OSError as exc:
            problem = f"the log file {path} cannot be opened ({exc.strerror or exc})"
            if problem != _log_problem:  # said once, not at every start-up step that sets up logging
                logger.warning("running without a log file: %s", problem)
            _log_problem = problem
            return None
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        handler._sasc = str(path)  # type: ignore[attr-defined]
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
    _log_problem = None
    return path


def log_problem() -> Optional[str]:
    """Why there is no log file (the last :func:`setup_logging` could not open it), or None."""
    return _log_problem


def _is_str_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


# What each key of state.json must hold; a value of another type (the file edited by hand, or
# written by something else) is dropped with a warning and the default used instead.
STATE_TYPES: dict[str, tuple[str, Callable[[Any], bool]]] = {
    "recent": ("a list of folder paths", lambda v: isinstance(v, list)),
    "history": ("a list of queries", lambda v: isinstance(v, list)),
    "last_project": ("a folder path or null", lambda v: v is None or isinstance(v, str)),
    "geometry": ("a base64 string", lambda v: v is None or isinstance(v, str)),
    "splitter": ("a base64 string", lambda v: v is None or isinstance(v, str)),
}


def _read_state(path: Path, warn: bool = True) -> dict[str, Any]:
    """The state file's contents: values of the wrong type dropped (said in the log when
    ``warn``), {} when there is no file or it cannot be read."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        if warn:
            log.warning("app state %s cannot be read (%s): starting with the defaults", path, exc)
        return {}
    if not isinstance(data, dict):
        if warn:
            log.warning("app state %s is not a JSON object: starting with the defaults", path)
        return {}
    for key, (what, ok) in STATE_TYPES.items():
        if key in data and not ok(data[key]):
            if warn:
                log.warning("app state %s: %r should be %s, not %r; using the default", path, key, what, data[key])
            del data[key]
    return data


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _first(items: list[str], limit: int) -> list[str]:
    """``items`` without repeats, in order, at most ``limit``."""
    return list(dict.fromkeys(items))[:limit]


# How long save() waits for another process's save of the same file before it saves anyway.
STATE_LOCK_WAIT = 2.0


class AppState:
    """Read at start, written on every change (small; atomically replaced). Several app
    processes may share the file: each save reads it again and merges this process's changes
    into it (recent projects and queries: the union, this process's new ones first; the last
    project, the geometry and any other value: this process's only if it changed them), under
    a lock file, written through a temporary file of its own and renamed over it."""

    def __init__(self, path: Path | None = None):
        self.path = path or (config_dir() / "state.json")
        self._save_failed = False
        self.data: dict[str, Any] = _read_state(self.path)
        self._base = copy.deepcopy(self.data)        # the file as this process last read or wrote it
        self._recent_added: list[str] = []           # this process's changes not yet saved, newest first
        self._recent_removed: set[str] = set()
        self._history_added: list[str] = []

    def _merged(self, disk: dict[str, Any]) -> dict[str, Any]:
        """This process's changes applied to ``disk`` (the file as it is now)."""
        merged: dict[str, Any] = {}
        for key in dict.fromkeys([*disk, *self.data, *self._base]):
            if key in ("recent", "history"):
                continue
            mine, known = key in self.data, key in self._base
            if mine and (not known or self.data[key] != self._base[key]):
                merged[key] = self.data[key]          # changed here
            elif known and not mine:
                continue                              # removed here
            elif key in disk:
                merged[key] = disk[key]               # another process's, or as it was
        removed = self._recent_removed
        merged["recent"] = _first(self._recent_added + [p for p in _strings(disk.get("recent"))
                                                        if p not in removed], MAX_RECENT)
        merged["history"] = _first(self._history_added + _strings(disk.get("history")), MAX_HISTORY)
        if "recent" not in disk and "recent" not in self.data and not merged["recent"]:
            del merged["recent"]
        if "history" not in disk and "history" not in self.data and not merged["history"]:
            del merged["history"]
        return merged

    def save(self) -> None:
        from ..engine.procpool import try_lock_file, unlock_file
        tmp = None
        lock = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            deadline = time.monotonic() + STATE_LOCK_WAIT
            while True:  # another process's read-merge-write of the file first (a few ms)
                lock, held = try_lock_file(self.path.with_name(self.path.name + ".lock"))
                if not held or time.monotonic() > deadline:
                    break
                time.sleep(0.02)
            merged = self._merged(_read_state(self.path, warn=False))
            fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.{os.getpid()}.", suffix=".tmp",
                                       dir=self.path.parent)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(json.dumps(merged, indent=2))
            os.replace(tmp, self.path)
            tmp = None
        except OSError as exc:
            if not self._save_failed:  # said once, not at every query typed
                log.warning("cannot save app state to %s (%s): recent projects and queries are not kept",
                            self.path, exc)
            self._save_failed = True
        else:
            self._save_failed = False
            self.data = merged
            self._base = copy.deepcopy(merged)
            self._recent_added, self._recent_removed, self._history_added = [], set(), []
        finally:
            if tmp is not None:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
            if lock is not None:
                unlock_file(lock)

    # projects ---------------------------------------------------------------------------
    @property
    def recent(self) -> list[str]:
        recent = self.data.get("recent")
        return [p for p in recent if isinstance(p, str)] if isinstance(recent, list) else []

    @property
    def last_project(self) -> str | None:
        last = self.data.get("last_project")
        return last if isinstance(last, str) and last else None

    def project_opened(self, root: Path | str) -> None:
        root = str(Path(root))
        self.data["recent"] = [root] + [p for p in self.recent if p != root][: MAX_RECENT - 1]
        self._recent_added = [root] + [p for p in self._recent_added if p != root]
        self._recent_removed.discard(root)
        self.data["last_project"] = root
        self.save()

    def forget_project(self, root: Path | str) -> None:
        root = str(Path(root))
        self.data["recent"] = [p for p in self.recent if p != root]
        self._recent_added = [p for p in self._recent_added if p != root]
        self._recent_removed.add(root)
        if self.data.get("last_project") == root:
            self.data["last_project"] = None
        self.save()

    # queries ---------------------------------------------------------------------------
    @property
    def history(self) -> list[str]:
        history = self.data.get("history")
        return [q for q in history if isinstance(q, str)] if isinstance(history, list) else []

    def add_query(self, query: str) -> None:
        query = query.strip()
        if query:
            self.data["history"] = [query] + [q for q in self.history if q != query][: MAX_HISTORY - 1]
            self._history_added = [query] + [q for q in self._history_added if q != query]
            self.save()

    # window ----------------------------------------------------------------------------
    def get(self, key: str, default=None):
        return self.data.get(key, default)

    def set(self, key: str, value) -> None:
        self.data[key] = value
        self.save()
