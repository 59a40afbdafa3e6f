"""sasc init | ingest | search | show | stats | reindex | settings | demo | protect train."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from ..engine.errors import InputError
from ..engine.progress import Progress
from ..engine.session import Session
from .common import TextProgressBar, cell, interrupt_once, one_line, print_json, print_note, safe_text


QUERY_SYNTAX = """\
query syntax:
  budget lunch       messages with any of the words; those with more of them rank first
  "budget meeting"   the words in that order; a word the analyser splits (year-end,
                     kean@enron.com, 11/22/99) is searched as its pieces in order too
  AND  OR  NOT  -    budget AND draft, budget OR lunch, budget NOT draft, budget -draft
  budg*  bud?et      prefixes and wildcards: the word as typed or its stem
  subject: body: attachments: all:   words in one field only, e.g. subject:budget
  filters            from:ann  to:enron.com  thread:ID  folder:inbox (every Inbox; a path,
                     folder:palmer_holly/inbox, one folder and its subfolders; the kept copy's folder)
                     date:2001  date:2001-03  date:2001-03-05  date:[2001-01 to 2001-06]
                     date:>2001-03 (from April 2001 on)  date:<2002 (up to the end of 2001);
                     date:>=X and date:<=X take X in; date:(2001-03 2001-05) either month;
                     date:{2001-01 to 2001-06} leaves both bounds out (February to May)
  Filters narrow the search: filters of one field are OR-ed (from:ann from:bob: either
  sender), filters of different fields AND-ed (from:ann date:2001: from Ann, in 2001), and
  words beside them must match too. An OR or AND you type is kept as typed
  (from:ann OR date:2001: either), but a NOT in a group leaves its messages out of the
  whole group: power OR NOT gas is power without gas, NOT power OR NOT gas is messages
  with neither; (NOT power) OR gas is gas without power. Dates are the message's own date, as its sender's
  clock showed it (sent at 23:53 -0800 on 2001-03-18: date:2001-03-18).
  Case and Latin or Greek accents do not matter: cafe finds Café, from:jose finds José.
  A word longer than 40 characters (a pasted hash) is not indexed: a query with one is refused.
"""


def register(sub) -> None:
    p = sub.add_parser("init", help="create a project folder")
    p.add_argument("dir", type=Path)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_init)

    p = sub.add_parser("ingest", help="import mailboxes (mbox, maildir, folders of messages, .eml, PST)")
    p.add_argument("dir", type=Path)
    p.add_argument("sources", type=Path, nargs="+")
    p.add_argument("--json", action="store_true")
    p.add_argument("--workers", type=int, default=None, help="worker processes that parse and analyse messages (default: one per core, up to 4; 0 = none)")
    p.set_defaults(func=cmd_ingest)

    p = sub.add_parser("search", help="search a project", description="Search a project's mail.",
                       epilog=QUERY_SYNTAX, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dir", type=Path)
    p.add_argument("query", help="what to search for (see the query syntax below)")
    p.add_argument("--limit", type=int, default=10, help="matches to list (default 10; a huge one lists all; with --protect, of the query's first "
                        "--depth matches, the ones a protected search ranks)")
    p.add_argument("--offset", type=int, default=0, help="matches to skip first (default 0)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--protect", metavar="APPROACH", default=None,
                   help="search and protect: relevance, prefilter, postfilter, demote, joint, joint_postfilter")
    p.add_argument("--persona", default=None, help="whose sensitivities to protect (with --protect)")
    p.add_argument("--cutoff", metavar="POLICY", default=None,
                   help="with --protect: fixed (the default), dynamic, static or threshold")
    p.add_argument("--retrain", action="store_true",
                   help="with --protect: first retrain the ranker if it learned from older judgments (it "
                        "can take minutes; without this an out-of-date ranker is used and a note says so)")
    p.add_argument("--sort", choices=("date", "sender", "subject"), default=None,
                   help="order all matches by date (oldest first), sender or subject instead of by rank "
                        "(missing values last); not with --protect")
    p.add_argument("--descending", action="store_true", help="with --sort: newest / Z first")
    p.set_defaults(func=cmd_search, parser=p)

    # sasc protect train: the ranker a protected search uses (a search trains it too when it has
    # none; one that learned from older judgments is retrained here or by search --retrain)
    group = sub.add_parser("protect", help="search and protect: train the ranker of a protected search")
    gsub = group.add_subparsers(dest="protect_command", metavar="ACTION")
    group.set_defaults(func=lambda args, group=group: (group.print_help(), 2)[1])
    p = gsub.add_parser("train", help="train the ranker of an approach for a persona on the judged topics, and "
                                      "learn its static cutoff and score threshold on a validation fold")
    p.add_argument("dir", type=Path)
    p.add_argument("--persona", required=True)
    p.add_argument("--approach", default="joint",
                   help="relevance, prefilter, postfilter, demote, joint (the default), joint_postfilter")
    p.add_argument("--ranker", default="ca",
                   help="bm25, linear, lambdamart, adarank or ca (the default); lambdamart, adarank and ca maximise "
                        "the objective (joint approaches) or nDCG@k (the others), linear regresses on gain minus "
                        "cost when the objective has costs (joint approaches), else on the grades, bm25 learns "
                        "nothing; --json says which in ranker_objective (null: none)")
    p.add_argument("--objective", default="nCS-DCG@10(cost=12)",
                   help="the joint approaches' objective measure, one where higher is better (F-docs, Withheld, "
                        "Empty are refused); its k is the depth the static and threshold cutoffs are learned at")
    p.add_argument("--depth", type=int, default=200, help="candidates per topic")
    p.add_argument("--json", action="store_true",
                   help="print the result as JSON; static_value and threshold_value are null when not learned "
                        "(cutoff_problem says why); a learned threshold of -inf, every document passes, is "
                        "threshold_value null with threshold_every_document true")
    p.set_defaults(func=cmd_protect_train)

    p = sub.add_parser("show", help="show one document's whole record")
    p.add_argument("dir", type=Path)
    p.add_argument("doc_id")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("stats", help="what a project holds")
    p.add_argument("dir", type=Path)
    p.add_argument("--json", action="store_true")
    p.add_argument("--skipped", action="store_true",
                   help="also list each item an import skipped, with why: after the counts, one a line, its "
                        "location and the reason separated by a tab (in --json: skipped_items, a list of "
                        "{location, reason})")
    p.set_defaults(func=cmd_stats)

    p = sub.add_parser("reindex", help="rebuild the search index from the project store (threads recomputed too)")
    p.add_argument("dir", type=Path)
    p.add_argument("--json", action="store_true", help='print {"reindexed": N}')
    p.set_defaults(func=cmd_reindex)

    p = sub.add_parser("demo", help="build the demo project: synthetic mail with topics and sensitivity judgments")
    p.add_argument("dir", type=Path)
    p.add_argument("--messages", type=int, default=None, help="unique messages (default 3000)")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--no-train", action="store_true", help="do not train the sensitivity classifiers")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("settings", help="show or change project settings")
    p.add_argument("dir", type=Path)
    p.add_argument("--set", metavar="KEY=JSON", action="append", default=[],
                   help='e.g. --set field_weights=\'{"subject": 3}\' --set owner_addresses=\'["me@x.org"]\'')
    p.add_argument("--json", action="store_true", help="(the settings are always printed as JSON)")
    p.set_defaults(func=cmd_settings)


def cmd_init(args) -> int:
    with Session.create(args.dir) as s:
        if args.json:
            print_json({"project": str(s.root)})
        else:
            print(f"created project {s.root}")
    return 0


def cmd_ingest(args) -> int:
    bar = TextProgressBar("ingest")
    with Session.open(args.dir) as s:
        report = s.ingest(args.sources, Progress(bar), workers=args.workers)
    bar.finish()
    if args.json:
        print_json(report.to_json())
    else:
        print_ingest_summary(report)
    return 0


def print_ingest_summary(report) -> None:
    rate = (report.ingested + report.duplicates) / report.seconds if report.seconds else 0
    print(f"ingested {report.ingested}, duplicates {report.duplicates}, skipped {len(report.skipped)} "
          f"in {report.seconds:.1f} s ({rate:.0f} messages/s)" + (" - CANCELLED" if report.cancelled else ""))
    for s in report.skipped[:50]:
        print(f"  skipped {one_line(s.source)}: {one_line(s.reason)}")
    if len(report.skipped) > 50:
        print(f"  ... and {len(report.skipped) - 50} more (use --json for all)")


PROTECT_ONLY = (("persona", "--persona"), ("cutoff", "--cutoff"), ("show_withheld", "--show-withheld"),
                ("retrain", "--retrain"), ("depth", "--depth"))


def cmd_search(args) -> int:
    if getattr(args, "protect", None):
        if args.sort is not None:
            args.parser.error("--sort is not available with --protect: a protected list is in the order "
                              "its approach ranks it")
        from .rank_cmds import cmd_protected_search
        if args.cutoff is None:
            args.cutoff = "fixed"
        return cmd_protected_search(args)
    # Options of protected search given without --protect would be ignored: the searcher would
    # get the unprotected list while asking for a protected one. A usage error (exit 2).
    given = [flag for name, flag in PROTECT_ONLY if getattr(args, name, None) not in (None, False)]
    if given:
        args.parser.error(f"{' and '.join(given)} {'needs' if len(given) == 1 else 'need'} --protect APPROACH: "
                          "without it the search is not protected")
    if args.descending and args.sort is None:
        args.parser.error("--descending needs --sort date, sender or subject")
    with Session.open(args.dir) as s:
        result = s.search(args.query, limit=args.limit, offset=args.offset, sort=args.sort,
                          descending=args.descending)
    if args.json:
        print_json(result.to_json())
        return 0
    print(f"{result.total} hits ({result.ms:.1f} ms)")
    for h in result.hits:
        # (the sender's text: its control characters escaped, so one hit stays one line)
        print(f"{h.rank:>4}  {h.score:7.3f}  {cell(h.date, 10)}  {cell(h.sender, 28)}  "
              f"{cell(h.subject, 60).rstrip()}")
    return 0


def cmd_protect_train(args) -> int:
    bar = TextProgressBar("training")
    with Session.open(args.dir) as s:
        info = s.train_protection(args.persona, args.approach, ranker=args.ranker, objective=args.objective,
                                  depth=args.depth, progress=Progress(bar))
    bar.finish()
    if args.json:
        print_json({k: v for k, v in info.items() if k != "columns"})
        return 0
    if info["topics"] == 0:
        print(f"no judged topics: {args.approach} searches for {args.persona} rank by BM25 until topics and "
              f"relevance judgments are imported (then the next search trains {args.ranker})")
        return 0
    print(f"trained {info['ranker']} for {args.approach} ({args.persona}) on {info['topics']} judged topics "
          f"in {info['seconds']:.1f} s")
    if info.get("static_value") is None:
        print(f"static and threshold cutoffs not learned: {info.get('cutoff_problem')}")
    else:
        t = info["threshold_value"]
        print(f"learned on {len(info['validation_topics'])} validation topics: static cutoff {info['static_value']}, "
              f"score threshold {'none (every document)' if t == float('-inf') else format(t, '.4f')}")
    return 0


def cmd_show(args) -> int:
    with Session.open(args.dir) as s:
        doc = s.document(args.doc_id)
    if args.json:
        print_json(doc)
        return 0
    for key in ("doc_id", "date", "from", "to", "cc", "bcc", "subject", "folder", "thread_id"):
        if doc.get(key):
            print(f"{key:>10}: {one_line(doc[key])}")
    for a in doc["attachments"]:
        print(f"attachment: {one_line(a['name'])} ({one_line(a['mime_type'])}, {a['size']} bytes)")
    print()
    print(safe_text(doc["body"]))   # (its lines and tabs kept; ESC and other controls escaped)
    return 0


def cmd_stats(args) -> int:
    with Session.open(args.dir) as s:
        stats = s.stats()
        skipped = s.skipped() if getattr(args, "skipped", False) else None
    if args.json:
        if skipped is not None:  # (only when asked: the other keys are a contract)
            stats["skipped_items"] = [{"location": d["source"], "reason": d["reason"]} for d in skipped]
        print_json(stats)
    else:
        for k, v in stats.items():
            print(f"{k:>12}: {one_line(v)}")
        if skipped:
            print("skipped items (location, reason):")
            for d in skipped:
                print(f"  {one_line(d['source'])}\t{one_line(d['reason'])}")
    return 0


def cmd_reindex(args) -> int:
    bar = TextProgressBar("reindex")
    with Session.open(args.dir, Progress(bar)) as s:
        # An index of another version, damaged or missing was just rebuilt whole by opening: once
        # is enough, unless something kept it from indexing every message.
        done = s.rebuilt_on_open is not None and s.complete_index() == 0
        n = s.rebuilt_on_open if done else s.reindex(Progress(bar))
    bar.finish()
    if getattr(args, "json", False):
        print_json({"reindexed": n})
    else:
        print(f"re-indexed {n} documents")
    return 0


def cmd_demo(args) -> int:
    from ..engine.demo_project import DEMO_MESSAGES, DEMO_SEED, build_demo_project

    if args.messages is not None and args.messages < 1:
        raise InputError(f"--messages must be at least 1, got {args.messages}")
    bar = TextProgressBar("demo")
    notes: list[str] = []   # e.g. a persona too few judgments to train a model on
    # Built aside and moved into place when done (an existing empty folder, even the current one,
    # is filled, not replaced): stopped early, it leaves dir as it was, missing or empty. The
    # root returned is resolved, so `sasc demo .` reports and opens the real folder.
    # A second Ctrl+C must not cut short the removal of the unfinished build (interrupt_once).
    try:
        with interrupt_once():
            root = build_demo_project(args.dir, n_messages=DEMO_MESSAGES if args.messages is None else args.messages,
                                      seed=DEMO_SEED if args.seed is None else args.seed,
                                      progress=Progress(bar), train=not args.no_train, notes=notes)
    finally:
        bar.finish()  # the error or "interrupted" goes on a line of its own
    with Session.open(root) as s:
        stats = s.stats()
    if args.json:
        print_json(stats)
    else:
        print(f"demo project ready at {root}: {stats['messages']} messages, {stats['topics']} topics, "
              f"personas {', '.join(stats['personas'])}")
    for note in notes:
        print_note(note)
    return 0


def cmd_settings(args) -> int:
    values = {}
    for item in args.set:
        key, eq, raw = item.partition("=")
        if not eq:
            raise InputError(f"--set takes KEY=JSON, got {item!r}")
        try:
            values[key] = json.loads(raw)
        except ValueError as exc:
            raise InputError(f"--set {key}: the value is not JSON ({exc})") from exc
    with Session.open(args.dir) as s:
        settings = s.update_settings(**values) if values else s.settings()
    print_json(settings)
    return 0
