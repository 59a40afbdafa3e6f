"""The sensitivity classifier: a scikit-learn style estimator on the feature matrix.

``SensitivityClassifier(kind="lr" | "svm" | "or")``: logistic regression (default), a linear SVM,
or the dissertation's "or" combination (sensitive when either model says so: the larger of the
two calibrated probabilities, recalibrated, which keeps its ranking; out-of-fold expected
calibration error on enron-categories-dev 0.042 -> 0.035, demo John Snibert 0.045 -> 0.041). ``fit`` chooses C by inner stratified cross-validation (average
precision) when ``C`` is None, calibrates each model with Platt scaling on its inner
out-of-fold scores, and picks the decision threshold on those out-of-fold probabilities for
F-beta. Nothing outside ``fit``'s own (X, y) is ever seen, so nesting it inside an outer
cross-validation is honest. ``update`` refits warm-started with the chosen C and keeps the
calibration and threshold: the fast path for retraining after one more judgment.

Measured with honest nested 5-fold CV on enron-categories-dev (Dana Whitfield, mean over outer
seeds): "or" F1 0.55 / F2 0.65, "lr" F1 0.54 / F2 0.64. Tried and not better (all within
F1 0.52-0.55, AP 0.50-0.54): per-reason sub-classifiers (legal, secrecy, personal, employment,
tone; one-vs-rest on the training fold) combined by an LR stacker on inner out-of-fold scores or
by a calibrated max, with and without the global LR/SVM; C chosen by inner F-beta instead of AP;
word-only unigrams or uni+bigrams; NB-SVM log-count ratios; text before quoted/forwarded parts
as an extra block; the first 3,000 body characters only; sender/recipient/X-Folder tokens.

Sensitivity cues (``cues.py``: dense counts of legal, secrecy, personal, employment, health and
heated-tone word families) are the one addition that helped: honest nested CV, 3 outer seeds, "or"
F1 0.545 -> 0.557 optimising F1 and F2 0.653 -> 0.672 optimising F2 (peeked LR AP 0.531 -> 0.558).
Also tried after them, no better: all-MiniLM-L6-v2 sentence embeddings alone (AP 0.52) or appended
(peeked F1 +0.006), k-NN label propagation from near duplicates, custodian (X-Origin) one-hot,
sample weights from the annotators' label counts, a gradient-boosted or LR stacker over the text
score and the dense blocks, C from 1 to 32, 5 inner folds (F1 +0.003), thresholds as a predicted-
positive rate or a bootstrap median, multi-task stacking over all 27 Berkeley categories with >= 15
messages (training-fold labels only; peeked F1 0.580 -> 0.581), and dropping suspected mislabelled
training messages (3-20% by inner out-of-fold score); NB-SVM log-count ratios and the text before
quoted parts again, with the cue block in (peeked F1 -0.001 and +0.004); later also chi2 feature
selection (k 3,000-30,000), 25 bagged LRs, ridge, complement NB alone and rank-averaged with the LR
(peeked LR AP 0.55, all at or below it), and choosing each test fold's positives as the top k that
maximise the plug-in expected F-beta of the calibrated probabilities (honest "or", seeds 0-2: F1
0.556 -> 0.564, F2 0.672 -> 0.675; not adopted: it makes a document's label depend on the batch
scored with it). A sixth session's bounded search (seeds 0-2, "or"): block weights one at a time
(subject words 0 helped most, peeked AP 0.561 -> 0.570; body, chars, network, PII, cue weights
noise), TF-IDF variants (sublinear off, min_df 1/3, max_df 0.5, char 1-4), class_weight None/2/6,
L1 LR (AP 0.48-0.50), 100-300 LSA dimensions appended, training-fold labels of thread-mates (only
113 of 875 share a thread); best honest result "current vs (no subject words, no meta, no class
weighting) picked in the inner folds": F1 0.552 -> 0.566, F2 0.673 -> 0.682 (not adopted: small,
doubles training, and unchecked on personas with fewer sensitive messages). The ceiling is the labels: message pairs with TF-IDF cosine > 0.9 carry the same
label only 80% of the time (66% by chance), and e.g. nine copies of "Confidential Information and
Securities Trading" are labelled sensitive twice.

Header blocks embedded in bodies (forward/reply separators, From/To/cc/Sent/Subject lines and
their wrapped recipient lists, Lotus Notes sender lines, e-mail and Notes addresses: see
``embedded_headers.py``) are stripped before the features read a body (FEATURE_VERSION 12).
Through ``sasc classify cv`` on enron-categories-dev, Dana Whitfield, seeds 0-2, before -> after:
"lr" F1 0.554 -> 0.573 optimising F1, F2 0.670 -> 0.690 optimising F2, AP 0.555 -> 0.574; "or" F1
0.552 -> 0.577, F2 0.673 -> 0.690, AP 0.554 -> 0.572 (the research prototype, seeds 3-5: F1 0.562
-> 0.576). The 3,000-message demo, seed 0, "lr" optimising F1: John Snibert F1 0.759 -> 0.752,
AP 0.801 -> 0.803; Holly Palmer F1 0.776 -> 0.782, AP 0.844 -> 0.846 (noise either way).

A ninth session also tried, honest nested on seeds 0-2 against the same baseline (F1 0.554, F2
0.670, AP 0.555), none adopted: VADER tone scores as features (F1 0.561, F2 0.659); thresholds
from repeated inner CV, a smoothed F-curve or best inner F / (1 + beta^2) (F1 0.555-0.565); SGD
(modified Huber, elastic net), passive-aggressive and ridge alone or blended with the LR by inner
folds (F1 0.549-0.568, AP 0.527-0.555); gradient boosting and an MLP on 100 SVD dimensions plus
the dense blocks (AP 0.49-0.51 alone); self-training and label spreading over the unlabelled test
fold's text (F1 0.556, AP 0.551); pairwise ranking losses, and a p-norm push loss with q and the
penalty chosen in the inner folds (AP +0.012, F1 0.557, F2 0.662). Choosing the threshold on each
outer test fold itself (peeking) stops at F1 0.605 before the header stripping, 0.612 after: the
ranking, not the threshold, is what F1 0.62 would need.

A tenth session tried, honest nested on seeds 0-2 and then on fresh seeds 3-5 (baseline "lr" F1
0.573 / 0.575, F2 0.690 / 0.679, AP 0.574 / 0.581): dropping body lines of 20 or more characters
that recur in 2 or more project documents (no labels used) lifts AP on all 12 runs (0.590 / 0.591)
and "lr" F1 (0.596 / 0.587) but not F2 (0.685 / 0.683), and its k chosen in the inner folds gains
nothing (F1 0.570): not adopted, since k = 2 was picked on outer results and it makes a message's
features depend on the other mail of the collection. No better: Porter stemming (F1 0.574),
passage-level scores (the document model's best passages, or a passage model, stacked: F1 0.570-0.572),
smoothed sender and recipient priors from training-fold labels (0.566), near-duplicate sample
weights (0.573). IDF fitted on every project message, labelled or not, is already how
``project_features`` works.

Speed (scoring and retraining aims): the character block is hashed n-grams counted with numpy
(same features as sklearn's char_wb up to hash collisions at 2^22 buckets; nested CV on
enron-categories-dev seed 0: "or" F1 0.549 / F2 0.660 vs 0.550 / 0.665 before, "lr" 0.549 / 0.646
vs 0.546 / 0.643, AP and ROC AUC up by < 0.001: noise). Retraining after one judgment is
dominated by nothing any more: the warm-started lbfgs refit (~0.06 s at 5,000 judged), scoring
from the cached matrix (~0.02 s), the scores table (~0.03 s) and the model file, whose feature
space is pickled once and reused.
"""
from __future__ import annotations

