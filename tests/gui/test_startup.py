"""Starting the app: bad command-line values are said plainly (no traceback), and a state file
or config folder that is not what the app wrote (wrong types, a file where the folder goes)
never stops it from starting: the bad values fall back to the defaults, with a warning."""
from __future__ import annotations

import json
import logging
import os
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
