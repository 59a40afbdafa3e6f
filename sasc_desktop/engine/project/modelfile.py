"""Model files inside a project: versioned pickles, written atomically, checked on load.

A file holds ``{"format": NAME, "version": N, **payload}``. Loading checks both and caches the
result by (path, inode, modification time in ns, size), so a search does not unpickle a model
every time, and a file replaced within one clock tick is still seen as new.
"""
from __future__ import annotations

import errno
import os
import pickle
import threading
from pathlib import Path

from ..errors import ProjectError

_CACHE: dict[str, tuple[tuple[int, int, int], dict]] = {}
_LOCK = threading.Lock()


def write_model_file(path: Path, fmt: str, version: int, payload: dict, what: str = "model") -> Path:
    """Write ``payload`` to ``path`` atomically (a temporary file renamed over it). A folder that
    cannot be written (read-only, no permission, not a folder, disk full) is a ProjectError
    naming the folder, and nothing is left behind: the file at ``path``, if any, is untouched."""
    path = Path(path)
    data = {"format": fmt, "version": version, **payload}
    tmp = path.with_name(path.name + ".tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "wb") as fh:
            pickle.dump(data, fh, protocol=5)
        tmp.replace(path)  # atomic: a reader sees the old file or the new one, never half of one
    except OSError as exc:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
        raise ProjectError(unwritable_message(path.parent, exc, f"the {what} cannot be saved")) from None
    with _LOCK:
        _CACHE[str(path)] = (_stamp(path), data)
    return path


def unwritable_message(folder: Path, exc: OSError, what_failed: str) -> str:
    """A message for an OSError met writing into ``folder``, saying why in words."""
    folder = Path(folder)
    fix = "make it writable and try again"
    if exc.errno == errno.EROFS:
        why = f"the folder {folder} is on a read-only file system"
    elif exc.errno in (errno.EACCES, errno.EPERM):
        why = f"the folder {folder} is read-only (permission denied)"
    elif exc.errno in (errno.ENOTDIR, errno.EEXIST) or (folder.exists() and not folder.is_dir()):
        why, fix = f"{folder} is not a folder", "move what is there away and try again"
    elif exc.errno == errno.ENOSPC:
        why, fix = f"the disk holding {folder} is full", "free some space and try again"
    else:
        why = f"the folder {folder} cannot be written ({exc.strerror or exc})"
    return f"{what_failed}: {why}; {fix}"


def not_a_folder_message(folder: Path, what_failed: str) -> str:
    """What to say when ``folder`` (the project's models folder, say) is something else, a file."""
    folder = Path(folder)
    what = "a file" if folder.is_file() else "not a folder"
    return f"{what_failed}: {folder} is {what} where the project's {folder.name} folder should be; " \
           "move what is there away and try again"


def forget_model_file(path: Path) -> None:
    """Drop a file's cached contents (call before deleting or abandoning the file)."""
    with _LOCK:
        _CACHE.pop(str(Path(path)), None)


def _forget_missing(folder: Path) -> None:
    """Drop cached files of this folder that are gone (replaced by another process's training)."""
    with _LOCK:
        keys = [k for k in _CACHE if Path(k).parent == folder]
    gone = [k for k in keys if not os.path.exists(k)]
    with _LOCK:
        for k in gone:
            _CACHE.pop(k, None)


def _stamp(path: Path) -> tuple[int, int, int]:
    st = path.stat()
    return st.st_ino, st.st_mtime_ns, st.st_size


def read_model_file(path: Path, fmt: str, version: int, what: str, retrain: str) -> dict:
    """The file's contents; ProjectError (saying how to retrain) if damaged, foreign or of
    another format version."""
    path = Path(path)
    try:
        fh = open(path, "rb")
    except OSError as exc:
        # A file where the folder should be (NotADirectoryError; FileNotFoundError on Windows):
        # no model could ever be read there, and retraining would fail on it too.
        folder = path.parent
        if folder.exists() and not folder.is_dir():
            raise ProjectError(not_a_folder_message(folder, f"the {what} cannot be read")) from None
        if isinstance(exc, FileNotFoundError):  # passes through: the caller may look the name up again
            raise
        raise ProjectError(f"the {what} file {path} cannot be read ({exc}); {retrain}") from None
    with fh:
        st = os.fstat(fh.fileno())  # the stamp of the file opened, even if the name is replaced now
        stamp = (st.st_ino, st.st_mtime_ns, st.st_size)
        with _LOCK:
            hit = _CACHE.get(str(path))
        if hit and hit[0] == stamp:
            return hit[1]
        _forget_missing(path.parent)
        try:
            data = pickle.load(fh)
        except Exception as exc:
            raise ProjectError(f"the {what} file {path} is damaged ({exc}); {retrain}") from None
    if not isinstance(data, dict) or data.get("format") != fmt:
        raise ProjectError(f"{path} is not a SASC {what} file")
    if data.get("version") != version:
        raise ProjectError(f"{path} has model format version {data.get('version')}, this SASC Desktop reads "
                           f"version {version}; {retrain}")
    with _LOCK:
        _CACHE[str(path)] = (stamp, data)
    return data
