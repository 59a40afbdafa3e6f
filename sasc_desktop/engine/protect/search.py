"""Search-and-protect in a project.

``protected_search(session, query, persona, approach, k=10, cutoff="fixed")`` returns the
searcher's list and, separately, the documents held back as too uncertain (for the review
queue). The pipeline: candidates (the first SEARCH_DEPTH documents the query matches, as plain
search matches them: its NOT, -word, field:term, phrases and filters; the same for every page,
so pages are slices of one list) -> relevance features of the query's
positive words (rank.features.positive_terms) -> the persona classifier's
probabilities (engine/classify; trained on first use if the project has none) -> a ranker
trained for the approach on the project's judged topics (stored in ``models/``; BM25 when the
project has no judged topics) -> the approach's filter -> the cutoff policy -> :func:`finalize`.

A stored ranker records the judgments it learned from (:func:`judgments_fingerprint`: the
project's topics and relevance judgments, the persona's sensitivity judgments and reasons). A
search trains a ranker when there is none, and replaces the BM25 stand-in of a project that had
no judged topics once the judgments differ, with the stand-in's training options. A trained
ranker whose judgments are out of date is used as it is (``model_up_to_date`` False), since a
training can take minutes and searching must stay interactive -- what a person judged sensitive
is withheld by :func:`finalize` whatever the ranker learned -- unless the search asks for
``retrain_stale`` (``sasc search --retrain``) or ``sasc protect train`` retrains it. Trainings of one ranker file, in any process, take turns
under an OS lock on ``<file>.lock`` (a search waiting for another's training then uses its
ranker); the file itself is replaced atomically. A read-only project (a copy on read-only
media) trains nothing: it searches with the ranker it has, and without one in BM25 order (the
stand-in, in memory: ``ranker`` "bm25", ``model_up_to_date`` False, a ``note`` saying why);
nothing is written and judged-sensitive documents are withheld as always.

SAFETY: :func:`finalize` is the one place at the end of the pipeline that removes every
document a person has judged sensitive for the persona; nothing else can put a document into
the searcher's list after it. What "judged sensitive" means is :func:`judged_sensitive` (a level
>= 1 under any topic or a stated reason, on the document or on ANY document sharing its
Message-ID, or on a copy of it stored apart, whatever its Message-ID: :func:`content_twins`),
the one rule every consumer calls.
"""
from __future__ import annotations

import hashlib
import re
import threading
import time
import zlib
from contextlib import contextmanager
from pathlib import Path
from typing import Optional, Sequence

import numpy as np

from ..errors import InputError
from ..procpool import try_lock_file, unlock_file
from ..progress import Progress
from ..project.modelfile import lock_path, read_model_file, write_model_file
from .policies import dynamic_cutoff, safety_filter
from .quotes import quoting_judged

MODEL_FORMAT = "sasc-protect-ranker"
MODEL_FORMAT_VERSION = 1
PROTECT_APPROACHES = ("relevance", "prefilter", "postfilter", "demote", "joint", "joint_postfilter")
SEARCH_CUTOFFS = ("fixed", "dynamic", "static", "threshold")
THRESHOLD = 0.5
# How many of a query's matches (its first, by BM25F) a protected search ranks, the same for every
# page: the searcher's list is made of them and ends there (see protected_search). Every candidate's
# features are computed, from the project's term cache (rank.features.term_cache): a candidate no
# search has seen yet is read and analysed (about 0.25 ms), then its features for all 500 take a few
# ms (a warm search of the 3,000-message demo: about 6-10 ms median, 17-33 ms p95 on 2 busy cores).
SEARCH_DEPTH = 500
UNCERTAIN = (0.25, 0.75)      # probability band of "too uncertain": held back for review


def _persona_topics(con, persona: str) -> list[str]:
    """The topics the persona has sensitivity judgments under, found by index seeks (a skip scan
    of the primary key (persona, topic, doc_id)), so that each (topic, document) pair can then
    be read by one primary-key lookup."""
    topics: list[str] = []
    row = con.execute("SELECT topic FROM sensitivity WHERE persona = ? ORDER BY topic LIMIT 1", (persona,)).fetchone()
    while row is not None:
        topics.append(row[0])
        row = con.execute("SELECT topic FROM sensitivity WHERE persona = ? AND topic > ? ORDER BY topic LIMIT 1",
                          (persona, row[0])).fetchone()
    return topics


def _chunks(items: Sequence[str], size: int = 500):
    for i in range(0, len(items), size):
        yield items[i:i + size]


