"""The shortcuts help panel (F1) and the list of shortcuts it shows."""
from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QDockWidget, QLabel

PANEL_WIDTH = 320  # px: the panel shows beside the results and the message without pushing them out

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
    rows = "".join(f"<tr><td style='padding:3px 10px 3px 0'><b>{k}</b></td><td style='padding:3px 0'>{v}</td></tr>"
                   for k, v in SHORTCUTS)
    return f"<h3>Keyboard shortcuts</h3><table>{rows}</table>"


class _PanelText(QLabel):
    """The panel's text, asking for :data:`PANEL_WIDTH` (its table would ask for ~550 px, the
    width of its longest lines unwrapped, and the dock would take that from the results)."""

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt name)
        width = PANEL_WIDTH - 2 * self.margin()
        return QSize(PANEL_WIDTH, self.heightForWidth(width))

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        return QSize(PANEL_WIDTH * 3 // 4, super().minimumSizeHint().height())


class ShortcutsPanel(QDockWidget):
    def __init__(self, parent=None):
        super().__init__("Shortcuts", parent)
        self.setObjectName("shortcutsPanel")
        label = _PanelText(shortcuts_html())
        label.setMargin(10)
        label.setWordWrap(True)
        label.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.setWidget(label)
