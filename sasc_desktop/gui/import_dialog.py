"""Import mail: pick mbox / maildir / folder / PST sources, watch a progress bar, cancel, and
read a finish message with the ingest report (each skipped message and why)."""
from __future__ import annotations

import html
import time
from pathlib import Path
from typing import Callable, Optional

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QDialog, QFileDialog, QHBoxLayout, QHeaderView, QLabel, QListWidget, QProgressBar,
                               QPushButton, QTableWidget, QTableWidgetItem, QVBoxLayout)

from ..engine.errors import Cancelled
from ..engine.records import IngestReport
from .widgets import plain_tip


def import_summary(report: IngestReport) -> str:
    """One line for the status bar when an import ends: 'Import finished: 250 new messages,
    3 skipped' (with 'N already in the project' when some were: copies of mail stored before, by an
    earlier import (an import resumed after a cancel meets again what it kept) or earlier in this
    one; they were called 'duplicates', which read as copies inside the mailbox; what was kept when
    it was cancelled)."""
    head = "Import cancelled" if report.cancelled else "Import finished"
    parts = [new_messages(report.ingested) + (" kept" if report.cancelled else "")]
    if report.duplicates:
        parts.append(f"{report.duplicates:,} already in the project")
    parts.append(f"{len(report.skipped):,} skipped")
    return f"{head}: {', '.join(parts)}"


def new_messages(n: int) -> str:
    """'1 new message', '0 new messages', '1,200 new messages'."""
    return f"{n:,} new message{'' if n == 1 else 's'}"


def import_title(project_name: Optional[str]) -> str:
    """The Import window's title: the project it imports into."""
    return f"Import mail into {project_name}" if project_name else "Import mail"