def judged_sensitive(session, persona: str) -> set[str]:
    """THE rule of what a person judged sensitive for the persona; every consumer (protected
    search, the review queue, exports) asks this function or :func:`judged_sensitive_among`.

    A document id is judged sensitive when
    - it has a sensitivity level >= 1 for the persona under any topic, or a reason why it is
      sensitive for the persona (a reason is a person saying it is sensitive: the safe side;
      imports refuse a reason that contradicts a level 0), or
    - ANY document sharing its Message-ID (``messages.message_id``) is judged so: copies ingest
      does not merge (a mailing-list copy with a ``[staff]`` subject prefix is stored as
      ``<mid>~<hash>``) are the same words, and a judgment on a Message-ID not (yet) stored
      covers every document with that Message-ID; or
    - it is a copy of a message judged so by the rules above, stored as another document
      (:func:`content_twins`: the same message as written apart from its Message-ID and what
      mailboxes and the mail system add), or such a copy's copies by Message-ID; or
    - a judged id of the form ``<mid>~<hash>`` that names no document here (a copy's id made in
      another project, where the copies came in another order) stands for Message-ID ``<mid>``.
    "I don't know" (-1) and 0 are not sensitive. The set holds the judged ids themselves
    (stored or not), the Message-IDs they stand for, every stored document with one of those
    Message-IDs, and those documents' twins."""
    con = session.store.con
    judged = {d for (d,) in con.execute(
        "SELECT doc_id FROM sensitivity WHERE persona = ? AND level > 0 "
        "UNION SELECT doc_id FROM sensitivity_reasons WHERE persona = ?", (persona, persona))}
    if not judged:
        return set()
    ids = sorted(judged)
    # an id not stored stands for its Message-ID: the id itself, or a copy's "<mid>~<hash>" (made in
    # another project, whose import order gave that copy the suffix) its "<mid>"
    keys = set(judged) | {m for m in map(copy_id_message_id, judged) if m}
    for chunk in _chunks(ids):
        marks = ",".join("?" * len(chunk))
        keys.update(m for (m,) in con.execute(f"SELECT message_id FROM messages WHERE doc_id IN ({marks})", chunk))
    out = judged | keys
    rows: list[int] = []
    for chunk in _chunks(sorted(keys)):
        marks = ",".join("?" * len(chunk))
        for d, row_id in con.execute(f"SELECT doc_id, id FROM messages WHERE message_id IN ({marks})", chunk):
            out.add(d)
            rows.append(row_id)
    twins = content_twins(con, rows)
    # a twin's own Message-ID is covered too (its other copies: a list copy "<mid>~<hash>")
    twin_keys = {m for ts in twins.values() for _, m in ts} - keys
    out.update(doc for ts in twins.values() for doc, _ in ts)
    for chunk in _chunks(sorted(twin_keys)):
        marks = ",".join("?" * len(chunk))
        out.update(d for (d,) in con.execute(f"SELECT doc_id FROM messages WHERE message_id IN ({marks})", chunk))
    return out


_COPY_ID = re.compile(r"(.+)~[0-9a-f]{10}")


def copy_id_message_id(doc_id: str) -> Optional[str]:
    """The Message-ID a copy's document id ``<mid>~<10 hex digits>`` (a copy with the Message-ID
    of a message stored before it: ingest's ``document_id``) stands for, else None."""
    m = _COPY_ID.fullmatch(doc_id)
    return m.group(1) if m else None


def _copy_id_judgments(con, persona: str) -> set[str]:
    """The Message-IDs named by the persona's judged-sensitive ids of the form ``<mid>~<hash>``
    (see :func:`copy_id_message_id`): such an id made in another project may name no document
    here, and must still cover every copy with its Message-ID. Kept until the database changes."""
    def compute() -> set[str]:
        glob = "*~" + "[0-9a-f]" * 10
        ids = con.execute("SELECT doc_id FROM sensitivity WHERE persona = ? AND level > 0 AND doc_id GLOB ? "
                          "UNION SELECT doc_id FROM sensitivity_reasons WHERE persona = ? AND doc_id GLOB ?",
                          (persona, glob, persona, glob)).fetchall()
        return {m for (d,) in ids if (m := copy_id_message_id(d))}
    return _while_unchanged(_COPY_IDS, (id(con), persona), con, compute)


def judged_sensitive_among(session, persona: str, doc_ids: Sequence[str]) -> set[str]:
    """``judged_sensitive(session, persona) & set(doc_ids)``, by index lookups only (protected
    search stays interactive at any project size): the candidates' Message-IDs (the doc_id
    index), every document sharing one (the message_id index), those documents' twins (the
    (subject_norm, ts) index) and the documents sharing the twins' Message-IDs, then those
    documents' judgments (primary-key lookups per (topic, document) and (persona, document))."""
    doc_ids = list(dict.fromkeys(doc_ids))
    if not doc_ids:
        return set()
    con = session.store.con
    topics = _persona_topics(con, persona)
    has_reasons = con.execute("SELECT 1 FROM sensitivity_reasons WHERE persona = ? LIMIT 1", (persona,)).fetchone()
    if not topics and not has_reasons:
        return set()
    key = {d: d for d in doc_ids}                         # a candidate not stored: its id is its Message-ID
    for chunk in _chunks(doc_ids):
        marks = ",".join("?" * len(chunk))
        key.update(con.execute(f"SELECT doc_id, message_id FROM messages WHERE doc_id IN ({marks})", chunk))
    # Message-ID -> the ids that stand for it (itself, the documents with it), found for the
    # candidates' Message-IDs, then for their documents' twins' (the same path as
    # judged_sensitive's, the other way: judged -> Message-ID -> twin -> Message-ID -> candidate)
    related: dict[str, set[str]] = {}
    twin_mids: dict[str, set[str]] = {}                  # a Message-ID -> its documents' twins' Message-IDs

    def expand(mids) -> dict[int, str]:
        rows: dict[int, str] = {}
        new = sorted(m for m in mids if m not in related)
        for m in new:
            related[m] = {m}
        for chunk in _chunks(new):
            marks = ",".join("?" * len(chunk))
            for d, m, row_id in con.execute(
                    f"SELECT doc_id, message_id, id FROM messages WHERE message_id IN ({marks})", chunk):
                related[m].add(d)
                rows[row_id] = m
        return rows
    rows = expand(set(key.values()))
    for d in doc_ids:
        related[key[d]].add(d)
    for row_id, twins in content_twins(con, list(rows)).items():
        twin_mids.setdefault(rows[row_id], set()).update(m for _, m in twins)
    expand({m for ms in twin_mids.values() for m in ms})
    keys: dict[str, set[str]] = {d: {key[d]} | twin_mids.get(key[d], set()) for d in doc_ids}
    every = sorted(set().union(*related.values()))
    judged: set[str] = set()
    tmarks = ",".join("?" * len(topics))
    for chunk in _chunks(every):
        marks = ",".join("?" * len(chunk))
        if topics:
            judged.update(d for (d,) in con.execute(
                f"SELECT doc_id FROM sensitivity WHERE persona = ? AND topic IN ({tmarks}) AND doc_id IN ({marks}) "
                "AND level > 0", [persona, *topics, *chunk]))
        if has_reasons:
            judged.update(d for (d,) in con.execute(
                f"SELECT DISTINCT doc_id FROM sensitivity_reasons WHERE persona = ? AND doc_id IN ({marks})",
                [persona, *chunk]))
    hit = {m for m, ids in related.items() if ids & judged} | (set(related) & _copy_id_judgments(con, persona))
    return {d for d in doc_ids if keys[d] & hit}


