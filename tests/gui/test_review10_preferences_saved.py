"""Preferences, review 10 (a real project, real settings): "Preferences saved" stays in the status
bar after the search shown is run again, with what the search said beside it (it was replaced at
once by "Searching for …", then "N messages match", as a training's finish message is not)."""
from __future__ import annotations

from sasc_desktop.engine.session import Session

from gui_support import open_prefs, open_project, save_prefs, search




def test_the_confirmation_follows_the_search_run_again(qtbot, window, project):
    open_project(qtbot, window, project)
    search(qtbot, window, "topic")
    total = window.search_panel.total
    assert total > 0
    dlg = open_prefs(qtbot, window)
    dlg.weights["subject"].setValue(4.0)
    save_prefs(qtbot, window, dlg)
    # was "N messages match": "Preferences saved" was shown for an instant, then replaced
    assert window.message_label.text() == f"Preferences saved · {total:,} messages match"
    with Session.open(project) as s:
        assert s.settings()["field_weights"]["subject"] == 4.0
    window.close()


def test_the_confirmation_without_a_search(qtbot, window, project):
    open_project(qtbot, window, project)
    dlg = open_prefs(qtbot, window)
    dlg.weights["body"].setValue(2.0)
    save_prefs(qtbot, window, dlg)
    assert window.message_label.text() == "Preferences saved"
    window.close()
