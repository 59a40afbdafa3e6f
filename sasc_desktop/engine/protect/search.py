"""Search-and-protect in a project.

``protected_search(session, query, persona, approach, k=10, cutoff="fixed")`` returns the
searcher's list and, separately, the documents held back as too uncertain (for the review
queue). The pipeline: Whoosh candidates -> relevance features -> the persona classifier's
probabilities (engine/classify; trained on first use if the project has none) -> a ranker
trained for the approach on the project's judged topics (stored in ``models/``; BM25 when the
project has no judged topics) -> the approach's filter -> the cutoff policy -> :func:`finalize`.

SAFETY: :func:`finalize` is the one place at the end of the pipeline that removes every
document a person has judged sensitive for the persona; nothing else can put a document into
the searcher's list after it. What "judged sensitive" means is :func:`judged_sensitive` (a level
>= 1 under any topic or a stated reason, on the document or on ANY document sharing its
Message-ID), the one rule every consumer calls.
"""
from __future__ import annotations

import hashlib
import re
import time
from pathlib import Path
from typing import Optional, Sequence

import numpy as np

from ..errors import InputError
from ..progress import Progress
from ..project.modelfile import read_model_file, write_model_file
from .policies import dynamic_cutoff, safety_filter

MODEL_FORMAT = "sasc-protect-ranker"
MODEL_FORMAT_VERSION = 1
PROTECT_APPROACHES = ("relevance", "prefilter", "postfilter", "demote", "joint", "joint_postfilter")
SEARCH_CUTOFFS = ("fixed", "dynamic", "static", "threshold")
THRESHOLD = 0.5
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
      covers every document with that Message-ID.
    "I don't know" (-1) and 0 are not sensitive. The set holds the judged ids themselves
    (stored or not), the Message-IDs they stand for, and every stored document with one of
    those Message-IDs."""
    con = session.store.con
    judged = {d for (d,) in con.execute(
        "SELECT doc_id FROM sensitivity WHERE persona = ? AND level > 0 "
        "UNION SELECT doc_id FROM sensitivity_reasons WHERE persona = ?", (persona, persona))}
    if not judged:
        return set()
    ids = sorted(judged)
    keys = set(judged)                                    # an id not stored stands for its Message-ID
    for chunk in _chunks(ids):
        marks = ",".join("?" * len(chunk))
        keys.update(m for (m,) in con.execute(f"SELECT message_id FROM messages WHERE doc_id IN ({marks})", chunk))
    out = judged | keys
    for chunk in _chunks(sorted(keys)):
        marks = ",".join("?" * len(chunk))
        out.update(d for (d,) in con.execute(f"SELECT doc_id FROM messages WHERE message_id IN ({marks})", chunk))
    return out


def judged_sensitive_among(session, persona: str, doc_ids: Sequence[str]) -> set[str]:
    """``judged_sensitive(session, persona) & set(doc_ids)``, by index lookups only (protected
    search stays interactive at any project size): the candidates' Message-IDs (the doc_id
    index), every document sharing one (the message_id index), then those documents'
    judgments (primary-key lookups per (topic, document) and (persona, document))."""
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
    related: dict[str, set[str]] = {k: {k} for k in key.values()}   # Message-ID -> ids that stand for it
    for chunk in _chunks(sorted(related)):
        marks = ",".join("?" * len(chunk))
        for d, m in con.execute(f"SELECT doc_id, message_id FROM messages WHERE message_id IN ({marks})", chunk):
            related[m].add(d)
    for d in doc_ids:
        related[key[d]].add(d)
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
    if not judged:
        return set()
    hit = {m for m, ids in related.items() if ids & judged}
    return {d for d in doc_ids if key[d] in hit}


def finalize(ranked_doc_ids: Sequence[str], n_show: int, never_show: set[str], offset: int = 0) -> list[str]:
    """The searcher's list: documents ``offset + 1`` to ``n_show`` of ``ranked_doc_ids`` after
    the safety rule removed every document judged sensitive (so a page never holds one, and
    none shifts the pages after it)."""
    return safety_filter(ranked_doc_ids, never_show)[max(0, int(offset)): max(0, int(n_show))]


def _model_path(session, persona: str, approach: str) -> Path:
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", persona)
    digest = hashlib.sha1(persona.encode()).hexdigest()[:8]
    return Path(session.paths.models) / f"protect-{safe}-{digest}-{approach}.pkl"


def _probabilities(session, persona: str, doc_ids: Sequence[str]) -> np.ndarray:
    from ..classify import DEFAULT_KIND, NoModelError, probabilities_for, train
    if not doc_ids:
        return np.zeros(0)
    try:
        return probabilities_for(session, persona, doc_ids)
    except NoModelError:
        train(session, persona, kind=DEFAULT_KIND)  # the same kind the CLI and the app train by default
        return probabilities_for(session, persona, doc_ids)


def train_protection(session, persona: str, approach: str = "joint", ranker: str = "ca",
                     objective: str = "nCS-DCG@10(cost=12)", depth: int = 200,
                     ranker_params: Optional[dict] = None, progress: Optional[Progress] = None) -> dict:
    """Train and store the ranker an approach uses, on every judged topic of the project."""
    from ..evaluate.experiment import build_dataset, with_sensitivity, folds_for
    from ..evaluate.registry import parse_measure
    from ..rank.rankers import make_ranker
    from ..project import judgments as J
    if approach not in PROTECT_APPROACHES:
        raise InputError(f"unknown approach {approach!r}; approaches are: {', '.join(PROTECT_APPROACHES)}")
    session.store.require_writable("the protection model")  # before the training, not after it
    k = parse_measure(objective).k
    t0 = time.perf_counter()
    qrels = J.qrels(session.store)
    payload = {"persona": persona, "approach": approach,
               "ranker": ranker, "objective": objective, "k": k}
    if not qrels:
        payload.update(ranker="bm25", model=None, columns=None, topics=0)
    else:
        base, meta, _ = build_dataset(session, persona, depth=depth, progress=progress)
        data = with_sensitivity(base, _probabilities(session, persona, list(base.doc_ids)), meta)
        F = base.X.shape[1]
        joint = approach in ("joint", "joint_postfilter")
        cols = list(range(data.X.shape[1])) if joint else list(range(F))
        obj = objective if joint else f"nDCG@{k}"
        if approach == "prefilter":
            data = data.select_rows(data.prob < THRESHOLD)
        if approach == "demote":
            data = data.with_labels(data.rel * (data.sens <= 0))   # -1 ("I don't know") keeps its relevance
        folds = folds_for(data.n_topics, 5) if data.n_topics >= 5 else None
        if folds:
            valid_t = folds[0]
            train_t = np.sort(np.concatenate(folds[1:]))
            tr, va = data.subset(train_t), data.subset(valid_t)
        else:
            tr, va = data, None
        model = make_ranker(ranker, objective=obj, **(ranker_params or {}))
        model.fit(tr.with_columns(cols), va.with_columns(cols) if va is not None else None)
        payload.update(model=model, columns=cols, topics=data.n_topics)
    payload["seconds"] = time.perf_counter() - t0
    path = write_model_file(_model_path(session, persona, approach), MODEL_FORMAT, MODEL_FORMAT_VERSION, payload)
    return {k_: v for k_, v in payload.items() if k_ != "model"} | {"path": str(path)}


def load_protection(session, persona: str, approach: str) -> Optional[dict]:
    path = _model_path(session, persona, approach)
    if not path.exists():
        return None
    return read_model_file(path, MODEL_FORMAT, MODEL_FORMAT_VERSION, "ranking model",
                           "delete it and search again: a missing model is retrained")


def protected_search(session, query: str, persona: str, approach: str = "joint", k: int = 10,
                     cutoff: str = "fixed", depth: int = 200, train_if_missing: bool = True,
                     extractor=None, show_withheld: bool = False, offset: int = 0) -> dict:
    """The searcher's list (``hits``) and the uncertain documents held back for review.

    ``offset``: the page after the first ``offset`` documents of the searcher's list: ranks
    ``offset + 1`` to ``offset + k`` of the list ``k = offset + k`` gives (the cutoff policy
    applies to that whole list; at least ``offset + k`` candidates are ranked).

    ``show_withheld``: also return ``candidates`` and ``withheld_judged_sensitive`` (how many
    candidates a person judged sensitive were withheld). Those are the archivist's figures: for
    a narrow query they tell that sensitive mail on it exists, so a searcher's view (``sasc
    search --protect`` without ``--show-withheld``) leaves them out."""
    from ..rank.features import FeatureExtractor, sensitivity_features
    from ..project import judgments as J
    if approach not in PROTECT_APPROACHES:
        raise InputError(f"unknown approach {approach!r}; approaches are: {', '.join(PROTECT_APPROACHES)}")
    if cutoff not in SEARCH_CUTOFFS:
        raise InputError(f"unknown cutoff policy {cutoff!r}; policies are: {', '.join(SEARCH_CUTOFFS)}")
    if persona not in {p["id"] for p in J.personas(session.store)} and not J.sensitivity(session.store, persona):
        raise InputError(f"unknown persona {persona!r}; personas are: "
                         + (", ".join(p["id"] for p in J.personas(session.store)) or "(none)"))
    if k < 1:
        raise InputError("k must be at least 1")
    if offset < 0:
        raise InputError("offset must be 0 or more")
    total = offset + k
    depth = max(depth, total)
    t0 = time.perf_counter()
    payload = load_protection(session, persona, approach)
    if payload is None and train_if_missing:
        train_protection(session, persona, approach)
        payload = load_protection(session, persona, approach)
    ex = extractor or FeatureExtractor(session, depth=depth)
    session.index.parse(query)  # same validation and messages as plain search
    cands = ex.candidates(query, depth)
    dids = [d for d, _ in cands]
    prob = _probabilities(session, persona, dids)
    if not dids:
        scores = np.zeros(0)
    elif payload is None or payload.get("model") is None:
        scores = np.array([s for _, s in cands], float)
    else:
        X = ex.relevance(query, "", dids, [s for _, s in cands])
        X = np.hstack([X, sensitivity_features(prob, ex.metadata(dids))])
        scores = payload["model"].predict(X[:, payload["columns"]])
    order = np.argsort(-scores, kind="stable")
    filtered = approach in ("prefilter", "postfilter", "joint_postfilter")
    keep = order[prob[order] < THRESHOLD] if filtered else order
    n_show = total
    if cutoff == "dynamic":
        n_show = dynamic_cutoff(total, int((prob >= THRESHOLD).sum()), len(dids))
    elif cutoff in ("static", "threshold"):
        learned = (payload or {}).get(f"{cutoff}_value")
        if cutoff == "static" and learned is not None:
            n_show = int(learned)
        elif cutoff == "threshold" and learned is not None:
            keep = keep[scores[keep] >= learned]
    never = judged_sensitive_among(session, persona, dids)   # every judged-sensitive candidate
    shown = finalize([dids[i] for i in keep], n_show, never, offset)
    shown_set = set(finalize([dids[i] for i in keep], n_show, never))     # this page and the ones before it
    lookup = {d: i for i, d in enumerate(dids)}
    # held back: on this page of the unprotected list, not shown so far, and the classifier is unsure
    held = [dids[i] for i in order[offset:total] if dids[i] not in shown_set and dids[i] not in never
            and UNCERTAIN[0] <= prob[i] <= UNCERTAIN[1]]
    rows = _rows(session, shown + held)

    def hit(rank, d):
        i = lookup[d]
        r = rows.get(d, {})
        return {"rank": rank, "doc_id": d, "score": float(scores[i]), "p_sensitive": float(prob[i]),
                "subject": r.get("subject", ""), "sender": r.get("sender", ""), "date": r.get("date")}

    result = {"query": query, "persona": persona, "approach": approach, "cutoff": cutoff, "k": k,
              "offset": offset, "ranker": (payload or {}).get("ranker", "bm25"),
              "hits": [hit(offset + i + 1, d) for i, d in enumerate(shown)],
              "held_back": [hit(i + 1, d) for i, d in enumerate(held)]}
    if show_withheld:
        result.update(candidates=len(dids), withheld_judged_sensitive=sum(1 for d in dids if d in never))
    result["ms"] = (time.perf_counter() - t0) * 1000.0
    return result


def _rows(session, doc_ids: Sequence[str]) -> dict[str, dict]:
    if not doc_ids:
        return {}
    marks = ",".join("?" * len(doc_ids))
    return {r["doc_id"]: dict(r) for r in session.store.con.execute(
        f"SELECT doc_id, subject, sender, date FROM messages WHERE doc_id IN ({marks})", list(doc_ids))}
