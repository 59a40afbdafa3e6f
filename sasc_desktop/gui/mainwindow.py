"""The main window: project new / open / recent, import, search, the document view, the
status bar (collection size, active persona) and preferences. Every engine call goes through
``self.worker`` (or, for the long jobs — training, quality checks, imports — ``self.background``)
and the Session facade; the UI thread never touches disk or the index."""
from __future__ import annotations

import html
import importlib
import logging
import sqlite3
import threading
from pathlib import Path
from typing import Any, Callable, Optional

from PySide6.QtCore import QByteArray, QEvent, QPoint, QRect, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import (QFileDialog, QLabel, QMainWindow, QMessageBox, QProgressBar, QSplitter, QStyle,
                               QToolButton, QVBoxLayout, QWidget)

from ..engine.classify import DEFAULT_KIND
from ..engine.errors import Cancelled, ProjectError, SascError
from ..engine.project.store import READ_ONLY_FIX
from ..engine.project.judgments import personas as list_personas, topics as list_topics
from ..engine.records import IngestReport
from ..engine.session import Session
from .config import AppState, demo_project_dir, setup_logging
from .document import DocumentView, current_persona, load_document, no_personas_message
from .errors import in_gui, show_error
from .evidence import TRAIN_MENU, read_only_hint
from .help import PANEL_LEAST, PANEL_WIDTH, ShortcutsPanel, SyntaxHelpDialog
from .import_dialog import ImportDialog, import_summary
from .preferences import PreferencesDialog
from .quality_dialog import QualityDialog, check_current_persona, finish_message as quality_message
from .search import SYNTAX_HELP, SearchPanel, run_search
from .widgets import ElidedLabel, NoticeBar, plain_tip, sentence
from .worker import Task, Worker

log = logging.getLogger("sasc_desktop.gui")

SAMPLE_QUERIES = ("meeting", "report", "contract", "budget", "schedule", "please")
TRAIN_KIND = DEFAULT_KIND  # the kind `sasc classify train` fits by default: logistic regression
TRAIN_TIP = "Train the current persona's sensitivity classifier on its judged messages"


def project_info(session: Session) -> dict[str, Any]:
    """Worker-thread: what the status bar and dialogs show about a project; ``notes``: what
    opening it did that its user should know (Session.notes: its search index rebuilt)."""
    models = dict(session.store.con.execute("SELECT persona, version FROM classifier_models"))
    return {"root": str(session.root), "stats": session.stats(), "settings": session.settings(),
            "personas": list_personas(session.store), "notes": list(session.notes), "models": models,
            "read_only": session.store.read_only_reason}   # why it is open for reading only, or None


def sensitivity_source(info: Optional[dict[str, Any]]) -> Optional[tuple[Any, Any]]:
    """What the sensitivity the window shows comes from: the active persona and its model's
    version (None without a project)."""
    if not info:
        return None
    persona = info["settings"].get("active_persona")
    return persona, info.get("models", {}).get(persona)


class ChangeWatch:
    """Worker-thread only: has another connection committed to the project's database since
    the window last read its info? Another program (``sasc settings --set active_persona=...``,
    ``sasc judgments import-categories``, ``sasc ingest``, a second window's Preferences) or this
    window's own jobs. Read with SQLite's ``PRAGMA data_version`` on a connection of its own,
    kept open with the project and used for nothing else: the value changes exactly when
    another connection commits, and reading it reads no table. (Not on the store's connection:
    the worker's thread-local connection is a new one for each job, and data_version is only
    comparable on one connection.) A project open for reading only is not watched."""

    def __init__(self) -> None:
        self._session: Optional[Session] = None
        self._con: Optional[sqlite3.Connection] = None
        self._seen: Optional[int] = None   # data_version when the info was last read

    def _version(self, session: Session) -> Optional[int]:
        if session is not self._session:
            self.close()
            self._session = session
            if not session.store.read_only:
                try:
                    self._con = sqlite3.connect(str(session.store.path), isolation_level=None,
                                                check_same_thread=False, timeout=5.0)
                except sqlite3.Error as exc:  # not watched: the info is read when the window reads it anyway
                    log.warning("cannot watch %s for changes by other programs: %s", session.store.path, exc)
        if self._con is None:
            return None
        try:
            return self._con.execute("PRAGMA data_version").fetchone()[0]
        except sqlite3.Error as exc:
            log.warning("cannot read the data version of %s: %s", session.store.path, exc)
            return None

    def info(self, session: Session) -> dict[str, Any]:
        """project_info(session), noting the version it was read at (read first: a commit made
        while it reads is seen by the next :meth:`changed`)."""
        seen = self._version(session)
        info = project_info(session)
        self._seen = seen
        return info

    def changed(self, session: Session) -> Optional[dict[str, Any]]:
        """The project's info read afresh when another connection committed since it was last
        read (or this session's info was never read here), else None: one pragma."""
        known = session is self._session
        seen = self._version(session)
        if known and (seen is None or seen == self._seen):
            return None
        info = project_info(session)
        self._seen = seen
        return info

    def close(self) -> None:
        if self._con is not None:
            self._con.close()
        self._session = self._con = self._seen = None


def sample_query(session: Session) -> Optional[str]:
    """Worker-thread: a query with hits, for screenshots (topic titles first)."""
    candidates = [t["title"] for t in list_topics(session.store) if t.get("title")] + list(SAMPLE_QUERIES)
    for q in candidates:
        try:
            if session.search(q, limit=1).total:
                return q
        except SascError:
            continue
    return None


def train_current_persona(session: Session, progress) -> tuple[str, Any]:
    """Worker-thread: train the current persona's sensitivity model (the active one, else the
    first). Returns (persona name, ModelInfo)."""
    from ..engine.classify import train
    sens = current_persona(session)
    if sens is None:
        raise ProjectError(no_personas_message(session.root))
    info = train(session, sens["persona"], progress, kind=TRAIN_KIND)
    return sens["persona_name"], info


IMPORT_WHILE_TRAINING = ("A sensitivity model is being trained: import when it has finished, or cancel "
                         "it first (Tools ▸ Cancel training, or Cancel training in the status bar)")
TRAINING_CANCELLED = "Training cancelled; the saved sensitivity model and its scores are unchanged"
IMPORT_WHILE_CHECKING = ("The sensitivity model's quality is being checked: import when it has finished, or "
                         "cancel it first (Cancel check in the Check model quality window)")
CHECK_WHILE_TRAINING = ("A sensitivity model is being trained: check its quality when it has finished, or cancel "
                        "it first (Tools ▸ Cancel training)")
CHECK_WHILE_IMPORTING = "Mail is being imported: check the model's quality when the import has finished"
CHECK_WHILE_LOADING = "A project is being opened: check the model's quality when it is open"
CHECK_CANCELLED = "Model quality check cancelled; nothing in the project changed"
DURING_IMPORT = "an import is running: the mail it adds is found once it is indexed"
OPEN_WHILE_IMPORTING = "{what}: waiting for the import to finish (or cancel it in the Import mail window)"
IMPORT_WHILE_LOADING = "A project is being opened: import when it is open"
INDEXING_LEFT = "Indexing the messages an interrupted import or index rebuild left unindexed"


def incomplete_note(missing: int) -> str:
    """What the result line adds while another program indexes ``missing`` messages."""
    return (f"{missing:,} message{' is' if missing == 1 else 's are'} being indexed by another program; "
            "the results are incomplete")


PREFS_WHILE_LOADING = "A project is being opened: Preferences opens once it is open"
READ_ONLY = "read-only project: searching and reading only"
READ_ONLY_TIP = ("This project is open for reading only: nothing in it can be changed. To change it, "
                 + READ_ONLY_FIX)


def read_only_note(reason: str) -> str:
    """The notice bar's note on a project open for reading only (``reason``: the store's words,
    e.g. 'the project folder /x is read-only')."""
    return (f"{READ_ONLY} ({reason}): importing mail, training a sensitivity model and Preferences are turned off; "
            f"to change the project, {READ_ONLY_FIX}")
IMPORT_OTHER_PROJECT = ("These mailboxes were chosen for a project that is no longer open; {name} is open now: "
                        "add them again to import them into it")


def preload_classifier() -> threading.Thread:
    """Import the classifier's libraries (scikit-learn and SciPy: ~1.7 s of imports) on a
    background thread, so that the first opened message's evidence line does not wait for them.
    Imports only: no session is touched, and the import lock makes a worker thread that needs
    the module meanwhile simply wait for it."""
    def run():
        try:
            importlib.import_module("sasc_desktop.engine.classify.api")
        except Exception:  # the document view reports a real failure when it needs the module
            log.exception("preloading the classifier failed")
    thread = threading.Thread(target=run, name="preload-classifier", daemon=True)
    thread.start()
    return thread


