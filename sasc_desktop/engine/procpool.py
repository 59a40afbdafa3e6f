"""Process pools whose workers do not outlive the app.

A ``ProcessPoolExecutor`` worker waits on its call queue, whose write end its siblings also
hold, and a fork server waits for a pipe that every worker it forked holds too: when the app is
killed (SIGKILL, a crash, the OOM killer) none of them ever sees end-of-file, and the fork
server, its workers and the resource tracker stay behind for good. Each worker here watches the
process that started the pool (a Linux pidfd, else polling) and exits when it is gone; the fork
server and the resource tracker then see their pipes close and exit too.

Ctrl+C in a terminal sends SIGINT to the whole process group: the app and every worker. A
worker interrupted in the pool's own plumbing (taking a call off its queue, writing a result)
leaves half a message in a pipe that its siblings or the app's pool thread then wait on for
ever, and the app hangs on its way out. So a worker here turns SIGINT into KeyboardInterrupt
only while it runs a task (the task ends with that exception, sent back whole) and ignores it
otherwise (it starts with SIGINT blocked, until it has its handler); the app decides what an
interrupt means. In the app, the pool's bookkeeping (starting workers, shutting down) runs with
SIGINT deferred (:class:`deferred_interrupts`), so that a second Ctrl+C neither leaves a
started worker the pool does not know of nor cuts short the wait for the workers it does.
"""
from __future__ import annotations

import errno
import multiprocessing
import os
import select
import signal
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Callable, Optional

POLL_SECONDS = 1.0  # where pidfds are missing (not Linux, or Linux < 5.3)
DEFER_SECONDS = 5.0  # an interrupt deferred this long: the next one is not deferred


def process_pool(workers: int, method: str = "forkserver", initializer: Optional[Callable] = None,
                 initargs: tuple = ()) -> ProcessPoolExecutor:
    """A pool of ``workers`` processes started by ``method`` ("forkserver" falls back to the
    platform's default where there is no fork server: forking a process that runs threads, as
    the GUI does, is unsafe)."""
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context(method) if method in methods else None
    # A process started with Ctrl+C ignored (nohup, a background job of a script) keeps it
    # ignored in its workers too.
    ignored = signal.getsignal(signal.SIGINT) == signal.SIG_IGN
    return Pool(workers, mp_context=context, initializer=_start_worker,
                initargs=(os.getpid(), initializer, initargs, ignored))


class Pool(ProcessPoolExecutor):
    """A ``ProcessPoolExecutor`` whose tasks, and only they, can be interrupted in the workers,
    and whose bookkeeping in the app is not cut short by an interrupt (see the module's text)."""

    def submit(self, fn, /, *args, **kwargs):
        # May start a worker (and the fork server): an interrupt must not leave one started but
        # not listed, and a worker must not be interrupted before it ignores SIGINT, so SIGINT
        # is blocked in what is started here (the fork server's children inherit that too)
        # until _start_worker unblocks it.
        with deferred_interrupts(), _sigint_blocked():
            return super().submit(_run_task, fn, *args, **kwargs)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        if not wait:
            return super().shutdown(wait, cancel_futures=cancel_futures)
        with deferred_interrupts():  # the workers' tasks stop at the same Ctrl+C: a short wait
            super().shutdown(wait, cancel_futures=cancel_futures)


_in_task = False  # in a worker: whether it is running a task (SIGINT interrupts only that)


def _run_task(fn: Callable, /, *args, **kwargs):
    global _in_task
    _in_task = True
    try:
        return fn(*args, **kwargs)
    finally:
        _in_task = False


def _worker_sigint(signum, frame) -> None:
    global _in_task
    if _in_task:  # raised inside the task: the worker sends it back as the task's outcome
        _in_task = False
        raise KeyboardInterrupt


