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
