"""Ctrl+C while `sasc` starts (building its parser imports the engine: seconds on a cold start)
ends it as at any other moment: "sasc: interrupted", exit status 130, no traceback. A real
process and a real SIGINT: the parser builder is replaced by one that signals the process and
waits, so the signal lands while the parser is being built, every time."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]

SCRIPT = """
import os, signal, sys, time
import sasc_desktop.cli as cli
real = cli.build_parser
def build_parser():
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(30)  # the signal interrupts this
    return real()
cli.build_parser = build_parser
sys.exit(cli.main(["--help"]))
"""

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGINT") or os.name != "posix", reason="POSIX signals")


def test_sigint_while_the_parser_is_built():
    env = dict(os.environ, SASC_BLOCK_QT="1", PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (130, "", "sasc: interrupted\n")


def test_help_and_usage_errors_unchanged():
    env = dict(os.environ, SASC_BLOCK_QT="1", PYTHONPATH=str(ROOT))
    run = lambda *a: subprocess.run([sys.executable, "-m", "sasc_desktop.cli", *a], cwd=ROOT, env=env,  # noqa: E731
                                    capture_output=True, text=True, timeout=120)
    ok = run("--help")
    assert ok.returncode == 0 and ok.stdout.startswith("usage: sasc") and ok.stderr == ""
    bad = run("no-such-command")
    assert bad.returncode == 2 and "invalid choice: 'no-such-command'" in bad.stderr and "Traceback" not in bad.stderr
