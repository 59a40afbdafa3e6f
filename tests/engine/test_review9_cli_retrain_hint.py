"""The note of `sasc search --protect` on a ranker that learned from older judgments gives a
`sasc protect train` command that, pasted into a shell as it is, retrains the same ranker as
--retrain would: the project folder and persona shell-quoted (a folder with a space in its
name), and the ranker (and a depth or objective other than the defaults) it was trained with.
The previous note left out --ranker (following it replaced a linear ranker with ca) and did not
quote the folder. Real demo mail, the real CLI; the command is run as the shell splits it."""
from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from sasc_desktop.cli import main as sasc
from sasc_desktop.engine.protect import search as P
from sasc_desktop.engine.session import Session

PERSONA = "holly-palmer"


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    from sasc_desktop.engine.demo_project import build_demo_project
    return build_demo_project(tmp_path_factory.mktemp("hint") / "demo", n_messages=300, train=False)


def _import(root: Path, *args: str) -> None:
    assert sasc(["judgments", "import", str(root), *args, "--json"]) == 0


def _stale_project(demo: Path, root: Path, approach: str, **training) -> None:
    """The demo mail and judgments; the approach's ranker trained with ``training`` and then out
    of date (a relevance judgment imported after it)."""
    mail = demo / "demo-mail"
    with Session.create(root) as s:
        s.ingest([mail / "mail"], workers=0)
    _import(root, "--sensitivity", str(mail / "sensitivity.txt"), "--reasons", str(mail / "reasons.tsv"),
            "--qrels", str(mail / "qrels.txt"), "--topics", str(mail / "topics.json"))
    with Session.open(root) as s:
        info = s.train_protection(PERSONA, approach, **training)
        assert info["ranker"] == training["ranker"] and info["topics"] > 5
        doc = s.store.con.execute("SELECT doc_id FROM messages WHERE doc_id NOT IN "
                                  "(SELECT doc_id FROM qrels WHERE topic = '1') ORDER BY doc_id LIMIT 1").fetchone()[0]
    (root.parent / "more.qrels").write_text(f"1 0 {doc} 1\n", encoding="utf-8")
    _import(root, "--qrels", str(root.parent / "more.qrels"))


def _note_command(root: Path, approach: str, capsys, json_flag: bool) -> str:
    capsys.readouterr()
    assert sasc(["search", str(root), "Falcon launch", "--protect", approach, "--persona", PERSONA]
                + (["--json"] if json_flag else [])) == 0
    err = capsys.readouterr().err
    note = [line for line in err.splitlines() if "learned from older judgments" in line]
    assert len(note) == 1, err
    return note[0].split("--retrain, or ", 1)[1].rsplit(", brings it up to date", 1)[0]


@pytest.mark.parametrize("approach, training, options", [
    ("joint", {"ranker": "linear", "depth": 60}, ["--ranker", "linear", "--depth", "60"]),
    ("demote", {"ranker": "linear", "depth": 50, "objective": "nCS-DCG@5(cost=12)"},
     ["--approach", "demote", "--ranker", "linear", "--objective", "nCS-DCG@5(cost=12)", "--depth", "50"]),
])
def test_the_stale_ranker_note_gives_a_command_that_retrains_the_same_ranker(demo, tmp_path, capsys, approach,
                                                                               training, options):
    root = tmp_path / "my project"                       # a space in the folder's name
    _stale_project(demo, root, approach, **training)
    with Session.open(root) as s:
        before = P.load_protection(s, PERSONA, approach)["training"]
    assert before == {**P.DEFAULT_TRAINING, **training}
    command = _note_command(root, approach, capsys, json_flag=False)
    assert _note_command(root, approach, capsys, json_flag=True) == command     # (with --json too, on stderr)
    assert command == " ".join(["sasc", "protect", "train", shlex.quote(str(root)), "--persona", PERSONA]
                               + [shlex.quote(o) for o in options])
    words = shlex.split(command)                         # as a shell runs it
    assert words[:4] == ["sasc", "protect", "train", str(root)]
    capsys.readouterr()
    assert sasc(words[1:] + ["--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["ranker"] == training["ranker"]          # (the previous note's command trained ca)
    with Session.open(root) as s:
        payload = P.load_protection(s, PERSONA, approach)
        assert payload["training"] == before             # the same ranker, objective and depth as before
        assert payload["judgments"] == P.judgments_fingerprint(s, PERSONA)
    capsys.readouterr()
    assert sasc(["search", str(root), "Falcon launch", "--protect", approach, "--persona", PERSONA, "--json"]) == 0
    out = capsys.readouterr()
    assert json.loads(out.out)["model_up_to_date"] is True and "older judgments" not in out.err
