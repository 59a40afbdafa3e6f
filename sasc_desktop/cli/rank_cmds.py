"""sasc experiment | the --protect side of sasc search (search and protect)."""
from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from ..engine.errors import InputError
from ..engine.progress import Progress
from ..engine.session import Session
from .common import TextProgressBar, cell, one_line, print_json


def _int_at_least(low: int, why: str = ""):
    """An argparse type: an integer >= ``low`` (the message says why when ``why`` is given)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"an integer expected, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be at least {low}{why}, got {value}")
        return value
    return parse


def _crossfit(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"an integer expected, got {text!r}") from None
    if value < 0 or value == 1:
        raise argparse.ArgumentTypeError(f"must be 0 (off) or at least 2 inner models, got {value}")
    return value


def register(sub) -> None:
    p = sub.add_parser("experiment", help="cross-validated search-and-protect experiment")
    p.add_argument("dir", type=Path)
    p.add_argument("--persona", required=True)
    p.add_argument("--rankers", nargs="+", default=["bm25", "ca"],
                   help="bm25 linear lambdamart adarank ca (default: bm25 ca; a name given twice is used once)")
    p.add_argument("--approaches", nargs="+", default=None,
                   help="relevance prefilter postfilter demote joint joint_postfilter (default: all; a name "
                        "given twice is used once)")
    p.add_argument("--objective", default="nCS-DCG@10(cost=12)",
                   help="the joint approaches' objective measure, one where higher is better (F-docs, Withheld, Empty "
                        "are refused: they stay --eval measures); its k is also the relevance approaches' training "
                        "measure's (nDCG@k) and the depth the static and threshold cutoffs are learned at; it "
                        "does not cut the lists the --eval measures score")
    p.add_argument("--eval", dest="eval_measures", action="append", required=True, metavar="M",
                   help="evaluation measure, e.g. nCS-DCG@10(cost=12) (repeatable; the first one is the one "
                        "printed and plotted; a measure given twice is used once). Each measure scores the lists "
                        "cut at ITS OWN k by the --cutoff policy; shown sensitive counts the documents in them")
    p.add_argument("--classifier", choices=["learned", "oracle"], default="learned")
    p.add_argument("--folds", type=_int_at_least(3, " (a test, a validation and at least one training fold)"),
                   default=5, help="rotating folds of the topics, at least 3 (default 5)")
    p.add_argument("--classifier-crossfit", type=_crossfit, default=0, metavar="K",
                   help="learned classifier: score the training/validation topics out-of-fold with K >= 2 inner "
                        "models (never trained on the test fold either), so the joint ranker learns from "
                        "probabilities as (un)reliable as the test ones; 0 = one model, in-sample (default)")
    p.add_argument("--cluster-replacement", action="store_true")
    p.add_argument("--cutoff", default="fixed",
                   help="how long each list shown is, for an --eval measure at k: fixed: the first k; dynamic: "
                        "floor(k (1 - predicted sensitive / candidates)); threshold: the first k whose score reaches "
                        "a threshold learned on validation; static: a length learned on validation, at most the "
                        "--objective's k (so every --eval k must be at most that)")
    p.add_argument("--depth", type=_int_at_least(1), default=200, help="candidates per topic, at least 1 (default 200)")
    p.add_argument("--ca-restarts", type=_int_at_least(1), default=5)
    p.add_argument("--ca-iterations", type=_int_at_least(1), default=25)
    p.add_argument("--out", type=Path, required=True, metavar="REPORT_DIR",
                   help="folder for the CSV tables and charts (made when missing; checked before the experiment runs)")
    p.add_argument("--json", action="store_true",
                   help="print the result as JSON; in learned_policies a learned threshold of -inf, every "
                        "document passes, is value null with every_document true")
    p.set_defaults(func=cmd_experiment)

    # the --protect side of `sasc search` (its parser is made in project_cmds)
    search = sub.choices.get("search")
    if search is not None:
        search.add_argument("--show-withheld", action="store_true",
                            help="with --protect, for the archivist: also list the documents held back for review "
                                 "as too uncertain, and say how many candidates a person judged sensitive were "
                                 "withheld (left out by default: their subjects, or for a narrow query their mere "
                                 "number, tell a searcher what is kept from them; --json always gives held_back, "
                                 "for the review queue)")
        search.add_argument("--depth", type=_int_at_least(1), default=None, metavar="N",
                            help="with --protect: how many of the query's first matches are ranked (default 500); "
                                 "the list is made of those, so a deeper one reaches more and takes longer")


def cmd_experiment(args) -> int:
    from ..engine.evaluate.experiment import APPROACHES
    from ..engine.evaluate.experiment_report import prepare_report_dir, write_report
    from ..engine.evaluate.report import format_score
    bar = TextProgressBar("experiment")
    with Session.open(args.dir) as s:
        created = prepare_report_dir(args.out)     # a bad --out is said now, not after the experiment
        try:
            result = s.run_experiment(
                args.persona, rankers=args.rankers, approaches=args.approaches or APPROACHES,
                objective=args.objective, eval_measures=args.eval_measures, classifier=args.classifier,
                folds=args.folds, crossfit=args.classifier_crossfit, cluster_replacement=args.cluster_replacement,
                cutoff=args.cutoff, depth=args.depth,
                ranker_params={"ca": {"n_restarts": args.ca_restarts, "n_iter": args.ca_iterations}},
                progress=Progress(bar))
        except BaseException:
            if created:
                _remove_if_empty(args.out)
            raise
    bar.finish()
    files = write_report(result, args.out)
    result["report_files"] = [str(Path(args.out) / f) for f in files]
    if args.json:
        print_json(result)
        return 0
    m0 = result["measures"][0]
    print(f"{result['n_topics']} topics, {len(result['folds'])} folds, classifier {result['classifier']}, "
          f"{result['seconds']:.0f} s")
    for r in result["results"]:
        if r["measure"] == m0:
            undefined = f"  undefined on {r['undefined_topics']} topics" if r["undefined_topics"] else ""
            print(f"{r['ranker']:>10}  {r['approach']:<22} {m0} = {format_score(r['mean'])}  "
                  f"shown sensitive {r['shown_sensitive']}{undefined}")
    print(f"report: {args.out}")
    return 0


def _remove_if_empty(folder: Path) -> None:
    try:
        folder.rmdir()          # only succeeds when empty: nothing anyone wrote is removed
    except OSError:
        pass


def cmd_protected_search(args) -> int:
    if not args.persona:
        raise InputError("--protect needs --persona (whose sensitivities to protect)")
    if args.limit < 1:
        raise InputError(f"--limit must be at least 1, got {args.limit}")
    show_withheld = bool(getattr(args, "show_withheld", False))
    with Session.open(args.dir) as s:
        depth = {} if getattr(args, "depth", None) is None else {"depth": args.depth}
        result = s.protected_search(args.query, args.persona, approach=args.protect, k=args.limit,
                                    cutoff=args.cutoff, offset=args.offset, show_withheld=show_withheld,
                                    retrain_stale=bool(getattr(args, "retrain", False)), **depth)
        stale = not result.get("note") and not result.get("model_up_to_date", True)
        retrain = _retrain_command(s, args) if stale else None
    if result.get("note"):   # (notes on stderr, with --json too: stdout stays the JSON)
        print(f"note: {result['note']}", file=sys.stderr)
    elif retrain:
        print(f"note: the {result['ranker']} ranker learned from older judgments (documents judged sensitive are "
              f"withheld all the same); --retrain, or {retrain}, brings it up to date", file=sys.stderr)
    if result.get("static_length") is not None and result.get("list_ends") and \
            result["offset"] + len(result["hits"]) >= result["static_length"]:
        n = result["static_length"]
        print(f"note: the static cutoff policy ends every list after {n} document{'' if n == 1 else 's'}: the length "
              f"that scored best for the ranker's objective on its validation topics (a cost-sensitive measure can "
              f"prefer short lists); the fixed or dynamic policy shows more", file=sys.stderr)
    if result.get("beyond_depth") and result.get("list_ends"):   # the list ended on this page (or before)
        print(f"note: a protected search ranks the query's first {result['depth']} matches and it has more; "
              "narrow the query (words, from:, date:), or give a larger --depth, to reach the others", file=sys.stderr)
    if args.json:
        print_json(result)
        return 0
    # (the searcher's view: what is shown; what is held back, and why, is the archivist's)
    held = f", {len(result['held_back'])} held back for review" if show_withheld else ""
    print(f"{len(result['hits'])} shown{held} ({result['ms']:.0f} ms, {result['approach']}, {result['ranker']})")
    if show_withheld:
        print(f"withheld as judged sensitive: {result['withheld_judged_sensitive']} of {result['candidates']} candidates "
              f"(the query matches {result['matches']}); quoting one: {result['withheld_quoting_sensitive']}")
    for h in result["hits"]:
        # (the sender's text: its control characters escaped, so one hit stays one line)
        print(f"{h['rank']:>4}  {h['score']:8.3f}  p={h['p_sensitive']:.2f}  {cell(h['date'], 10)}  "
              f"{cell(h['sender'], 26)}  {cell(h['subject'], 56).rstrip()}")
    if show_withheld and result["held_back"]:
        print("held back (uncertain, or quoting a message judged sensitive):")
        for h in result["held_back"]:
            why = f"  quotes {one_line(h['quotes'])}" if h.get("quotes") else ""
            print(f"      p={h['p_sensitive']:.2f}  {one_line(h['doc_id'])}  {cell(h['subject'], 60).rstrip()}{why}")
    return 0


def _retrain_command(session, args) -> str:
    """The ``sasc protect train`` command that retrains the stored ranker of the search's
    approach as --retrain would: with the options it was trained with (its ranker, and its
    objective and depth where they are not the defaults, protect train's too), shell-quoted to
    paste as it is."""
    from ..engine.errors import SascError
    from ..engine.protect.search import DEFAULT_TRAINING, _training_options, load_protection
    try:
        options = _training_options(load_protection(session, args.persona, args.protect))
    except SascError:   # (unreadable now: the search used it all the same; say the defaults)
        options = _training_options(None)
    words = ["sasc", "protect", "train", str(args.dir), "--persona", args.persona]
    if args.protect != "joint":
        words += ["--approach", args.protect]
    words += ["--ranker", str(options["ranker"])]
    for name in ("objective", "depth"):
        if options.get(name) is not None and options[name] != DEFAULT_TRAINING[name]:
            words += [f"--{name}", str(options[name])]
    return " ".join(shlex.quote(w) for w in words)
