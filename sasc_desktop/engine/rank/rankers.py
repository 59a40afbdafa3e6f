"""Rankers sharing one scikit-learn-style contract.

``ranker.fit(train: RankData, valid: RankData | None = None) -> self`` learns (parameters in
``__init__``, learned state in ``name_`` attributes); ``ranker.predict(X) -> scores [N]``.
Listwise rankers (AdaRank, Coordinate Ascent, LambdaMART) take any registered measure where
higher is better as ``objective`` (e.g. ``"nCS-DCG@10(cost=12)"``, ``"TERN@10(M=1)"``; F-docs,
Withheld and Empty are refused: :func:`check_objective`); the validation set picks the best
restart / stopping point. The linear ranker regresses on gain minus cost when the objective has
costs, else on the grades (:class:`LinearRanker`); BM25 learns nothing. ``objective_`` says what
a fitted ranker learned from. ``make_ranker(name, **params)`` builds one from the registry
``RANKERS``.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from ..errors import InputError
from ..evaluate import parse_measure
from ..evaluate.registry import higher_is_better
from ..procpool import process_pool
from .data import Evaluator, RankData, check_finite_features


def check_objective(objective: str):
    """The measure ``objective`` (parsed), to be maximised by a ranker (and by the cutoffs learned
    on validation); an InputError for one where lower is better (F-docs, Withheld, Empty,
    O-CS-DCG's part=effort: ``registry.higher_is_better``): maximising it would learn to show
    more of what it counts. Those stay evaluation measures."""
    m = parse_measure(objective)
    if not higher_is_better(m):
        raise InputError(f"{m.name} cannot be a training objective: lower is better for it, and a ranker (and a "
                         f"cutoff learned on validation) maximises its objective, so it would learn to do worse "
                         f"(e.g. to show more sensitive documents); keep it as an evaluation measure and train on "
                         f"one where higher is better, e.g. nCS-DCG@{m.k}(cost=12)")
    return m


class Ranker:
    """Base of the rankers. After ``fit``, ``objective_`` is the canonical name of the measure the
    model learned from (None: none, e.g. BM25, or the linear ranker on the grades)."""
    name = "ranker"
    needs_objective = False
    objective_: Optional[str] = None

    def get_params(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if not k.endswith("_")}

    def fit(self, train: RankData, valid: Optional[RankData] = None) -> "Ranker":
        raise NotImplementedError

    def predict(self, X: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    # shared input checks: no NaN or infinite feature value goes in (it would silently make
    # every score NaN, or fail inside scikit-learn)
    def _check_fit(self, train: RankData, valid: Optional[RankData] = None) -> None:
        train.check_finite("training data")
        if len(train.rel) == 0:
            raise InputError(f"training data: no topic has a candidate document "
                             f"({train.n_topics} topic(s)); there is nothing to learn from")
        if valid is not None:
            valid.check_finite("validation data")
        self.feature_names_ = tuple(train.feature_names)

    @staticmethod
    def _validation(valid: Optional[RankData], measure) -> Optional[RankData]:
        """The validation data to pick a model with, or None when there is none to learn from:
        no validation data, no validation topic, no candidate row in any of them (every
        model's lists are then the same empty lists: it tells nothing, e.g. a prefilter that
        predicted every validation candidate sensitive), or no topic on which ``measure`` is
        defined (nCS-DCG with nothing relevant and nothing sensitive: every model scores the
        same 0, and LambdaMART kept its first tree, AdaRank its first round)."""
        if valid is None or not valid.n_topics or len(valid.rel) == 0:
            return None
        if not Evaluator(measure, valid).defined.any():
            return None
        return valid

    def _check_predict(self, X) -> np.ndarray:
        check_finite_features(X, "features to score", getattr(self, "feature_names_", ()))
        return np.asarray(X, float)

    # shared z-score normalisation (learned on the training data)
    def _norm_fit(self, X):
        self.mean_ = X.mean(0)
        sd = X.std(0)
        self.scale_ = np.where(sd > 1e-12, sd, 1.0)

    def _norm(self, X):
        return (np.asarray(X, float) - self.mean_) / self.scale_


class BM25Ranker(Ranker):
    """No learning: orders by one feature (by default the title+description BM25 on the
    whole message)."""

    name = "bm25"

    def __init__(self, feature: str = "titledesc:all:bm25"):
        self.feature = feature

    def fit(self, train, valid=None):
        self._check_fit(train, valid)
        names = list(train.feature_names)
        if self.feature not in names:
            raise InputError(f"feature {self.feature!r} is not among the features")
        self.column_ = names.index(self.feature)
        return self

    def predict(self, X):
        return self._check_predict(X)[:, self.column_]


def _cost_sensitive(measure) -> bool:
    """Whether ``measure`` charges for showing a sensitive document by a cost per level (cost= or
    costs=, the CS-DCG family) that is not 0 everywhere."""
    return bool(measure.SPEC.cost_params) and any(c > 0 for c in measure.costs)


class LinearRanker(Ranker):
    """Pointwise ridge regression (on z-scored features) of a target per document:

    - with an objective that has costs (cost= or costs=, the CS-DCG family: nCS-DCG, CS-DCG,
      gCS-DCG, O-CS-DCG, ...; not all 0): what the document adds to CS-DCG at rank 1, its gain
      minus its cost, 2^rel - 1 - c_level (c_0 = 0; c_level from the objective's cost= or
      costs=, so a sensitive document's target is about -cost). The joint approach's linear
      ranker thereby learns, from the sensitivity features, to rank what is likely sensitive
      down, as far as the objective's cost says;
    - otherwise (no objective, nDCG, P, TERN, SENS, a cost of 0 ...): the relevance grades, and
      the objective is not used.
    ``objective_`` is the objective the target came from (None: the grades). Validation data is
    not used."""

    name = "linear"
    needs_objective = True

    def __init__(self, alpha: float = 1.0, objective: Optional[str] = None):
        self.alpha = alpha
        self.objective = objective

    def target(self, data: RankData) -> np.ndarray:
        """The regression target of every row of ``data`` (see the class text)."""
        m = None if self.objective is None else check_objective(self.objective)
        rel = np.asarray(data.rel, float)
        if m is None or not _cost_sensitive(m):
            return rel
        from ..evaluate.kernels import gains
        costs = np.asarray(m.costs, float)
        level = np.clip(np.asarray(data.sens, np.int64), 0, len(costs) - 1)   # -1 ("don't know"): level 0
        return gains(rel) - costs[level]

    def fit(self, train, valid=None):
        self._check_fit(train, valid)
        y = self.target(train)
        m = None if self.objective is None else parse_measure(self.objective)
        self.objective_ = m.name if m is not None and _cost_sensitive(m) else None
        self._norm_fit(train.X)
        Z = self._norm(train.X)
        A = Z.T @ Z + self.alpha * np.eye(Z.shape[1])
        self.coef_ = np.linalg.solve(A, Z.T @ (y - y.mean()))
        return self

    def predict(self, X):
        return self._norm(self._check_predict(X)) @ self.coef_


# ------------------------------------------------------------------ coordinate ascent
def _ca_restart(args):
    Z, data, objective, seed, n_iter, step_base, step_scale, tol, init = args
    ev = Evaluator(parse_measure(objective), data)
    rng = np.random.default_rng(seed)
    F = Z.shape[1]
    if init is None:
        w = np.zeros(F)
        w[rng.integers(F)] = 1.0
        if seed % 2 == 1:
            w = rng.uniform(-1, 1, F) * 0.1 + w
    else:
        w = np.array(init, float)
    s = Z @ w
    best = ev.mean(s)
    while True:
        start = best
        for j in rng.permutation(F):
            col = Z[:, j]
            orig = w[j]
            bw, bval = orig, best
            for direction in (-1.0, 1.0):
                step = step_base * (abs(orig) if orig != 0 else 1.0) * direction
                for _ in range(n_iter):
                    cand = orig + step
                    val = ev.mean(s + (cand - orig) * col)
                    if val > bval + 1e-12:
                        bw, bval = cand, val
                    step *= step_scale
            if bw != orig:
                s = s + (bw - orig) * col
                w[j] = bw
                best = bval
        if best - start < tol:
            break
    norm = np.abs(w).sum()
    return (w / norm if norm > 0 else w), best


class CoordinateAscent(Ranker):
    """Metzler & Croft's Coordinate Ascent with RankLib's defaults (5 random restarts, 25
    step doublings per direction, step base 0.05, scale 2, tolerance 0.001), optimising any
    registered measure; restarts run in parallel processes; the restart best on validation
    (or training when no validation data) wins."""

    name = "ca"
    needs_objective = True

    def __init__(self, objective: str = "nDCG@10", n_restarts: int = 5, n_iter: int = 25,
                 step_base: float = 0.05, step_scale: float = 2.0, tolerance: float = 0.001,
                 n_jobs: int = 2, seed: int = 0):
        self.objective, self.n_restarts, self.n_iter = objective, n_restarts, n_iter
        self.step_base, self.step_scale, self.tolerance = step_base, step_scale, tolerance
        self.n_jobs, self.seed = n_jobs, seed

    def fit(self, train, valid=None):
        self._check_fit(train, valid)
        self.objective_ = check_objective(self.objective).name  # validate early
        self._norm_fit(train.X)
        Z = self._norm(train.X)
        jobs = [(Z, train, self.objective, self.seed * 1000 + r, self.n_iter, self.step_base, self.step_scale,
                 self.tolerance, None) for r in range(self.n_restarts)]
        if self.n_jobs > 1 and self.n_restarts > 1:
            with process_pool(self.n_jobs, method="fork") as ex:
                results = list(ex.map(_ca_restart, jobs))
        else:
            results = [_ca_restart(j) for j in jobs]
        valid = self._validation(valid, parse_measure(self.objective))
        if valid is not None:
            vev = Evaluator(parse_measure(self.objective), valid)
            Zv = self._norm(valid.X)
            scored = [(vev.mean(Zv @ w), tr, w) for w, tr in results]
        else:
            scored = [(tr, tr, w) for w, tr in results]
        best = max(range(len(scored)), key=lambda i: (scored[i][0], scored[i][1]))
        self.coef_ = scored[best][2]
        self.train_score_ = scored[best][1]
        self.restart_scores_ = [(float(a), float(b)) for a, b, _ in scored]
        return self

    def predict(self, X):
        return self._norm(self._check_predict(X)) @ self.coef_


def _unit_scaler(lo: np.ndarray, hi: np.ndarray):
    """v -> clip((v - lo) / (hi - lo), 0, 1) per topic; 0 on topics where hi <= lo (every
    list scores the same there). With lo = 0 and hi = 1 it is exactly clip(v, 0, 1)."""
    lo = np.asarray(lo, float)
    hi = np.asarray(hi, float)
    ok = hi > lo
    span = np.where(ok, hi - lo, 1.0)

    def scale(v):
        return np.where(ok, np.clip((np.asarray(v, float) - lo) / span, 0.0, 1.0), 0.0)
    return scale


class AdaRank(Ranker):
    """Xu & Li's AdaRank with single features as weak rankers; any measure as objective;
    validation picks the number of rounds.

    AdaRank needs per-topic performance in [0, 1]. Each topic's values are rescaled to the
    measure's own interval for that topic (``Measure.value_range``: [0, 1] for normalised
    measures, [0, ideal] for DCG, the exact worst..best over sub-lists for CS-DCG and
    gCS-DCG, [-M, 1] for TERN and SENS), or, for a measure without one (O-CS-DCG), to the
    spread of the weak rankers' values on that topic; then clipped to [0, 1]. (Plain clipping
    made every topic with DCG or CS-DCG >= 1 look perfect and TERN's -M look like 0.)

    Only training topics where the objective is defined take part (``Evaluator.defined``: e.g.
    nCS-DCG on a topic with nothing relevant and nothing sensitive); ``value_range_`` holds
    their intervals. With no such topic there is nothing to learn and ``coef_`` is all 0."""

    name = "adarank"
    needs_objective = True

    def __init__(self, objective: str = "nDCG@10", n_rounds: int = 50, tolerance: float = 0.002,
                 max_selections: int = 5):
        self.objective, self.n_rounds, self.tolerance, self.max_selections = objective, n_rounds, tolerance, max_selections

    def fit(self, train, valid=None):
        self._check_fit(train, valid)
        m = check_objective(self.objective)
        self.objective_ = m.name
        self._norm_fit(train.X)
        Z = self._norm(train.X)
        ev = Evaluator(m, train)
        # only topics where the measure is defined take part (per_topic gives 0 elsewhere, which
        # would weigh in as a real score of 0)
        defined = np.asarray(ev.defined, bool)
        T = int(defined.sum())
        P = np.full(T, 1.0 / max(T, 1))
        # per-feature per-topic performance, rescaled to [0, 1] per topic
        raw = np.array([ev.per_topic(Z[:, j])[defined] for j in range(Z.shape[1])]).reshape(Z.shape[1], T)  # [F, T]
        bounds = ev.value_range()
        if bounds is None:
            bounds = (raw.min(axis=0, initial=np.inf), raw.max(axis=0, initial=-np.inf))
        else:
            bounds = (np.asarray(bounds[0], float)[defined], np.asarray(bounds[1], float)[defined])
        scale = _unit_scaler(*bounds)
        self.value_range_ = (np.asarray(bounds[0], float), np.asarray(bounds[1], float))
        perf = scale(raw)
        w = np.zeros(Z.shape[1])
        used = np.zeros(Z.shape[1], int)
        valid = self._validation(valid, m)
        vev = Evaluator(m, valid) if valid is not None else None
        Zv = self._norm(valid.X) if vev else None
        history, best_score, best_w = [], -np.inf, w.copy()
        prev = -np.inf
        for _ in range(self.n_rounds):
            cand = perf @ P
            cand[used >= self.max_selections] = -np.inf
            j = int(np.argmax(cand))
            e = perf[j]
            num, den = (P * (1 + e)).sum(), (P * (1 - e)).sum()
            alpha = 0.5 * np.log(max(num, 1e-12) / max(den, 1e-12))
            w[j] += alpha
            used[j] += 1
            values = scale(ev.per_topic(Z @ w)[defined])
            P = np.exp(-values)
            P /= P.sum()
            score = vev.mean(Zv @ w) if vev else ev.mean(Z @ w)
            history.append(score)
            if score > best_score:
                best_score, best_w = score, w.copy()
            cur = ev.mean(Z @ w)
            if abs(cur - prev) < self.tolerance:
                break
            prev = cur
        self.coef_ = best_w
        self.history_ = history
        return self

    def predict(self, X):
        return self._norm(self._check_predict(X)) @ self.coef_


class LambdaMART(Ranker):
    """LambdaMART (pairwise lambda gradients, regression trees from scikit-learn, Newton leaf
    values) for any registered measure as objective; validation picks the number of trees.

    At every iteration each pair of a topic's candidates with at least one in the current top k
    has weight |delta| = what swapping the two in the current ranking changes the objective, as
    the measure itself computes it (its normalisation over the topic's judged pool, truncation
    at k, costs that are not discounted, TERN's and SENS's penalty for any shown sensitive
    document; ``Evaluator.swap_deltas``), and is pulled towards the order the measure prefers
    (the upper one stays up when the swap lowers the measure). Pairs whose swap changes nothing
    (both below k, equal levels, a second sensitive document in a list already penalised) and
    topics where the measure is undefined teach nothing. Gradient: RankLib's (sigma = 1),
    lambda = |delta| / (1 + exp(s_winner - s_loser))."""

    name = "lambdamart"
    needs_objective = True

    def __init__(self, objective: str = "nDCG@10", n_trees: int = 100, learning_rate: float = 0.1,
                 max_leaf_nodes: int = 10, min_samples_leaf: int = 5, seed: int = 0):
        self.objective, self.n_trees, self.learning_rate = objective, n_trees, learning_rate
        self.max_leaf_nodes, self.min_samples_leaf, self.seed = max_leaf_nodes, min_samples_leaf, seed

    @staticmethod
    def lambdas(ev: Evaluator, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per-row lambda (positive = pull up) and its Hessian weight for the ranking
        ``scores`` gives, from the exact swap deltas of ``ev``'s measure."""
        N = len(scores)
        upper, lower, delta = ev.swap_deltas(scores)
        keep = delta != 0.0
        upper, lower, delta = upper[keep], lower[keep], delta[keep]
        better_below = delta > 0                    # swapping them raises the measure
        win = np.where(better_below, lower, upper)
        lose = np.where(better_below, upper, lower)
        w = np.abs(delta)
        rho = 1.0 / (1.0 + np.exp(np.clip(scores[win] - scores[lose], -50, 50)))
        lw, hw = w * rho, w * rho * (1.0 - rho)
        lam = np.bincount(win, lw, N) - np.bincount(lose, lw, N)
        hess = np.bincount(win, hw, N) + np.bincount(lose, hw, N)
        return lam, hess

    def fit(self, train, valid=None):
        self._check_fit(train, valid)
        from sklearn.tree import DecisionTreeRegressor
        m = check_objective(self.objective)
        self.objective_ = m.name
        X = np.asarray(train.X, float)
        ev = Evaluator(m, train)
        F = np.zeros(len(train.rel))
        self.trees_ = []
        valid = self._validation(valid, m)
        vev = Evaluator(m, valid) if valid is not None else None
        Xv = np.asarray(valid.X, float) if vev else None
        Fv = np.zeros(len(valid.rel)) if vev else None
        best, best_n, self.history_ = -np.inf, 0, []
        for it in range(self.n_trees):
            lam, hess = self.lambdas(ev, F)
            tree = DecisionTreeRegressor(max_leaf_nodes=self.max_leaf_nodes, min_samples_leaf=self.min_samples_leaf,
                                         random_state=self.seed + it)
            tree.fit(X, lam)
            leaves = tree.apply(X)
            ids, inv = np.unique(leaves, return_inverse=True)
            step = np.bincount(inv, lam) / np.maximum(np.bincount(inv, hess), 1e-9)
            values = dict(zip(ids.tolist(), step.tolist()))
            self.trees_.append((tree, values))
            F += self.learning_rate * step[inv]
            score = vev.mean(Fv := Fv + self.learning_rate * self._tree_predict(tree, values, Xv)) if vev \
                else ev.mean(F) if it == self.n_trees - 1 else 0.0
            self.history_.append(score)
            if vev and score > best:
                best, best_n = score, it + 1
        self.n_used_ = best_n if vev else len(self.trees_)
        return self

    @staticmethod
    def _tree_predict(tree, values, X):
        if len(X) == 0:                  # (scikit-learn refuses 0 rows)
            return np.zeros(0)
        leaves = tree.apply(X)
        table = np.zeros(tree.tree_.node_count)
        table[list(values)] = list(values.values())
        return table[leaves]

    def predict(self, X):
        X = self._check_predict(X)
        out = np.zeros(len(X))
        for tree, values in self.trees_[: self.n_used_]:
            out += self.learning_rate * self._tree_predict(tree, values, X)
        return out


RANKERS = {c.name: c for c in (BM25Ranker, LinearRanker, LambdaMART, AdaRank, CoordinateAscent)}


def make_ranker(name: str, objective: Optional[str] = None, **params) -> Ranker:
    cls = RANKERS.get(name)
    if cls is None:
        raise InputError(f"unknown ranker {name!r}; rankers are: {', '.join(RANKERS)}")
    if objective is not None:
        check_objective(objective)      # whatever the ranker: the learned cutoffs maximise it too
        if cls.needs_objective:
            params["objective"] = objective
    return cls(**params)
