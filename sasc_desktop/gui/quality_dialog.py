"""Tools ▸ Check model quality…: how good would the current persona's sensitivity model be on
messages it has not seen? Runs the engine's honest nested cross-validation (each fold's model,
its C, calibration and threshold are chosen on that fold's training messages only) on the
background worker and shows the figures in a table, with one plain sentence, a Copy button and
a progress bar with Cancel. Nothing in the project is written (the feature cache aside)."""
from __future__ import annotations

import html
import json
import time
from typing import Any, Callable, Optional

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QDialog, QFormLayout, QFrame, QHBoxLayout, QHeaderView,
                               QLabel, QProgressBar, QPushButton, QScrollArea, QSpinBox, QTableWidget, QTableWidgetItem,
                               QVBoxLayout, QWidget)

from ..engine.classify import DEFAULT_KIND, KINDS
from ..engine.errors import Cancelled, ProjectError
from .document import current_persona, no_personas_message
from .evidence import read_only_hint
from .errors import friendly

MIN_HEIGHT = 240  # px of the scrolling content at the least: the settings stay in view
SEED = 0  # the CLI's default: the same settings give the same figures as `sasc classify cv`
DEFAULT_FOLDS = 5

OPTIMISE_CHOICES = (
    ("f1", "F1: balance precision and recall"),
    ("f2", "F2: favour recall (miss fewer sensitive messages)"),
)
_KIND_LABELS = {
    "lr": "Logistic regression",
    "or": "Logistic regression or SVM (either one flags it)",
    "svm": "Linear SVM",
}
# The default first, marked; then the combination, then the SVM (and any kind the engine adds).
_ORDER = sorted(KINDS, key=lambda k: (k != DEFAULT_KIND, ("lr", "or", "svm").index(k) if k in _KIND_LABELS else 3))
KIND_CHOICES = tuple((k, _KIND_LABELS.get(k, k) + (" (default)" if k == DEFAULT_KIND else "")) for k in _ORDER)


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _num(x: float) -> str:
    return f"{x:.3f}"


# (key in cross_validate's result, label, how shown, what it means)
MEASURES = (
    ("precision", "Precision", _pct, "Of the messages held back, the share that are sensitive"),
    ("recall", "Recall", _pct, "Of the sensitive messages, the share held back"),
    ("f1", "F1", _num, "Precision and recall combined, equally weighted (1 is perfect)"),
    ("f2", "F2", _num, "Like F1, with recall weighted more: a missed sensitive message costs more"),
    ("accuracy", "Accuracy", _pct, "Share of the judged messages decided right"),
    ("balanced_accuracy", "Balanced accuracy", _pct,
     "Mean of the shares of sensitive and of not-sensitive messages decided right"),
    ("roc_auc", "ROC AUC", _num, "Chance a sensitive message scores above a not-sensitive one (0.5 is guessing)"),
    ("average_precision", "Average precision", _num, "How well the scores rank sensitive messages first (1 is perfect)"),
    ("calibration_error", "Calibration error", _num,
     "Mean gap between the probability given and the share really sensitive (0 is perfect)"),
)


def kind_label(kind: str) -> str:
    return _KIND_LABELS.get(kind, kind)


def result_rows(r: dict[str, Any]) -> list[tuple[str, str, str]]:
    """The table's rows (measure, value, meaning) for a ``cross_validate`` result."""
    rows = [(label, fmt(r[key]), meaning) for key, label, fmt, meaning in MEASURES]
    rows.append(("Judged messages", f"{r['n']:,}", "Messages with a sensitivity judgment for this persona"))
    share = r["positives"] / r["n"] if r["n"] else 0.0
    rows.append(("Sensitive", f"{r['positives']:,} ({_pct(share)})", "Judged messages that are sensitive"))
    rows.append(("Threshold", f"{r['threshold']:.3f}",
                 f"Probability from which a message is held back (mean of the {r['folds']} folds' own)"))
    return rows


