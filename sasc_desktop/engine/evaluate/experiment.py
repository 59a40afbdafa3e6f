"""Cross-validated search-and-protect experiments (Sayed & Oard 2019; dissertation ch. 5-6).

``run_experiment(session, persona, ...)`` builds candidates and features for every judged topic
of a project, splits the topics into ``folds`` rotating folds (3 train / 1 validation / 1 test
for 5 folds), trains the persona's sensitivity classifier without the test fold's documents
(``classifier="learned"``, engine/classify) or uses the true labels (``"oracle"``), trains each
ranker for each protection approach, and scores the test topics' lists with every evaluation
measure. The result is plain data: ``{"results": [{"ranker", "approach", "measure", "mean",
"per_topic": {...}}], "tests": [...], ...}`` (see :func:`run_experiment`).

Approaches: ``relevance`` (relevance features, relevance objective), ``prefilter`` (predicted
sensitive candidates removed before training and ranking), ``postfilter`` (relevance ranking,
predicted sensitive removed), ``demote`` (sensitive training labels set to 0), ``joint``
(sensitivity features + the cost-sensitive objective), ``joint_postfilter``. With
``cluster_replacement`` every approach also appears as ``<approach>+cr``. Cutoff policies:
``fixed`` (k), ``static`` (one cutoff learned on validation), ``dynamic`` (floor(k (1 -
predicted sensitive / candidates)) per query) and ``threshold`` (Carmel et al.: a score threshold
learned on validation maximising nDCG_f).

Which k: every evaluation measure scores lists cut at ITS OWN k (the searcher asked for k
documents): ``fixed`` the first k, ``dynamic`` floor(k (1 - predicted sensitive / candidates)),
``threshold`` the first k whose score reaches the learned threshold, ``static`` the first
min(k, learned length). The objective's k is the relevance rankers' nDCG@k, the longest static
length learned (0..k) and the depth the threshold is learned at; so with ``static`` an
evaluation measure whose k exceeds the objective's is refused (its lists could never be longer
than the objective's k: it would score them as if they were cut at its own k).
"""
from __future__ import annotations

import time
from dataclasses import replace
from typing import Callable, Optional, Sequence

import numpy as np

from ..errors import InputError
from ..progress import Progress
from .measures import Measure
from .judgments import counts_from_levels
from .kernels import work_width
from .registry import parse_measure
from .stats import mean_ci, paired_tests

APPROACHES = ("relevance", "prefilter", "postfilter", "demote", "joint", "joint_postfilter")
CUTOFFS = ("fixed", "static", "dynamic", "threshold")
SENS_THRESHOLD = 0.5


# ------------------------------------------------------------------------ checks
MIN_FOLDS = 3


def _is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def check_depth(depth) -> int:
    """Candidates per topic: an integer >= 1 (0 would silently mean "the default" further down)."""
    if not _is_int(depth) or depth < 1:
        raise InputError(f"depth (candidates per topic) must be an integer of at least 1, got {depth!r}")
    return int(depth)


def check_folds(folds) -> int:
    if not _is_int(folds) or folds < MIN_FOLDS:
        raise InputError(f"folds must be at least {MIN_FOLDS} (each rotation needs a test fold, a validation fold "
                         f"and at least one training fold), got {folds!r}")
    return int(folds)


def check_experiment_numbers(folds=5, depth=200, crossfit=0, ranker_params: Optional[dict] = None) -> None:
    """The numeric options of :func:`run_experiment`, with the reason when one is refused."""
    check_folds(folds)
    check_depth(depth)
    if not _is_int(crossfit) or crossfit < 0 or crossfit == 1:
        raise InputError(f"classifier crossfit must be 0 (off) or at least 2 inner models (one model is what 0 "
                         f"does already), got {crossfit!r}")
    ca = (ranker_params or {}).get("ca") or {}
    for key, what in (("n_restarts", "restarts"), ("n_iter", "iterations")):
        if key in ca and (not _is_int(ca[key]) or ca[key] < 1):
            raise InputError(f"coordinate ascent {what} must be an integer of at least 1, got {ca[key]!r}")


