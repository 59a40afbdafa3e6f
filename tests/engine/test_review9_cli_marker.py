"""A sasc-project.json that is valid JSON but not an object (a list, a string, a number, null)
is a clear error, "... is damaged: not a JSON object", from every command that opens the
project, not an AttributeError traceback (the previous code called .get on it). A real project,
the real CLI, and a real process for the traceback check."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from sasc_desktop.cli import main as sasc
from sasc_desktop.engine.errors import ProjectError
from sasc_desktop.engine.project.layout import MARKER
from sasc_desktop.engine.session import Session


@pytest.mark.parametrize("content", ["[]", '["sasc-project"]', '"sasc-project"', "3", "null", "true"])
def test_a_marker_that_is_not_a_json_object_is_a_clear_error(tmp_path, capsys, content):
    root = tmp_path / "p"
    Session.create(root).close()
    marker = root / MARKER
    marker.write_text(content)
    message = f'{marker} is damaged: not a JSON object (a project\'s is {{"format": "sasc-project"}})'
    with pytest.raises(ProjectError) as err:
        Session.open(root)
    assert str(err.value) == message
    for argv in (["stats", str(root)], ["search", str(root), "budget", "--json"]):
        capsys.readouterr()
        assert sasc(argv) == 2
        assert capsys.readouterr() == ("", f"sasc: error: {message}\n")
    assert marker.read_text() == content                        # left as it was
    marker.write_text(json.dumps({"format": "sasc-project"}))   # what the message says to write
    assert sasc(["stats", str(root), "--json"]) == 0


def test_no_traceback_from_the_command(tmp_path):
    root = tmp_path / "p"
    Session.create(root).close()
    (root / MARKER).write_text("[]")
    p = subprocess.run([sys.executable, "-m", "sasc_desktop.cli", "stats", str(root)], capture_output=True,
                       text=True, timeout=120)
    assert (p.returncode, p.stdout) == (2, "")
    assert p.stderr == f'sasc: error: {root / MARKER} is damaged: not a JSON object (a project\'s is ' \
                       f'{{"format": "sasc-project"}})\n'
