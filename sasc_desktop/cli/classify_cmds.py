"""``sasc judgments``, ``sasc personas`` and ``sasc classify``."""
from __future__ import annotations

from ..engine.classify import DEFAULT_KIND, KINDS
from ..engine.progress import Progress
from .common import TextProgressBar, one_line, print_json


def _session(path):
    from ..engine.session import Session
    return Session.open(path)


def register(subparsers) -> None:
    j = subparsers.add_parser("judgments", help="import relevance and sensitivity judgments")
    jsub = j.add_subparsers(dest="judgments_command", metavar="ACTION")
    j.set_defaults(func=lambda args: _sub_help(j))
    replace_help = ("replace judgments another import made, differing topic definitions and persona cards "
                    "(without it such an import is refused and nothing is written)")
    p = jsub.add_parser("import", help="TREC qrels, sensitivity judgments, topics and persona cards")
    p.add_argument("project")
    p.add_argument("--qrels", help="TREC qrels: 'topic 0 docid grade' lines ('#' starts a comment line)")
    p.add_argument("--sensitivity", help="'persona docid level' or 'topic persona docid level' lines; "
                   "level 0 not sensitive, 1+ sensitive, -1 I don't know")
    p.add_argument("--topics", help="topics JSON")
    p.add_argument("--personas", help="persona cards JSON")
    p.add_argument("--reasons", help="why sensitive: docid<TAB>persona<TAB>reason lines")
    p.add_argument("--replace", action="store_true", help=replace_help)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run_import)
    p = jsub.add_parser("import-categories", help="Berkeley .cats labels as the Enron categories collection")
    p.add_argument("project")
    p.add_argument("folder")
    p.add_argument("--replace", action="store_true", help=replace_help)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run_import_categories)

    p = subparsers.add_parser("personas", help="list the project's personas")
    p.add_argument("project")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run_personas)

    c = subparsers.add_parser("classify", help="sensitivity classifiers per persona")
    c.set_defaults(func=lambda args: _sub_help(c))
    csub = c.add_subparsers(dest="classify_command", metavar="ACTION")
    p = csub.add_parser("cv", help="honest (nested) cross-validation")
    p.add_argument("project")
    p.add_argument("--persona", required=True)
    p.add_argument("--folds", type=int, default=5)
    _threshold_args(p)
    p.add_argument("--model", choices=KINDS, default=DEFAULT_KIND, help=_MODEL_HELP)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run_cv)
    p = csub.add_parser("train", help="train, save and score every document")
    p.add_argument("project")
    p.add_argument("--persona", required=True)
    p.add_argument("--model", choices=KINDS, default=DEFAULT_KIND, help=_MODEL_HELP)
    _threshold_args(p)
    p.add_argument("--full", action="store_true", help="choose hyper-parameters again (no incremental refit)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run_train)
    p = csub.add_parser("explain", help="why a document is scored as it is")
    p.add_argument("project")
    p.add_argument("doc_id")
    p.add_argument("--persona", required=True)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run_explain)


_MODEL_HELP = ("lr: logistic regression (the default; fastest retrain), or: the larger of the LR's and a linear "
               "SVM's calibrated probabilities (best honest CV on the Enron categories set, by about 0.01 in F1), svm")


def _threshold_args(p) -> None:
    """--optimise f1|f2 or --beta B (one or the other): the F-beta the decision threshold maximises."""
    g = p.add_mutually_exclusive_group()
    # (default None, not "f1": argparse lets an explicit value equal to the default slip past
    # the exclusion check)
    g.add_argument("--optimise", "--optimize", choices=("f1", "f2"),
                   help="the F-measure the decision threshold maximises (default f1)")
    g.add_argument("--beta", type=float, metavar="B",
                   help="maximise F-beta for this beta instead (0.001 to 1000; 2 is --optimise f2)")


def _beta(args) -> float:
    return args.beta if args.beta is not None else {"f1": 1.0, "f2": 2.0}[args.optimise or "f1"]


def _sub_help(parser) -> int:
    parser.print_help()
    return 2


_NOTES = ("not_in_project", "copy_ids", "changed", "topics_changed", "personas_changed")


def _print_import(counts: dict, suffix: str = "") -> None:
    """The counts on one line, then what changed and which judged ids match no message."""
    print(", ".join(f"{v} {k}" for k, v in counts.items() if k not in _NOTES) + suffix)
    changed = [f"{counts[k]} {what}" for k, what in (("changed", "stored judgments"), ("topics_changed", "topics"),
                                                     ("personas_changed", "persona cards")) if counts.get(k)]
    if changed:
        print("changed: " + ", ".join(changed))
    copies = counts.get("copy_ids", 0)
    n = counts.get("not_in_project", 0) - copies
    if copies:
        print(f"{copies} judged document id{'s name' if copies != 1 else ' names'} a copy (<Message-ID>~<hash>) this "
              "project stores under another id: protection applies "
              f"{'them' if copies != 1 else 'it'} to every document with that Message-ID")
    if n:
        print(f"{n} judged document id{'s match' if n != 1 else ' matches'} no message in this project "
              "(kept: they apply once that mail is ingested)")


