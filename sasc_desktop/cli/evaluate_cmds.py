"""``sasc evaluate``: score TREC runs against qrels and sensitivity judgments."""
from __future__ import annotations

import argparse

from ..engine.evaluate import (Judgments, evaluate_runs, format_report, load_run, measure_specs, parse_measure,
                               personas, read_qrels, read_sensitivity)
from ..engine.evaluate.report import unique_tags
from ..engine.errors import SascError
from .common import one_line, print_json, print_note

# Measures that read the sensitivity judgments: a cost (CS-DCG family, O-CS-DCG), a penalty M
# (TERN, SENS) or a forbidden document's label (nDCG_min, nDCG_f), and the filtering figures
# that count sensitive documents.
_SENSITIVITY_PARAMS = {"cost", "costs", "m", "forbidden"}
_SENSITIVITY_FAMILIES = {"f-docs", "withheld"}


def reads_sensitivity(spec) -> bool:
    """Whether the values of a measure family (its ``MeasureSpec``) depend on which documents
    are sensitive."""
    return (spec.cost_params or spec.name.lower() in _SENSITIVITY_FAMILIES
            or any(p.name.lower() in _SENSITIVITY_PARAMS for p in spec.params))


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "evaluate", help="score runs with search-among-sensitive-content measures",
        description="Score one or more TREC runs. Measures are written like nCS-DCG@10(cost=12), "
                    "TERN@10(M=1), nDCG@10. Every pair of runs is compared with paired two-tailed "
                    "t, Wilcoxon and sign tests on the topics defined for both. A topic's pool (the "
                    "measures' bounds and ideals) is its judged documents plus every document the "
                    "sensitivity file judges that any run lists for it, shared by all runs; for "
                    "nCS-DCG_f and nDCG_f the unjudged documents the runs list join it too (as sasc "
                    "experiment pools its candidates), so those two are in [0, 1] for any run.",
        epilog="measures: " + "; ".join(spec.signature() for spec in measure_specs().values()))
    p.add_argument("--qrels", required=True, help="TREC qrels: topic 0 docid rel")
    p.add_argument("--sensitivity", help="sensitivity judgments: 'persona docid level' or 'topic persona docid level'")
    p.add_argument("--persona", help="persona to use when the sensitivity file has several")
    p.add_argument("--run", action="append", required=True, help="TREC run (repeat for several runs)")
    p.add_argument("--measure", action="append", required=True, help="measure, e.g. nCS-DCG@10(cost=12) (repeatable)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run_evaluate)


def run_evaluate(args: argparse.Namespace) -> int:
    measures = [parse_measure(m) for m in args.measure]   # fail fast on a typo
    qrels = read_qrels(args.qrels)
    sens = []
    if args.sensitivity:
        sens = read_sensitivity(args.sensitivity)
        names = personas(sens)
        if args.persona is None and len(names) > 1:
            raise SascError(f"{args.sensitivity} has judgments for several personas; choose one with "
                            f"--persona: {', '.join(names)}")
    elif args.persona is not None:
        raise SascError("--persona needs --sensitivity")
    else:
        blind = list(dict.fromkeys(m.name for m in measures if reads_sensitivity(m.SPEC)))
        if blind:
            print_note(f"no --sensitivity file was given, so no document is treated as sensitive by "
                       f"{', '.join(blind)}")
    judgments = Judgments.from_records(qrels, sens, args.persona)
    loaded = [load_run(path) for path in args.run]
    tags = unique_tags([tag for tag, _ in loaded], args.run)
    _note_unjudged_topics(judgments.topics, tags, [ranked for _, ranked in loaded], args.run)
    report = evaluate_runs({tag: ranked for tag, (_, ranked) in zip(tags, loaded)}, judgments, measures)
    if args.json:
        print_json(report.to_json())
    else:
        print(format_report(report))
    return 0


def _note_unjudged_topics(judged, tags, runs, paths) -> None:
    """A note for a run whose topic ids the judgments do not know: its lists are not scored (a
    judged topic it lacks scores as an empty list), so ids that match no judged topic at all
    (``T1`` against ``1``) would otherwise pass as a run that found nothing."""
    judged = set(judged)
    for tag, ranked, path in zip(tags, runs, paths):
        unknown = [t for t in ranked if t not in judged]
        if not unknown:
            continue
        shown = ", ".join(one_line(t) for t in unknown[:5]) + (", ..." if len(unknown) > 5 else "")
        if len(unknown) == len(ranked):
            print_note(f"run {one_line(tag)} ({one_line(path)}) shares no topic with the judgments (its topics: "
                       f"{shown}): every judged topic scores as an empty list; are the topic ids the same?")
        else:
            print_note(f"run {one_line(tag)} ({one_line(path)}): {len(unknown)} of its {len(ranked)} topics have no "
                       f"judgments and are not scored: {shown}")
