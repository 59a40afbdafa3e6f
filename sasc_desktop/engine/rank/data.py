"""Learning-to-rank data: query groups of candidates with features, grades and sensitivity
levels, plus each topic's judged pool (for the measures' normalisation bounds), and a
vectorised evaluator that scores every topic's top k at once."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Optional, Sequence

import numpy as np

from ..errors import InputError
from ..evaluate import Measure, counts_from_levels


def check_finite_features(X, what: str = "features", feature_names: Sequence[str] = (),
                          offsets: Optional[np.ndarray] = None, topics: Sequence[str] = (),
                          doc_ids: Sequence[str] = ()) -> None:
    """Refuse a feature matrix with a NaN or infinite value: an InputError naming the first one
    (its feature: number from 1 and name when known; its row; its document and topic when known)
    and how many there are. One NaN would otherwise silently turn every score of a linear model
    into NaN (the z-score mean and scale become NaN) and make the trees' library fail."""
    try:
        A = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"{what}: feature values must be numbers") from None
    if A.ndim != 2:
        raise InputError(f"{what}: features must be a [documents, features] table, got shape {A.shape}")
    bad = ~np.isfinite(A)
    if not bad.any():
        return
    rows, cols = np.nonzero(bad)
    r, c = int(rows[0]), int(cols[0])
    name = f" ({feature_names[c]!r})" if c < len(feature_names) else ""
    where = f"row {r + 1}"
    if r < len(doc_ids):
        where = f"document {doc_ids[r]!r} ({where})"
    if offsets is not None and len(topics):
        t = int(np.searchsorted(np.asarray(offsets), r, side="right")) - 1
        if 0 <= t < len(topics):
            where += f" of topic {topics[t]!r}"
    value = "NaN" if np.isnan(A[r, c]) else ("inf" if A[r, c] > 0 else "-inf")
    others = len(rows) - 1
    more = f"; {others} more non-finite value(s) in feature(s) " \
           f"{', '.join(str(j + 1) for j in np.unique(cols)[:10])}{' ...' if len(np.unique(cols)) > 10 else ''}" \
        if others else ""
    raise InputError(f"{what}: feature {c + 1} of {A.shape[1]}{name} is {value} for {where}{more}; "
                     "every feature value must be a finite number")


@dataclass(frozen=True)
class RankData:
    X: np.ndarray                  # [N, F] features
    rel: np.ndarray                # [N] relevance grade
    sens: np.ndarray               # [N] sensitivity level (0 = not sensitive)
    offsets: np.ndarray            # [T + 1] group boundaries (rows of topic t: offsets[t]:offsets[t+1])
    topics: tuple[str, ...]
    doc_ids: tuple[str, ...]
    pool_rel: tuple[np.ndarray, ...]   # per topic: grades of every judged document
    pool_sens: tuple[np.ndarray, ...]  # per topic: levels of every judged document
    feature_names: tuple[str, ...] = ()
    prob: Optional[np.ndarray] = None  # [N] classifier probability of sensitivity (if known)

    def __post_init__(self) -> None:
        self.check_finite()

    def check_finite(self, what: str = "ranking data") -> None:
        """InputError when a feature value (or a sensitivity probability) is NaN or infinite,
        naming the feature, document and topic (see :func:`check_finite_features`)."""
        check_finite_features(self.X, what, self.feature_names, self.offsets, self.topics, self.doc_ids)
        if self.prob is not None:
            p = np.asarray(self.prob, dtype=np.float64)
            bad = np.flatnonzero(~np.isfinite(p))
            if len(bad):
                r = int(bad[0])
                doc = f"document {self.doc_ids[r]!r}" if r < len(self.doc_ids) else f"row {r + 1}"
                raise InputError(f"{what}: the sensitivity probability of {doc} is {p[r]}; "
                                 "probabilities must be finite numbers")

    @property
    def n_topics(self) -> int:
        return len(self.topics)

    def group(self, t: int) -> slice:
        return slice(int(self.offsets[t]), int(self.offsets[t + 1]))

    def subset(self, topic_idx: Sequence[int]) -> "RankData":
        rows = [np.arange(self.offsets[t], self.offsets[t + 1]) for t in topic_idx]
        idx = np.concatenate(rows) if rows else np.zeros(0, int)
        sizes = [len(r) for r in rows]
        return RankData(self.X[idx], self.rel[idx], self.sens[idx], np.concatenate([[0], np.cumsum(sizes)]).astype(int),
                        tuple(self.topics[t] for t in topic_idx), tuple(self.doc_ids[i] for i in idx),
                        tuple(self.pool_rel[t] for t in topic_idx), tuple(self.pool_sens[t] for t in topic_idx),
                        self.feature_names, None if self.prob is None else self.prob[idx])

    def select_rows(self, mask: np.ndarray) -> "RankData":
        """Keep only rows where mask is True (topics stay, possibly empty); pools unchanged."""
        mask = np.asarray(mask, bool)
        sizes = [int(mask[self.group(t)].sum()) for t in range(self.n_topics)]
        return RankData(self.X[mask], self.rel[mask], self.sens[mask], np.concatenate([[0], np.cumsum(sizes)]).astype(int),
                        self.topics, tuple(d for d, m in zip(self.doc_ids, mask) if m), self.pool_rel, self.pool_sens,
                        self.feature_names, None if self.prob is None else self.prob[mask])

    def with_columns(self, cols: Sequence[int]) -> "RankData":
        cols = list(cols)
        return replace(self, X=self.X[:, cols], feature_names=tuple(self.feature_names[c] for c in cols)
                       if self.feature_names else ())

    def with_labels(self, rel: np.ndarray) -> "RankData":
        return replace(self, rel=np.asarray(rel, np.int64))

    def demoted(self) -> "RankData":
        """The "demote" approach's data: a sensitive document (level >= 1; -1, "I don't know",
        keeps its grade) is not relevant, among the candidates and in each topic's pool, so a
        measure's ideal ranking (nDCG's normaliser) is the best one by the demoted grades."""
        return replace(self, rel=np.asarray(self.rel * (self.sens <= 0), np.int64),
                       pool_rel=tuple(np.asarray(r) * (np.asarray(s) <= 0) for r, s in zip(self.pool_rel, self.pool_sens)))


