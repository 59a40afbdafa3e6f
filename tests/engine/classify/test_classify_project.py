"""End to end on real projects: real mail files, real SQLite, real models."""
import json
import os
import pickle
import random

import numpy as np
import pytest

from sasc_desktop.cli import main as sasc
from sasc_desktop.engine.classify import (SensitivityClassifier, cross_validate, explain, fit_model, import_categories,
                                          import_judgments, probabilities, probabilities_for, train)
from sasc_desktop.engine.classify import api
from sasc_desktop.engine.classify.api import NoModelError, _model_path, load_model
from sasc_desktop.engine.progress import Progress
from sasc_desktop.engine.project import judgments as J
from sasc_desktop.engine.errors import Cancelled, ProjectError, SascError
from sasc_desktop.engine.session import Session

from judged_mail import PLAIN, SENSITIVE


def _mail_folder(tmp_path, n=60):
    rng = random.Random(1)
    folder = tmp_path / "mail"
    folder.mkdir()
    sens = []
    for i in range(n):
        s = i % 3 == 0
        text = rng.choice(SENSITIVE if s else PLAIN) + " " + rng.choice(PLAIN)
        if i == 3:
            text += "\nMy card is 4111 1111 1111 1111, call (503) 555-0123."
        sender = "ann@corp.com" if i % 2 else "bob@corp.com"
        (folder / f"{i:03d}.eml").write_text(
            f"Message-ID: <m{i}@corp.com>\nDate: Mon, 5 Mar 2001 0{i % 10}:23:00 -0800\nFrom: {sender}\n"
            f"To: carl@corp.com, dee@other.org\nSubject: note {i} {text.split()[0]}\n\n{text}\n")
        sens.append(f"p1 m{i}@corp.com {int(s)}")
    sens_file = tmp_path / "sens.txt"
    sens_file.write_text("\n".join(sens) + "\n")
    personas = tmp_path / "personas.json"
    personas.write_text(json.dumps([{"id": "p1", "name": "Persona One"}, {"id": "p2", "name": "Persona Two"}]))
    return folder, sens_file, personas


@pytest.fixture
def project(tmp_path):
    folder, sens_file, personas = _mail_folder(tmp_path)
    s = Session.create(tmp_path / "proj")
    s.ingest([folder])
    counts = import_judgments(s, sensitivity_path=sens_file, personas_path=personas)
    assert counts["sensitivity"] == 60 and counts["personas"] == 2
    yield s
    s.close()


def test_train_score_explain(project):
    s = project
    with pytest.raises(NoModelError, match="no sensitivity model for persona 'p1'"):
        probabilities(s, "p1")
    with pytest.raises(SascError, match="unknown persona 'nobody'.*p1, p2"):
        train(s, "nobody")
    info = train(s, "p1")
    assert info.n_train == 60 and info.n_positive == 20 and info.n_scored == 60 and not info.incremental
    probs = probabilities(s, "p1")
    assert len(probs) == 60 and all(0.0 <= p <= 1.0 for p in probs.values())
    pos = np.mean([probs[f"m{i}@corp.com"] for i in range(0, 60, 3)])
    neg = np.mean([probs[f"m{i}@corp.com"] for i in range(60) if i % 3])
    assert pos > neg + 0.3
    arr = probabilities_for(s, "p1", ["m3@corp.com", "m1@corp.com"])
    assert arr.tolist() == [probs["m3@corp.com"], probs["m1@corp.com"]]
    stored = s.store.con.execute("SELECT COUNT(*) FROM scores WHERE persona = 'p1'").fetchone()[0]
    assert stored == 60
    ex = explain(s, "m3@corp.com", "p1")
    assert ex["probability"] == pytest.approx(probs["m3@corp.com"])
    assert ex["towards_sensitive"] and all(t["weight"] > 0 for t in ex["towards_sensitive"])
    body = s.document("m3@corp.com")["body"]
    kinds = {(h["kind"], h["field"]) for h in ex["pii"]}
    assert kinds == {("payment_card", "body"), ("phone", "body")}
    for h in ex["pii"]:
        assert body[h["start"]:h["end"]] == h["text"]
    # cue words: every hit points at its text in the stored field, and the kinds match the text
    subject = s.document("m3@corp.com")["subject"]
    for h in ex["cues"]:
        assert {"subject": subject, "body": body}[h["field"]][h["start"]:h["end"]] == h["text"]
    from sasc_desktop.engine.classify.cues import cue_counts
    body_kinds = sorted(h["kind"] for h in ex["cues"] if h["field"] == "body")
    assert body_kinds == sorted(k for k, v in cue_counts(body).items() for _ in range(v)) and body_kinds


