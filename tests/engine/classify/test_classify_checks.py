"""Reviewed input checks and failures of sensitivity classification, on real projects (real
mail files, real SQLite): each is a clear error (exit 2 from the CLI), raised before any work."""
import hashlib
import json
import re

from pathlib import Path

import numpy as np
import pytest

from sasc_desktop.cli import main as sasc
from sasc_desktop.engine.classify import api, cross_validate, fit_model, import_judgments, probabilities, train
from sasc_desktop.engine.classify.api import check_seed
from sasc_desktop.engine.errors import InputError
from sasc_desktop.engine.progress import Progress
from sasc_desktop.engine.session import Session


def _project(tmp_path, n: int = 12, persona: str = "p1") -> Session:
    """n messages, every third one judged sensitive for the persona."""
    folder = tmp_path / "mail"
    folder.mkdir()
    lines = []
    for i in range(n):
        text = "confidential settlement terms" if i % 3 == 0 else "lunch menu for friday"
        (folder / f"{i:03d}.eml").write_text(f"Message-ID: <m{i}@corp.com>\nDate: Mon, 5 Mar 2001 10:00:00 -0800\n"
                                             f"From: ann@corp.com\nTo: carl@corp.com\nSubject: note {i}\n\n{text}\n")
        lines.append(f"{persona} m{i}@corp.com {int(i % 3 == 0)}")
    (tmp_path / "sens.txt").write_text("\n".join(lines) + "\n")
    (tmp_path / "personas.json").write_text(json.dumps([{"id": persona, "name": "Persona One"}]))
    s = Session.create(tmp_path / "proj")
    s.ingest([folder], workers=1)
    import_judgments(s, sensitivity_path=tmp_path / "sens.txt", personas_path=tmp_path / "personas.json")
    return s


# ------------------------------------------------------------------------------ cross-validation seed
@pytest.mark.parametrize("seed", ["-1", "99999999999", str(2 ** 32)])
def test_a_seed_numpy_cannot_take_is_a_clear_error(tmp_path, capsys, seed):
    s = _project(tmp_path, n=12)
    root = str(s.root)
    with pytest.raises(InputError, match=rf"^the cross-validation seed must be between 0 and 4294967295, got {seed}$"):
        cross_validate(s, "p1", folds=2, seed=int(seed))
    s.close()
    assert sasc(["classify", "cv", root, "--persona", "p1", "--seed", seed]) == 2
    captured = capsys.readouterr()
    assert captured.err.endswith(f"the cross-validation seed must be between 0 and 4294967295, got {seed}\n")
    assert "Traceback" not in captured.err


def test_seeds_numpy_takes_are_taken():
    assert [check_seed(v) for v in (0, 7, 2 ** 32 - 1, np.int64(5))] == [0, 7, 4294967295, 5]
    for bad in (True, 1.5, "3", None):
        with pytest.raises(InputError, match="the cross-validation seed must be a whole number, got "):
            check_seed(bad)


# ------------------------------------------------------------------------------ file names of long persona ids
def _sha8(persona: str) -> str:
    return hashlib.sha1(persona.encode()).hexdigest()[:8]


def test_file_names_of_short_persona_ids_are_as_they_were(tmp_path):
    from sasc_desktop.engine.protect.search import _model_path as protect_path
    sixty_four = "x." * 32
    assert api._model_stem("p1") == f"classifier-p1-{_sha8('p1')}"
    assert api._model_stem("john snibert/é") == f"classifier-john_snibert__-{_sha8('john snibert/é')}"
    assert api._model_stem(sixty_four) == f"classifier-{sixty_four}-{_sha8(sixty_four)}"
    assert api._model_stems(sixty_four) == [api._model_stem(sixty_four)]
    with Session.create(tmp_path / "proj") as s:
        models = Path(s.paths.models)
        assert protect_path(s, "john-snibert", "joint") == models / f"protect-john-snibert-{_sha8('john-snibert')}-joint.pkl"
        assert protect_path(s, sixty_four, "prefilter") == models / f"protect-{sixty_four}-{_sha8(sixty_four)}-prefilter.pkl"


