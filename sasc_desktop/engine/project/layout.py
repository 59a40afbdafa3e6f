"""Where things live inside a project folder."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..errors import ProjectError

MARKER = "sasc-project.json"
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
        raise ProjectError(f"{root} is already a SASC project")
    if root.exists() and any(root.iterdir()):
        raise ProjectError(f"{root} is not empty; choose an empty or new folder for a project")
    paths = ProjectPaths(root)
    for d in (root, paths.index, paths.models, paths.exports):
        d.mkdir(parents=True, exist_ok=True)
    paths.marker.write_text(json.dumps({"format": FORMAT, "created_by": "sasc-desktop"}, indent=2) + "\n")
    return paths


def open_project_paths(root: Path) -> ProjectPaths:
    root = Path(root).expanduser().resolve()
    paths = ProjectPaths(root)
    if not root.is_dir():
        raise ProjectError(f"no project folder at {root}")
    if not paths.marker.exists() or not paths.db.exists():
        raise ProjectError(f"{root} is not a SASC project (no {MARKER} or project.sqlite); create one with 'sasc init'")
    try:
        marker = json.loads(paths.marker.read_text())
    except (OSError, ValueError) as exc:
        raise ProjectError(f"{paths.marker} is damaged: {exc}") from exc
    if marker.get("format") != FORMAT:
        raise ProjectError(f"{root} is not a SASC project (unknown format {marker.get('format')!r})")
    for d in (paths.index, paths.models, paths.exports):
        d.mkdir(exist_ok=True)
    return paths
