"""Evaluation measures for search among sensitive content (numpy only, never Qt).

Conventions (``/work/shared/spec/measures.md``): rank positions i = 1..k, discount
d_i = 1/log2(i + 1), gain g = 2^rel - 1, sensitivity cost c = C_level (level 0 = not
sensitive, every level >= 1 is sensitive). Lists may be shorter than k; unjudged documents are
not relevant and not sensitive; a judged topic missing from a run is an empty list. No NaN or
infinity ever leaves this package: a topic on which a measure is undefined gives ``None`` and
is left out of means (and counted).

Measures and the registry
-------------------------
``parse_measure("nCS-DCG@10(cost=12)")`` returns a frozen :class:`Measure` with ``.name``
(canonical text that parses back to an equal measure), ``.k``, ``.params`` /
``.get(name)`` and the scoring methods below. ``make_measure("TERN", 10, M=1)`` does the same
from values. ``measure_specs()`` maps each family name to a :class:`MeasureSpec` whose
``params`` are :class:`ParamSpec` records (name, type int/float/levels/choice, default,
required, range, choices, example) -- what a GUI form needs. ``measure_names()`` lists them.
Unknown names or bad parameters raise :class:`MeasureError` (a ``SascError``) naming what exists.

Families: ``P``, ``DCG``, ``nDCG``, ``CS-DCG``, ``nCS-DCG`` (exact bounds over rankings that
show min(k, n) judged documents), ``nCS-DCG_f`` (exact bounds over every sub-list of length
<= k), ``gCS-DCG``, ``ngCS-DCG`` (bounds exact when every sensitive level costs the same --
``cost=`` or equal ``costs=`` -- otherwise the best/worst ranking in gain order, see
``bounds_exact``), ``TERN``, ``SENS``, ``nDCG_min``, ``nDCG_f``, ``O-CS-DCG`` (archivist in the
loop; ``part=total|searcher|gain|effort``), and the filtering figures ``F-docs``, ``Withheld``,
``Empty``, ``CS-DCG-sign`` (see also :func:`filtering_figures`). Costs are ``cost=12`` (every
level >= 1 costs 12) or ``costs=0/6/12`` (one per level from 0; later levels use the last).

Fast path for learning to rank (the contract)
---------------------------------------------
A learner that scores one topic thousands of times calls, once per topic and measure::

    state = measure.prepare(pool_rel, pool_sens)        # -> TopicState (frozen)

where ``pool_rel``/``pool_sens`` are integer arrays with the relevance grade and sensitivity
level of *every judged document of the topic* (the pool the bounds and ideals come from; for
LETOR data: every document of the query). This precomputes the exact bounds / ideal DCG once
(an O(C k^2) dynamic programme over grade x level classes). Then, for each candidate ranking::

    value = measure.score_ranked(state, ranked_rel, ranked_sens)   # -> float | None

with the grades and levels of the ranked documents in rank order (numpy arrays or sequences;
only the first k are read, shorter lists show only what they have; give 0/0 for unjudged
documents; ``ranked_sens`` may be omitted when nothing is sensitive). It costs O(k) and
returns ``None`` when the measure is undefined on the topic (e.g. a normalised measure whose
best equals its worst) -- a learner should skip such topics. ``TopicState`` carries
``lo``/``hi`` (normalisation bounds), ``n_pool``, ``extra`` and, for nCS-DCG, nCS-DCG_f and
ngCS-DCG, ``parts`` = (lo_gain, lo_cost, hi_gain, hi_cost): the bounds as gain and cost sums,
compared part by part so that a huge cost (1e9, 1e12) cancels exactly. Measures that do not look at
the pool (P, DCG, CS-DCG, gCS-DCG, TERN, O-CS-DCG, F-docs, Empty, CS-DCG-sign) also accept
``state=None``. ``measure.score_list(ranked_rel, ranked_sens, pool_rel, pool_sens)`` does both
steps at once (for one-off use). Typical cost: prepare well under a millisecond, score_ranked
a few tens of microseconds at k = 10.

For many topics at once use the batch form::

    state = measure.prepare_batch(pool_counts)          # [T, grades, levels] class counts
    values, defined = measure.score_batch(state, R, S, lengths)

with ``R``/``S`` ``[T, w]`` level matrices in rank order and ``lengths`` the number of shown
positions per row (``counts_from_levels(rel_arrays, sens_arrays)`` builds ``pool_counts``);
undefined entries have ``defined == False`` and value 0.0. From documents ids:
``measure.score_run(run, judgments)`` or ``evaluate_run(measures, run, judgments)``, with
``run`` a dict topic -> ranked list of docids and :class:`Judgments` built from plain maps
(``Judgments(qrels={topic: {doc: grade}}, sensitivity={doc: level},
topic_sensitivity={topic: {doc: level}})``) or from file records (``Judgments.from_records``).

Files, statistics, reports
--------------------------
``formats``: ``read_qrels``/``write_qrels``, ``read_sensitivity``/``write_sensitivity``
(3 or 4 columns), ``read_run``/``rank_run``/``write_run`` (trec_eval order: score descending,
ties by docid descending), ``read_letor``/``write_letor``/``letor_arrays``; errors are
:class:`EvalFileError` with file and line. Records: :class:`Qrel`, :class:`SensJudgment`,
:class:`ScoredDoc`, :class:`LetorRow`. ``stats``: :func:`paired_tests` (t, Wilcoxon, sign),
:func:`mean_ci`. ``report``: :func:`evaluate_runs` and :func:`format_report` (what
``sasc evaluate`` prints).
"""
from .errors import EvalFileError, JudgmentsError, MeasureError
from .figures import FilteringFigures, filtering_figures
from .formats import (letor_arrays, natural_sorted, personas, qrels_map, rank_run, read_letor,
                      read_qrels, read_run, read_sensitivity, run_tag, sensitivity_maps,
                      write_letor, write_qrels, write_run, write_sensitivity)
from .judgments import Judgments, counts_from_levels
from .measures import BatchState, Measure, TopicState, evaluate_run
from .records import LetorRow, Qrel, ScoredDoc, SensJudgment
from .registry import (MeasureSpec, ParamSpec, get_spec, make_measure, measure_names,
                       measure_specs, parse_measure)
from .report import Report, evaluate_runs, format_report, load_judgments, load_run
from .stats import MeanCI, PairedTest, mean_ci, paired_tests, sign_test_p, t_test_p, wilcoxon_p

__all__ = [
    "EvalFileError", "JudgmentsError", "MeasureError",
    "FilteringFigures", "filtering_figures",
    "letor_arrays", "natural_sorted", "personas", "qrels_map", "rank_run", "read_letor",
    "read_qrels", "read_run", "read_sensitivity", "run_tag", "sensitivity_maps",
    "write_letor", "write_qrels", "write_run", "write_sensitivity",
    "Judgments", "counts_from_levels",
    "BatchState", "Measure", "TopicState", "evaluate_run",
    "LetorRow", "Qrel", "ScoredDoc", "SensJudgment",
    "MeasureSpec", "ParamSpec", "get_spec", "make_measure", "measure_names", "measure_specs",
    "parse_measure",
    "Report", "evaluate_runs", "format_report", "load_judgments", "load_run",
    "MeanCI", "PairedTest", "mean_ci", "paired_tests", "sign_test_p", "t_test_p", "wilcoxon_p",
]
