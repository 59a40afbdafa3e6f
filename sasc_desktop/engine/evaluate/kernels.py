"""Pure numpy kernels behind the measures (no Python loops over documents or topics).

Conventions (see the measures spec): positions i = 1..k, discount d_i = 1/log2(i + 1), gain
g = 2^rel - 1 (negative grades count as 0), cost c = C_level (level 0 = not sensitive).

A topic's judged pool is summarised by *class counts*: documents with the same gain and the
same cost are interchangeable for every bound computed here, so a pool is an integer vector
``counts[c]`` over classes with gain ``gains[c]`` and cost ``costs[c]``. Batch kernels take
``counts`` of shape ``[T, C]`` (T topics) and return one value per topic; there are few classes
(grades x sensitivity levels), so the dynamic programmes below cost O(C k) numpy operations
on [T, k + 1] arrays (O(C k^2) work per topic; O(C k^3) for gamma-CS-DCG, whose state also
counts the sensitive documents shown), independent of the pool size n. Topics are processed in
chunks so that work arrays stay small (``CHUNK_CELLS``).
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

# Two values closer than this (relative to their size) are treated as equal: a normalised
# measure whose best and worst differ by less is undefined on that topic.
EPS = 1e-9


@lru_cache(maxsize=64)
def _discounts(k: int) -> np.ndarray:
    d = 1.0 / np.log2(np.arange(2, k + 2, dtype=np.float64))
    d.setflags(write=False)
    return d


def discounts(k: int) -> np.ndarray:
    """d_1..d_k = 1/log2(i + 1) (read-only, cached)."""
    return _discounts(int(k))


@lru_cache(maxsize=64)
def _cum_discounts(k: int) -> np.ndarray:
    D = np.concatenate(([0.0], np.cumsum(_discounts(k))))
    D.setflags(write=False)
    return D


def cum_discounts(k: int) -> np.ndarray:
    """D[j] = d_1 + ... + d_j for j = 0..k (D[0] = 0)."""
    return _cum_discounts(int(k))


def discount_slice(start: int, stop: int) -> np.ndarray:
    """d_(start+1)..d_stop (the same values as ``discounts(stop)[start:]``) without building the
    first ``start`` (a cutoff may be huge while lists are short)."""
    start, stop = int(start), int(stop)
    if stop <= start:
        return np.zeros(0)
    return 1.0 / np.log2(np.arange(start + 2, stop + 2, dtype=np.float64))


def effective_k(counts: np.ndarray, k: int) -> int:
    """min(k, the largest pool): no ranking of a pool shows more documents than it holds, so
    bounds and ideals at cutoff k equal those at this cutoff (a huge k allocates nothing)."""
    counts = np.asarray(counts)
    n_max = int(counts.sum(axis=1).max(initial=0)) if counts.ndim == 2 and counts.size else 0
    return min(int(k), n_max)


# Arrays whose rows are summed with a discount vector (matrix products) are sized
# min(k, max(needed, WIDTH_FLOOR)): the same shapes as a width of k for every k up to the floor,
# so results stay bit-identical (BLAS sums depend on the vector length, not only on the
# non-zero terms), and bounded by what the lists / pools need for a huge k.
WIDTH_FLOOR = 1024


def work_width(k: int, needed: int) -> int:
    """How many positions to materialise for cutoff k when at most ``needed`` can be non-zero."""
    return min(int(k), max(int(needed), WIDTH_FLOOR))


def gains(rel) -> np.ndarray:
    """g = 2^rel - 1 with negative grades treated as 0."""
    return np.exp2(np.maximum(np.asarray(rel, dtype=np.float64), 0.0)) - 1.0


def cost_table(costs: tuple[float, ...], max_level: int) -> np.ndarray:
    """Cost of every sensitivity level 0..max_level; levels past the table use its last entry."""
    table = np.asarray(costs, dtype=np.float64)
    idx = np.minimum(np.arange(max_level + 1), len(table) - 1)
    return table[idx]


def geometric_costs(gamma: float, k: int) -> np.ndarray:
    """G[s] = gamma^0 + ... + gamma^(s-1) for s = 0..k (G[0] = 0; 0^0 = 1)."""
    return np.concatenate(([0.0], np.cumsum(np.power(float(gamma), np.arange(k, dtype=np.float64)))))


def is_close(a, b) -> np.ndarray:
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    return np.abs(a - b) <= EPS * np.maximum(1.0, np.maximum(np.abs(a), np.abs(b)))


# Work arrays are kept under about this many float64 cells by processing topics in chunks.
CHUNK_CELLS = 4_000_000


def _chunks(T: int, cells_per_topic: int):
    step = max(1, CHUNK_CELLS // max(1, cells_per_topic))
    for start in range(0, T, step):
        yield slice(start, min(T, start + step))


# ----------------------------------------------------------------------- sorted pool prefixes
def sorted_prefix(counts: np.ndarray, values: np.ndarray, k: int, descending: bool
                  ) -> tuple[np.ndarray, np.ndarray]:
    """The first k values of each topic's pool sorted by value.

    ``counts`` [T, C], ``values`` [C]. Returns ``(vals [T, k], valid [T, k])``; positions past
    the pool's size are invalid and hold 0.
    """
    counts = np.asarray(counts)
    values = np.asarray(values, dtype=np.float64)
    T, C = counts.shape
    if C == 0 or k == 0:
        return np.zeros((T, k)), np.zeros((T, k), dtype=bool)
    order = np.argsort(-values if descending else values, kind="stable")
    v = values[order]
    cum = np.cumsum(counts[:, order], axis=1)                      # [T, C]
    pos = np.arange(k)
    idx = np.empty((T, k), dtype=np.int64)
    for sl in _chunks(T, k * C):                                   # class index at each position
        idx[sl] = (cum[sl, None, :] <= pos[None, :, None]).sum(axis=2)
    valid = idx < C
    vals = np.where(valid, v[np.minimum(idx, C - 1)], 0.0)
    return vals, valid


def prefix_dcg(counts: np.ndarray, values: np.ndarray, k: int, descending: bool) -> np.ndarray:
    """DCG@k of each topic's pool sorted by ``values`` (ideal when descending)."""
    k = work_width(k, effective_k(counts, k))
    vals, _ = sorted_prefix(counts, values, k, descending)
    return vals @ discounts(k) if k else np.zeros(len(counts))


