"""Per-user app state kept in a small JSON file under the config folder: recent projects, the
last project, query history, window geometry. Also the log file's location."""
from __future__ import annotations

import json
import logging
import logging.handlers
import os
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


class AppState:
    """Read at start, written on every change (small; atomically replaced)."""

    def __init__(self, path: Path | None = None):
        self.path = path or (config_dir() / "state.json")
        self.data: dict[str, Any] = {}
        self._save_failed = False
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            data = {}
        except (OSError, ValueError) as exc:
            log.warning("app state %s cannot be read (%s): starting with the defaults", self.path, exc)
            data = {}
        if not isinstance(data, dict):
            log.warning("app state %s is not a JSON object: starting with the defaults", self.path)
            data = {}
        for key, (what, ok) in STATE_TYPES.items():
            if key in data and not ok(data[key]):
                log.warning("app state %s: %r should be %s, not %r; using the default",
                            self.path, key, what, data[key])
                del data[key]
        self.data = data

    def save(self) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_suffix(".tmp")
            tmp.write_text(json.dumps(self.data, indent=2), encoding="utf-8")
            os.replace(tmp, self.path)
        except OSError as exc:
            if not self._save_failed:  # said once, not at every query typed
                log.warning("cannot save app state to %s (%s): recent projects and queries are not kept",
                            self.path, exc)
            self._save_failed = True
        else:
            self._save_failed = False

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
        self.data["last_project"] = root
        self.save()

    def forget_project(self, root: Path | str) -> None:
        root = str(Path(root))
        self.data["recent"] = [p for p in self.recent if p != root]
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
            self.save()

    # window ----------------------------------------------------------------------------
    def get(self, key: str, default=None):
        return self.data.get(key, default)

    def set(self, key: str, value) -> None:
        self.data[key] = value
        self.save()
