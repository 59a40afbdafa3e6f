"""A `sasc reindex` in another process that stops at its first progress step (holding the
import lock, the index emptied, every message marked unindexed) and waits there until it is
interrupted: what an open session (the GUI's) meets while another program rebuilds the index."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SCRIPT = """
import sys, time
from sasc_desktop.engine.progress import Progress
from sasc_desktop.engine.session import Session

def step(done, total, message):
    print("held", total, flush=True)
    time.sleep(600)

with Session.open(sys.argv[1]) as s:
    s.reindex(Progress(step))
"""


def held_reindex(root: Path, messages: int) -> subprocess.Popen:
    """The process, once it holds the rebuild of ``root``'s ``messages`` messages."""
    child = subprocess.Popen([sys.executable, "-c", SCRIPT, str(root)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env={**os.environ, "SASC_BLOCK_QT": "1"})
    line = child.stdout.readline()
    assert line == f"held {messages}\n", (line, child.stderr.read() if child.poll() is not None else "")
    return child
