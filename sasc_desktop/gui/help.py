"""The shortcuts help panel (F1) and the list of shortcuts it shows."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDockWidget, QLabel

SHORTCUTS = [
    ("Ctrl+F", "Go to the query box"),
    ("Enter", "Run the query / open the selected result"),
    ("J", "Next result (opens it)"),
    ("K", "Previous result (opens it)"),
    ("Alt+Right / Alt+Left", "Next / previous page of results"),
    ("Ctrl+I", "Import mail"),
    ("Ctrl+N", "New project"),
    ("Ctrl+O", "Open project"),
    ("Ctrl+,", "Preferences"),
    ("Ctrl+Shift+T", "Train the sensitivity model for the current persona"),
    ("Alt+T, Q", "Check the model's quality (in it: Enter runs, Esc closes and cancels)"),
    ("F1", "Show / hide this panel"),
    ("Ctrl+Q", "Quit"),
]


def shortcuts_html() -> str:
    rows = "".join(f"<tr><td style='padding:3px 12px 3px 0'><b>{k}</b></td><td>{v}</td></tr>" for k, v in SHORTCUTS)
    return f"<h3>Keyboard shortcuts</h3><table>{rows}</table>"


class ShortcutsPanel(QDockWidget):
    def __init__(self, parent=None):
        super().__init__("Shortcuts", parent)
        self.setObjectName("shortcutsPanel")
        label = QLabel(shortcuts_html())
        label.setMargin(10)
        label.setWordWrap(True)
        label.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.setWidget(label)