# --------------------------------------------------------------------------- exact CS-DCG bounds
def _cs_dcg_table(counts: np.ndarray, gains_: np.ndarray, costs: np.ndarray, k: int,
                  maximize: bool) -> np.ndarray:
    """f[:, j] = best (or worst) sum over positions 1..j of (g d - c) over all ways to show
    exactly j pool documents (+-inf when the pool has fewer than j documents).

    For a fixed set of documents the sum of costs does not depend on the order and, by the
    rearrangement inequality, gain descending maximises (ascending minimises) sum g_i d_i. So
    processing classes in gain order and choosing how many documents t of each class to place
    next (they take consecutive positions) enumerates every candidate set in its extreme order:
    the result is exact.
    """
    T = counts.shape[0]
    D = cum_discounts(k)
    fill = -np.inf if maximize else np.inf
    pick = np.maximum if maximize else np.minimum
    order = np.lexsort((costs, -gains_)) if maximize else np.lexsort((-costs, gains_))
    f = np.full((T, k + 1), fill)
    f[:, 0] = 0.0
    for c in order:
        cnt = counts[:, c]
        tmax = int(min(k, cnt.max(initial=0)))
        if tmax == 0:
            continue
        new = f.copy()
        for t in range(1, tmax + 1):
            add = gains_[c] * (D[t:] - D[: k + 1 - t]) - t * costs[c]    # position j-t -> j
            cand = f[:, : k + 1 - t] + add
            ok = cnt >= t
            if not ok.all():
                cand = np.where(ok[:, None], cand, fill)
            new[:, t:] = pick(new[:, t:], cand)
        f = new
    return f


