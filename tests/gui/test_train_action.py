"""Tools ▸ Train sensitivity model…: the archivist trains the current persona's classifier from the
app. Real projects with real judgments and real training (no mocks), offscreen."""
from __future__ import annotations

import html
import os
import threading
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QMessageBox

from sasc_desktop.engine.classify import DEFAULT_KIND
from sasc_desktop.engine.session import Session
from sasc_desktop.gui.widgets import plain_tip
from sasc_desktop.gui.evidence import sensitivity_html

from gui_support import make_mbox, open_doc, open_project, search, wait_idle

SENSITIVE_WORDS = ("salary", "doctor")
MENU = "Tools ▸ Train sensitivity model…"


def build(tmp: Path, n: int = 90, active: str | None = "holly-palmer") -> dict:
    """A real project of ``n`` messages with two personas; only Holly Palmer has judgments
    (sensitive when the body mentions salary or doctor); no model trained yet."""
    from sasc_desktop.engine.project.judgments import save_personas, save_sensitivity
    root = tmp / "judged"
    with Session.create(root) as s:
        s.ingest([make_mbox(tmp / "seed.mbox", n)], workers=0)
        save_personas(s.store, [{"id": "holly-palmer", "name": "Holly Palmer"},
                                {"id": "second", "name": "Second Reader"}])
        docs = [(r[0], r[1]) for r in s.store.con.execute("SELECT doc_id, body FROM messages ORDER BY id")]
        labels = {d: int(any(w in b for w in SENSITIVE_WORDS)) for d, b in docs}
        save_sensitivity(s.store, [("holly-palmer", "", d, y) for d, y in labels.items()])
        if active:
            s.update_settings(active_persona=active)
    return {"root": root, "docs": [d for d, _ in docs], "labels": labels}


@pytest.fixture
def judged(tmp_path) -> dict:
    return build(tmp_path)


def model_files(root: Path) -> list[Path]:
    return sorted((root / "models").glob("classifier-*"))


def finish_text(name, info) -> str:
    return (f"Sensitivity model for {name} trained on {info.n_train:,} judged messages "
            f"({info.n_positive:,} sensitive) in {info.seconds:.1f} s; {info.n_scored:,} messages scored")


# --------------------------------------------------------------------------------------------
def test_the_action_needs_a_project_with_personas(qtbot, window, project, judged):
    assert window.train_action.text() == "&Train sensitivity model…"
    assert window.train_action.shortcut().toString() == "Ctrl+Shift+T"
    assert window.train_action in window.tools_menu.actions()
    assert window.tools_menu.title() == "&Tools"
    assert not window.train_action.isEnabled()      # no project
    assert window.train_model() is None             # and calling it directly does nothing
    open_project(qtbot, window, project)            # a project without personas
    assert not window.train_action.isEnabled()
    open_project(qtbot, window, judged["root"])     # a project with personas
    assert window.train_action.isEnabled()


