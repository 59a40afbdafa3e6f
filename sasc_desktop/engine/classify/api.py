"""Per-persona sensitivity models of a project: train, store, score, explain, cross-validate."""
from __future__ import annotations

import copy
import errno
import json
import os
import logging
import re
import sqlite3
import threading
import time
import uuid
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Optional, Sequence

import numpy as np
from sklearn.model_selection import StratifiedKFold

from ..errors import InputError, ProjectError, SascError
from ..procpool import pid_alive
from ..progress import Progress, ensure
from .features import load_docs, message_set_key, project_features
from .judgments_io import check_persona, training_labels
from . import DEFAULT_KIND
from .naming import legacy_persona_file_part, persona_file_part
from .model import (MIN_PER_CLASS, SensitivityClassifier, check_beta, check_class_counts, expected_calibration_error,
                    fbeta_from_counts)
from .pii import detect_pii
from ..project.modelfile import (WriterLock, forget_model_file, lock_for_writing, read_model_file,
                                 remove_unless_held, unwritable_message, write_model_file)

log = logging.getLogger(__name__)

MODEL_FORMAT = "sasc-classifier"
MODEL_FORMAT_VERSION = 2  # 2: feature spaces with the cue: block (version-1 files lack its columns)


class NoModelError(SascError):
    """No sensitivity model has been trained for this persona yet."""


@dataclass(frozen=True)
class ModelInfo:
    persona: str
    version: int
    kind: str
    n_train: int
    n_positive: int
    threshold: float
    C: dict
    beta: float
    incremental: bool
    seconds: float
    trained_at: str
    path: str
    n_scored: int

    def to_json(self) -> dict:
        return asdict(self)


# ------------------------------------------------------------------------------ fitting
def _labels(session, persona: str, doc_ids: Optional[Sequence[str]] = None) -> tuple[list[str], np.ndarray]:
    """(judged doc ids, labels) of the persona, among the messages in the project now.

    Read these BEFORE the feature matrix (train, fit_model, cross_validate do): messages are
    only ever added, so every id read here has a row in a matrix built afterwards, also while an
    import (another session or process) commits more judged mail; that mail is left out of this
    training, and the next one learns from it. Read after the matrix, such mail has a label and
    no row ("no document ... in this project"; tests/engine/classify/test_train_during_import.py)."""
    check_persona(session, persona)
    labels = training_labels(session, persona)
    if doc_ids is not None:
        ids = [d for d in doc_ids if d in labels]
    else:
        ids = sorted(labels)
    if not ids:
        unknown = _dont_know(session, persona, doc_ids)
        if unknown:
            one = unknown == 1
            raise InputError(f"persona {persona!r} has only \"I don't know\" judgments on this project's messages: "
                             f"its {unknown} \"I don't know\" judgment{'' if one else 's'} (level -1) "
                             f"{'is' if one else 'are'} left out of training, which needs at least {MIN_PER_CLASS} "
                             f"messages judged sensitive (level 1 or more) and {MIN_PER_CLASS} judged not sensitive "
                             "(level 0)")
        raise InputError(f"persona {persona!r} has no sensitivity judgments on this project's messages; "
                         "import or make judgments first")
    return ids, np.array([labels[d] for d in ids], dtype=int)


def _dont_know(session, persona: str, doc_ids: Optional[Sequence[str]]) -> int:
    """How many of the project's messages (among ``doc_ids`` when given) the persona judged "I
    don't know" (-1) and nothing higher under any topic: training leaves them out."""
    from ..project import judgments as J
    levels = J.sensitivity(session.store, persona)
    unknown = {d for d, lvl in levels.items() if lvl < 0}
    if doc_ids is not None:
        unknown &= set(doc_ids)
    if not unknown:
        return 0
    present = {r[0] for r in session.store.con.execute("SELECT doc_id FROM messages")}
    return len(unknown & present)


def fit_model(session, persona: str, train_doc_ids: Optional[Sequence[str]] = None,
              progress: Optional[Progress] = None, **options) -> SensitivityClassifier:
    """Fit a classifier on the judged documents among ``train_doc_ids`` (all judged documents
    when None). Options are SensitivityClassifier parameters (kind, C, Cs, beta, ...)."""
    ids, y = _labels(session, persona, train_doc_ids)
    check_class_counts(y)  # (before the features are built: seconds on a large project)
    fm = project_features(session, progress)
    rows = fm.rows(ids)
    model = SensitivityClassifier(**options).fit(fm.X[rows], y)
    _mark_full_fit(model, fm, persona, rows, y)
    return model


def _mark_full_fit(model, fm, persona: str, rows: np.ndarray, y: np.ndarray) -> None:
    """What a full fit saves beside the weights: its feature space, and a compact record of the
    labels it was fitted on (feature rows ascending and their labels; ~5 bytes per judged
    message), against which a later training measures how much the judgments changed."""
    model.feature_key_, model.space_, model.persona_ = fm.key, fm.space, persona
    model.full_fit_n_, model.updates_ = len(y), 0
    order = np.argsort(rows, kind="stable")
    model.full_fit_labels_ = (np.asarray(rows)[order].astype(np.int32), np.asarray(y)[order].astype(np.int8))


