"""Protection building blocks on one topic's candidates (pure numpy, no project needed).

A ranked list is an integer array of candidate indexes in rank order. ``prob`` is the
classifier's probability that each candidate is sensitive; a candidate is *predicted
sensitive* when ``prob >= threshold``.

- :func:`filter_list` -- drop predicted-sensitive candidates (pre- and post-filter).
- :func:`repeated_bisection` -- CLUTO-style repeated bisection (split the largest cluster with
  spherical 2-means until n clusters).
- :func:`cluster_replace` -- replace each shown document by the least-sensitive not yet chosen
  member of its cluster (itself if none is less sensitive; ties keep the better ranked one).
- cutoffs: :func:`dynamic_cutoff` floor(k * (1 - predicted sensitive / candidates)),
  :func:`learn_static_cutoff` and :func:`learn_score_threshold` (Carmel et al.: the score
  threshold that maximises a measure, nDCG_f by default, on validation).
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np


def rank_order(scores: np.ndarray) -> np.ndarray:
    """Candidate indexes by score descending; ties by candidate position."""
    return np.argsort(-np.asarray(scores, float), kind="stable")


def filter_list(order: np.ndarray, prob: np.ndarray, threshold: float = 0.5) -> np.ndarray:
    order = np.asarray(order, int)
    return order[np.asarray(prob, float)[order] < threshold]


def dynamic_cutoff(k: int, n_predicted_sensitive: int, n_candidates: int) -> int:
    """floor(k * (1 - p / n)) for p predicted-sensitive among n candidates, computed exactly in
    integers as (k * (n - p)) // n (the floating-point form fell below the integer: 10 * (1 -
    180/200) = 0.99999...). No candidates: k. p is taken within [0, n], so the cutoff is
    within [0, k] (a negative cutoff would slice from the end of the list)."""
    k, p, n = int(k), int(n_predicted_sensitive), int(n_candidates)
    if n <= 0:
        return k
    p = min(max(p, 0), n)
    return (k * (n - p)) // n


def cluster_replace(order: Sequence[int], k: int, clusters: np.ndarray, prob: np.ndarray) -> np.ndarray:
    """The first k of ``order``, each replaced (at its rank) by the least-sensitive member of its
    cluster not chosen yet; candidates are all members of ``clusters`` (index -> cluster id)."""
    order = [int(i) for i in order]
    clusters = np.asarray(clusters)
    prob = np.asarray(prob, float)
    rank_of = {d: r for r, d in enumerate(order)}
    n = len(clusters)
    # rank for tie-breaking: ranked candidates first in rank order, then by index
    key_rank = np.array([rank_of.get(i, len(order) + i) for i in range(n)])
    chosen: set[int] = set()
    out = []
    for d in order:
        if len(out) >= k:
            break
        members = [m for m in np.flatnonzero(clusters == clusters[d]) if m not in chosen]
        if d in chosen or not members:
            members = [m for m in members if m not in chosen]
            if not members:
                continue
        best = min(members, key=lambda m: (prob[m], key_rank[m]))
        if prob[best] >= prob[d] and d not in chosen:
            best = d
        chosen.add(int(best))
        out.append(int(best))
    return np.array(out, int)


def repeated_bisection(V: np.ndarray, n_clusters: int = 20, seed: int = 0, n_iter: int = 20) -> np.ndarray:
    """Cluster rows of V (e.g. TF-IDF) by repeated bisection: start with one cluster, split the
    largest with spherical 2-means (best of 3 seeds) until n_clusters (or no cluster can be split)."""
    V = np.asarray(V, float)
    n = V.shape[0]
    labels = np.zeros(n, int)
    if n == 0:
        return labels
    norms = np.linalg.norm(V, axis=1, keepdims=True)
    U = V / np.where(norms > 0, norms, 1.0)
    rng = np.random.default_rng(seed)
    n_made = 1
    unsplittable: set[int] = set()
    while n_made < min(n_clusters, n):
        sizes = [(int((labels == c).sum()), c) for c in range(n_made) if c not in unsplittable]
        sizes = [x for x in sizes if x[0] >= 2]
        if not sizes:
            break
        _, c = max(sizes)
        idx = np.flatnonzero(labels == c)
        best_split, best_obj = None, -np.inf
        for _ in range(3):
            a, b = rng.choice(len(idx), 2, replace=False)
            cent = U[idx[[a, b]]]
            for _ in range(n_iter):
                sim = U[idx] @ cent.T
                assign = (sim[:, 1] > sim[:, 0]).astype(int)
                if assign.min() == assign.max():
                    break
                new = np.array([U[idx[assign == j]].sum(0) for j in (0, 1)])
                cent = new / np.maximum(np.linalg.norm(new, axis=1, keepdims=True), 1e-12)
            if assign.min() == assign.max():
                continue
            obj = sum(np.linalg.norm(U[idx[assign == j]].sum(0)) for j in (0, 1))
            if obj > best_obj:
                best_obj, best_split = obj, assign
        if best_split is None:
            # identical rows: split arbitrarily in half so the count is still reached
            best_split = (np.arange(len(idx)) >= len(idx) // 2).astype(int)
        labels[idx[best_split == 1]] = n_made
        n_made += 1
    return labels


def learn_static_cutoff(evaluate: Callable[[int], float], k: int) -> int:
    """The cutoff c in 0..k whose mean validation score ``evaluate(c)`` is highest (smallest c
    on ties... prefer the larger list on ties: c from k down)."""
    best_c, best = k, -np.inf
    for c in range(k, -1, -1):
        v = evaluate(c)
        if v > best + 1e-12:
            best_c, best = c, v
    return best_c


def learn_score_threshold(evaluate: Callable[[float], float], scores: np.ndarray,
                          n_grid: int = 50) -> float:
    """Carmel et al.: the score threshold (show only documents scoring >= it) maximising the
    mean validation score ``evaluate(threshold)``; candidates are score quantiles plus -inf
    (show everything)."""
    scores = np.asarray(scores, float)
    grid = [-np.inf]
    if len(scores):
        grid += list(np.unique(np.quantile(scores, np.linspace(0, 1, n_grid))))
    best_t, best = -np.inf, -np.inf
    for t in grid:
        v = evaluate(t)
        if v > best + 1e-12:
            best_t, best = t, v
    return float(best_t)


def safety_filter(doc_ids: Sequence[str], judged_sensitive: set[str]) -> list[str]:
    """The one place that enforces the product rule: a document a person judged sensitive for
    the persona is never shown, whatever any model says."""
    return [d for d in doc_ids if d not in judged_sensitive]
