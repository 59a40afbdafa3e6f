"""Tools ▸ Check model quality…: the archivist sees how good the current persona's sensitivity
model is, by the engine's honest nested cross-validation, in a non-modal dialog. Real projects,
real judgments, real cross-validation (no mocks), offscreen. A step of the engine is held (not
slept on) where a test must act mid-run."""
from __future__ import annotations

import html
import json
import os
import sqlite3
import threading
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

from sasc_desktop.engine.classify import DEFAULT_KIND, cross_validate
from sasc_desktop.engine.errors import InputError
from sasc_desktop.engine.session import Session

from gui_support import make_mbox, open_project, search, tip_text, wait_idle

SENSITIVE_WORDS = ("salary", "doctor")
PERSONA = "holly-palmer"


def build(tmp: Path, n: int = 90, noisy: bool = True, only_sensitive: int | None = None,
          active: str | None = PERSONA, name: str = "judged") -> dict:
    """A real project of ``n`` messages, two personas; Holly Palmer's judgments say sensitive
    when the body mentions salary or doctor, every fourth one flipped (``noisy``) so the figures
    are neither perfect nor trivial; ``only_sensitive`` keeps that many sensitive judgments."""
    from sasc_desktop.engine.project.judgments import save_personas, save_sensitivity
    root = tmp / name
    with Session.create(root) as s:
        s.ingest([make_mbox(tmp / f"{name}.mbox", n)], workers=0)
        save_personas(s.store, [{"id": PERSONA, "name": "Holly Palmer"}, {"id": "second", "name": "Second Reader"}])
        docs = [(r[0], r[1]) for r in s.store.con.execute("SELECT doc_id, body FROM messages ORDER BY id")]
        labels = {d: int(any(w in b for w in SENSITIVE_WORDS)) ^ int(noisy and i % 4 == 0)
                  for i, (d, b) in enumerate(docs)}
        if only_sensitive is not None:
            keep = [d for d, y in labels.items() if y][:only_sensitive]
            labels = {d: int(d in keep) for d in labels}
        save_sensitivity(s.store, [(PERSONA, "", d, y) for d, y in labels.items()])
        if active:
            s.update_settings(active_persona=active)
    return {"root": root, "labels": labels}


@pytest.fixture
def judged(tmp_path) -> dict:
    return build(tmp_path)


def db_state(root: Path) -> dict:
    """Every row of every table of the project's database, and the models folder's files."""
    con = sqlite3.connect(root / "project.sqlite")
    try:
        tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        rows = {t: sorted(map(repr, con.execute(f'SELECT * FROM "{t}"'))) for t in tables}
    finally:
        con.close()
    models = sorted(p.name for p in (root / "models").glob("classifier-*")) if (root / "models").exists() else []
    return {"tables": rows, "model_files": models}


def engine_cv(root: Path, **options) -> dict:
    with Session.open(root) as s:
        return cross_validate(s, PERSONA, seed=0, **options)


class Held:
    """Holds the engine at one step until released, so a test acts while a check runs:
    ``fit`` (default) holds the first inner model fit (the check can still be cancelled);
    ``measures`` holds the calibration error, computed after the last cancel point."""

    def __init__(self, monkeypatch, where: str = "fit"):
        from sasc_desktop.engine.classify import api
        from sasc_desktop.engine.classify.model import SensitivityClassifier
        owner, name = (SensitivityClassifier, "_fit_base") if where == "fit" else (api, "expected_calibration_error")
        self.started, self.release = threading.Event(), threading.Event()
        self.calls = 0
        real = getattr(owner, name)

        def held(*args):
            self.calls += 1
            self.started.set()
            self.release.wait(60)
            return real(*args)
        monkeypatch.setattr(owner, name, held)


def set_choice(combo, key) -> None:
    combo.setCurrentIndex(combo.findData(key))


def open_dialog(qtbot, window, root):
    open_project(qtbot, window, root)
    dlg = window.show_quality()
    qtbot.waitExposed(dlg)
    return dlg