def cs_dcg_bounds(counts, gains_, costs, k: int, sublists: bool = False
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Exact (best, worst) CS-DCG@k per topic, O(C k^2) vector operations.

    ``sublists=False``: over all rankings of the pool that show min(k, n) documents (nCS-DCG).
    ``sublists=True``: over all rankings of length 0..k (nCS-DCG_f); the empty list (0) counts.
    """
    counts = np.asarray(counts, dtype=np.int64)
    gains_ = np.asarray(gains_, dtype=np.float64)
    costs = np.asarray(costs, dtype=np.float64)
    k = effective_k(counts, k)
    best, worst = np.empty(len(counts)), np.empty(len(counts))
    for sl in _chunks(len(counts), 2 * (k + 1)):
        c = counts[sl]
        hi = _cs_dcg_table(c, gains_, costs, k, True)
        lo = _cs_dcg_table(c, gains_, costs, k, False)
        if sublists:
            best[sl], worst[sl] = hi.max(axis=1), lo.min(axis=1)
        else:
            m = np.minimum(c.sum(axis=1), k)
            rows = np.arange(len(c))
            best[sl], worst[sl] = hi[rows, m], lo[rows, m]
    return best, worst


# ---------------------------------------------------------------------- gamma-CS-DCG bounds
def _gamma_table(counts, gains_, costs, sensitive, k, G, maximize):
    """f[:, j, s]: extreme value of showing j documents, s of them sensitive, with documents
    placed in gain order (ties: cheaper sensitive documents first for the best, dearer first
    for the worst) and the j-th sensitive document shown costing c * gamma^(its index)."""
    T = counts.shape[0]
    D = cum_discounts(k)
    fill = -np.inf if maximize else np.inf
    pick = np.maximum if maximize else np.minimum
    order = np.lexsort((costs, -gains_)) if maximize else np.lexsort((-costs, gains_))
    f = np.full((T, k + 1, k + 1), fill)
    f[:, 0, 0] = 0.0
    for c in order:
        cnt = counts[:, c]
        tmax = int(min(k, cnt.max(initial=0)))
        if tmax == 0:
            continue
        new = f.copy()
        for t in range(1, tmax + 1):
            addj = gains_[c] * (D[t:] - D[: k + 1 - t])                  # [k+1-t]
            ok = (cnt >= t)[:, None, None]
            if sensitive[c]:
                adds = costs[c] * (G[t: k + 1] - G[: k + 1 - t])         # [k+1-t]
                cand = f[:, : k + 1 - t, : k + 1 - t] + addj[None, :, None] - adds[None, None, :]
                cand = np.where(ok, cand, fill)
                new[:, t:, t:] = pick(new[:, t:, t:], cand)
            else:
                cand = f[:, : k + 1 - t, :] + (addj - t * costs[c])[None, :, None]
                cand = np.where(ok, cand, fill)
                new[:, t:, :] = pick(new[:, t:, :], cand)
        f = new
    return f


def gamma_cs_dcg_bounds(counts, gains_, costs, sensitive, gamma: float, k: int,
                        sublists: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(best, worst) gamma-CS-DCG@k per topic.

    Exact when every sensitive class has the same cost (binary sensitivity, or graded levels
    with equal costs): the total cost then depends only on how many sensitive documents are
    shown, and the gain order is optimal for any fixed set. With unequal costs the result is
    the extreme value over rankings *in gain order* (realisable, but another order can be
    better or worse), i.e. ``best <= true best`` and ``worst >= true worst``.
    """
    counts = np.asarray(counts, dtype=np.int64)
    gains_ = np.asarray(gains_, dtype=np.float64)
    costs = np.asarray(costs, dtype=np.float64)
    sensitive = np.asarray(sensitive, dtype=bool)
    k = effective_k(counts, k)
    G = geometric_costs(gamma, k)
    best, worst = np.empty(len(counts)), np.empty(len(counts))
    for sl in _chunks(len(counts), 3 * (k + 1) ** 2):
        c = counts[sl]
        hi = _gamma_table(c, gains_, costs, sensitive, k, G, True).max(axis=2)
        lo = _gamma_table(c, gains_, costs, sensitive, k, G, False).min(axis=2)
        if sublists:
            best[sl], worst[sl] = hi.max(axis=1), lo.min(axis=1)
        else:
            m = np.minimum(c.sum(axis=1), k)
            rows = np.arange(len(c))
            best[sl], worst[sl] = hi[rows, m], lo[rows, m]
    return best, worst


def normalise(raw, lo, hi) -> tuple[np.ndarray, np.ndarray]:
    """(raw - lo) / (hi - lo) and a mask of defined topics (hi and lo not equal)."""
    raw = np.asarray(raw, dtype=np.float64)
    lo = np.asarray(lo, dtype=np.float64)
    hi = np.asarray(hi, dtype=np.float64)
    defined = ~is_close(hi, lo)
    span = np.where(defined, hi - lo, 1.0)
    return np.where(defined, (raw - lo) / span, 0.0), defined
