"""A limit or offset beyond SQLite's largest integer (2**63 - 1) is taken as that, "every match" or
"past the last", in every search path (rank order fast and through Whoosh, sorted), and on the
command line: it was an OverflowError traceback from the sorted search."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
from mailfactory import module_project

from sasc_desktop.engine.errors import InputError
from sasc_desktop.engine.session import MAX_COUNT

MAILS = [dict(message_id=f"<m{i}@x>", subject=f"power {i}", body="power and gas" if i % 2 else "power only",
              date=f"Mon, {i + 1:02d} Jan 2001 10:00:00 +0000") for i in range(5)]
HUGE = 10**20


project = module_project(MAILS)


QUERIES = ["power", "power NOT gas", '"power only"']   # fast path, Whoosh's, a phrase
SORTS = [None, "date", "sender", "subject"]


@pytest.mark.parametrize("sort", SORTS)
@pytest.mark.parametrize("query", QUERIES)
def test_huge_limit_is_every_match(project, query, sort):
    every = project.search(query, limit=100, sort=sort)
    r = project.search(query, limit=HUGE, sort=sort)
    assert r.total == every.total and [h.doc_id for h in r.hits] == [h.doc_id for h in every.hits]
    assert [h.doc_id for h in project.search(query, limit=MAX_COUNT, offset=MAX_COUNT, sort=sort).hits] == []


@pytest.mark.parametrize("sort", SORTS)
@pytest.mark.parametrize("query", QUERIES)
def test_huge_offset_is_past_the_last(project, query, sort):
    r = project.search(query, limit=10, offset=HUGE, sort=sort)
    assert r.hits == () and r.total == project.search(query, sort=sort).total
    r = project.search(query, limit=HUGE, offset=HUGE, sort=sort)
    assert r.hits == ()


@pytest.mark.parametrize("kwargs, message", [
    (dict(limit=0), "limit must be at least 1"),
    (dict(offset=-1), "offset must be 0 or more"),
    (dict(limit=2.5), "limit must be a whole number, got 2.5"),
    (dict(offset="3"), "offset must be a whole number, got '3'"),
])
def test_bad_limits_are_input_errors(project, kwargs, message):
    with pytest.raises(InputError, match=message):
        project.search("power", **kwargs)


def run_cli(*args):
    return subprocess.run([sys.executable, "-c", "import sys; from sasc_desktop.cli import main; sys.exit(main())",
                           *map(str, args)], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("extra", [["--sort", "date", "--limit", str(HUGE)], ["--sort", "date", "--offset", str(HUGE)],
                                   ["--limit", str(HUGE)], ["--offset", str(HUGE)]])
def test_cli_takes_huge_limits(project, extra):
    r = run_cli("search", project.root, "power", *extra, "--json")
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    out = json.loads(r.stdout)
    assert out["total"] == 5 and len(out["hits"]) == (5 if "--limit" in extra else 0)
