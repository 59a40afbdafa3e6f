"""The app points to what the app can do: opening a folder that is no project says to use
File ▸ New project… (the engine's message, for the CLI, says 'sasc init'); a project without
personas says which command imports the sensitivity judgments that bring them."""
from __future__ import annotations

import html
import shlex
from pathlib import Path

import pytest

from sasc_desktop.engine.errors import ProjectError
from sasc_desktop.engine.session import Session

from gui_support import open_project, pump, tip_text, wait_until

SHOTS = Path("/tmp/s7/gui_fix")


def test_opening_a_folder_that_is_no_project_says_to_use_file_new_project(qtbot, window, tmp_path):
    folder = tmp_path / "notproj"
    folder.mkdir()
    (folder / "readme.txt").write_text("not a project")
    with pytest.raises(ProjectError, match="create one with 'sasc init'"):   # the CLI's words stay
        Session.open(folder)
    with qtbot.waitSignal(window.project_failed, timeout=30_000):
        window.open_project(folder)
    wait_until(lambda: window.error_dialogs, 10, "the error dialog")
    said = window.error_dialogs[-1].informativeText()
    assert "create one with File ▸ New project…" in said and "sasc init" not in said
    assert "File ▸ New project…" in window.doc_view.header.text() and "sasc init" not in window.doc_view.header.text()
    assert "sasc init" not in window.message_label.text()
    window.error_dialogs[-1].close()


def test_a_project_without_personas_names_the_command_that_imports_judgments(qtbot, window, tmp_path):
    root = tmp_path / "new project"          # (a space: the command quotes the folder)
    Session.create(root).close()
    open_project(qtbot, window, root)
    command = f"sasc judgments import {shlex.quote(str(root.resolve()))} --sensitivity FILE"
    tip = tip_text(window.persona_label)
    assert tip.startswith("This project has no personas yet") and command in tip
    assert "sasc judgments import-categories" in tip
    dialog = window.show_quality()
    pump(50)
    text = html.unescape(dialog.persona_label.text())
    assert text.startswith("<b>This project has no personas yet</b>: ") and command in text
    assert not dialog.run_button.isEnabled()
    refused = []
    assert window.check_quality(dialog.options(), lambda *a: None, lambda v: None, refused.append) is None
    assert command in str(refused[0])
    dialog.grab().save(str((SHOTS if SHOTS.is_dir() else tmp_path) / "quality_no_personas.png"))
    dialog.close()
