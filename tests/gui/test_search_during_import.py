"""Searching and reading go on while mail is imported: the import runs on the background worker
(as a training does), and the status bar says that the mail being imported is found once it is
indexed. A real import into a real project, held just before it commits to the index."""
from __future__ import annotations

import threading

from sasc_desktop.engine.session import Session

from gui_support import make_mbox, open_project, pump, wait_idle, wait_until


class HeldImport:
    """Holds the importer just before it commits its index writer (the messages are in the store,
    not yet in the index) until released."""

    def __init__(self, monkeypatch):
        from sasc_desktop.engine.ingest.importer import Importer
        self.started, self.release = threading.Event(), threading.Event()
        real = Importer._commit_index

        def held(importer, *args, **kwargs):
            self.started.set()
            self.release.wait(60)
            return real(importer, *args, **kwargs)
        monkeypatch.setattr(Importer, "_commit_index", held)


def test_search_and_reading_go_on_while_mail_is_imported(qtbot, window, project, tmp_path, monkeypatch):
    from sasc_desktop.gui.mainwindow import DURING_IMPORT
    open_project(qtbot, window, project)
    extra = make_mbox(tmp_path / "extra.mbox", 20, start=500)
    dlg = window.show_import([extra])
    held = HeldImport(monkeypatch)
    dlg.start()
    try:
        wait_until(held.started.is_set, 60, "the import to reach its index commit")
        assert window._importing and dlg.running
        # the archivist searches and reads while the import is held
        panel = window.search_panel
        panel.query_box.setEditText("topic")
        with qtbot.waitSignal(window.search_done, timeout=20_000) as sig:
            panel.submit()
        assert sig.args[0].total == 60  # the index as it was: the new mail is not in it yet
        assert window.message_label.text() == f"60 messages match ({DURING_IMPORT})"
        doc = panel.model.hits[0].doc_id
        with qtbot.waitSignal(window.document_shown, timeout=20_000):
            window.open_document(doc)
        assert window.doc_view.doc["doc"]["doc_id"] == doc
        assert not held.release.is_set() and dlg.running and window._importing  # all of it during the import
        assert not window.train_action.isEnabled() and window.train_model() is None
        window.grab().save(str(tmp_path / "search_during_import.png"))
    finally:
        held.release.set()
    with qtbot.waitSignal(window.import_finished, timeout=60_000) as imp:
        pass
    wait_idle(qtbot, window)
    assert imp.args[0].ingested == 20 and not window._importing
    assert "80 messages" in window.collection_label.text()
    panel.query_box.setEditText("topic")
    with qtbot.waitSignal(window.search_done, timeout=20_000) as sig:
        panel.submit()
    assert sig.args[0].total == 80 and "import" not in window.message_label.text()
    wait_idle(qtbot, window)
    window.close()
    with Session.open(project) as s:
        assert s.stats()["messages"] == 80 and s.stats()["unindexed"] == 0


def test_a_search_that_meets_the_import_s_commit_is_tried_once_more(qtbot, window, project, tmp_path, monkeypatch):
    """An import's commit may merge away index files a search that began just before it reads;
    the search is then run once more (on the index as committed), with no error dialog. The
    race cannot be timed from a test: the first search's read fails as it would."""
    from sasc_desktop.engine.session import Session as S
    open_project(qtbot, window, project)
    dlg = window.show_import([make_mbox(tmp_path / "extra.mbox", 20, start=500)])
    held = HeldImport(monkeypatch)
    real, failures = S.search, []

    def search_once_failing(self, *args, **kwargs):
        if not failures:
            failures.append(1)
            raise FileNotFoundError(2, "No such file or directory", "index/MAIN_x.seg")
        return real(self, *args, **kwargs)
    monkeypatch.setattr(S, "search", search_once_failing)
    dlg.start()
    try:
        wait_until(held.started.is_set, 60, "the import to reach its index commit")
        window.search_panel.query_box.setEditText("topic")
        with qtbot.waitSignal(window.search_done, timeout=20_000) as sig:
            window.search_panel.submit()
        assert failures == [1] and sig.args[0].total == 60
        assert [b for b in window.error_dialogs if b.isVisible()] == []
    finally:
        held.release.set()
    wait_idle(qtbot, window)
    pump(20)
    # when no import runs, such an error is shown, not hidden by a retry
    failures.clear()
    monkeypatch.setattr(S, "search", lambda self, *a, **k: (_ for _ in ()).throw(FileNotFoundError(2, "gone")))
    window.search_panel.submit()
    wait_idle(qtbot, window)
    pump(20)
    assert len([b for b in window.error_dialogs if b.isVisible()]) == 1
