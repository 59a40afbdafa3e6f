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

import math
from fractions import Fraction
from functools import lru_cache

import numpy as np

# Two values closer than this (relative to their size) are treated as equal: a normalised
# measure whose best and worst differ by less is undefined on that topic. The cost-sensitive
# normalised measures compare gain and cost parts separately (see normalise_parts), so with
# costs whose sums are exact (12, 0/6/12, 1e9, ...) "their size" is that of the gains only and
# a topic stays defined however large the cost.
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


# A value on a [0, 1] scale within this distance of 0 or 1 is reported as exactly 0 or 1: the
# worst or best list, computed in another order of floating-point operations than its bound,
# comes out as e.g. -2.96e-16 or 0.9999999999999999. (A list genuinely within 1e-12 of the
# span from an end -- possible only when costs dwarf gains by about 10**11 -- is reported as
# that end too; the printed 4 decimals could not tell them apart anyway.)
SNAP = 1e-12


def snap_unit(values) -> np.ndarray:
    """Values within :data:`SNAP` of 0 or 1 set to exactly 0.0 or 1.0; others unchanged."""
    v = np.asarray(values, dtype=np.float64)
    v = np.where(np.abs(v) <= SNAP, 0.0, v)
    return np.where(np.abs(v - 1.0) <= SNAP, 1.0, v)


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
# Values are carried as two parts, the gain sum (sum of g d) and the cost sum (sum of c), and
# two values are compared as (g1 - g2) against (c1 - c2). Cost sums of costs like 12 or 1e9 are
# exact in float64, so this stays exact however large the cost: a single float g - c would lose
# the gain's digits once c dominates (at cost 1e9 best and worst of a topic looked equal).


def _pick_pairs(cg, cc, cok, ng, nc, nok, maximize: bool) -> None:
    """Where candidate (cg, cc) is valid and beats the current (ng, nc) (or the current is not
    valid), write it into (ng, nc, nok) in place. Compared as (cg - ng) vs (cc - nc)."""
    dg, dc = cg - ng, cc - nc
    take = cok & (~nok | ((dg > dc) if maximize else (dg < dc)))
    np.copyto(ng, cg, where=take)
    np.copyto(nc, cc, where=take)
    nok |= take


def _reduce_pairs(g, c, ok, maximize: bool, axis: int = -1):
    """The extreme valid (gain, cost) pair along ``axis`` (pair comparison as above)."""
    g, c, ok = (np.moveaxis(a, axis, 0) for a in (g, c, ok))
    bg, bc, bok = g[0].copy(), c[0].copy(), ok[0].copy()
    for i in range(1, g.shape[0]):
        _pick_pairs(g[i], c[i], ok[i], bg, bc, bok, maximize)
    return bg, bc, bok