def test_training_from_the_menu(qtbot, window, judged, monkeypatch):
    dialogs = []
    monkeypatch.setattr(window, "show_error", lambda *a, **k: dialogs.append(a))
    root = judged["root"]
    assert model_files(root) == []
    open_project(qtbot, window, root)
    search(qtbot, window, "topic")
    assert window.search_panel.table.isColumnHidden(2)      # no model: no sensitivity column
    sensitive_doc = next(d for d in judged["docs"] if judged["labels"][d])
    open_doc(qtbot, window, sensitive_doc)
    panel = window.doc_view.sensitivity
    assert panel.text() == (f'<span style="color:#666">No sensitivity model for Holly Palmer yet (train one with '
                            f'{MENU}, or: sasc classify train {html.escape(str(root))} --persona holly-palmer)</span>')

    with qtbot.waitSignal(window.model_trained, timeout=120_000) as sig:
        window.train_action.trigger()
        assert not window.train_action.isEnabled()  # one training at a time
    wait_idle(qtbot, window)
    info = sig.args[0]
    assert dialogs == []
    # what was trained: every judged message of the current persona, the CLI's default kind
    n_sensitive = sum(judged["labels"].values())
    assert (info.persona, info.kind, info.n_train, info.n_positive, info.n_scored) == (
        "holly-palmer", DEFAULT_KIND, 90, n_sensitive, 90)
    assert 0 < n_sensitive < 90
    assert [Path(info.path)] == model_files(root)
    # the finish message, exactly, built from the returned ModelInfo
    assert window.message_label.text() == finish_text("Holly Palmer", info)
    assert window.message_label.text() == (f"Sensitivity model for Holly Palmer trained on 90 judged messages "
                                           f"({n_sensitive} sensitive) in {info.seconds:.1f} s; 90 messages scored")
    assert window.train_action.isEnabled()
    # the open document's evidence line now shows the model's probability
    with Session.open(root) as s:
        expected = s.explain_sensitivity(sensitive_doc, "holly-palmer")
        probs = s.sensitivity_probabilities("holly-palmer")
    assert window.doc_view.doc["doc"]["doc_id"] == sensitive_doc
    assert window.doc_view.doc["sensitivity"]["explanation"]["probability"] == expected["probability"]
    assert panel.isVisible()
    assert panel.text() == sensitivity_html(window.doc_view.doc["sensitivity"])
    assert f"{100 * expected['probability']:.1f}%" in panel.text()
    assert "No sensitivity model" not in panel.text()
    # the search results were re-run: the sensitivity column shows the new scores
    assert not window.search_panel.table.isColumnHidden(2)
    model = window.search_panel.model
    assert model.rowCount() > 0
    assert [model.prob(r) for r in range(model.rowCount())] == [probs[h.doc_id] for h in model.hits]
    # the open message stays the selected result
    assert window.search_panel.hit_at(window.search_panel.table.currentIndex()).doc_id == sensitive_doc
    window.grab().save("/tmp/train_action.png")

    # training again (nothing changed) refits incrementally and says so in the same words
    with qtbot.waitSignal(window.model_trained, timeout=120_000) as sig2:
        window.train_action.trigger()
    wait_idle(qtbot, window)
    assert sig2.args[0].version == info.version + 1
    assert window.message_label.text() == finish_text("Holly Palmer", sig2.args[0])