def trained_message(name: str, info: Any) -> str:
    """The status bar's finish message for a trained model (``info`` is a ModelInfo)."""
    return (f"Sensitivity model for {name} trained on {info.n_train:,} judged messages "
            f"({info.n_positive:,} sensitive) in {info.seconds:.1f} s; {info.n_scored:,} messages scored")


def saved_message(values: dict[str, Any], stale_model: bool) -> str:
    """The status bar's confirmation of a preferences save; ``stale_model``: the internal domains
    changed and the active persona has a trained model, which keeps the domains it was trained
    with until it is trained again."""
    if not stale_model:
        return "Preferences saved"
    if set(values) == {"internal_domains"}:
        return f"Internal domains saved; retrain ({TRAIN_MENU}) for the sensitivity to use them"
    return f"Preferences saved; retrain ({TRAIN_MENU}) for the sensitivity to use the new internal domains"


def persona_name(p: dict[str, Any]) -> str:
    card = p.get("card") or {}
    return card.get("name") or p.get("name") or p["id"]


def demo_builder() -> Optional[Callable]:
    """``build(root, progress) -> Path`` for the demo project, or None if not installed. The
    builder makes the project aside and moves it to ``root`` only when it is finished."""
    try:
        from ..engine.demo_project import build_demo_project  # generate, ingest, judgments, models
    except ImportError:
        return None
    return lambda root, progress: build_demo_project(Path(root), progress=progress)