# --------------------------------------------------------------------------------------------
def test_the_action_sits_by_train_and_opens_a_non_modal_dialog(qtbot, window, project, judged):
    from sasc_desktop.gui.quality_dialog import KIND_CHOICES
    actions = window.tools_menu.actions()
    assert actions.index(window.quality_action) == actions.index(window.train_action) + 1
    assert window.quality_action.text() == "Check model &quality…"
    assert not window.quality_action.isEnabled() and window.show_quality() is None  # no project
    open_project(qtbot, window, project)                                            # no personas
    assert not window.quality_action.isEnabled()
    open_project(qtbot, window, judged["root"])
    assert window.quality_action.isEnabled()
    window.quality_action.trigger()
    dlg = window.quality_dialog
    qtbot.waitExposed(dlg)
    assert dlg.isVisible() and not dlg.isModal()
    assert "Persona: Holly Palmer" in dlg.persona_label.text()
    # the defaults: F1, the engine's default kind (logistic regression), 5 folds
    assert dlg.options() == {"optimise": "f1", "kind": DEFAULT_KIND, "folds": 5}
    assert [dlg.kind.itemData(i) for i in range(dlg.kind.count())] == ["lr", "or", "svm"]
    assert dlg.kind.itemText(0) == "Logistic regression (default)" and dict(KIND_CHOICES)["svm"] == "Linear SVM"
    assert [dlg.optimise.itemText(i) for i in range(2)] == ["F1: balance precision and recall",
                                                           "F2: favour recall (miss fewer sensitive messages)"]
    assert dlg.run_button.isEnabled() and dlg.run_button.isDefault()
    assert not dlg.cancel_button.isEnabled() and not dlg.copy_button.isEnabled() and dlg.table.isHidden()
    # the window stays usable while the dialog is open
    search(qtbot, window, "topic")
    assert window.search_panel.model.rowCount() > 0


def test_the_dialog_shows_exactly_the_engines_figures(qtbot, window, judged, monkeypatch):
    from sasc_desktop.gui.quality_dialog import result_rows, summary_sentence
    dialogs = []
    monkeypatch.setattr(window, "show_error", lambda *a, **k: dialogs.append(a))
    root = judged["root"]
    before = db_state(root)
    dlg = open_dialog(qtbot, window, root)

    # Enter runs, with the defaults
    with qtbot.waitSignal(window.quality_checked, timeout=120_000) as sig:
        qtbot.keyClick(dlg.folds, Qt.Key.Key_Return)
        assert not dlg.run_button.isEnabled() and dlg.cancel_button.isEnabled()
        assert not window.train_action.isEnabled()
    wait_idle(qtbot, window)
    value = sig.args[0]
    got = value["result"]
    expected = engine_cv(root, folds=5, optimise="f1", kind=DEFAULT_KIND)
    assert got == expected and dlg.value is value
    assert (value["persona"], value["persona_name"], value["options"]) == (
        PERSONA, "Holly Palmer", {"optimise": "f1", "kind": DEFAULT_KIND, "folds": 5})
    assert (got["n"], got["positives"]) == (90, sum(judged["labels"].values()))
    assert 0 < got["f1"] < 1  # neither trivial nor perfect

    # the table, row by row: the engine's numbers, formatted as said
    pct = lambda x: f"{100 * x:.1f}%"
    num = lambda x: f"{x:.3f}"
    e = expected
    assert dlg.table_text() == [
        ("Precision", pct(e["precision"])), ("Recall", pct(e["recall"])), ("F1", num(e["f1"])),
        ("F2", num(e["f2"])), ("Accuracy", pct(e["accuracy"])), ("Balanced accuracy", pct(e["balanced_accuracy"])),
        ("ROC AUC", num(e["roc_auc"])), ("Average precision", num(e["average_precision"])),
        ("Calibration error", num(e["calibration_error"])), ("Judged messages", "90"),
        ("Sensitive", f"{e['positives']} ({pct(e['positives'] / 90)})"), ("Threshold", f"{e['threshold']:.3f}")]
    assert dlg.table_text() == [(a, b) for a, b, _ in result_rows(expected)]
    assert dlg.sentence.text() == (
        f"Of the messages this model would hold back, {100 * e['precision']:.0f}% are sensitive; it finds "
        f"{100 * e['recall']:.0f}% of the sensitive ones. Figures are honest: each fold's model never saw "
        f"the messages it was tested on.") == summary_sentence(expected)
    assert dlg.table.isVisible() and dlg.sentence.isVisible() and dlg.copy_button.isEnabled()
    assert "Logistic regression, threshold chosen for F1, 5-fold nested cross-validation" in dlg.settings_label.text()
    # the finish message in the status bar
    assert tip_text(window.message_label) == (
        f"Model quality for Holly Palmer: precision {pct(e['precision'])}, recall {pct(e['recall'])}, "
        f"F1 {num(e['f1'])}, F2 {num(e['f2'])} over 90 judged messages "
        f"(5-fold nested cross-validation, {value['seconds']:.1f} s)")
    assert window.train_action.isEnabled() and window.import_action.isEnabled() and dialogs == []
    assert not window.job_bar.isVisible() and window.job_label.isHidden()

    # Copy: the table as text and the whole result as JSON
    dlg.copy_button.click()
    text = QGuiApplication.clipboard().text()
    assert text.startswith("Sensitivity model quality for Holly Palmer (holly-palmer)\n")
    assert f"Precision\t{pct(e['precision'])}\n" in text and summary_sentence(expected) in text
    copied = json.loads(text[text.index("\n{") + 1:])
    assert copied == dict(json.loads(json.dumps(expected)), project=str(root), persona=PERSONA,
                          persona_name="Holly Palmer", seed=0)

    # other choices: F2, the "or" model, 4 folds (the Run button)
    set_choice(dlg.optimise, "f2")
    set_choice(dlg.kind, "or")
    dlg.folds.setValue(4)
    with qtbot.waitSignal(window.quality_checked, timeout=120_000) as sig2:
        dlg.run_button.click()
    wait_idle(qtbot, window)
    expected2 = engine_cv(root, folds=4, optimise="f2", kind="or")
    assert sig2.args[0]["result"] == expected2 and expected2 != expected
    assert dlg.table_text() == [(a, b) for a, b, _ in result_rows(expected2)]
    assert "Logistic regression or SVM (either one flags it), threshold chosen for F2, 4-fold" in dlg.settings_label.text()

    # nothing in the project changed: no model, no scores, no row anywhere
    assert db_state(root) == before and before["model_files"] == []


