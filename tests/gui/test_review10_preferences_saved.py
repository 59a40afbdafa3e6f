"""Preferences, review 10 (a real project, real settings): "Preferences saved" stays in the status
bar after the search shown is run again, with what the search said beside it (it was replaced at
once by "Searching for …", then "N messages match", as a training's finish message is not)."""
from __future__ import annotations

from sasc_desktop.engine.session import Session

from gui_support import open_project, search, wait_idle


def _open_prefs(qtbot, window):
    window.prefs_dialog = None
    window.show_preferences()
    qtbot.waitUntil(lambda: window.prefs_dialog is not None and window.prefs_dialog.isVisible(), timeout=30_000)
    return window.prefs_dialog


def _save(qtbot, window, dlg):
    with qtbot.waitSignal(dlg.accepted, timeout=5_000):
        dlg.accept()
    wait_idle(qtbot, window)   # the save, the search run again, the message loaded again: all done


def test_the_confirmation_follows_the_search_run_again(qtbot, window, project):
    open_project(qtbot, window, project)
    search(qtbot, window, "topic")
    total = window.search_panel.total
    assert total > 0
    dlg = _open_prefs(qtbot, window)
    dlg.weights["subject"].setValue(4.0)
    _save(qtbot, window, dlg)
    # was "N messages match": "Preferences saved" was shown for an instant, then replaced
    assert window.message_label.text() == f"Preferences saved · {total:,} messages match"
    with Session.open(project) as s:
        assert s.settings()["field_weights"]["subject"] == 4.0
    window.close()


def test_the_confirmation_without_a_search(qtbot, window, project):
    open_project(qtbot, window, project)
    dlg = _open_prefs(qtbot, window)
    dlg.weights["body"].setValue(2.0)
    _save(qtbot, window, dlg)
    assert window.message_label.text() == "Preferences saved"
    window.close()
