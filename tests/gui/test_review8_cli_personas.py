"""Personas imported with the command line while the window is open (as the persona tooltip
tells the archivist to: `sasc judgments import…`) are seen: when the window is activated again
(back from the terminal), when the Tools menu opens, and before a training or a quality check,
the project is read again if another program changed it (SQLite's data_version, one pragma).
Train and Check model quality become available, Ctrl+Shift+T trains, the tooltip stops saying
there are no personas; a `sasc ingest` shows in the collection line. The reviewer's case: all
stayed as they were until the project was reopened. Real projects, the real command line in
another process."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from PySide6.QtWidgets import QWidget

from gui_support import make_mbox, open_project, pump, search, tip_text, wait_idle, wait_until

from sasc_desktop.engine.session import Session


def sasc(*args) -> subprocess.CompletedProcess:
    run = subprocess.run([sys.executable, "-m", "sasc_desktop.cli", *map(str, args)], capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    return run


def import_personas_elsewhere(root: Path, tmp: Path) -> None:
    """`sasc judgments import` in another process: persona Dana, her sensitivity judgments."""
    cards = tmp / "personas.json"
    cards.write_text(json.dumps([{"id": "dana", "name": "Dana Whitfield"}]))
    with Session.open(root) as s:
        docs = [(r[0], r[1]) for r in s.store.con.execute("SELECT doc_id, body FROM messages ORDER BY id")]
    sens = tmp / "sens.txt"
    sens.write_text("".join(f"dana {d} {int(any(w in b for w in ('salary', 'doctor')))}\n" for d, b in docs))
    sasc("judgments", "import", root, "--personas", cards, "--sensitivity", sens)


def come_back(qtbot, window) -> None:
    """The archivist switches to a terminal and back: the window is deactivated and activated."""
    other = QWidget()
    qtbot.addWidget(other)
    other.show()
    other.activateWindow()
    wait_until(other.isActiveWindow, 10, "the other window to be active")
    window.activateWindow()
    wait_until(window.isActiveWindow, 10, "the window to be active again")
    pump(50)
    wait_idle(qtbot, window)


def test_personas_imported_elsewhere_enable_train_when_the_window_is_activated(qtbot, window, project, tmp_path):
    open_project(qtbot, window, project)
    come_back(qtbot, window)
    assert not window.train_action.isEnabled() and not window.quality_action.isEnabled()
    assert "no personas yet" in tip_text(window.persona_label)
    import_personas_elsewhere(project, tmp_path)
    come_back(qtbot, window)
    assert window.train_action.isEnabled() and window.quality_action.isEnabled()     # were disabled
    assert "no personas" not in tip_text(window.persona_label)
    assert tip_text(window.persona_label).startswith("No persona is active")
    with qtbot.waitSignal(window.model_trained, timeout=300_000) as sig:
        window.train_action.trigger()                                                # Ctrl+Shift+T
    wait_idle(qtbot, window)
    assert sig.args[0].n_train == 60
    assert window.message_label.text().startswith("Sensitivity model for Dana Whitfield trained on 60 judged")
    window.close()


def test_the_tools_menu_and_the_actions_read_the_change(qtbot, window, project, tmp_path):
    open_project(qtbot, window, project)
    import_personas_elsewhere(project, tmp_path)
    window.tools_menu.aboutToShow.emit()           # the Tools menu opening
    wait_idle(qtbot, window)
    assert window.train_action.isEnabled() and window.quality_action.isEnabled()
    window.close()


def test_train_model_reads_the_project_before_saying_there_are_no_personas(qtbot, window, project, tmp_path):
    open_project(qtbot, window, project)
    window.train_model()
    wait_idle(qtbot, window)
    assert window.message_label.text().startswith("This project has no personas yet")
    import_personas_elsewhere(project, tmp_path)
    with qtbot.waitSignal(window.model_trained, timeout=300_000):
        assert window.train_model() is None        # it reads the project first, then trains
    wait_idle(qtbot, window)
    assert window.train_action.isEnabled()
    window.close()


def test_the_quality_window_names_a_persona_imported_elsewhere(qtbot, window, project, tmp_path):
    open_project(qtbot, window, project)
    import_personas_elsewhere(project, tmp_path)
    dlg = window.show_quality()                    # (Tools menu: its action enabled once the menu read it)
    wait_idle(qtbot, window)
    assert "Persona: Dana Whitfield" in dlg.persona_label.text() and dlg.run_button.isEnabled()
    window.close()


def test_a_cli_ingest_shows_in_the_collection_line(qtbot, window, project, tmp_path):
    open_project(qtbot, window, project)
    assert "60 messages" in window.collection_label.text()
    sasc("ingest", project, make_mbox(tmp_path / "more.mbox", 20, start=800))
    come_back(qtbot, window)
    assert "80 messages" in window.collection_label.text()                           # was 60
    sasc("ingest", project, make_mbox(tmp_path / "more2.mbox", 10, start=900))
    search(qtbot, window, "topic")                                                    # or with a search
    assert window.search_panel.total == 90 and "90 messages" in window.collection_label.text()
    window.close()