import math
import warnings
from typing import Optional, Sequence

import numpy as np
import scipy.sparse as sp
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import average_precision_score
from sklearn.model_selection import StratifiedKFold
from sklearn.svm import LinearSVC

from ..errors import InputError
from . import DEFAULT_KIND, KINDS  # noqa: F401  (re-exported: the package's plain constants)

MIN_PER_CLASS = 2  # judgments of each class a fit needs: the inner folds then keep one of each


# The range of beta accepted. F-beta weighs recall beta times as much as precision; at 1000 it is
# already recall alone (and at 1/1000 precision alone) to within 0.1% for any count of judged
# messages up to 1,000 (F_beta = (1 + b2) tp / ((1 + b2) tp + b2 fn + fp), b2 = beta^2 = 10^6),
# so a larger beta changes nothing but the rounding -- and from about 1e154 its square overflows
# to infinity, F becomes nan and the threshold choice arbitrary.
BETA_MIN, BETA_MAX = 1e-3, 1e3


def check_beta(beta) -> float:
    """``beta`` as a float; InputError unless it is a number from BETA_MIN to BETA_MAX (F-beta
    weighs recall beta times as much as precision: 0, negative, nan or infinite weights mean
    nothing, and beyond 1:1000 either way the measure is recall, or precision, alone)."""
    shown = repr(beta) if len(repr(beta)) <= 40 else repr(beta)[:37] + "..."
    msg = (f"beta must be a number from {BETA_MIN:g} to {BETA_MAX:g} (F-beta weighs recall beta times as much as "
           f"precision; beyond 1000 it is recall alone, below 0.001 precision alone), got {shown}")
    try:
        b = float(beta)
    except (TypeError, ValueError, OverflowError):
        raise InputError(msg) from None
    if not (BETA_MIN <= b <= BETA_MAX):  # (nan fails every comparison)
        raise InputError(msg)
    return b


