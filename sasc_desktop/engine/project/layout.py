"""Where things live inside a project folder."""
from __future__ import annotations

import json
import logging
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from ..errors import ProjectError
from .modelfile import unwritable_message

log = logging.getLogger(__name__)

MARKER = "sasc-project.json"
DEMO_FILLING = ".sasc-filling"   # a demo build killed while moving into this folder (demo_project.py)
FORMAT = "sasc-project"


@dataclass(frozen=True)
class ProjectPaths:
    root: Path

    @property
    def db(self) -> Path:
        return self.root / "project.sqlite"

    @property
    def index(self) -> Path:
        return self.root / "index"

    @property
    def models(self) -> Path:
        return self.root / "models"

    @property
    def exports(self) -> Path:
        return self.root / "exports"

    @property
    def marker(self) -> Path:
        return self.root / MARKER


def init_project(root: Path) -> ProjectPaths:
    root = Path(root).expanduser().resolve()
    if root.exists() and not root.is_dir():
        raise ProjectError(f"{root} exists and is not a folder")
    if root.exists() and (root / MARKER).exists():
        if not unfinished_project(root):
            raise ProjectError(f"{root} is already a SASC project")
        # else: an init stopped before it made the database: finished now
    elif root.exists() and any(root.iterdir()):
        raise ProjectError(f"{root} is not empty; choose an empty or new folder for a project")
    paths = ProjectPaths(root)
    made = None
    try:
        for d in (root, paths.index, paths.models, paths.exports):
            made = d
            d.mkdir(parents=True, exist_ok=True)
        made = paths.marker
        paths.marker.write_text(json.dumps({"format": FORMAT, "created_by": "sasc-desktop"}, indent=2) + "\n")
    except OSError as exc:  # a read-only place, no permission, a full disk: say which folder
        folder = made.parent
        while not folder.exists() and folder != folder.parent:
            folder = folder.parent
        raise ProjectError(unwritable_message(folder, exc, f"cannot create a project at {root}")) from None
    return paths


_DB_FILES = ("project.sqlite", "project.sqlite-wal", "project.sqlite-shm", "project.sqlite-journal")


def unfinished_project(root: Path) -> bool:
    """Whether ``root`` is what 'sasc init' leaves when stopped (killed, the power cut) between
    writing the marker and making the database's schema: the marker, the index, models and
    exports folders all there and empty, and no database, or one holding nothing (no schema
    version, no tables). Never true of a project that holds anything: its index is not empty."""
    try:
        names = {p.name for p in root.iterdir()}
        if not names <= {MARKER, "index", "models", "exports", *_DB_FILES}:
            return False
        for name in ("index", "models", "exports"):
            folder = root / name
            if folder.is_symlink() or not folder.is_dir() or any(folder.iterdir()):
                return False   # (init makes the three before the marker)
        if json.loads((root / MARKER).read_text()).get("format") != FORMAT:
            return False
    except (OSError, ValueError, AttributeError):
        return False
    db = root / "project.sqlite"
    if not db.exists():
        return not (names & set(_DB_FILES))
    try:
        if db.stat().st_size == 0:
            return True
        from .store import _read_only_uri   # (as it is on disk: nothing written, no -wal read)
        con = sqlite3.connect(_read_only_uri(db), uri=True)
        try:
            return (con.execute("PRAGMA user_version").fetchone()[0] == 0
                    and con.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0] == 0)
        finally:
            con.close()
    except (OSError, sqlite3.Error):
        return False


def open_project_paths(root: Path, make_folders: bool = True) -> ProjectPaths:
    """The paths of the project at ``root`` after checking it is one; its index, models and
    exports folders made where missing (:func:`make_project_folders`) unless not
    ``make_folders`` (the caller first checks its database, so a damaged project is left as it
    was)."""
    root = Path(root).expanduser().resolve()
    paths = ProjectPaths(root)
    if not root.is_dir():
        raise ProjectError(f"no project folder at {root}")
    if paths.db.exists() and not paths.marker.exists() and not (root / DEMO_FILLING).exists():
        # A project that lost only its marker: 'sasc init' would refuse the folder (not empty).
        raise ProjectError(f"{root} has a project database but no {MARKER} (the file that marks a SASC project "
                           f"folder); if it is a SASC project, write that file with the content "
                           f"{json.dumps({'format': FORMAT})} and open it again")
    if paths.marker.exists() and unfinished_project(root):
        raise ProjectError(f"{root} is not a SASC project yet (its creation stopped before its database was made); "
                           "create one with 'sasc init', which finishes it")
    if not paths.marker.exists() or not paths.db.exists():
        raise ProjectError(f"{root} is not a SASC project (no {MARKER} or project.sqlite); create one with 'sasc init'")
    try:
        marker = json.loads(paths.marker.read_text())
    except (OSError, ValueError) as exc:
        raise ProjectError(f"{paths.marker} is damaged: {exc}") from exc
    if not isinstance(marker, dict):   # valid JSON, but not the object a project writes
        raise ProjectError(f"{paths.marker} is damaged: not a JSON object (a project's is "
                           f"{json.dumps({'format': FORMAT})})")
    if marker.get("format") != FORMAT:
        raise ProjectError(f"{root} is not a SASC project (unknown format {marker.get('format')!r})")
    if make_folders:
        make_project_folders(paths)
    return paths


def make_project_folders(paths: ProjectPaths) -> None:
    # The search index is needed to open a project at all: a file in its place (or a folder that
    # cannot be created) is a ProjectError saying so. The models and exports folders are needed
    # only to write (train, export): opening, searching and reading go on without them, and a
    # write that needs one fails then with a ProjectError naming it (write_model_file); a missing
    # one is created here when it can be, or by the first write.
    for d, needed in ((paths.index, True), (paths.models, False), (paths.exports, False)):
        try:
            d.mkdir(exist_ok=True)
        except OSError as exc:
            there = d.is_symlink() or d.exists()  # a file, or a link to nothing
            what = f"the project's {'search index' if needed else d.name + ' folder'} cannot be " \
                   f"{'opened' if there else 'created'}"
            message = unwritable_message(d if there else paths.root, exc, what)
            if needed:
                raise ProjectError(message) from None
            log.warning("%s (the project is open; saving %s fails until then)", message,
                        "models" if d == paths.models else "exports")