class ImportDialog(QDialog):
    """Non-modal. ``start_import(sources, on_progress, on_done, on_error, project_gen=...)`` is
    given by the main window (it runs Session.ingest on the worker) and returns the task to
    cancel. The dialog belongs to one open project at a time (:meth:`set_project`): its title
    names it, and ``project_gen`` (the main window's project generation when its sources were
    chosen) lets the main window refuse sources chosen for a project no longer open."""
    finished_import = Signal(object)  # the IngestReport (also after a cancel)

    def __init__(self, parent, start_import: Callable, project_name: Optional[str] = None,
                 project_root: Optional[str] = None, project_gen: Optional[int] = None):
        super().__init__(parent)
        self.setObjectName("importDialog")
        self.resize(720, 520)
        self._start_import = start_import
        self.task = None
        self.started = 0.0   # time.monotonic() when the running import was started
        self.report: Optional[IngestReport] = None
        self.project_name: Optional[str] = None
        self.project_root: Optional[str] = None
        self.project_gen: Optional[int] = None
        self.set_project(project_name, project_root, project_gen)

        intro = QLabel("Add the mailboxes to import. Sources are only read, never changed. "
                       "Importing the same mailbox again adds only what is new.")
        intro.setTextFormat(Qt.TextFormat.PlainText)
        intro.setWordWrap(True)
        self.sources = QListWidget()
        self.sources.setObjectName("sourceList")
        add_mbox = QPushButton("Add mbox file…")
        add_folder = QPushButton("Add maildir / folder…")
        add_pst = QPushButton("Add PST file…")
        self.remove_button = QPushButton("Remove")
        add_mbox.clicked.connect(lambda: self._pick_file("Mailbox files (*.mbox *.mbx *.mbs *);;All files (*)"))
        add_pst.clicked.connect(lambda: self._pick_file("Outlook PST (*.pst);;All files (*)"))
        add_folder.clicked.connect(self._pick_folder)
        self.remove_button.clicked.connect(lambda: [self.sources.takeItem(self.sources.row(i)) for i in self.sources.selectedItems()])
        pick = QHBoxLayout()
        for b in (add_mbox, add_folder, add_pst, self.remove_button):
            pick.addWidget(b)
        pick.addStretch(1)

        self.progress = QProgressBar()
        self.progress.setObjectName("importProgress")
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.status = QLabel("")
        self.status.setObjectName("importStatus")
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.RichText)
        self.skipped_table = QTableWidget(0, 2)
        self.skipped_table.setObjectName("skippedTable")
        self.skipped_table.setHorizontalHeaderLabels(["Skipped message", "Reason"])
        self.skipped_table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.skipped_table.horizontalHeader().resizeSection(0, 260)
        self.skipped_table.verticalHeader().setVisible(False)
        self.skipped_table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.skipped_table.hide()

        self.start_button = QPushButton("Import")
        self.start_button.setObjectName("startImport")
        self.start_button.setDefault(True)
        self.cancel_button = QPushButton("Cancel import")
        self.cancel_button.setObjectName("cancelImport")
        self.cancel_button.setEnabled(False)
        self.close_button = QPushButton("Close")
        self.read_only_tip: Optional[str] = None   # the project is open for reading only: why (set_read_only)
        self.start_button.clicked.connect(self.start)
        self.cancel_button.clicked.connect(self.cancel)
        self.close_button.clicked.connect(self.close)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        for b in (self.start_button, self.cancel_button, self.close_button):
            buttons.addWidget(b)

        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.sources, 1)
        layout.addLayout(pick)
        layout.addWidget(self.progress)
        layout.addWidget(self.status)
        layout.addWidget(self.skipped_table, 2)
        layout.addLayout(buttons)

    # ------------------------------------------------------------------------------------
    def set_project(self, name: Optional[str], root: Optional[str] = None, gen: Optional[int] = None) -> None:
        """The project the sources are imported into (its name in the title), and the main
        window's project generation it is open under."""
        self.project_name, self.project_root, self.project_gen = name, root, gen
        self.setWindowTitle(import_title(name))

    def set_read_only(self, tip: Optional[str]) -> None:
        """The project it imports into is open for reading only (``tip``: why, for the Import
        button's tooltip): the Import button is off until a writable project is open (None)."""
        self.read_only_tip = tip
        self.start_button.setEnabled(tip is None and not self.running)
        self.start_button.setToolTip(plain_tip(tip) if tip else "")

    def reset(self, name: Optional[str], root: Optional[str], gen: Optional[int], note: str = "") -> None:
        """Another project was opened: nothing of the last one's is kept (its sources, the last
        import's report, progress and skipped messages); ``note`` (rich text) says so. Only
        when no import runs (the main window opens another project after its import ended)."""
        if self.running:
            return
        self.sources.clear()
        self.task = None
        self.report = None
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.skipped_table.setRowCount(0)
        self.skipped_table.hide()
        self.start_button.setEnabled(self.read_only_tip is None)
        self.cancel_button.setEnabled(False)
        self.cancel_button.setText("Cancel import")
        self.status.setText(note)
        self.set_project(name, root, gen)

    def add_source(self, path: Path | str) -> None:
        path = str(path)
        if path and path not in self.source_paths():
            self.sources.addItem(path)

    def source_paths(self) -> list[str]:
        return [self.sources.item(i).text() for i in range(self.sources.count())]

    def _pick_file(self, filters: str) -> None:
        files, _ = QFileDialog.getOpenFileNames(self, "Choose mailbox files", str(Path.home()), filters)
        for f in files:
            self.add_source(f)

    def _pick_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Choose a maildir or a folder of messages", str(Path.home()))
        if folder:
            self.add_source(folder)

    @property
    def running(self) -> bool:
        return self.task is not None and not self.task.done

    def start(self) -> None:
        sources = self.source_paths()
        if self.read_only_tip is not None:   # (its button is off; Import asked for another way)
            return
        if not sources or self.running:
            if not sources:
                self.status.setText("Add at least one mailbox first.")
            return
        self.report = None
        self.skipped_table.hide()
        self.skipped_table.setRowCount(0)
        self.progress.setRange(0, 0)  # busy until the first count arrives
        self.status.setText("Counting messages…")
        self.start_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.cancel_button.setText("Cancel import")
        self.started = time.monotonic()
        self.task = self._start_import(sources, self._progress, self._done, self._failed,
                                       project_gen=self.project_gen)

    def cancel(self) -> None:
        if self.running:
            self.task.cancel()
            self.cancel_button.setEnabled(False)
            self.cancel_button.setText("Cancelling…")
            self.status.setText("Cancelling: finishing the current batch so the project stays consistent…")

    def _progress(self, done: int, total: Optional[int], message: str) -> None:
        if total:
            self.progress.setRange(0, total)
            self.progress.setValue(min(done, total))
            self.status.setText(f"Imported {done:,} of {total:,} messages   ·   {html.escape(message)}")
        else:
            self.status.setText(html.escape(message))

    def _done(self, report: IngestReport) -> None:
        self.report = report
        self.start_button.setEnabled(self.read_only_tip is None)
        self.cancel_button.setEnabled(False)
        self.cancel_button.setText("Cancel import")
        if self.progress.maximum() == 0:
            self.progress.setRange(0, 1)
        if not report.cancelled:
            self.progress.setValue(self.progress.maximum())
        head = "Import cancelled." if report.cancelled else "Import finished."
        parts = [f"<b>{head}</b> {new_messages(report.ingested)}, {report.duplicates:,} already in the project "
                 "(copies of mail imported before, or met twice), "
                 f"{len(report.skipped):,} skipped, in {report.seconds:.1f} s."]
        if report.cancelled:
            parts.append("What was imported before the cancel is kept and searchable; "
                         "import the same mailbox again to add the rest.")
        if report.skipped:
            parts.append("Each skipped message and the reason is listed below.")
        self.status.setText(" ".join(parts))
        self.skipped_table.setRowCount(len(report.skipped))
        for row, s in enumerate(report.skipped):
            self.skipped_table.setItem(row, 0, QTableWidgetItem(s.source))
            item = QTableWidgetItem(s.reason)
            item.setToolTip(plain_tip(s.reason))
            self.skipped_table.setItem(row, 1, item)
        self.skipped_table.setVisible(bool(report.skipped))
        self.finished_import.emit(report)

    def _failed(self, exc: BaseException) -> None:
        if isinstance(exc, Cancelled):  # cancelled before the first batch was stored: how long it ran
            self._done(IngestReport(cancelled=True, seconds=time.monotonic() - self.started))
            return
        self.start_button.setEnabled(self.read_only_tip is None)
        self.cancel_button.setEnabled(False)
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.status.setText(f'<span style="color:#b00020"><b>The import did not run:</b> {html.escape(str(exc))}</span>')

    def reject(self) -> None:
        """Esc (and the window's close button, through closeEvent) is Close: while an import
        runs it is cancelled and the dialog stays until the worker confirms, showing what was
        kept; otherwise the dialog closes."""
        if self.running:
            self.cancel()
            return
        super().reject()

    def closeEvent(self, event):  # noqa: N802
        if self.running:
            self.cancel()  # closing means stop; the dialog stays until the worker confirms
            event.ignore()
            return
        super().closeEvent(event)
