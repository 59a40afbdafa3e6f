"""Preferences: the active persona, search field weights and the internal domains."""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QComboBox, QDialog, QDialogButtonBox, QDoubleSpinBox, QFormLayout, QLabel,
                               QLineEdit, QVBoxLayout)

from ..engine.errors import SascError
from ..engine.session import check_settings
from .evidence import TRAIN_MENU
from .widgets import plain_tip

WEIGHT_MAX = 1000.0   # the boxes' top (the engine takes any weight >= 0: a larger stored one raises it)
MAX_DECIMALS = 6


NOT_SEARCHED = "0 (not searched)"  # what a weight box shows at 0


def weight_tip(field: str) -> str:
    """A weight box's tooltip (as plain text: see widgets.plain_tip): what its weight does, and
    what 0 does."""
    return (f"How much a match in the {field} counts in the search ranking. 0: this part is not searched at all "
            f"(a message that matches only there is not found; only a query naming it, such as "
            f"{field}:budget, still looks there)")


def plain_label(text: str) -> QLabel:
    label = QLabel(text)
    label.setTextFormat(Qt.TextFormat.PlainText)
    return label


def parse_domains(text: str) -> list[str]:
    """The internal domains typed: separated by commas or semicolons, lower case, no "@"."""
    return [d.strip().lower().lstrip("@") for d in text.replace(";", ",").split(",") if d.strip()]


def _decimals(values: list[float]) -> int:
    """Enough decimals to show each stored weight as it is (0.125 with three), at least two."""
    need = 2
    for x in values:
        while need < MAX_DECIMALS and abs(round(x, need) - x) > 1e-12 * max(1.0, abs(x)):
            need += 1
    return need


class PreferencesDialog(QDialog):
    """Built from plain data (settings and personas, loaded on the worker). ``values()`` gives
    the keyword arguments for ``Session.update_settings``: only the settings the archivist
    changed, so that nothing untouched is rewritten (a weight is never rounded or clamped by the
    box that shows it). OK checks the values first, as the save would, and keeps the dialog open
    with the reason beside the field when one is refused."""

    def __init__(self, parent, settings: dict[str, Any], personas: list[dict[str, Any]]):
        super().__init__(parent)
        self.setObjectName("preferencesDialog")
        self.setWindowTitle("Preferences")
        self.setMinimumWidth(460)
        self.persona = QComboBox()
        self.persona.addItem("(none)", None)
        for p in personas:
            name = (p.get("card") or {}).get("name") or p["name"]
            self.persona.addItem(name if name == p["id"] else f"{name} ({p['id']})", p["id"])
        i = self.persona.findData(settings.get("active_persona"))
        self.persona.setCurrentIndex(max(0, i))
        self._persona_shown = self.persona.currentIndex()
        self.weights: dict[str, QDoubleSpinBox] = {}
        self._weights_stored: dict[str, Any] = dict(settings.get("field_weights") or {})
        self._weights_shown: dict[str, float] = {}
        form = QFormLayout()
        form.addRow("Active persona:", self.persona)
        decimals = _decimals([float(w) for w in self._weights_stored.values()])
        for field, weight in self._weights_stored.items():
            box = QDoubleSpinBox()
            box.setDecimals(decimals)
            box.setRange(0.0, max(WEIGHT_MAX, float(weight)))
            box.setSingleStep(0.1)
            box.setValue(float(weight))
            # The engine searches only the fields weighted above 0 (index/search_index.py): a
            # weight of 0 is not a low rank but no search of that part at all.
            box.setSpecialValueText(NOT_SEARCHED)
            box.setToolTip(plain_tip(weight_tip(field)))
            self.weights[field] = box
            self._weights_shown[field] = box.value()
            form.addRow(plain_label(f"Weight of {field}:"), box)   # (a field's name, from the settings)
        self.domains = QLineEdit(", ".join(settings.get("internal_domains") or []))
        self.domains.setPlaceholderText("inferred from the collection, e.g. enron.com")
        self._domains_stored = parse_domains(self.domains.text())
        form.addRow("Internal domains:", self.domains)
        self.error = QLabel("")  # why OK was refused, right under the field it is about
        self.error.setObjectName("preferencesError")
        # Plain text: the reason quotes what was typed ('<img src="/some/local.png">' showed that
        # image in the dialog when Qt took the message for rich text).
        self.error.setTextFormat(Qt.TextFormat.PlainText)
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #b00020;")
        self.error.hide()
        form.addRow("", self.error)
        self.domains.textEdited.connect(lambda _text: self.error.hide())
        note = QLabel("The persona decides whose view of sensitivity the app shows. Field weights change "
                      "how much a match in each part of a message counts in search ranking; a weight of 0 leaves "
                      "that part out of the search entirely (a message that matches only there is not found). "
                      "A persona's "
                      f"sensitivity model keeps the internal domains it was trained with: changed ones count "
                      f"once it is retrained ({TRAIN_MENU}).")
        note.setTextFormat(Qt.TextFormat.PlainText)
        note.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(note)
        layout.addWidget(buttons)

    def values(self) -> dict[str, Any]:
        """The settings changed: {} when nothing was. The field weights go as a whole (the
        engine fills missing ones with its defaults), the untouched ones exactly as stored."""
        out: dict[str, Any] = {}
        if self.persona.currentIndex() != self._persona_shown:
            out["active_persona"] = self.persona.currentData()
        changed = {f for f, box in self.weights.items() if box.value() != self._weights_shown[f]}
        if changed:
            out["field_weights"] = {f: (box.value() if f in changed else self._weights_stored[f])
                                    for f, box in self.weights.items()}
        domains = parse_domains(self.domains.text())
        if domains != self._domains_stored:
            out["internal_domains"] = domains or None
        return out

    def problem(self) -> str | None:
        """Why the save would refuse these values (the engine's words), or None."""
        try:
            check_settings(self.values())
        except SascError as exc:
            text = str(exc)
            return text[len("internal_domains: "):] if text.startswith("internal_domains: ") else text
        return None

    def accept(self) -> None:
        problem = self.problem()
        if problem is not None:  # stays open, every value as typed, the reason under the field
            about_domains = "internal_domains" in self.values()
            self.error.setText(f"Not saved: {problem}." + (" Correct it, or clear the field to have the internal "
                                                           "domains inferred from the collection." if about_domains else ""))
            self.error.show()
            self.adjustSize()  # room for the note's lines (the dialog grows, never clips it)
            if about_domains:
                self.domains.setFocus()
            return
        self.error.hide()
        super().accept()
