"""The sweep of a persona's old model files decides by its writer's OS lock, not by a pid.

Each training writes its model file under a lock on ``<file>.lock`` (taken before it writes,
released once its commit has ended); the sweep after a training removes a file, its half-written
``.tmp`` and its lock file only when it can take that lock: the writer ended (killed, crashed)
or finished. Writers here are real processes: killed ones, live ones holding the lock, one in
another PID namespace (where its pid means nothing here), and two trainings at once.
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from sasc_desktop.engine.classify import import_judgments, train
from sasc_desktop.engine.classify import api
from sasc_desktop.engine.classify.api import _model_path, load_model
from sasc_desktop.engine.project.modelfile import lock_path
from sasc_desktop.engine.session import Session

from test_classify_project import _mail_folder  # 60 messages, persona p1 (20 sensitive)

ENV = {**os.environ, "SASC_BLOCK_QT": "1"}
REPO = Path(__file__).resolve().parents[3]


@pytest.fixture
def root(tmp_path) -> Path:
    """A real project, persona p1 judged and trained once (closed: other processes use it too)."""
    folder, sens_file, personas = _mail_folder(tmp_path)
    with Session.create(tmp_path / "proj") as s:
        s.ingest([folder], workers=0)
        import_judgments(s, sensitivity_path=sens_file, personas_path=personas)
        train(s, "p1", kind="lr")
    return tmp_path / "proj"


def files(root: Path) -> set[str]:
    return {p.name for p in (root / "models").glob("classifier-*")}


def run(args: list[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run(args, env=ENV, cwd=REPO, capture_output=True, text=True, timeout=600, **kw)


# A training in another process that crashes (ends at once, no cleanup: os._exit, which works
# for PID 1 of a namespace too, whom even SIGKILL from inside does not stop) between writing its
# model file and committing it.
CRASH_BEFORE_COMMIT = """
import os, sys
from sasc_desktop.engine.classify import api
from sasc_desktop.engine.session import Session
def crash(*args, **kwargs):
    print(os.getpid(), flush=True)
    os._exit(9)
api._write_scores = crash  # called inside the commit's transaction
with Session.open(sys.argv[1]) as s:
    api.train(s, "p1", kind="lr", full=True)