def content_twins(con, row_ids: Sequence[int]) -> dict[int, list[tuple[str, str]]]:
    """The twins of stored documents (``row_ids``: their row ids): for each that has any, the
    (doc_id, message_id) of the other documents whose stored bytes are the same message as
    written apart from its Message-ID (:func:`twin_digest`). Ingest merges copies with one
    Message-ID, or none, that differ only in what mailboxes and the mail system add; it keeps
    apart copies that differ in the Message-ID itself: a server that adds one on the way (the
    sender's Sent copy has none, the recipient's Inbox copy has one), an export that renumbers
    (enron-categories-dev holds 10 such groups), and projects ingested under an earlier rule.
    A judgment on one must cover the others. A twin has the subject and date (both in the
    digest): the documents that have another with their subject and date are found by the
    (subject_norm, ts) index (EXISTS: one seek each), then each such subject and date's
    documents are read once as a group and their digests compared (digests are kept by the
    stored bytes' SHA-256, so a group of thousands of undated "Note"s is hashed once, not at
    every search; a pair join made 500 candidates x 3,000 such notes 1.5 million pairs)."""
    ids = sorted(set(row_ids))
    keys: dict[tuple, set[int]] = {}                      # (subject_norm, ts) -> the rows asked about
    for chunk in _chunks(ids):
        marks = ",".join("?" * len(chunk))
        for row_id, subject, ts in con.execute(
                f"SELECT c.id, c.subject_norm, c.ts FROM messages c WHERE c.id IN ({marks}) AND EXISTS "
                "(SELECT 1 FROM messages o WHERE o.subject_norm = c.subject_norm AND o.ts IS c.ts AND o.id <> c.id)",
                chunk):
            keys.setdefault((subject, ts), set()).add(row_id)
    out: dict[int, list[tuple[str, str]]] = {}
    for (subject, ts), asked in keys.items():
        members = con.execute("SELECT id, doc_id, message_id, raw_sha256 FROM messages "
                              "WHERE subject_norm = ? AND ts IS ?", (subject, ts)).fetchall()
        by_digest: dict[str, list[tuple[int, str, str]]] = {}
        for row_id, doc_id, message_id, sha in members:
            d = _twin_digest_of(con, row_id, sha)
            if d is not None:
                by_digest.setdefault(d, []).append((row_id, doc_id, message_id))
        for same in by_digest.values():
            if len(same) < 2:
                continue
            for row_id, _, _ in same:
                if row_id in asked:
                    out[row_id] = [(d, m) for r, d, m in same if r != row_id]
    return out


_TWIN_DIGESTS: dict[str, str] = {}          # stored bytes' SHA-256 -> their twin_digest
_TWIN_DIGESTS_MAX = 200_000                 # (about 30 MB; emptied when full)


def _twin_digest_of(con, row_id: int, raw_sha256: str) -> Optional[str]:
    hit = _TWIN_DIGESTS.get(raw_sha256)
    if hit is not None:
        return hit
    data = con.execute("SELECT data FROM raw WHERE message = ?", (row_id,)).fetchone()
    if data is None:
        return None
    digest = twin_digest(zlib.decompress(data[0]))
    with _FINGERPRINTS_LOCK:
        if len(_TWIN_DIGESTS) >= _TWIN_DIGESTS_MAX:
            _TWIN_DIGESTS.clear()
        _TWIN_DIGESTS[raw_sha256] = digest
    return digest


def twin_digest(raw: bytes) -> str:
    """:func:`..ingest.parse.content_digest` with the Message-ID left out too: the same for two
    copies of a message that differ only in their Message-ID and what mailboxes and the mail
    system add."""
    from ..ingest.parse import content_digest, ignored_header
    return content_digest(raw, ignored=lambda name: name.lower() == b"message-id" or ignored_header(name))


def finalize(ranked_doc_ids: Sequence[str], n_show: int, never_show: set[str], offset: int = 0) -> list[str]:
    """The searcher's list: documents ``offset + 1`` to ``n_show`` of ``ranked_doc_ids`` after
    the safety rule removed every document judged sensitive (so a page never holds one, and
    none shifts the pages after it)."""
    return safety_filter(ranked_doc_ids, never_show)[max(0, int(offset)): max(0, int(n_show))]