# ------------------------------------------------------------------------------ incremental refits
# A training refits incrementally (warm start; C, calibration and threshold kept from the last
# full fit) only while the judgments are close to those of the last full fit; every limit is
# measured against that fit, so many small steps cannot drift away from it unnoticed:
INCREMENTAL_MIN_SET_CHANGE = 10      # judged messages added or removed: at most 10 ...
INCREMENTAL_SET_CHANGE = 0.10        # ... or 10% of the full fit's judged set, whichever is more;
INCREMENTAL_LABEL_CHANGE = 0.02      # messages judged then and now with another label: at most 2%;
INCREMENTAL_RATE_SHIFT = 0.05        # the judged sensitive rate moved by at most 0.05;
INCREMENTAL_MAX_UPDATES = 500        # and at most 500 refits since the full fit.
# (Judging 1 more message or correcting 1 label of 5,000 stays incremental: the whole retrain,
# scores stored, ~0.35 s on a 2-core machine; inverting labels, or a burst of sensitive judgments
# on a small judged set, is a full fit, as it must be: the kept calibration and threshold
# described other labels.)


def label_changes(model, rows: np.ndarray, y: np.ndarray, n_rows: int) -> Optional[dict[str, Any]]:
    """How the judged set (feature ``rows`` with labels ``y``) differs from the model's last full
    fit: messages added, removed, relabelled, and the sensitive rate then and now. None when the
    model carries no label record (saved before it was kept)."""
    record = getattr(model, "full_fit_labels_", None)
    if record is None:
        return None
    old_rows, old_y = record
    if len(old_rows) and int(old_rows.max()) >= n_rows:
        return None
    old = np.full(n_rows, -1, dtype=np.int8)
    old[old_rows] = old_y
    new = np.full(n_rows, -1, dtype=np.int8)
    new[rows] = y
    both = (old >= 0) & (new >= 0)
    return {"added": int(((old < 0) & (new >= 0)).sum()), "removed": int(((old >= 0) & (new < 0)).sum()),
            "relabelled": int((both & (old != new)).sum()), "n_then": int(len(old_y)),
            "rate_then": float(old_y.mean()) if len(old_y) else 0.0, "rate_now": float(np.mean(y)) if len(y) else 0.0}


def _incremental_ok(old, fm, kind: str, beta: float, rows: np.ndarray, y: np.ndarray) -> bool:
    if old is None or getattr(old, "feature_key_", None) != fm.key or old.kind != kind or old.beta != beta:
        return False
    if old.updates_ >= INCREMENTAL_MAX_UPDATES or min(int(y.sum()), len(y) - int(y.sum())) < MIN_PER_CLASS:
        return False
    ch = label_changes(old, rows, y, fm.X.shape[0])
    if ch is None:
        return False
    n = ch["n_then"]
    return (ch["added"] + ch["removed"] <= max(INCREMENTAL_MIN_SET_CHANGE, INCREMENTAL_SET_CHANGE * n)
            and ch["relabelled"] <= INCREMENTAL_LABEL_CHANGE * n
            and abs(ch["rate_now"] - ch["rate_then"]) <= INCREMENTAL_RATE_SHIFT)


# Up to this many documents are read and transformed on their own: the project's cached matrix
# (every document's features: 215 MB to load at 30,000 messages, kept in memory after) is for
# scoring many. Opening one message in the app took 356 ms and 225 MB at 30,000 messages; read
# alone, 5 documents take about 40 ms.
FEW_DOCUMENTS = 64


def doc_matrix(session, model, doc_ids: list[str]):
    """Feature rows for documents in the model's feature space."""
    if len(doc_ids) <= FEW_DOCUMENTS and getattr(model, "space_", None) is not None:
        return model.space_.transform([doc for _, doc in load_docs(session.store, _row_ids(session, doc_ids))])
    key, _ = message_set_key(session)
    if key == getattr(model, "feature_key_", None):
        fm = project_features(session)
        return fm.X[fm.rows(doc_ids)]
    # The project changed since the model was trained: transform with the model's own space.
    return model.space_.transform([doc for _, doc in load_docs(session.store, _row_ids(session, doc_ids))])


def _row_ids(session, doc_ids: Sequence[str]) -> list[int]:
    """Message row ids of these documents, in order (one query per 900 ids)."""
    con = session.store.con
    found: dict[str, int] = {}
    doc_ids = list(doc_ids)
    for i in range(0, len(doc_ids), 900):
        chunk = doc_ids[i:i + 900]
        found.update(con.execute(f"SELECT doc_id, id FROM messages WHERE doc_id IN ({','.join('?' * len(chunk))})",
                                 chunk).fetchall())
    missing = next((d for d in doc_ids if d not in found), None)
    if missing is not None:
        raise InputError(f"no document {missing!r} in this project")
    return [found[d] for d in doc_ids]


# ------------------------------------------------------------------------------ persistence
# Each training writes a file of its own, models/classifier-<persona>-<digest>-<token>.joblib,
# and one transaction then points the persona's classifier_models row at it (taking the next
# version number inside that transaction) and replaces its scores: a crash or kill at any moment
# leaves the row, the file it names and the scores in agreement, and two trainings of one persona
# (the app and the CLI, say) each commit a consistent whole, the later one winning. The writer
# holds an OS lock on <file>.lock from before it writes the file until its commit has ended
# (project.modelfile.lock_for_writing), and the sweep of old files after a training removes a
# file only when no live writer holds it (remove_unless_held): whatever pid the writer had, on
# whatever system.
def _model_stem(persona: str) -> str:
    """The start of the persona's model file names: at most 84 characters, whatever the id's
    length (see :func:`.naming.persona_file_part`)."""
    return f"classifier-{persona_file_part(persona)}"


def _model_stems(persona: str) -> list[str]:
    """The stems the persona's model files may have: its own, and for an id longer than 64
    characters the whole-id stem earlier versions gave (such files are swept too)."""
    stem, legacy = _model_stem(persona), f"classifier-{legacy_persona_file_part(persona)}"
    return [stem] if legacy == stem else [stem, legacy]


