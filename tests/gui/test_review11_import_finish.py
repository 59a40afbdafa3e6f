"""The Import window's finish message: '1 new message' (not '1 new messages', the plural as
import_summary makes it), and an import cancelled before its first batch ended says how long it
ran (it said 'in 0.0 s' after 0.6 s of work: the engine's Cancelled carries no report)."""
from __future__ import annotations

import re
import time

from sasc_desktop.engine.records import IngestReport
from sasc_desktop.gui.import_dialog import import_summary

from gui_support import make_mbox, open_project, wait_idle

HOLD = 0.4   # seconds the worker is kept busy before the import task may run


def _plain(text: str) -> str:
    return re.sub("<[^>]+>", "", text)


def test_one_new_message_is_singular(qtbot, window, project, tmp_path):
    open_project(qtbot, window, project)
    dlg = window.show_import([make_mbox(tmp_path / "one.mbox", 1, start=900)])
    with qtbot.waitSignal(window.import_finished, timeout=60_000) as sig:
        dlg.start_button.click()
    assert sig.args[0].ingested == 1 and not sig.args[0].skipped
    assert _plain(dlg.status.text()).startswith(
        "Import finished. 1 new message, 0 already in the project (copies of mail imported before, "
        "or met twice), 0 skipped, in ")
    wait_idle(qtbot, window)


def test_the_finish_text_exact_for_one_and_for_many(qtbot, window):
    from sasc_desktop.gui.import_dialog import ImportDialog
    dlg = ImportDialog(window, lambda *a, **k: None, "p")
    qtbot.addWidget(dlg)
    dlg._done(IngestReport(ingested=1, duplicates=1, seconds=2.25))
    assert _plain(dlg.status.text()) == ("Import finished. 1 new message, 1 already in the project (copies of mail "
                                         "imported before, or met twice), 0 skipped, in 2.2 s.")
    dlg._done(IngestReport(ingested=1_234, duplicates=0, seconds=12.0, cancelled=True))
    assert _plain(dlg.status.text()) == (
        "Import cancelled. 1,234 new messages, 0 already in the project (copies of mail imported before, "
        "or met twice), 0 skipped, in 12.0 s. What was imported before the cancel is kept and searchable; "
        "import the same mailbox again to add the rest.")
    # the status bar's line and the window's say the same number the same way
    assert import_summary(IngestReport(ingested=1)) == "Import finished: 1 new message, 0 skipped"


def test_a_cancel_before_the_first_batch_says_how_long_the_import_ran(qtbot, window, project, tmp_path):
    open_project(qtbot, window, project)
    dlg = window.show_import([make_mbox(tmp_path / "more.mbox", 50, start=2000)])
    # the background worker (imports run there) is busy for HOLD s: the import queued behind it meets the cancel at
    # once, before anything is read (the engine raises Cancelled; there is no report)
    window.background.run(lambda _progress: time.sleep(HOLD), label="holding the worker")
    t0 = time.monotonic()
    with qtbot.waitSignal(window.import_finished, timeout=60_000) as sig:
        dlg.start_button.click()
        dlg.cancel_button.click()
    ran = time.monotonic() - t0
    report = sig.args[0]
    assert report.cancelled and report.ingested == 0
    assert HOLD <= report.seconds <= ran
    assert f"0 skipped, in {report.seconds:.1f} s." in _plain(dlg.status.text())
    wait_idle(qtbot, window)
