"""Learning-to-rank data: query groups of candidates with features, grades and sensitivity
levels, plus each topic's judged pool (for the measures' normalisation bounds), and a
vectorised evaluator that scores every topic's top k at once."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Optional, Sequence

import numpy as np

from ..evaluate import Measure, counts_from_levels


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
        self.R = np.where(self.valid, d.rel[np.maximum(self.pos, 0)], 0)
        self.S = np.where(self.valid, d.sens[np.maximum(self.pos, 0)], 0)
        counts = counts_from_levels([np.asarray(r) for r in d.pool_rel], [np.asarray(s) for s in d.pool_sens]) \
            if T else None
        self.pool_counts = counts
        self._state = self.measure.prepare_batch(counts) if T else None
        _, self.defined = self.per_topic_raw(np.zeros(len(d.rel)))

    def _topk(self, scores: np.ndarray, lengths: Optional[np.ndarray] = None):
        M = np.where(self.valid, scores[np.maximum(self.pos, 0)], -np.inf)
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
