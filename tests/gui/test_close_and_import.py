"""Closing the window and ending an import, on real projects with real imports:

* work asked for just before the window closes (a preferences save, a refresh, a message to
  open) still runs on the project it was asked for, before the project is closed;
* closing during an import does not freeze the window: it says it is stopping the import,
  cancels it, and closes when the background worker is idle, nothing lost;
* Esc in the Import window is its Close (cancels a running import), and the main window's
  status bar always gives the import's summary when it ends."""
from __future__ import annotations

import logging
import threading

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox

from sasc_desktop.engine.project.judgments import save_personas
from sasc_desktop.engine.session import Session
from sasc_desktop.gui.import_dialog import import_summary

from gui_support import make_mbox, open_project, pump, wait_idle, wait_until


class HeldImport:
    """Holds the importer just after it has stored its first batch of messages (before it
    reports its progress, where a cancel is taken) until released. (Held at its final index
    commit instead, a cancel arriving there makes the engine's Importer raise Cancelled after
    everything was imported: a report of 0 messages for 20 kept; see the report of this change.)"""

    def __init__(self, monkeypatch):
        from sasc_desktop.engine.ingest.importer import Importer
        self.started, self.release = threading.Event(), threading.Event()
        real = Importer._store_whole

        def held(importer, *args, **kwargs):
            value = real(importer, *args, **kwargs)
            self.started.set()
            self.release.wait(60)
            return value
        monkeypatch.setattr(Importer, "_store_whole", held)


def _errors(caplog):
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]


def _hold_worker(window):
    """A job holding the (one-thread) worker until the event is set: what is asked for meanwhile
    is queued behind it, as behind a slow search."""
    gate, holding = threading.Event(), threading.Event()

    def hold(_progress):
        holding.set()
        gate.wait(60)
    window.worker.run(hold, label="Holding the worker")
    wait_until(holding.is_set, 30, "the worker to be held")
    return gate


def test_preferences_saved_just_before_the_window_closes_are_kept(qtbot, window, project, caplog):
    with Session.open(project) as s:
        save_personas(s.store, [{"id": "john-snibert", "name": "John Snibert"}])
    open_project(qtbot, window, project)
    doc = None
    with Session.open(project) as s:
        doc = s.search("topic", limit=1).hits[0].doc_id
    gate = _hold_worker(window)
    window.save_preferences({"active_persona": "john-snibert", "internal_domains": ["example.com"]})
    window.refresh_info()
    window.open_document(doc)
    threading.Timer(0.5, gate.set).start()      # while the close waits for the worker
    with caplog.at_level(logging.INFO, logger="sasc_desktop"):
        assert window.close()
        pump(300)
    assert window.session is None
    with Session.open(project) as s:             # was: AttributeError in the log, the setting not saved
        assert s.settings()["active_persona"] == "john-snibert"
        assert s.settings()["internal_domains"] == ["example.com"]
    assert _errors(caplog) == []
    assert window.error_dialogs == [] and not any(
        isinstance(w, QMessageBox) and w.isVisible() for w in QApplication.topLevelWidgets())


def test_a_project_still_opening_when_the_window_closes_is_closed_too(qtbot, window, project, tmp_path,
                                                                     monkeypatch):
    other = tmp_path / "other"
    with Session.create(other) as s:
        s.ingest([make_mbox(tmp_path / "o.mbox", 5, start=700)], workers=0)
    open_project(qtbot, window, project)
    real_open, real_close, closed = Session.open, Session.close, []
    opening, release = threading.Event(), threading.Event()

    def slow_open(root, progress=None):
        opening.set()
        release.wait(60)
        return real_open(root)                   # (no progress: the close's cancel does not stop it)

    def close(self):
        closed.append(self.root)
        real_close(self)
    monkeypatch.setattr(Session, "open", staticmethod(slow_open))
    monkeypatch.setattr(Session, "close", close)
    window.open_project(other)
    wait_until(opening.is_set, 30, "the other project to be opening")
    threading.Timer(0.5, release.set).start()
    window.close()
    pump(200)
    assert window.session is None
    assert sorted(map(str, closed)) == sorted([str(project), str(other)])   # was: `other` left open