def test_a_250_character_persona_id_trains_under_a_short_file_name(tmp_path):
    from sasc_desktop.engine.protect.search import _model_path as protect_path
    persona = "a" * 130 + "-é" + "b" * 118
    assert len(persona) == 250
    s = _project(tmp_path, persona=persona)
    models = Path(s.paths.models)
    for _ in range(2):
        info = train(s, persona, full=True)
        name = Path(info.path).name
        assert re.fullmatch(rf"classifier-a{{64}}-{_sha8(persona)}-[0-9a-f]{{16}}\.joblib", name), name
        assert len(name) == 11 + 64 + 9 + 17 + 7 == 108
        assert sorted(f.name for f in models.glob("classifier-*")) == [name]   # the earlier version's file swept
    assert len(probabilities(s, persona)) == 12
    assert protect_path(s, persona, "joint_postfilter") == \
        models / f"protect-{'a' * 64}-{_sha8(persona)}-joint_postfilter.pkl"
    s.close()
    assert sasc(["classify", "train", str(tmp_path / "proj"), "--persona", persona]) == 0


def test_files_an_earlier_version_named_by_a_whole_long_id_are_swept(tmp_path):
    """An id of 65 to about 200 characters fitted in a file name before: a training now sweeps
    the files it left (the model a row names loads whatever its name)."""
    persona = "c" * 100
    s = _project(tmp_path, persona=persona)
    models = Path(s.paths.models)
    train(s, persona)
    old_stem = f"classifier-{persona}-{_sha8(persona)}"
    assert api._model_stems(persona) == [f"classifier-{'c' * 64}-{_sha8(persona)}", old_stem]
    (models / f"{old_stem}-{'0' * 16}.joblib").write_bytes(b"left by an earlier version")
    (models / f"{old_stem}-v3.joblib").write_bytes(b"older still")
    # the row of an earlier version names a file with the whole-id stem: it still loads
    current = Path(train(s, persona).path)
    legacy = models / f"{old_stem}-{'1' * 16}.joblib"
    current.rename(legacy)
    with s.store.transaction() as c:
        c.execute("UPDATE classifier_models SET path = ? WHERE persona = ?", (legacy.name, persona))
    api._forget_scores(s, persona)
    assert api.load_model(s, persona).persona_ == persona
    info = train(s, persona)
    assert sorted(f.name for f in models.glob("classifier-*")) == [Path(info.path).name]
    s.close()


