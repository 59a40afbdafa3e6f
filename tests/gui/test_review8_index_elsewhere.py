"""The open window and a `sasc reindex` in another program: while the other program rebuilds the
index, the result line says the results are incomplete (how many messages are being indexed);
when that program is interrupted (Ctrl+C, a kill), the next search finishes the rebuild the way
opening the project does and finds everything again. The reviewer's case: every query answered
'0 messages match' until the project was reopened. A real second process runs the real
Session.reindex, held at its first step (index emptied, every message marked unindexed, the
import lock held) until interrupted."""
from __future__ import annotations

import signal

import pytest

from gui_support import open_project, search
from held_reindex import held_reindex


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGKILL], ids=["ctrl-c", "kill"])
def test_a_rebuild_in_another_program_is_said_and_finished_when_it_is_interrupted(qtbot, window, project, how):
    open_project(qtbot, window, project)
    search(qtbot, window, "topic")
    assert window.search_panel.total == 60
    assert window.message_label.text() == "60 messages match"
    child = held_reindex(project, 60)
    try:
        search(qtbot, window, "topic")                       # while `sasc reindex` runs
        assert window.search_panel.total == 0
        assert window.message_label.text() == ("0 messages match (60 messages are being indexed by another "
                                               "program; the results are incomplete)")   # was "0 messages match"
    finally:
        child.send_signal(how)                               # Ctrl+C in its terminal, or a kill
        child.wait(60)
    assert child.returncode != 0
    search(qtbot, window, "topic")
    assert window.search_panel.total == 60      # was 0 until the project was reopened
    assert window.message_label.text() == "60 messages match"
    search(qtbot, window, "budget")
    assert window.search_panel.total > 0 and not window.error_dialogs
    window.close()