def _model_path(session, persona: str, approach: str) -> Path:
    from ..classify import persona_file_part
    return Path(session.paths.models) / f"protect-{persona_file_part(persona)}-{approach}.pkl"


def _probabilities(session, persona: str, doc_ids: Sequence[str]) -> np.ndarray:
    from ..classify import DEFAULT_KIND, NoModelError, probabilities_for, train
    if not doc_ids:
        return np.zeros(0)
    try:
        return probabilities_for(session, persona, doc_ids)
    except NoModelError:
        train(session, persona, kind=DEFAULT_KIND)  # the same kind the CLI and the app train by default
        return probabilities_for(session, persona, doc_ids)


# ------------------------------------------------------------------ what a ranker learned from
# Each part: (name, SQL giving the row count and the rows' text in primary-key order, per persona).
_FINGERPRINT_PARTS = (
    ("topics", "SELECT count(*), group_concat(id || char(31) || title || char(31) || description, char(30)) "
               "FROM (SELECT id, title, description FROM topics ORDER BY id)", False),
    ("qrels", "SELECT count(*), group_concat(topic || char(31) || doc_id || char(31) || rel, char(30)) "
              "FROM (SELECT topic, doc_id, rel FROM qrels ORDER BY topic, doc_id)", False),
    ("sensitivity", "SELECT count(*), group_concat(topic || char(31) || doc_id || char(31) || level, char(30)) "
                    "FROM (SELECT topic, doc_id, level FROM sensitivity WHERE persona = ? ORDER BY topic, doc_id)",
     True),
    ("reasons", "SELECT count(*), group_concat(doc_id || char(31) || reason, char(30)) "
                "FROM (SELECT doc_id, reason FROM sensitivity_reasons WHERE persona = ? ORDER BY doc_id, reason)",
     True),
)
_FINGERPRINTS: dict[tuple, tuple] = {}      # (database, persona, connection id) -> (connection, state, fingerprint)
_FINGERPRINTS_LOCK = threading.Lock()
_COPY_IDS: dict[tuple, tuple] = {}         # (connection id, persona) -> (connection, state, Message-IDs)


def judgments_fingerprint(session, persona: str) -> dict:
    """What a protection ranker for ``persona`` learns from, as counts and one SHA-256: the
    project's topics (id, title, description) and relevance judgments, and the persona's
    sensitivity judgments and reasons (their sources left out). Computed in SQLite (about 0.1 s
    for 200,000 rows) and kept until the database changes (SQLite's data_version, for other
    connections' commits, and this connection's own changes), so a search in an unchanged
    project does not recompute it."""
    con = session.store.con

    def compute() -> dict:
        digest = hashlib.sha256()
        out: dict = {}
        for name, sql, per_persona in _FINGERPRINT_PARTS:
            n, text = con.execute(sql, (persona,) if per_persona else ()).fetchone()
            out[name] = int(n)
            digest.update(f"{name}\x1d{n}\x1d".encode())
            digest.update((text or "").encode("utf-8", "surrogatepass"))
            digest.update(b"\x1c")
        out["sha256"] = digest.hexdigest()
        return out
    return dict(_while_unchanged(_FINGERPRINTS, (str(session.store.path), persona, id(con)), con, compute))


def _while_unchanged(cache: dict, key: tuple, con, compute):
    """``compute()``, kept in ``cache`` under ``key`` until the database changes (SQLite's
    data_version, for other connections' commits, and this connection's own changes); at most
    64 entries. The value is shared: callers must not change it."""
    state = (con.execute("PRAGMA data_version").fetchone()[0], con.total_changes)
    with _FINGERPRINTS_LOCK:
        hit = cache.get(key)
    if hit is not None and hit[0] is con and hit[1] == state:
        return hit[2]
    value = compute()
    with _FINGERPRINTS_LOCK:
        if len(cache) >= 64:
            cache.pop(next(iter(cache)))
        cache[key] = (con, state, value)
    return value


@contextmanager
def _training_turn(path: Path):
    """Hold the OS lock on the ranker file's ``.lock`` (``procpool.try_lock_file``: dropped by
    the OS when its process ends however it ends; seen by other processes and threads) while
    training and writing ``path``; wait for a training holding it to end. Where no lock can
    be taken (a file system without locks, a folder that cannot be written) training goes on
    without one (a read-only project then fails as training would)."""
    lock = lock_path(path)
    try:
        lock.parent.mkdir(parents=True, exist_ok=True)
    except OSError:
        pass
    delay = 0.02
    while True:
        fd, held = try_lock_file(lock)
        if fd is not None or not held:
            break
        time.sleep(delay)
        delay = min(delay * 2, 0.5)
    try:
        yield
    finally:
        if fd is not None:
            unlock_file(fd)   # (the lock file stays: removing it would let two trainings hold two files)


DEFAULT_TRAINING = {"ranker": "ca", "objective": "nCS-DCG@10(cost=12)", "depth": 200, "ranker_params": None}


def _training_options(payload: Optional[dict]) -> dict:
    """The options a stored ranker was trained with (to retrain it alike); the defaults for a
    file without them (written before they were kept: its ranker and objective)."""
    if payload is None:
        return dict(DEFAULT_TRAINING)
    if isinstance(payload.get("training"), dict):
        return {**DEFAULT_TRAINING, **payload["training"]}
    out = dict(DEFAULT_TRAINING)
    if payload.get("model") is not None and payload.get("ranker"):
        out["ranker"] = payload["ranker"]
    if payload.get("objective"):
        out["objective"] = payload["objective"]
    return out


