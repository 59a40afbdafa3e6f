"""``sasc-desktop``: start the app (last project, the demo on first run, or ``--project DIR``),
or with ``--screenshot PNG`` open, wait until loaded, save a screenshot and exit."""
from __future__ import annotations

import argparse
import logging
import sys
import traceback
from pathlib import Path
from typing import Optional

from PySide6.QtCore import QPoint, QTimer
from PySide6.QtGui import QIcon, QPainter
from PySide6.QtWidgets import QApplication

from .config import AppState, demo_project_dir, setup_logging
from .mainwindow import MainWindow

log = logging.getLogger("sasc_desktop.gui")
RESOURCES = Path(__file__).resolve().parents[2] / "resources"


def window_size(text: str) -> tuple[int, int]:
    """``--size``: "WxH" in pixels, e.g. 1280x800 (argparse says what is wrong, no traceback)."""
    w, sep, h = text.strip().lower().partition("x")
    try:
        if not sep:
            raise ValueError
        size = int(w), int(h)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size: WxH expected, e.g. 1280x800") from None
    if min(size) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: the width and the height must be at least 1 pixel")
    return size


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="sasc-desktop", description="SASC Desktop: search among sensitive content.")
    p.add_argument("--project", metavar="DIR", help="open this project folder")
    p.add_argument("--screenshot", metavar="PNG", help="open, wait until loaded, save a screenshot to PNG and exit")
    p.add_argument("--view", choices=("search", "document", "import"), default="search",
                   help="what the screenshot shows (default: search)")
    p.add_argument("--size", type=window_size, default=(1280, 800), metavar="WxH",
                   help="window size for the screenshot, WxH (default 1280x800)")
    p.add_argument("--timeout", type=float, default=900.0, help="give up on --screenshot after this many seconds")
    return p.parse_args(argv)


def apply_style(app: QApplication) -> None:
    qss = RESOURCES / "style.qss"
    if qss.exists():
        app.setStyleSheet(qss.read_text(encoding="utf-8"))
    icon = RESOURCES / "icons" / "sasc-desktop.svg"
    if icon.exists():
        app.setWindowIcon(QIcon(str(icon)))


def start(window: MainWindow, project: Optional[str]) -> None:
    """What opens at start-up: the given project, the last one, or the demo (built on first run)."""
    if project:
        window.open_project(project)
        return
    last = window.state.last_project
    # The demo goes through open_demo even when it was the last project: one a killed first
    # start left unfinished is rebuilt there, not opened empty again.
    if last and (Path(last) / "sasc-project.json").exists() and not _same_folder(last, demo_project_dir()):
        window.open_project(last)
    else:
        window.open_demo()


def _same_folder(a: Path | str, b: Path | str) -> bool:
    try:
        return Path(a).expanduser().resolve() == Path(b).expanduser().resolve()
    except OSError:
        return False


class Screenshotter:
    """Drives the window to the requested view, then saves a PNG and quits with a status."""

    def __init__(self, window: MainWindow, path: Path, view: str, app: QApplication):
        self.window, self.path, self.view, self.app = window, Path(path), view, app
        self.code = 1
        window.project_loaded.connect(self._loaded)
        window.project_failed.connect(lambda exc: QTimer.singleShot(300, lambda: self._save(1)))

    def _loaded(self, info) -> None:
        if self.view == "import":
            dlg = self.window.show_import([s["path"] for s in info["stats"].get("sources", [])][:3])
            dlg.status.setText("Choose the mailboxes to import, then press Import.")
            QTimer.singleShot(400, lambda: self._save(0))
            return
        from .mainwindow import sample_query
        self.window.worker.run(lambda p: sample_query(self.window.session), self._query, label="Choosing a sample query")

    def _query(self, query) -> None:
        if not query:
            QTimer.singleShot(300, lambda: self._save(0))
            return
        self.window.search_panel.query_box.setEditText(query)
        self.window.search_done.connect(self._searched)
        self.window.search(query)

    def _searched(self, result) -> None:
        self.window.search_done.disconnect(self._searched)
        if not result.hits:
            QTimer.singleShot(300, lambda: self._save(0))
            return
        self.window.document_shown.connect(lambda _doc: QTimer.singleShot(400, lambda: self._save(0)))
        if self.view == "document":
            self.window.splitter.setSizes([640, 640])  # fixed columns take ~460 px; leave room for Subject
        self.window.search_panel.select_row(0)

    def _save(self, code: int) -> None:
        pixmap = self.window.grab()
        dlg = self.window.import_dialog
        if self.view == "import" and dlg is not None and dlg.isVisible():
            painter = QPainter(pixmap)
            shot = dlg.grab()
            painter.drawPixmap(QPoint((pixmap.width() - shot.width()) // 2, (pixmap.height() - shot.height()) // 2), shot)
            painter.end()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        ok = pixmap.save(str(self.path))
        self.code = code if ok else 1
        print(f"screenshot saved to {self.path}" if ok else f"could not save {self.path}", file=sys.stderr)
        self.window.close()
        self.app.exit(self.code)


def _excepthook(exc_type, exc, tb) -> None:
    details = "".join(traceback.format_exception(exc_type, exc, tb))
    log.error("unhandled error: %s", details)
    sys.__stderr__.write(details)
    app = QApplication.instance()
    win = next((w for w in (app.topLevelWidgets() if app else []) if isinstance(w, MainWindow)), None)
    if win is not None:
        win.show_error("An operation", exc, details)


def run(argv: list[str]) -> int:
    args = parse_args(argv)
    setup_logging()
    app = QApplication.instance() or QApplication([sys.argv[0] if sys.argv else "sasc-desktop"])
    app.setApplicationName("SASC Desktop")
    app.setOrganizationName("SASC")
    app.setDesktopFileName("sasc-desktop")  # the Wayland app_id: matched to sasc-desktop.desktop (its icon, name)
    apply_style(app)
    sys.excepthook = _excepthook  # a bug in a UI callback shows a dialog; the app keeps running
    window = MainWindow(AppState())
    shooter = None
    if args.screenshot:
        app.setQuitOnLastWindowClosed(False)  # the screenshotter exits with its own status
        window.resize(*args.size)
        shooter = Screenshotter(window, Path(args.screenshot), args.view, app)
        QTimer.singleShot(int(args.timeout * 1000), lambda: shooter._save(1))
    window.show()
    QTimer.singleShot(0, lambda: start(window, args.project))
    code = app.exec()
    return shooter.code if shooter is not None else code
