"""Process pools whose workers do not outlive the app.

A ``ProcessPoolExecutor`` worker waits on its call queue, whose write end its siblings also
hold, and a fork server waits for a pipe that every worker it forked holds too: when the app is
killed (SIGKILL, a crash, the OOM killer) none of them ever sees end-of-file, and the fork
server, its workers and the resource tracker stay behind for good. Each worker here watches the
process that started the pool (a Linux pidfd, else polling) and exits when it is gone; the fork
server and the resource tracker then see their pipes close and exit too.
"""
from __future__ import annotations

import multiprocessing
import os
import select
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Callable, Optional

POLL_SECONDS = 1.0  # where pidfds are missing (not Linux, or Linux < 5.3)


def process_pool(workers: int, method: str = "forkserver", initializer: Optional[Callable] = None,
                 initargs: tuple = ()) -> ProcessPoolExecutor:
    """A pool of ``workers`` processes started by ``method`` ("forkserver" falls back to the
    platform's default where there is no fork server: forking a process that runs threads, as
    the GUI does, is unsafe)."""
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context(method) if method in methods else None
    return ProcessPoolExecutor(workers, mp_context=context, initializer=_start_worker,
                               initargs=(os.getpid(), initializer, initargs))


def _start_worker(app_pid: int, initializer: Optional[Callable], initargs: tuple) -> None:
    watch_parent(app_pid)
    if initializer is not None:
        initializer(*initargs)


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` exists (True when that cannot be told: on Windows, where
    ``os.kill(pid, 0)`` would send a Ctrl+C event instead of probing)."""
    if os.name == "nt":
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):  # another user's, or not a pid we can probe
        return True
    return True


def watch_parent(pid: int) -> Optional[threading.Thread]:
    """Exit this process (at once, without cleanup: its work is for a process that is gone) as
    soon as process ``pid`` ends. Not on Windows (no way to probe it here; nothing is watched)."""
    if os.name == "nt":
        return None
    try:
        fd: Optional[int] = os.pidfd_open(pid)
    except ProcessLookupError:
        os._exit(0)
    except (AttributeError, OSError):
        fd = None

    def run() -> None:
        if fd is not None:
            select.select([fd], [], [])  # a pidfd becomes readable when its process exits
        else:
            while pid_alive(pid):
                time.sleep(POLL_SECONDS)
        os._exit(0)
    thread = threading.Thread(target=run, name="sasc-watch-parent", daemon=True)
    thread.start()
    return thread


def lock_file(path: os.PathLike | str, create: bool = True) -> Optional[int]:
    """Take an exclusive OS lock on the file at ``path`` without waiting (``fcntl.flock`` on
    POSIX, ``msvcrt.locking`` on Windows) and return the open descriptor holding it: the lock
    lasts until :func:`unlock_file`, or until the process ends however it ends (the OS drops it),
    and it is seen by other processes in other PID namespaces, and by other machines where the
    file system shares its locks (NFS). None when another open file holds the lock, when there
    is no such file (and not ``create``), or when the file system cannot lock at all."""
    flags = os.O_RDWR | getattr(os, "O_BINARY", 0) | getattr(os, "O_NOINHERIT", 0) | (os.O_CREAT if create else 0)
    try:
        fd = os.open(path, flags, 0o644)
    except OSError:
        return None
    try:
        if os.name == "nt":
            import msvcrt
            os.lseek(fd, 0, os.SEEK_SET)
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)  # the first byte (past the end is allowed)
        else:
            import fcntl
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:  # held elsewhere (EWOULDBLOCK, EACCES) or not supported here (ENOLCK, EOPNOTSUPP)
        os.close(fd)
        return None
    return fd


def unlock_file(fd: int) -> None:
    """Release a lock taken by :func:`lock_file` and close its descriptor."""
    try:
        if os.name == "nt":
            import msvcrt
            os.lseek(fd, 0, os.SEEK_SET)
            msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
        else:
            import fcntl
            fcntl.flock(fd, fcntl.LOCK_UN)
    except OSError:
        pass
    finally:
        os.close(fd)