def test_closing_during_an_import_stops_it_and_closes_without_freezing(qtbot, window, project, tmp_path,
                                                                      monkeypatch, caplog):
    open_project(qtbot, window, project)
    dlg = window.show_import([make_mbox(tmp_path / "extra.mbox", 20, start=500)])
    held = HeldImport(monkeypatch)
    safety = threading.Timer(10, held.release.set)   # (the old close waited on the UI thread for it)
    safety.start()
    try:
        dlg.start()
        wait_until(held.started.is_set, 60, "the import to store its first batch")
        closed = window.close()
        # the close came back at once, while the import is still held: the UI thread waited on nothing
        assert not held.release.is_set()
        assert closed is False and window.isVisible()
        assert window.message_label.text().startswith("Stopping the import…")
        assert dlg.task.cancelled and "Cancelling" in dlg.status.text()
        # the window goes on answering meanwhile
        window.search_panel.query_box.setEditText("topic")
        window.flash("still here", 0)
        assert window.message_label.text() == "still here"
        assert window.close() is False           # a second close while stopping: still waiting
        assert window.message_label.text().startswith("Stopping the import…")
    finally:
        held.release.set()
        safety.cancel()
    with caplog.at_level(logging.INFO, logger="sasc_desktop"):
        wait_until(lambda: not window.isVisible(), 60, "the window to close once the import stopped")
        pump(200)
    assert window.session is None and not window.background.busy and not window.worker.busy
    assert dlg.report is not None                # the import's end was reported before the close
    assert _errors(caplog) == [] and window.error_dialogs == []
    with Session.open(project) as s:             # nothing lost, nothing half-done
        st = s.stats()
        assert dlg.report.cancelled and dlg.report.ingested == 20   # (one batch: all of it, kept)
        assert st["unindexed"] == 0 and st["messages"] == 60 + dlg.report.ingested


def test_esc_in_the_import_window_cancels_the_import_like_close(qtbot, window, project, tmp_path, monkeypatch):
    open_project(qtbot, window, project)
    dlg = window.show_import([make_mbox(tmp_path / "extra.mbox", 20, start=500)])
    held = HeldImport(monkeypatch)
    try:
        dlg.start()
        wait_until(held.started.is_set, 60, "the import to store its first batch")
        dlg.activateWindow()
        qtbot.keyClick(dlg, Qt.Key.Key_Escape)
        assert dlg.isVisible() and dlg.task.cancelled       # was: hidden, the import running on
        assert not dlg.cancel_button.isEnabled() and "Cancelling" in dlg.status.text()
    finally:
        held.release.set()
    with qtbot.waitSignal(window.import_finished, timeout=60_000) as sig:
        pass
    wait_idle(qtbot, window)
    report = sig.args[0]
    assert dlg.isVisible() and dlg.report is report and report.cancelled
    assert "Import cancelled." in dlg.status.text()
    assert window.message_label.text() == import_summary(report)   # was: nothing in the main window
    qtbot.keyClick(dlg, Qt.Key.Key_Escape)                           # no import running: Esc closes
    assert not dlg.isVisible()
    with Session.open(project) as s:
        assert s.stats()["unindexed"] == 0 and s.stats()["messages"] == 60 + report.ingested


def test_the_status_bar_gives_the_summary_of_every_import(qtbot, window, project, tmp_path):
    open_project(qtbot, window, project)
    dlg = window.show_import([make_mbox(tmp_path / "more.mbox", 10, malformed=True, start=1000)])
    dlg.close()                                  # not running: the Import window closes
    assert not dlg.isVisible()
    with qtbot.waitSignal(window.import_finished, timeout=60_000):
        dlg.start()
    wait_idle(qtbot, window)
    assert window.message_label.text() == "Import finished: 10 new messages, 1 skipped"
    # the same mailbox again: all duplicates
    with qtbot.waitSignal(window.import_finished, timeout=60_000):
        dlg.start()
    wait_idle(qtbot, window)
    assert window.message_label.text() == "Import finished: 0 new messages, 10 already in the project, 1 skipped"


def test_import_summaries():
    from sasc_desktop.engine.records import IngestReport
    assert import_summary(IngestReport(ingested=250, skipped=[object()] * 3)) == \
        "Import finished: 250 new messages, 3 skipped"
    assert import_summary(IngestReport(ingested=1, duplicates=1)) == \
        "Import finished: 1 new message, 1 already in the project, 0 skipped"
    assert import_summary(IngestReport(cancelled=True, ingested=1200)) == \
        "Import cancelled: 1,200 new messages kept, 0 skipped"
