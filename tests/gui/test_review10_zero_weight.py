"""Preferences, review 10 (a real project, the real search): a field weight of 0 leaves that part of
the messages out of the search entirely (the engine searches only the fields weighted above 0), but
the dialog said weights change the ranking only. Now the note says it, each weight box's tooltip
says "0: this part is not searched at all", and a box at 0 reads "0 (not searched)"."""
from __future__ import annotations

from sasc_desktop.engine.session import Session

from gui_support import open_prefs, open_project, search, tip_text, wait_idle



def test_a_weight_of_0_is_said_to_leave_the_part_out_of_the_search(qtbot, window, project):
    open_project(qtbot, window, project)
    search(qtbot, window, "regards")            # a word of every body, in no subject
    found = window.search_panel.total
    assert found == 59                         # (the one HTML message has no "Regards")
    dlg = open_prefs(qtbot, window)
    note = " ".join(label.text() for label in dlg.findChildren(type(dlg.error)))
    assert "a weight of 0 leaves that part out of the search entirely" in note
    for field, box in dlg.weights.items():
        tip = tip_text(box)
        assert "0: this part is not searched at all" in tip and f"{field}:budget" in tip, field
    box = dlg.weights["body"]
    assert box.text() != "0 (not searched)"
    box.setValue(0.0)
    assert box.value() == 0.0 and box.text() == "0 (not searched)"
    with qtbot.waitSignal(dlg.accepted, timeout=5_000):
        dlg.accept()
    wait_idle(qtbot, window)
    with Session.open(project) as s:
        assert s.settings()["field_weights"]["body"] == 0.0
    # what the dialog says is so: the body is not searched, unless the query names it
    assert window.search_panel.total == 0
    search(qtbot, window, "body:regards")
    assert window.search_panel.total == found
    window.close()
