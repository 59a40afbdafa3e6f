"""A project open for reading only (its folder read-only: a read-only medium or share), in the
window (review 10; a real project made read-only for real, offscreen). It opened with no notice,
and Train, Import and Preferences stayed enabled, failing only after use. Now the notice bar and
the status bar say "read-only project: searching and reading only" (and how to get a copy to
change), the window's title says it, and the actions that write are off; searching and reading
work as before, and a writable project opened next has them all back."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from gui_support import open_doc, open_project, search
from test_train_action import build


def _set_immutable(root: Path, on: bool) -> subprocess.CompletedProcess:
    return subprocess.run(["chattr", "-R", "+i" if on else "-i", str(root)], capture_output=True, text=True)


def _writable(root: Path) -> bool:
    probe = root / ".probe"
    try:
        probe.write_text("x")
    except OSError:
        return False
    probe.unlink()
    return True


@pytest.fixture
def read_only(tmp_path):
    """Make a project folder read-only for this process: its files' and folders' modes, or (as
    root, whom modes do not stop) the immutable attribute (chattr +i), as the engine's read-only
    tests do; skipped when neither can be had here. Writable again afterwards."""
    made: list[Path] = []

    def make(root: Path) -> None:
        made.append(root)
        for path in [root, *root.rglob("*")]:
            path.chmod(path.stat().st_mode & ~0o222)
        if _writable(root):   # root: the modes do not stop it
            if shutil.which("chattr") is None or _set_immutable(root, True).returncode:
                pytest.skip("cannot make a folder read-only here (running as root without chattr +i)")
        if _writable(root):
            pytest.skip("the folder stays writable here")
    yield make
    for root in made:
        if shutil.which("chattr"):
            _set_immutable(root, False)
        for path in [root, *root.rglob("*")]:
            path.chmod(path.stat().st_mode | 0o200)


def test_a_read_only_project_says_so_and_turns_off_what_writes(qtbot, window, tmp_path, read_only):
    root = build(tmp_path)["root"]            # personas and judgments: Train would be enabled
    read_only(root)
    open_project(qtbot, window, root)
    note = window.notice_bar.plain_text()
    assert window.notice_bar.isVisible() and note.startswith("Read-only project: searching and reading only (")
    assert "copy the project folder to a place you can write to and open the copy" in note
    assert window.message_label.text() == f"Opened {root}: read-only project: searching and reading only"
    assert "(read-only)" in window.windowTitle()
    assert window.info["read_only"]          # (the engine's reason: the folder is read-only)
    # the actions that write are off (they were enabled, and failed only once used), and say why
    for action in (window.train_action, window.import_action, window.prefs_action):
        assert not action.isEnabled(), action.text()
        assert "open for reading only" in action.statusTip()
    assert window.quality_action.isEnabled()   # a model quality check changes nothing
    assert window.train_model() is None and "read-only project" in window.message_label.text()
    assert window.show_preferences() is None and window.prefs_dialog is None
    assert window.show_import() is None and window.import_dialog is None
    # searching and reading work
    search(qtbot, window, "topic")
    assert window.search_panel.total == 90
    open_doc(qtbot, window, window.search_panel.model.hits[0].doc_id)
    assert window.doc_view.doc is not None

    # a writable project opened next: everything back, the note gone
    other = build(tmp_path / "other")["root"]
    open_project(qtbot, window, other)
    assert not window.notice_bar.isVisible() and "(read-only)" not in window.windowTitle()
    for action in (window.train_action, window.import_action, window.prefs_action):
        assert action.isEnabled(), action.text()
        assert "open for reading only" not in action.statusTip()
    window.close()
