"""Project folders: the SQLite store, its schema migrations, and settings."""
from .store import Store, SCHEMA_VERSION
from .layout import ProjectPaths, init_project, open_project_paths

__all__ = ["Store", "SCHEMA_VERSION", "ProjectPaths", "init_project", "open_project_paths"]
