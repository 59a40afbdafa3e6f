"""Training while an import (another session or process) adds judged mail: the judgments are
read before the feature matrix is built, so every judged message trained on has a feature row
(messages only ever get added), and mail the import commits later is left out of this training,
not an error ("no document '<id>' in this project" for a document that is in the project).

Deterministic, no threads and no mocks: the import runs, in another real session of the
project, from the training's own progress callback at the moment the features are being
computed, after the messages have been read (the window in which `sasc classify train`
during `sasc ingest` failed)."""
import json

import pytest

from sasc_desktop.engine.classify import cross_validate, fit_model, import_judgments, probabilities, train
from sasc_desktop.engine.progress import Progress
from sasc_desktop.engine.session import Session

SENSITIVE = ["privileged attorney advice on the lawsuit", "my divorce and family trouble", "confidential settlement"]
PLAIN = ["lunch menu for friday", "quarterly gas volumes report", "meeting room booking"]
N, LATE = 30, 10   # messages ingested before training; judged messages the import adds meanwhile


def _eml(i: int) -> str:
    text = SENSITIVE[i % 3] if i % 3 == 0 else PLAIN[i % 3]
    return (f"Message-ID: <m{i}@corp.com>\nDate: Mon, 5 Mar 2001 10:00:00 -0800\nFrom: ann@corp.com\n"
            f"To: carl@corp.com\nSubject: note {i} {text.split()[0]}\n\n{text} number {i}\n")


@pytest.fixture
def project(tmp_path):
    """N messages ingested, and judgments of p1 (every third sensitive) for them and for LATE
    messages not yet ingested (kept: they apply once that mail is ingested)."""
    for name, span in (("mail", range(N)), ("late", range(N, N + LATE))):
        (tmp_path / name).mkdir()
        for i in span:
            (tmp_path / name / f"{i:03d}.eml").write_text(_eml(i))
    (tmp_path / "sens.txt").write_text("".join(f"p1 m{i}@corp.com {int(i % 3 == 0)}\n" for i in range(N + LATE)))
    (tmp_path / "personas.json").write_text(json.dumps([{"id": "p1", "name": "Persona One"}]))
    with Session.create(tmp_path / "proj") as s:
        s.ingest([tmp_path / "mail"], workers=1)
        counts = import_judgments(s, sensitivity_path=tmp_path / "sens.txt", personas_path=tmp_path / "personas.json")
    assert counts["not_in_project"] == LATE
    return tmp_path


def _import_while_featurising(tmp_path) -> tuple[Progress, list[str]]:
    """A progress whose callback, when the features are computed from the messages read, has
    another session of the project import the LATE judged messages (once)."""
    fired: list[str] = []

    def callback(_done, _total, message: str) -> None:
        if message == "metadata, PII and network features" and not fired:
            fired.append(message)
            with Session.open(tmp_path / "proj") as other:
                other.ingest([tmp_path / "late"], workers=1)
    return Progress(callback), fired


def _messages(s) -> int:
    return s.store.con.execute("SELECT COUNT(*) FROM messages").fetchone()[0]


def test_train_leaves_out_judged_mail_imported_meanwhile(project):
    progress, fired = _import_while_featurising(project)
    with Session.open(project / "proj") as s:
        info = train(s, "p1", progress=progress)
        assert fired and _messages(s) == N + LATE
        assert (info.n_train, info.n_positive, info.n_scored) == (N, 10, N)
        # the mail imported meanwhile is scored on first use, and the next training learns from it
        assert len(probabilities(s, "p1")) == N + LATE
        again = train(s, "p1")
        assert (again.n_train, again.n_positive, again.n_scored) == (N + LATE, 14, N + LATE)


def test_fit_model_leaves_out_judged_mail_imported_meanwhile(project):
    progress, fired = _import_while_featurising(project)
    with Session.open(project / "proj") as s:
        model = fit_model(s, "p1", progress=progress)
        assert fired and _messages(s) == N + LATE
        assert (model.full_fit_n_, int(model.full_fit_labels_[1].sum())) == (N, 10)


def test_cross_validation_leaves_out_judged_mail_imported_meanwhile(project):
    progress, fired = _import_while_featurising(project)
    with Session.open(project / "proj") as s:
        out = cross_validate(s, "p1", folds=3, progress=progress)
        assert fired and _messages(s) == N + LATE
        assert (out["n"], out["positives"], out["folds"]) == (N, 10, 3)