"""

# A writer that holds its lock (written, not yet committed) until its stdin closes.
HOLD = """
import sys
from sasc_desktop.engine.project.modelfile import lock_for_writing, write_model_file
lock = lock_for_writing(sys.argv[1])
write_model_file(sys.argv[1], "sasc-classifier", 2, {"persona": "p1", "model": None})
print("holding", flush=True)
sys.stdin.readline()
lock.release()
"""


def pid_namespace() -> list[str]:
    prefix = ["unshare", "--pid", "--fork", "--kill-child"] + (["--user", "--map-root-user"] if os.geteuid() else [])
    if shutil.which("unshare") is None or run([*prefix, "true"]).returncode:
        pytest.skip("no unshare: cannot start a process in another PID namespace here")
    return prefix


@pytest.mark.parametrize("where", ["another process", "another PID namespace"])
def test_a_crashed_trainings_file_is_removed_whatever_its_pid(root, where):
    """The crashed training's file (and its lock file) is removed by the next training. In
    another PID namespace the crashed writer was PID 1 (a container's first process), a pid
    that here belongs to a live process: deciding by pid kept its file for ever."""
    before = files(root)
    crashed = run([*(pid_namespace() if where == "another PID namespace" else []), sys.executable, "-c",
                   CRASH_BEFORE_COMMIT, str(root)])
    assert crashed.returncode == 9, crashed.stderr
    if where == "another PID namespace":
        assert crashed.stdout.split() == ["1"]
    left = files(root) - before
    assert left and any(n.endswith(".joblib") for n in left)  # what the crash left behind
    with Session.open(root) as s:
        info = train(s, "p1", kind="lr", full=True)
        assert files(root) == {_model_path(s, "p1").name} and info.path == str(_model_path(s, "p1"))
        assert load_model(s, "p1").kind == "lr"


def test_a_live_writers_file_is_kept_until_it_lets_go(root):
    """A writer in another process holding its lock (the CLI between writing and committing its
    model, say): a training here keeps its file; once the writer is gone (here: killed, so it
    never removed its lock file), the next training removes the file and the lock file."""
    with Session.open(root) as s:
        theirs = Path(s.paths.models) / f"{api._model_stem('p1')}-{'a' * 16}.joblib"
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(theirs)], env=ENV, cwd=REPO, text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert holder.stdout.readline().strip() == "holding", holder.stderr.read()
        with Session.open(root) as s:
            train(s, "p1", kind="lr", full=True)
            mine = _model_path(s, "p1").name
        assert files(root) == {mine, theirs.name, lock_path(theirs).name}
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait(timeout=60)
    assert files(root) == {mine, theirs.name, lock_path(theirs).name}  # killed: its lock file stays
    with Session.open(root) as s:
        train(s, "p1", kind="lr", full=True)
        assert files(root) == {_model_path(s, "p1").name}


def test_a_writer_in_another_pid_namespace_is_seen(root):
    """A live writer in another PID namespace (a container sharing the folder): its pid means
    nothing here, its lock does."""
    with Session.open(root) as s:
        theirs = Path(s.paths.models) / f"{api._model_stem('p1')}-{'b' * 16}.joblib"
    holder = subprocess.Popen([*pid_namespace(), sys.executable, "-c", HOLD, str(theirs)], env=ENV, cwd=REPO,
                              text=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert holder.stdout.readline().strip() == "holding", holder.stderr.read()
        with Session.open(root) as s:
            train(s, "p1", kind="lr", full=True)
            assert files(root) == {_model_path(s, "p1").name, theirs.name, lock_path(theirs).name}
    finally:
        holder.stdin.close()  # it lets go: removes its lock file, then drops the lock
        holder.wait(timeout=60)
    assert not lock_path(theirs).exists()
    with Session.open(root) as s:
        train(s, "p1", kind="lr", full=True)
        assert files(root) == {_model_path(s, "p1").name}


def test_the_lock_is_held_from_writing_until_the_commit_has_ended(root, monkeypatch):
    """Inside the commit's transaction the new file's lock is held (another open file cannot
    take it); after the training neither the lock nor its file remain; a lock file left by a
    writer that crashed after committing is removed and its (committed) file kept."""
    from sasc_desktop.engine.procpool import lock_file, unlock_file
    seen = []
    real = api._write_scores

    def check_lock(con, persona, version, ids, probs, *more):
        (held,) = api._WRITING.values()  # the one writer's lock this process holds
        row_file = held.path
        fd = lock_file(lock_path(row_file), create=False)
        seen.append((row_file.name, fd is None, lock_path(row_file).exists()))
        if fd is not None:
            unlock_file(fd)
        return real(con, persona, version, ids, probs, *more)
    monkeypatch.setattr(api, "_write_scores", check_lock)
    with Session.open(root) as s:
        train(s, "p1", kind="lr", full=True)
        current = _model_path(s, "p1")
    assert seen == [(current.name, True, True)]
    assert files(root) == {current.name}
    monkeypatch.undo()
    crashed = run([sys.executable, "-c", "import os, sys\nfrom sasc_desktop.engine.project.modelfile import "
                   "lock_for_writing\nlock_for_writing(sys.argv[1])\nos._exit(9)", str(current)])
    assert crashed.returncode == 9 and lock_path(current).exists()
    with Session.open(root) as s:
        api._drop_old_model_files(s, "p1", current)
    assert files(root) == {current.name}


def test_two_processes_training_one_persona_at_once(root):
    """Two real trainings of the same persona started together (the app and the CLI, say): both
    succeed with distinct versions; the row names a file that exists and loads, whose scores
    agree; no lock file remains; any file left is one of theirs, and the next training leaves
    only its own."""
    cmd = [sys.executable, "-m", "sasc_desktop.cli", "classify", "train", str(root), "--persona", "p1", "--model", "lr",
           "--full"]
    procs = [subprocess.Popen(cmd, env=ENV, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    outs = [p.communicate(timeout=600) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [o[1] for o in outs]
    with Session.open(root) as s:
        version, name = s.store.con.execute("SELECT version, path FROM classifier_models WHERE persona = 'p1'").fetchone()
        assert version == 3  # 1 before, then one each
        assert {v for (v,) in s.store.con.execute("SELECT DISTINCT model_version FROM scores WHERE persona = 'p1'")} \
            == {3}
        assert load_model(s, "p1").kind == "lr" and name in files(root)
        assert not any(n.endswith(".lock") for n in files(root)) and len(files(root)) <= 2
        train(s, "p1", kind="lr", full=True)
        assert files(root) == {_model_path(s, "p1").name}
