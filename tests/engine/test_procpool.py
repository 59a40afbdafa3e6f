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
