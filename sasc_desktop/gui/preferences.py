"""Preferences: the active persona, search field weights and the internal domains."""
from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import (QComboBox, QDialog, QDialogButtonBox, QDoubleSpinBox, QFormLayout, QLabel,
                               QLineEdit, QVBoxLayout)


class PreferencesDialog(QDialog):
    """Built from plain data (settings and personas, loaded on the worker). ``values()`` gives
    the keyword arguments for ``Session.update_settings``."""

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
        self.weights: dict[str, QDoubleSpinBox] = {}
        form = QFormLayout()
        form.addRow("Active persona:", self.persona)
        for field, weight in settings.get("field_weights", {}).items():
            box = QDoubleSpinBox()
            box.setRange(0.0, 20.0)
            box.setSingleStep(0.1)
            box.setDecimals(2)
            box.setValue(float(weight))
            self.weights[field] = box
            form.addRow(f"Weight of {field}:", box)
        self.domains = QLineEdit(", ".join(settings.get("internal_domains") or []))
        self.domains.setPlaceholderText("inferred from the collection, e.g. enron.com")
        form.addRow("Internal domains:", self.domains)
        note = QLabel("The persona decides whose view of sensitivity the app shows. Field weights change "
                      "how much a match in each part of a message counts in search ranking.")
        note.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(note)
        layout.addWidget(buttons)

    def values(self) -> dict[str, Any]:
        domains = [d.strip().lower().lstrip("@") for d in self.domains.text().replace(";", ",").split(",") if d.strip()]
        return {"active_persona": self.persona.currentData(),
                "field_weights": {f: box.value() for f, box in self.weights.items()},
                "internal_domains": domains or None}
