"""The Preferences dialog on a real project: OK refuses what the save would refuse (an internal
domain that is not a domain name) and stays open with every value as typed; a save writes only
what the archivist changed, never a weight the box rounded or clamped."""
from __future__ import annotations

import pytest

from sasc_desktop.engine.errors import InputError
from sasc_desktop.engine.project.judgments import save_personas
from sasc_desktop.engine.session import Session

from gui_support import open_prefs, open_project, pump, wait_idle


def _with_personas(root, **settings):
    with Session.open(root) as s:
        save_personas(s.store, [{"id": "holly-palmer", "name": "Holly Palmer"},
                                {"id": "john-snibert", "name": "John Snibert"}])
        if settings:
            s.update_settings(**settings)
        return s.settings()


def _stored(root):
    with Session.open(root) as s:
        return s.settings()



def test_the_dialog_shares_the_engine_s_domain_check():
    from sasc_desktop.gui.preferences import check_settings
    assert check_settings({"internal_domains": ["Corp.COM", "@corp.co.uk", "corp.com"]}) == {
        "internal_domains": ["corp.com", "corp.co.uk"]}
    with pytest.raises(InputError, match=r"'not a domain' is not a domain name"):
        check_settings({"internal_domains": ["arclight.example.com", "not a domain"]})
    with pytest.raises(InputError, match="are not domain names"):
        check_settings({"internal_domains": ["localhost", "-x.com"]})
    with pytest.raises(InputError, match="finite numbers from 0 to 1,000,000"):
        check_settings({"field_weights": {"subject": -1.0}})


def test_an_invalid_domain_keeps_the_dialog_open_with_every_value(qtbot, window, project):
    before = _with_personas(project)
    open_project(qtbot, window, project)
    dlg = open_prefs(qtbot, window)
    dlg.persona.setCurrentIndex(dlg.persona.findData("john-snibert"))
    dlg.weights["subject"].setValue(3.5)
    dlg.domains.setText("arclight.example.com, not a domain")
    dlg.accept()                                              # OK
    wait_idle(qtbot, window)
    pump(50)
    assert dlg.isVisible() and dlg.result() == 0              # was: closed, then an error dialog, all lost
    assert dlg.error.isVisible()
    assert "'not a domain' is not a domain name" in dlg.error.text()
    assert dlg.error.height() >= dlg.error.heightForWidth(dlg.error.width())   # every line of it in view
    assert [b for b in window.error_dialogs if b.isVisible()] == []
    assert dlg.persona.currentData() == "john-snibert" and dlg.weights["subject"].value() == 3.5
    assert dlg.domains.text() == "arclight.example.com, not a domain"
    assert _stored(project) == before                         # nothing saved
    assert window.persona_label.text() == "Persona: none"
    # typing in the field clears the note; a good value is saved with the rest
    qtbot.keyClicks(dlg.domains, "x")
    assert not dlg.error.isVisible()
    dlg.domains.setText("arclight.example.com, @Example.org")
    with qtbot.waitSignal(dlg.accepted, timeout=5_000):
        dlg.accept()
    wait_idle(qtbot, window)
    assert not dlg.isVisible()
    after = _stored(project)
    assert after["active_persona"] == "john-snibert"
    assert after["internal_domains"] == ["arclight.example.com", "example.org"]
    assert after["field_weights"] == {**before["field_weights"], "subject": 3.5}
    assert window.persona_label.text() == "Persona: John Snibert"


def test_only_what_was_changed_is_saved(qtbot, window, project):
    weights = {"subject": 50.0, "body": 0.125, "attachments": 0.7}
    before = _with_personas(project, field_weights=weights, internal_domains=["corp.com"])
    assert before["field_weights"] == weights
    open_project(qtbot, window, project)
    dlg = open_prefs(qtbot, window)
    # the boxes show the stored weights as they are: no clamp to 20, no rounding to 0.13
    assert dlg.weights["subject"].value() == 50.0 and dlg.weights["body"].value() == 0.125
    assert dlg.weights["subject"].maximum() >= 50.0 and dlg.weights["body"].decimals() >= 3
    assert dlg.values() == {}                                  # nothing changed yet
    dlg.persona.setCurrentIndex(dlg.persona.findData("holly-palmer"))   # the only change
    assert dlg.values() == {"active_persona": "holly-palmer"}
    dlg.accept()
    wait_idle(qtbot, window)
    after = _stored(project)
    assert after["field_weights"] == weights                  # was: subject 20.0, body 0.13
    assert after["internal_domains"] == ["corp.com"] and after["active_persona"] == "holly-palmer"
    # one weight changed: the others stay exactly as stored
    dlg = open_prefs(qtbot, window)
    dlg.weights["attachments"].setValue(1.5)
    assert dlg.values() == {"field_weights": {"subject": 50.0, "body": 0.125, "attachments": 1.5}}
    dlg.accept()
    wait_idle(qtbot, window)
    assert _stored(project)["field_weights"] == {"subject": 50.0, "body": 0.125, "attachments": 1.5}
    # a weight set and set back, the persona chosen again, the domains retyped: nothing to save
    dlg = open_prefs(qtbot, window)
    dlg.weights["body"].setValue(2.0)
    dlg.weights["body"].setValue(0.125)
    dlg.persona.setCurrentIndex(0)
    dlg.persona.setCurrentIndex(dlg.persona.findData("holly-palmer"))
    dlg.domains.setText(" @CORP.com ")
    assert dlg.values() == {}
    dlg.accept()
    wait_idle(qtbot, window)
    assert window.message_label.text() == "Preferences unchanged"


def test_a_large_weight_can_be_kept_and_raised(qtbot, window, project):
    _with_personas(project, field_weights={"subject": 2500.0})
    open_project(qtbot, window, project)
    dlg = open_prefs(qtbot, window)
    assert dlg.weights["subject"].value() == 2500.0 and dlg.weights["body"].maximum() >= 100.0
    dlg.weights["body"].setValue(75.0)
    dlg.accept()
    wait_idle(qtbot, window)
    assert _stored(project)["field_weights"] == {"subject": 2500.0, "body": 75.0, "attachments": 0.7}
