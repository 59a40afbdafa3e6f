"""GUI test fixtures: a real project built from a small generated mbox (no mocks)."""
from __future__ import annotations

from pathlib import Path

import pytest

from sasc_desktop.engine.session import Session
from gui_support import make_mbox


@pytest.fixture
def project(tmp_path) -> Path:
    """A small real project: 60 messages in threads, indexed."""
    mbox = make_mbox(tmp_path / "seed.mbox", 60, html_one=True)
    root = tmp_path / "project"
    with Session.create(root) as s:
        report = s.ingest([mbox], workers=0)
        assert report.ingested == 60
    return root


@pytest.fixture
def window(qtbot):
    from sasc_desktop.gui.config import AppState
    from sasc_desktop.gui.mainwindow import MainWindow
    win = MainWindow(AppState())
    qtbot.addWidget(win)
    win.show()
    yield win
    win.background.wait(30_000)
    win.worker.wait(30_000)