def test_incremental_retrain_and_format_check(project):
    s = project
    first = train(s, "p1")
    from sasc_desktop.engine.project import judgments as J
    J.save_sensitivity(s.store, [("p1", "", "m1@corp.com", 1)])
    second = train(s, "p1")
    assert second.incremental and second.version == first.version + 1 and second.n_positive == 21
    assert train(s, "p1", full=True).incremental is False
    import pickle
    path = _model_path(s, "p1")
    payload = pickle.loads(path.read_bytes())
    payload["version"] = 999
    path.write_bytes(pickle.dumps(payload))
    from sasc_desktop.engine.classify import api
    with pytest.raises(ProjectError, match="model format version 999"):
        api.load_model(s, "p1")
    # a file from before the cue: block (format version 1) is refused with the way out, and
    # training replaces it with a full fit
    payload["version"] = 1
    path.write_bytes(pickle.dumps(payload))
    with pytest.raises(ProjectError, match="version 1, this SASC Desktop reads version 2; retrain"):
        api.load_model(s, "p1")
    again = train(s, "p1")
    assert again.incremental is False and api.load_model(s, "p1").n_train_ == 60


def test_fit_model_on_a_subset(project):
    s = project
    ids = [f"m{i}@corp.com" for i in range(40)]
    model = fit_model(s, "p1", ids, kind="or", C=4.0)
    assert isinstance(model, SensitivityClassifier) and model.n_train_ == 40
    assert set(model.coef_) == {"lr", "svm"} and model.C_ == {"lr": 4.0, "svm": 4.0}
    p = model.predict_proba_docs(s, [f"m{i}@corp.com" for i in range(40, 60)])
    assert p.shape == (20,) and ((p >= 0) & (p <= 1)).all()


def test_dont_know_is_left_out(project):
    s = project
    from sasc_desktop.engine.project import judgments as J
    from sasc_desktop.engine.classify import training_labels
    J.save_sensitivity(s.store, [("p1", "", "m1@corp.com", -1), ("p1", "7", "m2@corp.com", 1)])
    labels = training_labels(s, "p1")
    assert "m1@corp.com" not in labels and labels["m2@corp.com"] == 1 and len(labels) == 59