def train_protection(session, persona: str, approach: str = "joint", ranker: str = "ca",
                     objective: str = "nCS-DCG@10(cost=12)", depth: int = 200,
                     ranker_params: Optional[dict] = None, progress: Optional[Progress] = None) -> dict:
    """Train and store the ranker an approach uses, on every judged topic of the project
    (after a training of the same file in another process or thread, if one is running)."""
    from ..rank.rankers import check_objective, make_ranker
    if approach not in PROTECT_APPROACHES:
        raise InputError(f"unknown approach {approach!r}; approaches are: {', '.join(PROTECT_APPROACHES)}")
    _check_persona(session, persona)
    if depth < 1:
        raise InputError("depth (candidates per topic) must be at least 1")
    check_objective(objective)      # a measure where lower is better (F-docs, Withheld, Empty) is refused
    make_ranker(ranker, objective=objective, **(ranker_params or {}))   # an unknown ranker or option: now, not after the features
    session.store.require_writable("the protection model")  # before the training, not after it
    with _training_turn(_model_path(session, persona, approach)):
        return _train(session, persona, approach, ranker, objective, depth, ranker_params, progress)


MIN_VALIDATION_TOPICS = 5   # judged topics needed to keep a validation fold (and learn the cutoffs on it)


def _train(session, persona: str, approach: str, ranker: str, objective: str, depth: int,
           ranker_params: Optional[dict], progress: Optional[Progress]) -> dict:
    """Train and write the approach's ranker. With at least MIN_VALIDATION_TOPICS judged
    topics, one fold of them (folds_for, seed 0) is the validation set: the ranker trains on
    the others (validation for early stopping), and the ``static`` cutoff and the ``threshold``
    score are learned on the validation topics' lists as in the experiments
    (evaluate.experiment: the static cutoff maximising the objective measure, the score
    threshold maximising nDCG_f@k; policies.learn_static_cutoff / learn_score_threshold).
    Otherwise they are not learned and ``cutoff_problem`` says why. The result's
    ``threshold_every_document`` is True when the learned threshold is -inf (every document
    passes: JSON shows its ``threshold_value`` as null). ``ranker_objective`` is the
    measure the ranker itself learned from: the objective for the joint approaches' listwise
    rankers, nDCG@k for the other approaches' (they rank by relevance), the objective for the
    joint linear ranker only when it has costs (else the grades: None), None for BM25."""
    from ..evaluate.experiment import approach_lists, build_dataset, folds_for, score_lists, with_sensitivity
    from ..evaluate.registry import parse_measure
    from ..rank.rankers import make_ranker
    from ..project import judgments as J
    from .policies import learn_score_threshold, learn_static_cutoff
    session.store.require_writable("the protection model")
    measure = parse_measure(objective)
    k = measure.k
    t0 = time.perf_counter()
    judged = judgments_fingerprint(session, persona)   # before reading them: a change meanwhile retrains again
    qrels = J.qrels(session.store)
    payload = {"persona": persona, "approach": approach,
               "ranker": ranker, "objective": objective, "k": k, "judgments": judged,
               "training": {"ranker": ranker, "objective": objective, "depth": depth,
                            "ranker_params": dict(ranker_params) if ranker_params else None},
               "static_value": None, "threshold_value": None}
    if not qrels:
        payload.update(ranker="bm25", model=None, columns=None, topics=0, ranker_objective=None,
                       cutoff_problem="the project has no judged topics to learn it on: import topics and "
                                      "relevance judgments (qrels) first")
    else:
        base, meta, _ = build_dataset(session, persona, depth=depth, progress=progress)
        prob = _training_probabilities(session, persona, base, _probabilities(session, persona, list(base.doc_ids)))
        data = with_sensitivity(base, prob, meta)
        rel_cols = list(range(base.X.shape[1]))
        factory = lambda obj: make_ranker(ranker, objective=obj, **(ranker_params or {}))  # noqa: E731
        if data.n_topics >= MIN_VALIDATION_TOPICS:
            folds = folds_for(data.n_topics, 5)
            tr, va = data.subset(np.sort(np.concatenate(folds[1:]))), data.subset(folds[0])
            # the approach's model, and its full lists of the validation topics (filtered ones filtered)
            vlists, vscores, model, cols = approach_lists(approach, factory, tr, va, va, rel_cols, objective,
                                                          f"nDCG@{k}", {})
            ndcg_f = parse_measure(f"nDCG_f@{k}")
            static = learn_static_cutoff(lambda c: _mean_defined(score_lists(measure, va, [lst[:c] for lst in vlists])), k)
            threshold = learn_score_threshold(
                lambda th: _mean_defined(score_lists(ndcg_f, va, [lst[:k][vscores[va.group(t)][lst[:k]] >= th]
                                                                  for t, lst in enumerate(vlists)])), vscores)
            payload.update(static_value=int(static), threshold_value=float(threshold),
                           validation_topics=[va.topics[t] for t in range(va.n_topics)])
        else:
            joint = approach in ("joint", "joint_postfilter")
            cols = list(range(data.X.shape[1])) if joint else rel_cols
            if approach == "prefilter":
                data = data.select_rows(data.prob < THRESHOLD)
            if approach == "demote":
                data = data.demoted()   # (-1, "I don't know", keeps its relevance)
            model = factory(objective if joint else f"nDCG@{k}").fit(data.with_columns(cols), None)
            payload["cutoff_problem"] = (f"it is learned on validation topics, which needs at least "
                                         f"{MIN_VALIDATION_TOPICS} judged topics (the project has {data.n_topics})")
        # what the ranker learned from (None: none, e.g. BM25, or the linear ranker on the grades);
        # ``objective`` is still the measure the static cutoff is learned for
        payload.update(model=model, columns=cols, topics=data.n_topics, ranker_objective=model.objective_)
    payload["seconds"] = time.perf_counter() - t0
    path = write_model_file(_model_path(session, persona, approach), MODEL_FORMAT, MODEL_FORMAT_VERSION, payload)
    # a learned threshold of -inf is "no threshold: every document" (JSON has no -inf: its
    # threshold_value is null there, as when nothing was learned; this says which)
    every = payload["threshold_value"] is not None and payload["threshold_value"] == float("-inf")
    return {k_: v for k_, v in payload.items() if k_ != "model"} | {"path": str(path),
                                                                    "threshold_every_document": every}