def test_cancel_mid_run_leaves_no_result_and_gives_train_back(qtbot, window, judged, monkeypatch):
    from sasc_desktop.gui.mainwindow import CHECK_CANCELLED
    dialogs, results = [], []
    monkeypatch.setattr(window, "show_error", lambda *a, **k: dialogs.append(a))
    window.quality_checked.connect(results.append)
    root = judged["root"]
    before = db_state(root)
    dlg = open_dialog(qtbot, window, root)
    held = Held(monkeypatch)
    with qtbot.waitSignal(window.quality_check_cancelled, timeout=120_000):
        dlg.run_button.click()
        qtbot.waitUntil(held.started.is_set, timeout=60_000)
        # mid-run: Train and Import are off, the step is shown, search and reading go on
        assert not window.train_action.isEnabled() and window.train_model() is None
        assert not window.import_action.isEnabled()
        assert window.job_label.text().startswith("Checking model quality")
        window.search_panel.query_box.setEditText("topic")
        with qtbot.waitSignal(window.search_done, timeout=30_000):
            window.search_panel.submit()
        assert window.search_panel.model.rowCount() > 0
        assert dlg.step.text() and dlg.progress.isVisible()
        dlg.grab().save("/tmp/quality_running.png")
        dlg.cancel_button.click()
        assert not dlg.cancel_button.isEnabled() and dlg.cancel_button.text() == "Cancelling…"
        held.release.set()
    wait_idle(qtbot, window)
    assert held.calls == 1  # stopped at the next inner fit, not at the end of the fold
    assert results == [] and dlg.value is None and dlg.table.isHidden() and not dlg.copy_button.isEnabled()
    assert dlg.status.text() == "The check was cancelled; no figures. Nothing in the project changed."
    assert window.message_label.text() == CHECK_CANCELLED
    assert window.train_action.isEnabled() and window.import_action.isEnabled() and dlg.run_button.isEnabled()
    assert not window.job_bar.isVisible() and dialogs == []
    assert db_state(root) == before


def test_esc_closes_the_dialog_and_cancels_the_check(qtbot, window, judged, monkeypatch):
    results = []
    window.quality_checked.connect(results.append)
    dlg = open_dialog(qtbot, window, judged["root"])
    held = Held(monkeypatch)
    with qtbot.waitSignal(window.quality_check_cancelled, timeout=120_000):
        dlg.run_button.click()
        qtbot.waitUntil(held.started.is_set, timeout=60_000)
        qtbot.keyClick(dlg, Qt.Key.Key_Escape)
        assert not dlg.isVisible() and window._check_task.cancelled
        held.release.set()
    wait_idle(qtbot, window)
    assert results == [] and window.train_action.isEnabled()
    # opened again: ready to run, no figures from the cancelled run
    assert window.show_quality() is dlg and dlg.run_button.isEnabled() and dlg.value is None


