"""The built-in demo project: synthetic mail generated, ingested, judged and (when the
classifier is available) a model trained per persona, so a fresh install has something to open.

Where it is built. The project is built in a temporary folder ``.sasc-build-<8 hex digits>``
beside ``root`` (a short name: it never makes a file name longer than ``root``'s own). Inside
it, ``sasc-build.json`` names the root it is for (a sweep only touches that root's builds),
``sasc-build.lock`` is the file its builder holds an OS lock on for the whole build, and
``project`` is the project being built. When everything (mail, import, judgments, models) is
done the project is put in place:

* ``root`` missing: ``project`` is renamed to ``root`` (one atomic step);
* ``root`` an existing empty folder (``sasc demo .``, a folder made for it; a shell may be in
  it, so it must stay the same folder): the project's files are moved into it one by one with
  the project marker (``sasc-project.json``) LAST. Until that last move the folder is not a
  project (nothing opens a folder without its marker) and :func:`demo_status` calls a folder of
  build files without a marker ``incomplete``, so a build killed half-way through the moves
  is never taken for a finished project, and the moves are renames within one file system;
* the parent cannot be written but the empty ``root`` can: the temporary folder is made inside
  ``root`` and its files are moved up the same way, marker last.

A temporary folder left by a killed build is removed by the next build of the same root (and
by the app at every start of its demo, built or not: one killed less than a minute before the
build that followed is too young to remove then) once its lock can be taken (its builder is
gone, in whatever PID namespace or on whatever machine it ran) and it is more than a minute old
(for file systems that do not share locks); the pid and host recorded in ``sasc-build.json``
are for people only."""
from __future__ import annotations

import errno
import importlib
import json
import logging
import os
import re
import secrets
import shutil
import socket
import sqlite3
import time
from pathlib import Path
from typing import Optional

from .errors import ProjectError
from .procpool import lock_file, unlock_file
from .progress import Progress, ensure
from .project import judgments
from .project.layout import DEMO_FILLING, MARKER
from .session import Session

log = logging.getLogger(__name__)

DEMO_SEED = 20261122
DEMO_MESSAGES = 3000
DEMO_MAIL = "demo-mail"  # the generated mail, inside the project folder
RESOURCES = Path(__file__).resolve().parents[2] / "resources"
TEMP_PREFIX = ".sasc-build-"  # + 8 hex digits: a build's temporary folder
_TEMP = re.compile(r"\.sasc-build-[0-9a-f]{8}")
BUILD_INFO = "sasc-build.json"  # in a temporary folder: {"root": the root it is for, "pid", "host"}
BUILD_LOCK = "sasc-build.lock"  # in a temporary folder: locked by its builder while it runs
MIN_AGE = 60.0  # seconds: a temporary folder younger than this is never swept
# Written into an existing (empty) root before a build's files move in, removed after the marker:
# the only evidence that a folder without the marker is a build killed while moving in.
FILLING = DEMO_FILLING
# Everything a build writes at the top of a project folder (nothing else is ever a build's).
BUILD_NAMES = frozenset({MARKER, "project.sqlite", "project.sqlite-wal", "project.sqlite-shm",
                         "project.sqlite-journal", "index", "models", "exports", DEMO_MAIL, FILLING})


def _stage(parent: Progress, start: float, end: float, label: str) -> Progress:
    """A child Progress reporting into [start, end] of the parent's 0..1000 scale."""
    def forward(done: int, total: Optional[int], message: str) -> None:
        frac = (done / total) if total else 0.0
        parent.update(int(1000 * (start + (end - start) * min(frac, 1.0))), 1000, f"{label}: {message}".rstrip(": "))
    child = Progress(forward)
    child._cancel = parent._cancel  # one cancel flag for the whole build
    return child


