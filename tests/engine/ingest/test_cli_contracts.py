"""Small CLI contracts the README states: --json where output is printed (reindex, settings),
an action-less group prints its own help, protected search names --limit."""
from __future__ import annotations

import json

import pytest
from mailfactory import mbox, msg

from sasc_desktop.cli import main as sasc
from sasc_desktop.engine.session import Session


@pytest.fixture
def project(tmp_path):
    src = tmp_path / "a.mbox"
    src.write_bytes(mbox([msg(f"s{i}", f"budget note {i}", message_id=f"<c{i}@x>") for i in range(7)]))
    root = tmp_path / "p"
    with Session.create(root) as s:
        s.ingest([src], workers=0)
    return root


def test_reindex_and_settings_take_json(project, capsys):
    assert sasc(["reindex", str(project), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"reindexed": 7}
    assert sasc(["settings", str(project), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["owner_addresses"] == []


def test_classify_without_an_action_prints_the_classify_help(capsys):
    assert sasc(["classify"]) == 2
    out = capsys.readouterr().out
    assert "usage: sasc classify" in out and "cv" in out and "explain" in out


def test_protected_search_names_limit(project, capsys):
    assert sasc(["search", str(project), "budget", "--protect", "relevance", "--persona", "p", "--limit", "0"]) == 2
    assert "--limit must be at least 1, got 0" in capsys.readouterr().err


def test_a_project_that_lost_its_marker_says_how_to_restore_it(project, capsys):
    (project / "sasc-project.json").unlink()
    assert sasc(["stats", str(project)]) == 2
    err = capsys.readouterr().err
    assert "has a project database but no sasc-project.json" in err and '{"format": "sasc-project"}' in err
    (project / "sasc-project.json").write_text('{"format": "sasc-project"}')   # as the message says
    assert sasc(["stats", str(project), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["messages"] == 7
