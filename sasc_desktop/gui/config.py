"""Per-user app state kept in a small JSON file under the config folder: recent projects, the
last project, query history, window geometry. Also the log file's location."""
from __future__ import annotations

import json
import logging
import logging.handlers
import os
from pathlib import Path
from typing import Any

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


def setup_logging() -> Path:
    path = log_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    logger = logging.getLogger("sasc_desktop")
    for h in [h for h in logger.handlers if getattr(h, "_sasc", None) not in (None, str(path))]:
        logger.removeHandler(h)  # the config folder changed (tests): log to the new one
        h.close()
    if not any(getattr(h, "_sasc", None) == str(path) for h in logger.handlers):
        handler = logging.handlers.RotatingFileHandler(path, maxBytes=2_000_000, backupCount=2, encoding="utf-8")
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        handler._sasc = str(path)  # type: ignore[attr-defined]
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
    return path


class AppState:
    """Read at start, written on every change (small; atomically replaced)."""

    def __init__(self, path: Path | None = None):
        self.path = path or (config_dir() / "state.json")
        self.data: dict[str, Any] = {}
        try:
            self.data = json.loads(self.path.read_text(encoding="utf-8"))
            if not isinstance(self.data, dict):
                self.data = {}
        except (OSError, ValueError):
            self.data = {}

    def save(self) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_suffix(".tmp")
            tmp.write_text(json.dumps(self.data, indent=2), encoding="utf-8")
            os.replace(tmp, self.path)
        except OSError:
            logging.getLogger("sasc_desktop.gui").exception("cannot save app state to %s", self.path)

    # projects ---------------------------------------------------------------------------
    @property
    def recent(self) -> list[str]:
        return [p for p in self.data.get("recent", []) if isinstance(p, str)]

    @property
    def last_project(self) -> str | None:
        return self.data.get("last_project")

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
        return [q for q in self.data.get("history", []) if isinstance(q, str)]

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