def test_the_first_persona_when_none_is_active(qtbot, window, tmp_path):
    judged = build(tmp_path, n=30, active=None)
    open_project(qtbot, window, judged["root"])
    window.activateWindow()
    with qtbot.waitSignal(window.model_trained, timeout=120_000) as sig:  # the keyboard shortcut
        qtbot.keyClick(window, Qt.Key.Key_T, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    wait_idle(qtbot, window)
    assert sig.args[0].persona == "holly-palmer" and sig.args[0].n_train == 30
    assert window.message_label.text().startswith("Sensitivity model for Holly Palmer trained on 30 judged messages")


def test_a_persona_without_judgments_shows_the_engine_message(qtbot, window, tmp_path):
    judged = build(tmp_path, n=30, active="second")
    root = judged["root"]
    open_project(qtbot, window, root)
    with qtbot.waitSignal(window.training_failed, timeout=120_000) as sig:
        window.train_action.trigger()
    wait_idle(qtbot, window)
    exc = sig.args[0]
    engine_message = "persona 'second' has no sensitivity judgments on this project's messages"
    assert engine_message in str(exc)
    # the app's non-modal error dialog, with the engine's message; the status bar says so too
    box = window.error_dialogs[-1]
    assert isinstance(box, QMessageBox) and box.isVisible()
    assert "Training the sensitivity model did not complete" in box.text()
    assert str(exc) in box.informativeText()
    assert window.message_label.toolTip() == plain_tip(f"Training the sensitivity model failed: {exc}")
    assert model_files(root) == []
    box.close()
    # the app is still usable: the action is back and search works
    assert window.train_action.isEnabled()
    search(qtbot, window, "topic")
    assert window.search_panel.model.rowCount() > 0


def test_an_old_model_file_points_at_the_menu_and_training_replaces_it(qtbot, window, judged):
    """A version-1 model file (from an older SASC Desktop) is refused with the retrain hint; the
    menu refits it and the evidence line shows a probability."""
    from sasc_desktop.engine.classify import train
    from sasc_desktop.engine.classify.api import MODEL_FORMAT, _model_path, load_model
    from sasc_desktop.engine.project.modelfile import write_model_file
    root = judged["root"]
    with Session.open(root) as s:
        train(s, "holly-palmer", kind="svm")  # another kind than the menu's, so its training is a full fit
        path = _model_path(s, "holly-palmer")
        model = load_model(s, "holly-palmer")
        write_model_file(path, MODEL_FORMAT, 1, {"persona": "holly-palmer", "model": model})
    # as if written by an older app long ago (the engine caches model files by path and mtime)
    os.utime(path, (path.stat().st_atime, path.stat().st_mtime - 3600))
    doc = judged["docs"][0]
    open_project(qtbot, window, root)
    open_doc(qtbot, window, doc)
    text = window.doc_view.sensitivity.text()
    assert text.startswith('<span style="color:#666">Sensitivity (Holly Palmer): ')
    assert "model format version 1" in text
    assert text.endswith(f"retrain with {MENU}, or: sasc classify train "
                         f"{html.escape(str(root))} --persona holly-palmer</span>")
    with qtbot.waitSignal(window.model_trained, timeout=120_000) as sig:
        window.train_action.trigger()
    wait_idle(qtbot, window)
    assert sig.args[0].incremental is False
    e = window.doc_view.doc["sensitivity"]["explanation"]
    assert e is not None and "error" not in window.doc_view.doc["sensitivity"]
    assert f"{100 * e['probability']:.1f}%" in window.doc_view.sensitivity.text()


def saved_state(root: Path) -> tuple:
    """What a training writes: the model files (name and bytes), the model row, the scores."""
    with Session.open(root) as s:
        row = s.store.con.execute("SELECT version, path, info FROM classifier_models").fetchall()
        scores = s.store.con.execute("SELECT persona, message, prob, model_version FROM scores ORDER BY 1, 2").fetchall()
    return [(p.name, p.read_bytes()) for p in model_files(root)], row, scores


def test_cancelling_a_training_keeps_what_was_saved(qtbot, window, judged, monkeypatch):
    from sasc_desktop.gui.mainwindow import TRAINING_CANCELLED
    dialogs = []
    monkeypatch.setattr(window, "show_error", lambda *a, **k: dialogs.append(a))
    root = judged["root"]
    open_project(qtbot, window, root)
    assert not window.cancel_train_action.isEnabled() and window.cancel_button.isHidden()
    assert window.cancel_train_action in window.tools_menu.actions()
    assert window.cancel_train_action.shortcut().toString() == ""  # no Esc: see mainwindow

    # cancelled before its first step (the button, as soon as it shows): nothing is written
    with qtbot.waitSignal(window.training_cancelled, timeout=120_000):
        window.train_action.trigger()
        assert window.cancel_button.isVisible() and window.cancel_train_action.isEnabled()
        window.cancel_button.click()
        assert window.message_label.text() == "Cancelling the training…"
        assert not window.cancel_train_action.isEnabled()  # pressed once
    wait_idle(qtbot, window)
    assert window.message_label.text() == TRAINING_CANCELLED
    assert model_files(root) == [] and saved_state(root)[1:] == ([], [])
    assert window.train_action.isEnabled() and window.cancel_button.isHidden()
    assert not window.cancel_train_action.isEnabled() and dialogs == []

    # a saved model of another kind, so the menu's training is a full fit; the menu cancels it
    # while its first inner fit runs (held until then, so the test cannot race it)
    from sasc_desktop.engine.classify import train
    with Session.open(root) as s:
        train(s, "holly-palmer", kind="svm")  # another kind than the menu's, so its training is a full fit
    before = saved_state(root)
    assert len(before[0]) == 1 and len(before[2]) == 90
    held = HeldTraining(monkeypatch)
    window.activateWindow()
    with qtbot.waitSignal(window.training_cancelled, timeout=120_000):
        window.train_action.trigger()
        qtbot.waitUntil(held.started.is_set, timeout=60_000)
        qtbot.keyClick(window.search_panel.query_box, Qt.Key.Key_Escape)  # Esc in the query box: nothing
        assert window.cancel_train_action.isEnabled() and not window._train_task.cancelled
        window.cancel_train_action.trigger()
        assert window.message_label.text() == "Cancelling the training…"
        held.release.set()
    wait_idle(qtbot, window)
    assert window.message_label.text() == TRAINING_CANCELLED and dialogs == []
    assert saved_state(root) == before


# ------------------------------------------------------------------------------ training in the background
class HeldTraining:
    """Holds a step of the training (by default its first inner fit; ``saving`` holds the model
    file's write, past the last cancel point) until released, so a test acts while it runs."""

    def __init__(self, monkeypatch, saving: bool = False):
        from sasc_desktop.engine.classify import api
        from sasc_desktop.engine.classify.model import SensitivityClassifier
        owner, name = (api, "save_model") if saving else (SensitivityClassifier, "_fit_base")
        self.started, self.release = threading.Event(), threading.Event()
        real = getattr(owner, name)

        def held(*args):
            self.started.set()
            self.release.wait(60)
            return real(*args)
        monkeypatch.setattr(owner, name, held)


def test_search_and_reading_go_on_while_a_model_trains(qtbot, window, judged, monkeypatch):
    root = judged["root"]
    open_project(qtbot, window, root)
    held = HeldTraining(monkeypatch)
    with qtbot.waitSignal(window.model_trained, timeout=120_000) as sig:
        window.train_action.trigger()
        qtbot.waitUntil(held.started.is_set, timeout=60_000)
        # the training is in the middle of its first fit: the archivist searches and reads
        window.search_panel.query_box.setEditText("topic")
        with qtbot.waitSignal(window.search_done, timeout=30_000):
            window.search_panel.submit()
        assert window.search_panel.model.rowCount() > 0
        doc = window.search_panel.model.hits[0].doc_id
        with qtbot.waitSignal(window.document_shown, timeout=30_000):
            window.open_document(doc)
        assert window.doc_view.doc["doc"]["doc_id"] == doc
        assert not held.release.is_set() and window._training  # all of it while the fit was held
        assert window.job_bar.isVisible() and window.job_label.text().startswith("Training")
        assert window.message_label.text().endswith("messages match")  # the search's own message stays
        assert not window.import_action.isEnabled()
        held.release.set()
    wait_idle(qtbot, window)
    assert sig.args[0].n_train == 90 and window.import_action.isEnabled()
    assert not window.busy_bar.isVisible() and not window.job_bar.isVisible() and window.job_label.isHidden()


def test_an_import_waits_for_the_training_and_the_training_for_the_import(qtbot, window, judged, tmp_path,
                                                                          monkeypatch):
    from sasc_desktop.gui.mainwindow import IMPORT_WHILE_TRAINING
    root = judged["root"]
    open_project(qtbot, window, root)
    extra = make_mbox(tmp_path / "extra.mbox", 20)
    dlg = window.show_import([extra])
    held = HeldTraining(monkeypatch)
    with qtbot.waitSignal(window.model_trained, timeout=120_000):
        window.train_action.trigger()
        qtbot.waitUntil(held.started.is_set, timeout=60_000)
        assert not window.import_action.isEnabled()
        dlg.start()  # the dialog was open before the training started
        qtbot.waitUntil(lambda: "did not run" in dlg.status.text(), timeout=30_000)
        assert html.escape(IMPORT_WHILE_TRAINING) in dlg.status.text() and dlg.start_button.isEnabled()
        held.release.set()
    wait_idle(qtbot, window)
    with Session.open(root) as s:
        assert s.stats()["messages"] == 90  # nothing was imported meanwhile
    # and while an import runs, training waits for it
    with qtbot.waitSignal(dlg.finished_import, timeout=120_000) as imp:
        dlg.start()
        assert not window.train_action.isEnabled() and window.train_model() is None
    wait_idle(qtbot, window)
    assert imp.args[0].ingested + imp.args[0].duplicates == 20 and window.train_action.isEnabled()


def test_opening_another_project_stops_the_training_first(qtbot, window, judged, project, monkeypatch):
    root = judged["root"]
    open_project(qtbot, window, root)
    held = HeldTraining(monkeypatch)
    with qtbot.waitSignal(window.training_cancelled, timeout=120_000):
        window.train_action.trigger()
        qtbot.waitUntil(held.started.is_set, timeout=60_000)
        window.open_project(project)  # waits, on the worker, for the training to stop
        QTimer.singleShot(200, held.release.set)
    qtbot.waitUntil(lambda: window.info is not None and window.info["root"] == str(project), timeout=60_000)
    wait_idle(qtbot, window)
    assert model_files(root) == [] and saved_state(root)[1:] == ([], [])
    assert window.search_panel.isEnabled()
    search(qtbot, window, "topic")
    assert window.search_panel.model.rowCount() > 0


def test_a_training_that_ends_after_a_project_switch_leaves_the_new_project_alone(qtbot, window, judged, project,
                                                                                   monkeypatch):
    """Past its last cancel point (saving) when another project is opened, the training commits
    to its own project; its refresh of search, document and status must not touch the new one."""
    root = judged["root"]
    dialogs, events = [], []
    monkeypatch.setattr(window, "show_error", lambda *a, **k: dialogs.append(a))
    open_project(qtbot, window, root)
    search(qtbot, window, "topic")
    open_doc(qtbot, window, window.search_panel.model.hits[0].doc_id)
    held = HeldTraining(monkeypatch, saving=True)
    for name in ("search_done", "document_shown", "model_trained", "training_cancelled"):
        getattr(window, name).connect(lambda *a, name=name: events.append(name))
    window.train_action.trigger()
    qtbot.waitUntil(held.started.is_set, timeout=60_000)
    with qtbot.waitSignal(window.project_loaded, timeout=60_000):
        window.open_project(project)  # waits on the worker until the training has committed
        assert not window.train_action.isEnabled()  # and no new training starts meanwhile
        QTimer.singleShot(100, held.release.set)
    wait_idle(qtbot, window)
    qtbot.wait(200)
    wait_idle(qtbot, window)
    assert window.info["root"] == str(project) and events == [] and dialogs == []
    assert window.doc_view.doc is None and window.search_panel.model.rowCount() == 0
    assert not window.message_label.text().startswith("Sensitivity model")
    assert len(model_files(root)) == 1  # the old project got its whole training


def test_the_refresh_after_training_opens_the_message_just_clicked(qtbot, window, judged, monkeypatch):
    import sasc_desktop.gui.mainwindow as mw
    open_project(qtbot, window, judged["root"])
    search(qtbot, window, "topic")
    a, b = (h.doc_id for h in window.search_panel.model.hits[:2])
    open_doc(qtbot, window, a)
    b_may_load = threading.Event()
    real_load = mw.load_document

    def load(session, doc_id, terms):
        if doc_id == b:
            b_may_load.wait(60)
        return real_load(session, doc_id, terms)
    monkeypatch.setattr(mw, "load_document", load)
    held = HeldTraining(monkeypatch)
    with qtbot.waitSignal(window.model_trained, timeout=120_000):
        window.train_action.trigger()
        qtbot.waitUntil(held.started.is_set, timeout=60_000)
        window.open_document(b)  # the archivist clicks the next message; it is still loading...
        held.release.set()       # ...when the training finishes and refreshes the view
        qtbot.waitUntil(lambda: not window._training, timeout=60_000)
        b_may_load.set()
    wait_idle(qtbot, window)
    assert window.doc_view.doc["doc"]["doc_id"] == b


def other_project(tmp: Path) -> Path:
    """A project without personas whose message ids differ from ``build``'s."""
    root = tmp / "other"
    with Session.create(root) as s:
        s.ingest([make_mbox(tmp / "other.mbox", 12, start=1000)], workers=0)
    return root


def test_the_message_read_in_the_last_project_is_not_reopened_in_the_next(qtbot, window, tmp_path, monkeypatch):
    dialogs = []
    monkeypatch.setattr(window, "show_error", lambda *a, **k: dialogs.append(a))
    monkeypatch.setattr(window.worker, "error_handler", lambda *a: dialogs.append(a))  # errors without a handler
    first, judged = other_project(tmp_path), build(tmp_path)
    open_project(qtbot, window, first)
    open_doc(qtbot, window, "msg1000@example.com")
    open_project(qtbot, window, judged["root"])
    with qtbot.waitSignal(window.model_trained, timeout=120_000):
        window.train_model()
    wait_idle(qtbot, window)
    assert dialogs == [] and window.doc_view.doc is None


def test_no_training_starts_while_another_project_is_still_to_open(qtbot, window, tmp_path, monkeypatch):
    """Two opens queued: when the first is ready, Train stays off until the second is open too."""
    monkeypatch.setattr(window, "show_error", lambda *a, **k: None)
    judged, other = build(tmp_path), other_project(tmp_path)
    attempts = []

    def on_loaded(info):
        if Path(info["root"]) == judged["root"]:
            attempts.append((window.train_action.isEnabled(), window.train_model()))
    window.project_loaded.connect(on_loaded)
    with qtbot.waitSignal(window.project_loaded, timeout=60_000,
                          check_params_cb=lambda info: Path(info["root"]) == other):
        window.open_project(judged["root"])
        window.open_project(other)
    wait_idle(qtbot, window)
    assert attempts == [(False, None)] and not window._training
    assert window.info["root"] == str(other) and model_files(judged["root"]) == []


def test_a_failed_open_says_the_training_was_stopped(qtbot, window, judged, tmp_path, monkeypatch):
    from sasc_desktop.gui.mainwindow import TRAINING_CANCELLED
    monkeypatch.setattr(window, "show_error", lambda *a, **k: None)
    open_project(qtbot, window, judged["root"])
    held = HeldTraining(monkeypatch)
    window.train_model()
    qtbot.waitUntil(held.started.is_set, timeout=60_000)
    with qtbot.waitSignal(window.project_failed, timeout=60_000):
        window.open_project(tmp_path / "does-not-exist")
        held.release.set()
    wait_idle(qtbot, window)
    assert window.info["root"] == str(judged["root"]) and model_files(judged["root"]) == []
    assert window.message_label.text().startswith(TRAINING_CANCELLED + " (opening the project")
    assert window.train_action.isEnabled()


def test_after_a_failed_open_the_next_training_refreshes_the_message_shown(qtbot, window, judged, tmp_path,
                                                                          monkeypatch):
    monkeypatch.setattr(window, "show_error", lambda *a, **k: None)
    open_project(qtbot, window, judged["root"])
    search(qtbot, window, "topic")
    shown = window.search_panel.model.hits[0].doc_id
    open_doc(qtbot, window, shown)
    with qtbot.waitSignal(window.project_failed, timeout=60_000):
        window.open_project(tmp_path / "does-not-exist")
    wait_idle(qtbot, window)
    opened = []
    window.document_shown.connect(opened.append)
    with qtbot.waitSignal(window.model_trained, timeout=120_000):
        window.train_model()
    wait_idle(qtbot, window)
    assert opened == [shown]  # the refresh reloaded it with the new model's evidence


def test_a_failed_open_reports_a_training_that_had_already_committed(qtbot, window, judged, tmp_path, monkeypatch):
    monkeypatch.setattr(window, "show_error", lambda *a, **k: None)
    open_project(qtbot, window, judged["root"])
    held = HeldTraining(monkeypatch, saving=True)
    window.train_model()
    qtbot.waitUntil(held.started.is_set, timeout=60_000)  # past its last cancel point
    with qtbot.waitSignal(window.project_failed, timeout=60_000):
        window.open_project(tmp_path / "does-not-exist")
        QTimer.singleShot(100, held.release.set)
    wait_idle(qtbot, window)
    assert len(model_files(judged["root"])) == 1
    assert window.message_label.text().startswith("Sensitivity model for Holly Palmer trained on 90 judged messages")
    assert "(opening the project" in window.message_label.text() or window.message_label.text().endswith("…")
