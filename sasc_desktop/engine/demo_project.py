"""The built-in demo project: synthetic mail generated, ingested, judged and (when the
classifier is available) a model trained per persona, so a fresh install has something to open.

The project is built in a temporary sibling folder (``.<name>.building-<pid>-<random>``) and
renamed into place only when everything is done, so an interrupted build never leaves what looks
like a finished project. A temporary folder left by a killed build is removed by the next build
in that parent folder once its writer's process is gone."""
from __future__ import annotations

import importlib
import json
import os
import re
import secrets
import shutil
import sqlite3
from pathlib import Path
from typing import Optional

from .errors import ProjectError
from .procpool import pid_alive
from .progress import Progress, ensure
from .project import judgments
from .project.layout import MARKER
from .session import Session

DEMO_SEED = 20261122
DEMO_MESSAGES = 3000
DEMO_MAIL = "demo-mail"  # the generated mail, inside the project folder
RESOURCES = Path(__file__).resolve().parents[2] / "resources"
# Everything a build writes at the top of a project folder (nothing else is ever a build's).
BUILD_NAMES = frozenset({MARKER, "project.sqlite", "project.sqlite-wal", "project.sqlite-shm",
                         "project.sqlite-journal", "index", "models", "exports", DEMO_MAIL})


def _stage(parent: Progress, start: float, end: float, label: str) -> Progress:
    """A child Progress reporting into [start, end] of the parent's 0..1000 scale."""
    def forward(done: int, total: Optional[int], message: str) -> None:
        frac = (done / total) if total else 0.0
        parent.update(int(1000 * (start + (end - start) * min(frac, 1.0))), 1000, f"{label}: {message}".rstrip(": "))
    child = Progress(forward)
    child._cancel = parent._cancel  # one cancel flag for the whole build
    return child


def demo_status(root: Path | str) -> str:
    """What is at ``root``, for building the demo there: ``missing``, ``empty`` (an empty
    folder), ``complete`` (a project with messages, personas and sensitivity judgments),
    ``incomplete`` (only what an unfinished build writes: a folder of build files, or a project
    with no judgments, no personas, no topics, no models, no exports and no mail but the
    generated demo mail; nothing a user made is in it), ``project`` (any other SASC project:
    it may hold someone's work) or ``other`` (a file, or a folder holding anything else)."""
    root = Path(root).expanduser()
    if not root.exists():
        return "missing"
    if not root.is_dir():
        return "other"
    names = {p.name for p in root.iterdir()}
    if not names:
        return "empty"
    ours = names <= BUILD_NAMES and not ((root / "exports").is_dir() and any((root / "exports").iterdir()))
    if MARKER not in names:
        return "incomplete" if ours else "other"
    if not (root / "project.sqlite").exists():  # stopped before its database was made
        return "incomplete" if ours else "project"
    counts = _project_counts(root)
    if counts is None:  # a database that cannot be read: whatever is in it stays
        return "project"
    if counts["messages"] and counts["personas"] and counts["sensitivity"]:
        return "complete"
    made = any(counts[k] for k in ("personas", "topics", "qrels", "sensitivity", "models")) or counts["foreign_sources"]
    return "incomplete" if ours and not made else "project"


def _project_counts(root: Path) -> Optional[dict[str, int]]:
    """Row counts of a project database (None when it cannot be read). Nothing is written; the
    connection is a plain one so that closing it folds in and removes a write-ahead log a
    killed writer left (a read-only one would leave -wal and -shm files behind)."""
    db = root / "project.sqlite"
    mail = str((root / DEMO_MAIL).resolve())
    try:
        con = sqlite3.connect(db.resolve().as_uri() + "?mode=rw", uri=True)  # never creates one
        try:
            def count(table: str) -> int:
                try:
                    return con.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
                except sqlite3.OperationalError:  # not created yet: the build stopped before
                    return 0
            out = {"messages": count("messages"), "personas": count("personas"), "topics": count("topics"),
                   "qrels": count("qrels"), "sensitivity": count("sensitivity"), "models": count("classifier_models")}
            try:
                paths = [r[0] for r in con.execute("SELECT path FROM sources")]
            except sqlite3.OperationalError:
                paths = []
            out["foreign_sources"] = sum(1 for p in paths if p != mail and not p.startswith(mail + os.sep))
            return out
        finally:
            con.close()
    except sqlite3.Error:
        return None


def refuse_reason(root: Path, status: str) -> Optional[str]:
    """Why the demo cannot be built at ``root`` (None when it can: missing or empty)."""
    if status in ("missing", "empty"):
        return None
    if status == "incomplete":
        return (f"{root} holds an unfinished demo project (left by an interrupted build): "
                f"delete that folder, or choose another folder for the demo")
    if status in ("complete", "project"):
        return f"{root} is already a SASC project; choose an empty or new folder for the demo"
    if not root.is_dir():
        return f"{root} exists and is not a folder"
    return f"{root} is not empty; choose an empty or new folder for the demo"


_WRITER = re.compile(r"(\d+)-[A-Za-z0-9_]+")


def _temp_prefix(root: Path) -> str:
    return f".{root.name}.building-"


