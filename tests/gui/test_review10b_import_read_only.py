"""An Import window left open when a read-only project is opened (review 10b; real projects, one
made read-only for real, offscreen). It was retargeted with "X is open now: mail is imported
into it." and an enabled Import button, refused only once pressed. Now it says what the notice
bar says (a read-only project: searching and reading only, why, and how to get a copy to change)
and its Import button is off, with a tooltip saying why; the next writable project turns it on."""
from __future__ import annotations

from PySide6.QtGui import QTextDocumentFragment

from gui_support import make_mbox, open_project
from test_review10_read_only import read_only   # noqa: F401  (the fixture)
from test_train_action import build


def _plain(html: str) -> str:
    return QTextDocumentFragment.fromHtml(html).toPlainText()


def test_the_import_window_says_a_read_only_project_is_read_only(qtbot, window, tmp_path, read_only):  # noqa: F811
    first = build(tmp_path / "first")["root"]
    locked = build(tmp_path / "locked")["root"]
    read_only(locked)
    open_project(qtbot, window, first)
    dlg = window.show_import([make_mbox(tmp_path / "extra.mbox", 5, start=500)])
    assert dlg.start_button.isEnabled()

    open_project(qtbot, window, locked)                      # the Import window left open
    text = _plain(dlg.status.text())
    assert dlg.windowTitle() == f"Import mail into {locked.name}"
    assert "mail is imported into it" not in text            # was: "judged is open now: mail is imported into it."
    assert text.startswith(f"{locked.name} is open now. Read-only project: searching and reading only (")
    assert "importing mail, training a sensitivity model and Preferences are turned off" in text
    assert "copy the project folder to a place you can write to and open the copy" in text
    assert f"The mailboxes listed for {first.name} were removed." in text
    assert not dlg.start_button.isEnabled()                  # was enabled
    assert "open for reading only" in _plain(dlg.start_button.toolTip())
    dlg.add_source(make_mbox(tmp_path / "more.mbox", 5, start=600))
    dlg.start()                                              # asked anyway: nothing starts
    assert not dlg.running and not dlg.start_button.isEnabled()

    other = build(tmp_path / "other")["root"]
    open_project(qtbot, window, other)                       # writable again: Import back
    assert dlg.start_button.isEnabled() and dlg.start_button.toolTip() == ""
    assert _plain(dlg.status.text()).startswith(f"{other.name} is open now: mail is imported into it.")
    dlg.close()
    window.close()