def summary_sentence(r: dict[str, Any]) -> str:
    """One plain sentence on what the figures mean for the archivist."""
    honest = "Figures are honest: each fold's model never saw the messages it was tested on."
    if r["tp"] + r["fp"] == 0:
        return f"This model would hold back none of the judged messages, so it finds none of the sensitive ones. {honest}"
    return (f"Of the messages this model would hold back, {100 * r['precision']:.0f}% are sensitive; "
            f"it finds {100 * r['recall']:.0f}% of the sensitive ones. {honest}")


def settings_line(r: dict[str, Any]) -> str:
    return (f"{kind_label(r['kind'])}, threshold chosen for {r['optimise'].upper()}, "
            f"{r['folds']}-fold nested cross-validation")


def finish_message(value: dict[str, Any]) -> str:
    """The status bar's finish message."""
    r = value["result"]
    return (f"Model quality for {value['persona_name']}: precision {_pct(r['precision'])}, recall {_pct(r['recall'])}, "
            f"F1 {_num(r['f1'])}, F2 {_num(r['f2'])} over {r['n']:,} judged messages "
            f"({r['folds']}-fold nested cross-validation, {value['seconds']:.1f} s)")


def result_json(value: dict[str, Any]) -> dict[str, Any]:
    return {"project": value["project"], "persona": value["persona"], "persona_name": value["persona_name"],
            "seed": value["seed"], **value["result"]}


def result_text(value: dict[str, Any]) -> str:
    """What Copy puts on the clipboard: the table as text (tab-separated), the sentence, then
    the whole result as JSON (the same fields as `sasc classify cv --json`)."""
    r = value["result"]
    lines = [f"Sensitivity model quality for {value['persona_name']} ({value['persona']})",
             f"{settings_line(r)}, seed {value['seed']}", ""]
    lines += [f"{label}\t{text}" for label, text, _ in result_rows(r)]
    lines += ["", summary_sentence(r), "", json.dumps(result_json(value), indent=2)]
    return "\n".join(lines) + "\n"


def check_current_persona(session, progress, options: dict[str, Any], persona: Optional[str] = None) -> dict[str, Any]:
    """Worker-thread: nested cross-validation of ``persona``'s model (the persona the window
    names), or without it the current persona's (the active one, else the first). Reads only."""
    if persona is not None:
        chosen = next((p for p in session.personas() if p["id"] == persona), None)
        if chosen is None:
            raise ProjectError(f"the persona {persona!r} is no longer in this project (another program changed "
                               "its personas)")
        sens = {"persona": chosen["id"], "persona_name": chosen.get("name") or chosen["id"]}
    else:
        sens = current_persona(session)
    if sens is None:
        raise ProjectError(no_personas_message(session.root, session.store.read_only_reason))
    start = time.monotonic()
    r = session.cross_validate_classifier(sens["persona"], progress, folds=options["folds"],
                                          optimise=options["optimise"], kind=options["kind"], seed=SEED)
    return {"project": str(session.root), "persona": sens["persona"], "persona_name": sens["persona_name"],
            "seed": SEED, "options": dict(options), "result": r, "seconds": time.monotonic() - start}