def fbeta_from_counts(tp, fp, fn, beta: float):
    b2 = beta * beta
    den = (1 + b2) * tp + b2 * fn + fp
    return np.where(den > 0, (1 + b2) * tp / np.maximum(den, 1e-12), 0.0)


def best_threshold(y: np.ndarray, p: np.ndarray, beta: float = 1.0) -> tuple[float, float]:
    """The threshold t (predict sensitive when p >= t) maximising F-beta on (y, p), and that F.
    Ties go to the higher threshold; t is the midpoint between neighbouring distinct scores."""
    y = np.asarray(y, dtype=int)
    p = np.asarray(p, dtype=float)
    if y.sum() == 0:
        return 1.0, 0.0
    order = np.argsort(-p, kind="mergesort")
    ps, ys = p[order], y[order]
    last = np.r_[np.nonzero(np.diff(ps))[0], len(ps) - 1]   # last index of each distinct score
    tp = np.cumsum(ys)[last]
    fp = (last + 1) - tp
    fn = y.sum() - tp
    f = fbeta_from_counts(tp, fp, fn, beta)
    i = int(np.argmax(f))
    nxt = ps[last[i] + 1] if last[i] + 1 < len(ps) else 0.0
    return float((ps[last[i]] + nxt) / 2.0), float(f[i])


def expected_calibration_error(p: np.ndarray, y: np.ndarray, bins: int = 10) -> float:
    """Expected calibration error: over equal-width probability bins, the share of documents in
    the bin times |mean predicted probability - observed sensitive rate| (p = 1 goes to the
    last bin)."""
    p, y = np.asarray(p, dtype=float), np.asarray(y, dtype=float)
    if len(p) == 0:
        return 0.0
    k = np.minimum((p * bins).astype(int), bins - 1)
    gap = np.abs(np.bincount(k, weights=p, minlength=bins) - np.bincount(k, weights=y, minlength=bins))
    return float(gap.sum() / len(p))


def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-np.clip(z, -50, 50)))


def _logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-9, 1 - 1e-9)
    return np.log(p / (1 - p))


# The smallest Platt slope allowed, per standard deviation of the scores: one standard deviation
# of score moves the log-odds by at least 0.1. See ``_platt``.
MIN_SLOPE_PER_SD = 0.1
# Scores whose standard deviation is at most this share of their largest magnitude have no spread
# that floating point can resolve (log-odds fitted on them would cancel to noise): ``_platt``
# treats them as all equal.
_NO_SPREAD = 1e-8


def _score_sd(scores: np.ndarray) -> float:
    sd = float(np.std(scores))
    if not math.isfinite(sd):  # sum of squares overflowed (|scores| ~ 1e154 and more): scale first
        m = float(np.max(np.abs(scores)))
        sd = m * float(np.std(scores / m))
    return sd


def _min_slope(scores: np.ndarray) -> float:
    sd = _score_sd(np.asarray(scores, dtype=float))
    return MIN_SLOPE_PER_SD / sd if sd > 1e-12 else MIN_SLOPE_PER_SD


def _xent(z: np.ndarray, t: np.ndarray) -> float:
    """Cross-entropy of targets t against P = sigmoid(z), summed; stable for any finite z."""
    return float(np.sum(np.logaddexp(0.0, z) - t * z))