def test_cli(project, capsys):
    root = str(project.root)
    project.close()
    assert sasc(["personas", root, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == [{"id": "p1", "name": "Persona One"}, {"id": "p2", "name": "Persona Two"}]
    assert sasc(["classify", "cv", root, "--persona", "p1", "--folds", "3", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert {"precision", "recall", "f1", "f2", "accuracy", "balanced_accuracy", "threshold", "n", "positives"} <= set(r)
    assert r["n"] == 60 and r["positives"] == 20
    assert sasc(["classify", "train", root, "--persona", "p1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["n_scored"] == 60
    assert sasc(["classify", "explain", root, "m0@corp.com", "--persona", "p1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["doc_id"] == "m0@corp.com"
    assert sasc(["classify", "train", root, "--persona", "zz"]) == 2
    assert "unknown persona 'zz'" in capsys.readouterr().err


@pytest.mark.slow
def test_enron_categories(shared_data, tmp_path):
    s = Session.create(tmp_path / "enron")
    s.ingest([shared_data / "enron-categories-dev"])
    counts = import_categories(s, shared_data / "enron-categories-dev")
    assert counts["messages"] == 875 and counts["sensitive"] == 187 and counts["qrels"] == 875 * 13
    from collections import Counter
    from sasc_desktop.engine.classify import sensitivity_reasons
    reasons = sensitivity_reasons(s, "dana-whitfield")
    assert len(reasons) == 187 and counts["reasons"] == 207
    assert Counter(r for rs in reasons.values() for r in rs) == {
        "legal": 41, "secrecy": 67, "personal": 22, "employment": 58, "tone": 19}
    r = cross_validate(s, "dana-whitfield", folds=5, optimise="f1")
    assert r["n"] == 875 and r["positives"] == 187
    assert r["f1"] > 0.5 and r["roc_auc"] > 0.75
    s.close()


def test_messages_ingested_after_training_get_scored(project, tmp_path):
    s = project
    train(s, "p1")
    extra = tmp_path / "extra"
    extra.mkdir()
    (extra / "new.eml").write_text("Message-ID: <new@corp.com>\nFrom: ann@corp.com\nTo: bob@corp.com\n"
                                   "Subject: lawsuit\n\nprivileged attorney advice on the lawsuit\n")
    s.ingest([extra])
    probs = probabilities(s, "p1")
    assert len(probs) == 61 and 0.0 <= probs["new@corp.com"] <= 1.0
    assert probabilities_for(s, "p1", ["new@corp.com"])[0] == probs["new@corp.com"]


def test_message_set_key_follows_the_project(project, tmp_path):
    from sasc_desktop.engine.classify.features import _message_set_key, message_set_key
    s = project
    k1 = message_set_key(s)
    assert message_set_key(s) == k1 == _message_set_key(s)
    s.update_settings(internal_domains=["other.org"])
    k2 = message_set_key(s)
    assert k2[0] != k1[0] and k2[1] == ["other.org"] and k2 == _message_set_key(s)
    extra = tmp_path / "extra2"
    extra.mkdir()
    (extra / "n.eml").write_text("Message-ID: <n2@corp.com>\nFrom: ann@corp.com\nTo: bob@corp.com\nSubject: x\n\nhello\n")
    s.ingest([extra])
    k3 = message_set_key(s)
    assert k3[0] not in (k1[0], k2[0]) and k3 == _message_set_key(s)


# ------------------------------------------------------------------------------ all-or-nothing training
# Cancelled or killed at any point, the persona's model row, the model file it names and the
# stored scores still agree; a full fit reports its progress.


def _state(s, persona="p1"):
    """Everything a training writes: the row, the files on disk, the scores."""
    row = s.store.con.execute("SELECT version, path, info FROM classifier_models WHERE persona = ?", (persona,)).fetchone()
    scores = s.store.con.execute("SELECT message, prob, model_version FROM scores WHERE persona = ? ORDER BY message",
                                 (persona,)).fetchall()
    files = sorted(p.name for p in (s.root / "models").glob("classifier-*"))
    return row, scores, files


def _cancel_at(text):
    """A Progress that cancels itself when a message containing ``text`` is reported."""
    box = []

    def hear(done, total, message):
        if text in message:
            box[0].cancel()
    box.append(Progress(hear))
    return box[0]


@pytest.mark.parametrize("stage", ["choosing the logistic regression's regularisation", "fitting the linear SVM",
                                   "scoring"])
def test_cancelled_first_training_writes_nothing(project, stage):
    s = project
    with pytest.raises(Cancelled):
        train(s, "p1", _cancel_at(stage), kind="or")
    assert _state(s) == (None, [], [])
    with pytest.raises(api.NoModelError):
        load_model(s, "p1")


@pytest.mark.parametrize("full", [False, True])
def test_cancelled_retraining_keeps_the_saved_model_and_scores(project, full):
    s = project
    first = train(s, "p1", kind="or")
    before = _state(s)
    saved = load_model(s, "p1")
    coef = {k: v.copy() for k, v in saved.coef_.items()}
    J.save_sensitivity(s.store, [("p1", "", "m1@corp.com", 1)])  # a new judgment: retrain
    with pytest.raises(Cancelled):
        train(s, "p1", _cancel_at("scoring"), kind="or", full=full)
    assert _state(s) == before
    again = load_model(s, "p1")  # the cached model object was not changed by the abandoned update
    assert again.n_train_ == first.n_train and again.updates_ == 0
    assert all(np.array_equal(again.coef_[k], coef[k]) for k in coef)
    # the next training goes through and leaves exactly one model file, the one the row names
    info = train(s, "p1", kind="or")
    row, scores, files = _state(s)
    assert info.version == first.version + 1 == row[0] and files == [row[1]] == [_model_path(s, "p1").name]
    assert {v for _, _, v in scores} == {info.version} and len(scores) == 60


def test_a_failed_commit_keeps_the_old_model_and_leaves_no_file(project, monkeypatch):
    """A failure after the new model file is written but before the transaction commits leaves
    the row, the scores and the files exactly as they were; the old model still loads."""
    s = project
    train(s, "p1", kind="lr")
    before = _state(s)
    old_threshold = load_model(s, "p1").threshold_

    def boom(*args, **kwargs):
        raise KeyboardInterrupt("interrupted")
    monkeypatch.setattr(api, "_write_scores", boom)
    with pytest.raises(KeyboardInterrupt):
        train(s, "p1", kind="or", full=True)
    assert _state(s) == before
    model = load_model(s, "p1")
    assert model.kind == "lr" and model.threshold_ == old_threshold
    monkeypatch.undo()
    info = train(s, "p1", kind="or")
    row, _, files = _state(s)
    assert files == [row[1]] and load_model(s, "p1").kind == "or" and info.version == before[0][0] + 1


def test_files_of_killed_trainings_are_removed_and_live_writers_files_kept(project):
    """A training killed after writing its file (or half of it) leaves it unreferenced: the next
    training removes it, unless its writer is a live process that may still commit it."""
    import subprocess
    import sys
    s = project
    train(s, "p1")
    current = _model_path(s, "p1")
    stem = api._model_stem("p1")
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid, live_pid = int(gone.stdout), os.getppid()  # an exited process; the one that started pytest
    dead = current.with_name(f"{stem}-p{dead_pid}-0123456789ab.joblib")
    half = current.with_name(f"{stem}-p{dead_pid}-ba9876543210.joblib.tmp")
    live = current.with_name(f"{stem}-p{live_pid}-aaaaaaaaaaaa.joblib")
    for f in (dead, half, live):
        f.write_bytes(current.read_bytes()[:100])
    other = current.with_name(current.name.replace("classifier-p1-", "classifier-p2-"))
    other.write_bytes(b"another persona's file")
    info = train(s, "p1")
    names = {p.name for p in (s.root / "models").glob("classifier-*")}
    assert names == {_model_path(s, "p1").name, live.name, other.name}
    assert info.path == str(_model_path(s, "p1"))


def test_rows_of_older_projects_with_absolute_unversioned_paths_still_load(project):
    s = project
    train(s, "p1")
    current = _model_path(s, "p1")
    legacy = current.with_name(api._model_stem("p1") + ".joblib")
    current.rename(legacy)
    s.store.con.execute("UPDATE classifier_models SET path = ? WHERE persona = 'p1'", ("/elsewhere/models/" + legacy.name,))
    s.store.con.commit()
    assert _model_path(s, "p1") == legacy and load_model(s, "p1").n_train_ == 60
    train(s, "p1")  # retraining moves it to a file of its own and removes the legacy one
    assert [p.name for p in (s.root / "models").glob("classifier-*")] == [_model_path(s, "p1").name]
    assert pickle.loads(_model_path(s, "p1").read_bytes())["persona"] == "p1"


def test_full_fit_reports_every_inner_fit_in_order():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 5))
    y = (X[:, 0] > 0).astype(int)
    seen = []
    SensitivityClassifier(kind="or", Cs=(1.0, 4.0), inner_folds=3).fit(X, y, Progress(lambda d, t, m: seen.append((d, t, m))))
    steps = 2 * (2 * 3 + 1)  # two base models x (two Cs x three folds + the final fit)
    assert [d for d, _, _ in seen] == list(range(steps)) + [steps] and {t for _, t, _ in seen} == {steps}
    assert seen[0][2] == "choosing the logistic regression's regularisation: C=1, fold 1 of 3"
    assert seen[6][2] == "fitting the logistic regression on every judged message"
    assert seen[7][2] == "choosing the linear SVM's regularisation: C=1, fold 1 of 3"
    assert seen[-1][2] == "choosing the threshold"


def test_loading_while_another_training_replaces_the_file(project, monkeypatch):
    """A reader that found the old file's name just before another thread's training committed
    and deleted it reads the row again and gets the new model (no 'no model' error)."""
    s = project
    first = train(s, "p1", kind="lr")
    real = api.read_model_file
    interleaved = []

    def read_after_a_training(path, *args):
        if not interleaved:  # between the reader's row lookup and its open: a whole training
            interleaved.append(train(s, "p1", kind="or", full=True))
        return real(path, *args)
    monkeypatch.setattr(api, "read_model_file", read_after_a_training)
    model = load_model(s, "p1")
    assert interleaved and interleaved[0].version == first.version + 1
    assert model.kind == "or" and str(_model_path(s, "p1")) == interleaved[0].path


def _stored_agree_with_model(s, persona="p1"):
    """The stored scores are the row's model's probabilities, labelled with the row's version."""
    version = s.store.con.execute("SELECT version FROM classifier_models WHERE persona = ?", (persona,)).fetchone()[0]
    rows = s.store.con.execute("SELECT m.doc_id, s.prob, s.model_version FROM scores s JOIN messages m "
                               "ON m.id = s.message WHERE s.persona = ? ORDER BY m.id", (persona,)).fetchall()
    model = load_model(s, persona)
    expected = model.predict_proba_docs(s, [d for d, _, _ in rows])
    assert {v for _, _, v in rows} == {version}
    # (a few documents are read and transformed on their own, not taken from the project's cached
    # matrix: float32 features rounded in another order, probabilities within 1e-7; another
    # model's differ by far more)
    assert np.allclose([p for _, p, _ in rows], expected, rtol=0, atol=1e-7)
    return version, len(rows)


def test_scores_of_new_messages_never_overwrite_a_newer_training(project, tmp_path, monkeypatch):
    """Messages imported after training are scored on first use with the saved model; when a
    training commits in between (another thread), its scores stand and are the ones returned."""
    s = project
    train(s, "p1", kind="lr")
    (tmp_path / "new").mkdir()
    for i in range(5):
        (tmp_path / "new" / f"n{i}.eml").write_text(
            f"Message-ID: <new{i}@corp.com>\\nFrom: ann@corp.com\\nTo: carl@corp.com\\nSubject: later {i}\\n\\n"
            f"confidential settlement terms, note {i}\\n")
    s.ingest([tmp_path / "new"])
    real = api.doc_matrix
    interleaved = []

    def matrix_then_a_training(session, model, doc_ids):
        out = real(session, model, doc_ids)
        if not interleaved and len(doc_ids) == 5:  # the first-use scoring of the new messages
            interleaved.append(None)
            interleaved[0] = train(s, "p1", kind="or", full=True)
        return out
    monkeypatch.setattr(api, "doc_matrix", matrix_then_a_training)
    probs = probabilities(s, "p1")
    assert interleaved and len(probs) == 65
    version, n = _stored_agree_with_model(s)
    assert version == interleaved[0].version and n == 65
    monkeypatch.undo()
    model = load_model(s, "p1")
    assert model.kind == "or"
    docs = sorted(probs)
    assert np.allclose([probs[d] for d in docs], model.predict_proba_docs(s, docs), rtol=0, atol=1e-9)


def test_two_trainings_of_one_persona_at_once_each_commit_a_whole(project, monkeypatch):
    """A second training (the CLI while the app trains, say) that commits while the first has
    written its file but not committed: versions stay distinct and the row, its file and the
    scores agree, whichever commits last."""
    s = project
    first = train(s, "p1", kind="lr")
    real = api.save_model
    inner, started = [], []

    def save_then_another_training(session, persona, model):
        path = real(session, persona, model)
        if not started:
            started.append(True)
            inner.append(train(s, "p1", kind="or", full=True))  # commits before this one
        return path
    monkeypatch.setattr(api, "save_model", save_then_another_training)
    outer = train(s, "p1", kind="svm", full=True)
    assert (inner[0].version, outer.version) == (first.version + 1, first.version + 2)
    assert inner[0].path != outer.path and str(_model_path(s, "p1")) == outer.path
    assert load_model(s, "p1").kind == "svm" and _stored_agree_with_model(s) == (outer.version, 60)


def test_a_late_sweep_keeps_the_file_a_later_training_committed(project, monkeypatch):
    """Training 1 commits; training 2 commits and finishes before training 1 sweeps old files:
    the sweep keeps the file the row names now (training 2's)."""
    s = project
    train(s, "p1", kind="lr")
    real = api._forget_scores
    inner = []

    def forget_then_another_training(session, persona):
        real(session, persona)
        if not inner:
            inner.append(None)
            inner[0] = train(s, "p1", kind="or", full=True)
    monkeypatch.setattr(api, "_forget_scores", forget_then_another_training)
    outer = train(s, "p1", kind="lr", full=True)
    monkeypatch.undo()
    assert str(_model_path(s, "p1")) == inner[0].path and inner[0].version == outer.version + 1
    assert load_model(s, "p1").kind == "or" and _stored_agree_with_model(s) == (inner[0].version, 60)


def test_a_file_removed_between_open_and_read_is_looked_up_again(project, monkeypatch):
    """Another process's training removes the file the row named just as it is opened: the
    reader finds the new one (not 'damaged', not 'no model')."""
    from sasc_desktop.engine.project import modelfile
    s = project
    train(s, "p1", kind="lr")
    old = _model_path(s, "p1")
    modelfile.forget_model_file(old)  # as in another process: nothing cached
    real_open = open
    fired = []

    def open_after_a_training(path, *args, **kwargs):
        if not fired and str(path) == str(old):
            fired.append(1)
            train(s, "p1", kind="or", full=True)  # commits a new file and removes `old`
        return real_open(path, *args, **kwargs)
    monkeypatch.setattr(modelfile, "open", open_after_a_training, raising=False)
    assert load_model(s, "p1").kind == "or" and fired


def test_a_file_that_cannot_be_deleted_does_not_fail_a_committed_training(project, monkeypatch):
    """Windows refuses to delete a file another process has open: the training has committed
    and reports success; the next one removes the file."""
    import pathlib
    s = project
    first = train(s, "p1", kind="lr")
    old = _model_path(s, "p1")
    real = pathlib.Path.unlink

    def refuse(self, missing_ok=False):
        if self == old:
            raise PermissionError(13, "The process cannot access the file because it is being used by another process")
        return real(self, missing_ok=missing_ok)
    monkeypatch.setattr(pathlib.Path, "unlink", refuse)
    second = train(s, "p1", kind="lr", full=True)
    assert second.version == first.version + 1 and old.exists()
    monkeypatch.undo()
    train(s, "p1", kind="lr")
    assert not old.exists()


def test_models_of_files_another_process_replaced_leave_the_cache(project):
    import subprocess
    import sys
    from pathlib import Path
    from sasc_desktop.engine.project import modelfile
    s = project
    code = ("import sys; from sasc_desktop.engine.session import Session; from sasc_desktop.engine.classify import train;"
            "s = Session.open(sys.argv[1]); train(s, 'p1', kind='lr', full=True); s.close()")
    root = Path(__file__).resolve().parents[3]
    subprocess.run([sys.executable, "-c", code, str(s.root)], check=True, cwd=root)
    mine = _model_path(s, "p1")
    load_model(s, "p1")
    assert str(mine) in modelfile._CACHE
    subprocess.run([sys.executable, "-c", code, str(s.root)], check=True, cwd=root)  # replaces and removes it
    assert not mine.exists()
    load_model(s, "p1")
    assert _model_path(s, "p1") != mine and str(mine) not in modelfile._CACHE


def test_the_sweep_leaves_files_of_other_personas_alone(project):
    s = project
    train(s, "p1")
    stem = api._model_stem("p1")
    lookalike = s.root / "models" / f"{stem}-x-another-persona-1234abcd.joblib"
    lookalike.write_bytes(b"not ours")
    train(s, "p1", full=True)
    assert lookalike.exists()


def test_a_sweep_that_cannot_run_does_not_fail_a_committed_training(project, monkeypatch, caplog):
    """Another process holding the write lock past the busy timeout makes the sweep fail after
    the training committed: the training reports success, the sweep waits for the next one."""
    import sqlite3
    s = project
    first = train(s, "p1")

    def locked(*args):
        raise sqlite3.OperationalError("database is locked")
    monkeypatch.setattr(api, "_drop_old_model_files", locked)
    second = train(s, "p1", full=True)
    assert second.version == first.version + 1 and str(_model_path(s, "p1")) == second.path
    assert "old model files of p1 not removed: database is locked" in caplog.text


# ------------------------------------------------------------------------------ explain: only what the message has
def _mixed_senders_project(tmp_path):
    """60 real messages from internal (corp.com) and external senders, with and without Cc, so
    that sender_internal / sender_external and the recipient counts vary; p1 judged."""
    rng = random.Random(7)
    folder = tmp_path / "mail"
    folder.mkdir()
    sens = []
    for i in range(60):
        s = i % 3 == 0
        text = rng.choice(SENSITIVE if s else PLAIN) + " " + rng.choice(PLAIN)
        sender = ["ann@corp.com", "bob@corp.com", "zed@outside.net", "yan@other.org"][i % 4]
        cc = "Cc: eve@corp.com, fay@other.org\n" if i % 5 == 0 else ""
        to = "carl@corp.com" if i % 2 else "carl@corp.com, dee@other.org"
        (folder / f"{i:03d}.eml").write_text(
            f"Message-ID: <x{i}@corp.com>\nDate: Mon, {1 + i % 28} Mar 2001 {i % 24:02d}:23:00 -0800\n"
            f"From: {sender}\nTo: {to}\n{cc}Subject: note {i} {text.split()[0]}\n\n{text}\n")
        sens.append(f"p1 x{i}@corp.com {int(s)}")
    (tmp_path / "sens.txt").write_text("\n".join(sens) + "\n")
    (tmp_path / "personas.json").write_text(json.dumps([{"id": "p1", "name": "Persona One"}]))
    s = Session.create(tmp_path / "proj")
    s.ingest([folder], workers=0)
    import_judgments(s, sensitivity_path=tmp_path / "sens.txt", personas_path=tmp_path / "personas.json")
    return s


def _oracle_dense(model, doc):
    """The message's dense features before standardising, by the one-message functions."""
    from sasc_desktop.engine.classify import cues as Q
    from sasc_desktop.engine.classify import features as F
    space = model.space_
    f = {f"meta:{k}": v for k, v in F.metadata_features(doc, space.internal_domains_).items()}
    f.update({f"net:{k}": v for k, v in F.network_features(doc, space.central_).items()})
    f.update({f"pii:{k}": v for k, v in F.pii_features(
        "\n".join((doc.subject, doc.body[:F.MAX_TEXT], doc.attachments[:F.MAX_TEXT]))).items()})
    f.update({f"cue:{k}": v for k, v in Q.cue_features(doc.subject, doc.body[:F.MAX_TEXT]).items()})
    return f


@pytest.mark.parametrize("kind", ["lr", "or"])
def test_explain_lists_as_present_only_what_the_message_has(tmp_path, kind):
    """The reviewer's case: standardised, a feature the message lacks (value 0, below the mean)
    times a negative weight contributes towards sensitive, and explain listed it there as if the
    message had it (meta:sender_external AND meta:sender_internal at +0.044 for one message).
    towards_sensitive / towards_not_sensitive now hold only features the message has (checked
    against the one-message feature functions), the ones it lacks are in absent_towards_*, with
    present, value and an honest label; all four lists and other_contributions still add up to
    the raw score, and with no limit they hold every non-zero contribution, each once."""
    from sasc_desktop.engine.classify.features import load_docs
    s = _mixed_senders_project(tmp_path)
    try:
        train(s, "p1", kind=kind)
        model = load_model(s, "p1")
        docs = dict((d.doc_id, d) for _, d in load_docs(s.store))
        seen_absent_positive = set()
        for doc_id, doc in docs.items():
            raw = _oracle_dense(model, doc)
            e = explain(s, doc_id, "p1")
            lists = {k: e.get(k, []) for k in ("towards_sensitive", "towards_not_sensitive",
                                                "absent_towards_sensitive", "absent_towards_not_sensitive")}
            for key, entries in lists.items():  # listed as had = had (words: in the text)
                assert all((t["weight"] > 0) == ("not_sensitive" not in key) for t in entries)
                assert [t["feature"] for t in entries if (t["feature"] not in raw or raw[t["feature"]] != 0)
                        != (not key.startswith("absent"))] == [], (doc_id, key)
            for key, entries in lists.items():
                for t in entries:
                    has = t["feature"] not in raw or raw[t["feature"]] != 0
                    assert t["present"] is has and set(t) >= {"feature", "block", "name", "weight", "value", "label"}
                    if t["feature"] in raw:
                        assert t["value"] == pytest.approx(raw[t["feature"]], abs=1e-6)
                    if key.startswith("absent"):
                        assert t["value"] == 0
            # the reviewer's pair: never both "towards sensitive" as features the message has
            towards = {t["feature"] for t in e["towards_sensitive"]}
            assert not {"meta:sender_internal", "meta:sender_external"} <= towards
            for t in e["absent_towards_sensitive"]:
                seen_absent_positive.add(t["feature"])
                if t["feature"] == "meta:sender_internal":
                    assert t["label"] == "sender is not internal" and raw["meta:sender_internal"] == 0
                if t["feature"] == "meta:sender_external":
                    assert t["label"] == "sender is not external" and raw["meta:sender_external"] == 0
            listed = sum(t["weight"] for entries in lists.values() for t in entries)
            assert listed + e["other_contributions"] + e["intercept"] == pytest.approx(e["raw_score"], abs=1e-5)
        assert seen_absent_positive  # (the case happens in this collection)
        # no limit: every non-zero contribution once, nothing left over
        doc_id = next(iter(docs))
        e = explain(s, doc_id, "p1", top=10 ** 6)
        every = [t for k in ("towards_sensitive", "towards_not_sensitive", "absent_towards_sensitive",
                             "absent_towards_not_sensitive") for t in e[k]]
        contrib = model.contributions(api.doc_matrix(s, model, [doc_id]))
        shown = np.flatnonzero(np.round(contrib, 6))  # (smaller ones are other_contributions)
        assert sorted(t["feature"] for t in every) == sorted(model.space_.names_[j] for j in shown)
        assert e["other_contributions"] == pytest.approx(float(contrib.sum() - contrib[shown].sum()), abs=1e-5)
    finally:
        s.close()


def test_explain_labels_say_what_the_message_has():
    from sasc_desktop.engine.classify.api import feature_label
    assert feature_label("meta", "sender_internal", False, 0.0) == "sender is not internal"
    assert feature_label("meta", "sender_internal", True, 1.0) == "sender is internal"
    assert feature_label("meta", "n_recipients", True, float(np.log1p(3))) == "3 recipient(s)"
    assert feature_label("meta", "n_cc", False, 0.0) == "nobody in Cc"
    assert feature_label("pii", "payment_card_count", True, float(np.log1p(2))) == \
        "personal information: payment card (2 found)"
    assert feature_label("pii", "payment_card_count", False, 0.0) == "no payment card found"
    assert feature_label("pii", "any_pii", False, 0.0) == "no personal information found"
    assert feature_label("cue", "legal_body", False, 0.0) == "no legal cue words in the body"
    assert feature_label("cue", "legal_subject", True, 1.0) == "legal cue words in the subject"
    assert feature_label("body", "salary", True, 0.3) == "body word “salary”"
    assert feature_label("net", "sender_pagerank", False, 0.0) == "sender network: sender pagerank is 0"