class QualityDialog(QDialog):
    """Non-modal. ``start(options, on_progress, on_done, on_error)`` is given by the main window:
    it runs :func:`check_current_persona` on the background worker and returns the task, or
    calls ``on_error`` with the reason and returns None when the check may not run now.
    Closing the dialog (Esc, Close, the window's close button) cancels a running check."""

    def __init__(self, parent, start: Callable):
        super().__init__(parent)
        self.setObjectName("qualityDialog")
        self.setWindowTitle("Check model quality")
        self.setModal(False)
        self.resize(760, 600)
        self._start = start
        self.task = None
        self.value: Optional[dict[str, Any]] = None   # the last result shown (see check_current_persona)
        self._blocked: Optional[str] = None
        self._has_persona = False
        self.persona_id: Optional[str] = None  # the persona named, which a run checks

        self.persona_label = QLabel("")
        self.persona_label.setObjectName("qualityPersona")
        self.persona_label.setTextFormat(Qt.TextFormat.RichText)
        self.persona_label.setWordWrap(True)   # (no personas: it says how to import them)
        self.persona_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)  # a command to copy
        intro = QLabel("Estimates how well the sensitivity model would do on messages it has not seen: the judged "
                       "messages are split into folds, and each fold is tested with a model trained, tuned and "
                       "thresholded on the other folds only. Nothing in the project changes; the saved model "
                       "stays as it is.")
        intro.setTextFormat(Qt.TextFormat.PlainText)
        intro.setWordWrap(True)

        self.optimise = QComboBox()
        self.optimise.setObjectName("qualityOptimise")
        for key, label in OPTIMISE_CHOICES:
            self.optimise.addItem(label, key)
        self.kind = QComboBox()
        self.kind.setObjectName("qualityKind")
        for key, label in KIND_CHOICES:
            self.kind.addItem(label, key)
        self.folds = QSpinBox()
        self.folds.setObjectName("qualityFolds")
        self.folds.setRange(2, 20)
        self.folds.setValue(DEFAULT_FOLDS)
        self.folds.setToolTip("More folds train each model on more messages, and take longer")
        form = QFormLayout()
        form.addRow("&Threshold chosen for:", self.optimise)
        form.addRow("&Model:", self.kind)
        form.addRow("&Folds:", self.folds)

        self.progress = QProgressBar()
        self.progress.setObjectName("qualityProgress")
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.progress.setTextVisible(False)
        self.step = QLabel("")
        self.step.setObjectName("qualityStep")
        self.step.setTextFormat(Qt.TextFormat.PlainText)   # the engine's progress messages
        self.step.setWordWrap(True)
        self.progress.hide()  # shown while a check runs
        self.step.hide()
        self.status = QLabel("")
        self.status.setObjectName("qualityStatus")
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.RichText)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.status.hide()

        self.placeholder = QLabel("Choose the settings and press Run check (Enter). The check fits one model per "
                                  "fold; on a large collection it takes a while, and searching and reading go on "
                                  "meanwhile.")
        self.placeholder.setObjectName("qualityPlaceholder")
        self.placeholder.setTextFormat(Qt.TextFormat.PlainText)
        self.placeholder.setWordWrap(True)
        self.placeholder.setStyleSheet("color: #666")

        self.settings_label = QLabel("")
        self.settings_label.setObjectName("qualitySettings")
        self.settings_label.setTextFormat(Qt.TextFormat.RichText)   # (the persona's name in it escaped)
        self.settings_label.setWordWrap(True)   # (the longest model's name, F2, the time: wider than the dialog's least)
        self.table = QTableWidget(0, 3)
        self.table.setObjectName("qualityTable")
        self.table.setHorizontalHeaderLabels(["Measure", "Value", "What it means"])
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)  # one line per measure; the meaning's tooltip has it all
        self.table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        self.sentence = QLabel("")
        self.sentence.setObjectName("qualitySentence")
        self.sentence.setTextFormat(Qt.TextFormat.PlainText)
        self.sentence.setWordWrap(True)
        self.sentence.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        for w in (self.settings_label, self.table, self.sentence):
            w.hide()

        self.run_button = QPushButton("&Run check")
        self.run_button.setObjectName("qualityRun")
        self.run_button.setDefault(True)  # Enter runs
        self.cancel_button = QPushButton("&Cancel check")
        self.cancel_button.setObjectName("qualityCancel")
        self.cancel_button.setEnabled(False)
        self.copy_button = QPushButton("C&opy results")
        self.copy_button.setObjectName("qualityCopy")
        self.copy_button.setEnabled(False)
        self.copy_button.setToolTip("The figures as text and JSON, to paste into a report")
        self.close_button = QPushButton("Close")
        for b in (self.cancel_button, self.copy_button, self.close_button):
            b.setAutoDefault(False)  # Enter always means Run, whichever button has the focus
        self.run_button.clicked.connect(self.run)
        self.cancel_button.clicked.connect(self.cancel)
        self.copy_button.clicked.connect(self.copy)
        self.close_button.clicked.connect(self.reject)
        buttons = QHBoxLayout()
        buttons.addWidget(self.copy_button)
        buttons.addStretch(1)
        for b in (self.run_button, self.cancel_button, self.close_button):
            buttons.addWidget(b)

        # Everything above the buttons scrolls: the wrapped texts need more height the narrower
        # the dialog is, which a window's minimum size does not follow (at 760 x 560 the sentence
        # was drawn over the table); laid out in a scroll area, the content is never squeezed.
        self.body = QWidget()
        self.body.setObjectName("qualityBody")
        body = QVBoxLayout(self.body)
        body.setContentsMargins(0, 0, 0, 0)
        body.addWidget(self.persona_label)
        body.addWidget(intro)
        body.addLayout(form)
        body.addWidget(self.progress)
        body.addWidget(self.step)
        body.addWidget(self.status)
        body.addWidget(self.placeholder)
        body.addWidget(self.settings_label)
        body.addWidget(self.table)
        body.addWidget(self.sentence)
        body.addStretch(1)
        self.scroll = QScrollArea()
        self.scroll.setObjectName("qualityScroll")
        self.scroll.setWidget(self.body)
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)   # the texts wrap instead
        # never narrower than the content (no horizontal scrolling), with room for the scroll bar
        self.scroll.setMinimumWidth(self.body.minimumSizeHint().width() + self.scroll.verticalScrollBar().sizeHint().width())
        self.scroll.setMinimumHeight(MIN_HEIGHT)
        layout = QVBoxLayout(self)
        layout.addWidget(self.scroll, 1)
        layout.addLayout(buttons)

    # state ------------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self.task is not None and not self.task.done

    def options(self) -> dict[str, Any]:
        return {"optimise": self.optimise.currentData(), "kind": self.kind.currentData(), "folds": self.folds.value()}

    def set_persona(self, name: Optional[str], root: Optional[str] = None, persona_id: Optional[str] = None,
                    read_only: Optional[str] = None) -> None:
        """The persona a run checks (None: the project at ``root`` has none); ``persona_id``:
        its id, which the main window's check runs for; ``read_only``: why the project is open
        for reading only (its hints then point to a writable copy, not to Preferences)."""
        self._has_persona = name is not None
        self.persona_id = persona_id if name is not None else None
        if name is None:
            head, _, rest = no_personas_message(root, read_only).partition(": ")
            self.persona_label.setText(f"<b>{html.escape(head[:1].upper() + head[1:])}</b>: {html.escape(rest)}.")
        else:
            change = (html.escape(read_only_hint("change it")) if read_only
                      else "change it in File ▸ Preferences")
            self.persona_label.setText(f"<b>Persona: {html.escape(name)}</b> <span style='color:#666'>(the persona "
                                       f"the document view explains; {change})</span>")
        self._update_buttons()

    def set_blocked(self, reason: Optional[str]) -> None:
        """Why a check may not start now (training, import, a project opening), or None."""
        if reason == self._blocked:
            return
        self._blocked = reason
        if not self.running and self.value is None:
            self._set_status(html.escape(reason) if reason else "")
        self._update_buttons()

    def clear(self, message: str = "") -> None:
        """Forget the figures shown (another project was opened)."""
        self.value = None
        self.task = None
        for w in (self.settings_label, self.table, self.sentence):
            w.hide()
        self.table.setRowCount(0)
        self._idle()
        self._set_status(html.escape(message or self._blocked or ""))
        self._update_buttons()

    def _set_status(self, text: str) -> None:
        self.status.setText(text)
        self.status.setVisible(bool(text))

    def _update_buttons(self) -> None:
        running = self.running
        self.run_button.setEnabled(self._has_persona and not running and self._blocked is None)
        self.copy_button.setEnabled(self.value is not None and not running)
        for w in (self.optimise, self.kind, self.folds):  # the settings of a running check stay as they were
            w.setEnabled(not running)
        self.placeholder.setVisible(self.value is None and not running)

    def _idle(self) -> None:
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.step.setText("")
        self.progress.hide()
        self.step.hide()
        self.cancel_button.setEnabled(False)
        self.cancel_button.setText("&Cancel check")

    # actions ----------------------------------------------------------------------------
    def run(self) -> None:
        if self.running or not self.run_button.isEnabled():
            return
        self.value = None
        for w in (self.settings_label, self.table, self.sentence):
            w.hide()
        self.progress.setRange(0, 0)  # busy until the first count arrives
        self.step.setText("Starting…")
        self.progress.show()
        self.step.show()
        self._set_status("")
        self.cancel_button.setEnabled(True)
        self.task = self._start(self.options(), self._progress, self._done, self._failed)
        self._update_buttons()

    def cancel(self) -> None:
        if self.running and not self.task.cancelled:
            self.task.cancel()
            self.cancel_button.setEnabled(False)
            self.cancel_button.setText("Cancelling…")
            self.step.setText("Cancelling: stopping at the next model fit…")

    def copy(self) -> None:
        if self.value is None:
            return
        # Plain text only: a QMimeData handed to the clipboard from Python crashes the process at
        # exit (PySide6 6.11, seen offscreen); the text ends with the JSON anyway.
        QGuiApplication.clipboard().setText(result_text(self.value))
        self._set_status("The results are on the clipboard (as text, with the JSON at the end).")

    def reject(self) -> None:  # Esc, Close and the title bar's close button all come here
        self.cancel()
        super().reject()

    # the worker's callbacks (on the UI thread) -------------------------------------------
    def _progress(self, done: int, total: Optional[int], message: str) -> None:
        if not self.running or self.task.cancelled:
            return
        if total:
            self.progress.setRange(0, total)
            self.progress.setValue(min(done, total))
        else:
            self.progress.setRange(0, 0)
        if message:
            step = message[:1].upper() + message[1:]
            self.step.setText(step if step == "Done" else step + "…")

    def _done(self, value: dict[str, Any]) -> None:
        self.task = None
        self._idle()
        self.value = value
        r = value["result"]
        self.settings_label.setText(f"<b>{html.escape(value['persona_name'])}</b>: {html.escape(settings_line(r))}, "
                                    f"in {value['seconds']:.1f} s")
        rows = result_rows(r)
        self.table.setRowCount(len(rows))
        for i, (label, text, meaning) in enumerate(rows):
            items = (QTableWidgetItem(label), QTableWidgetItem(text), QTableWidgetItem(meaning))
            items[1].setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            items[2].setToolTip(meaning)
            for col, item in enumerate(items):
                self.table.setItem(i, col, item)
        self.table.resizeRowsToContents()
        # the whole table, no scrolling: header, rows and frame
        height = (self.table.horizontalHeader().height() + sum(self.table.rowHeight(i) for i in range(len(rows)))
                  + 2 * self.table.frameWidth())
        self.table.setFixedHeight(height)
        self.sentence.setText(summary_sentence(r))
        for w in (self.settings_label, self.table, self.sentence):
            w.show()
        self._set_status("")
        self._update_buttons()
        self.fit_content()

    def fit_content(self) -> None:
        """Taller, when the screen has the room, so that the figures are seen without scrolling."""
        self.body.layout().activate()
        width = self.scroll.viewport().width()
        need = self.body.heightForWidth(width) if self.body.hasHeightForWidth() else self.body.sizeHint().height()
        short = need - self.scroll.viewport().height()
        if short <= 0:
            return
        screen = (self.screen() or QGuiApplication.primaryScreen()).availableGeometry()
        frame = self.frameGeometry().height() - self.height()
        height = min(self.height() + short, screen.height() - frame)
        if height > self.height():
            self.resize(self.width(), height)
            top = self.frameGeometry().top()
            if top + height + frame > screen.bottom():  # still on the screen
                self.move(self.x(), max(screen.top(), screen.bottom() - height - frame))

    def _failed(self, exc: BaseException) -> None:
        self.task = None
        self._idle()
        if isinstance(exc, Cancelled):
            self._set_status("The check was cancelled; no figures. Nothing in the project changed.")
        else:
            self._set_status(f'<span style="color:#b00020"><b>The check did not run:</b> '
                                f'{html.escape(friendly(exc))}</span>')
        self._update_buttons()

    def table_text(self) -> list[tuple[str, str]]:
        """(measure, value) as the table shows them."""
        return [(self.table.item(i, 0).text(), self.table.item(i, 1).text()) for i in range(self.table.rowCount())]