def _model_path(session, persona: str) -> Path:
    """The persona's current model file: the one its classifier_models row names (files of
    projects trained before versioned names are at the unversioned path)."""
    models = Path(session.paths.models)
    row = session.store.con.execute("SELECT path FROM classifier_models WHERE persona = ?", (persona,)).fetchone()
    if row and row[0]:
        return models / Path(row[0]).name  # rows of older projects hold absolute paths
    return models / f"{_model_stem(persona)}.joblib"


def save_model(session, persona: str, model: SensitivityClassifier) -> Path:
    """Write a new model file (a versioned pickle, C pickler) under a name of its own, holding
    its writer's lock until :func:`_release_writer` (after the commit). The feature space inside
    pickles to bytes cached on it, so retraining after one judgment writes ~2 MB of ready bytes
    instead of re-serialising vocabularies (joblib's pure-Python pickler took 0.6-4 s here)."""
    path = Path(session.paths.models) / f"{_model_stem(persona)}-{uuid.uuid4().hex[:16]}.joblib"
    lock = lock_for_writing(path, "sensitivity model")
    try:
        write_model_file(path, MODEL_FORMAT, MODEL_FORMAT_VERSION, {"persona": persona, "model": model},
                         what="sensitivity model")
    except BaseException:
        lock.release()
        raise
    with _LOCK:
        _WRITING[path.name] = lock
    return path


_WRITING: dict[str, WriterLock] = {}  # writers' locks of the model files this process is committing


def _release_writer(path: Path) -> None:
    with _LOCK:
        lock = _WRITING.pop(Path(path).name, None)
    if lock is not None:
        lock.release()


# The names of a persona's model files after its stem: this version's, then (no lock was taken
# for them) those of the version before (with the writer's pid), and older ones; each may be a
# half-written .tmp, and this version's may be a lock file.
_NAME = re.compile(r"(?P<base>-[0-9a-f]{16}\.joblib)(\.tmp|\.lock)?")
_PID_NAME = re.compile(r"(?P<base>-p(?P<pid>\d+)-[0-9a-f]{12}\.joblib)(\.tmp)?")
_OLDER_NAME = re.compile(r"(?P<base>(-v\d+)?\.joblib)(\.tmp)?")


def _pid_writer_gone(path: Path, pid: int) -> bool:
    """For a file named by the version before (which took no lock): whether its writer, which
    may be that version running now, can no longer commit it. This version never writes such
    names, so this process is not its writer."""
    if pid == os.getpid():
        return True
    if os.name == "nt":  # no process probe there: a day-old uncommitted file is abandoned
        try:
            return time.time() - path.stat().st_mtime > 86_400
        except OSError:
            return False
    return not pid_alive(pid)


def _drop_old_model_files(session, persona: str, keep: Path) -> None:
    """Delete the persona's model files other than ``keep`` that nobody can still commit: earlier
    versions, and files (or half-written .tmp files) of trainings killed before their commit,
    and the lock files such trainings left. A file a live writer holds is left alone."""
    models = Path(session.paths.models)
    # Inside a write transaction, so no training commits meanwhile: the file the row names now
    # (a later training's, perhaps) is kept as well as ours.
    with session.store.transaction():
        named = _model_path(session, persona).name  # (this thread's connection: inside the transaction)
        bases: dict[str, Optional[re.Match]] = {}
        for stem in _model_stems(persona):
            for f in models.glob(f"{stem}*"):  # (a stem holds no glob characters)
                rest = f.name[len(stem):]
                m = _NAME.fullmatch(rest)
                if m is not None:
                    bases.setdefault(stem + m["base"], None)
                    continue
                m = _PID_NAME.fullmatch(rest) or _OLDER_NAME.fullmatch(rest)
                if m is not None:  # anything else is not ours
                    bases[stem + m["base"]] = m
        for base, old in bases.items():
            in_use = base in (keep.name, named)
            path = models / base
            if old is None:
                remove_unless_held(path, keep=in_use)
            elif not in_use and (old.groupdict().get("pid") is None or _pid_writer_gone(path, int(old["pid"]))):
                forget_model_file(path)
                for f in (path, path.with_name(base + ".tmp")):
                    try:
                        f.unlink(missing_ok=True)
                    except OSError:  # open elsewhere (Windows): the next training tries again
                        pass


def load_model(session, persona: str) -> SensitivityClassifier:
    """The persona's saved model (format version checked, and that it is this persona's: a
    file of another persona's model copied over it is a ProjectError, never used silently)."""
    path = None
    for _ in range(5):
        seen, path = path, _model_path(session, persona)
        try:
            payload = read_model_file(path, MODEL_FORMAT, MODEL_FORMAT_VERSION, "classifier",
                                      "retrain with 'sasc classify train'")
        except FileNotFoundError:
            forget_model_file(path)
            if path == seen:  # the row still names it: there is no model
                break
            # else a training (another thread or process) replaced it meanwhile: read the row again
        else:
            model = payload["model"]
            owner = payload.get("persona", getattr(model, "persona_", None))
            if owner is not None and owner != persona:
                raise ProjectError(f"the sensitivity model file {path} is persona {owner}'s model, not {persona}'s; "
                                   f"retrain with 'sasc classify train {session.root} --persona {persona}'")
            return model
    check_persona(session, persona)
    raise NoModelError(f"no sensitivity model for persona {persona!r} yet: "
                       f"train one with 'sasc classify train {session.root} --persona {persona}'")