def demo_status(root: Path | str, busy_timeout: float = 5.0) -> str:
    """What is at ``root``, for building the demo there: ``missing``, ``empty`` (an empty
    folder), ``complete`` (a project with messages, personas and sensitivity judgments),
    ``incomplete`` (only what an unfinished build writes: build files without the project
    marker beside the token a fill writes first, or dead build folders only, or a project with
    the generated demo mail and nothing else: no judgments, reasons, scores, personas, topics,
    models, settings, exports or other mail; nothing a user made is in it), ``building`` (a build into the folder itself is running), ``project`` (any other SASC
    project: it may hold someone's work; also one whose database cannot be read, locked past
    ``busy_timeout`` seconds, damaged or unreadable) or ``other`` (a file, or a folder holding
    anything else)."""
    root = Path(root).expanduser()
    if not root.exists():
        return "missing"
    if not root.is_dir():
        return "other"
    entries = list(root.iterdir())
    if not entries:
        return "empty"
    builds = [e for e in entries if _build_of(e, root.resolve())]  # builds made inside root (parent unwritable)
    if any(_running(e) for e in builds):
        return "building"
    names = {e.name for e in entries} - {e.name for e in builds}  # a dead build's folder: build files
    ours = names <= BUILD_NAMES and not ((root / "exports").is_dir() and any((root / "exports").iterdir()))
    if MARKER not in names:
        # Without the marker, only positive evidence makes it a build's: the token a fill writes
        # first (killed while moving in), or nothing but dead build folders. Names alone are not
        # enough: a user's project that lost its marker has the same names.
        return "incomplete" if ours and (FILLING in names or not names) else "other"
    demo_mail = (root / DEMO_MAIL).is_dir() and not (root / DEMO_MAIL).is_symlink()
    if not (root / "project.sqlite").exists():  # stopped before its database was made
        return "incomplete" if ours and demo_mail else "project"
    counts = _project_counts(root, busy_timeout)
    if counts is None:  # a database that cannot be read: whatever is in it stays
        return "project"
    if counts["messages"] and counts["personas"] and counts["sensitivity"]:
        return "complete"
    made = any(counts[k] for k in ("personas", "topics", "qrels", "sensitivity", "reasons", "scores", "models",
                                   "settings"))
    # A demo build always has its generated mail; a project without it (say, `sasc init`) is
    # someone's, however empty: it is opened as it is, never emptied.
    return "incomplete" if ours and demo_mail and not (made or counts["foreign_sources"]) else "project"


def _project_counts(root: Path, busy_timeout: float) -> Optional[dict[str, int]]:
    """Row counts of a project database, or None unless it can be read: only a table that does
    not exist (the build stopped before making it) counts as empty; a database locked by
    another program (past ``busy_timeout`` seconds), damaged or unreadable is None, so what is
    in it is never taken for a build's leftovers. Nothing is written; the connection is a plain
    one so that closing it folds in and removes a write-ahead log a killed writer left (a
    read-only one would leave -wal and -shm files behind)."""
    db = root / "project.sqlite"
    mail = str((root / DEMO_MAIL).resolve())
    try:
        con = sqlite3.connect(db.resolve().as_uri() + "?mode=rw", uri=True, timeout=busy_timeout)  # never creates one
        try:
            def rows(sql: str) -> list:
                try:
                    return con.execute(sql).fetchall()
                except sqlite3.OperationalError as exc:
                    if str(exc).startswith("no such table"):  # not created yet: the build stopped before
                        return []
                    raise  # locked, busy, I/O error...: not readable

            def count(table: str) -> int:
                found = rows(f"SELECT COUNT(*) FROM {table}")
                return found[0][0] if found else 0
            out = {"messages": count("messages"), "personas": count("personas"), "topics": count("topics"),
                   "qrels": count("qrels"), "sensitivity": count("sensitivity"), "models": count("classifier_models"),
                   "settings": count("settings"),  # the demo sets one only with its judgments; else the user's
                   "reasons": count("sensitivity_reasons"), "scores": count("scores")}
            paths = [r[0] for r in rows("SELECT path FROM sources")]
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
    if status == "building":
        return (f"the demo project is being built in {root} right now; wait for that build to finish "
                f"(if none is running, try again in a minute)")
    if status in ("complete", "project"):
        return f"{root} is already a SASC project; choose an empty or new folder for the demo"
    if not root.is_dir():
        return f"{root} exists and is not a folder"
    return f"{root} is not empty; choose an empty or new folder for the demo"


