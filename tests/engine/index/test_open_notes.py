"""What opening a project did that the user should know (Session.notes: the search index rebuilt,
and why) is printed by the command line once, as 'sasc: note: ...' on stderr, by every command
that opens a project, beside its results or JSON on stdout; the engine no longer logs it."""
from __future__ import annotations

import json
import logging
import shutil
import subprocess
import sys

import pytest
from mailfactory import ingested_project

from sasc_desktop.engine.session import Session

REBUILT = "; it was rebuilt from the project's database"


@pytest.fixture
def missing_index(tmp_path):
    s = ingested_project(tmp_path, [dict(message_id=f"<n{i}@x>", subject=f"power {i}", body="gas") for i in range(3)])
    root = s.root
    s.close()
    shutil.rmtree(root / "index")
    return root


def sasc(*args):
    return subprocess.run([sys.executable, "-m", "sasc_desktop.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=120)


@pytest.mark.parametrize("command", [["search", "{root}", "power", "--json"], ["stats", "{root}"],
                                     ["personas", "{root}"], ["settings", "{root}"]])
def test_every_command_prints_the_note_once_on_stderr(missing_index, command):
    root = missing_index
    run = sasc(*[a.format(root=root) for a in command])
    assert run.returncode == 0, run.stderr
    assert run.stderr == f"sasc: note: the search index at {root / 'index'} was missing{REBUILT}\n"
    if "--json" in command:
        assert json.loads(run.stdout)["total"] == 3
    again = sasc(*[a.format(root=root) for a in command])
    assert (again.returncode, again.stderr) == (0, "")     # rebuilt: nothing more to say


def test_the_engine_records_the_note_and_logs_nothing(missing_index, caplog):
    with caplog.at_level(logging.DEBUG):
        with Session.open(missing_index) as s:
            assert s.notes == [f"the search index at {missing_index / 'index'} was missing{REBUILT}"]
    assert caplog.records == []
