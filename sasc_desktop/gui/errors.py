"""Readable error dialogs: a one-line message, the details (traceback) folded away, and a note
of where the log is. Non-modal so the app (and tests) keep running."""
from __future__ import annotations

from PySide6.QtWidgets import QMessageBox, QWidget

from ..engine.errors import SascError
from .config import log_path, log_problem


def friendly(exc: BaseException) -> str:
    if isinstance(exc, SascError):
        return str(exc) or exc.__class__.__name__
    return f"An unexpected problem occurred ({exc.__class__.__name__}: {exc}). Your project is unchanged."


def show_error(parent: QWidget | None, title: str, exc: BaseException, details: str = "") -> QMessageBox:
    box = QMessageBox(parent)
    box.setObjectName("errorDialog")
    box.setIcon(QMessageBox.Icon.Warning)
    box.setWindowTitle("SASC Desktop: problem")
    box.setText(f"<b>{_escape(title or 'The operation')} did not complete.</b>")
    problem = log_problem()
    where = (f"Details are not logged: {problem}" if problem else f"Details are logged in {log_path()}")
    box.setInformativeText(_escape(friendly(exc)) + f"<br><br><small>{_escape(where)}</small>")
    if details:
        box.setDetailedText(details)
    box.setStandardButtons(QMessageBox.StandardButton.Ok)
    box.open()  # window-modal sheet, never blocks the event loop
    return box


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
