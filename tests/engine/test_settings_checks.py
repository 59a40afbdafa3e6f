"""Every setting is checked before it is stored (the CLI's --set, the GUI's Preferences): a value
of the wrong shape was stored and crashed the next import (owner_addresses=5), silently broke a
rule (a string taken as a set of characters), lost matches (a NaN weight) or made ranking
meaningless (every weight 0). A refused change stores nothing."""
from __future__ import annotations

import json
import math

import pytest

from sasc_desktop.cli import main as sasc
from sasc_desktop.engine.errors import InputError
from sasc_desktop.engine.session import DEFAULT_SETTINGS, Session, check_settings


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "p"
    Session.create(root).close()
    return root


@pytest.mark.parametrize("values, message", [
    ({"field_weights": 3}, "field_weights must be an object of weights"),
    ({"field_weights": None}, "field_weights must be an object of weights"),
    ({"field_weights": [1, 2]}, "field_weights must be an object of weights"),
    ({"field_weights": {"subject": math.nan}}, "finite numbers from 0 to 1,000,000"),
    ({"field_weights": {"subject": math.inf}}, "finite numbers from 0 to 1,000,000"),
    ({"field_weights": {"subject": True}}, "finite numbers from 0 to 1,000,000"),
    ({"field_weights": {"subject": -1}}, "finite numbers from 0 to 1,000,000"),
    ({"field_weights": {"subject": 1e308, "body": 1e308}}, "finite numbers from 0 to 1,000,000"),
    ({"field_weights": {"subject": 10 ** 400}}, "finite numbers from 0 to 1,000,000"),
    ({"field_weights": {"subject": 0, "body": 0, "attachments": 0}}, "at least one must be above 0"),
    ({"owner_addresses": 5}, "owner_addresses must be a list of e-mail addresses"),
    ({"owner_addresses": "donor@x.org"}, "owner_addresses must be a list of e-mail addresses"),
    ({"owner_addresses": ["donor@x.org", "nobody"]}, "'nobody' is not an e-mail address"),
    ({"active_persona": 5}, "active_persona must be a persona id"),
])
def test_a_bad_value_is_refused_with_its_name(values, message):
    with pytest.raises(InputError, match=message):
        check_settings(values)


def test_good_values_are_stored_as_they_will_be_read():
    assert check_settings({"owner_addresses": [" Dana@Corp.com ", "dana@corp.com", "", "d2@corp.co.uk"]}) == {
        "owner_addresses": ["dana@corp.com", "d2@corp.co.uk"]}
    assert check_settings({"field_weights": {"subject": 0, "body": 2}})["field_weights"]["body"] == 2.0
    assert check_settings({"active_persona": None}) == {"active_persona": None}
    assert check_settings({"active_persona": "p1"}, personas=["p1", "p2"]) == {"active_persona": "p1"}
    with pytest.raises(InputError, match=r"unknown persona 'p3'; this project's personas are: p1, p2"):
        check_settings({"active_persona": "p3"}, personas=["p1", "p2"])


def test_the_cli_refuses_and_stores_nothing(project, capsys):
    for bad in ("field_weights=3", 'field_weights={"subject": NaN}', "owner_addresses=5",
                'owner_addresses="donor@x.org"', 'active_persona="nobody"'):
        assert sasc(["settings", str(project), "--set", bad]) == 2, bad
        assert capsys.readouterr().err.startswith("sasc: error: ")
    assert sasc(["settings", str(project)]) == 0
    assert json.loads(capsys.readouterr().out) == {**DEFAULT_SETTINGS, "field_weights": DEFAULT_SETTINGS["field_weights"]}


def test_a_domain_too_long_for_the_dns_is_refused():
    """A label of more than 63 characters or a name of more than 253 was stored as an internal
    domain (no mail can come from one)."""
    label63, label64 = "a" * 63, "a" * 64
    assert check_settings({"internal_domains": [f"{label63}.com"]})["internal_domains"] == [f"{label63}.com"]
    with pytest.raises(InputError, match=r"internal_domains: 'a{37}\.\.\.' is too long for a domain name \(each part "
                                         r"between dots has at most 63 characters, the whole name at most 253\)"):
        check_settings({"internal_domains": [f"{label64}.com"]})
    name253 = ".".join([label63] * 3 + ["b" * 61])            # 63*3 + 61 + 3 dots = 253
    assert len(name253) == 253 and check_settings({"internal_domains": [name253]})["internal_domains"] == [name253]
    with pytest.raises(InputError, match="too long for a domain name"):
        check_settings({"internal_domains": [name253 + "b"]})