def _cs_dcg_table(counts: np.ndarray, gains_: np.ndarray, costs: np.ndarray, k: int,
                  maximize: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(fg, fc, ok)[:, j]: gain sum and cost sum of the best (or worst) value of sum over
    positions 1..j of (g d - c) over all ways to show exactly j pool documents; ``ok`` is False
    where the pool has fewer than j documents.

    For a fixed set of documents the sum of costs does not depend on the order and, by the
    rearrangement inequality, gain descending maximises (ascending minimises) sum g_i d_i. So
    processing classes in gain order and choosing how many documents t of each class to place
    next (they take consecutive positions) enumerates every candidate set in its extreme order:
    the result is exact.
    """
    T = counts.shape[0]
    D = cum_discounts(k)
    order = np.lexsort((costs, -gains_)) if maximize else np.lexsort((-costs, gains_))
    fg = np.zeros((T, k + 1))
    fc = np.zeros((T, k + 1))
    ok = np.zeros((T, k + 1), dtype=bool)
    ok[:, 0] = True
    for c in order:
        cnt = counts[:, c]
        tmax = int(min(k, cnt.max(initial=0)))
        if tmax == 0:
            continue
        ng, nc, nok = fg.copy(), fc.copy(), ok.copy()
        for t in range(1, tmax + 1):
            cg = fg[:, : k + 1 - t] + gains_[c] * (D[t:] - D[: k + 1 - t])      # position j-t -> j
            cc = fc[:, : k + 1 - t] + t * costs[c]
            cok = ok[:, : k + 1 - t] & (cnt >= t)[:, None]
            _pick_pairs(cg, cc, cok, ng[:, t:], nc[:, t:], nok[:, t:], maximize)
        fg, fc, ok = ng, nc, nok
    return fg, fc, ok


def _select_bounds(c, hi, lo, k: int, sublists: bool):
    """From (g, c, ok) tables [T, k + 1] (or [T, k + 1, s]), each topic's bound parts."""
    if sublists:
        return _reduce_pairs(*hi, True)[:2], _reduce_pairs(*lo, False)[:2]
    m = np.minimum(c.sum(axis=1), k)
    rows = np.arange(len(c))
    return (hi[0][rows, m], hi[1][rows, m]), (lo[0][rows, m], lo[1][rows, m])


def cs_dcg_bound_parts(counts, gains_, costs, k: int, sublists: bool = False):
    """Exact best and worst CS-DCG@k per topic as (gain sum, cost sum) parts:
    ``((best_gain, best_cost), (worst_gain, worst_cost))``; the value is gain - cost.

    ``sublists=False``: over all rankings of the pool that show min(k, n) documents (nCS-DCG).
    ``sublists=True``: over all rankings of length 0..k (nCS-DCG_f); the empty list (0) counts.
    """
    counts = np.asarray(counts, dtype=np.int64)
    gains_ = np.asarray(gains_, dtype=np.float64)
    costs = np.asarray(costs, dtype=np.float64)
    k = effective_k(counts, k)
    T = len(counts)
    bg, bc, wg, wc = (np.empty(T) for _ in range(4))
    for sl in _chunks(T, 6 * (k + 1)):
        c = counts[sl]
        hi = _cs_dcg_table(c, gains_, costs, k, True)
        lo = _cs_dcg_table(c, gains_, costs, k, False)
        (bg[sl], bc[sl]), (wg[sl], wc[sl]) = _select_bounds(c, hi, lo, k, sublists)
    return (bg, bc), (wg, wc)


def cs_dcg_bounds(counts, gains_, costs, k: int, sublists: bool = False
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Exact (best, worst) CS-DCG@k per topic, O(C k^2) vector operations (see
    :func:`cs_dcg_bound_parts` for the exact parts)."""
    (bg, bc), (wg, wc) = cs_dcg_bound_parts(counts, gains_, costs, k, sublists)
    return bg - bc, wg - wc


# ---------------------------------------------------------------------- gamma-CS-DCG bounds
def _gamma_table(counts, gains_, costs, sensitive, k, G, maximize):
    """(g, c, ok)[:, j, s]: extreme value of showing j documents, s of them sensitive, with
    documents placed in gain order (ties: cheaper sensitive documents first for the best,
    dearer first for the worst) and the j-th sensitive document shown costing
    c * gamma^(its index); as gain and cost parts (see ``_cs_dcg_table``)."""
    T = counts.shape[0]
    D = cum_discounts(k)
    order = np.lexsort((costs, -gains_)) if maximize else np.lexsort((-costs, gains_))
    fg = np.zeros((T, k + 1, k + 1))
    fc = np.zeros((T, k + 1, k + 1))
    ok = np.zeros((T, k + 1, k + 1), dtype=bool)
    ok[:, 0, 0] = True
    for c in order:
        cnt = counts[:, c]
        tmax = int(min(k, cnt.max(initial=0)))
        if tmax == 0:
            continue
        ng, nc, nok = fg.copy(), fc.copy(), ok.copy()
        for t in range(1, tmax + 1):
            addj = gains_[c] * (D[t:] - D[: k + 1 - t])                  # [k+1-t]
            okt = (cnt >= t)[:, None, None]
            if sensitive[c]:
                adds = costs[c] * (G[t: k + 1] - G[: k + 1 - t])         # [k+1-t]
                cg = fg[:, : k + 1 - t, : k + 1 - t] + addj[None, :, None]
                cc = fc[:, : k + 1 - t, : k + 1 - t] + adds[None, None, :]
                cok = ok[:, : k + 1 - t, : k + 1 - t] & okt
                _pick_pairs(cg, cc, cok, ng[:, t:, t:], nc[:, t:, t:], nok[:, t:, t:], maximize)
            else:
                cg = fg[:, : k + 1 - t, :] + addj[None, :, None]
                cc = fc[:, : k + 1 - t, :] + t * costs[c]
                cok = ok[:, : k + 1 - t, :] & okt
                _pick_pairs(cg, cc, cok, ng[:, t:, :], nc[:, t:, :], nok[:, t:, :], maximize)
        fg, fc, ok = ng, nc, nok
    return fg, fc, ok


def gamma_cs_dcg_bound_parts(counts, gains_, costs, sensitive, gamma: float, k: int, sublists: bool = False):
    """(best, worst) gamma-CS-DCG@k per topic as ((gain, cost), (gain, cost)) parts.

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
    T = len(counts)
    bg, bc, wg, wc = (np.empty(T) for _ in range(4))
    for sl in _chunks(T, 8 * (k + 1) ** 2):
        c = counts[sl]
        hi = _reduce_pairs(*_gamma_table(c, gains_, costs, sensitive, k, G, True), True)
        lo = _reduce_pairs(*_gamma_table(c, gains_, costs, sensitive, k, G, False), False)
        (bg[sl], bc[sl]), (wg[sl], wc[sl]) = _select_bounds(c, hi, lo, k, sublists)
    return (bg, bc), (wg, wc)


def gamma_cs_dcg_bounds(counts, gains_, costs, sensitive, gamma: float, k: int,
                        sublists: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(best, worst) gamma-CS-DCG@k per topic (see :func:`gamma_cs_dcg_bound_parts`)."""
    (bg, bc), (wg, wc) = gamma_cs_dcg_bound_parts(counts, gains_, costs, sensitive, gamma, k, sublists)
    return bg - bc, wg - wc


@lru_cache(maxsize=256)
def exact_cost_limit(costs: tuple, gamma: float = 1.0, n_terms: int = 1) -> float | None:
    """A bound L such that every cost (penalty) sum below L is exact in float64, or None when
    no such guarantee holds.

    Penalties are c * gamma^s (s < n_terms; gamma = 1 for CS-DCG). When every cost is a
    multiple of 2^e and gamma is 0, 1 or 2^-a, every penalty, every partial sum and (for the
    bounds) every c * (G[s + t] - G[s]) is a multiple of 2^(e - a (n_terms - 1)); a sum of such
    non-negative terms is exact while it stays below 2^(53 + e - a (n_terms - 1)) (all partial
    sums are smaller). Rounding is monotone, so a computed sum below L means the true one is.
    Costs such as 12, 0.5 or 1e12 qualify; 0.1 does not (it is not a binary fraction)."""
    nonzero = [Fraction(float(c)) for c in costs if float(c) != 0.0]
    if not nonzero:
        return math.inf
    e = min(_two_adic(c) for c in nonzero)
    g = Fraction(float(gamma))
    if g in (0, 1):
        a = 0
    elif g.numerator == 1 and g.denominator & (g.denominator - 1) == 0:
        a = g.denominator.bit_length() - 1
        if a * (max(n_terms, 1) - 1) + 1 > 53:       # G[s] = 1 + gamma + ... must be exact
            return None
    else:
        return None
    return math.ldexp(1.0, min(53 + e - a * (max(n_terms, 1) - 1), 1023))


def _two_adic(x: Fraction) -> int:
    """The exponent of the largest power of 2 dividing the (non-zero) binary fraction x."""
    p, q = abs(x.numerator), x.denominator
    return ((p & -p).bit_length() - 1) - (q.bit_length() - 1)


def normalise_parts(raw_g, raw_c, lo_g, lo_c, hi_g, hi_c, exact_below: float | None = None
                    ) -> tuple[np.ndarray, np.ndarray]:
    """(raw - lo) / (hi - lo) for values given as gain and cost parts, and the mask of defined
    topics. Differences are taken part by part, ((raw_g - lo_g) - (raw_c - lo_c)), so a huge
    cost cancels exactly when the cost sums are exact (below ``exact_below``, see
    :func:`exact_cost_limit`). A topic is undefined when hi - lo is within EPS (relative) of 0
    on the gain parts and, when the cost sums may be rounded, also within EPS of the cost
    parts (the previous rule, kept where exactness is not guaranteed)."""
    raw_g, raw_c, lo_g, lo_c, hi_g, hi_c = (np.asarray(a, dtype=np.float64)
                                            for a in (raw_g, raw_c, lo_g, lo_c, hi_g, hi_c))
    span = (hi_g - lo_g) - (hi_c - lo_c)
    tol = EPS * np.maximum(1.0, np.maximum(np.abs(hi_g), np.abs(lo_g)))
    cmax = np.maximum(np.abs(hi_c), np.abs(lo_c))
    exact = cmax < exact_below if exact_below is not None else np.zeros(cmax.shape, dtype=bool)
    tol = tol + np.where(exact, 0.0, EPS * cmax)
    defined = np.abs(span) > tol
    num = (raw_g - lo_g) - (raw_c - lo_c)
    return np.where(defined, num / np.where(defined, span, 1.0), 0.0), defined


def normalise(raw, lo, hi) -> tuple[np.ndarray, np.ndarray]:
    """(raw - lo) / (hi - lo) and a mask of defined topics (hi and lo not equal)."""
    raw = np.asarray(raw, dtype=np.float64)
    lo = np.asarray(lo, dtype=np.float64)
    hi = np.asarray(hi, dtype=np.float64)
    defined = ~is_close(hi, lo)
    span = np.where(defined, hi - lo, 1.0)
    return np.where(defined, (raw - lo) / span, 0.0), defined