def _write_scores(con, persona: str, version: int, ids: np.ndarray, probs: np.ndarray, copies: int) -> None:
    """Replace the persona's scores by these, computed from the mail as it was when the largest
    copies row id was ``copies`` (or later)."""
    con.execute("DELETE FROM scores WHERE persona = ?", (persona,))
    con.executemany("INSERT INTO scores(persona, message, prob, model_version) VALUES (?, ?, ?, ?)",
                    zip([persona] * len(ids), ids.tolist(), probs.astype(float).tolist(), [version] * len(ids)))
    _set_scored_through(con, persona, copies)


# Which text the stored scores were computed from. A message's text changes in place when a
# sender's copy replaces the kept copy (it has the Bcc; the importer rewrites body, Bcc and
# attachments in the same row and adds a copies row for that copy, as for every copy it sees,
# marked kept = 1 in the same transaction). Copies rows are only ever added, with growing ids,
# and the kept mark only ever moves to the copy just added, so "every message whose kept copy's
# row is above N" holds every message added or rewritten since the largest copies id was N: the
# persona's scores record that N (in the meta table, in the transaction that writes them, read
# BEFORE the text was), and such a message is scored again on first use. A copy that changed
# nothing (kept = 0: the same mail imported again from another place) scores nothing again.
_SCORED_THROUGH = "classify.scores_copies:"


def _scored_through(con, persona: str) -> Optional[int]:
    """The largest copies row id when the persona's stored scores were computed (None: stored
    by a version that did not record it)."""
    row = con.execute("SELECT value FROM meta WHERE key = ?", (_SCORED_THROUGH + persona,)).fetchone()
    try:
        return int(row[0]) if row else None
    except (TypeError, ValueError):
        return None


def _set_scored_through(con, persona: str, copies: int) -> None:
    con.execute("INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (_SCORED_THROUGH + persona, str(int(copies))))


def _forget_scores(session, persona: str) -> None:
    with _LOCK:
        for k in [k for k in _SCORES if k[:2] == (str(session.root), persona)]:
            del _SCORES[k]


# ------------------------------------------------------------------------------ train / score
def train(session, persona: str, progress: Optional[Progress] = None, kind: str = DEFAULT_KIND, beta: float = 1.0,
          full: Optional[bool] = None) -> ModelInfo:
    """Fit the persona's model on every judged document, save it, score every document and
    store the probabilities. ``full=None`` refits incrementally (warm start, calibration and
    threshold kept) when a model of the same kind and beta exists for the same message set and
    the judgments are close to those of its last full fit (see the INCREMENTAL_* limits above:
    few messages added or removed, at most 2% relabelled, the sensitive rate within 0.05);
    otherwise hyper-parameters, calibration and threshold are chosen again by inner
    cross-validation. A models folder that cannot be written is a ProjectError, and then the
    persona's saved model and scores are left as they were."""
    progress = ensure(progress)
    t0 = time.perf_counter()
    beta = check_beta(beta)
    check_persona(session, persona)
    session.store.require_writable("the sensitivity model")  # (a project open for reading only)
    models = Path(session.paths.models)
    if models.exists() and not models.is_dir():  # the model could not be saved: say so before fitting
        raise ProjectError(unwritable_message(models, NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR)),
                                           "the sensitivity model cannot be saved"))
    # A persona without judgments enough to learn from fails at once, before the features are
    # built (seconds to minutes on a large project).
    ids, y = _labels(session, persona)
    check_class_counts(y)
    state = _mail_state(session.store.con)  # (before the text is read: see _SCORED_THROUGH)
    fm = project_features(session, progress)
    rows = fm.rows(ids)
    old = None
    if full is not True:
        try:
            old = load_model(session, persona)
        except SascError:
            old = None
    incremental = _incremental_ok(old, fm, kind, beta, rows, y)
    progress.update(0, None, "fitting")
    if incremental:
        model = copy.copy(old).update(fm.X[rows], y)  # the cached saved model stays as it was
        model.updates_ += 1
    else:
        model = SensitivityClassifier(kind=kind, beta=beta).fit(fm.X[rows], y, progress)
        _mark_full_fit(model, fm, persona, rows, y)
    progress.update(0, 0, "scoring every message")
    probs = model.proba_positive(fm.X)
    progress.check()  # the last moment to cancel: nothing has been written yet
    progress.update(0, 0, "saving the model and the scores")
    path = save_model(session, persona, model)
    trained_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
    try:
        with session.store.transaction() as con:
            version = _version(con, persona) + 1
            info = ModelInfo(persona=persona, version=version, kind=kind, n_train=len(ids), n_positive=int(y.sum()),
                             threshold=float(model.threshold_), C=dict(model.C_), beta=float(beta),
                             incremental=bool(incremental), seconds=round(time.perf_counter() - t0, 3),
                             trained_at=trained_at, path=str(path), n_scored=len(probs))
            con.execute("INSERT INTO classifier_models(persona, version, path, kind, trained_at, feature_key, info) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(persona) DO UPDATE SET version = excluded.version, "
                        "path = excluded.path, kind = excluded.kind, trained_at = excluded.trained_at, "
                        "feature_key = excluded.feature_key, info = excluded.info",
                        (persona, version, path.name, kind, trained_at, fm.key, json.dumps(info.to_json())))
            _write_scores(con, persona, version, fm.ids, probs, state[1])
    except BaseException:
        forget_model_file(path)  # never committed: nobody will read it
        try:
            path.unlink(missing_ok=True)
        except OSError:
            pass
        raise
    finally:
        _release_writer(path)  # committed (the row names it) or removed: no longer a writer's
    _forget_scores(session, persona)
    try:
        _drop_old_model_files(session, persona, path)
    except (sqlite3.Error, OSError) as exc:  # committed already: the next training sweeps again
        log.warning("old model files of %s not removed: %s", persona, exc)
    return ModelInfo(**{**asdict(info), "seconds": round(time.perf_counter() - t0, 3)})


