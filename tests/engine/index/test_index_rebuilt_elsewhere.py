"""An open session (the GUI's) sees the index another process rebuilt and added to. A rebuilt
index ('sasc reindex') numbers its generations from 0 again, so after it and one import its
table of contents was _MAIN_2.toc again: the open session's searcher, of the old generation 2,
counted as up to date and missed the new mail (0 of 5) until some later commit. The real
command line in other processes, real mailboxes."""
from __future__ import annotations

import os
import subprocess
import sys

from mailfactory import mbox, msg

from sasc_desktop.engine.session import Session

ENV = {**os.environ, "SASC_BLOCK_QT": "1"}


def sasc(*args):
    run = subprocess.run([sys.executable, "-m", "sasc_desktop.cli", *map(str, args)], capture_output=True,
                         text=True, env=ENV, timeout=300)
    assert run.returncode == 0, run.stderr


def test_a_session_sees_mail_added_after_another_process_rebuilt_the_index(tmp_path):
    for word in ("alpha", "beta", "gamma"):
        (tmp_path / f"{word}.mbox").write_bytes(mbox([msg(subject=f"{word} {i}", message_id=f"<{word}{i}@x>")
                                                      for i in range(5)]))
    root = tmp_path / "p"
    sasc("init", root)
    sasc("ingest", root, tmp_path / "alpha.mbox")
    sasc("ingest", root, tmp_path / "beta.mbox")
    with Session.open(root) as s:
        assert (s.search("alpha").total, s.search("beta").total) == (5, 5)
        generation = s.index.searcher().ixreader.generation()
        sasc("reindex", root)
        sasc("ingest", root, tmp_path / "gamma.mbox")
        assert s.index.ix.latest_generation() == generation   # (the case: the same number, another index)
        assert [s.search(w).total for w in ("alpha", "beta", "gamma")] == [5, 5, 5]