def remove_stale_builds(root: Path | str) -> list[Path]:
    """Remove the temporary folders of earlier demo builds into ``root`` whose writer process is
    gone (killed before it could clean up); return the folders removed. Builds still running (in
    this process or another) are left alone."""
    root = Path(root).expanduser().resolve()
    prefix = _temp_prefix(root)
    removed = []
    try:
        entries = list(root.parent.iterdir())
    except OSError:
        return removed
    for entry in entries:
        if not entry.name.startswith(prefix):
            continue
        m = _WRITER.fullmatch(entry.name[len(prefix):])  # <pid>-<random>: this root's, not a longer name's
        if m is None or not entry.is_dir() or entry.is_symlink():
            continue
        pid = int(m.group(1))
        if pid == os.getpid() or pid_alive(pid):
            continue
        shutil.rmtree(entry, ignore_errors=True)
        if not entry.exists():
            removed.append(entry)
    return removed


def build_demo_project(root: Path | str, n_messages: Optional[int] = None, seed: int = DEMO_SEED,
                       progress: Optional[Progress] = None, train: bool = True) -> Path:
    """Create the demo project at ``root`` (an empty or new folder) and return its path.

    ``n_messages`` defaults to :data:`DEMO_MESSAGES`. Nothing appears at ``root`` until the
    whole project (mail, import, judgments and, with ``train``, the models) is done; a failed,
    cancelled or interrupted build leaves no project behind (a killed one leaves its temporary
    folder, which the next build removes)."""
    from .demo import generate  # the generator is only needed here

    progress = ensure(progress)
    given, root = Path(root), Path(root).expanduser().resolve()
    reason = refuse_reason(root, demo_status(root))
    if reason:
        raise ProjectError(reason)
    root.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_builds(root)
    tmp = _make_temp(root)
    try:
        session = Session.create(tmp)  # an empty folder is fine
        try:
            source = tmp / DEMO_MAIL
            generate(source, n_messages=DEMO_MESSAGES if n_messages is None else n_messages, seed=seed,
                     progress=_stage(progress, 0.0, 0.25, "writing demo mail"))
            report = session.ingest([source / "mail"], _stage(progress, 0.25, 0.85, "importing"))
            if report.cancelled:
                raise ProjectError("building the demo project was cancelled")
            load_demo_judgments(session, source)
            if train:
                _train_all(session, _stage(progress, 0.85, 1.0, "training"))
            progress.check()  # the last moment to cancel: nothing is at root yet
            _move_paths(session, tmp, root)
        finally:
            session.close()
        _rename_into_place(tmp, root)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    progress.update(1000, 1000, "demo project ready")
    return given


def _make_temp(root: Path) -> Path:
    """A new empty folder beside ``root`` for this build (made like any folder, so the finished
    project gets the usual permissions)."""
    while True:
        tmp = root.parent / f"{_temp_prefix(root)}{os.getpid()}-{secrets.token_hex(4)}"
        try:
            tmp.mkdir()
            return tmp
        except FileExistsError:
            continue


def _move_paths(session: Session, old: Path, new: Path) -> None:
    """Point the paths the store records (mail sources, message copies, model files) from the
    temporary folder to where the project is about to be."""
    plain = (str(old) + os.sep, str(new) + os.sep)
    in_json = (json.dumps(plain[0])[1:-1], json.dumps(plain[1])[1:-1])  # as written inside JSON text
    columns = [("sources", "path"), ("messages", "location"), ("copies", "location"), ("skipped", "location"),
               ("classifier_models", "path"), ("classifier_models", "info")]
    with session.store.transaction() as con:
        for table, column in columns:
            for a, b in dict([plain, in_json]).items():
                con.execute(f"UPDATE {table} SET {column} = replace({column}, ?, ?) WHERE instr({column}, ?) > 0",
                            (a, b, a))


def _rename_into_place(tmp: Path, root: Path) -> None:
    try:
        os.rename(tmp, root)  # atomic; replaces an empty folder at root (POSIX)
        return
    except OSError:
        if not (root.is_dir() and not any(root.iterdir())):
            raise ProjectError(f"{root} was created by something else while the demo was being built; "
                               f"choose an empty or new folder for the demo") from None
    root.rmdir()  # Windows: rename does not replace even an empty folder
    os.rename(tmp, root)


def load_demo_judgments(session: Session, source: Path) -> None:
    from .evaluate.formats import read_qrels, read_sensitivity

    cards_path = RESOURCES / "personas.json"
    cards = json.loads(cards_path.read_text()) if cards_path.exists() else []
    sens = read_sensitivity(source / "sensitivity.txt")
    used = {j.persona for j in sens}
    known = {c["id"] for c in cards}
    judgments.save_personas(session.store, [c for c in cards if c["id"] in used]
                            + [{"id": p, "name": p} for p in sorted(used - known)])
    judgments.save_topics(session.store, json.loads((source / "topics.json").read_text()))
    judgments.save_qrels(session.store, ((q.topic, q.docid, q.rel) for q in read_qrels(source / "qrels.txt")), "demo")
    judgments.save_sensitivity(session.store, ((j.persona, j.topic or "", j.docid, j.level) for j in sens), "demo")
    if (source / "reasons.tsv").exists():  # why each sensitive message is sensitive, per persona
        try:
            from .classify.judgments_io import read_reasons, save_reasons
        except ModuleNotFoundError:
            read_reasons = None
        if read_reasons is not None:
            save_reasons(session, read_reasons(source / "reasons.tsv"), "demo")
    if not session.settings()["active_persona"] and used:
        session.update_settings(active_persona=sorted(used)[0])


def _train_all(session: Session, progress: Progress) -> None:
    try:
        classify = importlib.import_module("sasc_desktop.engine.classify")
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.startswith("sasc_desktop.engine.classify"):
            return
        raise
    personas = [p["id"] for p in judgments.personas(session.store)]
    for n, persona in enumerate(personas):
        progress.update(n, len(personas), persona)
        classify.train(session, persona)
    progress.update(len(personas), len(personas), "done")
