"""Every menu shortcut of the main window is listed in the F1 panel, and nothing listed is stale."""
from PySide6.QtGui import QKeySequence

from sasc_desktop.gui.help import SHORTCUTS


def test_menu_shortcuts_match_the_panel(window):
    def actions(menu):
        for a in menu.actions():
            if a.menu():
                yield from actions(a.menu())
            else:
                yield a
    in_menus = set()
    for top in window.menuBar().actions():
        for a in actions(top.menu()):
            for seq in a.shortcuts():
                in_menus.add(seq.toString(QKeySequence.SequenceFormat.PortableText))
    listed = {k for k, _ in SHORTCUTS}
    assert "Ctrl+Shift+T" in in_menus
    missing = {k for k in in_menus if k not in listed}
    assert not missing, f"menu shortcuts not in the F1 panel: {sorted(missing)}"
