"""The installed Qt binding must not corrupt Python's reference counts on the paths the app uses
on every operation: PySide6 6.12.0's ``Signal.emit`` dropped a reference to ``True`` per call, so
the app aborted ("bool_dealloc") after about 12,000 signals (pyproject.toml keeps it out)."""
from __future__ import annotations

import gc
import sys

from PySide6.QtCore import QCoreApplication

from sasc_desktop.gui.worker import Worker


def test_signal_emit_keeps_reference_counts(qtbot):
    worker = Worker()
    calls = []
    n = 1000
    gc.collect()  # earlier tests' garbage must not be freed in between and move the counts
    before = {name: sys.getrefcount(obj) for name, obj in (("True", True), ("False", False), ("None", None))}
    for _ in range(n):
        worker._bridge.call.emit(lambda: calls.append(1))  # the app's one path from worker to UI
    QCoreApplication.processEvents()
    gc.collect()
    after = {name: sys.getrefcount(obj) for name, obj in (("True", True), ("False", False), ("None", None))}
    assert len(calls) == n
    # a leak or loss of one reference per emit moves a count by n; unrelated activity by a few
    assert all(abs(after[k] - before[k]) < n // 10 for k in before), (before, after)


def test_worker_round_trips_keep_reference_counts(qtbot):
    """Operations through the worker and their results back on the UI thread."""
    worker = Worker()
    done = [0]

    def finished(value):
        assert value is None
        done[0] += 1
    gc.collect()
    true_before, none_before = sys.getrefcount(True), sys.getrefcount(None)
    for _ in range(300):
        worker.run(lambda p: None, finished, label="noop")
    qtbot.waitUntil(lambda: done[0] == 300, timeout=60_000)
    worker.wait(10_000)
    QCoreApplication.processEvents()
    gc.collect()  # finished tasks are freed by the cycle collector (task <-> its progress callback)
    assert abs(sys.getrefcount(True) - true_before) < 30 and abs(sys.getrefcount(None) - none_before) < 30
