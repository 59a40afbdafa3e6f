"""Evaluate several runs on several measures, with paired tests between every pair of runs.

This is what ``sasc evaluate`` prints; the JSON form is
``{"runs": {TAG: {MEASURE: {"mean", "per_topic", "undefined_topics"}}}, "tests": [...]}``.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Mapping, Sequence

from .formats import rank_run, read_qrels, read_run, read_sensitivity, run_tag
from .judgments import Judgments
from .measures import Measure, evaluate_run, listed_gaps
from .registry import parse_measure
from .stats import paired_on_common


@dataclass(frozen=True)
class MeasureResult:
    measure: str
    per_topic: dict[str, float | None]
    mean: float | None            # over defined topics; None when no topic is defined
    undefined_topics: int


@dataclass(frozen=True)
class TestResult:
    a: str
    b: str
    measure: str
    n: int                        # topics defined for both runs
    t_p: float
    wilcoxon_p: float
    sign_p: float


@dataclass(frozen=True)
class Report:
    runs: dict[str, dict[str, MeasureResult]]
    tests: tuple[TestResult, ...]

    def to_json(self) -> dict:
        return {
            "runs": {tag: {m: {"mean": r.mean, "per_topic": dict(r.per_topic), "undefined_topics": r.undefined_topics}
                           for m, r in res.items()} for tag, res in self.runs.items()},
            "tests": [{"a": t.a, "b": t.b, "measure": t.measure, "n": t.n, "t_p": t.t_p, "wilcoxon_p": t.wilcoxon_p,
                       "sign_p": t.sign_p} for t in self.tests],
        }


def load_judgments(qrels_path, sensitivity_path=None, persona: str | None = None) -> Judgments:
    """Read qrels (and sensitivity judgments for one persona) into :class:`Judgments`."""
    sens = read_sensitivity(sensitivity_path) if sensitivity_path is not None else []
    return Judgments.from_records(read_qrels(qrels_path), sens, persona)


def load_run(path) -> tuple[str, dict[str, list[str]]]:
    """Read a run file: (tag from its tag column, falling back to the file stem; ranked lists)."""
    docs = read_run(path)
    return run_tag(docs, Path(path).stem), rank_run(docs)


def unique_tags(tags: Sequence[str], paths: Sequence) -> list[str]:
    """Make run tags unique: a repeated tag becomes 'tag (file stem)', then gets a number."""
    out: list[str] = []
    for tag, path in zip(tags, paths):
        name = tag if tags.count(tag) == 1 else f"{tag} ({Path(path).stem})"
        base, i = name, 2
        while name in out:
            name = f"{base} #{i}"
            i += 1
        out.append(name)
    return out


def evaluate_runs(runs: Mapping[str, Mapping[str, Sequence[str]]], judgments: Judgments,
                  measures: Sequence[Measure | str]) -> Report:
    """Score each run (tag -> topic -> ranked docids) on every judged topic and compare every
    pair of runs (in the given order) on every measure, on the topics defined for both.

    Every run is scored on the same pools: ``judgments.with_listed(runs.values(), ...)``,
    each topic's judged documents plus every document with a topic-independent sensitivity
    judgment that any of the runs lists for it (and, for nCS-DCG_f and nDCG_f, the unjudged
    ones they list; see :mod:`.judgments`), so the runs share their bounds and a
    judged-sensitive document a run shows is inside them."""
    ms = [parse_measure(m) if isinstance(m, str) else m for m in measures]
    names = list(dict.fromkeys(m.name for m in ms))
    ms = [next(m for m in ms if m.name == n) for n in names]
    judgments = judgments.with_listed(runs.values(), listed_gaps(ms))
    results: dict[str, dict[str, MeasureResult]] = {}
    for tag, run in runs.items():
        scored = evaluate_run(ms, run, judgments)
        res = {}
        for name in names:
            per = scored[name]
            vals = [v for v in per.values() if v is not None]
            res[name] = MeasureResult(name, per, (sum(vals) / len(vals)) if vals else None, len(per) - len(vals))
        results[tag] = res
    tests = []
    for a, b in combinations(list(runs), 2):
        for name in names:
            _, pt = paired_on_common(results[a][name].per_topic, results[b][name].per_topic)
            tests.append(TestResult(a, b, name, pt.n, pt.t_p, pt.wilcoxon_p, pt.sign_p))
    return Report(results, tuple(tests))


def format_score(v: float | None, width: int = 0) -> str:
    """A mean or per-topic value as the reports print it: 4 decimals, '-' when undefined (None)."""
    return f"{'-':>{width}}" if v is None else f"{v:>{width}.4f}"


def _fmt(v: float | None, width: int = 8) -> str:
    return format_score(v, width)


def _fmt_p(p: float) -> str:
    return f"{p:.4f}{'*' if p < 0.05 else ' '}"


def format_report(report: Report) -> str:
    """A readable aligned table: one row per run and measure, then the paired tests
    (p < 0.05 marked with *)."""
    lines: list[str] = []
    rows = [(tag, name, r) for tag, res in report.runs.items() for name, r in res.items()]
    wr = max([len("run")] + [len(t) for t, _, _ in rows])
    wm = max([len("measure")] + [len(n) for _, n, _ in rows])
    lines.append(f"{'run':<{wr}}  {'measure':<{wm}}  {'mean':>8}  {'topics':>6}  {'undefined':>9}")
    for tag, name, r in rows:
        lines.append(f"{tag:<{wr}}  {name:<{wm}}  {_fmt(r.mean)}  {len(r.per_topic):>6}  {r.undefined_topics:>9}")
    if report.tests:
        lines.append("")
        lines.append("Paired two-tailed tests on topics defined for both runs (* p < 0.05)")
        wa = max([1] + [len(t.a) for t in report.tests])
        wb = max([1] + [len(t.b) for t in report.tests])
        wm2 = max([len("measure")] + [len(t.measure) for t in report.tests])
        lines.append(f"{'a':<{wa}}  {'b':<{wb}}  {'measure':<{wm2}}  {'n':>5}  {'t-test':>8}  {'wilcoxon':>8}  {'sign':>8}")
        for t in report.tests:
            lines.append(f"{t.a:<{wa}}  {t.b:<{wb}}  {t.measure:<{wm2}}  {t.n:>5}  {_fmt_p(t.t_p):>8}  "
                         f"{_fmt_p(t.wilcoxon_p):>8}  {_fmt_p(t.sign_p):>8}")
    return "\n".join(lines)


__all__ = ["MeasureResult", "TestResult", "Report", "load_judgments", "load_run", "unique_tags",
           "evaluate_runs", "format_report", "format_score"]
