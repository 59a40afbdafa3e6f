"""The worker's progress throttle: updates too close together are coalesced, never lost; the
latest step always reaches the UI while the job goes on, and nothing arrives after the result."""
from __future__ import annotations

import threading

from sasc_desktop.gui.worker import PROGRESS_INTERVAL, Worker


def test_the_latest_step_arrives_while_the_job_is_still_running(qtbot):
    worker = Worker()
    seen, results = [], []
    go_on, first_shown = threading.Event(), threading.Event()

    def job(progress):
        progress.update(0, 3, "first step")
        first_shown.wait(30)
        progress.update(1, 3, "second step")   # right after the first was shown: too soon to deliver now
        go_on.wait(30)                          # a long step: nothing more is reported meanwhile
        progress.update(2, 3, "third step")
        progress.update(3, 3, "done")
        return "result"

    try:
        def shown(d, t, m):
            seen.append((d, t, m))
            first_shown.set()
        worker.run(job, results.append, on_progress=shown)
        # the throttled second update is delivered late, not dropped, while the job still waits
        qtbot.waitUntil(lambda: bool(seen) and seen[-1] == (1, 3, "second step"), timeout=10_000)
        assert seen == [(0, 3, "first step"), (1, 3, "second step")] and not results
    finally:
        first_shown.set()
        go_on.set()
    qtbot.waitUntil(lambda: results == ["result"], timeout=10_000)
    n = len(seen)
    qtbot.wait(int(3 * PROGRESS_INTERVAL * 1000))  # any delivery still queued has had its time
    assert len(seen) == n  # nothing arrives after the result
    worker.wait(5_000)


def test_a_flood_of_updates_is_coalesced(qtbot):
    worker = Worker()
    seen, results = [], []

    def job(progress):
        for i in range(20_000):
            progress.update(i, 20_000, f"item {i}")
        return "ok"

    worker.run(job, results.append, on_progress=lambda d, t, m: seen.append(d))
    qtbot.waitUntil(lambda: results == ["ok"], timeout=30_000)
    assert len(seen) < 2_000 and seen == sorted(seen)  # at most one pending delivery at a time
    worker.wait(5_000)