def _newton(x: np.ndarray, grad_hess, loss, max_iter: int = 100) -> np.ndarray:
    """Minimise a smooth convex ``loss`` from ``x`` by Newton's method made safe as in Lin, Lin &
    Weng ("A note on Platt's probabilistic outputs for support vector machines", 2007): a tiny
    ridge on the Hessian, a backtracking (Armijo) line search on the loss, and a stop on the
    Newton decrement g' H^-1 g (about twice the distance to the optimum's loss) relative to the
    loss. Near the optimum (decrement < 1e-6) the full step is taken without the line search:
    there the loss changes by less than its own rounding error, which would otherwise refuse
    steps for noise, and the full Newton step converges quadratically."""
    f = loss(x)
    for _ in range(max_iter):
        g, H = grad_hess(x)
        try:
            d = -np.linalg.solve(H + 1e-12 * np.eye(len(x)), g)
        except np.linalg.LinAlgError:
            break
        dec = float(-(g @ d))
        if not dec > 1e-20 * max(1.0, abs(f)):  # converged (also stops on nan)
            break
        if dec < 1e-6:
            x_new = x + d
            f_new = loss(x_new)
            if f_new <= f + 1e-9 * max(1.0, abs(f)):
                x, f = x_new, f_new
                continue
        step = 1.0
        while step >= 1e-10:
            x_new = x + step * d
            f_new = loss(x_new)
            if f_new <= f - 1e-4 * step * dec:
                break
            step /= 2
        else:
            break  # no step lowers the loss: x is the optimum to working precision
        x, f = x_new, f_new
    return x


def _platt(scores: np.ndarray, y: np.ndarray) -> tuple[float, float, bool]:
    """Platt scaling with the usual label smoothing: P = sigmoid(a * score + b), the maximum-
    likelihood (a, b) under the constraint a >= a_min (``_min_slope``). Returns
    (a, b, floored), where ``floored`` says the constraint is active at the optimum (a = a_min).

    A calibration must never reverse the model's ranking: unconstrained, with few sensitive
    judgments the out-of-fold scores often rank them below the rest and the fitted slope comes
    out negative, so the messages the model scores highest (the judged-sensitive ones, on the
    training set) got P ~ 0. The fit is therefore the maximum-likelihood calibration with
    a >= a_min. A floored slope says what the out-of-fold evidence says -- the ranking did not
    generalise to held-out messages -- so probabilities stay close to the (smoothed) judged rate,
    while the model's order is kept (a higher score is never a lower probability) for the
    threshold and for review queues. a_min is 0.1 per standard deviation of the scores: the
    probabilities are then nearly flat, which is honest, and the slope is scale-free (SVM
    margins and LR log-odds differ in scale).

    The smoothed cross-entropy is convex in (a, b) and, when the scores are not all equal,
    strictly convex with a finite minimum (every target lies strictly between 0 and 1). So the
    free optimum is found first (safeguarded Newton, ``_newton``, on standardised scores, which
    makes it indifferent to the scores' scale and offset); if its slope is below a_min, the
    constrained optimum lies on the boundary -- an interior one would be a local, hence the
    global, minimum -- and a = a_min with b fitted alone. Scores with no spread (all equal, to
    floating-point resolution) carry no ranking: a = a_min, P = the mean smoothed target, and
    ``floored`` is True."""
    scores = np.asarray(scores, dtype=float)
    y = np.asarray(y)
    if scores.ndim != 1 or len(scores) != len(y) or len(y) == 0 or not np.all(np.isfinite(scores)):
        raise InputError("Platt calibration needs one finite score per label")
    n1 = int(np.sum(y == 1))
    n0 = len(y) - n1
    t = np.where(y == 1, (n1 + 1.0) / (n1 + 2.0), 1.0 / (n0 + 2.0))
    a_min = _min_slope(scores)
    sd = _score_sd(scores)
    mean = float(np.mean(scores)) if sd > 0 else float(scores[0])
    big = float(np.max(np.abs(scores))) if len(scores) else 0.0
    if sd > 1e-12 and sd > _NO_SPREAD * big:
        u = (scores - mean) / sd   # standardised: the same loss, well-conditioned

        def loss_u(x):
            return _xent(x[0] * u + x[1], t)

        def grad_hess_u(x):
            z = x[0] * u + x[1]
            p, q = expit(z), expit(-z)
            r, w = p - t, p * q
            wu = w * u
            return (np.array([r @ u, r.sum()]),
                    np.array([[wu @ u, wu.sum()], [wu.sum(), w.sum()]]))
        alpha, beta = _newton(np.array([0.0, math.log((n1 + 1.0) / (n0 + 1.0))]), grad_hess_u, loss_u)
        if alpha / sd >= a_min:
            a = float(alpha / sd)
            return a, float(beta - a * mean), False
    # on the boundary a = a_min: the intercept alone (a 1-d convex problem)
    off = a_min * scores
    tm = float(t.mean())

    def loss_b(x):
        return _xent(off + x[0], t)

    def grad_hess_b(x):
        p, q = expit(off + x[0]), expit(-(off + x[0]))
        return np.array([float(np.sum(p - t))]), np.array([[float(np.sum(p * q))]])
    b = _newton(np.array([math.log(tm / (1.0 - tm)) - float(np.mean(off))]), grad_hess_b, loss_b)[0]
    return float(a_min), float(b), True