# ------------------------------------------------------------------------------ personas from judgments
def test_a_reasons_only_import_gives_a_new_persona_a_card_as_sensitivity_lines_do(tmp_path, capsys):
    s = _project(tmp_path, n=12)
    root = str(s.root)
    s.close()
    reasons = tmp_path / "zed.reasons"
    reasons.write_text("".join(f"m{i}@corp.com\tzed\tlegal\n" for i in (0, 3, 6)))
    assert sasc(["judgments", "import", root, "--reasons", str(reasons), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"personas": 1, "topics": 0, "qrels": 0, "sensitivity": 0,
                                                   "reasons": 3, "not_in_project": 0, "copy_ids": 0, "changed": 0,
                                                   "topics_changed": 0, "personas_changed": 0}
    assert sasc(["personas", root]) == 0
    assert capsys.readouterr().out == "p1\tPersona One\nzed\tzed\n"
    # zed is a persona now: training says what it lacks (reasons are positives only), not "unknown persona"
    assert sasc(["classify", "train", root, "--persona", "zed"]) == 2
    assert capsys.readouterr().err == ("sasc: error: training needs at least 2 sensitive and 2 not-sensitive "
                                       "judgments (got 3 sensitive and 0 not sensitive)\n")


@pytest.mark.parametrize("bad, what", [("a b", "a space"), ("a\tb", "the character U+0009"),
                                       ("a\nb", "the character U+000A"), ("a\x07b", "the character U+0007"),
                                       ("a\u00a0b", "the character U+00A0"), ("a\u2028b", "the character U+2028"),
                                       ("bob\u200b", "the character U+200B"), ("\ufeffbob", "the character U+FEFF"),
                                       ("a\u202eb", "the character U+202E")])
def test_a_persona_id_with_spaces_or_control_characters_is_refused(tmp_path, capsys, bad, what):
    s = _project(tmp_path, n=12)
    root = str(s.root)
    cards = tmp_path / "cards.json"
    cards.write_text(json.dumps([{"id": "ok-one", "name": "Fine"}, {"id": bad, "name": "Broken"}]))
    message = f"{cards}: persona 2: the persona id {bad!r} contains {what}; a persona id cannot contain " \
              "spaces, tabs, line breaks or other control or invisible characters"
    with pytest.raises(InputError) as err:
        import_judgments(s, personas_path=cards)
    assert str(err.value) == message
    reasons = tmp_path / "r.tsv"
    reasons.write_text(f"m0@corp.com\t{bad}\tlegal\n")
    if not any(c in bad for c in "\t\n\u2028"):   # (a tab or line break breaks the reasons line itself)
        with pytest.raises(InputError) as err:
            import_judgments(s, reasons_path=reasons)
        assert str(err.value) == f"{reasons}: the persona id {bad!r} contains {what}; a persona id cannot " \
                                 "contain spaces, tabs, line breaks or other control or invisible characters"
    s.close()
    assert sasc(["judgments", "import", root, "--personas", str(cards)]) == 2
    assert capsys.readouterr().err == f"sasc: error: {message}\n"
    with Session.open(root) as s:
        assert s.personas() == [{"id": "p1", "name": "Persona One"}]   # nothing was imported


# ------------------------------------------------------------------------------ the progress bar on a terminal
def _on_a_terminal(args: list[str], interrupt_at: str | None = None) -> tuple[int, str]:
    """Run ``sasc args`` with its stderr on a real pseudo-terminal (so its progress bar is drawn;
    a project's busy timeout 0.2 s instead of 30 s); Ctrl+C (SIGINT) it once ``interrupt_at``
    is on the terminal. (exit status, what the terminal got)."""
    import os
    import pty
    import signal
    import subprocess
    import sys
    code = ("import sys\nimport sasc_desktop.engine.project.store as st\nst.BUSY_TIMEOUT = 0.2\n"
            "from sasc_desktop.cli import main\nsys.exit(main(sys.argv[1:]))")
    master, slave = pty.openpty()
    p = subprocess.Popen([sys.executable, "-c", code, *args], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=slave)
    os.close(slave)
    got = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # (EIO: the terminal's other end closed)
            break
        if not chunk:
            break
        got += chunk
        if interrupt_at is not None and interrupt_at.encode() in got:
            p.send_signal(signal.SIGINT)
            interrupt_at = None
    os.close(master)
    return p.wait(), got.decode().replace("\r\n", "\n")


def test_an_error_after_the_training_bar_goes_on_a_line_of_its_own(tmp_path):
    import sqlite3
    s = _project(tmp_path, n=12)
    root, db = str(s.root), str(s.store.path)
    s.close()
    lock = sqlite3.connect(db, isolation_level=None)
    lock.execute("BEGIN IMMEDIATE")  # another program holds the write lock: the commit of the scores fails
    try:
        status, out = _on_a_terminal(["classify", "train", root, "--persona", "p1"])
    finally:
        lock.execute("ROLLBACK")
        lock.close()
    assert status == 2
    lines = out.split("\n")
    assert lines[-2:] == ["sasc: error: the project is busy (another program is writing to it); try again", ""]
    assert lines[-3].startswith("\rtraining ")  # the bar, ended by a line break before the error


def test_ctrl_c_during_cross_validation_goes_on_a_line_of_its_own(tmp_path):
    s = _project(tmp_path, n=60)
    root = str(s.root)
    s.close()
    # (Ctrl+C when the bar is first drawn: the 10-fold run has a second or so of work left then)
    status, out = _on_a_terminal(["classify", "cv", root, "--persona", "p1", "--model", "or", "--folds", "10"],
                                 interrupt_at="cross-validation ")
    assert status == 130
    lines = out.split("\n")
    assert lines[-2:] == ["sasc: interrupted", ""]
    assert lines[-3].startswith("\rcross-validation ")  # the bar, ended by a line break before the message


# ------------------------------------------------------------------------------ training without judgments enough
@pytest.mark.parametrize("how", ["none", "one class"])
def test_training_a_persona_without_judgments_enough_fails_before_any_feature_is_built(tmp_path, how):
    s = _project(tmp_path, n=12)
    if how == "none":
        (tmp_path / "p2.json").write_text(json.dumps([{"id": "p2", "name": "Persona Two"}]))
        import_judgments(s, personas_path=tmp_path / "p2.json")
        message = ("persona 'p2' has no sensitivity judgments on this project's messages; "
                   "import or make judgments first")
    else:
        (tmp_path / "p2.txt").write_text("p2 m0@corp.com 1\np2 m1@corp.com 1\np2 m2@corp.com 0\n")
        import_judgments(s, sensitivity_path=tmp_path / "p2.txt")
        message = "training needs at least 2 sensitive and 2 not-sensitive judgments (got 2 sensitive and 1 not sensitive)"
    heard = []
    for fit in (lambda: train(s, "p2", progress=Progress(lambda d, t, m: heard.append(m))),
                lambda: fit_model(s, "p2", progress=Progress(lambda d, t, m: heard.append(m)))):
        with pytest.raises(InputError) as err:
            fit()
        assert str(err.value) == message
    assert heard == []                                              # no step was started
    assert sorted(p.name for p in Path(s.paths.models).glob("features-*")) == []   # no feature matrix built
    s.close()
