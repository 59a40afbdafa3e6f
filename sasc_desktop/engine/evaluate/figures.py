"""The filtering figures of the dissertation for one run: F-docs@k, the share of non-sensitive
relevant documents withheld, the share of topics with nothing shown, and how many topics have a
positive, zero or negative CS-DCG@k (the "+/0/-" columns)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

from .judgments import Judgments
from .measures import evaluate_run
from .registry import make_measure


@dataclass(frozen=True)
class FilteringFigures:
    k: int
    topics: int
    f_docs: float | None          # mean share of shown documents that are sensitive (topics showing something)
    f_docs_topics: int            # topics where F-docs is defined (something shown)
    withheld: float | None        # mean share of non-sensitive relevant documents withheld
    withheld_topics: int          # topics with at least one non-sensitive relevant document
    share_empty: float | None     # share of topics with nothing shown (None when no topics)
    positive: int                 # topics with CS-DCG@k > 0
    zero: int                     # topics with CS-DCG@k = 0
    negative: int                 # topics with CS-DCG@k < 0


def _mean(values):
    vals = [v for v in values if v is not None]
    return (sum(vals) / len(vals) if vals else None), len(vals)


def filtering_figures(run: Mapping[str, Sequence[str]], judgments: Judgments, k: int,
                      cost: float | None = 12.0, costs: Sequence[float] | None = None,
                      topics: Sequence[str] | None = None) -> FilteringFigures:
    """Compute the filtering figures of ``run`` at cutoff k (costs as for CS-DCG)."""
    cost_arg = {"costs": tuple(costs)} if costs is not None else {"cost": cost}
    ms = [make_measure("F-docs", k), make_measure("Withheld", k), make_measure("Empty", k),
          make_measure("CS-DCG-sign", k, **cost_arg)]
    res = evaluate_run(ms, run, judgments, topics)
    fd, withheld, empty, sign = (res[m.name] for m in ms)
    f_mean, f_n = _mean(fd.values())
    w_mean, w_n = _mean(withheld.values())
    e_mean, _ = _mean(empty.values())
    signs = list(sign.values())
    return FilteringFigures(k, len(signs), f_mean, f_n, w_mean, w_n, e_mean,
                            sum(1 for s in signs if s == 1.0), sum(1 for s in signs if s == 0.0),
                            sum(1 for s in signs if s == -1.0))


__all__ = ["FilteringFigures", "filtering_figures"]
