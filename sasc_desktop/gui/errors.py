"""Readable error dialogs: a one-line message, the details (traceback) folded away, and a note
of where the log is. Non-modal so the app (and tests) keep running."""
from __future__ import annotations

import re

from PySide6.QtWidgets import QMessageBox, QWidget

from ..engine.errors import SascError
from .config import log_path, log_problem

LONGEST_WORD = 80    # characters: a longer word (a pasted token, a runaway query) is shortened in the middle
BREAK_SHORTENED = 40  # characters: where a shortened word may wrap (it is not one to copy any more)
_ZW = "\u200b"
_LONG_WORD = re.compile(r"\S{%d,}" % (LONGEST_WORD + 1))


def _shorten(word: str) -> str:
    """``word`` (longer than LONGEST_WORD) as LONGEST_WORD characters: its start, "…" and its
    last few characters (a closing quote stays), with break opportunities every BREAK_SHORTENED."""
    tail = 12
    short = word[:LONGEST_WORD - tail - 1] + "…" + word[-tail:]
    return _ZW.join(short[i:i + BREAK_SHORTENED] for i in range(0, len(short), BREAK_SHORTENED))


def shorten_words(text: str) -> str:
    """``text`` with every word over LONGEST_WORD characters shortened (see :func:`_shorten`),
    so that a dialog showing it wraps within the screen: a 600-character token in a query made a
    1000-pixel dialog with its text cut off. The whole text stays in the dialog's details."""
    return _LONG_WORD.sub(lambda m: _shorten(m.group(0)), text)


# The engine's messages end with what to do at the command line; in the app, the app's way instead.
_IN_GUI = ((re.compile(r"create one with 'sasc init'"), "create one with File ▸ New project…"),)


def in_gui(message: str) -> str:
    """An engine message as the app says it: a hint naming a command the app has a menu item for
    (``sasc init``) names the menu item; the engine's message stays as it is for the CLI."""
    for pattern, instead in _IN_GUI:
        message = pattern.sub(instead, message)
    return message


def friendly(exc: BaseException) -> str:
    if isinstance(exc, SascError):
        return in_gui(str(exc)) or exc.__class__.__name__
    return f"An unexpected problem occurred ({exc.__class__.__name__}: {exc}). Your project is unchanged."


def show_error(parent: QWidget | None, title: str, exc: BaseException, details: str = "") -> QMessageBox:
    box = QMessageBox(parent)
    box.setObjectName("errorDialog")
    box.setIcon(QMessageBox.Icon.Warning)
    box.setWindowTitle("SASC Desktop: problem")
    box.setText(f"<b>{_escape(shorten_words(title or 'The operation'))} did not complete.</b>")
    problem = log_problem()
    where = (f"Details are not logged: {problem}" if problem else f"Details are logged in {log_path()}")
    box.setInformativeText(_escape(shorten_words(friendly(exc))) + f"<br><br><small>{_escape(where)}</small>")
    if details:
        box.setDetailedText(details)
    elif shorten_words(friendly(exc)) != friendly(exc):  # what was shortened is whole in the details
        box.setDetailedText(friendly(exc))
    box.setStandardButtons(QMessageBox.StandardButton.Ok)
    box.open()  # window-modal sheet, never blocks the event loop
    return box


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
