"""The measures: frozen, registered, typed objects with a scalar fast path and a batch path.

Every measure object (from :func:`parse_measure` / :func:`make_measure`) offers:

* ``prepare(pool_rel, pool_sens) -> TopicState`` -- once per topic: bounds / ideal from the
  topic's judged pool (grades and sensitivity levels of every judged document);
* ``score_ranked(state, ranked_rel, ranked_sens) -> float | None`` -- O(k): the levels of a
  ranked list (only the first k are used; shorter lists are fine); ``None`` = undefined;
* ``prepare_batch(pool_counts) -> BatchState`` and
  ``score_batch(state, R, S, lengths) -> (values, defined)`` -- the same for T topics at once
  (``R``/``S`` are ``[T, w]`` level matrices, ``lengths`` how many positions each list shows);
* ``score_run(run, judgments) -> {topic: float | None}`` -- a whole run (topic -> docids).

No NaN or infinity is ever returned: an undefined value is ``None`` (scalar) or
``defined == False`` with value 0.0 (batch).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any, ClassVar, Mapping, Sequence

import numpy as np

from .errors import MeasureError
from .judgments import Judgments, counts_from_levels
from .kernels import (EPS, cost_table, cs_dcg_bound_parts, cs_dcg_bounds, discount_slice, discounts,
                      exact_cost_limit, gains, gamma_cs_dcg_bound_parts, gamma_cs_dcg_bounds, normalise,
                      normalise_parts, prefix_dcg, snap_unit)
from .registry import MeasureSpec, ParamSpec, format_value, register


@dataclass(frozen=True, eq=False)
class TopicState:
    """What a measure precomputes for one topic's judged pool (see ``Measure.prepare``).

    ``lo``/``hi``: the normalisation bounds (worst/best, or 0/ideal); ``n_pool``: pool size;
    ``extra``: a measure-specific count (non-sensitive relevant documents for Withheld).
    """

    lo: float
    hi: float
    n_pool: int
    extra: float = 0.0
    # (lo_gain, lo_cost, hi_gain, hi_cost) for cost-sensitive normalised measures: the bounds
    # as gain and cost sums (lo = lo_gain - lo_cost), kept apart so a huge cost cancels exactly
    parts: tuple[float, float, float, float] | None = None


@dataclass(frozen=True, eq=False)
class BatchState:
    """``TopicState`` for T topics at once (arrays of length T)."""

    lo: np.ndarray
    hi: np.ndarray
    n_pool: np.ndarray
    extra: np.ndarray
    parts: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None

    def __len__(self) -> int:
        return len(self.lo)

    def topic(self, i: int) -> TopicState:
        parts = None if self.parts is None else tuple(float(p[i]) for p in self.parts)
        return TopicState(float(self.lo[i]), float(self.hi[i]), int(self.n_pool[i]), float(self.extra[i]), parts)


_ZERO1 = np.zeros(1)
_ZERO1.setflags(write=False)


@lru_cache(maxsize=128)
def _ones(w: int) -> np.ndarray:
    a = np.ones((1, w), dtype=bool)
    a.setflags(write=False)
    return a


def _classes(counts3: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Flatten ``[T, G, L]`` class counts into (counts [T, C], grade [C], level [C])."""
    T, G, L = counts3.shape
    return counts3.reshape(T, G * L), np.repeat(np.arange(G), L), np.tile(np.arange(L), G)