@dataclass
class Evaluator:
    """Scores score-vectors on a RankData with one measure, all topics at once (padded
    [T, W] matrices, top-k by argpartition). Topics on which the measure is undefined are
    skipped; ``mean`` is over defined topics."""

    measure: Measure
    data: RankData
    _state: object = field(init=False, default=None)

    def __post_init__(self) -> None:
        d = self.data
        self.k = self.measure.k
        T = d.n_topics
        sizes = np.diff(d.offsets)
        self.W = max(int(sizes.max()) if T else 0, 1)
        self.sizes = sizes
        self.pos = np.full((T, self.W), -1, dtype=np.int64)  # row index into data, -1 = pad
        for t in range(T):
            self.pos[t, : sizes[t]] = np.arange(d.offsets[t], d.offsets[t + 1])
        self.valid = self.pos >= 0
        self.R = self._gather(d.rel, 0)
        self.S = self._gather(d.sens, 0)
        counts = counts_from_levels([np.asarray(r) for r in d.pool_rel], [np.asarray(s) for s in d.pool_sens]) \
            if T else None
        self.pool_counts = counts
        self._state = self.measure.prepare_batch(counts) if T else None
        _, self.defined = self.per_topic_raw(np.zeros(len(d.rel)))

    def _gather(self, values: np.ndarray, pad):
        """[T, W] matrix of per-row ``values`` (``pad`` where a topic has no candidate)."""
        values = np.asarray(values)
        if len(values) == 0:                  # no candidate in any topic
            return np.full(self.pos.shape, pad, dtype=np.result_type(values.dtype, type(pad)))
        return np.where(self.valid, values[np.maximum(self.pos, 0)], pad)

    def _topk(self, scores: np.ndarray, lengths: Optional[np.ndarray] = None):
        M = self._gather(scores, -np.inf)
        k = min(self.k, self.W)
        # stable tie-break by candidate position (earlier candidate first)
        order = np.argsort(-M, axis=1, kind="stable")[:, :k]
        rows = np.arange(M.shape[0])[:, None]
        R, S = self.R[rows, order], self.S[rows, order]
        shown = np.minimum(self.sizes, k) if lengths is None else np.minimum(np.minimum(self.sizes, k), lengths)
        return R, S, shown

    def per_topic_raw(self, scores: np.ndarray, lengths: Optional[np.ndarray] = None):
        R, S, shown = self._topk(np.asarray(scores, float), lengths)
        return self.measure.score_batch(self._state, R, S, shown)

    def per_topic(self, scores: np.ndarray, lengths: Optional[np.ndarray] = None) -> np.ndarray:
        values, _ = self.per_topic_raw(scores, lengths)
        return values

    def mean(self, scores: np.ndarray, lengths: Optional[np.ndarray] = None) -> float:
        values, defined = self.per_topic_raw(scores, lengths)
        return float(values[defined].mean()) if defined.any() else 0.0

    def value_range(self) -> Optional[tuple[np.ndarray, np.ndarray]]:
        """Per topic, the interval the measure's values lie in (``Measure.value_range``), or
        None when the measure knows none."""
        if self.pool_counts is None:
            return np.zeros(0), np.zeros(0)
        return self.measure.value_range(self.pool_counts)

    def mean_weighted(self, scores: np.ndarray, weights: np.ndarray) -> tuple[float, np.ndarray]:
        values, defined = self.per_topic_raw(scores)
        w = np.where(defined, weights, 0.0)
        return float((values * w).sum() / max(w.sum(), 1e-12)), values

    def swap_deltas(self, scores: np.ndarray, max_cells: int = 1 << 21
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """What swapping two candidates of a topic does to the measure, for every pair.

        ``scores`` ranks each topic's candidates as ``per_topic`` does (descending, ties by
        candidate position). For every pair of candidates of a topic with at least one of them
        in the top k, the exact change ``measure(ranking with the two swapped) - measure(ranking)``,
        computed by the measure itself (``score_batch``: its own normalisation over the topic's
        judged pool, truncation at k, penalties); a pair with both below k changes nothing and
        is not listed. Topics on which the measure is undefined give no pairs.

        Returns ``(upper, lower, delta)``: row indexes into the data of the candidate ranked
        higher now and of the one ranked lower, and the change (float64; 0.0, or a rounding
        error's size, when the swap changes nothing). A negative delta means the current order
        of the two is the better one.

        How: the measure only sees the levels (grade, sensitivity level, both clamped at 0) of
        the top k, so the measure scores, per topic, the ranking and the k x C lists "rank p
        holds a document of class c" (C: the topic set's (grade, level) classes): E[p, c] is
        that list's value minus the ranking's. A swap of rank p (top k) with a rank below k is
        E[p, class below]. A swap of two ranks p, q inside the top k is
          - E[p, class of q] + E[q, class of p] for measures that are a sum over ranks of a term
            depending only on the rank and the document's levels, then scaled per topic
            (DCG, nDCG, CS-DCG, nCS-DCG, nCS-DCG_f, nDCG_min, nDCG_f);
          - 0 for measures of the set of shown documents only (P, TERN, F-docs, Withheld, Empty);
          - SENS: 0 when the ranking shows a sensitive document (-M either way), else as nDCG;
          - any other measure: the swapped list scored as it is (k (k - 1) / 2 more lists).
        Lists are scored in batches of at most ``max_cells`` cells; a topic costs O(k^2 C)
        (O(k^3) for the other measures) plus O(k n) for its pairs.
        """
        scores = np.asarray(scores, float)
        T, W = self.pos.shape
        kw = min(self.k, W)
        empty = (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0))
        if T == 0 or kw == 0 or self._state is None:
            return empty
        family = self.measure.family
        mode = "additive" if family in _ADDITIVE else "set" if family in _SET_ONLY else \
            "sens" if family == "SENS" else "generic"
        M = self._gather(scores, -np.inf)
        order = np.argsort(-M, axis=1, kind="stable")
        rows = np.arange(T)[:, None]
        pos = self.pos[rows, order]                       # data row at each rank, -1 = pad
        R = np.maximum(self.R[rows, order], 0)            # what the measure sees (levels clamped at 0)
        S = np.maximum(self.S[rows, order], 0)
        shown = np.minimum(self.sizes, kw)
        n_lev = int(S.max(initial=0)) + 1
        cls = R * n_lev + S
        classes = np.unique(cls[self.valid])              # every (grade, level) class present
        C = len(classes)
        if C == 0:                                        # no topic has a candidate
            return empty
        ci = np.minimum(np.searchsorted(classes, cls), C - 1)                 # [T, W] class index (pads: any)
        # the lists to score: [0] the ranking; then for each top-k rank p and class c, rank p
        # holding a document of class c; then (other measures) every swap inside the top k
        pi, qi = np.triu_indices(kw, 1)
        swaps = mode == "generic"
        n_lists = 1 + kw * C + (len(pi) if swaps else 0)
        if swaps:
            idx = np.tile(np.arange(kw), (len(pi), 1))
            idx[np.arange(len(pi)), pi] = qi
            idx[np.arange(len(pi)), qi] = pi
        top_R, top_S = R[:, :kw], S[:, :kw]
        eye = np.eye(kw, dtype=bool)[:, None, :]                           # [kw, 1, kw]
        c_R, c_S = (classes // n_lev)[None, :, None], (classes % n_lev)[None, :, None]
        values = np.zeros((T, n_lists))
        defined = np.zeros((T, n_lists), bool)
        st = self._state
        step = max(1, max_cells // max(n_lists * kw, 1))
        for a in range(0, T, step):
            b = min(T, a + step)
            parts_R, parts_S = [], []
            for top, lists, c_lev in ((top_R[a:b], parts_R, c_R), (top_S[a:b], parts_S, c_S)):
                lists.append(top[:, None, :])
                lists.append(np.where(eye[None], c_lev[None], top[:, None, None, :]).reshape(b - a, kw * C, kw))
                if swaps:
                    lists.append(top[:, idx])
            rep = lambda x: np.repeat(np.asarray(x)[a:b], n_lists)        # noqa: E731
            state = type(st)(rep(st.lo), rep(st.hi), rep(st.n_pool), rep(st.extra),
                             None if st.parts is None else tuple(rep(p) for p in st.parts))
            v, d = self.measure.score_batch(state, np.concatenate(parts_R, axis=1).reshape(-1, kw),
                                            np.concatenate(parts_S, axis=1).reshape(-1, kw), rep(shown))
            values[a:b], defined[a:b] = v.reshape(b - a, n_lists), d.reshape(b - a, n_lists)
        ok = defined.all(axis=1)
        delta = values[:, 1:] - values[:, :1]
        E = delta[:, : kw * C].reshape(T, kw, C)
        # pairs inside the top k (both shown)
        in_ok = ok[:, None] & (qi[None, :] < shown[:, None])
        if mode == "generic":
            d1 = delta[:, kw * C:]
        elif mode == "set":
            d1 = np.zeros((T, len(pi)))
        else:
            Ef = E.reshape(T, kw * C)
            d1 = Ef[rows, pi * C + ci[:, qi]] + Ef[rows, qi * C + ci[:, pi]]
            if mode == "sens":
                penalised = ((top_S >= 1) & (np.arange(kw)[None, :] < shown[:, None])).any(axis=1)
                d1 = np.where(penalised[:, None], 0.0, d1)
        up1, lo1, d1 = pos[:, pi][in_ok], pos[:, qi][in_ok], d1[in_ok]
        # a top-k candidate (rank p) and one below k (rank q): rank p holding q's class
        below_valid = np.arange(kw, W)[None, :] < self.sizes[:, None]      # [T, W - kw]
        d2 = np.take_along_axis(E, np.broadcast_to(ci[:, None, kw:], (T, kw, W - kw)), axis=2)
        ok2 = ok[:, None, None] & (np.arange(kw)[None, :, None] < shown[:, None, None]) & below_valid[:, None, :]
        up2 = np.broadcast_to(pos[:, :kw, None], d2.shape)[ok2]
        lo2 = np.broadcast_to(pos[:, None, kw:], d2.shape)[ok2]
        return np.concatenate([up1, up2]), np.concatenate([lo1, lo2]), np.concatenate([d1, d2[ok2]])


# Measure families whose value is a per-topic scaling of a sum over shown ranks of a term that
# depends only on the rank and the document's levels (swap deltas add up, see swap_deltas), and
# those that depend only on the set of shown documents (a swap inside the top k changes nothing).
_ADDITIVE = frozenset({"DCG", "nDCG", "CS-DCG", "nCS-DCG", "nCS-DCG_f", "nDCG_min", "nDCG_f"})
_SET_ONLY = frozenset({"P", "TERN", "F-docs", "Withheld", "Empty"})