# temporary build folders ------------------------------------------------------------------
def _build_of(entry: Path, root: Path) -> bool:
    """Whether ``entry`` is a temporary folder of a build into ``root`` (resolved), by its name
    and the root its ``sasc-build.json`` names (none yet, or another root's: False)."""
    if _TEMP.fullmatch(entry.name) is None or entry.is_symlink() or not entry.is_dir():
        return False
    try:
        return json.loads((entry / BUILD_INFO).read_text(encoding="utf-8")).get("root") == str(root)
    except (OSError, ValueError, AttributeError):
        return False


def _age(entry: Path) -> float:
    """Seconds since the folder or its lock file last changed."""
    times = []
    for p in (entry, entry / BUILD_LOCK):
        try:
            times.append(p.lstat().st_mtime)
        except OSError:
            pass
    return time.time() - max(times, default=0.0)


def _running(entry: Path) -> bool:
    """Whether the build whose temporary folder ``entry`` is may still be running: its lock is
    held (or cannot be taken at all), or it is younger than :data:`MIN_AGE`."""
    if _age(entry) < MIN_AGE:
        return True
    free, fd = _take_lock(entry)
    if fd is not None:
        unlock_file(fd)
    return not free


def _take_lock(entry: Path) -> tuple[bool, Optional[int]]:
    """``(free, fd)``: whether nobody holds the lock of the build folder ``entry`` and, when
    it could be taken, the descriptor holding it now (to release). A lock file that is gone
    (deleted by hand) is free; one that is held, or that cannot be opened or locked here
    (another user's, a file system without locks) is not."""
    fd = lock_file(entry / BUILD_LOCK, create=False)
    if fd is not None:
        return True, fd
    return not os.path.lexists(entry / BUILD_LOCK), None


def _build_folders(root: Path) -> list[Path]:
    """Temporary folders of builds into ``root``: beside it, and inside it (parent unwritable)."""
    found = []
    for where in (root.parent, root):
        try:
            entries = list(where.iterdir())
        except OSError:  # no such folder, or not a folder
            continue
        found += [e for e in entries if _build_of(e, root)]
    return found


def remove_stale_builds(root: Path | str) -> list[Path]:
    """Remove the temporary folders of earlier builds into ``root`` whose builder is gone
    (killed before it could clean up) and return them. A folder is removed only when its lock
    can be taken, at least :data:`MIN_AGE` old, and still naming ``root`` once the lock is
    taken (a finishing build removes that name before it lets go of its lock): a build still
    running, in this process or any other, in any PID namespace, is left alone."""
    root = Path(root).expanduser().resolve()
    removed = []
    for entry in _build_folders(root):
        if _age(entry) < MIN_AGE:
            continue
        free, fd = _take_lock(entry)
        if not free:  # held: its builder is running (or this file system cannot lock)
            continue
        try:
            gone = _build_of(entry, root)  # still a build's: not one that finished meanwhile
        finally:
            if fd is not None:
                unlock_file(fd)  # (Windows cannot remove a file that is open)
        if gone:
            shutil.rmtree(entry, ignore_errors=True)
            if not entry.exists():
                removed.append(entry)
    return removed


def remove_unfinished(root: Path | str) -> None:
    """Empty a folder :func:`demo_status` calls ``incomplete`` (the app does this to rebuild
    its own demo folder; ``sasc demo`` never does): every entry is a build's, so every entry is
    removed; the folder itself stays (someone may be in it). Refused for any other status."""
    root = Path(root).expanduser().resolve()
    status = demo_status(root)
    if status != "incomplete":
        raise ProjectError(refuse_reason(root, status) or f"{root} holds no unfinished demo project")
    for entry in root.iterdir():
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()


