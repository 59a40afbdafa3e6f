"""The one worker helper: every engine operation runs here, off the UI thread.

Like Anki's ``taskman``: ``worker.run(fn, on_done=..., on_error=...)`` runs ``fn`` on a thread
pool with ONE thread (so operations on a project are serialised and the Session's per-thread
SQLite connection is always the same one) and delivers the result or the error back on the UI
thread. Long operations get a :class:`~sasc_desktop.engine.progress.Progress`; its updates reach
the UI throttled (at most one pending update, at most every ``PROGRESS_INTERVAL`` seconds; the
latest one always arrives), so a fast import cannot flood the event loop.
"""
from __future__ import annotations

import logging
import threading
import time
import traceback
from typing import Any, Callable, Optional

from PySide6.QtCore import QObject, QRunnable, QThreadPool, QTimer, Signal, Slot

from ..engine.errors import Cancelled
from ..engine.progress import Progress

log = logging.getLogger("sasc_desktop.gui")

PROGRESS_INTERVAL = 0.1  # seconds between progress updates delivered to the UI


class _Bridge(QObject):
    """Lives on the UI thread; a callable emitted from any thread runs on the UI thread."""
    call = Signal(object)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.call.connect(self._run)

    @Slot(object)
    def _run(self, fn):
        fn()


class Task:
    """A handle on one submitted operation: cancel it, ask whether it is done."""

    def __init__(self, label: str, on_progress: Optional[Callable[[int, Optional[int], str], None]], bridge: _Bridge):
        self.label = label
        self.done = False
        self._on_progress = on_progress
        self._bridge = bridge
        self._lock = threading.Lock()
        self._pending = False
        self._last = 0.0
        self.progress = Progress(self._report)

    def cancel(self) -> None:
        self.progress.cancel()

    @property
    def cancelled(self) -> bool:
        return self.progress.cancelled

    def _report(self, done: int, total: Optional[int], message: str) -> None:
        # Called on the worker thread: coalesce and throttle before crossing to the UI. An update
        # that comes too soon after the last one is delivered late (trailing edge), not dropped:
        # the step shown must not stay stale while the next one takes minutes.
        if self._on_progress is None:
            return
        now = time.monotonic()
        final = total is not None and done >= total
        with self._lock:
            if self._pending:  # the pending delivery reads the latest state when it runs
                return
            self._pending = True
            wait = 0.0 if final else PROGRESS_INTERVAL - (now - self._last)

        def deliver():
            with self._lock:
                self._pending, self._last = False, time.monotonic()
            if self.done:  # a late delivery after the result must not bring back a finished job's line
                return
            p = self.progress
            self._on_progress(p.done, p.total, p.message)
        if wait > 0:  # the timer lives on the UI thread and dies with the bridge
            bridge = self._bridge
            bridge.call.emit(lambda: QTimer.singleShot(max(1, round(wait * 1000)), bridge, deliver))
        else:
            self._bridge.call.emit(deliver)


class _Job(QRunnable):
    def __init__(self, worker: "Worker", task: Task, fn, on_done, on_error):
        super().__init__()
        self.setAutoDelete(True)
        self.worker, self.task, self.fn, self.on_done, self.on_error = worker, task, fn, on_done, on_error

    def run(self):
        try:
            result = self.fn(self.task.progress)
        except BaseException as exc:  # noqa: BLE001 - every error goes back to the UI, never kills the app
            error, tb = exc, traceback.format_exc()
            self.worker._bridge.call.emit(lambda: self.worker._finish(self.task, self.on_error, error, tb))
        else:
            self.worker._bridge.call.emit(lambda: self.worker._finish(self.task, self.on_done, result, None))


class Worker(QObject):
    """Runs engine operations on one background thread; results and errors come back on the UI thread."""
    busy_changed = Signal(bool)

    def __init__(self, parent=None, error_handler: Optional[Callable[[str, BaseException, str], None]] = None):
        super().__init__(parent)
        self._bridge = _Bridge(self)
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(1)
        self.pool.setExpiryTimeout(-1)  # keep the one thread (and its SQLite connection) alive
        self.error_handler = error_handler
        self.pending: list[Task] = []

    @property
    def busy(self) -> bool:
        return bool(self.pending)

    def run(self, fn: Callable[[Progress], Any], on_done: Optional[Callable[[Any], None]] = None,
            on_error: Optional[Callable[[BaseException], None]] = None, label: str = "",
            on_progress: Optional[Callable[[int, Optional[int], str], None]] = None) -> Task:
        """Run ``fn(progress)`` on the worker thread. ``on_done(result)`` or ``on_error(exc)``
        runs on the UI thread; without ``on_error`` the error handler (an error dialog) gets it."""
        task = Task(label, on_progress, self._bridge)
        self.pending.append(task)
        if len(self.pending) == 1:
            self.busy_changed.emit(True)
        self.pool.start(_Job(self, task, fn, on_done, on_error))
        return task

    def _finish(self, task: Task, callback, value, tb: Optional[str]) -> None:
        task.done = True
        try:
            if tb is not None:
                if not isinstance(value, Cancelled):
                    log.error("%s failed: %s\n%s", task.label or "operation", value, tb)
                if callback is not None:
                    callback(value)
                elif self.error_handler is not None and not isinstance(value, Cancelled):
                    self.error_handler(task.label, value, tb)
            elif callback is not None:
                callback(value)
        except Exception as exc:  # a bug in a UI callback: report it, keep the app alive
            log.exception("callback for %s failed", task.label)
            if self.error_handler is not None:
                self.error_handler(task.label, exc, traceback.format_exc())
        finally:
            if task in self.pending:
                self.pending.remove(task)
            if not self.pending:
                self.busy_changed.emit(False)

    def wait(self, msecs: int = -1) -> bool:
        """Block until the pool is idle (for shutdown only; the UI never calls this otherwise)."""
        return self.pool.waitForDone(msecs)
