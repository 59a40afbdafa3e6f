"""Late work of a project being left never lands in the one opened: a search asked for while
another project opens runs on the new one, and an import's end after the window closed reports
nothing. Real projects, real imports."""
from __future__ import annotations

import threading

from PySide6.QtWidgets import QApplication, QMessageBox

from sasc_desktop.engine.session import Session

from gui_support import make_mbox, open_project, pump, wait_idle, wait_until
from test_search_during_import import HeldImport


def _other_project(tmp_path):
    root = tmp_path / "other"
    with Session.create(root) as s:
        assert s.ingest([make_mbox(tmp_path / "other.mbox", 30, start=900)], workers=0).ingested == 30
    return root


def test_a_search_asked_for_while_another_project_opens_searches_that_project(qtbot, window, project, tmp_path,
                                                                              monkeypatch):
    other = _other_project(tmp_path)
    open_project(qtbot, window, project)                        # 60 messages match "topic"
    real, opening, release = Session.open, threading.Event(), threading.Event()

    def slow_open(root, *args, **kwargs):                       # a project that takes a while to open
        opening.set()
        release.wait(60)
        return real(root, *args, **kwargs)
    monkeypatch.setattr(Session, "open", staticmethod(slow_open))
    with qtbot.waitSignal(window.search_done, timeout=60_000) as sig:
        window.open_project(other)                              # queued on the worker first
        wait_until(opening.is_set, 60, "the other project to be opening")
        window.search_panel.query_box.setEditText("topic")
        window.search_panel.submit()                            # before it has opened
        release.set()
    wait_idle(qtbot, window)
    assert sig.args[0].total == 30                              # the project open when it ran (was 60)
    hits = [h.doc_id for h in window.search_panel.model.hits]
    assert len(hits) == 30 and all(int(d[3:].split("@")[0]) >= 900 for d in hits)
    assert window.error_dialogs == []
    window.close()


def test_an_import_ending_after_the_window_closed_reports_nothing(qtbot, window, project, tmp_path, monkeypatch):
    open_project(qtbot, window, project)
    dlg = window.show_import([make_mbox(tmp_path / "extra.mbox", 20, start=500)])
    held = HeldImport(monkeypatch)
    dlg.start()
    wait_until(held.started.is_set, 60, "the import to reach its index commit")
    threading.Timer(0.5, held.release.set).start()              # while closeEvent waits for it
    window.close()
    pump(500)
    wait_until(lambda: not window.background.busy, 60, "the import to end")
    pump(300)
    wait_until(lambda: not window.worker.busy, 60, "what the import's end queued")
    pump(300)
    shown = [w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible()]
    assert shown == [] and window.error_dialogs == []           # was: 'Reading the project did not complete'
    with Session.open(project) as s:                            # and the project is consistent
        st = s.stats()
        assert st["unindexed"] == 0 and st["messages"] in (60, 80)
