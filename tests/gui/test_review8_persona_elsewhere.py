"""The active persona changed outside this window (`sasc settings DIR --set active_persona=...` in
a terminal, or Preferences in a second window): what the window shows agrees with what it
computes. The status bar names the persona whose sensitivity the results and the message show
(the project's info is read afresh with a search or a message when another connection has
committed: SQLite's data_version), and a model quality check runs for the persona its window
names. The reviewer's case: the status bar said Holly while the Sens. column, the evidence box
and the quality figures were John's. Real projects, the real command line in another process."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sasc_desktop.engine.session import Session

from gui_support import make_mbox, open_doc, open_project, search, wait_idle, wait_until

HOLLY, SECOND = "holly-palmer", "second"


def build(tmp: Path, n: int = 90) -> Path:
    """Two personas, both judged (Holly: salary or doctor; Second: budget or gas), Holly active."""
    from sasc_desktop.engine.project.judgments import save_personas, save_sensitivity
    root = tmp / "judged"
    with Session.create(root) as s:
        s.ingest([make_mbox(tmp / "judged.mbox", n)], workers=0)
        save_personas(s.store, [{"id": HOLLY, "name": "Holly Palmer"}, {"id": SECOND, "name": "Second Reader"}])
        docs = [(r[0], r[1]) for r in s.store.con.execute("SELECT doc_id, body FROM messages ORDER BY id")]
        rows = []
        for i, (d, b) in enumerate(docs):
            rows.append((HOLLY, "", d, int(any(w in b for w in ("salary", "doctor"))) ^ int(i % 4 == 0)))
            rows.append((SECOND, "", d, int(any(w in b for w in ("budget", "gas"))) ^ int(i % 5 == 0)))
        save_sensitivity(s.store, rows)
        s.update_settings(active_persona=HOLLY)
    return root


@pytest.fixture
def judged(tmp_path) -> Path:
    return build(tmp_path)


def set_active_elsewhere(root: Path, persona: str) -> None:
    """As in a terminal: another process, another connection."""
    run = subprocess.run([sys.executable, "-m", "sasc_desktop.cli", "settings", str(root), "--set",
                          f"active_persona={json.dumps(persona)}"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr


def test_the_status_bar_follows_a_persona_made_active_elsewhere(qtbot, window, judged):
    open_project(qtbot, window, judged)
    assert window.persona_label.text() == "Persona: Holly Palmer"
    set_active_elsewhere(judged, SECOND)
    search(qtbot, window, "topic")                       # its Sens. column is Second Reader's
    assert window.persona_label.text() == "Persona: Second Reader"   # was Holly Palmer
    assert window.info["settings"]["active_persona"] == SECOND
    set_active_elsewhere(judged, HOLLY)
    open_doc(qtbot, window, window.search_panel.model.hits[0].doc_id)   # a message alone (no search)
    assert window.doc_view.doc["sensitivity"]["persona"] == HOLLY
    assert window.persona_label.text() == "Persona: Holly Palmer"    # was Second Reader
    # nothing changed: nothing read again (the same info object)
    info = window.info
    search(qtbot, window, "budget")
    assert window.info is info
    window.close()


def test_a_quality_check_runs_for_the_persona_its_window_names(qtbot, window, judged):
    open_project(qtbot, window, judged)
    dlg = window.show_quality()
    wait_idle(qtbot, window)
    assert "Persona: Holly Palmer" in dlg.persona_label.text()
    set_active_elsewhere(judged, SECOND)               # after the window was drawn, before Run
    with qtbot.waitSignal(window.quality_checked, timeout=300_000) as sig:
        dlg.run()
    wait_idle(qtbot, window)
    assert sig.args[0]["persona"] == HOLLY and sig.args[0]["persona_name"] == "Holly Palmer"  # was Second's
    assert dlg.value["persona"] == HOLLY
    with Session.open(judged) as s:                    # the figures are Holly's: the engine's own
        expected = s.cross_validate_classifier(HOLLY, folds=5, optimise="f1", kind=dlg.options()["kind"], seed=0)
    assert dlg.value["result"]["f1"] == expected["f1"] and dlg.value["result"]["n"] == expected["n"]
    # once the window has read the change (a search), the dialog names Second Reader, and runs for it
    search(qtbot, window, "topic")
    assert "Persona: Second Reader" in dlg.persona_label.text()
    with qtbot.waitSignal(window.quality_checked, timeout=300_000) as sig:
        dlg.run()
    wait_idle(qtbot, window)
    assert sig.args[0]["persona"] == SECOND
    window.close()


def test_a_persona_removed_elsewhere_is_said_not_checked_under_another_name(qtbot, window, judged):
    open_project(qtbot, window, judged)
    dlg = window.show_quality()
    wait_idle(qtbot, window)
    with Session.open(judged) as s:                    # another program leaves only Second Reader
        with s.store.transaction() as con:
            con.execute("DELETE FROM sensitivity WHERE persona = ?", (HOLLY,))
            con.execute("DELETE FROM personas WHERE id = ?", (HOLLY,))
    dlg.run()
    wait_until(lambda: not dlg.running, 120, "the check to end")
    wait_idle(qtbot, window)
    assert dlg.value is None and "no longer in this project" in dlg.status.text()
    assert "Persona: Second Reader" in dlg.persona_label.text()       # the persona a check now covers
    window.close()
