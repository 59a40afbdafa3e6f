"""Search over a real Whoosh index: syntax, fields, dates, errors, CLI shapes; fast analysis
equals Whoosh's own analysers."""
from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter

import pytest
from hypothesis import given, settings, strategies as st
from mailfactory import module_project

from sasc_desktop.engine.errors import QueryError
from sasc_desktop.engine.index.schema import (address_analyzer, address_items, analyse_terms, build_schema,
                                              frequency_items, positions_items)

MAILS = [
    dict(message_id="<a@x>", subject="Pipeline budget review", body="The gas pipeline budget is over by ten percent.",
         frm="Drew Fossum <drew.fossum@enron.com>", to="kay.mann@enron.com", date="Mon, 05 Feb 2001 10:00:00 +0000"),
    dict(message_id="<b@x>", subject="Lunch", body="Lunch on Friday? The budget allows pizza.",
         frm="kay.mann@enron.com", to="drew.fossum@enron.com", date="Thu, 15 Mar 2001 12:00:00 +0000"),
    dict(message_id="<c@x>", subject="Contract draft", body="Attached is the pipeline contract draft.",
         frm="Sara Shackleton <sara.shackleton@enron.com>", to="kay.mann@enron.com, legal@firm.com",
         date="Sun, 01 Apr 2001 09:00:00 +0000"),
    dict(message_id="<d@x>", subject="Weekend", body="Gas prices and the weather this weekend.",
         frm="someone@example.org", to="sara.shackleton@enron.com", date="Mon, 15 Jan 2001 08:00:00 +0000"),
]


project = module_project(MAILS)


def ids(session, query, limit=10):
    return sorted(h.doc_id for h in session.search(query, limit=limit).hits)


@pytest.mark.parametrize("query, expected", [
    ("budget", ["a@x", "b@x"]),
    ("budgets", ["a@x", "b@x"]),                       # stemmed
    ('"pipeline budget"', ["a@x"]),                      # phrase
    ('"budget pipeline"', []),
    ("pipeline AND contract", ["c@x"]),
    ("pipeline OR lunch", ["a@x", "b@x", "c@x"]),
    ("pipeline NOT contract", ["a@x"]),
    ("gas -nothing", ["a@x", "d@x"]),
    ("subject:lunch", ["b@x"]),
    ("from:fossum", ["a@x"]),
    ("from:drew.fossum@enron.com", ["a@x"]),
    ("to:enron.com", ["a@x", "b@x", "c@x", "d@x"]),
    ("to:firm.com", ["c@x"]),
    ("pipeline to:legal@firm.com", ["c@x"]),
    ("date:2001-03", ["b@x"]),
    ("date:[2001-01-01 to 2001-02-01]", ["d@x"]),
    ("date:>2001-03-01", ["b@x", "c@x"]),
    ("budget date:>2001-03-01", ["b@x"]),
    ("all:fossum", ["a@x"]),                           # the display name; addresses are one token here
    ("all:lunch", ["b@x"]),
])
def test_search_syntax(project, query, expected):
    assert ids(project, query) == expected


def test_ranking_and_totals(project):
    r = project.search("pipeline", limit=1)
    assert r.total == 2 and len(r.hits) == 1
    assert r.hits[0].doc_id == "a@x"        # subject and body beat body alone
    assert r.hits[0].subject == "Pipeline budget review"
    assert [h.rank for h in project.search("pipeline", limit=1, offset=1).hits] == [2]


@pytest.mark.parametrize("query, message", [
    ("", "the query is empty"),
    ("nosuchfield:x", "unknown field 'nosuchfield'"),
    ("date:banana", "date"),
    ("the and of", "no searchable words"),
])
def test_malformed_queries_raise_query_error(project, query, message):
    with pytest.raises(QueryError, match=message):
        project.search(query)


def run_cli(*args):
    return subprocess.run([sys.executable, "-c", "import sys; from sasc_desktop.cli import main; sys.exit(main())",
                           *map(str, args)], capture_output=True, text=True, timeout=120)


def test_cli_search_show_json_and_errors(project):
    r = run_cli("search", project.root, "pipeline", "--limit", "5", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert set(out) == {"hits", "total", "ms"} and out["total"] == 2
    assert set(out["hits"][0]) == {"doc_id", "score", "subject", "from", "date"}
    assert out["hits"][0] == {**out["hits"][0], "doc_id": "a@x", "subject": "Pipeline budget review",
                              "from": "Drew Fossum <drew.fossum@enron.com>", "date": "2001-02-05T10:00:00+00:00"}
    r = run_cli("show", project.root, "c@x", "--json")
    doc = json.loads(r.stdout)
    assert doc["doc_id"] == "c@x" and doc["to"] == "kay.mann@enron.com, legal@firm.com"
    assert {"from", "to", "cc", "bcc", "subject", "body", "attachments", "copies", "thread", "notes",
            "references", "date", "message_id"} <= set(doc)
    r = run_cli("search", project.root, "nosuchfield:x")
    assert r.returncode == 2
    assert "Traceback" not in r.stderr + r.stdout
    assert len((r.stderr + r.stdout).strip().splitlines()) == 1
    assert "unknown field" in r.stderr + r.stdout


# --- the fast analysis is Whoosh's analysis ---------------------------------------------------
SCHEMA = build_schema()
text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=300) | st.lists(
    st.sampled_from(["The", "running", "runs", "a", "I", "x.y.z", "e-mail", "don't", "Ünïcödé", "ΣΊΣΥΦΟΣ",
                     "İstanbul", "Straße", "Ærø", "ガス", "ﬁnance", "cafe\u0301", "Йогурт", "\u0418\u0306", "\u30ab\u3099", "\U0001d401\U0001d414", "a\u0301" * 21,
                     "gro\u00df" * 10, "th\u00e9", "\u00f3n", "TH\u00c9", "3.14", "***", "co-operate", "a" * 41, "ab", "\n", "  ", "<bob@x.org>"]),
    max_size=60).map(" ".join)


@settings(max_examples=300, deadline=None)
@given(text)
def test_fast_analysis_equals_whoosh(value):
    whoosh_body = sorted(type(SCHEMA["body"]).__mro__[1].index(SCHEMA["body"], value))
    assert sorted(positions_items(*analyse_terms(value))) == whoosh_body
    whoosh_all = sorted(type(SCHEMA["all"]).__mro__[1].index(SCHEMA["all"], value))
    assert sorted(frequency_items(Counter(analyse_terms(value)[1]))) == whoosh_all
    whoosh_to = sorted(type(SCHEMA["to"]).__mro__[1].index(SCHEMA["to"], value))
    assert sorted(address_items(value)) == whoosh_to
    assert address_analyzer() is not None


@pytest.mark.parametrize("query", ["budget", "pipeline lunch gas", "subject:lunch OR body:weather", "budget pipeline",
                                   "pipeline AND gas", '"pipeline budget"', "gas NOT weekend", "nothingmatches"])
def test_fast_total_equals_whoosh_count(project, query):
    q = project.index.parse(query)
    expected = len(project.index.searcher().search(q, limit=None))
    assert project.search(query, limit=1).total == expected