def test_a_check_finishing_after_its_cancel_point_shows_nothing_when_cancelled(qtbot, window, judged, monkeypatch):
    """Cancelled after the engine's last cancel point, the check's figures still arrive: they
    are dropped, as the archivist asked to stop."""
    results = []
    window.quality_checked.connect(results.append)
    dlg = open_dialog(qtbot, window, judged["root"])
    held = Held(monkeypatch, where="measures")
    with qtbot.waitSignal(window.quality_check_cancelled, timeout=120_000):
        dlg.run_button.click()
        qtbot.waitUntil(held.started.is_set, timeout=60_000)
        dlg.cancel_button.click()
        held.release.set()
    wait_idle(qtbot, window)
    assert results == [] and dlg.value is None and dlg.table.isHidden()


def test_a_check_never_runs_beside_a_training(qtbot, window, judged, monkeypatch):
    from sasc_desktop.engine.errors import SascError
    from sasc_desktop.gui.mainwindow import CHECK_WHILE_TRAINING
    root = judged["root"]
    dlg = open_dialog(qtbot, window, root)
    held = Held(monkeypatch)
    with qtbot.waitSignal(window.model_trained, timeout=120_000):
        window.train_action.trigger()
        qtbot.waitUntil(held.started.is_set, timeout=60_000)
        assert not dlg.run_button.isEnabled() and dlg.status.text() == html.escape(CHECK_WHILE_TRAINING)
        qtbot.keyClick(dlg.folds, Qt.Key.Key_Return)  # Enter does nothing now
        errors = []
        assert window.check_quality(dlg.options(), lambda *a: None, lambda v: None, errors.append) is None
        assert [type(e) for e in errors] == [SascError] and str(errors[0]) == CHECK_WHILE_TRAINING
        assert not window._checking and window._training
        held.release.set()
    wait_idle(qtbot, window)
    assert dlg.run_button.isEnabled() and dlg.status.text() == "" and dlg.value is None
    # and Train is off while a check runs
    held2 = Held(monkeypatch)
    with qtbot.waitSignal(window.quality_checked, timeout=120_000):
        dlg.run()
        qtbot.waitUntil(held2.started.is_set, timeout=60_000)
        assert not window.train_action.isEnabled() and window.train_model() is None and not window._training
        held2.release.set()
    wait_idle(qtbot, window)
    assert window.train_action.isEnabled()


def test_an_import_is_refused_while_a_check_runs(qtbot, window, judged, tmp_path, monkeypatch):
    from sasc_desktop.gui.mainwindow import IMPORT_WHILE_CHECKING
    root = judged["root"]
    dlg = open_dialog(qtbot, window, root)
    imp = window.show_import([make_mbox(tmp_path / "extra.mbox", 10, start=500)])
    held = Held(monkeypatch)
    with qtbot.waitSignal(window.quality_checked, timeout=120_000):
        dlg.run()
        qtbot.waitUntil(held.started.is_set, timeout=60_000)
        assert not window.import_action.isEnabled()
        imp.start()  # the import dialog was open before the check started
        qtbot.waitUntil(lambda: "did not run" in imp.status.text(), timeout=30_000)
        assert html.escape(IMPORT_WHILE_CHECKING) in imp.status.text()
        held.release.set()
    wait_idle(qtbot, window)
    with Session.open(root) as s:
        assert s.stats()["messages"] == 90
    assert window.import_action.isEnabled()


def test_opening_another_project_mid_run_cancels_it_and_nothing_late_appears(qtbot, window, judged, tmp_path,
                                                                            monkeypatch):
    other = build(tmp_path, n=30, name="other")["root"]
    root = judged["root"]
    before, before_other = db_state(root), db_state(other)
    events = []
    for name in ("quality_checked", "quality_check_failed", "quality_check_cancelled"):
        getattr(window, name).connect(lambda *a, name=name: events.append(name))
    dlg = open_dialog(qtbot, window, root)
    # a check still cancellable when the other project opens...
    held = Held(monkeypatch)
    dlg.run()
    qtbot.waitUntil(held.started.is_set, timeout=60_000)
    with qtbot.waitSignal(window.project_loaded, timeout=60_000):
        window.open_project(other)  # cancels the check; the open waits, on the worker, for it to stop
        assert window._check_task.cancelled and not dlg.run_button.isEnabled()
        held.release.set()
    wait_idle(qtbot, window)
    assert window.info["root"] == str(other) and events == [] and dlg.value is None and dlg.table.isHidden()
    assert dlg.status.text() == "" and dlg.run_button.isEnabled() and window.train_action.isEnabled()
    assert not window.message_label.text().startswith(("Model quality", "Model quality check cancelled"))
    # ...and one past its last cancel point: its figures (of the project left) are not shown
    monkeypatch.undo()
    open_project(qtbot, window, root)
    held = Held(monkeypatch, where="measures")
    dlg.run()
    qtbot.waitUntil(held.started.is_set, timeout=60_000)
    with qtbot.waitSignal(window.project_loaded, timeout=60_000):
        window.open_project(other)
        held.release.set()
    wait_idle(qtbot, window)
    assert window.info["root"] == str(other) and events == [] and dlg.value is None and dlg.table.isHidden()
    assert not window.message_label.text().startswith("Model quality")
    assert db_state(other) == before_other and db_state(root) == before


