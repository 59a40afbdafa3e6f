"""What the demo refuses, with what message, and the small demos it builds without models."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from sasc_desktop.cli import main
from sasc_desktop.engine.demo import generate
from sasc_desktop.engine.demo_project import build_demo_project
from sasc_desktop.engine.errors import InputError, ProjectError
from sasc_desktop.engine.session import Session

REPO = Path(__file__).resolve().parents[3]
HUGE = 10 ** 20


@pytest.fixture
def where(tmp_path) -> Path:
    """An empty folder of the test's own (tmp_path also holds the isolated home)."""
    w = tmp_path / "w"
    w.mkdir()
    return w
RANGE = "the number of demo messages must be between 1 and 1,000,000, got "


# --- --messages: 1 to 1,000,000 ---------------------------------------------------------------
@pytest.mark.parametrize("n, shown", [(HUGE, "100,000,000,000,000,000,000"), (1_000_001, "1,000,001"),
                                      (0, "0"), (-3, "-3")])
def test_generate_refuses_a_number_of_messages_out_of_range(tmp_path, n, shown):
    with pytest.raises(InputError) as err:
        generate(tmp_path / "out", n_messages=n)
    assert str(err.value) == RANGE + shown
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("n", ["3000", 2.5, True, None])
def test_generate_refuses_a_number_of_messages_that_is_not_whole(tmp_path, n):
    with pytest.raises(InputError) as err:
        generate(tmp_path / "out", n_messages=n)
    assert str(err.value) == f"the number of demo messages must be a whole number, got {n!r}"


def test_build_refuses_a_huge_demo_before_making_anything(where):
    with pytest.raises(InputError) as err:
        build_demo_project(where / "d", n_messages=HUGE)
    assert str(err.value) == RANGE + "100,000,000,000,000,000,000"
    assert list(where.iterdir()) == []


def test_cli_says_so_for_a_huge_demo(where, capsys):
    assert main(["demo", str(where / "d"), "--messages", str(HUGE)]) == 2
    assert capsys.readouterr().err == f"sasc: error: {RANGE}100,000,000,000,000,000,000\n"
    assert list(where.iterdir()) == []


# --- --seed: 0 or more -----------------------------------------------------------------------
def test_generate_refuses_a_negative_seed(tmp_path):
    with pytest.raises(InputError) as err:
        generate(tmp_path / "out", n_messages=20, seed=-7)
    assert str(err.value) == ("the demo seed must be 0 or more, got -7 (a negative seed would write the mail of "
                              "seed 7 with other judgments)")
    assert not (tmp_path / "out").exists()
    with pytest.raises(InputError, match="whole number"):
        generate(tmp_path / "out", n_messages=20, seed=1.5)
    generate(tmp_path / "zero", n_messages=20, seed=0)
    assert (tmp_path / "zero" / "sensitivity.txt").exists()


def test_build_and_cli_refuse_a_negative_seed(where, capsys):
    with pytest.raises(InputError, match="^the demo seed must be 0 or more, got -7 "):
        build_demo_project(where / "d", n_messages=20, seed=-7)
    assert main(["demo", str(where / "d"), "--messages", "20", "--seed", "-7"]) == 2
    assert capsys.readouterr().err.startswith("sasc: error: the demo seed must be 0 or more, got -7 ")
    assert list(where.iterdir()) == []


# --- a file where a folder must be -------------------------------------------------------------
@pytest.mark.parametrize("below", ["sub", "sub/deeper"])
def test_a_file_on_the_way_is_named(where, capsys, below):
    f = where / "f"
    f.write_text("not a folder\n")
    root = where / "f" / below
    with pytest.raises(ProjectError) as err:
        build_demo_project(root, n_messages=20, train=False)
    assert str(err.value) == f"cannot create the demo project at {root}: {f} is a file, not a folder"
    assert main(["demo", str(root), "--messages", "20", "--no-train"]) == 2
    assert capsys.readouterr().err == f"sasc: error: cannot create the demo project at {root}: {f} is a file, not a folder\n"
    assert sorted(p.name for p in where.iterdir()) == ["f"] and f.read_text() == "not a folder\n"


# --- a demo too small to train on ---------------------------------------------------------------
def _models(root: Path) -> list[str]:
    with Session.open(root) as s:
        return [r[0] for r in s.store.con.execute("SELECT persona FROM classifier_models ORDER BY persona")]


def _note(persona: str, pos: int, neg: int) -> str:
    return (f"no sensitivity model for {persona}: the demo has {pos} sensitive and {neg} not-sensitive judgments "
            f"for {persona}, and training needs at least 2 of each; build the demo with more messages to have one")


def _counts(root: Path, persona: str) -> tuple[int, int]:
    with Session.open(root) as s:
        rows = s.store.con.execute("SELECT level FROM sensitivity WHERE persona = ?", (persona,)).fetchall()
    pos = sum(1 for (lvl,) in rows if lvl >= 1)
    return pos, len(rows) - pos


@pytest.mark.parametrize("n", [1, 2, 5])
def test_a_tiny_demo_is_built_without_the_models_it_cannot_train(tmp_path, n):
    notes: list[str] = []
    root = build_demo_project(tmp_path / "d", n_messages=n, notes=notes)
    with Session.open(root) as s:
        assert s.stats()["messages"] == n
        personas = s.stats()["personas"]
    assert personas == ["holly-palmer", "john-snibert"]
    skipped = [p for p in personas if min(_counts(root, p)) < 2]
    assert skipped                                      # these sizes are too small for some persona
    assert notes == [_note(p, *_counts(root, p)) for p in skipped]
    assert _models(root) == [p for p in personas if p not in skipped]


def test_a_small_demo_trains_both_personas(tmp_path):
    notes: list[str] = []
    root = build_demo_project(tmp_path / "d", n_messages=30, notes=notes)
    assert notes == []
    assert _models(root) == ["holly-palmer", "john-snibert"]


def test_sasc_demo_of_two_messages_builds_and_says_which_models_are_missing(tmp_path):
    """The real command: each note once on stderr, as 'sasc: note: ...' (not only as a log warning)."""
    env = {**os.environ, "SASC_BLOCK_QT": "1"}
    done = subprocess.run([sys.executable, "-m", "sasc_desktop.cli", "demo", str(tmp_path / "d"), "--messages", "2"],
                          capture_output=True, text=True, cwd=REPO, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    root = (tmp_path / "d").resolve()
    assert done.stdout.startswith(f"demo project ready at {root}: 2 messages, ")
    lines = [ln[len("sasc: note: "):] for ln in done.stderr.splitlines() if ln.startswith("sasc: note: ")]
    assert lines == [_note(p, *_counts(root, p)) for p in ("holly-palmer", "john-snibert")
                     if min(_counts(root, p)) < 2]
    assert lines