class _sigint_blocked:
    """SIGINT blocked in this thread (a SIGINT sent meanwhile waits, or another thread takes it
    and Python runs its handler in the main thread as usual), and in every process and thread
    started here. Not on Windows (no signal masks)."""

    def __enter__(self) -> None:
        self._old = (signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
                     if hasattr(signal, "pthread_sigmask") else None)

    def __exit__(self, *exc) -> None:
        if self._old is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, self._old)


def _start_worker(app_pid: int, initializer: Optional[Callable], initargs: tuple,
                  sigint_ignored: bool = False) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN if sigint_ignored else _worker_sigint)
    if hasattr(signal, "pthread_sigmask"):  # blocked when the worker was started (Pool.submit)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    watch_parent(app_pid)
    if initializer is not None:
        initializer(*initargs)


class deferred_interrupts:
    """``with deferred_interrupts() as held:`` a SIGINT (Ctrl+C) that arrives inside the block
    takes effect when the block ends (the handler in place before it runs then), unless a
    KeyboardInterrupt is already on its way out (it would only repeat it); ``held.received``
    counts them. Work that must not be cut in the middle goes in the block, and only work that
    ends soon: a further SIGINT more than :data:`DEFER_SECONDS` after the first deferred one
    raises KeyboardInterrupt at once. Blocks nest (an inner one hands what it held to the
    outer one). Does nothing outside the main thread (signals only reach Python there)."""

    def __init__(self) -> None:
        self.received = 0
        self._old = None
        self._first: Optional[float] = None
        self._active = False

    def _handler(self, signum, frame) -> None:
        now = time.monotonic()
        self.received += 1
        if self._first is None:
            self._first = now
        elif now - self._first > DEFER_SECONDS:
            self._first = now  # the one after this is deferred again
            raise KeyboardInterrupt

    def __enter__(self) -> "deferred_interrupts":
        # Where Ctrl+C is ignored (the process was started so) it stays ignored.
        if threading.current_thread() is threading.main_thread() \
                and signal.getsignal(signal.SIGINT) != signal.SIG_IGN:
            try:
                self._old = signal.signal(signal.SIGINT, self._handler)
                self._active = True
            except (ValueError, OSError):  # not in the main interpreter
                pass
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if not self._active:
            return
        self._active = False
        old = self._old
        signal.signal(signal.SIGINT, old if old is not None else signal.SIG_DFL)
        if self._first is None:
            return
        outer = getattr(old, "__self__", None)
        if isinstance(outer, deferred_interrupts):
            outer.received += self.received
            outer._first = outer._first if outer._first is not None else self._first
        elif exc_type is not None and issubclass(exc_type, KeyboardInterrupt):
            pass
        elif isinstance(sys.exc_info()[1], KeyboardInterrupt):  # in a finally or except block
            pass
        elif callable(old):
            old(signal.SIGINT, None)
        elif old == signal.SIG_DFL:
            signal.raise_signal(signal.SIGINT)


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
    return try_lock_file(path, create)[0]


_HELD_ERRNOS = {errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES, getattr(errno, "EDEADLOCK", errno.EDEADLK)}


def try_lock_file(path: os.PathLike | str, create: bool = True) -> tuple[Optional[int], bool]:
    """:func:`lock_file`, telling why there is no lock: ``(descriptor, False)`` when taken,
    ``(None, True)`` when another open file holds it (also one of this process: the locks
    belong to open files), ``(None, False)`` when the file cannot be opened (or there is none
    and not ``create``) or its file system cannot lock."""
    flags = os.O_RDWR | getattr(os, "O_BINARY", 0) | getattr(os, "O_NOINHERIT", 0) | (os.O_CREAT if create else 0)
    try:
        fd = os.open(path, flags, 0o644)
    except OSError:
        return None, False
    try:
        if os.name == "nt":
            import msvcrt
            os.lseek(fd, 0, os.SEEK_SET)
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)  # the first byte (past the end is allowed)
        else:
            import fcntl
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:  # held elsewhere (EWOULDBLOCK, EACCES) or not supported here (ENOLCK, EOPNOTSUPP)
        os.close(fd)
        return None, exc.errno in _HELD_ERRNOS
    return fd, False


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