CROSSFIT_GROUPS = 5   # topic groups whose candidates are scored by a classifier trained without them


def _training_probabilities(session, persona: str, base, prob: np.ndarray) -> np.ndarray:
    """The classifier probabilities a ranker learns from: out of fold. The persona's classifier
    was trained on every judged document, so its probabilities for the judged candidates are
    nearly their labels (demo, 400 messages: ROC AUC 0.999 in sample, 0.765 out of fold), and a
    ranker trained on them learns to trust ``sens_prob`` far more than it deserves on the
    unjudged mail it ranks at search time. The topics are split into CROSSFIT_GROUPS groups;
    each group's candidates are scored by a model of the same kind and C trained without them
    (evaluate.experiment.crossfit_probabilities). A group whose training set lacks a class
    keeps the model's probabilities."""
    from ..classify import load_model
    from ..evaluate.experiment import crossfit_probabilities
    from ..project import judgments as J
    if base.n_topics < 2:
        return prob
    model = load_model(session, persona)
    opts = {"kind": model.kind, "Cs": tuple(sorted(set(getattr(model, "C_", {}).values()))) or model.Cs}
    judged = list(J.sensitivity(session.store, persona))
    return crossfit_probabilities(session, persona, base, prob, judged, set(), np.arange(base.n_topics),
                                  min(CROSSFIT_GROUPS, base.n_topics), 0, opts, skip_unfittable=True)


def _mean_defined(result) -> float:
    """The mean of a measure's defined per-topic values (0 when none is defined)."""
    vals, ok = result
    return float(vals[ok].mean()) if ok.any() else 0.0


def load_protection(session, persona: str, approach: str) -> Optional[dict]:
    path = _model_path(session, persona, approach)
    if not path.exists():
        return None
    return read_model_file(path, MODEL_FORMAT, MODEL_FORMAT_VERSION, "ranking model",
                           "delete it and search again: a missing model is retrained")


def current_protection(session, persona: str, approach: str, train: bool = True,
                       before_training=None, retrain_stale: bool = False) -> tuple[Optional[dict], bool, bool]:
    """``(payload, trained, up_to_date)``: the stored ranker of the approach, trained first
    (``trained``) when there is none, when it is the BM25 stand-in and the judgments changed,
    or, with ``retrain_stale``, when a trained ranker's judgments are no longer the project's
    (retrained with its own training options; see the module's text). Otherwise, or without
    ``train``, or in a read-only project (where nothing can be trained or saved), the stored one
    as it is (None if none: the search then ranks by BM25, the stand-in, in memory), and
    ``up_to_date`` says whether it learned from the project's judgments as they are.
    ``before_training()`` is called before a training starts (a check that may refuse it)."""
    payload = load_protection(session, persona, approach)
    if payload is not None and payload.get("judgments") == judgments_fingerprint(session, persona):
        return payload, False, True
    trained_model = payload is not None and payload.get("model") is not None
    if not train or session.store.read_only or (trained_model and not retrain_stale):
        return payload, False, False
    if before_training is not None:
        before_training()
    session.store.require_writable("the protection model")
    with _training_turn(_model_path(session, persona, approach)):
        # another process or thread may have trained it while this one waited for its turn
        payload = load_protection(session, persona, approach)
        if payload is not None and payload.get("judgments") == judgments_fingerprint(session, persona):
            return payload, False, True
        options = _training_options(payload)
        _train(session, persona, approach, options["ranker"], options["objective"], int(options["depth"]),
               options["ranker_params"], None)
        payload = load_protection(session, persona, approach)
        return payload, True, payload.get("judgments") == judgments_fingerprint(session, persona)


