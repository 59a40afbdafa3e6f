"""Starting the app: bad command-line values are said plainly (no traceback), and a state file
or config folder that is not what the app wrote (wrong types, a file where the folder goes)
never stops it from starting: the bad values fall back to the defaults, with a warning."""
from __future__ import annotations

import json
import logging
import sys

import pytest

from sasc_desktop.gui.main import parse_args


# ----------------------------------------------------------------------------- --size
@pytest.mark.parametrize("text, size", [("800x600", (800, 600)), ("1280X800", (1280, 800)), (" 1x1 ", (1, 1))])
def test_size_reads_w_x_h(text, size):
    from sasc_desktop.gui.main import window_size
    assert window_size(text) == size
    assert parse_args(["--size", text]).size == size


def test_the_default_size():
    assert parse_args([]).size == (1280, 800)


@pytest.mark.parametrize("bad", ["800", "800x", "x600", "wide", "800x600x2", "0x600", "-5x10", "1.5x2"])
def test_a_bad_size_is_refused_by_the_parser(bad, capsys):
    with pytest.raises(SystemExit) as exit_:
        parse_args([f"--size={bad}"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "--size" in err and ("WxH expected" in err or "at least 1 pixel" in err)


@pytest.mark.parametrize("bad", ["800", "wide"])
def test_a_bad_size_is_a_usage_error_saying_w_x_h(bad, capsys, qapp, tmp_path, monkeypatch):
    from sasc_desktop.gui.main import run
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    with pytest.raises(SystemExit) as exit_:
        run(["--screenshot", str(tmp_path / "x.png"), "--size", bad])   # was: ValueError traceback for "800"
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "--size" in err and "WxH expected" in err and "Traceback" not in err


# ----------------------------------------------------------------------------- state.json
def _write_state(content) -> None:
    from sasc_desktop.gui.config import config_dir
    config_dir().mkdir(parents=True, exist_ok=True)
    (config_dir() / "state.json").write_text(json.dumps(content), encoding="utf-8")


BAD_STATES = {
    "history": ({"history": 5}, "history"),
    "geometry": ({"geometry": 5, "splitter": ["x"]}, "geometry"),
    "last_project": ({"last_project": 5, "recent": []}, "last_project"),
    "recent": ({"recent": "/some/project"}, "recent"),
    "garbled geometry": ({"geometry": "!!!not base64", "splitter": "zzz"}, None),
    "nested": ({"history": {"q": 1}, "recent": [1, None, "/kept"], "last_project": ["/x"]}, "history"),
}


@pytest.mark.parametrize("case", sorted(BAD_STATES))
def test_a_state_file_with_wrong_types_falls_back_to_the_defaults(case, qtbot, caplog, monkeypatch):
    from sasc_desktop.gui.config import AppState
    from sasc_desktop.gui.main import start
    from sasc_desktop.gui.mainwindow import MainWindow
    content, key = BAD_STATES[case]
    _write_state(content)
    with caplog.at_level(logging.WARNING, logger="sasc_desktop"):
        state = AppState()
    if key is not None:                                        # said in the log, naming the key
        assert any(f"'{key}' should be" in r.getMessage() for r in caplog.records), caplog.text
    assert isinstance(state.history, list) and all(isinstance(q, str) for q in state.history)
    assert state.recent in ([], ["/kept"])                    # was: ['/', 's', 'o', 'm', 'e', ...]
    assert state.last_project is None
    win = MainWindow(state)                                    # was: TypeError / AttributeError
    qtbot.addWidget(win)
    assert (win.width(), win.height()) == (1280, 800)
    assert win.search_panel.query_box.count() == 0
    opened = []
    monkeypatch.setattr(win, "open_demo", lambda: opened.append("demo"))
    monkeypatch.setattr(win, "open_project", lambda root: opened.append(root))
    start(win, None)                                           # was: TypeError for last_project 5
    assert opened == ["demo"]
    state.add_query("budget")                                  # and the app goes on saving its state
    state.project_opened("/a/project")
    again = AppState()
    assert again.history == ["budget"] and again.recent[0] == "/a/project"


def test_a_good_state_file_is_read_as_it_was_written(qtbot):
    from sasc_desktop.gui.config import AppState
    state = AppState()
    state.project_opened("/p/one")
    state.project_opened("/p/two")
    state.add_query("gas")
    again = AppState()
    assert (again.recent, again.last_project, again.history) == (["/p/two", "/p/one"], "/p/two", ["gas"])


def test_a_config_folder_that_is_a_file_runs_without_a_log(project, qtbot, tmp_path, monkeypatch, capsys):
    """SASC_CONFIG_DIR names a file: the app starts, works, and exits 0; it has no log file and
    its error dialogs say so instead of naming a log that does not exist."""
    from PySide6.QtGui import QImage
    from sasc_desktop.gui.config import config_dir, log_problem, setup_logging
    from sasc_desktop.gui.errors import show_error
    from sasc_desktop.gui.main import run
    from sasc_desktop.engine.errors import SascError
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the config folder goes")
    monkeypatch.setenv("SASC_CONFIG_DIR", str(blocker))
    assert config_dir() == blocker
    assert setup_logging() is None                              # was: FileExistsError
    assert str(blocker) in log_problem()
    box = show_error(None, "Searching", SascError("bad query"))
    qtbot.addWidget(box)
    assert "Details are not logged" in box.informativeText() and "cannot be opened" in box.informativeText()
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    png = tmp_path / "shot.png"
    assert run(["--project", str(project), "--screenshot", str(png), "--size", "900x600"]) == 0
    assert QImage(str(png)).width() == 900
    assert blocker.read_text() == "a file where the config folder goes"
    assert "Traceback" not in capsys.readouterr().err
    monkeypatch.setenv("SASC_CONFIG_DIR", str(tmp_path / "cfg"))
    assert setup_logging() == tmp_path / "cfg" / "sasc-desktop.log" and log_problem() is None
