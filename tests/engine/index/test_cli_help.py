"""`sasc search --help` documents the query syntax, and every example it gives is a query search
takes (no QueryError) on a real project."""
from __future__ import annotations

import subprocess
import sys

from mailfactory import ingested_project

from sasc_desktop.cli.project_cmds import QUERY_SYNTAX

EXAMPLES = ["budget lunch", '"budget meeting"', "year-end", "kean@enron.com", "11/22/99", "budget AND draft",
            "budget OR lunch", "budget NOT draft", "budget -draft", "budg*", "bud?et", "subject:budget",
            "from:ann", "to:enron.com", "thread:ID", "folder:inbox", "date:2001", "date:2001-03", "date:2001-03-05",
            "date:[2001-01 to 2001-06]", "date:>2001-03", "date:<2002", "date:>=2001", "date:<=2001",
            "from:ann from:bob", "from:ann date:2001", "from:ann OR date:2001"]


def test_every_example_is_in_the_help_and_searches(tmp_path):
    for example in EXAMPLES:
        assert example.split(":")[0] in QUERY_SYNTAX
    s = ingested_project(tmp_path, [dict(message_id="<h@x>", subject="budget", body="the year-end budget meeting")])
    try:
        for example in EXAMPLES:
            s.search(example)
    finally:
        s.close()


def test_the_help_shows_it():
    r = subprocess.run([sys.executable, "-m", "sasc_desktop.cli", "search", "--help"], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0 and QUERY_SYNTAX.strip() in r.stdout


def test_the_help_says_what_a_not_in_a_group_does_and_search_does_it(tmp_path):
    """An OR typed is kept as typed, but a NOT in the group leaves its messages out of the whole
    group (tests/engine/index/test_not_oracle.py): the help said only "kept as typed"."""
    text = " ".join(QUERY_SYNTAX.split())
    assert ("but a NOT in a group leaves its messages out of the whole group: power OR NOT gas is power without "
            "gas, NOT power OR NOT gas is messages with neither; (NOT power) OR gas is gas without power") in text
    s = ingested_project(tmp_path, [dict(message_id=f"<{i}@x>", subject="note", body=body) for i, body in
                                    enumerate(["power", "gas", "power and gas", "lunch"])])
    try:
        found = lambda q: {h.doc_id for h in s.search(q, limit=10).hits}  # noqa: E731
        assert found("power OR NOT gas") == {"0@x"}
        assert found("NOT power OR NOT gas") == {"3@x"}
        assert found("(NOT power) OR gas") == {"1@x"}
    finally:
        s.close()