_BASE_NAMES = {"lr": "logistic regression", "svm": "linear SVM"}


def check_class_counts(y) -> None:
    """Labels (1 sensitive, 0 not) a fit can learn from: MIN_PER_CLASS of each, or an InputError
    saying how many there are. (Fewer leaves an inner training fold with one class only, and a
    Platt fit on nothing.)"""
    y = np.asarray(y, dtype=int)
    n1 = int(y.sum())
    if min(n1, len(y) - n1) < MIN_PER_CLASS:
        raise InputError(f"training needs at least {MIN_PER_CLASS} sensitive and {MIN_PER_CLASS} not-sensitive "
                         f"judgments (got {n1} sensitive and {len(y) - n1} not sensitive)")


class SensitivityClassifier(BaseEstimator, ClassifierMixin):
    def __init__(self, kind: str = DEFAULT_KIND, C: Optional[float] = None, Cs: Sequence[float] = (2.0, 8.0, 32.0),
                 beta: float = 1.0, inner_folds: int = 3, class_weight: Optional[str] = "balanced",
                 random_state: int = 0):
        self.kind = kind
        self.C = C
        self.Cs = Cs
        self.beta = beta
        self.inner_folds = inner_folds
        self.class_weight = class_weight
        self.random_state = random_state

    # base models ---------------------------------------------------------------------
    def _base(self, which: str, C: float):
        if which == "lr":
            return LogisticRegression(C=C, class_weight=self.class_weight, solver="liblinear", dual=True, max_iter=2000,
                                      random_state=self.random_state)
        return LinearSVC(C=C / 16.0, class_weight=self.class_weight, dual=True, max_iter=5000,
                         random_state=self.random_state)

    def _fit_base(self, which: str, C: float, X, y):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            m = self._base(which, C).fit(X, y)
        return m.coef_.ravel().astype(np.float64), float(m.intercept_[0])

    def _oof(self, which: str, C: float, X, y, folds, tick=lambda what: None) -> np.ndarray:
        out = np.zeros(len(y))
        for i, (tr, te) in enumerate(folds):
            tick(f"choosing the {_BASE_NAMES[which]}'s regularisation: C={C:g}, fold {i + 1} of {len(folds)}")
            w, b = self._fit_base(which, C, X[tr], y[tr])
            out[te] = X[te] @ w + b
        return out

    def _check(self, X, y):
        if self.kind not in KINDS:
            raise InputError(f"unknown model kind {self.kind!r}; choose one of {', '.join(KINDS)}")
        check_beta(self.beta)
        y = np.asarray(y, dtype=int)
        if X.shape[0] != len(y):
            raise InputError("features and labels differ in length")
        check_class_counts(y)
        return sp.csr_matrix(X), y

    # fit / update --------------------------------------------------------------------
    def fit(self, X, y, progress=None):
        """Choose C per base model by inner cross-validation (average precision), calibrate it
        (Platt on the out-of-fold scores) and pick the F-beta threshold on those scores.
        ``progress`` (an engine Progress) hears of every inner fit and can cancel between them."""
        X, y = self._check(X, y)
        n_splits = max(2, min(self.inner_folds, int(y.sum()), int(len(y) - y.sum())))
        folds = list(StratifiedKFold(n_splits, shuffle=True, random_state=self.random_state).split(np.zeros(len(y)), y))
        bases = ("lr", "svm") if self.kind == "or" else (self.kind,)
        grid = [self.C] if self.C is not None else list(self.Cs)
        steps, step = len(bases) * (len(grid) * len(folds) + 1), 0

        def tick(what: str) -> None:
            nonlocal step
            if progress is not None:
                progress.update(step, steps, what)
            step += 1
        self.C_, self.platt_, self.coef_, self.intercept_ = {}, {}, {}, {}
        self.calibration_floored_ = {}  # per calibration: was the slope floor used (see _platt)?
        probs = []
        for which in bases:
            best = None
            for C in grid:
                oof = self._oof(which, C, X, y, folds, tick)
                ap = average_precision_score(y, oof)
                if best is None or ap > best[0] + 1e-12:
                    best = (ap, C, oof)
            _, C, oof = best
            self.C_[which] = float(C)
            a, b, self.calibration_floored_[which] = _platt(oof, y)
            self.platt_[which] = (a, b)
            probs.append(_sigmoid(a * oof + b))
            tick(f"fitting the {_BASE_NAMES[which]} on every judged message")
            self.coef_[which], self.intercept_[which] = self._fit_base(which, C, X, y)
        if progress is not None:
            progress.update(steps, steps, "choosing the threshold")
        p = np.max(probs, axis=0)
        # The larger of two calibrated probabilities over-states P(sensitive): "or" gets one more
        # Platt step on the log-odds of that maximum (same out-of-fold scores, no extra fits).
        self.final_platt_ = None
        if len(probs) > 1:
            a, b, self.calibration_floored_["final"] = _platt(_logit(p), y)
            self.final_platt_ = (a, b)
            p = _sigmoid(self.final_platt_[0] * _logit(p) + self.final_platt_[1])
        self.threshold_, self.validation_fbeta_ = best_threshold(y, p, self.beta)
        self.classes_ = np.array([0, 1])
        self.n_features_in_ = X.shape[1]
        self.n_train_, self.n_positive_ = int(len(y)), int(y.sum())
        return self

    def update(self, X, y):
        """Refit on new (X, y) with the chosen C, calibration and threshold kept (fast). The
        weights are replaced by new dicts, never changed in place, so a shallow copy of a model
        can be updated while the original (say, the cached saved model) stays as it was."""
        X, y = self._check(X, y)
        self.coef_, self.intercept_ = dict(self.coef_), dict(self.intercept_)
        for which in self.coef_:
            if which == "lr":
                m = LogisticRegression(C=self.C_[which], class_weight=self.class_weight, solver="lbfgs",
                                       warm_start=True, max_iter=200, tol=1e-4)
                m.coef_ = self.coef_[which][None, :].copy()
                m.intercept_ = np.array([self.intercept_[which]])
                m.classes_ = self.classes_
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ConvergenceWarning)
                    m.fit(X, y)
                self.coef_[which], self.intercept_[which] = m.coef_.ravel().astype(np.float64), float(m.intercept_[0])
            else:
                self.coef_[which], self.intercept_[which] = self._fit_base(which, self.C_[which], X, y)
        self.n_train_, self.n_positive_ = int(len(y)), int(y.sum())
        return self

    # predict -------------------------------------------------------------------------
    def proba_positive(self, X) -> np.ndarray:
        """Calibrated P(sensitive) per row."""
        X = sp.csr_matrix(X) if not sp.issparse(X) else X
        out = None
        for which, w in self.coef_.items():
            a, b = self.platt_[which]
            p = _sigmoid(a * (X @ w + self.intercept_[which]) + b)
            out = p if out is None else np.maximum(out, p)
        final = getattr(self, "final_platt_", None)  # absent in models saved before it existed
        if final is not None:
            out = _sigmoid(final[0] * _logit(out) + final[1])
        return out

    def predict_proba(self, X) -> np.ndarray:
        p = self.proba_positive(X)
        return np.column_stack([1 - p, p])

    def predict(self, X) -> np.ndarray:
        return (self.proba_positive(X) >= self.threshold_).astype(int)

    def deciding_model(self, x_row) -> str:
        """The base model whose calibrated probability is this row's (for "or": the larger one)."""
        x = sp.csr_matrix(x_row)
        probs = {which: float(_sigmoid(self.platt_[which][0] * (x @ w + self.intercept_[which]) + self.platt_[which][1])[0])
                 for which, w in self.coef_.items()}
        return max(probs, key=lambda k: (probs[k], k == "lr"))  # a tie goes to the LR

    def contributions(self, x_row) -> np.ndarray:
        """Per-feature contribution to one row's score by the model that decides it (see
        ``deciding_model``): x_j * w_j."""
        which = self.deciding_model(x_row)
        x = sp.csr_matrix(x_row)
        out = np.zeros(x.shape[1])
        out[x.indices] = x.data * self.coef_[which][x.indices]
        return out

    # documents of a project ----------------------------------------------------------
    def predict_proba_docs(self, session, doc_ids: Sequence[str]) -> np.ndarray:
        """Calibrated P(sensitive) for these documents of the project (same order)."""
        from .api import doc_matrix
        return self.proba_positive(doc_matrix(session, self, list(doc_ids)))