def test_too_few_judgments_are_said_plainly_in_the_dialog(qtbot, window, tmp_path, monkeypatch):
    dialogs, failures = [], []
    monkeypatch.setattr(window, "show_error", lambda *a, **k: dialogs.append(a))
    window.quality_check_failed.connect(failures.append)
    few = build(tmp_path, n=30, noisy=False, only_sensitive=2)
    with Session.open(few["root"]) as s, pytest.raises(InputError) as raised:
        cross_validate(s, PERSONA)
    message = str(raised.value)
    assert message.startswith("cross-validation needs at least 3 sensitive and 3 not-sensitive judgments")
    dlg = open_dialog(qtbot, window, few["root"])
    with qtbot.waitSignal(window.quality_check_failed, timeout=60_000):
        dlg.run_button.click()
    wait_idle(qtbot, window)
    assert dlg.status.text() == (f'<span style="color:#b00020"><b>The check did not run:</b> '
                                 f'{html.escape(message)}</span>')
    assert "Traceback" not in dlg.status.text() and dialogs == [] and dlg.value is None
    assert tip_text(window.message_label) == f"Model quality check did not run: {message}"
    assert dlg.run_button.isEnabled() and window.train_action.isEnabled()


def test_a_fold_count_the_judgments_cannot_fill_names_one_that_works(qtbot, window, tmp_path):
    root = build(tmp_path, n=30, noisy=False, only_sensitive=4)["root"]
    with Session.open(root) as s, pytest.raises(InputError) as raised:
        cross_validate(s, PERSONA, folds=5)
    assert str(raised.value).endswith("use 4 folds (any of 2 to 4)")
    dlg = open_dialog(qtbot, window, root)
    assert dlg.folds.value() == 5
    with qtbot.waitSignal(window.quality_check_failed, timeout=60_000) as sig:
        dlg.run()
    wait_idle(qtbot, window)
    assert str(sig.args[0]) == str(raised.value) and "use " in str(raised.value)
    assert html.escape(str(raised.value)) in dlg.status.text()


def test_the_persona_is_the_one_the_document_view_explains(qtbot, window, tmp_path):
    from sasc_desktop.gui.document import load_sensitivity
    second = build(tmp_path, n=30, active="second")
    dlg = open_dialog(qtbot, window, second["root"])
    with Session.open(second["root"]) as s:
        assert load_sensitivity(s)["persona_name"] == "Second Reader"
    assert "Persona: Second Reader" in dlg.persona_label.text()
    with qtbot.waitSignal(window.quality_check_failed, timeout=60_000) as sig:
        dlg.run()
    wait_idle(qtbot, window)
    assert "persona 'second' has no sensitivity judgments" in str(sig.args[0])
    assert html.escape(str(sig.args[0])) in dlg.status.text()


def test_copy_then_quit_exits_cleanly(tmp_path):
    """Copy, then the app quits: the process ends normally (a QMimeData handed to the clipboard
    made PySide6 crash at exit with a segmentation fault)."""
    import subprocess
    import sys
    script = tmp_path / "copy_then_quit.py"
    script.write_text(
        "from PySide6.QtWidgets import QApplication\n"
        "from sasc_desktop.gui.quality_dialog import QualityDialog\n"
        "app = QApplication([])\n"
        "dlg = QualityDialog(None, lambda *a: None)\n"
        "r = dict(precision=0.5, recall=0.25, f1=1 / 3, f2=0.2778, accuracy=0.75, balanced_accuracy=0.6,\n"
        "         roc_auc=0.7, average_precision=0.4, calibration_error=0.05, n=8, positives=4, tp=1, fp=1,\n"
        "         threshold=0.5, kind='lr', optimise='f1', folds=2)\n"
        "dlg.value = dict(project='p', persona='holly-palmer', persona_name='Holly Palmer', seed=0, result=r)\n"
        "dlg.copy()\n"
        "assert QApplication.clipboard().text().startswith('Sensitivity model quality for Holly Palmer')\n"
        "print('copied')\n")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout) == (0, "copied\n"), done.stderr
