"""The ``sasc`` command: every engine capability, headless, with --json output.

Each command group lives in its own module with a ``register(subparsers)`` function that adds
its sub-commands; a sub-command's handler is set with ``parser.set_defaults(func=handler)`` and
returns a process exit code. Handlers raise :class:`SascError` for user errors; ``main`` prints
them as one clear line (exit 2), never a traceback.
"""
from __future__ import annotations

import argparse
import importlib
import sys

from ..engine.errors import SascError

# Modules under sasc_desktop.cli that add sub-commands (missing ones are skipped).
COMMAND_MODULES = [
    "project_cmds",    # init, ingest, search, show, demo, stats
    "evaluate_cmds",   # evaluate
    "classify_cmds",   # judgments, personas, classify
    "rank_cmds",       # experiment, protected search options
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="sasc", description="SASC Desktop: search among sensitive content.")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"{__name__}.{name}":
                continue
            raise
        module.register(subparsers)
    return parser


def _tolerant_output() -> None:
    """stdout and stderr write a character their encoding lacks (Japanese on a cp1252 console,
    anything beyond ASCII under LC_ALL=C) as a backslash escape instead of ending the command
    with a UnicodeEncodeError part-way. (--json output escapes such characters itself:
    common.print_json.)"""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None and getattr(stream, "errors", None) in ("strict", "surrogateescape"):
            try:
                reconfigure(errors="backslashreplace")
            except (ValueError, OSError):   # (a closed or odd stream: left as it is)
                pass


def main(argv: list[str] | None = None) -> int:
    _tolerant_output()
    try:
        # (Inside: building the parser imports the engine, seconds on a cold start, and a
        # Ctrl+C then must end the command as one at any other moment does.)
        parser = build_parser()
        args = parser.parse_args(dash_query(parser, list(sys.argv[1:] if argv is None else argv)))
        if not getattr(args, "func", None):
            parser.print_help()
            return 2
        return int(args.func(args) or 0)
    except SascError as exc:
        from .text import safe_text
        print(f"sasc: error: {safe_text(exc)}", file=sys.stderr)   # (it may quote a header: controls escaped)
        return 2
    except KeyboardInterrupt:
        # Stopping already: a further Ctrl+C must not cut the exit's own cleanup (the pool's
        # shutdown, atexit) and end the process by the signal (-2) instead of exit status 130.
        import signal
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        print("sasc: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into head or a closed pager: stop quietly
        import os
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def dash_query(parser: argparse.ArgumentParser, argv: list[str]) -> list[str]:
    """``argv`` with a search query that starts with '-' (``-budget``: mail without the word)
    kept a query: argparse takes any such word for an option ("the following arguments are
    required: query"). Only for ``search``: a word starting with '-' that is none of its options
    and no option's value gets a leading space, which the query parser ignores. A word starting
    with '--' is left to argparse (its unique prefixes, ``--lim 5``, are options there)."""
    sub = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)
    if not argv or sub is None or argv[0] != "search" or "search" not in sub.choices:
        return argv
    options = sub.choices["search"]._option_string_actions
    out, takes_value = argv[:1], False
    for arg in argv[1:]:
        if takes_value:
            takes_value = False
        elif arg == "--":
            out += argv[len(out):]
            break
        elif arg.startswith("--"):
            name = arg.split("=", 1)[0]
            matches = [o for o in options if o == name] or [o for o in options if o.startswith(name)]
            if len(matches) == 1:          # (else argparse says it is unknown or ambiguous)
                takes_value = options[matches[0]].nargs != 0 and "=" not in arg
        elif arg.startswith("-") and len(arg) > 1:
            action = options.get(arg)
            if action is None:
                arg = " " + arg
            else:
                takes_value = action.nargs != 0
        out.append(arg)
    return out


if __name__ == "__main__":
    sys.exit(main())