def score_project(session, persona: str, progress: Optional[Progress] = None) -> int:
    """Score every message of the project from its stored text with the persona's saved model
    and store the probabilities (replacing the persona's scores): messages are read, turned into
    feature rows and scored in parallel shares (see ``FeatureSpace.transform_store``). Returns
    how many were scored."""
    progress = ensure(progress)
    session.store.require_writable("the scores")
    version = _version(session.store.con, persona)
    model = load_model(session, persona)
    progress.update(0, None, "reading and scoring messages")
    state = _mail_state(session.store.con)  # (before the text is read: see _SCORED_THROUGH)
    ids, X = model.space_.transform_store(session.store)
    probs = model.proba_positive(X)
    progress.check()
    with session.store.transaction() as con:
        if _version(con, persona) == version:  # else a training committed meanwhile: its scores stand
            _write_scores(con, persona, version, ids, probs, state[1])
    _forget_scores(session, persona)
    return len(ids)


_LOCK = threading.Lock()
# (project root, persona, model version, mail state) -> doc_id -> probability. The mail state is
# part of the key: mail ingested since (in this process or another) is scored on first use.
_SCORES: dict[tuple[str, str, int, tuple[int, int]], dict[str, float]] = {}


def _mail_state(con) -> tuple[int, int]:
    """What the stored scores of the project's mail depend on, cheaply: the largest message row
    id (a message was added) and the largest ``copies`` row id (the importer adds a copies row
    for every copy it sees, also when a sender's copy replaces the kept copy's text). Both are
    row id maxima, read in O(log n)."""
    top, copies = con.execute("SELECT (SELECT MAX(id) FROM messages), (SELECT MAX(id) FROM copies)").fetchone()
    return (top or 0, copies or 0)


def _version(con, persona: str) -> int:
    row = con.execute("SELECT version FROM classifier_models WHERE persona = ?", (persona,)).fetchone()
    return row[0] if row else 0


def _score_map(session, persona: str) -> dict[str, float]:
    for _ in range(5):
        con = session.store.con
        version = _version(con, persona)
        state = _mail_state(con)  # (read before the scores: mail added meanwhile is seen by the next call)
        model = load_model(session, persona)  # raises NoModelError with a clear message
        key = (str(session.root), persona, version, state)
        with _LOCK:
            if key in _SCORES:
                return _SCORES[key]
        recorded = _scored_through(con, persona)
        through = recorded if recorded is not None else _legacy_scored_through(session, persona, state)
        scores = {d: p for d, p in con.execute(
            "SELECT m.doc_id, s.prob FROM scores s JOIN messages m ON m.id = s.message WHERE s.persona = ?", (persona,))}
        # messages ingested after training, and messages whose text a later copy replaced
        # (see _SCORED_THROUGH): score them with the saved model
        rows = con.execute("SELECT id, doc_id FROM messages WHERE id NOT IN (SELECT message FROM scores WHERE persona = ?) "
                           "OR id IN (SELECT message FROM copies WHERE id > ? AND kept = 1) ORDER BY id", (persona, through)).fetchall()
        probs = np.zeros(0)
        if rows:
            probs = model.proba_positive(doc_matrix(session, model, [r[1] for r in rows]))
        if (rows or recorded != state[1]) and not session.store.read_only:  # (open for reading only: not stored)
            with session.store.transaction() as c:
                if _version(c, persona) != version:
                    continue  # a training committed meanwhile (another thread): its scores stand; start again
                c.executemany("INSERT INTO scores(persona, message, prob, model_version) VALUES (?, ?, ?, ?) "
                              "ON CONFLICT(persona, message) DO UPDATE SET prob = excluded.prob, "
                              "model_version = excluded.model_version",
                              [(persona, r[0], float(p), version) for r, p in zip(rows, probs)])
                _set_scored_through(c, persona, state[1])
        scores.update(zip([r[1] for r in rows], probs.astype(float).tolist()))
        with _LOCK:
            for k in [k for k in _SCORES if k[:2] == key[:2]]:  # the maps of older states are of no use now
                del _SCORES[k]
            _SCORES[key] = scores
        return scores
    raise SascError(f"the sensitivity model for {persona!r} kept changing while its scores were read; try again")


def _legacy_scored_through(session, persona: str, state: tuple[int, int]) -> int:
    """For scores stored by a version that did not record which text they were computed from:
    when the mail is still what the model was trained on (its message set key), all of it
    (``state``'s copies id); else none of it (0: every message is scored again, once)."""
    row = session.store.con.execute("SELECT feature_key FROM classifier_models WHERE persona = ?", (persona,)).fetchone()
    return state[1] if row and row[0] == message_set_key(session)[0] else 0


def probabilities(session, persona: str) -> dict[str, float]:
    """doc_id -> calibrated P(sensitive) for every document of the project."""
    return dict(_score_map(session, persona))


def probabilities_for(session, persona: str, doc_ids: Sequence[str]) -> np.ndarray:
    """Calibrated P(sensitive) for these documents, in order (fast: an in-memory lookup)."""
    scores = _score_map(session, persona)
    try:
        return np.fromiter((scores[d] for d in doc_ids), dtype=np.float64, count=len(doc_ids))
    except KeyError as exc:
        raise InputError(f"no document {exc.args[0]!r} in this project") from None


