"""Model files inside a project: versioned pickles, written atomically, checked on load.

A file holds ``{"format": NAME, "version": N, **payload}``. Loading checks both and caches the
result by (path, inode, modification time in ns, size), so a search does not unpickle a model
every time, and a file replaced within one clock tick is still seen as new.

A file written under a name of its own, to be committed (named in the database) afterwards,
is written under a writer's lock (:func:`lock_for_writing`): an OS lock on ``<file>.lock``,
taken before the file is written and released once it is committed or given up. The OS drops
the lock when its process ends however it ends, and other processes (in other PID namespaces,
on other machines sharing the file system's locks) see it, so :func:`remove_unless_held`
removes a file only when no live writer holds it; no process ids are involved (they are reused,
and Windows cannot probe them).
"""
from __future__ import annotations

import errno
import os
import pickle
import threading
import time
from pathlib import Path
from typing import Optional

from ..errors import ProjectError
from ..procpool import lock_file, unlock_file

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
    why, fix = unwritable_reason(folder, exc)
    return f"{what_failed}: {why}; {fix}"


def unwritable_reason(folder: Path, exc: OSError) -> tuple[str, str]:
    """(why, what to do) for an OSError met writing into ``folder``, in words: the two halves of
    :func:`unwritable_message`, for a message worded otherwise around them."""
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
    return why, fix


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


# ------------------------------------------------------------------------------ writers' locks
LOCK_SUFFIX = ".lock"


def lock_path(path: Path) -> Path:
    """The lock file of the model file ``path``."""
    path = Path(path)
    return path.with_name(path.name + LOCK_SUFFIX)


class WriterLock:
    """A writer's hold on a model file it is about to write (see the module's text). ``fd`` is
    None on a file system without locks: the lock file is there, unlocked, and a sweep leaves
    a file whose lock file it cannot lock alone."""

    def __init__(self, path: Path, fd: Optional[int]):
        self.path, self.fd = Path(path), fd

    def release(self) -> None:
        """Give the file up to sweeps: remove the lock file, then drop the lock (in that order, so
        no sweep can take the lock of a file still named: it would find no lock file and the
        file committed or gone). Where a file that is open cannot be removed (Windows), the lock
        is dropped first."""
        lock, fd, self.fd = lock_path(self.path), self.fd, None
        try:
            lock.unlink(missing_ok=True)
            removed = True
        except OSError:
            removed = False
        if fd is not None:
            unlock_file(fd)
        if not removed:
            try:
                lock.unlink(missing_ok=True)
            except OSError:
                pass

    def __enter__(self) -> "WriterLock":
        return self

    def __exit__(self, *exc) -> None:
        self.release()


def lock_for_writing(path: Path, what: str = "model") -> WriterLock:
    """Take the writer's lock of the model file ``path`` (a name no other writer uses), making
    its folder if need be: hold it from before writing the file until it is committed or given
    up. A folder that cannot be written is a ProjectError naming it (as write_model_file's)."""
    path = Path(path)
    lock = lock_path(path)
    for attempt in range(6):
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            os.close(os.open(lock, os.O_WRONLY | os.O_CREAT | getattr(os, "O_BINARY", 0), 0o644))
        except OSError as exc:
            raise ProjectError(unwritable_message(path.parent, exc, f"the {what} cannot be saved")) from None
        fd = lock_file(lock, create=False)
        if fd is not None:
            try:  # a sweep may have taken and removed the fresh lock file before it was locked here
                if os.path.samestat(os.fstat(fd), os.stat(lock)):
                    return WriterLock(path, fd)
            except OSError:
                pass
            unlock_file(fd)
        time.sleep(0.01 * attempt)  # (a sweep holds a lock only while it removes two files)
    # Still not locked: a file system without locks. The lock file stays, unlocked, while the
    # file is written and committed; sweeps, unable to lock it either, leave the file alone.
    try:
        os.close(os.open(lock, os.O_WRONLY | os.O_CREAT | getattr(os, "O_BINARY", 0), 0o644))
    except OSError as exc:
        raise ProjectError(unwritable_message(path.parent, exc, f"the {what} cannot be saved")) from None
    return WriterLock(path, None)


def remove_unless_held(path: Path, keep: bool = False) -> bool:
    """Remove the model file ``path``, its half-written ``.tmp`` and its lock file, unless a
    live writer holds its lock: a writer that ended (killed, crashed) no longer does, and one
    that finished removed its lock file. ``keep``: the file is in use (committed); only a lock
    file its writer left behind is removed. Returns False when the file was left alone (held,
    or a file that could not be removed)."""
    path = Path(path)
    lock = lock_path(path)
    fd = lock_file(lock, create=False)
    if fd is None and os.path.lexists(lock):
        return False  # held by a live writer (or a file system without locks: never ours to judge)
    done = True
    try:
        if not keep:
            forget_model_file(path)
            for f in (path, path.with_name(path.name + ".tmp")):
                try:
                    f.unlink(missing_ok=True)
                except OSError:  # open elsewhere (Windows): the next sweep tries again
                    done = False
    finally:
        if fd is not None:
            if done:
                WriterLock(path, fd).release()
            else:
                unlock_file(fd)
    return done
