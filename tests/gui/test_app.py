"""Acceptance tests for the desktop app, offscreen, on real projects built in tmp_path."""
from __future__ import annotations


from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from sasc_desktop.engine.session import Session
from sasc_desktop.gui.document import SafeBrowser

from gui_support import make_mbox, open_project, wait_idle


def test_search_and_open_a_hit(qtbot, window, project):
    open_project(qtbot, window, project)
    assert "60 messages" in window.collection_label.text()
    assert window.persona_label.text() == "Persona: none"
    window.search_panel.query_box.setEditText("budget")
    with qtbot.waitSignal(window.search_done, timeout=30_000) as sig:
        window.search_panel.submit()
    result = sig.args[0]
    assert result.total > 0
    assert window.search_panel.model.rowCount() == min(result.total, 100)
    assert window.search_panel.table.isColumnHidden(2)  # no classifier: sensitivity hidden
    first = result.hits[0]
    # Enter on the selected row opens it
    window.search_panel.table.setFocus()
    window.search_panel.table.setCurrentIndex(window.search_panel.proxy.index(0, 0))
    with qtbot.waitSignal(window.document_shown, timeout=30_000) as opened:
        qtbot.keyClick(window.search_panel.table, Qt.Key.Key_Return)
    assert opened.args[0] == first.doc_id
    doc = window.doc_view.doc["doc"]
    assert doc["doc_id"] == first.doc_id
    assert window.doc_view.doc["body_spans"] or window.doc_view.doc["subject_spans"]
    assert "background-color:#ffe066" in window.doc_view.body.toHtml() or "#ffe066" in window.doc_view.header.text()
    assert window.doc_view.thread_list.count() == len(doc["thread"]) >= 1
    # the query went into the history
    assert window.state.history[0] == "budget"
    assert window.search_panel.query_box.itemText(0) == "budget"


def test_keyboard_j_k_ctrl_f_and_help(qtbot, window, project):
    open_project(qtbot, window, project)
    window.search_panel.query_box.setEditText("topic")
    with qtbot.waitSignal(window.search_done, timeout=30_000):
        window.search_panel.submit()
    hits = [window.search_panel.hit_at(window.search_panel.proxy.index(r, 0)) for r in range(3)]
    window.search_panel.table.setFocus()
    with qtbot.waitSignal(window.document_shown, timeout=30_000) as s1:
        qtbot.keyClick(window.search_panel.table, Qt.Key.Key_J)
    assert s1.args[0] == hits[1].doc_id
    with qtbot.waitSignal(window.document_shown, timeout=30_000) as s2:
        qtbot.keyClick(window.search_panel.table, Qt.Key.Key_J)
    assert s2.args[0] == hits[2].doc_id
    with qtbot.waitSignal(window.document_shown, timeout=30_000) as s3:
        qtbot.keyClick(window.search_panel.table, Qt.Key.Key_K)
    assert s3.args[0] == hits[1].doc_id
    qtbot.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert window.search_panel.query_box.lineEdit().hasFocus() or window.search_panel.query_box.hasFocus()
    # typing j in the query box types it (the shortcut does not steal it)
    qtbot.keyClicks(window.search_panel.query_box.lineEdit(), "j")
    assert window.search_panel.query_box.currentText() == "j"
    assert not window.shortcuts_panel.isVisible()
    window.help_action.trigger()
    assert window.shortcuts_panel.isVisible()
    assert "Ctrl+F" in window.shortcuts_panel.widget().text() and "<b>J</b>" in window.shortcuts_panel.widget().text()


def test_paging_through_large_results(qtbot, window, tmp_path):
    mbox = make_mbox(tmp_path / "big.mbox", 250)
    root = tmp_path / "big"
    with Session.create(root) as s:
        s.ingest([mbox], workers=0)
    open_project(qtbot, window, root)
    window.search_panel.query_box.setEditText("message")
    with qtbot.waitSignal(window.search_done, timeout=30_000) as sig:
        window.search_panel.submit()
    assert sig.args[0].total == 250
    panel = window.search_panel
    assert panel.model.rowCount() == 100 and not panel.prev_button.isEnabled() and panel.next_button.isEnabled()
    with qtbot.waitSignal(window.search_done, timeout=30_000) as sig:
        panel.next_button.click()
    assert [h.rank for h in sig.args[0].hits][:1] == [101]
    with qtbot.waitSignal(window.search_done, timeout=30_000) as sig:
        panel.next_button.click()
    assert len(sig.args[0].hits) == 50 and not panel.next_button.isEnabled()
    assert "201–250 of 250" in panel.summary.text()
    # sorting by date (descending) reorders the page without a new search
    panel.table.sortByColumn(3, Qt.SortOrder.DescendingOrder)
    dates = [panel.hit_at(panel.proxy.index(r, 0)).date for r in range(panel.proxy.rowCount())]
    assert dates == sorted(dates, reverse=True)
    # K at the top of a page goes to the previous page's last hit
    panel.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
    panel.select_row(0, open_it=False)
    with qtbot.waitSignal(window.document_shown, timeout=30_000):
        panel.step(-1)
    wait_idle(qtbot, window)
    assert panel.offset == 100 and panel.current_row() == 99