class _Build:
    """A build's temporary folder ``.sasc-build-<hex>`` (beside ``root``, or inside an empty
    ``root`` whose parent cannot be written), locked by this process until :meth:`finish` or
    :meth:`abandon`; the project is built in its ``project`` folder."""

    def __init__(self, root: Path, into_empty: bool):
        self.root = root
        self.lock: Optional[int] = None
        self.moved: list[Path] = []  # what was moved into an existing root so far
        try:
            self.tmp = self._make(root.parent)
        except OSError as exc:
            if not into_empty or exc.errno == errno.ENAMETOOLONG:
                raise ProjectError(f"cannot build the demo project at {root}: {root.parent} cannot be "
                                   f"written ({exc.strerror or exc})") from exc
            try:  # the parent cannot be written, the empty root maybe can: build inside it
                self.tmp = self._make(root)
            except OSError as inner:
                raise ProjectError(f"cannot build the demo project at {root}: neither {root.parent} nor "
                                   f"{root} can be written ({inner.strerror or inner})") from inner
        self.project = self.tmp / "project"

    def _make(self, where: Path) -> Path:
        while True:
            tmp = where / f"{TEMP_PREFIX}{secrets.token_hex(4)}"
            try:
                tmp.mkdir()
                break
            except FileExistsError:
                continue
        try:
            # Locked before it names its root: a sweep never sees a named, unlocked live build.
            # None only where the file system cannot lock: then only MIN_AGE protects it.
            self.lock = lock_file(tmp / BUILD_LOCK)
            info = {"root": str(self.root), "pid": os.getpid(), "host": socket.gethostname()}
            (tmp / BUILD_INFO).write_text(json.dumps(info) + "\n", encoding="utf-8")
        except BaseException:
            self._release(tmp)
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        return tmp

    def _release(self, tmp: Path) -> None:
        """Stop being a build: the name first (a sweep that takes the lock after this sees no
        build and leaves the folder alone), then the lock and its file."""
        try:
            (tmp / BUILD_INFO).unlink(missing_ok=True)
        except OSError:
            pass
        if self.lock is not None:
            unlock_file(self.lock)
            self.lock = None
        try:
            (tmp / BUILD_LOCK).unlink(missing_ok=True)
        except OSError:
            pass

    def finish(self) -> None:
        """Put the finished project at ``root``: renamed there when ``root`` is missing, else
        its files moved into the (empty) folder, the marker last; then the temporary folder
        goes."""
        root = self.root
        if self.tmp.parent == root.parent and not root.exists():
            try:
                # Atomic. (On POSIX it would replace an empty folder made at root this very
                # instant; anything in it, or Windows, makes it fail and the files move instead.)
                os.rename(self.project, root)
            except OSError:
                if not root.exists():
                    raise
                self._move_into(root)  # root appeared meanwhile
        else:
            self._move_into(root)
        self.moved = []  # done: nothing to undo
        self._release(self.tmp)
        shutil.rmtree(self.tmp, ignore_errors=True)

    def _move_into(self, root: Path) -> None:
        if not root.is_dir() or any(e != self.tmp for e in root.iterdir()):
            raise ProjectError(f"{root} was filled by something else while the demo was being built; "
                               f"choose an empty or new folder for the demo")
        # Renames within one file system, one entry at a time, the marker LAST: killed in
        # between, root holds build files without a marker, which nothing opens as a project
        # and demo_status calls "incomplete"; the temporary folder still holds its name and a
        # lock nobody holds any more, so the next build sweeps it.
        token = root / FILLING  # first in, last out: see FILLING
        token.write_text(json.dumps({"build": str(self.tmp)}))
        self.moved.append(token)
        names = sorted(p.name for p in self.project.iterdir() if p.name != MARKER)
        for name in names + [MARKER]:
            if os.path.lexists(root / name):  # never replace what something else put there
                raise ProjectError(f"{root} was filled by something else while the demo was being built; "
                                   f"choose an empty or new folder for the demo")
            try:
                os.rename(self.project / name, root / name)
            except OSError as exc:  # e.g. another file system: nothing is left half-moved (abandon)
                raise ProjectError(f"cannot move the demo project into {root}: {exc.strerror or exc}") from exc
            self.moved.append(root / name)
        token.unlink()
        self.moved.remove(token)

    def abandon(self) -> None:
        """Undo a build that failed or was stopped: its temporary folder, and anything it had
        moved into ``root`` already (an existing root is left empty, as it was)."""
        for path in reversed(self.moved):
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)
        self.moved = []
        self._release(self.tmp)
        shutil.rmtree(self.tmp, ignore_errors=True)