@dataclass(frozen=True)
class Measure:
    """Base of every measure. Build them with ``parse_measure`` / ``make_measure``."""

    SPEC: ClassVar[MeasureSpec]
    # A fixed interval holding every value of the measure (None: none, or see value_range).
    RANGE: ClassVar[tuple[float, float] | None] = None
    # True: evaluate_run's pools also hold every document the run lists (unjudged ones as
    # grade 0, level 0; Judgments.pool_counts(unjudged=True)), so the bounds range over every
    # list a run shows (the sub-list measures, nCS-DCG_f and nDCG_f; sasc experiment's rule)
    LISTED_POOL: ClassVar[bool] = False
    k: int
    params: tuple[tuple[str, Any], ...] = ()
    explicit: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        self._validate()

    def _validate(self) -> None:
        pass

    # ----------------------------------------------------------------------------- naming
    @property
    def family(self) -> str:
        return self.SPEC.name

    @property
    def name(self) -> str:
        """Canonical text, e.g. ``nCS-DCG@10(cost=12)``; parses back to an equal measure."""
        items = [f"{n}={format_value(v)}" for n, v in self.params if n in self.explicit]
        return f"{self.SPEC.name}@{self.k}" + (f"({','.join(items)})" if items else "")

    def __str__(self) -> str:
        return self.name

    def get(self, name: str) -> Any:
        """The value of parameter ``name`` (its default when omitted)."""
        for n, v in self.params:
            if n == name:
                return v
        raise KeyError(name)

    @property
    def param_dict(self) -> dict[str, Any]:
        return dict(self.params)

    @property
    def costs(self) -> tuple[float, ...]:
        """Cost per sensitivity level from level 0 (measures with cost=/costs=)."""
        p = self.param_dict
        if p.get("costs") is not None:
            return tuple(p["costs"])
        if p.get("cost") is not None:
            return (0.0, float(p["cost"]))
        return (0.0,)

    @cached_property
    def _cost_array(self) -> np.ndarray:
        return np.asarray(self.costs, dtype=np.float64)

    def _level_costs(self, S: np.ndarray) -> np.ndarray:
        table = self._cost_array
        return table[np.minimum(S, len(table) - 1)]

    # ------------------------------------------------------------------------ ranges
    def value_range(self, pool_counts: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """Per topic, an interval ``(lo [T], hi [T])`` holding the value of every list of at
        most k documents of the judged pool (class counts as for ``prepare_batch``) -- the
        measure's own scale, used by learners that need values in [0, 1] (AdaRank rescales
        (v - lo) / (hi - lo)). Normalised measures give [0, 1]; values of lists with unjudged
        documents or gaps may still fall outside (clip them). ``None``: no such interval is
        known (a learner then uses the spread of the values it sees)."""
        T = np.asarray(pool_counts).shape[0]
        if self.RANGE is None:
            return None
        return np.full(T, float(self.RANGE[0])), np.full(T, float(self.RANGE[1]))

    # ------------------------------------------------------------------------ hooks
    def _bounds(self, counts3: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        T = counts3.shape[0]
        z = np.zeros(T)
        return z, z, z

    def _evaluate(self, R, S, shown, lo, hi, extra) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError

    def _evaluate_parts(self, R, S, shown, lo, hi, extra, parts, n_terms) -> tuple[np.ndarray, np.ndarray]:
        """``_evaluate`` for measures whose bounds come as gain and cost parts (``parts``:
        (lo_gain, lo_cost, hi_gain, hi_cost) arrays, or None when a state was built without;
        ``n_terms``: at most how many documents any list or pool involved shows)."""
        return self._evaluate(R, S, shown, lo, hi, extra)

    def _normalise_parts(self, raw, parts, n_terms: int, gamma: float = 1.0):
        rg, rc = raw
        lg, lc, hg, hc = parts
        return normalise_parts(rg, rc, lg, lc, hg, hc,
                               exact_cost_limit(tuple(self.costs), float(gamma), int(min(self.k, n_terms))))

    # --------------------------------------------------------------------- batch path
    def prepare_batch(self, pool_counts: np.ndarray) -> BatchState:
        """Precompute for T topics from class counts ``[T, G + 1, L + 1]`` (documents with
        grade g and sensitivity level l in each topic's judged pool; see
        ``Judgments.pool_counts`` and ``counts_from_levels``)."""
        counts3 = np.asarray(pool_counts, dtype=np.int64)
        if counts3.ndim != 3:
            raise MeasureError("pool counts must have shape [topics, grades, levels]")
        lo, hi, extra, *parts = self._bounds(counts3)
        n = counts3.sum(axis=(1, 2))
        parts = tuple(np.asarray(p, float) for p in parts[0]) if parts else None
        return BatchState(np.asarray(lo, float), np.asarray(hi, float), n, np.asarray(extra, float), parts)

    def score_batch(self, state: BatchState | None, ranked_rel, ranked_sens=None, lengths=None
                    ) -> tuple[np.ndarray, np.ndarray]:
        """Score T ranked lists at once.

        ``ranked_rel``/``ranked_sens``: ``[T, w]`` integer levels in rank order (columns past
        k are ignored); ``lengths``: how many positions of each row are shown (default: all
        w). ``state`` comes from ``prepare_batch`` (``None`` is allowed for measures that do
        not use the pool). Returns ``(values [T] float64, defined [T] bool)``; undefined
        values are 0.0, never NaN.
        """
        R = np.asarray(ranked_rel, dtype=np.int64)
        if R.ndim != 2:
            raise MeasureError("ranked_rel must be a [topics, positions] array")
        R = R[:, : self.k]
        T, w = R.shape
        S = np.zeros_like(R) if ranked_sens is None else np.asarray(ranked_sens, dtype=np.int64)[:, : self.k]
        if S.shape != R.shape:
            raise MeasureError("ranked_rel and ranked_sens must have the same shape")
        if lengths is None:
            shown = np.ones((T, w), dtype=bool)
        else:
            shown = np.arange(w)[None, :] < np.asarray(lengths)[:, None]
        R = np.where(shown, np.maximum(R, 0), 0)
        S = np.where(shown, np.maximum(S, 0), 0)
        if state is None:
            if self.SPEC.needs_pool:
                raise MeasureError(f"{self.name} needs the judged pool: pass prepare_batch(...)")
            z = np.zeros(T)
            lo = hi = extra = z
            parts = None
        else:
            if len(state) != T:
                raise MeasureError(f"state has {len(state)} topics but {T} ranked lists were given")
            lo, hi, extra, parts = state.lo, state.hi, state.extra, state.parts
        n_terms = max(int(np.max(state.n_pool, initial=0)) if state is not None else 0, w)
        values, defined = self._evaluate_parts(R, S, shown, lo, hi, extra, parts, n_terms)
        values = self._snapped(np.asarray(values, dtype=np.float64))
        defined = np.asarray(defined, dtype=bool) & np.isfinite(values)
        return np.where(defined, values, 0.0), defined

    # -------------------------------------------------------------------- scalar path
    def prepare(self, pool_rel, pool_sens=None) -> TopicState:
        """Precompute for one topic from the grades (and sensitivity levels) of every
        document in its judged pool. Call once per topic."""
        rel = np.asarray(pool_rel, dtype=np.int64).ravel()
        sens = np.zeros_like(rel) if pool_sens is None else np.asarray(pool_sens, dtype=np.int64).ravel()
        if sens.shape != rel.shape:
            raise MeasureError("pool_rel and pool_sens must have the same length")
        return self.prepare_batch(counts_from_levels([rel], [sens])).topic(0)

    def score_ranked(self, state: TopicState | None, ranked_rel, ranked_sens=None) -> float | None:
        """Score one ranked list from its levels in rank order (O(k); only the first k are
        used; a shorter list shows only its documents; unjudged documents are level 0).
        Returns ``None`` when the measure is undefined on this topic."""
        R = np.asarray(ranked_rel, dtype=np.int64).reshape(1, -1)[:, : self.k]
        if ranked_sens is None:
            S = np.zeros_like(R)
        else:
            S = np.asarray(ranked_sens, dtype=np.int64).reshape(1, -1)[:, : self.k]
            if S.shape != R.shape:
                raise MeasureError("ranked_rel and ranked_sens must have the same length")
        if R.size and (R.min() < 0 or S.min() < 0):
            R, S = np.maximum(R, 0), np.maximum(S, 0)
        if state is None:
            if self.SPEC.needs_pool:
                raise MeasureError(f"{self.name} needs the judged pool: pass prepare(...)")
            lo = hi = extra = _ZERO1
            parts = None
        else:
            lo, hi, extra = np.array([state.lo]), np.array([state.hi]), np.array([state.extra])
            parts = None if state.parts is None else tuple(np.array([p]) for p in state.parts)
        n_terms = max(R.shape[1], state.n_pool if state is not None else 0)
        values, defined = self._evaluate_parts(R, S, _ones(R.shape[1]), lo, hi, extra, parts, n_terms)
        v = float(self._snapped(np.asarray(values, dtype=np.float64))[0])
        return v if bool(defined[0]) and math.isfinite(v) else None

    def score_list(self, ranked_rel, ranked_sens, pool_rel, pool_sens) -> float | None:
        """Convenience: ``score_ranked(prepare(pool...), ranked...)``."""
        return self.score_ranked(self.prepare(pool_rel, pool_sens), ranked_rel, ranked_sens)

    # ----------------------------------------------------------------------- run path
    def score_run(self, run: Mapping[str, Sequence[str]], judgments: Judgments,
                  topics: Sequence[str] | None = None) -> dict[str, float | None]:
        """Score a run (topic -> ranked docids) on every judged topic (or ``topics``)."""
        return evaluate_run([self], run, judgments, topics)[self.name]

    # ------------------------------------------------------------------- helpers
    def _snapped(self, values: np.ndarray) -> np.ndarray:
        """Measures on a [0, 1] scale report the exact worst / best list as exactly 0 / 1
        (within kernels.SNAP, floating-point noise such as -2.96e-16 or 0.9999999999999999)."""
        return snap_unit(values) if self.RANGE == (0.0, 1.0) else values

    def _d(self, w: int) -> np.ndarray:
        return discounts(min(w, self.k))

    @staticmethod
    def _g(R) -> np.ndarray:
        """Gains of grades already clipped at 0 (2^rel - 1)."""
        return np.ldexp(1.0, R) - 1.0

    def _dcg(self, R, shown) -> np.ndarray:
        return (self._g(R) * shown) @ self._d(R.shape[1])

    def _cs_dcg(self, R, S, shown) -> np.ndarray:
        return ((self._g(R) * self._d(R.shape[1]) - self._level_costs(S)) * shown).sum(axis=1)

    def _cs_dcg_parts(self, R, S, shown) -> tuple[np.ndarray, np.ndarray]:
        """CS-DCG as (gain sum, cost sum)."""
        return ((self._g(R) * self._d(R.shape[1])) * shown).sum(axis=1), (self._level_costs(S) * shown).sum(axis=1)

    def _gamma_penalties(self, S, shown, gamma: float) -> np.ndarray:
        sens = (S >= 1) & shown
        above = np.cumsum(sens, axis=1) - sens
        return self._level_costs(S) * np.power(float(gamma), above)

    def _gamma_cs_dcg(self, R, S, shown, gamma: float) -> np.ndarray:
        pen = self._gamma_penalties(S, shown, gamma)
        return ((self._g(R) * self._d(R.shape[1]) - pen) * shown).sum(axis=1)

    def _gamma_cs_dcg_parts(self, R, S, shown, gamma: float) -> tuple[np.ndarray, np.ndarray]:
        """gamma-CS-DCG as (gain sum, cost sum)."""
        pen = self._gamma_penalties(S, shown, gamma)
        return ((self._g(R) * self._d(R.shape[1])) * shown).sum(axis=1), (pen * shown).sum(axis=1)


def listed_gaps(measures: Sequence[Measure]) -> int:
    """How many unjudged listed documents per topic the pools of ``measures`` need (the
    largest k of those with ``LISTED_POOL``; 0 when none has it): ``gaps`` for
    :meth:`Judgments.with_listed`."""
    return max((m.k for m in measures if m.SPEC.needs_pool and m.LISTED_POOL), default=0)


def evaluate_run(measures: Sequence[Measure], run: Mapping[str, Sequence[str]], judgments: Judgments,
                 topics: Sequence[str] | None = None) -> dict[str, dict[str, float | None]]:
    """Score a run on every judged topic for several measures: ``{measure name: {topic: value
    or None}}``. Topics default to ``judgments.topics``; a topic missing from the run is an
    empty list.

    The pools are ``judgments.with_listed([run], listed_gaps(measures))``'s: a document with a
    topic-independent sensitivity judgment that the run lists for a topic is in that topic's
    pool, and for the measures with ``LISTED_POOL`` (nCS-DCG_f, nDCG_f) the unjudged documents
    it lists are too, so these stay in [0, 1] for any list. To compare runs on shared bounds
    pass ``judgments.with_listed(all_runs, listed_gaps(measures))`` (``sasc evaluate`` does)."""
    topics = tuple(judgments.topics if topics is None else topics)
    if not measures:
        return {}
    kmax = max(m.k for m in measures)
    R, S, lengths = judgments.ranked_levels(run, kmax, topics)
    if any(m.SPEC.needs_pool for m in measures):
        judgments = judgments.with_listed([run], listed_gaps(measures))
    out: dict[str, dict[str, float | None]] = {}
    for m in measures:
        state = m.prepare_batch(judgments.pool_counts(topics, m.LISTED_POOL)) if m.SPEC.needs_pool else None
        vals, defined = m.score_batch(state, R[:, : m.k], S[:, : m.k], np.minimum(lengths, m.k))
        out[m.name] = {t: (float(v) if d else None) for t, v, d in zip(topics, vals.tolist(), defined.tolist())}
    return out


# ============================================================================== registration
def _family(name: str, description: str, params: tuple[ParamSpec, ...] = (), normalised: bool = False,
            needs_pool: bool = False, cost_params: bool = False):
    def deco(cls):
        spec = MeasureSpec(name, description, params, normalised, needs_pool, cost_params, factory=cls)
        cls.SPEC = spec
        register(spec)
        return cls
    return deco


COST = ParamSpec("cost", "float", "cost of showing a sensitive document (every level >= 1)", minimum=0.0, example=12.0)
COSTS = ParamSpec("costs", "levels", "cost per sensitivity level from level 0, separated by '/', e.g. 0/6/12",
                  minimum=0.0, example=(0.0, 6.0, 12.0))
GAMMA = ParamSpec("gamma", "float", "factor on the cost of each further sensitive document shown (1 = CS-DCG, 0 = only the first costs)",
                  required=True, minimum=0.0, maximum=1.0, example=0.5)
PENALTY = ParamSpec("M", "float", "penalty when any sensitive document is shown", required=True, minimum=0.0, example=1.0)
FORBIDDEN = ParamSpec("forbidden", "float", "label score of a sensitive document (<= 0)", default=-1.0, maximum=0.0)
GAIN = ParamSpec("gain", "choice", "label score of a non-sensitive document: exp = 2^rel - 1, linear = rel",
                 default="exp", choices=("exp", "linear"))


@_family("P", "Precision at k: relevant (grade >= rel) documents in the top k, divided by k (trec_eval P).",
         (ParamSpec("rel", "int", "minimum grade that counts as relevant", default=1, minimum=1),))
class Precision(Measure):
    RANGE = (0.0, 1.0)

    def _evaluate(self, R, S, shown, lo, hi, extra):
        return ((R >= self.get("rel")) & shown).sum(axis=1) / self.k, np.ones(len(R), bool)


@_family("DCG", "Discounted cumulative gain: sum of (2^rel - 1) / log2(i + 1) over the top k.")
class DCG(Measure):
    def value_range(self, pool_counts):
        counts, rel, _ = _classes(np.asarray(pool_counts, dtype=np.int64))
        hi = prefix_dcg(counts, gains(rel), self.k, True)                    # the ideal DCG@k
        return np.zeros(len(hi)), hi

    def _evaluate(self, R, S, shown, lo, hi, extra):
        return self._dcg(R, shown), np.ones(len(R), bool)


@_family("nDCG", "DCG@k divided by the ideal DCG@k of the judged pool (0 when the ideal is 0, as RankLib).",
         normalised=True, needs_pool=True)
class NDCG(Measure):
    RANGE = (0.0, 1.0)

    def _bounds(self, counts3):
        counts, rel, _ = _classes(counts3)
        hi = prefix_dcg(counts, gains(rel), self.k, True)
        return np.zeros(len(hi)), hi, np.zeros(len(hi))

    def _evaluate(self, R, S, shown, lo, hi, extra):
        dcg = self._dcg(R, shown)
        ok = hi > EPS
        return np.where(ok, dcg / np.where(ok, hi, 1.0), 0.0), np.ones(len(R), bool)


@_family("CS-DCG", "Cost-sensitive DCG: sum over shown positions of (g d - c); cost is not discounted. "
         "Below 0: worse than showing nothing.", (COST, COSTS), cost_params=True)
class CSDCG(Measure):
    def value_range(self, pool_counts):
        """Exact worst and best over every sub-list of at most k judged documents (nCS-DCG_f's)."""
        counts, rel, lev = _classes(np.asarray(pool_counts, dtype=np.int64))
        hi, lo = cs_dcg_bounds(counts, gains(rel), cost_table(self.costs, int(lev.max(initial=0)))[lev], self.k,
                               sublists=True)
        return lo, hi

    def _evaluate(self, R, S, shown, lo, hi, extra):
        return self._cs_dcg(R, S, shown), np.ones(len(R), bool)


@_family("nCS-DCG", "CS-DCG normalised between its exact worst (0) and best (1) over all rankings of the judged "
         "pool that show min(k, n) documents (exact dynamic programme, graded grades and costs). "
         "Undefined when best equals worst. Lists shorter than min(k, n) or with unjudged documents "
         "can score outside [0, 1]; use nCS-DCG_f for systems that may show fewer documents.",
         (COST, COSTS), normalised=True, needs_pool=True, cost_params=True)
class NCSDCG(Measure):
    RANGE = (0.0, 1.0)
    SUBLISTS: ClassVar[bool] = False

    def _bounds(self, counts3):
        counts, rel, lev = _classes(counts3)
        (hg, hc), (lg, lc) = cs_dcg_bound_parts(counts, gains(rel), cost_table(self.costs, int(lev.max(initial=0)))[lev],
                                                self.k, sublists=self.SUBLISTS)
        return lg - lc, hg - hc, np.zeros(len(hg)), (lg, lc, hg, hc)

    def _evaluate(self, R, S, shown, lo, hi, extra):
        return normalise(self._cs_dcg(R, S, shown), lo, hi)

    def _evaluate_parts(self, R, S, shown, lo, hi, extra, parts, n_terms):
        if parts is None:
            return self._evaluate(R, S, shown, lo, hi, extra)
        return self._normalise_parts(self._cs_dcg_parts(R, S, shown), parts, n_terms)


@_family("nCS-DCG_f", "CS-DCG normalised between its exact worst and best over all sub-lists of length <= k of "
         "the pool (including the empty list). Its pool is the topic's judged documents plus every document an "
         "evaluated run lists for the topic (unjudged ones neither relevant nor sensitive; sasc experiment: "
         "every candidate), so it is in [0, 1] for any list a run shows.",
         (COST, COSTS), normalised=True, needs_pool=True, cost_params=True)
class NCSDCGF(NCSDCG):
    SUBLISTS: ClassVar[bool] = True
    LISTED_POOL: ClassVar[bool] = True


@_family("gCS-DCG", "gamma-CS-DCG: sum of (g_i d_i - c_i gamma^s_i), s_i = sensitive documents shown above rank i.",
         (COST, COSTS, GAMMA), cost_params=True)
class GammaCSDCG(Measure):
    def value_range(self, pool_counts):
        """Worst and best over sub-lists of at most k judged documents (exact with equal costs;
        otherwise over rankings in gain order, see ngCS-DCG)."""
        counts, rel, lev = _classes(np.asarray(pool_counts, dtype=np.int64))
        hi, lo = gamma_cs_dcg_bounds(counts, gains(rel), cost_table(self.costs, int(lev.max(initial=0)))[lev],
                                     lev >= 1, self.get("gamma"), self.k, sublists=True)
        return lo, hi

    def _evaluate(self, R, S, shown, lo, hi, extra):
        return self._gamma_cs_dcg(R, S, shown, self.get("gamma")), np.ones(len(R), bool)


@_family("ngCS-DCG", "gamma-CS-DCG normalised between its worst and best over rankings of the judged pool showing "
         "min(k, n) documents. Bounds are EXACT when every sensitive level has the same cost (cost=, or "
         "costs= with equal non-zero levels); with unequal costs they are the best/worst rankings in gain "
         "order (realisable, not guaranteed extreme), see bounds_exact.",
         (COST, COSTS, GAMMA), normalised=True, needs_pool=True, cost_params=True)
class NGammaCSDCG(Measure):
    RANGE = (0.0, 1.0)

    @property
    def bounds_exact(self) -> bool:
        """True when the normalisation bounds are the exact best and worst (equal costs)."""
        return len(set(self.costs[1:])) <= 1

    def _bounds(self, counts3):
        counts, rel, lev = _classes(counts3)
        (hg, hc), (lg, lc) = gamma_cs_dcg_bound_parts(counts, gains(rel),
                                                      cost_table(self.costs, int(lev.max(initial=0)))[lev],
                                                      lev >= 1, self.get("gamma"), self.k)
        return lg - lc, hg - hc, np.zeros(len(hg)), (lg, lc, hg, hc)

    def _evaluate(self, R, S, shown, lo, hi, extra):
        return normalise(self._gamma_cs_dcg(R, S, shown, self.get("gamma")), lo, hi)

    def _evaluate_parts(self, R, S, shown, lo, hi, extra, parts, n_terms):
        if parts is None:
            return self._evaluate(R, S, shown, lo, hi, extra)
        gamma = self.get("gamma")
        return self._normalise_parts(self._gamma_cs_dcg_parts(R, S, shown, gamma), parts, n_terms, gamma)


@_family("TERN", "-M if any sensitive document is in the top k; else 1 if any relevant one is; else 0.", (PENALTY,))
class TERN(Measure):
    def value_range(self, pool_counts):
        T = np.asarray(pool_counts).shape[0]
        return np.full(T, -float(self.get("M"))), np.ones(T)

    def _evaluate(self, R, S, shown, lo, hi, extra):
        any_sens = ((S >= 1) & shown).any(axis=1)
        any_rel = ((R >= 1) & shown).any(axis=1)
        return np.where(any_sens, -self.get("M"), np.where(any_rel, 1.0, 0.0)), np.ones(len(R), bool)


@_family("SENS", "-M if any sensitive document is in the top k; else nDCG@k with the ideal built from the "
         "non-sensitive judged documents only (0 when that ideal is 0).", (PENALTY,), needs_pool=True)
class SENS(Measure):
    def value_range(self, pool_counts):
        T = np.asarray(pool_counts).shape[0]
        return np.full(T, -float(self.get("M"))), np.ones(T)

    def _bounds(self, counts3):
        counts, rel, lev = _classes(counts3)
        hi = prefix_dcg(counts * (lev == 0), gains(rel), self.k, True)
        return np.zeros(len(hi)), hi, np.zeros(len(hi))

    def _evaluate(self, R, S, shown, lo, hi, extra):
        any_sens = ((S >= 1) & shown).any(axis=1)
        dcg = self._dcg(R, shown)
        ok = hi > EPS
        ndcg = np.where(ok, dcg / np.where(ok, hi, 1.0), 0.0)
        return np.where(any_sens, -self.get("M"), ndcg), np.ones(len(R), bool)


class _LabelMeasure(Measure):
    """Label scores: ``forbidden`` for a sensitive document (any level >= 1, whatever its
    grade), else the gain (2^rel - 1, or rel with gain=linear)."""

    RANGE = (0.0, 1.0)

    def _labels(self, rel, lev) -> np.ndarray:
        pos = gains(rel) if self.get("gain") == "exp" else np.maximum(np.asarray(rel, dtype=np.float64), 0.0)
        return np.where(np.asarray(lev) >= 1, float(self.get("forbidden")), pos)

    def _label_dcg(self, R, S, shown) -> np.ndarray:
        return (self._labels(R, S) * shown) @ self._d(R.shape[1])

    def _evaluate(self, R, S, shown, lo, hi, extra):
        return normalise(self._label_dcg(R, S, shown), lo, hi)


@_family("nDCG_min", "Gienapp et al.: DCG of label scores normalised between the worst (labels ascending) and the "
         "ideal (labels descending) ordering of the judged pool, min(k, n) documents each.",
         (FORBIDDEN, GAIN), needs_pool=True)
class NDCGMin(_LabelMeasure):
    def _bounds(self, counts3):
        counts, rel, lev = _classes(counts3)
        labels = self._labels(rel, lev)
        hi = prefix_dcg(counts, labels, self.k, True)
        lo = prefix_dcg(counts, labels, self.k, False)
        return lo, hi, np.zeros(len(hi))


@_family("nDCG_f", "Carmel et al.: DCG of label scores normalised between W_f (the worst list with every positive "
         "document removed) and I_f (the ideal list with every negative document removed) of the pool: the "
         "topic's judged documents plus every document an evaluated run lists for it (so a judged-sensitive "
         "document a run shows is in W_f); in [0, 1] for any list a run shows.", (FORBIDDEN, GAIN), normalised=True, needs_pool=True)
class NDCGF(_LabelMeasure):
    LISTED_POOL: ClassVar[bool] = True

    def _bounds(self, counts3):
        counts, rel, lev = _classes(counts3)
        labels = self._labels(rel, lev)
        hi = prefix_dcg(counts * (labels > 0), labels, self.k, True)
        lo = prefix_dcg(counts * (labels < 0), labels, self.k, False)
        return lo, hi, np.zeros(len(hi))


@_family("O-CS-DCG", "Archivist in the loop: ranks 1..k-ka go to the searcher and score as gamma-CS-DCG; ranks "
         "k-ka+1..k go to the archivist, each costing effort e and, when released (not sensitive), earning "
         "g' d' at its rank. part=total (searcher + gain - effort), searcher, gain, or effort (e x documents "
         "reviewed, reported as a positive number).",
         (ParamSpec("ka", "int", "documents routed to the archivist (the last ka of the top k)", required=True,
                    minimum=0, example=5),
          ParamSpec("effort", "float", "archivist effort per reviewed document, in gain units", required=True,
                    minimum=0.0, example=1.0),
          COST, COSTS,
          ParamSpec("gamma", "float", GAMMA.description, default=1.0, minimum=0.0, maximum=1.0),
          ParamSpec("part", "choice", "which figure to report", default="total",
                    choices=("total", "searcher", "gain", "effort"))),
         cost_params=True)
class OCSDCG(Measure):
    def _validate(self):
        if self.get("ka") > self.k:
            raise MeasureError(f"{self.name}: ka={self.get('ka')} exceeds the cutoff k={self.k}")

    def parts(self, R, S, shown) -> dict[str, np.ndarray]:
        """Per-topic ``searcher``, ``gain``, ``effort`` and ``total`` arrays."""
        ks = self.k - self.get("ka")
        searcher = self._gamma_cs_dcg(R[:, :ks], S[:, :ks], shown[:, :ks], self.get("gamma"))
        Ra, Sa, sa = R[:, ks:], S[:, ks:], shown[:, ks:]
        effort = self.get("effort") * sa.sum(axis=1)
        released = sa & (Sa == 0)
        gain = (gains(Ra) * released) @ discount_slice(ks, ks + Ra.shape[1])
        return {"searcher": searcher, "gain": gain, "effort": effort, "total": searcher + gain - effort}

    def _evaluate(self, R, S, shown, lo, hi, extra):
        return self.parts(R, S, shown)[self.get("part")], np.ones(len(R), bool)


@_family("F-docs", "Share of the shown top-k documents that are sensitive (undefined when nothing is shown).")
class FDocs(Measure):
    RANGE = (0.0, 1.0)

    def _evaluate(self, R, S, shown, lo, hi, extra):
        n = shown.sum(axis=1)
        sens = ((S >= 1) & shown).sum(axis=1)
        return np.where(n > 0, sens / np.maximum(n, 1), 0.0), n > 0


@_family("Withheld", "Share of the non-sensitive relevant documents withheld: 1 - (non-sensitive relevant shown "
         "in the top k) / min(k, non-sensitive relevant in the pool); undefined when the pool has none.",
         needs_pool=True)
class Withheld(Measure):
    RANGE = (0.0, 1.0)

    def _bounds(self, counts3):
        n = counts3[:, 1:, 0].sum(axis=1).astype(np.float64)
        z = np.zeros(len(n))
        return z, z, n

    def _evaluate(self, R, S, shown, lo, hi, extra):
        got = ((R >= 1) & (S == 0) & shown).sum(axis=1)
        denom = np.minimum(extra, self.k)
        ok = denom > 0
        return np.where(ok, np.maximum(0.0, 1.0 - got / np.where(ok, denom, 1.0)), 0.0), ok


@_family("Empty", "1 when the list shows nothing in the top k, else 0 (its mean is the share of topics with "
         "nothing shown).")
class Empty(Measure):
    RANGE = (0.0, 1.0)

    def _evaluate(self, R, S, shown, lo, hi, extra):
        return (shown.sum(axis=1) == 0).astype(np.float64), np.ones(len(R), bool)


@_family("CS-DCG-sign", "+1, 0 or -1: the sign of CS-DCG@k (the dissertation's +/0/- counts).",
         (COST, COSTS), cost_params=True)
class CSDCGSign(Measure):
    RANGE = (-1.0, 1.0)

    def _evaluate(self, R, S, shown, lo, hi, extra):
        v = self._cs_dcg(R, S, shown)
        return np.where(v > EPS, 1.0, np.where(v < -EPS, -1.0, 0.0)), np.ones(len(R), bool)


__all__ = ["Measure", "TopicState", "BatchState", "evaluate_run", "listed_gaps"]
