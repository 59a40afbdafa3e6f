"""The non-modal Import window belongs to the project open now: its title names it, and opening
another project clears what it held for the last one (sources, report, progress, skipped
messages), so that pressing Import never imports the last project's mailboxes into the new one.
An import running when another project is opened ends in the project it started in. Real
projects, real imports."""
from __future__ import annotations


from sasc_desktop.engine.session import Session

from gui_support import make_mbox, open_project, pump, wait_idle, wait_until
from test_search_during_import import HeldImport


def _other_project(tmp_path):
    root = tmp_path / "other"
    with Session.create(root) as s:
        assert s.ingest([make_mbox(tmp_path / "other.mbox", 30, start=900)], workers=0).ingested == 30
    return root


def _count(root) -> int:
    with Session.open(root) as s:
        return s.stats()["messages"]


def _imported(qtbot, window, dlg):
    with qtbot.waitSignal(window.import_finished, timeout=60_000) as sig:
        dlg.start()
    wait_idle(qtbot, window)
    return sig.args[0]


def test_the_import_window_names_its_project_and_is_cleared_when_another_opens(qtbot, window, project, tmp_path):
    other = _other_project(tmp_path)
    open_project(qtbot, window, project)
    dlg = window.show_import([make_mbox(tmp_path / "extra.mbox", 20, start=500, malformed=True)])
    assert dlg.windowTitle() == "Import mail into project"                  # was "Import mail"
    report = _imported(qtbot, window, dlg)
    assert report.ingested == 20 and len(report.skipped) == 1
    assert dlg.skipped_table.isVisible() and dlg.skipped_table.rowCount() == 1
    dlg.add_source(make_mbox(tmp_path / "later.mbox", 10, start=700))        # chosen, not imported yet
    assert _count(project) == 80

    open_project(qtbot, window, other)                                       # the window left open
    assert dlg.isVisible() and dlg.windowTitle() == "Import mail into other"
    assert dlg.source_paths() == [] and dlg.report is None                   # was both mailboxes of 'project'
    assert not dlg.skipped_table.isVisible() and dlg.skipped_table.rowCount() == 0
    assert dlg.progress.value() == 0 and dlg.start_button.isEnabled() and not dlg.cancel_button.isEnabled()
    text = dlg.status.text()
    assert "other is open now: mail is imported into it." in text
    assert "The import into project finished: 20 new messages, 1 skipped." in text
    assert "The mailboxes listed for project were removed." in text

    dlg.start()                                                              # Import pressed at once
    pump(200)
    wait_idle(qtbot, window)
    assert dlg.status.text() == "Add at least one mailbox first."
    assert _count(other) == 30 and _count(project) == 80                     # was 60 in 'other'

    # what is added now goes into the project open now
    dlg.add_source(make_mbox(tmp_path / "more.mbox", 5, start=1500))
    assert _imported(qtbot, window, dlg).ingested == 5
    assert _count(other) == 35 and _count(project) == 80
    window.close()


def test_reopening_the_same_project_keeps_the_sources(qtbot, window, project, tmp_path):
    open_project(qtbot, window, project)
    extra = make_mbox(tmp_path / "extra.mbox", 20, start=500)
    dlg = window.show_import([extra])
    open_project(qtbot, window, project)
    assert dlg.source_paths() == [str(extra)] and dlg.windowTitle() == "Import mail into project"
    assert _imported(qtbot, window, dlg).ingested == 20
    window.close()


def test_sources_chosen_under_an_earlier_project_are_refused(qtbot, window, project, tmp_path):
    """The guard behind the reset: sources stamped with an earlier project generation are never
    imported into the project open now (as if the window had not been reset)."""
    other = _other_project(tmp_path)
    open_project(qtbot, window, project)
    dlg = window.show_import()
    stamped = dlg.project_gen
    assert stamped == window._project_gen
    open_project(qtbot, window, other)
    dlg.add_source(make_mbox(tmp_path / "extra.mbox", 20, start=500))
    dlg.project_gen = stamped                                                # chosen for 'project'
    dlg.start()
    wait_until(lambda: not dlg.running, 60, "the refusal")
    wait_idle(qtbot, window)
    assert "chosen for a project that is no longer open; other is open now" in dlg.status.text()
    assert _count(other) == 30 and not window.error_dialogs
    window.close()


def test_an_import_running_when_another_project_opens_ends_in_its_own_project(qtbot, window, project, tmp_path,
                                                                               monkeypatch):
    other = _other_project(tmp_path)
    open_project(qtbot, window, project)
    dlg = window.show_import([make_mbox(tmp_path / "extra.mbox", 20, start=500)])
    held = HeldImport(monkeypatch)
    dlg.start()
    try:
        wait_until(held.started.is_set, 60, "the import to reach its index commit")
        window.open_project(other)                   # the archivist opens another project meanwhile
        pump(300)
        assert window._importing and dlg.running and window._loading == 1
        assert window.windowTitle() == "project — SASC Desktop"               # it waits for the import
        assert "waiting for the import to finish" in window.message_label.text()
    finally:
        held.release.set()
    wait_until(lambda: window.info and window.info["root"] == str(other), 60, "the other project to open")
    wait_idle(qtbot, window)
    assert _count(project) == 80 and _count(other) == 30   # the import went into the project it started in
    assert dlg.windowTitle() == "Import mail into other" and dlg.source_paths() == []
    assert "The import into project finished: 20 new messages, 0 skipped." in dlg.status.text()
    assert not window.error_dialogs
    window.close()