def _resolve_root(root: Path | str) -> Path:
    """``root`` made absolute, with a clear error for a name too long for its file system."""
    root = Path(root).expanduser()
    try:
        root = root.resolve()
    except RuntimeError:  # a symlink loop (Python < 3.13 raises RuntimeError, later OSError)
        raise ProjectError(f"cannot use {root} for the demo project: it is a symbolic link loop") from None
    except OSError as exc:
        raise ProjectError(f"cannot use {root} for the demo project: {exc.strerror or exc}") from exc
    where = root.parent
    while not where.exists() and where != where.parent:  # the nearest existing folder tells the limit
        where = where.parent
    try:
        limit = os.pathconf(where, "PC_NAME_MAX")
    except (AttributeError, OSError, ValueError):  # no pathconf (Windows), or not known
        limit = 255
    for part in root.parts[1:]:
        size = len(os.fsencode(part)) if os.name != "nt" else len(part)
        if size > limit:
            raise ProjectError(f"the folder name {part[:40]}… is too long for this file system "
                               f"({size} {'characters' if os.name == 'nt' else 'bytes'}; at most {limit}); "
                               f"choose a shorter name for the demo folder")
    return root


def _file_in_the_way(root: Path) -> Optional[Path]:
    """The nearest existing ancestor of ``root`` when it is not a folder (``f`` of ``f/sub``,
    ``f`` a file): no folder can be made below it."""
    for where in root.parents:
        if os.path.lexists(where):
            return None if where.is_dir() else where
    return None


def build_demo_project(root: Path | str, n_messages: Optional[int] = None, seed: int = DEMO_SEED,
                       progress: Optional[Progress] = None, train: bool = True,
                       notes: Optional[list[str]] = None) -> Path:
    """Create the demo project at ``root`` (an empty or new folder) and return its resolved
    path.

    ``n_messages`` defaults to :data:`DEMO_MESSAGES`; it and ``seed`` out of range (see
    ``demo.generator.check_arguments``: 1 to 1,000,000 messages, a seed of 0 or more) are an
    InputError before anything is made. Nothing that is a project appears at ``root`` until
    the whole project (mail, import, judgments and, with ``train``, the models) is done; a
    failed or cancelled build leaves ``root`` as it was (missing or empty), an interrupted one
    leaves no project there (a killed one leaves its temporary folder, which the next build
    removes).

    A persona with too few sensitive or not-sensitive judgments to train on (a demo of a few
    messages) gets no model; the project is built all the same and a sentence saying so is
    appended to ``notes`` (logged as a warning when ``notes`` is None)."""
    from .demo import generate  # the generator is only needed here
    from .demo.generator import check_arguments

    n_messages, seed = check_arguments(DEMO_MESSAGES if n_messages is None else n_messages, seed)
    progress = ensure(progress)
    root = _resolve_root(root)
    remove_stale_builds(root)  # first: a dead build inside root is no reason to refuse it
    status = demo_status(root)
    reason = refuse_reason(root, status)
    if reason:
        raise ProjectError(reason)
    blocker = _file_in_the_way(root)
    if blocker is not None:
        raise ProjectError(f"cannot create the demo project at {root}: {blocker} is a file, not a folder")
    try:
        root.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ProjectError(f"cannot create {root.parent} for the demo project: {exc.strerror or exc}") from exc
    said: list[str] = []
    build = _Build(root, into_empty=status == "empty")
    try:
        tmp = build.project
        session = Session.create(tmp)
        try:
            source = tmp / DEMO_MAIL
            generate(source, n_messages=n_messages, seed=seed, progress=_stage(progress, 0.0, 0.25, "writing demo mail"))
            report = session.ingest([source / "mail"], _stage(progress, 0.25, 0.85, "importing"))
            if report.cancelled:
                raise ProjectError("building the demo project was cancelled")
            load_demo_judgments(session, source)
            if train:
                said = _train_all(session, _stage(progress, 0.85, 1.0, "training"))
            progress.check()  # the last moment to cancel: nothing is at root yet
            _move_paths(session, tmp, root)
        finally:
            session.close()
        build.finish()
    except OSError as exc:
        build.abandon()
        if exc.errno == errno.ENAMETOOLONG:
            raise ProjectError(f"a path in the demo project at {root} is too long for this file system; "
                               f"choose a folder with a shorter path") from exc
        raise
    except BaseException:
        build.abandon()
        raise
    progress.update(1000, 1000, "demo project ready")
    for note in said:
        if notes is None:
            log.warning("%s", note)
        else:
            notes.append(note)
    return root