def test_import_with_a_malformed_message_lists_its_skip_reason(qtbot, window, project, tmp_path):
    open_project(qtbot, window, project)
    mbox = make_mbox(tmp_path / "more.mbox", 10, malformed=True, start=1000)
    dlg = window.show_import([mbox])
    assert dlg.isVisible() and not dlg.isModal()
    with qtbot.waitSignal(window.import_finished, timeout=60_000) as sig:
        dlg.start_button.click()
    report = sig.args[0]
    assert report.ingested == 10 and len(report.skipped) == 1 and not report.cancelled
    assert "Import finished." in dlg.status.text() and "1 skipped" in dlg.status.text()
    assert dlg.skipped_table.isVisibleTo(dlg) and dlg.skipped_table.rowCount() == 1
    assert dlg.skipped_table.item(0, 0).text().endswith("more.mbox#7")  # after the 6th message
    assert "no email headers" in dlg.skipped_table.item(0, 1).text()
    wait_idle(qtbot, window)
    assert "70 messages" in window.collection_label.text()


def test_cancel_an_import_leaves_the_project_consistent(qtbot, window, project, tmp_path):
    open_project(qtbot, window, project)
    mbox = make_mbox(tmp_path / "large.mbox", 4000, start=5000)
    dlg = window.show_import([mbox])
    dlg.start_button.click()
    qtbot.waitUntil(lambda: dlg.progress.maximum() > 1 and dlg.progress.value() > 0, timeout=60_000)
    with qtbot.waitSignal(window.import_finished, timeout=60_000) as sig:
        dlg.cancel_button.click()
    report = sig.args[0]
    assert report.cancelled and report.ingested < 4000
    assert "Import cancelled." in dlg.status.text()
    wait_idle(qtbot, window)
    window.close()  # closes the session on the worker thread
    with Session.open(project) as s:
        stats = s.stats()
        assert stats["unindexed"] == 0
        assert stats["messages"] == 60 + report.ingested
        # every message says "Message number N" except the seed's one HTML message
        assert s.search("message", limit=5).total == stats["messages"] - 1


def test_engine_errors_show_a_dialog_and_the_app_keeps_running(qtbot, window, project, tmp_path):
    # a folder that is not a project: a real ProjectError from Session.open
    not_a_project = tmp_path / "just-a-folder"
    not_a_project.mkdir()
    with qtbot.waitSignal(window.project_failed, timeout=30_000):
        window.open_project(not_a_project)
    box = window.error_dialogs[-1]
    assert box.isVisible() and not box.isModal() or box.windowModality() != Qt.WindowModality.ApplicationModal
    assert "not a SASC project" in box.informativeText()
    assert "ProjectError" in box.detailedText()
    box.close()
    # a malformed query: a real QueryError from the index
    open_project(qtbot, window, project)
    window.search_panel.query_box.setEditText("nosuchfield:budget")
    window.search_panel.submit()
    wait_idle(qtbot, window)
    box = window.error_dialogs[-1]
    assert box.isVisible() and "unknown field 'nosuchfield'" in box.informativeText()
    assert isinstance(box, QMessageBox)
    # the error was logged
    from sasc_desktop.gui.config import log_path
    assert "unknown field" in log_path().read_text()
    # and the app still works
    window.search_panel.query_box.setEditText("budget")
    with qtbot.waitSignal(window.search_done, timeout=30_000) as sig:
        window.search_panel.submit()
    assert sig.args[0].total > 0


def test_safe_browser_never_loads_remote_content(qtbot, window, project):
    browser = SafeBrowser()
    qtbot.addWidget(browser)
    browser.setHtml('<p>x</p><img src="http://tracker.example.com/a.png"><img src="https://x.example/b.png">'
                    '<link rel="stylesheet" href="http://x.example/s.css">')
    browser.grab()  # layout and paint: images are requested now
    assert any(u.startswith("http://tracker.example.com") for u in browser.refused)
    # and an HTML message is shown as text: its markup never reaches the browser
    open_project(qtbot, window, project)
    window.search_panel.query_box.setEditText("html")
    with qtbot.waitSignal(window.search_done, timeout=30_000) as sig:
        window.search_panel.submit()
    with qtbot.waitSignal(window.document_shown, timeout=30_000):
        window.open_document(sig.args[0].hits[0].doc_id)
    assert window.doc_view.doc["doc"]["body_is_html"]
    window.doc_view.grab()
    assert not any("tracker" in u for u in window.doc_view.body.refused)
    assert "HTML message shown as text" in window.doc_view.header.text()


