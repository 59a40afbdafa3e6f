"""A project open for reading only does not point to what is off there (review 10b; real
projects made read-only for real, offscreen). The sensitivity line said "train one with Tools ▸
Train sensitivity model…, or: sasc classify train …" (Train is off, the command fails), an old
model file "retrain with …", the model quality window "change it in File ▸ Preferences" and the
status bar's persona tooltip "Choose one in File ▸ Preferences…" (Preferences is off), and a
project without personas pointed to 'sasc judgments import' into it. Each now says the project
is open for reading only and that a writable copy is needed (READ_ONLY_FIX); writable projects
keep their hints."""
from __future__ import annotations

import os

from PySide6.QtGui import QTextDocumentFragment

from sasc_desktop.engine.project.store import READ_ONLY_FIX
from sasc_desktop.engine.session import Session
from sasc_desktop.gui.evidence import TRAIN_MENU

from gui_support import make_mbox, open_doc, open_project, search, tip_text, wait_idle
from test_review10_read_only import read_only   # noqa: F401  (the fixture)
from test_train_action import build

COPY = f"this project is open for reading only: to {{what}}, {READ_ONLY_FIX}"


def _plain(text: str) -> str:
    return QTextDocumentFragment.fromHtml(text).toPlainText()


def _first_doc(qtbot, window):
    search(qtbot, window, "topic")
    open_doc(qtbot, window, window.search_panel.model.hits[0].doc_id)
    return _plain(window.doc_view.sensitivity.text())


def test_no_model_yet_and_the_quality_window_point_to_a_writable_copy(qtbot, window, tmp_path, read_only):  # noqa: F811
    writable = build(tmp_path / "w")["root"]
    open_project(qtbot, window, writable)              # as before: the menu and the command
    line = _first_doc(qtbot, window)
    assert line == (f"No sensitivity model for Holly Palmer yet (train one with {TRAIN_MENU}, or: "
                    f"sasc classify train {writable} --persona holly-palmer)")
    dialog = window.show_quality()
    assert "change it in File ▸ Preferences" in _plain(dialog.persona_label.text())
    dialog.reject()

    root = build(tmp_path / "ro")["root"]
    read_only(root)
    open_project(qtbot, window, root)
    line = _first_doc(qtbot, window)
    assert line == f"No sensitivity model for Holly Palmer yet ({COPY.format(what='train one')})"
    assert TRAIN_MENU not in line and "sasc classify train" not in line
    dialog = window.show_quality()
    assert _plain(dialog.persona_label.text()) == (
        f"Persona: Holly Palmer (the persona the document view explains; {COPY.format(what='change it')})")
    dialog.reject()
    window.close()


def test_an_old_model_file_in_a_read_only_project(qtbot, window, tmp_path, read_only):  # noqa: F811
    from sasc_desktop.engine.classify import train
    from sasc_desktop.engine.classify.api import MODEL_FORMAT, _model_path, load_model
    from sasc_desktop.engine.project.modelfile import write_model_file
    root = build(tmp_path)["root"]
    with Session.open(root) as s:
        train(s, "holly-palmer")
        path = _model_path(s, "holly-palmer")
        write_model_file(path, MODEL_FORMAT, 1, {"persona": "holly-palmer", "model": load_model(s, "holly-palmer")})
    os.utime(path, (path.stat().st_atime, path.stat().st_mtime - 3600))   # (model files are cached by mtime)
    read_only(root)
    open_project(qtbot, window, root)
    line = _first_doc(qtbot, window)
    assert line.startswith("Sensitivity (Holly Palmer): ") and "model format version 1" in line
    assert line.endswith(COPY.format(what="retrain it"))            # was: "retrain with Tools ▸ Train…"
    assert TRAIN_MENU not in line and "sasc classify train" not in line
    window.close()


def test_the_persona_tooltip_in_a_read_only_project(qtbot, window, tmp_path, read_only):  # noqa: F811
    none_active = build(tmp_path / "a", active=None)["root"]
    read_only(none_active)
    open_project(qtbot, window, none_active)
    assert window.persona_label.text() == "Persona: none"
    assert tip_text(window.persona_label) == (
        "No persona is active: no sensitivity is shown. " + COPY.format(what="choose one").capitalize() + ".")
    assert "Preferences" not in tip_text(window.persona_label)

    with Session.create(tmp_path / "bare") as s:                      # no personas at all
        s.ingest([make_mbox(tmp_path / "bare.mbox", 5)], workers=0)
    read_only(tmp_path / "bare")
    open_project(qtbot, window, tmp_path / "bare")
    tip = tip_text(window.persona_label)
    assert tip == ("This project has no personas yet: they come with sensitivity judgments, and "
                   + COPY.format(what="import some"))
    assert "sasc judgments import" not in tip
    # the quality check's refusal says the same
    dialog = window.show_quality()
    assert "sasc judgments import" not in _plain(dialog.persona_label.text())
    assert COPY.format(what="import some") in _plain(dialog.persona_label.text())
    dialog.reject()
    wait_idle(qtbot, window)
    window.close()