# Columns holding paths as they are, and columns of JSON text holding paths inside strings.
PATH_COLUMNS = [("sources", "path"), ("messages", "location"), ("copies", "location"), ("skipped", "location"),
                ("classifier_models", "path")]
JSON_PATH_COLUMNS = [("classifier_models", "info"), ("sources", "report")]


def _move_paths(session: Session, old: Path, new: Path) -> None:
    """Point the paths the store records (mail sources, message copies, model files) from the
    temporary folder to where the project is about to be: as they are in path columns, as JSON
    writes them (escaped, '\\u00e9' for 'é' unless written as it is) in JSON columns. (One
    replacement for all the columns put the JSON-escaped path into path columns: sources.path
    '/x/\\u00e91/...' for a project at /x/é1, and the demo's mail imported again was new mail.)"""
    a, b = str(old) + os.sep, str(new) + os.sep
    in_json = {json.dumps(a, ensure_ascii=escaped)[1:-1]: json.dumps(b, ensure_ascii=escaped)[1:-1]
               for escaped in (True, False)}
    with session.store.transaction() as con:
        for columns, pairs in ((PATH_COLUMNS, {a: b}), (JSON_PATH_COLUMNS, in_json)):
            for table, column in columns:
                for was, now in pairs.items():
                    con.execute(f"UPDATE {table} SET {column} = replace({column}, ?, ?) WHERE instr({column}, ?) > 0",
                                (was, now, was))


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


def _train_all(session: Session, progress: Progress) -> list[str]:
    """Train every persona's model; one with fewer than ``MIN_PER_CLASS`` sensitive or
    not-sensitive judgments is passed over. Returns a note for each one passed over."""
    try:
        classify = importlib.import_module("sasc_desktop.engine.classify")
        min_per_class = importlib.import_module("sasc_desktop.engine.classify.model").MIN_PER_CLASS
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.startswith("sasc_desktop.engine.classify"):
            return []
        raise
    personas = [p["id"] for p in judgments.personas(session.store)]
    notes = []
    for n, persona in enumerate(personas):
        progress.update(n, len(personas), persona)
        labels = classify.training_labels(session, persona)
        pos = sum(labels.values())
        if min(pos, len(labels) - pos) < min_per_class:
            notes.append(f"no sensitivity model for {persona}: the demo has {pos} sensitive and "
                         f"{len(labels) - pos} not-sensitive judgments for {persona}, and training needs at "
                         f"least {min_per_class} of each; build the demo with more messages to have one")
            continue
        classify.train(session, persona)
    progress.update(len(personas), len(personas), "done")
    return notes