def _check_persona(session, persona: str) -> None:
    from ..classify import check_persona
    check_persona(session, persona)


def _unique_measures(measures) -> list[Measure]:
    """Measures in first-given order, each name once."""
    out: dict[str, Measure] = {}
    for m in measures:
        out.setdefault(m.name, m)
    return list(out.values())


# ------------------------------------------------------------------------ dataset
def build_dataset(session, persona: str, depth: int = 200, extractor=None, progress: Optional[Progress] = None,
                  topic_ids: Optional[Sequence[str]] = None):
    """RankData over every judged topic: candidates (title+description, Whoosh top ``depth``),
    relevance features, metadata in ``meta_`` (attribute of the returned tuple) ...

    Returns ``(data, meta)``: RankData with relevance features (prob unset) and the [N, 4]
    metadata matrix. The pool of a topic is its judged documents plus its candidates (so every
    document that can be shown is inside the measures' bounds). Sensitivity levels (``sens``,
    ``pool_sens``) are >= 0: a document judged "I don't know" (-1) or not judged is level 0."""
    from ..project import judgments as J
    from ..rank.data import RankData
    from ..rank.features import FeatureExtractor, relevance_feature_names
    depth = check_depth(depth)
    _check_persona(session, persona)
    ex = extractor or FeatureExtractor(session, depth=depth)
    qrels = J.qrels(session.store)
    # "I don't know" (-1, under every topic) counts as unjudged, i.e. not sensitive (level 0)
    sens = {d: lvl for d, lvl in J.sensitivity(session.store, persona).items() if lvl > 0}
    topics = [t for t in J.topics(session.store) if t["id"] in qrels and (topic_ids is None or t["id"] in topic_ids)]
    if not topics:
        raise InputError("the project has no topics with relevance judgments: import topics and qrels first")
    Xs, rels, senss, metas, offs, docs, prel, psens, ids = [], [], [], [], [0], [], [], [], []
    for i, t in enumerate(topics):
        if progress:
            progress.update(i, len(topics), f"features for topic {t['id']}")
        cands = ex.candidates(f"{t['title']} {t.get('description', '')}", depth)
        dids = [d for d, _ in cands]
        X = ex.relevance(t["title"], t.get("description", ""), dids, [s for _, s in cands])
        q = qrels[t["id"]]
        Xs.append(X)
        rels.append(np.array([q.get(d, 0) for d in dids], np.int64))
        senss.append(np.array([sens.get(d, 0) for d in dids], np.int64))
        metas.append(ex.metadata(dids))
        offs.append(offs[-1] + len(dids))
        docs.extend(dids)
        pool = list(dict.fromkeys(list(q) + dids))
        prel.append(np.array([max(q.get(d, 0), 0) for d in pool], np.int64))
        psens.append(np.array([sens.get(d, 0) for d in pool], np.int64))
        ids.append(t["id"])
    F = len(relevance_feature_names())
    data = RankData(np.vstack(Xs) if docs else np.zeros((0, F)), np.concatenate(rels), np.concatenate(senss),
                    np.array(offs), tuple(ids), tuple(docs), tuple(prel), tuple(psens), relevance_feature_names())
    meta = np.vstack(metas) if docs else np.zeros((0, 4))
    return data, meta, ex


def with_sensitivity(data, prob: np.ndarray, meta: np.ndarray):
    from ..rank.features import SENS_FEATURES, sensitivity_features
    X = np.hstack([data.X, sensitivity_features(prob, meta)])
    return replace(data, X=X, feature_names=tuple(data.feature_names) + SENS_FEATURES, prob=np.asarray(prob, float))


def folds_for(n_topics: int, n_folds: int = 5, seed: int = 0) -> list[np.ndarray]:
    """``n_folds`` rotating folds of the topics (at most one per topic), shuffled by ``seed``."""
    check_folds(n_folds)
    if n_topics < 3:
        raise InputError(f"an experiment needs at least 3 judged topics (found {n_topics})")
    n_folds = min(n_folds, n_topics)
    order = np.random.default_rng(seed).permutation(n_topics)
    return [np.sort(order[f::n_folds]) for f in range(n_folds)]