def model_info(session, persona: str) -> Optional[dict[str, Any]]:
    row = session.store.con.execute("SELECT info FROM classifier_models WHERE persona = ?", (persona,)).fetchone()
    return json.loads(row[0]) if row else None


# ------------------------------------------------------------------------------ explanations
def _pretty(name: str) -> tuple[str, str]:
    block, _, feat = name.partition(":")
    return block, feat


# Metadata features as people say them: (when the message has it, when it does not). A count
# (log(1 + n) in the model) is said with its number: "{n}" is replaced.
_META_WORDS = {
    **{f"weekday_{d}": (f"sent on a {day}", f"not sent on a {day}") for d, day in (
        ("mon", "Monday"), ("tue", "Tuesday"), ("wed", "Wednesday"), ("thu", "Thursday"), ("fri", "Friday"),
        ("sat", "Saturday"), ("sun", "Sunday"))},
    **{f"hour_{h}": (f"sent {when}", f"not sent {when}") for h, when in (
        ("night", "at night (0-6 h)"), ("morning", "in the morning (6-12 h)"),
        ("afternoon", "in the afternoon (12-18 h)"), ("evening", "in the evening (18-24 h)"))},
    "weekend": ("sent at the weekend", "not sent at the weekend"),
    "no_date": ("has no date", "has a date"),
    "sender_internal": ("sender is internal", "sender is not internal"),
    "sender_external": ("sender is external", "sender is not external"),
    "n_recipients": ("{n} recipient(s)", "no recipients"),
    "n_internal_recipients": ("{n} internal recipient(s)", "no internal recipients"),
    "n_external_recipients": ("{n} external recipient(s)", "no external recipients"),
    "any_external_recipient": ("an external recipient", "no external recipient"),
    "all_recipients_internal": ("all recipients internal", "not all recipients internal"),
    "n_cc": ("{n} in Cc", "nobody in Cc"),
    "has_bcc": ("has Bcc recipients", "no Bcc recipients"),
    "subject_length": ("subject of {n} characters", "no subject"),
    "body_length": ("body of {n} characters", "no body text"),
    "attachment_length": ("{n} characters of attachment text", "no attachment text"),
    "has_attachments": ("has attachments", "no attachments"),
    "n_attachments": ("{n} attachment(s)", "no attachments"),
    "is_reply": ("is a reply", "is not a reply"),
    "is_forward": ("is a forward", "is not a forward"),
    "has_quoted_original": ("quotes an earlier message", "quotes no earlier message"),
    "importance_high": ("marked high importance", "not marked high importance"),
    "importance_low": ("marked low importance", "not marked low importance"),
    "priority_high": ("marked high priority", "not marked high priority"),
    "sensitivity_header_private": ("marked Private (Sensitivity header)", "not marked Private"),
    "sensitivity_header_confidential": ("marked Company-Confidential (Sensitivity header)",
                                        "not marked Company-Confidential"),
}
_TEXT_BLOCKS = {"subject": "subject word", "body": "body word", "attach": "attachment word", "chars": "characters"}


def feature_label(block: str, name: str, present: bool, value: Optional[float] = None) -> str:
    """A model feature of one message as people say it, true of that message: for a feature the
    message lacks, that it lacks it ("sender is not internal", "no payment card found")."""
    count = None if value is None else int(round(float(np.expm1(value)))) if value > 0 else 0
    if block in _TEXT_BLOCKS:
        what = f"{_TEXT_BLOCKS[block]} “{name}”"
        return what if present else f"no {what}"
    if block == "meta" and name in _META_WORDS:
        has, lacks = _META_WORDS[name]
        return has.replace("{n}", str(count) if count is not None else "some") if present else lacks
    if block == "pii":
        kind = name.removesuffix("_count").replace("_", " ")
        if name == "any_pii":
            return "personal information found" if present else "no personal information found"
        return (f"personal information: {kind} ({count} found)" if present and count
                else f"personal information: {kind}" if present else f"no {kind} found")
    if block == "cue":
        if name == "exclaim":
            return "'!!' or '?!' in the body" if present else "no '!!' or '?!' in the body"
        family, _, field = name.rpartition("_")
        family = family.replace("_", " ")
        return f"{family} cue words in the {field}" if present else f"no {family} cue words in the {field}"
    if block == "net":
        what = "sender network: " + name.replace("_", " ")
        return what if present else f"{what} is 0"
    what = f"{block}: {name.replace('_', ' ')}"
    return what if present else f"{what}: no"


def _raw_dense(session, model, row_id: int) -> dict[str, float]:
    """The message's dense features (meta, pii, net, cue) as computed, before the model's
    standardising: a feature the message lacks is 0 here (standardised, it is below the mean and
    not 0, so its contribution is not 0)."""
    from .features import DENSE_NAMES
    docs = [d for _, d in load_docs(session.store, [row_id])]
    row = model.space_._dense_raw(docs)[0]
    return dict(zip(DENSE_NAMES, (float(v) for v in row)))