def protected_search(session, query: str, persona: str, approach: str = "joint", k: int = 10,
                     cutoff: str = "fixed", depth: int = SEARCH_DEPTH, train_if_missing: bool = True,
                     extractor=None, show_withheld: bool = False, offset: int = 0,
                     retrain_stale: bool = False) -> dict:
    """The searcher's list (``hits``) and the documents held back for review (``held_back``):
    those of the page the classifier is unsure of, and those that quote a message judged
    sensitive (:mod:`.quotes`: a reply or forward carrying its words), never shown; each
    held-back entry's ``quotes`` is the judged document it quotes, or None.

    ``depth``: how many of the query's matches are ranked: its first ``depth`` (SEARCH_DEPTH)
    by BM25F, whatever the page. The searcher's list is made of those (less what is withheld or
    filtered out) and ends there, so its length and order do not depend on ``k`` or ``offset``.
    (The depth cannot grow with the page asked for: the ranker may place a deeper match above
    ones already shown, so deeper pages would reorder the earlier ones.)

    ``offset``: the page after the first ``offset`` documents of the searcher's list: ranks
    ``offset + 1`` to ``offset + k`` of the list ``k = offset + k`` gives (the cutoff policy
    applies to that whole list). With the fixed, static and threshold policies successive pages
    together are the one long list (same order, no gap, no repeat); the dynamic policy shows a
    share of the ``offset + k`` asked for, so its pages are slices of lists of their own lengths.

    ``cutoff``: how long the searcher's list is: ``fixed`` the first ``offset + k``; ``dynamic``
    floor((offset + k) (1 - predicted sensitive / candidates)); ``static`` the first
    min(offset + k, c) for the list length c learned on validation topics; ``threshold`` the
    first ``offset + k`` of those whose score reaches the score learned on validation topics.
    ``static`` and ``threshold`` need a ranker trained with a validation fold (at least
    MIN_VALIDATION_TOPICS judged topics): without one they are an InputError. With ``static``
    the result's ``static_length`` is that learned list length (a cost-sensitive objective can
    learn a very short one: 0 or 1 on the demo's nCS-DCG with cost 12).

    ``beyond_depth``: the query matches more than the ``depth`` ranked, so the list ends before
    its matches do (narrowing the query reaches the others). ``list_ends``: no page after this
    one holds anything (the list, as long as its policy makes it, ends here or before).

    ``show_withheld``: also return ``candidates``, ``matches`` (all the query matches) and
    ``withheld_judged_sensitive`` (how many candidates a person judged sensitive were withheld)
    and ``withheld_quoting_sensitive`` (how many others quote one and are not shown).
    Those are the archivist's figures: for a narrow query they tell that sensitive mail on it
    exists, so a searcher's view (``sasc search --protect`` without ``--show-withheld``) leaves them out."""
    from ..index.schema import DEFAULT_FIELD_WEIGHTS
    from ..rank.features import CachedFeatureExtractor, positive_terms, sensitivity_features
    if approach not in PROTECT_APPROACHES:
        raise InputError(f"unknown approach {approach!r}; approaches are: {', '.join(PROTECT_APPROACHES)}")
    if cutoff not in SEARCH_CUTOFFS:
        raise InputError(f"unknown cutoff policy {cutoff!r}; policies are: {', '.join(SEARCH_CUTOFFS)}")
    _check_persona(session, persona)
    if k < 1:
        raise InputError("k must be at least 1")
    if offset < 0:
        raise InputError("offset must be 0 or more")
    if depth < 1:
        raise InputError("depth (candidates ranked) must be at least 1")
    total = offset + k      # the list is ranked from the same first ``depth`` matches for every page
    t0 = time.perf_counter()
    weights = {**DEFAULT_FIELD_WEIGHTS, **session.settings()["field_weights"]}
    # A query plain search refuses is refused (by the search below, with its messages), before any training.
    payload, trained, up_to_date = current_protection(session, persona, approach, train=train_if_missing,
                                                      before_training=lambda: session.index.parse(query, weights),
                                                      retrain_stale=retrain_stale)
    read_only_note = None
    if not up_to_date and session.store.read_only:
        read_only_note = (
            "the project is open for reading only, so no ranker can be trained or saved: " +
            (f"there is no stored ranker for persona {persona} and approach {approach}, so the candidates are "
             "in BM25 order" if payload is None else
             f"its {payload.get('ranker', 'bm25')} ranker learned from older judgments and is used as it is") +
            " (documents judged sensitive are withheld all the same)")
    learned = (_learned_cutoff(payload, cutoff, read_only=session.store.read_only)
               if cutoff in ("static", "threshold") else None)
    model = None if payload is None else payload.get("model")
    cands, q, n_matches = _candidates(session, query, depth, weights, equal_weights=model is not None)
    dids = [d for d, _ in cands]
    prob = _probabilities(session, persona, dids)
    if not dids:
        scores = np.zeros(0)
    elif model is None:
        scores = np.array([s for _, s in cands], float)
    else:
        # (the project's term cache: candidates seen by an earlier search are not read and analysed again)
        ex = extractor or CachedFeatureExtractor(session, depth=depth)
        terms = positive_terms(q)       # the words the query looks for (not NOT-ed ones, not field names)
        X = ex.relevance_for_terms(terms, terms, dids, [s for _, s in cands])
        X = np.hstack([X, sensitivity_features(prob, ex.metadata(dids))])
        scores = model.predict(X[:, payload["columns"]])
    order = np.argsort(-scores, kind="stable")
    filtered = approach in ("prefilter", "postfilter", "joint_postfilter")
    keep = order[prob[order] < THRESHOLD] if filtered else order
    n_show, n_all = total, len(dids)               # n_all: the length asked for when all of the list is asked
    n_sensitive = int((prob >= THRESHOLD).sum())
    if cutoff == "dynamic":
        n_show, n_all = (dynamic_cutoff(t, n_sensitive, len(dids)) for t in (total, len(dids)))
    elif cutoff == "static":
        n_show, n_all = min(total, learned), learned  # the list ends at the learned length
    elif cutoff == "threshold":
        keep = keep[scores[keep] >= learned]         # only documents scoring at least the learned score
    never = judged_sensitive_among(session, persona, dids)   # every judged-sensitive candidate
    quoting = quoting_judged(session, persona, dids, never)   # candidates quoting one: held back
    kept_ids = [dids[i] for i in keep]
    hidden = never | set(quoting)
    shown = finalize(kept_ids, n_show, hidden, offset)
    shown_set = set(finalize(kept_ids, n_show, hidden))     # this page and the ones before it
    list_ends = offset + len(shown) >= len(finalize(kept_ids, n_all, hidden))   # nothing after this page
    lookup = {d: i for i, d in enumerate(dids)}
    # held back: on this page of the unprotected list, not shown so far, and the classifier is
    # unsure or the document quotes one judged sensitive
    held = [dids[i] for i in order[offset:total] if dids[i] not in shown_set and dids[i] not in never
            and (dids[i] in quoting or UNCERTAIN[0] <= prob[i] <= UNCERTAIN[1])]
    rows = _rows(session, shown + held)

    def hit(rank, d):
        i = lookup[d]
        r = rows.get(d, {})
        return {"rank": rank, "doc_id": d, "score": float(scores[i]), "p_sensitive": float(prob[i]),
                "subject": r.get("subject", ""), "sender": r.get("sender", ""), "date": r.get("date")}

    result = {"query": query, "persona": persona, "approach": approach, "cutoff": cutoff, "k": k,
              "offset": offset, "depth": depth, "beyond_depth": n_matches > depth, "list_ends": list_ends,
              "ranker": (payload or {}).get("ranker", "bm25"), "trained": trained,
              "model_up_to_date": up_to_date,
              "hits": [hit(offset + i + 1, d) for i, d in enumerate(shown)],
              "held_back": [{**hit(i + 1, d), "quotes": quoting.get(d)} for i, d in enumerate(held)]}
    if cutoff == "static":
        result["static_length"] = learned      # (the list never holds more: say so when it is short)
    if read_only_note:
        result["note"] = read_only_note
    if show_withheld:
        result.update(candidates=len(dids), matches=n_matches,
                      withheld_judged_sensitive=sum(1 for d in dids if d in never),
                      withheld_quoting_sensitive=len(quoting))
    result["ms"] = (time.perf_counter() - t0) * 1000.0
    return result


