"""Preferences, review 10 (real projects, a real trained model): internal domains changed while the
active persona has a trained model change nothing in the sensitivity shown until the model is
retrained (its feature space keeps the domains it was fitted with), and nothing said so. Now the
status bar says it after the save, naming the real menu item that trains, and the dialog's note
says it before."""
from __future__ import annotations

from sasc_desktop.engine.session import Session

from gui_support import open_prefs, open_project, save_prefs, search
from test_train_action import build

HINT = "retrain (Tools ▸ Train sensitivity model…) for the sensitivity to use"




def _probabilities(root, persona):
    from sasc_desktop.engine.classify import probabilities
    with Session.open(root) as s:
        return probabilities(s, persona)


def test_changed_domains_ask_for_a_retraining_when_the_persona_has_a_model(qtbot, window, tmp_path):
    from sasc_desktop.engine.classify import train
    root = build(tmp_path)["root"]
    with Session.open(root) as s:
        train(s, "holly-palmer")
    before = _probabilities(root, "holly-palmer")
    open_project(qtbot, window, root)
    # the menu path named is the real one
    menu = f"{window.tools_menu.title()} ▸ {window.train_action.text()}".replace("&", "")
    assert menu == "Tools ▸ Train sensitivity model…" and menu in HINT
    search(qtbot, window, "topic")
    dlg = open_prefs(qtbot, window)
    note = " ".join(label.text() for label in dlg.findChildren(type(dlg.error)))
    assert "keeps the internal domains it was trained with" in note and menu in note
    dlg.domains.setText("example.com")
    save_prefs(qtbot, window, dlg)
    with Session.open(root) as s:
        assert s.settings()["internal_domains"] == ["example.com"]
    # what the message says is so: the sensitivity is the old model's, unchanged by the new domains
    assert _probabilities(root, "holly-palmer") == before
    total = window.search_panel.total
    assert window.message_label.text() == f"Internal domains saved; {HINT} them · {total:,} messages match"  # was: "N messages match"

    # domains and another setting changed together
    dlg = open_prefs(qtbot, window)
    dlg.domains.setText("example.org")
    dlg.weights["subject"].setValue(3.0)
    save_prefs(qtbot, window, dlg)
    assert window.message_label.text().startswith(f"Preferences saved; {HINT} the new internal domains · ")

    # no change to the domains: no hint
    dlg = open_prefs(qtbot, window)
    dlg.weights["subject"].setValue(2.0)
    save_prefs(qtbot, window, dlg)
    assert window.message_label.text() == f"Preferences saved · {total:,} messages match"
    window.close()


def test_no_hint_without_a_model(qtbot, window, tmp_path):
    root = build(tmp_path)["root"]          # Holly active, judged, never trained
    open_project(qtbot, window, root)
    dlg = open_prefs(qtbot, window)
    dlg.domains.setText("example.com")
    save_prefs(qtbot, window, dlg)
    assert window.message_label.text() == "Preferences saved"
    window.close()