def explain(session, doc_id: str, persona: str, top: int = 15) -> dict[str, Any]:
    """Why the persona's model scores this document as it does: the features pushing it towards
    sensitive (and away), with weights (feature value x coefficient), and PII hits with
    character offsets into the field they were found in ("subject", "body", "attachment:<name>"), and
    the sensitivity cue words (legal, secrecy, ...) with their offsets in the subject and body.

    The metadata, PII, network and cue features are standardised before the model weighs them, so
    a feature the message LACKS (value 0: below the collection's mean) contributes too: lacking a
    feature with a negative weight pushes towards sensitive. ``towards_sensitive`` and
    ``towards_not_sensitive`` list only features the message HAS; those it lacks are listed apart,
    in ``absent_towards_sensitive`` and ``absent_towards_not_sensitive``. Every entry has
    ``feature``, ``block``, ``name``, ``weight`` (its contribution), ``present`` (the message has
    it: its value is not 0), ``value`` (the value before standardising: a tf-idf weight for words
    and characters, log(1 + n) for counts, 0/1 for yes/no; None when unknown) and ``label`` (what
    it says of this message, e.g. "sender is not internal"). The arithmetic: raw_score = intercept +
    every listed weight (all four lists) + other_contributions."""
    model = load_model(session, persona)
    doc = session._row(doc_id)
    doc_id = doc["doc_id"]
    x = doc_matrix(session, model, [doc_id])
    prob = float(model.proba_positive(x)[0])
    which = model.deciding_model(x)
    contrib = model.contributions(x)
    names = model.space_.names_
    n_text = len(names) - len(model.space_.mean_)
    raw_dense = _raw_dense(session, model, doc["id"])
    xrow = x.tocsr() if hasattr(x, "tocsr") else x
    xval = dict(zip(xrow.indices.tolist(), xrow.data.tolist())) if hasattr(xrow, "indices") else {}

    def value_of(j: int) -> Optional[float]:
        if j < n_text:
            return float(xval.get(j, 0.0))
        return raw_dense.get(names[j])

    def entry(j: int) -> dict[str, Any]:
        block, name = _pretty(names[j])
        value = value_of(j)
        present = value is None or value != 0
        return {"feature": names[j], "block": block, "name": name, "weight": round(float(contrib[j]), 6),
                "present": present, "value": None if value is None else round(value, 6),
                "label": feature_label(block, name, present, value)}

    order = np.argsort(-contrib, kind="stable")
    nonzero = [j for j in order.tolist() if round(float(contrib[j]), 6) != 0]  # (the rest: other_contributions)
    has = {j: value_of(j) is None or value_of(j) != 0 for j in nonzero}
    towards = [entry(j) for j in [j for j in nonzero if contrib[j] > 0 and has[j]][:top]]
    against = [entry(j) for j in [j for j in nonzero[::-1] if contrib[j] < 0 and has[j]][:top]]
    absent_towards = [entry(j) for j in [j for j in nonzero if contrib[j] > 0 and not has[j]][:top]]
    absent_against = [entry(j) for j in [j for j in nonzero[::-1] if contrib[j] < 0 and not has[j]][:top]]
    pii = [h.to_json() for h in detect_pii(doc["subject"] or "", "subject")]
    pii += [h.to_json() for h in detect_pii(doc["body"] or "", "body")]
    for a in session.store.con.execute("SELECT name, text FROM attachments WHERE message = ? ORDER BY ord", (doc["id"],)):
        if a[1]:
            pii += [h.to_json() for h in detect_pii(a[1], f"attachment:{a[0]}")]
    from .cues import cue_hits
    cues = cue_hits(doc["subject"] or "", "subject") + cue_hits(doc["body"] or "", "body")
    # The arithmetic behind the probability: raw_score = intercept + the sum of every feature's
    # contribution (the listed ones plus other_contributions, the rest); the deciding model's
    # calibration maps it to P = sigmoid(slope * raw_score + intercept), and "or" then applies
    # final_calibration to the log-odds of that P.
    intercept = float(model.intercept_[which])
    raw = float(contrib.sum()) + intercept
    listed = sum(t["weight"] for t in towards + against + absent_towards + absent_against)
    a, b = model.platt_[which]
    final = getattr(model, "final_platt_", None)
    return {"doc_id": doc_id, "persona": persona, "probability": prob, "threshold": float(model.threshold_),
            "deciding_model": which, "raw_score": raw, "intercept": intercept,
            "other_contributions": round(raw - intercept - listed, 6),
            "calibration": {"slope": float(a), "intercept": float(b)},
            "final_calibration": None if final is None else {"slope": float(final[0]), "intercept": float(final[1])},
            "sensitive": prob >= model.threshold_, "towards_sensitive": towards, "towards_not_sensitive": against,
            "absent_towards_sensitive": absent_towards, "absent_towards_not_sensitive": absent_against,
            "pii": pii, "cues": cues}


# ------------------------------------------------------------------------------ honest evaluation
def _measures(y: np.ndarray, pred: np.ndarray) -> dict[str, float]:
    tp = int(((pred == 1) & (y == 1)).sum())
    fp = int(((pred == 1) & (y == 0)).sum())
    fn = int(((pred == 0) & (y == 1)).sum())
    tn = int(((pred == 0) & (y == 0)).sum())
    prec = tp / (tp + fp) if tp + fp else 0.0
    rec = tp / (tp + fn) if tp + fn else 0.0
    spec = tn / (tn + fp) if tn + fp else 0.0
    return {"precision": prec, "recall": rec, "f1": float(fbeta_from_counts(tp, fp, fn, 1.0)),
            "f2": float(fbeta_from_counts(tp, fp, fn, 2.0)), "accuracy": (tp + tn) / len(y),
            "balanced_accuracy": (rec + spec) / 2, "tp": tp, "fp": fp, "fn": fn, "tn": tn}