def test_preferences_change_persona_and_weights(qtbot, window, project):
    from sasc_desktop.engine.project.judgments import save_personas
    with Session.open(project) as s:
        save_personas(s.store, [{"id": "holly-palmer", "name": "Holly Palmer"}])
    open_project(qtbot, window, project)
    window.show_preferences()
    qtbot.waitUntil(lambda: window.prefs_dialog is not None and window.prefs_dialog.isVisible(), timeout=30_000)
    dlg = window.prefs_dialog
    dlg.persona.setCurrentIndex(dlg.persona.findData("holly-palmer"))
    dlg.weights["subject"].setValue(3.5)
    dlg.domains.setText("example.com, @Example.org")
    dlg.accept()
    wait_idle(qtbot, window)
    assert window.persona_label.text() == "Persona: Holly Palmer"
    assert window.info["settings"]["field_weights"]["subject"] == 3.5
    assert window.info["settings"]["internal_domains"] == ["example.com", "example.org"]


def test_recent_projects_and_last_project_remembered(qtbot, window, project, tmp_path):
    open_project(qtbot, window, project)
    from sasc_desktop.gui.config import AppState
    state = AppState()
    assert state.last_project == str(project) and state.recent[0] == str(project)
    window._fill_recent()
    assert [a.text() for a in window.recent_menu.actions()] == [str(project)]


def test_new_project_then_import(qtbot, window, tmp_path):
    with qtbot.waitSignal(window.project_loaded, timeout=30_000) as sig:
        window.new_project(tmp_path / "fresh")
    assert sig.args[0]["stats"]["messages"] == 0
    assert window.import_action.isEnabled()


def test_sensitivity_bar_column_shows_the_classifier_probabilities(qtbot, window, tmp_path):
    from sasc_desktop.engine.classify import probabilities_for, train
    from sasc_desktop.engine.project.judgments import save_personas, save_sensitivity
    mbox = make_mbox(tmp_path / "s.mbox", 120)
    root = tmp_path / "sens"
    with Session.create(root) as s:
        s.ingest([mbox], workers=0)
        save_personas(s.store, [{"id": "holly-palmer", "name": "Holly Palmer"}])
        docs = [(r[0], r[1]) for r in s.store.con.execute("SELECT doc_id, body FROM messages")]
        save_sensitivity(s.store, [("holly-palmer", "", d, int("salary" in b or "doctor" in b)) for d, b in docs])
        train(s, "holly-palmer")
        s.update_settings(active_persona="holly-palmer")
    open_project(qtbot, window, root)
    window.search_panel.query_box.setEditText("message")
    with qtbot.waitSignal(window.search_done, timeout=30_000) as sig:
        window.search_panel.submit()
    hits = sig.args[0].hits
    panel = window.search_panel
    assert not panel.table.isColumnHidden(2)
    wait_idle(qtbot, window)
    window.close()
    with Session.open(root) as s:
        expected = probabilities_for(s, "holly-palmer", [h.doc_id for h in hits])
    shown = [panel.model.data(panel.model.index(r, 2)) for r in range(len(hits))]
    assert shown == [f"{p:.2f}" for p in expected]
    panel.table.grab()  # the bar delegate paints without error


def test_screenshot_mode_saves_a_png_and_exits_zero(qtbot, project, tmp_path, monkeypatch):
    import sys
    from PySide6.QtGui import QImage
    from sasc_desktop.gui.main import run
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)  # run() installs its own; restore after
    png = tmp_path / "shot.png"
    assert run(["--project", str(project), "--screenshot", str(png), "--view", "document", "--size", "1000x700"]) == 0
    image = QImage(str(png))
    assert (image.width(), image.height()) == (1000, 700)
    # the screenshot opened the project, so it is now the last project
    from sasc_desktop.gui.config import AppState
    assert AppState().last_project == str(project)


def test_startup_opens_the_last_project(qtbot, window, project):
    from sasc_desktop.gui.main import start
    window.state.project_opened(project)
    with qtbot.waitSignal(window.project_loaded, timeout=30_000) as sig:
        start(window, None)
    assert sig.args[0]["root"] == str(project)