def _check_persona(session, persona: str) -> None:
    from ..project import judgments as J
    known = [p["id"] for p in J.personas(session.store)]
    if persona not in known and not J.sensitivity(session.store, persona):
        raise InputError(f"unknown persona {persona!r}; personas are: " + (", ".join(known) or "(none)"))


def _candidates(session, query: str, depth: int, weights: dict,
                equal_weights: bool) -> tuple[list[tuple[str, float]], object, int]:
    """The first ``depth`` documents the query matches, as plain search matches them (its
    syntax: NOT, -word, field:term, phrases, filters; the project's searched fields), with
    their scores, and the parsed query. ``equal_weights``: scored by BM25F with the searched
    fields weighted alike, as the candidates the rankers were trained on (and their
    whoosh_bm25f feature); else with the project's field weights, plain search's own order.
    A document the index holds but the store does not is left out (plain search never shows one).
    Also how many documents the query matches in all (the depth may cut them)."""
    if equal_weights:
        weights = {f: (1.0 if float(w) > 0 else 0.0) for f, w in weights.items()}
    hits, total, _ms, q = session.index.search(query, limit=depth, weights=weights)
    stored: set[int] = set()
    ids = [h[0] for h in hits]
    for chunk in _chunks(ids):
        marks = ",".join("?" * len(chunk))
        stored.update(r for (r,) in session.store.con.execute(f"SELECT id FROM messages WHERE id IN ({marks})", chunk))
    out: dict[str, float] = {}
    for row_id, doc_id, score in hits:
        if row_id in stored and doc_id not in out:
            out[doc_id] = float(score)
    return list(out.items()), q, int(total)


def _learned_cutoff(payload: Optional[dict], cutoff: str, read_only: bool = False):
    """The ranker's learned static cutoff (an int) or score threshold (a float; -inf: every
    document); an InputError saying why when it has none (never the fixed policy instead)."""
    what = {"static": "the static cutoff policy (a list length learned on validation topics)",
            "threshold": "the threshold cutoff policy (a score threshold learned on validation topics)"}[cutoff]
    value = None if payload is None else payload.get(f"{cutoff}_value")
    if value is not None:
        return int(value) if cutoff == "static" else float(value)
    problem = (payload or {}).get("cutoff_problem") or (
        "the stored ranker was trained before learned cutoffs were kept: train it again"
        if payload is not None else "there is no trained ranker for it"
        + (" (the project is open for reading only, so none can be trained)" if read_only else ""))
    raise InputError(f"cannot search with {what}: {problem}; use the fixed or dynamic policy")


def _rows(session, doc_ids: Sequence[str]) -> dict[str, dict]:
    if not doc_ids:
        return {}
    marks = ",".join("?" * len(doc_ids))
    return {r["doc_id"]: dict(r) for r in session.store.con.execute(
        f"SELECT doc_id, subject, sender, date FROM messages WHERE doc_id IN ({marks})", list(doc_ids))}
