"""Worker processes never outlive the app that started them: killed with SIGKILL (no atexit,
no cleanup), its pool's workers, fork server and resource tracker all exit. Real processes."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest

from sasc_desktop.engine.procpool import process_pool

APP = textwrap.dedent("""
    import os, sys, time
    from sasc_desktop.engine.procpool import process_pool
    if __name__ == "__main__":
        pool = process_pool(2, method=sys.argv[1])
        pids = set()
        while len(pids) < 2:  # both workers started and busy once
            pids |= set(pool.map(time.sleep, [0.2, 0.2]) and pool._processes)
        print(" ".join(map(str, sorted(pids))), flush=True)
        time.sleep(600)       # killed long before this ends
""")


def marked(marker: str) -> list[int]:
    """Processes whose environment carries ``marker`` (the app and everything it started)."""
    found = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if marker.encode() in (d / "environ").read_bytes():
                    found.append(int(d.name))
            except OSError:  # gone meanwhile, or not ours
                pass
    return found


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs Linux /proc")
@pytest.mark.parametrize("method", ["forkserver", "fork"])
def test_a_killed_app_leaves_no_processes(tmp_path, method):
    marker = f"SASC_POOL_TEST={uuid.uuid4().hex}"
    env = {**os.environ, marker.split("=")[0]: marker.split("=")[1]}
    script = tmp_path / "app.py"
    script.write_text(APP)
    app = subprocess.Popen([sys.executable, str(script), method], stdout=subprocess.PIPE, text=True, env=env,
                           cwd=Path(__file__).resolve().parents[2])
    try:
        workers = [int(p) for p in app.stdout.readline().split()]
        assert len(workers) == 2
        started = marked(marker)
        assert app.pid in started and set(workers) <= set(started)
        if method == "forkserver":  # the fork server and the resource tracker are there as well
            assert len(started) >= 4
    finally:
        os.kill(app.pid, signal.SIGKILL)
        app.wait()
    deadline = time.monotonic() + 30
    while marked(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = marked(marker)
    for pid in left:  # do not leave them behind for the next test either
        os.kill(pid, signal.SIGKILL)
    assert left == [], f"processes left behind by the killed app: {left}"


def test_the_pool_runs_work_and_its_initializer(tmp_path):
    with process_pool(2, initializer=os.chdir, initargs=(str(tmp_path),)) as pool:
        assert list(pool.map(pow, [2, 3], [10, 2])) == [1024, 9]
        assert {pool.submit(os.getcwd).result() for _ in range(4)} == {str(tmp_path)}


def test_pid_alive():
    from sasc_desktop.engine.procpool import pid_alive
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    assert pid_alive(os.getpid()) and pid_alive(os.getppid())
    assert not pid_alive(int(gone.stdout))


# Ctrl+C -------------------------------------------------------------------------------------
# A terminal's Ctrl+C sends SIGINT to every process of the group: the app and its workers. A
# worker ignores it between tasks (interrupted in the pool's plumbing it used to leave half a
# message in a pipe, hanging the app) and ends the task it runs with KeyboardInterrupt; the
# app's pool bookkeeping holds it off until done (deferred_interrupts).

def _wait_for_file(start: str, go: str, value):
    """A task: say it runs (``start``), then wait until told to finish (``go``)."""
    Path(start).touch()
    while not Path(go).exists():
        time.sleep(0.01)
    return value


def _wait_until(predicate, what: str) -> None:
    deadline = time.monotonic() + 60  # only how long a hang is waited for
    while not predicate():
        assert time.monotonic() < deadline, f"never happened: {what}"
        time.sleep(0.01)


def test_a_worker_ignores_ctrl_c_between_tasks_and_ends_the_task_it_runs_with_it(tmp_path):
    with process_pool(2) as pool:
        assert list(pool.map(pow, [2, 3], [10, 2])) == [1024, 9]
        workers = set(pool._processes)
        for pid in workers:  # idle: waiting on the call queue
            os.kill(pid, signal.SIGINT)
        assert [pool.submit(pow, 2, n).result() for n in range(6)] == [1, 2, 4, 8, 16, 32]
        running = pool.submit(_wait_for_file, str(tmp_path / "start"), str(tmp_path / "go"), "done")
        _wait_until((tmp_path / "start").exists, "the task started")
        for pid in workers:  # one runs the task, the other is idle
            os.kill(pid, signal.SIGINT)
        with pytest.raises(KeyboardInterrupt):
            running.result(timeout=60)
        assert pool.submit(pow, 3, 3).result() == 27
        assert set(pool._processes) == workers and all(p.is_alive() for p in pool._processes.values())


def test_shutdown_waits_for_the_workers_through_a_ctrl_c_and_then_raises_it(tmp_path):
    import threading
    pool = process_pool(1)
    task = pool.submit(_wait_for_file, str(tmp_path / "start"), str(tmp_path / "go"), 42)
    _wait_until((tmp_path / "start").exists, "the task started")
    workers = list(pool._processes.values())

    def press_during_shutdown():
        _wait_until(lambda: pool._shutdown_thread, "the shutdown began")
        os.kill(os.getpid(), signal.SIGINT)  # to this process only: the task goes on
        (tmp_path / "go").touch()
    presser = threading.Thread(target=press_during_shutdown)
    presser.start()
    with pytest.raises(KeyboardInterrupt):
        pool.shutdown(wait=True)
    presser.join()
    assert task.result() == 42
    assert not any(p.is_alive() for p in workers)  # waited for, not cut short


def test_deferred_interrupts_hold_ctrl_c_to_the_end_of_the_block():
    from sasc_desktop.engine.procpool import deferred_interrupts
    reached = []
    with pytest.raises(KeyboardInterrupt):
        with deferred_interrupts() as held:
            signal.raise_signal(signal.SIGINT)
            signal.raise_signal(signal.SIGINT)
            reached.append("end of the block")
    assert reached == ["end of the block"] and held.received == 2
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler

    with deferred_interrupts() as quiet:
        pass
    assert quiet.received == 0


def test_deferred_interrupts_do_not_repeat_a_ctrl_c_already_on_its_way_out():
    from sasc_desktop.engine.procpool import deferred_interrupts
    with pytest.raises(KeyboardInterrupt, match="the first"):
        try:
            raise KeyboardInterrupt("the first")
        finally:
            with deferred_interrupts() as held:  # cleanup, pressed again meanwhile
                signal.raise_signal(signal.SIGINT)
    assert held.received == 1


def test_deferred_interrupts_nest_and_a_late_press_is_not_held(monkeypatch):
    from sasc_desktop.engine import procpool
    reached = []
    with pytest.raises(KeyboardInterrupt):
        with procpool.deferred_interrupts() as outer:
            with procpool.deferred_interrupts() as inner:
                signal.raise_signal(signal.SIGINT)
            reached.append("after the inner block")  # handed to the outer one, still held
    assert reached == ["after the inner block"] and (inner.received, outer.received) == (1, 1)

    monkeypatch.setattr(procpool, "DEFER_SECONDS", -1.0)  # every press after the first is late
    with pytest.raises(KeyboardInterrupt):
        with procpool.deferred_interrupts():
            signal.raise_signal(signal.SIGINT)
            reached.append("held")
            signal.raise_signal(signal.SIGINT)
            reached.append("not reached")
    assert reached == ["after the inner block", "held"]


def test_deferred_interrupts_do_nothing_outside_the_main_thread():
    import threading
    from sasc_desktop.engine.procpool import deferred_interrupts
    seen = []

    def run():
        with deferred_interrupts() as held:
            seen.append(signal.getsignal(signal.SIGINT))
        seen.append(held.received)
    t = threading.Thread(target=run)
    t.start()
    t.join()
    assert seen == [signal.default_int_handler, 0]


def test_try_lock_file_tells_held_from_cannot_lock(tmp_path):
    from sasc_desktop.engine.procpool import lock_file, try_lock_file, unlock_file
    path = tmp_path / "x.lock"
    assert try_lock_file(path, create=False) == (None, False)  # no such file
    fd, held = try_lock_file(path)
    assert fd is not None and not held
    try:
        # another open file of the same process is refused too (locks belong to open files)
        assert try_lock_file(path) == (None, True)
        assert lock_file(path) is None
        # and another process sees it held
        code = ("import sys; from sasc_desktop.engine.procpool import try_lock_file; "
                "sys.exit(0 if try_lock_file(sys.argv[1]) == (None, True) else 1)")
        assert subprocess.run([sys.executable, "-c", code, str(path)], timeout=60).returncode == 0
    finally:
        unlock_file(fd)
    fd, held = try_lock_file(path, create=False)
    assert fd is not None and not held
    unlock_file(fd)
    assert try_lock_file(tmp_path / "missing" / "x.lock") == (None, False)  # cannot be made


IGNORING_APP = textwrap.dedent("""
    import os, signal, sys, time
    from sasc_desktop.engine.procpool import deferred_interrupts, process_pool
    if __name__ == "__main__":
        assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN  # started so (nohup, a background job)
        with deferred_interrupts():
            assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN  # stays ignored in the block
        with process_pool(1) as pool:
            running = pool.submit(time.sleep, 1.5)
            time.sleep(0.5)
            os.killpg(os.getpgid(0), signal.SIGINT)  # to the app and its worker
            running.result()                          # not interrupted
            print("done", flush=True)
""")


def test_a_process_started_with_ctrl_c_ignored_keeps_it_ignored_in_its_workers(tmp_path):
    script = tmp_path / "ignoring.py"
    script.write_text(IGNORING_APP)
    env = dict(os.environ, SASC_BLOCK_QT="1", PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120,
                         start_new_session=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    assert (run.returncode, run.stdout) == (0, "done\n"), run.stderr
