"""Two sasc-desktop processes share state.json: each save merges this process's changes into the
file as it is now (recent projects and queries: the union, this process's new ones first; the
last project and the window geometry only when this process changed them), under a lock, through
a temporary file of its own. The reviewer's case: a window closed later wrote back the whole
state it had read at start, and the other window's recent projects, queries and last project
were lost. Real files, real processes."""
from __future__ import annotations

import json
import os
import subprocess
import sys

from gui_support import open_project, search, wait_idle


def _state():
    from sasc_desktop.gui.config import AppState
    return AppState()


def _file() -> dict:
    from sasc_desktop.gui.config import config_dir
    return json.loads((config_dir() / "state.json").read_text(encoding="utf-8"))


def test_two_states_read_at_start_keep_each_others_changes():
    first = _state()
    first.project_opened("/p/base")
    a, b = _state(), _state()                         # two processes start
    a.project_opened("/p/a")
    a.add_query("gas")
    b.project_opened("/p/b")
    b.add_query("power")
    saved = _file()
    assert saved["recent"] == ["/p/b", "/p/a", "/p/base"]     # was ["/p/b", "/p/base"]: /p/a lost
    assert saved["history"] == ["power", "gas"] and saved["last_project"] == "/p/b"
    assert b.recent == ["/p/b", "/p/a", "/p/base"] and b.history == ["power", "gas"]
    # a closes later: only its geometry changed, so b's last project and queries stay
    a.data["geometry"] = "QUFB"
    a.save()
    saved = _file()
    assert saved["last_project"] == "/p/b" and saved["geometry"] == "QUFB"   # was /p/a
    assert saved["history"] == ["power", "gas"] and saved["recent"][0] == "/p/b"
    # b changes its geometry, forgets /p/a; a's next query keeps both
    b.data["geometry"] = "QkJC"
    b.forget_project("/p/a")
    a.add_query("budget")
    saved = _file()
    assert saved["geometry"] == "QkJC" and "/p/a" not in saved["recent"]
    assert saved["history"] == ["budget", "power", "gas"]
    from sasc_desktop.gui.config import config_dir
    assert sorted(p.name for p in config_dir().iterdir() if "state" in p.name) == ["state.json", "state.json.lock"]


WRITER = """
import sys
from sasc_desktop.gui.config import AppState
state = AppState()                  # read at start, as the app does
name = sys.argv[1]
print("ready", flush=True)
sys.stdin.readline()                # both have read the file before either writes
for i in range(20):
    state.add_query(f"{name}{i}")
    if i % 5 == 0:
        state.project_opened(f"/p/{name}{i}")
print("done", flush=True)
"""


def test_two_processes_saving_at_once_lose_nothing():
    env = dict(os.environ)
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, name], env=env, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for name in ("a", "b")]
    assert [p.stdout.readline() for p in procs] == ["ready\n", "ready\n"]
    for p in procs:
        p.stdin.write("go\n")
        p.stdin.flush()
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    assert all("cannot save app state" not in err for _, err in outs)
    saved = _file()
    assert sorted(saved["history"]) == sorted(f"{n}{i}" for n in "ab" for i in range(20))   # all 40 kept
    assert sorted(saved["recent"]) == sorted(f"/p/{n}{i}" for n in "ab" for i in (0, 5, 10, 15))
    assert saved["last_project"] in ("/p/a15", "/p/b15")


def test_a_window_closed_later_keeps_the_other_windows_projects_and_queries(qtbot, project):
    """The reviewer's f6: window A starts, window B (another process) opens a project and searches
    and closes; A closes later. B's project and query are kept, and B's last project."""
    from sasc_desktop.gui.config import AppState
    from sasc_desktop.gui.mainwindow import MainWindow
    a = MainWindow(AppState())
    qtbot.addWidget(a)
    a.show()
    b_state = AppState()                               # the other process's state, read at its start
    b = MainWindow(b_state)
    qtbot.addWidget(b)
    b.show()
    open_project(qtbot, b, project)
    search(qtbot, b, "topic")
    b.close()
    wait_idle(qtbot, b)
    a.close()
    wait_idle(qtbot, a)
    saved = _file()
    assert saved["recent"] == [str(project)] and saved["last_project"] == str(project)   # were lost
    assert saved["history"] == ["topic"]