def run_import(args) -> int:
    from ..engine.classify import import_judgments
    bar = TextProgressBar("judgments")
    try:
        with _session(args.project) as s:
            counts = import_judgments(s, args.qrels, args.sensitivity, args.topics, args.personas, args.reasons,
                                      replace=args.replace, progress=Progress(bar))
    finally:
        bar.finish()  # the error or "interrupted" goes on a line of its own
    print_json(counts) if args.json else _print_import(counts, " imported")
    return 0


def run_import_categories(args) -> int:
    from ..engine.classify import import_categories
    bar = TextProgressBar("labels")
    try:
        with _session(args.project) as s:
            counts = import_categories(s, args.folder, Progress(bar), replace=args.replace)
    finally:
        bar.finish()  # the error or "interrupted" goes on a line of its own
    print_json(counts) if args.json else _print_import(counts)
    return 0


def run_personas(args) -> int:
    from ..engine.classify import persona_ids
    with _session(args.project) as s:
        ps = persona_ids(s)
    if args.json:
        print_json(ps)
    else:
        for p in ps:
            print(f"{p['id']}\t{p['name']}")
    return 0


def run_cv(args) -> int:
    from ..engine.classify import check_persona, cross_validate
    bar = TextProgressBar("cross-validation")
    try:
        with _session(args.project) as s:
            check_persona(s, args.persona)
            r = cross_validate(s, args.persona, folds=args.folds, optimise=args.optimise or "f1", kind=args.model,
                               seed=args.seed, progress=Progress(bar), beta=args.beta)
    finally:
        bar.finish()  # the error or "interrupted" goes on a line of its own
    if args.json:
        print_json(r)
    else:
        for k in ("precision", "recall", "f1", "f2", "accuracy", "balanced_accuracy", "threshold"):
            print(f"{k:18} {r[k]:.4f}")
        print(f"{'n':18} {r['n']}\n{'positives':18} {r['positives']}")
    return 0


def run_train(args) -> int:
    from ..engine.classify import check_persona, train
    bar = TextProgressBar("training")
    try:
        with _session(args.project) as s:
            check_persona(s, args.persona)
            info = train(s, args.persona, Progress(bar), kind=args.model, beta=_beta(args),
                         full=True if args.full else None)
    finally:
        bar.finish()  # the error or "interrupted" goes on a line of its own
    if args.json:
        print_json(info.to_json())
    else:
        print(f"trained {info.kind} model v{info.version} for {info.persona}: {info.n_train} judged "
              f"({info.n_positive} sensitive), threshold {info.threshold:.3f}, {info.n_scored} documents scored "
              f"in {info.seconds:.2f} s")
    return 0


def run_explain(args) -> int:
    from ..engine.classify import check_persona, explain
    with _session(args.project) as s:
        check_persona(s, args.persona)
        r = explain(s, args.doc_id, args.persona)
    if args.json:
        print_json(r)
    else:
        print_explanation(r)
    return 0


ABSENT_SHOWN = 5   # of each absent list (the rest is counted in "other features")


def print_explanation(r: dict) -> None:
    """``explain``'s result as text whose numbers add up: the raw score is the intercept plus
    every weight printed plus "other features" (to the 6 decimals printed); then the cue words
    and PII found. A weight is what the feature adds to the score (value x coefficient)."""
    absent = [(name, r[key][:ABSENT_SHOWN], r[key][ABSENT_SHOWN:])
              for name, key in (("towards sensitive", "absent_towards_sensitive"),
                                ("towards not sensitive", "absent_towards_not_sensitive"))]
    other = round(r["other_contributions"] + sum(e["weight"] for _, _, rest in absent for e in rest), 6)
    n_unlisted = sum(len(rest) for _, _, rest in absent)
    print(f"{one_line(r['doc_id'])}: P(sensitive) = {r['probability']:.3f} (threshold {r['threshold']:.3f}, "
          f"{'sensitive' if r['sensitive'] else 'not sensitive'})")
    print(f"{r['deciding_model']} score {r['raw_score']:.6f} = intercept {r['intercept']:.6f} + the weights below "
          f"+ other features {other:.6f}")

    def entries(items, indent: str = "  ") -> None:
        for e in items:
            label = e.get("label") or e["feature"]
            named = "" if str(e.get("name")) in label else f"  ({e['feature']})"   # e.g. two "no attachments"
            print(f"{indent}{e['weight']:+.6f}  {one_line(label)}{one_line(named)}")

    for key, title in (("towards_sensitive", "towards sensitive"), ("towards_not_sensitive", "towards not sensitive")):
        print(f"{title} (in the message):" + ("" if r[key] else " none"))
        entries(r[key])
    print("absent from the message (the features are standardised, so lacking one counts too):")
    for title, shown, rest in absent:
        first = f" (the first {len(shown)} of {len(shown) + len(rest)}; the rest in other features)" if rest else ""
        print(f"  {title}{first}:" + ("" if shown else " none"))
        entries(shown, "    ")
    print(f"other features: {other:+.6f} (every feature not listed above"
          f"{f', the {n_unlisted} absent ones left out among them' if n_unlisted else ''})")
    if r["cues"]:
        print("cue words: " + ", ".join(f"{one_line(c['kind'])} {one_line(c['text'])!r} in {c['field']} "
                                        f"[{c['start']}:{c['end']}]" for c in r["cues"]))
    else:
        print("cue words: none")
    for h in r["pii"]:
        print(f"  PII {h['kind']} in {one_line(h['field'])} [{h['start']}:{h['end']}] {h['text']!r}")
