"""Opening a project whose index is whole never takes the project's import lock: the index is
checked (and the messages counted) without it, and the lock is taken only when a rebuild seems
needed. The reviewer's case: a loop opening the project (`watch sasc stats P`) beside a loop of
imports (`sasc ingest P`): each open held the lock for its check, 45-70 ms, and most imports
started meanwhile were refused 'another import into this project is running' (182 ok, 1 busy
before; 27 ok, 168 busy after 2833ea1). Real projects, real processes, the real OS lock."""
from __future__ import annotations

import os
import random
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from sasc_desktop.engine.ingest.importer import IMPORT_LOCK
from sasc_desktop.engine.procpool import try_lock_file, unlock_file
from sasc_desktop.engine.project.store import ProjectBusyError
from sasc_desktop.engine.session import Session

from test_store_index_rebuild import check_whole, project, write_mail

ENV = {**os.environ, "SASC_BLOCK_QT": "1"}


def test_opening_a_whole_project_never_touches_the_import_lock(tmp_path):
    """The lock file is made by the first attempt to take the lock (opened with O_CREAT): with
    it removed (no process holds it), opening the project, as a session or by a command, leaves
    none behind."""
    root = project(tmp_path)
    lock = root / "index" / IMPORT_LOCK
    lock.unlink()
    for _ in range(3):
        with Session.open(root) as s:
            assert s.notes == [] and s.stats()["unindexed"] == 0
            assert s.search("pipeline").total == 4
    run = subprocess.run([sys.executable, "-m", "sasc_desktop.cli", "stats", str(root), "--json"],
                         capture_output=True, text=True, env=ENV, timeout=120)
    assert run.returncode == 0 and run.stderr == ""
    assert not lock.exists()
    with Session.open(root) as s:       # an import takes it, as before
        s.ingest([write_mail(tmp_path / "more", 12, 3)], workers=0)
    assert lock.exists()
    check_whole(root, 15)


def test_a_whole_project_opens_at_once_while_another_process_imports(tmp_path):
    """While another process holds the import lock, a whole project opens without waiting
    for it (nothing to rebuild, nothing to repair) and is searched as it is."""
    root = project(tmp_path)
    fd, busy = try_lock_file(root / "index" / IMPORT_LOCK)   # (held against this process's sessions too)
    assert fd is not None and not busy
    try:
        with Session.open(root) as s:
            assert s.notes == [] and s.search("pipeline").total == 4
    finally:
        unlock_file(fd)


OPENER = textwrap.dedent("""
    import os, sys
    from sasc_desktop.engine.project.store import ProjectBusyError
    from sasc_desktop.engine.session import Session
    root, count, stop = sys.argv[1:4]
    ok = busy = 0
    while not os.path.exists(stop):
        try:
            Session.open(root).close()
            ok += 1
        except ProjectBusyError:
            busy += 1
        with open(count + ".new", "w") as f:
            f.write(str(ok + busy))
        os.replace(count + ".new", count)
    print(ok, busy, flush=True)
""")


def opens(count: Path) -> int:
    try:
        return int(count.read_text())
    except FileNotFoundError:
        return 0


def test_a_loop_of_opens_does_not_refuse_a_loop_of_imports(tmp_path):
    """Another process opens the project again and again (as `watch sasc stats P` does) from
    before the first import here to after the last; between two imports it opens it at least
    once more (so the imports start at any point of an open, not only while the last import
    held the lock). Every import runs (none is refused as busy), every open succeeds."""
    root = project(tmp_path)
    mail, count, stop = tmp_path / "mail", tmp_path / "count", tmp_path / "stop"
    opener = subprocess.Popen([sys.executable, "-c", OPENER, str(root), str(count), str(stop)],
                              stdout=subprocess.PIPE, text=True, env=ENV)
    refused = ran = 0
    rng = random.Random(5)
    try:
        with Session.open(root) as s:
            for _ in range(30):
                seen = opens(count)
                while opens(count) < seen + 1 and opener.poll() is None:
                    time.sleep(0.001)
                time.sleep(rng.uniform(0, 0.03))   # (at any point of the next open)
                try:
                    report = s.ingest([mail], workers=0)
                except ProjectBusyError:
                    refused += 1
                else:
                    ran += 1
                    assert report.ingested == 0
    finally:
        stop.touch()
        out, _ = opener.communicate(timeout=120)
    assert opener.returncode == 0
    opened, busy = map(int, out.split())
    assert (ran, refused) == (30, 0)
    assert opened >= 30 and busy == 0
    check_whole(root)