class MainWindow(QMainWindow):
    project_loaded = Signal(object)     # project info dict
    project_failed = Signal(object)     # the exception
    search_done = Signal(object)        # SearchResult
    document_shown = Signal(str)        # doc_id
    import_finished = Signal(object)    # IngestReport
    model_trained = Signal(object)      # ModelInfo
    training_failed = Signal(object)    # the exception
    training_cancelled = Signal()
    quality_checked = Signal(object)        # check_current_persona's value (persona, result, ...)
    quality_check_failed = Signal(object)   # the exception
    quality_check_cancelled = Signal()

    def __init__(self, state: Optional[AppState] = None, show_dialogs: bool = True):
        super().__init__()
        self.setObjectName("mainWindow")
        self.setWindowTitle("SASC Desktop")
        self.state = state or AppState()
        setup_logging()
        self.worker = Worker(self, error_handler=self.show_error)
        # Training, model quality checks and imports run here, one at a time, so that searching
        # and reading go on meanwhile (the store keeps a SQLite connection per thread, WAL lets
        # them read while it writes). A project is closed only after its job has stopped.
        self.background = Worker(self, error_handler=self.show_error)
        self.session: Optional[Session] = None   # touched only inside worker operations
        self.info: Optional[dict[str, Any]] = None
        self.error_dialogs: list[QMessageBox] = []
        self.import_dialog: Optional[ImportDialog] = None
        self.prefs_dialog: Optional[PreferencesDialog] = None
        self.quality_dialog: Optional[QualityDialog] = None
        self._syntax_box: Optional[SyntaxHelpDialog] = None
        self._doc_seq = 0
        self._importing = False
        self._loading = 0              # projects being opened: no training starts meanwhile
        self._project_gen = 0          # bumped when the project changes: late callbacks of the old one stand down
        self._requested_doc: Optional[str] = None  # the message last asked for (shown or on its way)
        self._late_training: Optional[tuple] = None  # how a training stopped by a project open ended
        self._train_task: Optional[Task] = None  # the running training, while it can be cancelled
        self._check_task: Optional[Task] = None  # the running model quality check (Tools ▸ Check model quality…)
        self._preload: Optional[threading.Thread] = None
        self._watch = ChangeWatch()     # used on the worker thread only
        self._change_check: Optional[Task] = None  # the pending check_changes job
        self._prefs_task: Optional[Task] = None    # the settings being read for the Preferences dialog
        self._prefs_after_open = False              # Preferences asked for while a project was opening
        self._search_seq = 0
        self._closing = False          # the window waits for the background job to stop, then closes
        self._closed = False           # closed: late callbacks have nothing to report to

        self.search_panel = SearchPanel()
        self.doc_view = DocumentView()
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.search_panel)
        self.splitter.addWidget(self.doc_view)
        self.splitter.setStretchFactor(0, 5)
        self.splitter.setStretchFactor(1, 4)
        # Above the results and the message: a note on what opening the project did (NoticeBar).
        self.notice_bar = NoticeBar()
        central = QWidget()
        column = QVBoxLayout(central)
        column.setContentsMargins(0, 0, 0, 0)  # the panes as they were; the bar spans the window
        column.setSpacing(0)
        column.addWidget(self.notice_bar)
        column.addWidget(self.splitter, 1)
        self.setCentralWidget(central)
        self.search_panel.search_requested.connect(self.search)
        self.search_panel.open_requested.connect(self.open_document)
        self.search_panel.help_requested.connect(self.show_syntax_help)
        self.doc_view.open_requested.connect(self.open_document)

        self.shortcuts_panel = ShortcutsPanel(self)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.shortcuts_panel)
        self.shortcuts_panel.hide()
        self._sizes_before_panel: Optional[list[int]] = None
        self._panel_auto = True        # the panel placed by toggle_shortcuts, not moved by hand since
        self._placing_panel = False
        self.shortcuts_panel.topLevelChanged.connect(self._panel_moved_by_hand)
        self._refit_timer = QTimer(self)   # after a resize or a move has settled
        self._refit_timer.setSingleShot(True)
        self._refit_timer.setInterval(0)
        self._refit_timer.timeout.connect(self._refit_shortcuts)
        self._refit_may_dock = True    # the refit asked for may dock a floating panel (_refit_soon)
        self.notice_bar.shown.connect(self._refit_soon)   # the panes lose or get back the bar's height

        self._build_menus()
        self._build_status_bar()
        self._build_shortcuts()
        self.search_panel.set_history(self.state.history)
        self._restore_geometry()
        self.worker.busy_changed.connect(self._busy)
        self.background.busy_changed.connect(self._background_busy)
        self._set_project_actions(False)
        self.doc_view.clear("No project is open. Use File ▸ New project or File ▸ Open project.")

    # building ---------------------------------------------------------------------------
    def _build_menus(self) -> None:
        m = self.menuBar().addMenu("&File")
        self.new_action = self._action(m, "&New project…", self.ask_new_project, QKeySequence.StandardKey.New)
        self.open_action = self._action(m, "&Open project…", self.ask_open_project, QKeySequence.StandardKey.Open)
        self.recent_menu = m.addMenu("Open &recent")
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        self._fill_recent()
        self.demo_action = self._action(m, "Open the &demo project", self.open_demo)
        m.addSeparator()
        self.import_action = self._action(m, "&Import mail…", self.show_import, QKeySequence("Ctrl+I"))
        m.addSeparator()
        self.prefs_action = self._action(m, "&Preferences…", self.show_preferences, QKeySequence("Ctrl+,"))
        m.addSeparator()
        self._action(m, "&Quit", self.close, QKeySequence.StandardKey.Quit)
        t = self.menuBar().addMenu("&Tools")
        self.tools_menu = t
        t.aboutToShow.connect(self.check_changes)  # personas imported elsewhere enable Train as the menu opens
        self.train_action = self._action(t, "&Train sensitivity model…", self.train_model, QKeySequence("Ctrl+Shift+T"))
        self.train_action.setStatusTip(TRAIN_TIP)
        self.quality_action = self._action(t, "Check model &quality…", self.show_quality)
        self.quality_action.setStatusTip("How good would the current persona's sensitivity model be? "
                                         "Honest cross-validation on its judged messages; nothing is changed")
        # No Esc: a training of minutes must not end because Esc was pressed in the query box.
        self.cancel_train_action = self._action(t, "&Cancel training", self.cancel_training)
        self.cancel_train_action.setStatusTip("Stop the training; the saved model and its scores stay as they were")
        self.cancel_train_action.setEnabled(False)
        h = self.menuBar().addMenu("&Help")
        self.help_action = self._action(h, "Keyboard &shortcuts", self.toggle_shortcuts, QKeySequence("F1"))
        self._action(h, "&Query syntax", self.show_syntax_help)
        self._action(h, "&About SASC Desktop", self._about)

    def _action(self, menu, text, slot, shortcut=None) -> QAction:
        a = QAction(text, self)
        if shortcut is not None:
            a.setShortcut(shortcut)
        a.triggered.connect(slot)
        menu.addAction(a)
        return a

    def _build_status_bar(self) -> None:
        sb = self.statusBar()
        self.collection_label = ElidedLabel("No project")  # parts dropped from the end when a message needs room
        self.collection_label.setObjectName("collectionLabel")
        self.persona_label = QLabel("")
        self.persona_label.setObjectName("personaLabel")
        self.persona_label.setTextFormat(Qt.TextFormat.PlainText)   # (a persona's name, from a file)
        self.collection_label.setMinimumWidth(1)  # may be clipped so that a finish message fits
        self.message_label = ElidedLabel("")  # a message longer than its room ends at a word, in "…"
        self.message_label.setObjectName("messageLabel")
        self._message_timer = QTimer(self)
        self._message_timer.setSingleShot(True)
        self._message_timer.timeout.connect(lambda: self.flash("", 0))
        self.busy_bar = QProgressBar()
        self.busy_bar.setMaximumWidth(180)
        self.busy_bar.setTextVisible(False)
        self.busy_bar.setRange(0, 0)
        self.busy_bar.hide()
        sb.addWidget(self.collection_label)       # its natural width; the messages get the rest
        sb.addWidget(self.message_label, 1)
        self.job_label = QLabel("")  # the background job's stage (training), kept apart from the messages
        self.job_label.setObjectName("jobLabel")
        self.job_label.setTextFormat(Qt.TextFormat.PlainText)
        self.job_label.hide()
        self.job_bar = QProgressBar()
        self.job_bar.setMaximumWidth(120)
        self.job_bar.setTextVisible(False)
        self.job_bar.setRange(0, 0)
        self.job_bar.hide()
        self.cancel_button = QToolButton()
        self.cancel_button.setDefaultAction(self.cancel_train_action)
        self.cancel_button.setAutoRaise(True)
        self.cancel_button.hide()
        sb.addPermanentWidget(self.job_label)
        sb.addPermanentWidget(self.job_bar)
        sb.addPermanentWidget(self.cancel_button)
        sb.addPermanentWidget(self.busy_bar)
        sb.addPermanentWidget(self.persona_label)

    def _build_shortcuts(self) -> None:
        def sc(key, fn):
            s = QShortcut(QKeySequence(key), self)
            s.setContext(Qt.ShortcutContext.WindowShortcut)
            s.activated.connect(fn)
            return s
        sc("Ctrl+F", self.focus_query)
        sc("J", lambda: self.search_panel.step(1))
        sc("K", lambda: self.search_panel.step(-1))
        sc("Alt+Right", lambda: self.search_panel.go_page(1))
        sc("Alt+Left", lambda: self.search_panel.go_page(-1))

    @property
    def _read_only(self) -> bool:
        """The project shown is open for reading only (a read-only folder, medium or share)."""
        return bool(self.info and self.info.get("read_only"))

    def _set_project_actions(self, enabled: bool) -> None:
        for a in (self.import_action, self.prefs_action):
            a.setEnabled(enabled and not self._read_only)
        self.search_panel.setEnabled(enabled)
        self._update_train_action()

    def _update_train_action(self) -> None:
        """Training needs an open project with personas, and one training at a time; a training,
        a model quality check and an import never overlap."""
        has_personas = bool(self.info and self.info.get("personas"))
        read_only = self._read_only   # the actions that write are off (and say why in their status tips)
        self.train_action.setEnabled(has_personas and not (self._training or self._checking or self._importing
                                                           or self._loading > 0 or read_only))
        self.import_action.setEnabled(self.info is not None and not (self._training or self._checking or read_only))
        for action, tip in ((self.train_action, TRAIN_TIP), (self.import_action, ""), (self.prefs_action, "")):
            action.setStatusTip(READ_ONLY_TIP if read_only else tip)
        self.quality_action.setEnabled(has_personas)
        self.cancel_train_action.setEnabled(self._train_task is not None)
        self.cancel_button.setVisible(self._train_task is not None)
        if self.quality_dialog is not None:
            self.quality_dialog.set_blocked(self._check_refusal())

    # errors -----------------------------------------------------------------------------
    def show_error(self, title: str, exc: BaseException, details: str = "") -> QMessageBox:
        box = show_error(self, title, exc, details)
        self.error_dialogs = [b for b in self.error_dialogs if b.isVisible()] + [box]
        self.flash(f"{title or 'Operation'} failed: {in_gui(str(exc))}", 10000)
        return box

    def flash(self, text: str, msecs: int = 5000) -> None:
        """A transient note in the status bar, up to 60 % of its width: the collection line gives
        way (whole parts), a longer note ends at a word in "…" and is whole in its tooltip."""
        self.message_label.setText(text)
        width = self.message_label.fontMetrics().horizontalAdvance(text) + 12
        self.message_label.setMinimumWidth(min(width, int(self.width() * 0.6)))
        if msecs:
            self._message_timer.start(msecs)
        else:
            self._message_timer.stop()

    def _busy(self, busy: bool) -> None:
        self.busy_bar.setVisible(busy)
        if not busy:
            self.busy_bar.setRange(0, 0)

    def _job_progress(self, done: int, total: Optional[int], message: str) -> None:
        """The background job's progress: its own label and bar (hidden when ``message`` is
        empty), so the search's messages in the status bar are not overwritten."""
        self.job_label.setText(message[:70] + ("…" if len(message) > 70 else ""))
        self.job_label.setToolTip(plain_tip(message))
        self.job_label.setVisible(bool(message))
        self.job_bar.setVisible(bool(message))
        if total:
            self.job_bar.setRange(0, total)
            self.job_bar.setValue(min(done, total))
        else:
            self.job_bar.setRange(0, 0)

    def _status_progress(self, done: int, total: Optional[int], message: str, scale: str = "") -> None:
        """A project being opened (or built): its step in the status bar (and, with no project
        yet, in the document view). ``scale``: what is done, when done / total are a fraction on a
        scale (the demo build's 0-1000 over all its stages), shown as a percentage, not as counts:
        '<scale>: 24% — <message>'."""
        if total:
            self.busy_bar.setRange(0, total)
            self.busy_bar.setValue(min(done, total))
        if message:
            if total and scale:
                text = f"{scale}: {min(100, 100 * done // total)}% — {message}"
            else:
                text = f"{message}: {done:,} of {total:,}" if total else message
            self.flash(text, 3000)
            if self.session is None and self.info is None:
                self.doc_view.clear(text)

    # projects ---------------------------------------------------------------------------
    def open_project(self, root: Path | str) -> Task:
        root = Path(root).expanduser()
        self.flash(f"Opening {root}…", 0)
        return self._load(lambda p: Session.open(root, p), f"Opening the project {root}", root)

    def new_project(self, root: Path | str) -> Task:
        root = Path(root).expanduser()
        return self._load(lambda p: Session.create(root), f"Creating a project in {root}", root)

    def _load(self, make: Callable, label: str, root: Path,
              on_progress: Optional[Callable[[int, Optional[int], str], None]] = None) -> Task:
        # Leaving this project: its training stops (at its next step; nothing of it is written),
        # and none starts until the new one is open.
        if self._train_task is not None:
            self.cancel_training()
        if self._check_task is not None:  # likewise a model quality check; its late callbacks do nothing
            self._check_task.cancel()
        self._loading += 1
        self._project_gen += 1
        self._late_training = None
        if self._importing:  # the project is left when the import has finished
            self.flash(OPEN_WHILE_IMPORTING.format(what=label), 0)
        if self.quality_dialog is not None:
            self.quality_dialog.clear()
        self._update_train_action()
        self.prefs_action.setEnabled(True)  # Ctrl+, meanwhile: said, and opened once the project is open

        def op(progress):
            # The cancelled training ends first (its callbacks are queued before ours), then the
            # new project is made: a failed open then knows how that training ended.
            self.background.wait()
            new = make(progress)
            old, self.session = self.session, new
            if old is not None:
                old.close()
            return self._watch.info(new)

        def done(info):
            self._loading -= 1
            self._late_training = None
            self._requested_doc = None  # a message of the project just left
            self._project_ready(info)

        def failed(exc):
            self._loading -= 1
            if self._closed:  # closed meanwhile (e.g. during the first run's demo build, which the
                # close cancelled): no dialog -- one would keep the application running windowless
                self.project_failed.emit(exc)
                return
            self._update_train_action()
            self._update_quality_persona()
            if self._loading == 0:
                self.prefs_action.setEnabled(self.info is not None and not self._read_only)
                if self._prefs_after_open:  # for the project that did not open: not shown
                    self._prefs_after_open = False
                    if self.message_label.text() == PREFS_WHILE_LOADING:
                        self.flash("", 0)
            dlg = self.import_dialog
            if dlg is not None and self.info is not None and dlg.project_root == self.info["root"]:
                dlg.project_gen = self._project_gen  # the project it imports into is still the one open
            self.show_error(label, exc, _details(exc))
            late, self._late_training = self._late_training, None
            if late is not None:  # the project stays open: say how the training stopped for the open ended
                ended = TRAINING_CANCELLED if late[0] == "cancelled" else (
                    trained_message(*late[1]) if late[0] == "trained" else f"Training failed: {late[1]}")
                self.flash(f"{ended} ({label.lower()} failed: {in_gui(str(exc))})", 20000)
            if isinstance(exc, ProjectError) and str(root) in self.state.recent and not root.exists():
                self.state.forget_project(root)
            if self.info is None:
                self.doc_view.clear(f"The project could not be opened: {in_gui(str(exc))}")
            self.project_failed.emit(exc)
        return self.worker.run(op, done, failed, label=label, on_progress=on_progress or self._status_progress)

    def _project_ready(self, info: dict[str, Any]) -> None:
        self.info = info
        self.state.project_opened(info["root"])
        self.setWindowTitle(f"{Path(info['root']).name}{' (read-only)' if info.get('read_only') else ''} — SASC Desktop")
        self._set_project_actions(True)
        self.search_panel.reset()
        self.doc_view.clear("Search the collection, then open a result to read it here.")
        self._update_status()
        self._update_quality_persona()
        self._retarget_import(info)
        if info.get("personas") and self._preload is None:
            self._preload = preload_classifier()
        # What opening it did that the user should know (the search index rebuilt): in the bar
        # above the results until dismissed or another project is opened; a project without
        # notes hides the last one's.
        notes = info.get("notes") or []
        for note in notes:
            log.warning("opening %s: %s", info["root"], note)
        if info.get("read_only"):   # said first: what the archivist can do with it at all
            notes = [read_only_note(info["read_only"])] + notes
        self.notice_bar.show_notes(notes)
        if info.get("read_only"):
            self.flash(f"Opened {info['root']}: {READ_ONLY}", 0)
        elif notes:
            self.flash(f"Opened {info['root']}, with a note (above the results)", 10000)
        else:
            self.flash(f"Opened {info['root']}", 5000)
        self.project_loaded.emit(info)
        self._refit_soon()   # another project's panes (the notice bar, the Sensitivity column)
        self.focus_query()
        if self._prefs_after_open and self._loading == 0:  # Ctrl+, pressed while it opened
            self._prefs_after_open = False
            self.show_preferences()

    def _update_status(self) -> None:
        if not self.info:
            self.collection_label.setText("No project")
            self.persona_label.setText("")
            return
        s = self.info["stats"]
        dates = ""
        if s.get("first_date") and s.get("last_date"):
            dates = f"   ·   {s['first_date'][:10]} to {s['last_date'][:10]}"
        self.collection_label.setText(
            f"{Path(self.info['root']).name}:  {s['messages']:,} messages   ·   {s['threads']:,} threads   ·   "
            f"{s['attachments']:,} attachments{dates}")
        self.collection_label.setToolTip(self.info["root"])
        persona = self.info["settings"].get("active_persona")
        names = {p["id"]: persona_name(p) for p in self.info.get("personas", [])}
        self.persona_label.setText(f"Persona: {names.get(persona, persona) if persona else 'none'}")
        read_only = self.info.get("read_only")
        self.persona_label.setToolTip(plain_tip(
            "The persona whose sensitivity the results and the message show" if persona else
            ("No persona is active: no sensitivity is shown. "
             + (capitalised(read_only_hint("choose one")) + "." if read_only else "Choose one in File ▸ Preferences…"))
            if names else capitalised(no_personas_message(self.info["root"], read_only))))

    def _on_project(self, fn: Callable[[Session], Any], done: Callable[[Any], None],
                    failed: Optional[Callable[[BaseException], None]] = None, label: str = "") -> Task:
        """Run ``fn(session)`` on the worker for the project open now; ``done(value)`` (or
        ``failed(exc)``, else an error dialog) only while it is still the project shown: late
        results of a project left (another opened, or the window closed) are dropped.

        The session is taken now, as the training and the import take theirs, so the work is done
        on the project it was asked for (a preferences save just before the window closes was
        lost when it read ``self.session`` as it ran); the window's close job comes after it on
        the same worker, so that session is still open when ``fn`` runs. While a project is being
        opened (its job, queued before this one, swaps ``self.session`` when it runs) the one open
        when ``fn`` runs is used instead, as :meth:`search` does."""
        gen = self._project_gen
        asked = None if self._loading > 0 else self.session

        def run(_progress):
            session = asked if asked is not None else self.session
            if session is None:
                raise ProjectError("no project is open")
            return fn(session)

        def ok(value):
            if gen == self._project_gen:
                done(value)

        def bad(exc):
            if gen != self._project_gen or isinstance(exc, Cancelled):
                return
            if failed is not None:
                failed(exc)
            else:
                self.show_error(label, exc, _details(exc))
        return self.worker.run(run, ok, bad, label=label)

    def refresh_info(self) -> Task:
        return self._on_project(self._watch.info, self._info_refreshed, label="Reading the project")

    def _info_refreshed(self, info) -> None:
        """The project's info read afresh (after an import, or when another program or a
        background job changed the project: ChangeWatch): the status bar, the actions that need
        personas and the model quality window follow it; and when the active persona or its model
        changed (``sasc settings --set active_persona=...``, ``sasc classify train`` elsewhere), the
        results and the message shown are loaded again, so all three name the same persona. (Not
        while this window trains: its training reloads them when it ends.)"""
        before = sensitivity_source(self.info)
        self.info = info
        self._update_status()
        self._update_train_action()
        self._update_quality_persona()
        if before is not None and before != sensitivity_source(info) and not self._training:
            self._reload_shown()

    def _reload_shown(self) -> None:
        """Run the search shown again and reload the message shown (or just asked for)."""
        if self.search_panel.query:
            self.search(self.search_panel.query, self.search_panel.offset)
        if self._requested_doc is not None:
            self.open_document(self._requested_doc)

    def check_changes(self, then: Optional[Callable[[], None]] = None) -> Optional[Task]:
        """Has another program changed the project since the window last read it (personas
        imported with `sasc judgments import-categories`, as the persona tooltip tells the user to
        do; mail ingested; the active persona set)? One pragma on the worker (ChangeWatch); when
        it has, the project's info is read afresh and the status bar, Train, Check model quality
        and the quality window follow it. Run when the window is activated (the archivist comes
        back from the terminal), when the Tools menu opens, and before a training or a quality
        check. ``then()`` runs on the UI thread once it is known, while the same project is open."""
        if self.info is None or self._loading > 0 or self._closed:
            return None
        if then is None and self._change_check is not None and not self._change_check.done:
            return self._change_check  # one asked for already: it reads the same change

        def got(info):
            if info is not None:
                self._info_refreshed(info)
            if then is not None:
                then()

        def failed(exc):  # a check nobody asked for by name: logged, no dialog
            log.warning("checking %s for changes failed: %s", (self.info or {}).get("root"), exc)
        task = self._on_project(lambda session: self._watch.changed(session), got, failed,
                                label="Checking the project for changes")
        if then is None:
            self._change_check = task
        return task

    def changeEvent(self, event):  # noqa: N802 (Qt name)
        super().changeEvent(event)
        if event.type() == QEvent.Type.ActivationChange and self.isActiveWindow():
            self.check_changes()

    def _changed_info(self, info: Optional[dict[str, Any]], gen: int) -> None:
        """``info`` read with a search or a message (ChangeWatch.changed: None when nothing
        changed), shown while its project is: also when the search itself is no longer wanted
        (a newer one was asked for), since the watch has counted it as read."""
        if info is not None and gen == self._project_gen:
            self._info_refreshed(info)

    def ask_new_project(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Choose an empty folder for the new project", str(Path.home()))
        if folder:
            self.new_project(folder)

    def ask_open_project(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Open a SASC project folder", str(Path.home()))
        if folder:
            self.open_project(folder)

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        for root in self.state.recent:
            a = self.recent_menu.addAction(root.replace("&", "&&"))  # a path's "&" is no mnemonic
            a.triggered.connect(lambda checked=False, r=root: self.open_project(r))
        self.recent_menu.setEnabled(bool(self.state.recent))

    def open_demo(self) -> Optional[Task]:
        return self.build_demo(demo_project_dir())

    def build_demo(self, root: Path) -> Optional[Task]:
        """Open the app's own demo project at ``root``, built first when it is missing or was
        left unfinished: a first start killed while an earlier version built it in place left
        the project marker but no judgments, and one killed while moving the finished project
        into an existing folder leaves its files without the marker. Only a folder holding
        nothing but what a build writes is emptied to rebuild it; a project someone may have
        worked in (other mail imported, judgments, settings, exports), or whose database cannot
        be read, opens as it is, and a folder of other files is left alone with an error."""
        build = demo_builder()
        built = (root / "sasc-project.json").exists()  # finished, most likely: make() checks, off this thread
        if build is None and not built:
            self.doc_view.clear("No project is open, and the demo collection is not installed. "
                                "Use File ▸ New project, then File ▸ Import mail.")
            return None
        if built:
            self.flash(f"Opening {root}…", 0)
        else:
            self.doc_view.clear("Building the demo collection (first run only)…")

        building = {"now": False}  # the build reports on a 0-1000 scale: percentages while it runs

        def make(progress):
            if build is None:
                return Session.open(root, progress)
            from ..engine.demo_project import demo_status, refuse_reason, remove_stale_builds, remove_unfinished
            # At every start, not only before a build: the folder of a build killed less than a
            # minute before the start that rebuilt the demo is too young to sweep then (35-59 MB).
            try:
                remove_stale_builds(root)
            except (OSError, RuntimeError) as exc:  # not removable now: opening goes on
                log.warning("could not remove an old demo build beside %s: %s", root, exc)
            status = demo_status(root)  # a database it cannot read (locked, damaged) is "project": kept
            if status in ("complete", "project"):
                return Session.open(root, progress)
            if status == "other":
                raise ProjectError(f"{root} is where the demo project goes, but it holds other files; "
                                   f"move them away to have the demo built there")
            if status == "building":
                raise ProjectError(refuse_reason(root, status))
            if status == "incomplete":  # only build files: emptied (the folder itself stays), rebuilt
                remove_unfinished(root)
            building["now"] = True  # (and after: the late delivery of its last step, "demo project ready")
            build(root, progress)
            return Session.open(root, progress)  # a project just built: nothing to repair, no steps

        def shown(done, total, message):
            if building["now"]:
                self._status_progress(done, total, message, scale="Building the demo collection (first run only)")
            else:
                self._status_progress(done, total, message)
        return self._load(make, "Opening the demo project" if built else "Building the demo project", root,
                          on_progress=shown)

    # search and documents ---------------------------------------------------------------
    def focus_query(self) -> None:
        # (from the floating shortcuts panel, a window of its own: the main window activated
        # first; setFocus in a window that is not active gives no key the query box)
        if self.isVisible() and not self.isActiveWindow():
            self.activateWindow()
        self.search_panel.query_box.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.search_panel.query_box.lineEdit().selectAll()

    def search(self, query: str, offset: int = 0) -> Optional[Task]:
        if self.info is None:
            self.flash("Open a project first.", 5000)
            return None
        self._search_seq += 1
        seq = self._search_seq
        gen = self._project_gen
        # Another page of the same query keeps the whole-set sort chosen; a new search starts in rank order.
        sort = self.search_panel.engine_sort() if query == self.search_panel.query else None
        self.search_panel.requested_sort = sort
        by, descending = sort or (None, False)
        self.flash(f"Searching for {query}…" + (f" ({DURING_IMPORT})" if self._importing else ""), 0)

        def done(value):
            # (drawn only when no newer search was started and no other project opened since)
            result, probs, missing, changed = value
            self._changed_info(changed, gen)  # the persona and counts the results were computed with
            if seq != self._search_seq or gen != self._project_gen:
                return
            self.state.add_query(query)
            self.search_panel.set_history(self.state.history)
            # J / K across a page boundary: show_result selects (and opens) the row asked for and
            # clears the request; the first row is made current only when none was asked for
            # (read before: K on page 2's first row asks for the last row of the first page).
            asked_row = self.search_panel.pending_select
            self.search_panel.show_result(result, probs, offset, sort)
            self._refit_soon(dock=False)   # (the Sensitivity column shown or not: the results' least width)
            if self._importing:
                self.flash(f"{result.total:,} messages match ({DURING_IMPORT})", 5000)
            elif missing:  # another program rebuilds the index (or imports): said until the next search
                self.flash(f"{result.total:,} messages match ({incomplete_note(missing)})", 0)
            else:
                self.flash(f"{result.total:,} messages match", 5000)
            if offset == 0 and result.hits and asked_row is None:
                self.search_panel.table.setFocus()
                self.search_panel.table.setCurrentIndex(self.search_panel.proxy.index(0, 0))
            self.search_done.emit(result)

        def failed(exc):
            if gen != self._project_gen:
                return
            self.search_panel.pending_select = None
            self.show_error(f"The search for “{query}”", exc, _details(exc))

        def progress(done, total, message):
            if gen == self._project_gen:
                self._status_progress(done, total, INDEXING_LEFT if message else "")

        def run(progress_):
            # The project open when the search runs: one being opened was queued before it on
            # this worker (a session taken when the search was asked for could be the one left).
            session = self.session
            if session is None or gen != self._project_gen:
                return None, None, 0, None
            # Messages another program's import or 'sasc reindex' left unindexed (interrupted) are
            # indexed first, as opening the project does; while that program still holds the
            # import lock, nothing is done and the result line says how many are missing. One
            # small query when every message is indexed. Not during this window's own import
            # (its messages are its own to index).
            missing = 0 if self._importing else session.complete_index(progress_)
            result, probs = search_once(session)
            # Another program may have changed the project (the active persona, personas
            # imported, mail added): its info read afresh, so the status bar names the persona
            # whose sensitivity these results show (one pragma when nothing changed).
            return result, probs, missing, self._watch.changed(session)

        def search_once(session):
            try:
                return run_search(session, query, offset, sort=by, descending=descending)
            except SascError:
                raise
            except Exception:
                # An import commits to the index while we read it. The engine's SearchIndex
                # already retries once when a commit merged away files a search was reading
                # (Whoosh's stale reader); this is a second line for anything else an import's
                # commit can upset mid-search (e.g. a second commit during that retry).
                if not self._importing:
                    raise
                log.warning("a search during an import failed; trying once more", exc_info=True)
                return run_search(session, query, offset, sort=by, descending=descending)
        return self.worker.run(run, done, failed, label=f"Searching for {query!r}", on_progress=progress)

    def open_document(self, doc_id: str) -> Optional[Task]:
        if self.info is None:
            return None
        self._doc_seq += 1
        seq = self._doc_seq
        self._requested_doc = doc_id
        terms = tuple(self.search_panel.terms)

        gen = self._project_gen

        def done(value):
            payload, changed = value
            self._changed_info(changed, gen)  # the persona its sensitivity line explains
            if seq == self._doc_seq and gen == self._project_gen:
                self.doc_view.show_document(payload)
                self._refit_soon(dock=False)   # its header and sensitivity line may need more height
                self.document_shown.emit(doc_id)

        def load(session):
            payload = load_document(session, doc_id, terms)
            return payload, self._watch.changed(session)

        def failed(exc):
            if gen == self._project_gen:  # not a message of the project being left
                self.show_error(f"Opening the message {doc_id}", exc, _details(exc))
        return self._on_project(load, done, failed, label=f"Opening the message {doc_id}")

    def show_syntax_help(self) -> SyntaxHelpDialog:
        """The query syntax window: non-modal (a query can be typed while it is open), one window
        however often it is asked for."""
        if self._syntax_box is None:
            self._syntax_box = SyntaxHelpDialog(SYNTAX_HELP, self)
        self._syntax_box.show_help()
        return self._syntax_box

    def toggle_shortcuts(self) -> None:
        """F1: the shortcuts panel. Docked at the right, 320 px wide (down to PANEL_LEAST when
        that is what fits), it takes its room from the message more than from the results: the
        results keep their Subject column (SearchPanel.least_width) and the message its header
        and sensitivity line whole (DocumentView.needed_height). A window too small for all three
        (800 x 600: the results and the message at their least already fill it) gets the panel
        floating over its right edge, or beside the window when the screen has room, and the
        panes stay as they are."""
        panel = self.shortcuts_panel
        if panel.isVisible():
            panel.hide()
            if self._sizes_before_panel:  # the panes as they were before the panel opened
                self.splitter.setSizes(self._sizes_before_panel)
            return
        self._sizes_before_panel = self.splitter.sizes()
        self._panel_auto = True
        self._place_shortcuts()

    def _panel_plan(self) -> Optional[tuple[int, int]]:
        """(panel width, results width) for the panel docked beside panes as they are before it
        opens, or None when no width from PANEL_WIDTH down to PANEL_LEAST leaves the results and
        the message their room."""
        if not self._sizes_before_panel:
            return None
        results, message = self._panes_without_panel()
        room = results + message
        sep = self.style().pixelMetric(QStyle.PixelMetric.PM_DockWidgetSeparatorExtent, None, self)
        need = self.search_panel.least_width()
        doc_least = self.doc_view.minimumSizeHint().width()
        text_room = self.centralWidget().height() - self.fontMetrics().height() - 8   # less the panel's title
        for width in range(PANEL_WIDTH, PANEL_LEAST - 1, -10):
            total = room - sep - width
            keep = max(need, min(results, max(total * 3 // 5, total - message)))  # results lose at most to 60 %
            doc = total - keep
            if (doc >= doc_least and self.doc_view.needed_height(doc) <= self.doc_view.height()
                    and self.shortcuts_panel.text_height(width) <= text_room):
                return width, keep
        return None

    def _docked_panel_fits(self) -> bool:
        """The panel docked leaves every pane its room: Subject its width, the message's header
        and sensitivity line their lines, and the panel all its shortcuts."""
        text = self.shortcuts_panel.widget()
        return (self.search_panel.width() >= self.search_panel.least_width()
                and self.doc_view.needed_height(self.doc_view.width()) <= self.doc_view.height()
                and text.height() >= text.heightForWidth(text.width()))

    def _place_shortcuts(self) -> None:
        """Show the panel docked when it fits (see toggle_shortcuts), else floating."""
        panel = self.shortcuts_panel
        plan = self._panel_plan()
        self._placing_panel = True
        was_active = self.isActiveWindow()
        try:
            if plan is not None:
                width, keep = plan
                if panel.isFloating():
                    panel.setFloating(False)
                panel.show()
                self.resizeDocks([panel], [width], Qt.Orientation.Horizontal)
                self.layout().activate()   # the dock at its width now, not at the next layout pass
                total = sum(self.splitter.sizes())
                keep = min(keep, total - self.doc_view.minimumSizeHint().width())
                if 0 < keep < total:
                    self.splitter.setSizes([keep, total - keep])
                self.centralWidget().layout().activate()
                if self._docked_panel_fits():
                    self._refit_timer.start()  # checked again once every layout has settled
                    return
            # floating (and when the dock took another width than asked, after all)
            if not panel.isFloating():
                panel.setFloating(True)
            self._panes_beside_floating_panel()
            panel.show()
            self._place_floating_panel()
            self._keep_active(was_active)
        finally:
            self._placing_panel = False

    def _keep_active(self, was_active: bool) -> None:
        """The panel just floated (a window of its own) is for reading: the main window, when it
        was the active one, stays so (the panel asks not to be activated, WA_ShowWithoutActivating,
        but not every window system heeds that), and the keys typed next reach it."""
        if was_active and self.shortcuts_panel.isFloating():
            self.activateWindow()

    def _panes_beside_floating_panel(self) -> None:
        """With the panel floating, the panes as they were before it opened, but the results
        at least as wide as their Subject column needs, when the message keeps its room: the
        archivist reading the shortcuts sees the results' subjects."""
        if not self._sizes_before_panel:
            return
        results, message = self._panes_without_panel()
        total, need = results + message, self.search_panel.least_width()
        doc = total - need
        if (results < need and doc >= self.doc_view.minimumSizeHint().width()
                and self.doc_view.needed_height(doc) <= self.doc_view.height()):
            self.splitter.setSizes([need, doc])
        else:
            self.splitter.setSizes([results, message])

    def _panes_without_panel(self) -> tuple[int, int]:
        """The results' and the message's widths with no panel docked (the window's width less
        the splitter's handle), in the proportion they had before the panel opened (the window
        may have been resized since)."""
        results, message = self._sizes_before_panel
        room = self.width() - self.splitter.handleWidth()
        results = results * room // max(1, results + message)
        return results, room - results

    def _place_floating_panel(self) -> None:
        """The floating panel: PANEL_WIDTH wide, as tall as its text (at most the window's
        panes), beside the window's right edge when the screen has room there, else over it;
        always on the screen, frame and all (a window moved partly off the screen would have
        put it beyond the screen's edge, out of sight)."""
        panel = self.shortcuts_panel
        central = self.centralWidget()
        margins = panel.contentsMargins()
        height = min(panel.text_height(PANEL_WIDTH) + margins.top() + margins.bottom(), central.height())
        inside = central.mapToGlobal(QPoint(central.width() - PANEL_WIDTH, 0))
        screen = (self.screen() or QGuiApplication.primaryScreen()).availableGeometry()
        # the panel's frame (title bar, borders), as the window system drew it last
        outer, rect = panel.frameGeometry(), panel.geometry()
        left, top = max(0, rect.left() - outer.left()), max(0, rect.top() - outer.top())
        right, bottom = max(0, outer.right() - rect.right()), max(0, outer.bottom() - rect.bottom())
        frame = self.frameGeometry()
        if frame.right() + left + PANEL_WIDTH + right <= screen.right():
            inside.setX(frame.right() + 1 + left)
        room = screen.adjusted(left, top, -right, -bottom)   # where the panel's inside may go
        height = max(1, min(height, room.height()))
        x = max(room.left(), min(inside.x(), room.right() + 1 - PANEL_WIDTH))
        y = max(room.top(), min(inside.y(), room.bottom() + 1 - height))
        panel.setGeometry(QRect(QPoint(x, y), QSize(PANEL_WIDTH, height)))

    def _panel_moved_by_hand(self, _floating: bool) -> None:
        """The archivist docked or floated the panel by hand: it stays where it was put."""
        if not self._placing_panel:
            self._panel_auto = False

    def _refit_shortcuts(self) -> None:
        """The window resized or moved, or the panes' content changed, with the panel open:
        docked or floating, whichever fits now (see _refit_soon); the floating panel follows the
        window."""
        panel = self.shortcuts_panel
        if not (panel.isVisible() and self._panel_auto) or self._placing_panel:
            return
        may_dock, self._refit_may_dock = self._refit_may_dock, True
        if panel.isFloating():
            if not may_dock or self._panel_plan() is None:
                self._place_floating_panel()
                return
            self._place_shortcuts()
        elif not self._docked_panel_fits():   # planned again: docked when a width fits, else floating
            self._place_shortcuts()

    def _refit_soon(self, *_args, dock: bool = True) -> None:
        """The panes' room or content changed (a resize, the notice bar shown or hidden, a
        project opened, a message or results shown): with the panel open, it is refitted once
        the layouts have settled. ``dock=False`` (a message or results shown): a docked panel
        that no longer fits is placed again (docked at a width that fits, else floating), but a
        floating one is not docked again, so that paging through messages with J / K does not
        dock and float the panel by turns."""
        panel = getattr(self, "shortcuts_panel", None)
        if panel is not None and panel.isVisible():
            if not self._refit_timer.isActive():
                self._refit_may_dock = dock
            else:
                self._refit_may_dock = self._refit_may_dock or dock
            self._refit_timer.start()

    def resizeEvent(self, event):  # noqa: N802 (Qt name)
        super().resizeEvent(event)
        self._refit_soon()

    def moveEvent(self, event):  # noqa: N802 (Qt name)
        super().moveEvent(event)
        panel = getattr(self, "shortcuts_panel", None)
        if panel is not None and panel.isVisible() and panel.isFloating():
            self._refit_timer.start()

    def _about(self) -> None:
        QMessageBox.about(self, "About SASC Desktop",
                          "<b>SASC Desktop</b><br>Search among sensitive content: open donated email "
                          "collections to researchers without exposing what is sensitive. Works fully offline.")

    # import -----------------------------------------------------------------------------
    def show_import(self, sources: Optional[list] = None) -> Optional[ImportDialog]:
        if self.info is None:
            return None
        if self._read_only:
            self.flash(f"Cannot import mail: {READ_ONLY}", 10000)
            return None
        if self.import_dialog is None:
            self.import_dialog = ImportDialog(self, self._start_import, Path(self.info["root"]).name,
                                              self.info["root"], self._project_gen)
            self.import_dialog.finished_import.connect(self.import_finished)
        for s in sources or []:
            self.import_dialog.add_source(s)
        self.import_dialog.show()
        self.import_dialog.raise_()
        return self.import_dialog

    def _retarget_import(self, info: dict[str, Any]) -> None:
        """A project was opened while the Import window is open: from now on it imports into that
        project, named in its title. Another project's sources, report, progress and skipped
        messages are cleared, so that they cannot be imported into this one by pressing Import;
        the same project reopened keeps them. (No import runs now: opening a project waits for
        the import to end, and the import goes into the project it started in.)"""
        dlg = self.import_dialog
        if dlg is None or dlg.running:
            return
        name = Path(info["root"]).name
        read_only = info.get("read_only")
        if dlg.project_root == info["root"]:
            was_read_only = dlg.read_only_tip is not None
            dlg.set_project(name, info["root"], self._project_gen)
            dlg.set_read_only(READ_ONLY_TIP if read_only else None)
            if read_only:
                dlg.status.setText(html.escape(sentence(read_only_note(read_only))))
            elif was_read_only:   # writable again (its folder made writable, say)
                dlg.status.setText(f"<b>{html.escape(name)} is open now: mail is imported into it.</b>")
            return
        if read_only:   # said as the notice bar says it; the Import button off
            note = f"<b>{html.escape(name)} is open now.</b> {html.escape(sentence(read_only_note(read_only)))}"
        else:
            note = f"<b>{html.escape(name)} is open now: mail is imported into it.</b>"
        old = dlg.project_name or "the project open before"
        if dlg.report is not None:  # "The import into donorA finished: 40 new messages, 0 skipped."
            note += " " + html.escape(import_summary(dlg.report).replace("Import", f"The import into {old}", 1)) + "."
        if dlg.source_paths():
            note += f" The mailboxes listed for {html.escape(old)} were removed."
        dlg.reset(name, info["root"], self._project_gen, note)
        dlg.set_read_only(READ_ONLY_TIP if read_only else None)

    def _start_import(self, sources, on_progress, on_done, on_error, project_gen: Optional[int] = None) -> Task:
        """Import ``sources`` into the project open now. ``project_gen``: the project generation
        the sources were chosen under (the Import window's); sources chosen for a project no
        longer open are refused, never imported into this one."""
        stale = project_gen is not None and project_gen != self._project_gen and self._loading == 0
        read_only = self._read_only and self._loading == 0   # (the Import window was open when it was opened)
        if self._training or self._checking or self._loading > 0 or stale or read_only:  # say why not now
            why = (IMPORT_WHILE_TRAINING if self._training else IMPORT_WHILE_CHECKING if self._checking
                   else IMPORT_WHILE_LOADING if self._loading > 0
                   else capitalised(read_only_note(self.info["read_only"])) if read_only
                   else IMPORT_OTHER_PROJECT.format(name=Path(self.info["root"]).name if self.info else "another project"))

            def refuse(_progress):
                raise SascError(why)
            return self.worker.run(refuse, on_done, on_error, label="Importing mail")
        self._importing = True
        self._update_train_action()
        gen = self._project_gen
        self._job_progress(0, None, "Importing mail")

        def progress(done, total, message):
            on_progress(done, total, message)
            if gen == self._project_gen:  # the import's own line in the status bar, as a training has
                self._job_progress(done, total, f"Importing mail: {message}" if message else "Importing mail")

        def finish():
            self._importing = False
            self._job_progress(0, None, "")
            self._update_train_action()

        def done(report):
            finish()
            if self._closed:  # the window was closed meanwhile: nothing to report to
                return
            on_done(report)
            self.flash(import_summary(report), 20000)  # also when the Import window was closed
            if gen == self._project_gen:  # else another project is open (or opening) now
                self.refresh_info()

        def failed(exc):
            finish()
            if self._closed:
                return
            on_error(exc)
            self.flash(import_summary(IngestReport(cancelled=True)) if isinstance(exc, Cancelled)
                       else f"The import did not run: {exc}", 20000)
        session = self.session

        def run(progress):
            try:
                return session.ingest(sources, progress)
            finally:
                session.store.close()  # this thread's connection: a closed project keeps none open
        # On the background worker, as a training is (never beside one): searching and reading go
        # on meanwhile on the worker (SQLite in WAL mode; Whoosh readers beside its writer).
        return self.background.run(run, done, failed, label="Importing mail", on_progress=progress)

    # sensitivity model ------------------------------------------------------------------
    def train_model(self) -> Optional[Task]:
        """Tools ▸ Train sensitivity model…: train the current persona's model on the background
        worker (search and reading go on meanwhile), then re-run the current search and reload
        the message shown (or just asked for), so the sensitivity column and the evidence line
        show the new model. Callbacks arriving after another project was opened do nothing."""
        if self.info is None or self._training or self._checking or self._importing or self._loading > 0:
            return None
        if self._read_only:
            self.flash(f"Cannot train a sensitivity model: {READ_ONLY}", 10000)
            return None
        if not self.info.get("personas"):
            # Personas may have been imported by another program since the window last looked:
            # read the project again, then train if it has them now, else say how to get them.
            def retry():
                if self.info is not None and self.info.get("personas"):
                    self.train_model()
                elif self.info is not None:
                    self.flash(capitalised(no_personas_message(self.info["root"])), 20000)
            self.check_changes(retry)
            return None
        self.check_changes()  # the status bar names the persona the training is for
        gen = self._project_gen
        self.flash("Training the sensitivity model…", 3000)  # then its own line beside the Cancel button

        def progress(done, total, message):
            if gen == self._project_gen:  # the training's own line, beside its progress bar
                self._job_progress(done, total, f"Training: {message}" if message else "Training")

        def finish():
            self._train_task = None
            self._job_progress(0, None, "")
            self._update_train_action()

        def done(value):
            finish()
            if gen != self._project_gen:  # another project is being opened: nothing to refresh
                self._late_training = ("trained", value)
                return
            name, info = value
            if self.info is not None:  # its model is the one shown from now on (no second reload)
                self.info.setdefault("models", {})[info.persona] = info.version
            doc_id = self._requested_doc  # the message shown, or the one the archivist just clicked
            self._reload_shown()

            def finished(_):  # queued after the refreshes (one worker thread, first in first out)
                if gen != self._project_gen:
                    return
                rows = [r for r in range(self.search_panel.proxy.rowCount())
                        if getattr(self.search_panel.hit_at(self.search_panel.proxy.index(r, 0)), "doc_id", None) == doc_id]
                if rows:  # the re-run search selected its first row: point back at the open message
                    self.search_panel.select_row(rows[0], open_it=False)
                self.flash(trained_message(name, info), 20000)
                self.model_trained.emit(info)
            self.worker.run(lambda p: None, finished, label="Finishing the training")

        def failed(exc):
            finish()
            if isinstance(exc, Cancelled):
                if gen == self._project_gen:  # not when it stopped because another project opened
                    self.flash(TRAINING_CANCELLED, 20000)
                else:
                    self._late_training = ("cancelled", None)
                self.training_cancelled.emit()
                return
            if gen != self._project_gen:  # about the project being left (the log keeps it)
                self._late_training = ("failed", exc)
                return
            self.show_error("Training the sensitivity model", exc, _details(exc))
            self.training_failed.emit(exc)
        session = self.session

        def run(progress_):
            try:
                return train_current_persona(session, progress_)
            finally:
                session.store.close()  # this thread's connection: a closed project keeps none open
        self._train_task = self.background.run(run, done, failed, label="Training the sensitivity model",
                                               on_progress=progress)
        self._update_train_action()
        return self._train_task

    @property
    def _training(self) -> bool:
        return self._train_task is not None

    def cancel_training(self) -> None:
        """Tools ▸ Cancel training (or the status bar's Cancel training button): the engine stops at
        its next step and writes nothing, so the saved model and its scores stay as they were."""
        if self._train_task is not None and not self._train_task.cancelled:
            self._train_task.cancel()
            self.cancel_train_action.setEnabled(False)
            self.flash("Cancelling the training…", 0)

    # model quality ----------------------------------------------------------------------
    @property
    def _checking(self) -> bool:
        return self._check_task is not None

    def _check_refusal(self) -> Optional[str]:
        """Why a model quality check may not start now, or None."""
        if self._loading > 0:
            return CHECK_WHILE_LOADING
        if self._training:
            return CHECK_WHILE_TRAINING
        if self._importing:
            return CHECK_WHILE_IMPORTING
        return None

    def _update_quality_persona(self) -> None:
        """The dialog names the persona a check would cover: the active persona, else the first
        (current_persona's choice)."""
        if self.quality_dialog is None or self.quality_dialog.running:
            return  # (a running check's persona stays named until it ends: then this is called again)
        personas = (self.info or {}).get("personas") or []
        active = (self.info or {}).get("settings", {}).get("active_persona")
        chosen = next((p for p in personas if p["id"] == active), personas[0] if personas else None)
        self.quality_dialog.set_persona(None if chosen is None else (chosen.get("name") or chosen["id"]),
                                        (self.info or {}).get("root"),
                                        None if chosen is None else chosen["id"],
                                        read_only=(self.info or {}).get("read_only"))

    def show_quality(self) -> Optional[QualityDialog]:
        """Tools ▸ Check model quality…: the non-modal dialog for the current persona."""
        if self.info is None:
            return None
        if self.quality_dialog is None:
            self.quality_dialog = QualityDialog(self, self.check_quality)
        self.check_changes()  # the persona named follows one made active (or imported) elsewhere
        self._update_quality_persona()
        self.quality_dialog.set_blocked(self._check_refusal())
        self.quality_dialog.show()
        self.quality_dialog.raise_()
        self.quality_dialog.activateWindow()
        return self.quality_dialog

    def check_quality(self, options: dict[str, Any], on_progress: Callable, on_done: Callable,
                      on_error: Callable) -> Optional[Task]:
        """Run the engine's nested cross-validation for the current persona on the background
        worker, like a training (search and reading go on meanwhile), never beside a training or an
        import. Read-only. Callbacks arriving after another project was opened do nothing."""
        refusal = self._check_refusal()
        if refusal is None and (self.info is None or not self.info.get("personas")):
            refusal = no_personas_message(self.info["root"] if self.info else None,
                                          (self.info or {}).get("read_only"))
        if refusal is None and self._checking:
            refusal = "a check is already running"
        if refusal is not None:
            on_error(SascError(refusal))
            return None
        gen = self._project_gen
        # The persona the window names, whatever another program made active meanwhile: the
        # figures are always for the persona shown above them.
        persona = self.quality_dialog.persona_id if self.quality_dialog is not None else None
        self.flash("Checking the sensitivity model's quality…", 3000)

        def progress(done, total, message):
            if gen == self._project_gen:
                self._job_progress(done, total, f"Checking model quality: {message}" if message else
                                   "Checking model quality")
                on_progress(done, total, message)

        def finish():
            self._check_task = None
            self._job_progress(0, None, "")
            self._update_train_action()
            self._update_quality_persona()  # a persona changed while it ran is named now (the task is done)

        def done(value):
            cancelled = task.cancelled  # cancelled after its last step: no figures all the same
            finish()
            if gen != self._project_gen:  # another project is open now: nothing to show
                return
            if cancelled:
                failed_(Cancelled())
                return
            on_done(value)
            self.flash(quality_message(value), 20000)
            self.quality_checked.emit(value)

        def failed_(exc):
            if isinstance(exc, Cancelled):
                on_error(exc)
                self.flash(CHECK_CANCELLED, 10000)
                self.quality_check_cancelled.emit()
                return
            on_error(exc)
            self.flash(f"Model quality check did not run: {exc}", 10000)
            self.quality_check_failed.emit(exc)
            self.refresh_info()  # (a persona removed by another program: the window names the one now current)

        def failed(exc):
            finish()
            if gen == self._project_gen:
                failed_(exc)
        session = self.session

        def run(progress_):
            try:
                return check_current_persona(session, progress_, options, persona=persona)
            finally:
                session.store.close()  # this thread's connection: a closed project keeps none open
        task = self.background.run(run, done, failed, label="Checking the sensitivity model's quality",
                                   on_progress=progress)
        self._check_task = task
        self._update_train_action()
        return task

    # preferences ------------------------------------------------------------------------
    def show_preferences(self) -> Optional[Task]:
        """File ▸ Preferences… (Ctrl+,): one dialog, however often it is asked for. The settings
        are read on the worker first; while that read waits behind other work, asking again
        does nothing more (and an open dialog is raised). While a project is being opened the
        status line says Preferences opens once it is open, and it does then."""
        dlg = self.prefs_dialog
        if dlg is not None and dlg.isVisible():
            dlg.raise_()
            dlg.activateWindow()
            return None
        if self._prefs_task is not None and not self._prefs_task.done:
            return self._prefs_task  # asked for already: that one dialog comes
        if self._loading > 0:
            self._prefs_after_open = True
            self.flash(PREFS_WHILE_LOADING, 0)
            return None
        if self.info is None:
            return None
        if self._read_only:
            self.flash(f"Preferences cannot be changed: {READ_ONLY}", 10000)
            return None

        def ready(info):
            self._prefs_task = None
            self._info_refreshed(info)
            if self.prefs_dialog is not None and self.prefs_dialog.isVisible():
                return
            dlg = PreferencesDialog(self, info["settings"], info["personas"])
            dlg.accepted.connect(lambda: self.save_preferences(dlg.values()))
            self.prefs_dialog = dlg
            dlg.open()

        def failed(exc):
            self._prefs_task = None
            self.show_error("Reading the preferences", exc, _details(exc))
        self._prefs_task = self._on_project(self._watch.info, ready, failed, label="Reading the preferences")
        return self._prefs_task

    def save_preferences(self, values: dict[str, Any]) -> Optional[Task]:
        """Save the settings changed, to the project open now; its refreshes only while that
        project is still shown. A save asked for just before the window closes is still made:
        the session is taken now and the close job comes after it (and closing does not
        cancel it)."""
        if not values:  # OK with nothing changed: nothing to write, nothing to refresh
            self.flash("Preferences unchanged", 3000)
            return None
        gen = self._project_gen

        def save(session):
            settings = session.update_settings(**values)
            # The model keeps the internal domains it was trained with (its feature space's
            # internal_domains_): new ones count in the sensitivity shown once it is retrained.
            persona = settings.get("active_persona")
            stale = "internal_domains" in values and persona is not None and session.store.con.execute(
                "SELECT 1 FROM classifier_models WHERE persona = ?", (persona,)).fetchone() is not None
            return settings, stale

        def done(value):
            settings, stale = value
            self.info["settings"] = settings
            self._update_status()
            self._update_quality_persona()
            searching = bool(self.search_panel.query)
            self._reload_shown()  # the sensitivity shown is the active persona's, the ranking the new weights'
            asked = self.message_label.text()   # "Searching for …" when the search is run again

            def finished(_):
                # Queued after the refreshes (one worker thread, first in first out), as a training's
                # finish message is: the confirmation is not replaced at once by the search's lines;
                # what the search said ("N messages match") is kept beside it.
                if gen != self._project_gen:
                    return
                said = self.message_label.text()
                text = saved_message(values, stale)
                if searching and said and said != asked:
                    text += f" · {said}"
                self.flash(text, 20000 if stale else 10000)
            self.worker.run(lambda _p: None, finished, label="Finishing the preferences")
        task = self._on_project(save, done, label="Saving the preferences")
        task.keep_on_close = True  # type: ignore[attr-defined]
        return task

    # window state -----------------------------------------------------------------------
    def _restore_geometry(self) -> None:
        """The window and the panes as they were left; the defaults when nothing was saved or what
        was saved is not a state Qt can restore (a state file edited by hand)."""
        geo, split = self.state.get("geometry"), self.state.get("splitter")
        if not (isinstance(geo, str) and geo and self.restoreGeometry(QByteArray.fromBase64(geo.encode()))):
            self.resize(1280, 800)
        if not (isinstance(split, str) and split and self.splitter.restoreState(QByteArray.fromBase64(split.encode()))):
            self.splitter.setSizes([700, 580])

    def _background_job(self) -> str:
        """What runs on the background worker, in words for the status bar."""
        if self._importing:
            return "the import"
        if self._training:
            return "the training"
        if self._checking:
            return "the model quality check"
        return "the background job"

    def _background_busy(self, busy: bool) -> None:
        if not busy and self._closing:  # the job asked to stop has stopped: close now
            QTimer.singleShot(0, self.close)

    def closeEvent(self, event):  # noqa: N802
        if self.background.busy:
            # An import (or a training, or a quality check) stops at its next step and leaves the
            # project consistent; the window stays responsive meanwhile and closes when the
            # background worker reports idle. The UI thread never waits on it.
            event.ignore()
            what = self._background_job()
            if not self._closing:
                self._closing = True
                if self.import_dialog is not None:
                    self.import_dialog.cancel()  # its own "Cancelling…" line
                for task in list(self.background.pending):
                    task.cancel()
                self.cancel_train_action.setEnabled(False)
            self.flash(f"Stopping {what}… the window closes when it has stopped", 0)
            return
        self._closing = False
        self._closed = True
        self._project_gen += 1  # callbacks still queued find no project to refresh
        for task in list(self.worker.pending):
            if not getattr(task, "keep_on_close", False):  # a preferences save is still made
                task.cancel()
        self.background.wait(60_000)  # idle: its last callback has run (busy_changed comes after it)
        self.state.data["geometry"] = bytes(self.saveGeometry().toBase64()).decode()
        self.state.data["splitter"] = bytes(self.splitter.saveState().toBase64()).decode()
        self.state.save()

        def close_project(_progress):
            # After every job queued before it (they took their session, or read this one). The
            # project open when it runs: one whose open was still queued when the window closed
            # is closed too, not left open.
            session, self.session = self.session, None
            self._watch.close()
            if session is not None:
                session.close()
        self.worker.run(close_project, label="Closing the project")
        self.worker.wait(60_000)
        super().closeEvent(event)


def capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


def _details(exc: BaseException) -> str:
    import traceback
    return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