# ----------------------------------------------------------------------- scoring lists
def score_lists(measure: Measure, data, lists: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Per-topic values of ``measure`` for ranked lists of local candidate indexes."""
    T = data.n_topics
    k = measure.k
    w = max(work_width(k, max((len(lst) for lst in lists), default=0)), 1)   # a huge k: the lists' length
    R = np.zeros((T, w), np.int64)
    S = np.zeros_like(R)
    lengths = np.zeros(T, np.int64)
    for t, lst in enumerate(lists):
        g = data.group(t)
        lst = np.asarray(lst, int)[:k]
        R[t, : len(lst)] = data.rel[g][lst]
        S[t, : len(lst)] = data.sens[g][lst]
        lengths[t] = len(lst)
    state = measure.prepare_batch(counts_from_levels([np.asarray(r) for r in data.pool_rel],
                                                     [np.asarray(s) for s in data.pool_sens]))
    return measure.score_batch(state, R, S, lengths)


def oracle_probabilities(data) -> np.ndarray:
    return (np.asarray(data.sens) > 0).astype(float)


def learned_probabilities(session, persona: str, train_doc_ids: Sequence[str], doc_ids: Sequence[str], **opts) -> np.ndarray:
    try:
        from ..classify import fit_model
    except ImportError as exc:
        raise InputError("the learned sensitivity classifier (engine/classify) is not available; "
                         "use --classifier oracle") from exc
    model = fit_model(session, persona, list(train_doc_ids), **opts)
    uniq = list(dict.fromkeys(doc_ids))
    p = np.asarray(model.predict_proba_docs(session, uniq), float)
    if p.ndim == 2:
        p = p[:, -1]
    lookup = dict(zip(uniq, p))
    return np.array([lookup[d] for d in doc_ids], float)


def crossfit_probabilities(session, persona: str, base, prob: np.ndarray, train_docs: Sequence[str],
                           test_docs: set, other_topics: np.ndarray, k: int, seed: int,
                           classifier_opts: Optional[dict] = None, skip_unfittable: bool = False) -> np.ndarray:
    """Out-of-fold probabilities for the training and validation topics' candidates.

    The classifier that scores the test topics is trained on every non-test document, so its
    probabilities for those training documents are in-sample (over-confident); a joint ranker
    trained on them learns to trust the probability more than it deserves at test time. Here the
    non-test topics are split into ``k`` groups; each group's candidates are scored by a model
    trained without them (and, as always, without the test fold's documents). Test-topic
    probabilities are unchanged. ``skip_unfittable``: a group whose training documents lack a
    class (InputError from the classifier) keeps the probabilities given, instead of failing."""
    out = np.array(prob, float)
    groups = [np.sort(g) for g in np.array_split(np.random.default_rng(seed).permutation(other_topics), k)]
    done: set = set(test_docs)
    for g in groups:
        held = set()
        for t in g:
            held.update(base.doc_ids[base.group(int(t))])
        held -= set(test_docs)
        if not held:
            continue
        tr = [d for d in train_docs if d not in held]
        held_list = sorted(held)
        try:
            p = learned_probabilities(session, persona, tr, held_list, **(classifier_opts or {}))
        except InputError:
            if not skip_unfittable:
                raise
            continue
        lookup = dict(zip(held_list, p))
        for i, d in enumerate(base.doc_ids):
            if d in lookup and d not in done:
                out[i] = lookup[d]
        done |= held
    return out


# ---------------------------------------------------------------- per-fold approaches
def _topic_lists(data, scores: np.ndarray, keep: Optional[np.ndarray] = None) -> list[np.ndarray]:
    out = []
    for t in range(data.n_topics):
        g = data.group(t)
        s = scores[g]
        order = np.argsort(-s, kind="stable")
        if keep is not None:
            order = order[keep[g][order]]
        out.append(order)
    return out


def approach_lists(approach: str, ranker_factory: Callable, train, valid, test, rel_cols, objective: str,
                   rel_objective: str, cache: dict, threshold: float = SENS_THRESHOLD):
    """Full ranked candidate lists (local indexes, unfiltered length) per test topic, and the
    scores used. ``cache`` shares models between approaches of one fold and ranker."""
    def fit(key, tr, va, cols, obj):
        if key not in cache:
            t0 = time.perf_counter()
            cache[key] = (ranker_factory(obj).fit(tr.with_columns(cols), va.with_columns(cols)), cols)
            cache.setdefault("_times", {})[key] = time.perf_counter() - t0
        return cache[key]

    all_cols = list(range(train.X.shape[1]))
    safe_test = test.prob < threshold
    if approach in ("relevance", "postfilter"):
        model, cols = fit("relevance", train, valid, rel_cols, rel_objective)
        scores = model.predict(test.X[:, cols])
        return _topic_lists(test, scores, safe_test if approach == "postfilter" else None), scores, model, cols
    if approach == "prefilter":
        model, cols = fit("prefilter", train.select_rows(train.prob < threshold),
                          valid.select_rows(valid.prob < threshold), rel_cols, rel_objective)
        scores = model.predict(test.X[:, cols])
        return _topic_lists(test, scores, safe_test), scores, model, cols
    if approach == "demote":
        model, cols = fit("demote", train.demoted(), valid.demoted(), rel_cols, rel_objective)
        scores = model.predict(test.X[:, cols])
        return _topic_lists(test, scores), scores, model, cols
    if approach in ("joint", "joint_postfilter"):
        model, cols = fit("joint", train, valid, all_cols, objective)
        scores = model.predict(test.X[:, cols])
        return _topic_lists(test, scores, safe_test if approach == "joint_postfilter" else None), scores, model, cols
    raise InputError(f"unknown approach {approach!r}; approaches are: {', '.join(APPROACHES)}")


def _cut(lists, lengths):
    return [lst[: int(c)] for lst, c in zip(lists, lengths)]


def apply_cutoff(policy: str, lists, data, k: int, scores=None, learned=None) -> list[np.ndarray]:
    """The lists a searcher asking for ``k`` documents is shown under ``policy`` (each at most
    ``k`` long): ``learned`` is the static length or the score threshold learned on validation."""
    if policy == "fixed":
        return [lst[:k] for lst in lists]
    if policy == "static":
        return [lst[: min(k, learned)] for lst in lists]
    if policy == "dynamic":
        from ..protect.policies import dynamic_cutoff
        out = []
        for t, lst in enumerate(lists):
            g = data.group(t)
            n_pred = int((data.prob[g] >= SENS_THRESHOLD).sum())
            out.append(lst[: dynamic_cutoff(k, n_pred, g.stop - g.start)])
        return out
    if policy == "threshold":
        out = []
        for t, lst in enumerate(lists):
            s = scores[data.group(t)]
            out.append(lst[:k][s[lst[:k]] >= learned])
        return out
    raise InputError(f"unknown cutoff policy {policy!r}; policies are: {', '.join(CUTOFFS)}")


def _clusters_for(ex, data, t, n_clusters=20):
    from sklearn.feature_extraction.text import TfidfVectorizer
    from ..protect.policies import repeated_bisection
    g = data.group(t)
    docs = data.doc_ids[g]
    if len(docs) == 0:
        return np.zeros(0, int)
    toks = [ex._tokens.get(d, {}).get("all", []) or ["_empty_"] for d in docs]
    V = TfidfVectorizer(analyzer=lambda x: x, sublinear_tf=True).fit_transform(toks).toarray()
    return repeated_bisection(V, n_clusters=n_clusters, seed=t)


# ------------------------------------------------------------------------ experiment
def run_experiment(session, persona: str, rankers: Sequence[str] = ("bm25", "ca"),
                   approaches: Sequence[str] = APPROACHES, objective: str = "nCS-DCG@10(cost=12)",
                   eval_measures: Sequence[str] = ("nCS-DCG@10(cost=12)",), classifier: str = "learned",
                   folds: int = 5, cluster_replacement: bool = False, cutoff: str = "fixed",
                   depth: int = 200, seed: int = 0, ranker_params: Optional[dict] = None,
                   classifier_opts: Optional[dict] = None, progress: Optional[Progress] = None,
                   dataset=None, crossfit: int = 0) -> dict:
    """Run the experiment; every option is checked before any work starts.

    ``rankers``, ``approaches`` and ``eval_measures`` may repeat a name: each is used once, in
    the order first given (a measure written two ways, e.g. ``cost=12`` and ``cost=12.0``, is
    one measure). ``folds`` >= 3 (one test, one validation and at least one training fold per
    rotation; more folds than topics means one topic per fold); ``depth`` >= 1; ``crossfit``
    0 (off) or >= 2 (inner models); ``ranker_params["ca"]`` ``n_restarts``/``n_iter`` >= 1.
    ``persona`` must be one of the project's personas, whichever classifier is used.

    Each evaluation measure scores the lists cut at its own k by the ``cutoff`` policy (see the
    module's text; with ``static`` no measure's k may exceed the objective's). A result's
    ``shown_sensitive`` counts the sensitive documents in the lists its measure scored."""
    from ..rank.rankers import RANKERS, check_objective, make_ranker
    from ..protect.policies import cluster_replace, learn_score_threshold, learn_static_cutoff
    obj = check_objective(objective)        # a measure where lower is better is refused (an --eval one is fine)
    measures = _unique_measures(parse_measure(m) for m in eval_measures)
    if not measures:
        raise InputError("give at least one evaluation measure (--eval)")
    k = obj.k
    if cutoff == "static":
        longer = [m.name for m in measures if m.k > k]
        if longer:
            raise InputError(
                f"with the static cutoff the lists are at most the objective's k ({k}) long (the length is learned "
                f"on validation between 0 and {k}), so {', '.join(longer)} would score lists cut shorter than "
                f"its k as if they were not: give an objective with k of at least "
                f"{max(m.k for m in measures)}, or evaluation measures with k of at most {k}")
    rel_objective = f"nDCG@{k}"
    rankers = list(dict.fromkeys(rankers))
    approaches = list(dict.fromkeys(approaches))
    if not rankers:
        raise InputError(f"give at least one ranker; rankers are: {', '.join(RANKERS)}")
    if not approaches:
        raise InputError(f"give at least one approach; approaches are: {', '.join(APPROACHES)}")
    for r in rankers:
        if r not in RANKERS:
            raise InputError(f"unknown ranker {r!r}; rankers are: {', '.join(RANKERS)}")
    for a in approaches:
        if a not in APPROACHES:
            raise InputError(f"unknown approach {a!r}; approaches are: {', '.join(APPROACHES)}")
    if cutoff not in CUTOFFS:
        raise InputError(f"unknown cutoff policy {cutoff!r}; policies are: {', '.join(CUTOFFS)}")
    if classifier not in ("learned", "oracle"):
        raise InputError("classifier must be 'learned' or 'oracle'")
    check_experiment_numbers(folds=folds, depth=depth, crossfit=crossfit, ranker_params=ranker_params)
    _check_persona(session, persona)    # before any work (the oracle classifier would not notice a typo)
    prog = progress or Progress()
    t_start = time.perf_counter()
    if dataset is None:
        dataset = build_dataset(session, persona, depth=depth, progress=prog)
    base, meta, ex = dataset
    rel_cols = list(range(base.X.shape[1]))
    fold_idx = folds_for(base.n_topics, folds, seed)
    nf = len(fold_idx)
    names = [a + s for a in approaches for s in ([""] + (["+cr"] if cluster_replacement else []))]
    per = {(r, a, m.name): {} for r in rankers for a in names for m in measures}
    # score against cutoff: per cutoff c (0 to the first measure's k; no list is longer than
    # depth), the sum of the defined topics' values and how many topics were defined (an
    # undefined topic is left out of the mean, as in "results")
    curve_k = min(measures[0].k, depth)
    curves = {(r, a): np.zeros(curve_k + 1) for r in rankers for a in approaches}
    curve_n = {(r, a): np.zeros(curve_k + 1, np.int64) for r in rankers for a in approaches}
    train_times: dict[str, list[float]] = {}
    # sensitive documents in the lists each measure scored (cut at its own k)
    shown_sensitive = {(r, a, m.name): 0 for r in rankers for a in names for m in measures}
    learned_policy = []
    clusters_cache: dict[int, np.ndarray] = {}
    for f in range(nf):
        prog.check()
        prog.update(f, nf, f"fold {f + 1} of {nf}")
        test_t = fold_idx[f]
        valid_t = fold_idx[(f + 1) % nf]
        train_t = np.sort(np.concatenate([fold_idx[j] for j in range(nf) if j not in (f, (f + 1) % nf)]))
        if classifier == "oracle":
            prob = oracle_probabilities(base)
        else:
            test_docs = set()
            for t in test_t:
                test_docs.update(base.doc_ids[base.group(t)])
            from ..project import judgments as J
            sens_all = J.sensitivity(session.store, persona)
            train_docs = [d for d in sens_all if d not in test_docs]
            extra = [d for d in dict.fromkeys(base.doc_ids) if d not in test_docs and d not in sens_all]
            prob = learned_probabilities(session, persona, train_docs + extra, list(base.doc_ids),
                                         **(classifier_opts or {}))
            if crossfit > 1:
                prob = crossfit_probabilities(session, persona, base, prob, train_docs + extra, test_docs,
                                              np.concatenate([fold_idx[j] for j in range(nf) if j != f]),
                                              crossfit, seed + f, classifier_opts)
        data = with_sensitivity(base, prob, meta)
        train, valid, test = data.subset(train_t), data.subset(valid_t), data.subset(test_t)
        for r in rankers:
            params = dict((ranker_params or {}).get(r, {}))
            factory = lambda o, r=r, params=params: make_ranker(r, objective=o, **params)  # noqa: E731
            cache: dict = {}
            for a in approaches:
                lists, scores, model, cols = approach_lists(a, factory, train, valid, test, rel_cols, objective,
                                                            rel_objective, cache)
                # learn cutoff policies on validation
                learned = None
                if cutoff in ("static", "threshold"):
                    vlists, vscores, _, _ = approach_lists(a, factory, train, valid, valid, rel_cols, objective,
                                                           rel_objective, cache)
                    if cutoff == "static":     # (no list is longer than depth: longer lengths are the same)
                        learned = learn_static_cutoff(
                            lambda c: _mean(score_lists(obj, valid, [l[:c] for l in vlists])), min(k, depth))
                    else:
                        ndcgf = parse_measure(f"nDCG_f@{k}")
                        learned = learn_score_threshold(
                            lambda th: _mean(score_lists(ndcgf, valid, [l[:k][vscores[valid.group(t)][l[:k]] >= th]
                                                                       for t, l in enumerate(vlists)])), vscores)
                    # a threshold of -inf: every document passes ("value" null, "every_document" true)
                    learned_policy.append({"fold": f, "ranker": r, "approach": a, "cutoff": cutoff,
                                           "value": float(learned) if np.isfinite(learned) else None,
                                           "every_document": bool(learned == -np.inf)})
                for c in range(curve_k + 1):
                    vals, ok = score_lists(measures[0], test, [l[:c] for l in lists])
                    curves[(r, a)][c] += float(vals[ok].sum())
                    curve_n[(r, a)][c] += int(ok.sum())
                # the lists each measure scores: as a searcher asking for the measure's k is shown them
                shown_at: dict[int, dict[str, list]] = {}
                for m in measures:
                    if m.k not in shown_at:
                        variants = {a: apply_cutoff(cutoff, lists, test, m.k, scores, learned)}
                        if cluster_replacement:
                            cr = []
                            for t, l in enumerate(lists):
                                gt = int(test_t[t])
                                if gt not in clusters_cache:
                                    clusters_cache[gt] = _clusters_for(ex, base, gt)
                                cut_len = len(variants[a][t])
                                g = test.group(t)
                                cr.append(cluster_replace(l, cut_len, clusters_cache[gt], test.prob[g])
                                          if a not in ("postfilter", "prefilter", "joint_postfilter")
                                          else _cr_filtered(l, cut_len, clusters_cache[gt], test.prob[g]))
                            variants[a + "+cr"] = cr
                        shown_at[m.k] = variants
                    for name, lsts in shown_at[m.k].items():
                        for t, l in enumerate(lsts):
                            shown_sensitive[(r, name, m.name)] += int(
                                (test.sens[test.group(t)][np.asarray(l, int)[:m.k]] > 0).sum())
                        vals, ok = score_lists(m, test, lsts)
                        for t, v, d in zip(test.topics, vals, ok):
                            per[(r, name, m.name)][t] = float(v) if d else None
            for key, sec in cache.get("_times", {}).items():
                train_times.setdefault(f"{r}/{key}", []).append(sec)
    prog.update(nf, nf, "experiment finished")
    results = []
    for (r, a, mname), pt in per.items():
        vals = [v for v in pt.values() if v is not None]
        ci = mean_ci(vals) if len(vals) > 1 else None
        results.append({"ranker": r, "approach": a, "measure": mname,
                        "mean": float(np.mean(vals)) if vals else None,
                        "ci": [ci.low, ci.high] if ci else None, "n_topics": len(vals),
                        "undefined_topics": len(pt) - len(vals),
                        "shown_sensitive": shown_sensitive[(r, a, mname)],
                        "per_topic": dict(sorted(pt.items(), key=lambda kv: (len(kv[0]), kv[0])))})
    tests = []
    for r in rankers:
        for m in measures:
            for a in names:
                for b in names:
                    if a >= b:
                        continue
                    pa, pb = per[(r, a, m.name)], per[(r, b, m.name)]
                    common = [t for t in pa if pa[t] is not None and pb.get(t) is not None]
                    if len(common) < 2:
                        continue
                    pt = paired_tests([pa[t] for t in common], [pb[t] for t in common])
                    tests.append({"ranker": r, "measure": m.name, "a": a, "b": b, "n": pt.n,
                                  "mean_a": pt.mean_a, "mean_b": pt.mean_b, "mean_diff": pt.mean_diff,
                                  "t_p": pt.t_p, "wilcoxon_p": pt.wilcoxon_p, "sign_p": pt.sign_p,
                                  "wins": pt.wins, "losses": pt.losses,
                                  # (each test marked on its own: one column for the t-test only
                                  # read as "not significant" where Wilcoxon said p = 0.038)
                                  **{f"{k}_significant": v for k, v in pt.significant().items()}})
    return {
        "persona": persona, "classifier": classifier, "classifier_crossfit": crossfit if classifier == "learned" else 0,
        "objective": obj.name, "relevance_objective": rel_objective,
        "measures": [m.name for m in measures], "rankers": list(rankers), "approaches": names,
        "cutoff": cutoff, "folds": [[base.topics[t] for t in fi] for fi in fold_idx],
        "n_topics": base.n_topics, "candidates": int(len(base.doc_ids)), "depth": depth,
        "results": results, "tests": tests,
        "cutoff_curves": [{"ranker": r, "approach": a, "measure": measures[0].name,
                           "values": _curve_means(curves[(r, a)], curve_n[(r, a)])}
                          for r in rankers for a in approaches],
        "learned_policies": learned_policy,
        "train_seconds": {k_: float(np.mean(v)) for k_, v in train_times.items()},
        "seconds": time.perf_counter() - t_start,
    }


def _cr_filtered(order, k, clusters, prob):
    """Cluster replacement on a filtered list: replacements never bring back a predicted-sensitive doc."""
    from ..protect.policies import cluster_replace
    p = np.where(np.asarray(prob) >= SENS_THRESHOLD, np.inf, prob)
    return cluster_replace(order, k, clusters, p)


def _curve_means(sums: np.ndarray, counts: np.ndarray) -> list:
    """Mean over the defined topics at each cutoff; None where no topic was defined."""
    return [float(s / n) if n else None for s, n in zip(sums.tolist(), counts.tolist())]


def _mean(res) -> float:
    vals, ok = res
    return float(vals[ok].mean()) if ok.any() else 0.0