def cv_fold_range(n_pos: int, n_neg: int) -> Optional[tuple[int, int]]:
    """The fold counts (lowest, highest) for which stratified outer folds give every test fold
    one message of each class and leave every training fold ``MIN_PER_CLASS`` of each (a test
    fold holds floor(c/k) or ceil(c/k) of a class with c messages); None when there is none."""
    hi = min(n_pos, n_neg)
    ok = [k for k in range(2, hi + 1) if min(n_pos - -(-n_pos // k), n_neg - -(-n_neg // k)) >= MIN_PER_CLASS]
    return (ok[0], ok[-1]) if ok else None  # (ok is a range: c - ceil(c/k) grows with k)


def _check_folds(y: np.ndarray, folds: int) -> None:
    n1, n0 = int(y.sum()), int(len(y) - y.sum())
    if folds < 2:
        raise InputError("cross-validation needs at least 2 folds")
    span = cv_fold_range(n1, n0)
    got = f"got {n1} sensitive and {n0} not sensitive"
    if span is None:
        need = MIN_PER_CLASS + 1
        raise InputError(f"cross-validation needs at least {need} sensitive and {need} not-sensitive judgments, so "
                         f"that every outer training fold keeps {MIN_PER_CLASS} of each ({got})")
    lo, hi = span
    if not lo <= folds <= hi:
        use = lo if folds < lo else hi
        why = (f"an outer training fold would keep fewer than {MIN_PER_CLASS} of one class" if folds < lo
               else "a test fold would get no message of one class")
        choices = f"{use} folds" if lo == hi else f"{use} folds (any of {lo} to {hi})"
        raise InputError(f"{folds}-fold cross-validation is not possible here: {why} ({got}); use {choices}")


MAX_SEED = 2 ** 32 - 1  # numpy's and scikit-learn's random seeds are 0 .. 2**32 - 1


def check_seed(seed: Any) -> int:
    """A cross-validation seed as an int, or an InputError saying what a seed may be."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise InputError(f"the cross-validation seed must be a whole number, got {seed!r}")
    if not 0 <= int(seed) <= MAX_SEED:
        raise InputError(f"the cross-validation seed must be between 0 and {MAX_SEED}, got {int(seed)}")
    return int(seed)


def nested_cv(X, y: np.ndarray, splits, kind: str = DEFAULT_KIND, beta: float = 1.0, seed: int = 0,
              progress: Optional[Progress] = None) -> list[dict[str, Any]]:
    """The outer loop of ``cross_validate`` for given outer ``splits`` ((train, test) index
    pairs): one model per fold, fitted (C, calibration and threshold chosen by its own inner
    cross-validation) on the training rows of X and y only; its test rows are only predicted.
    Returns per fold the model, the test rows and their probabilities."""
    seed = check_seed(seed)
    progress = ensure(progress)
    out, k = [], len(splits)
    for i, (tr, te) in enumerate(splits):
        progress.update(i, k, f"fold {i + 1} of {k}")

        def inner(d: int, t: Optional[int], _message: str, i: int = i) -> None:
            # The fold's inner fits report as fold i + d/t of k, and a cancel stops the run at
            # the next inner fit, not only between folds.
            if t:
                progress.update(i * t + d, k * t, f"fold {i + 1} of {k}")
            else:
                progress.check()
        m = SensitivityClassifier(kind=kind, beta=beta, random_state=seed).fit(X[tr], y[tr], Progress(inner))
        out.append({"model": m, "test": np.asarray(te), "prob": m.proba_positive(X[te])})
    progress.update(len(splits), len(splits), "done")
    return out


def cross_validate(session, persona: str, folds: int = 5, optimise: str = "f1", kind: str = DEFAULT_KIND,
                   seed: int = 0, progress: Optional[Progress] = None, beta: Optional[float] = None) -> dict[str, Any]:
    """Nested cross-validation: every outer training fold chooses C, calibration and threshold
    by its own inner cross-validation; the outer test fold is only ever predicted. Measures
    are over the pooled outer predictions. The threshold maximises F1 or F2 (``optimise``), or
    F-beta for a given ``beta`` (which then overrides ``optimise``). Every outer training fold
    must keep 2 judgments of each class (an InputError names a fold count that works). ``seed``
    (0 to 2**32 - 1) shuffles the folds and seeds the models."""
    seed = check_seed(seed)
    betas = {"f1": 1.0, "f2": 2.0}
    if beta is not None:
        beta = check_beta(beta)
        optimise = f"f{beta:g}"
    elif optimise not in betas:
        raise InputError(f"--optimise must be f1 or f2, got {optimise!r}")
    else:
        beta = betas[optimise]
    progress = ensure(progress)
    ids, y = _labels(session, persona)
    _check_folds(y, folds)
    fm = project_features(session, progress)
    X = fm.X[fm.rows(ids)]
    splits = list(StratifiedKFold(folds, shuffle=True, random_state=seed).split(np.zeros(len(y)), y))
    fits = nested_cv(X, y, splits, kind, beta, seed, progress)
    pred = np.zeros(len(y), dtype=int)
    prob = np.zeros(len(y))
    for f in fits:
        prob[f["test"]] = f["prob"]
        pred[f["test"]] = (f["prob"] >= f["model"].threshold_).astype(int)
    thresholds = [float(f["model"].threshold_) for f in fits]
    out = _measures(y, pred)
    from sklearn.metrics import average_precision_score, roc_auc_score
    out.update({"threshold": float(np.mean(thresholds)), "thresholds": thresholds,
                "C": [dict(f["model"].C_) for f in fits],
                "n": int(len(y)), "positives": int(y.sum()), "folds": folds, "optimise": optimise, "beta": beta,
                "kind": kind, "average_precision": float(average_precision_score(y, prob)),
                "roc_auc": float(roc_auc_score(y, prob)), "brier": float(np.mean((prob - y) ** 2)),
                "calibration_error": expected_calibration_error(prob, y)})
    return out
