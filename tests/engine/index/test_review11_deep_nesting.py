"""A query nesting groups deeper than 100 (brackets inside brackets; a chain of ANDNOT, ANDMAYBE or
REQUIRE nests too, each in the one before) is refused with the reason. 500 nested brackets ended
in a RecursionError traceback (exit 1), 1,000 in 'maximum recursion depth exceeded' quoting the
whole query; a long query is quoted by its start and length. Up to 100 still searches. Real
project, real CLI."""
from __future__ import annotations

import pytest
from mailfactory import module_project

from sasc_desktop.cli import main
from sasc_desktop.engine.errors import QueryError

project = module_project([
    dict(message_id="<a@x>", subject="plans", body="some plans here"),
    dict(message_id="<b@x>", subject="lunch", body="lunch plans"),
    dict(message_id="<c@x>", subject="budget", body="the budget"),
])

WHY = ("groups are nested more than 100 deep (each bracket inside another, and each ANDNOT, ANDMAYBE or "
       "REQUIRE after another, is one more); write it with fewer")


def refused(query: str) -> str:
    shown = query if len(query) <= 80 else query[:60] + f"\u2026 ({len(query):,} characters)"
    return f"cannot understand the query {shown!r}: {WHY}"


def ids(s, query):
    r = s.search(query, limit=10)
    return r.total, sorted(h.doc_id for h in r.hits)


@pytest.mark.parametrize("query, want", [
    ("(" * 100 + "plans" + ")" * 100, ["a@x", "b@x"]),
    ("-(" * 99 + "plans" + ")" * 99, ["c@x"]),                 # (99 NOTs: NOT plans)
    ("plans" + " ANDNOT zz" * 99 + " ANDNOT lunch", ["a@x"]),
    ("(" * 50 + "plans" + " ANDNOT lunch" * 50 + ")" * 50, ["a@x"]),
    ('"' + "(" * 300 + 'some plans"', ["a@x"]),             # (in quotes: a phrase, not groups)
    ("plans" + " OR budget" * 500, ["a@x", "b@x", "c@x"]),   # (OR and AND do not nest)
    ("plans" + " AND plans" * 500, ["a@x", "b@x"]),
])
def test_up_to_100_deep_searches(project, query, want):
    assert ids(project, query) == (len(want), want)


@pytest.mark.parametrize("query", [
    "(" * 101 + "plans" + ")" * 101,
    "-(" * 101 + "plans" + ")" * 101,
    "(" * 500 + "plans" + ")" * 500,
    "(" * 1000 + "plans" + ")" * 1000,
    "plans" + " ANDNOT zz" * 101,
    "plans" + " REQUIRE plans" * 101,
    "(" * 60 + "plans" + " ANDMAYBE lunch" * 41 + ")" * 60,
    "date:(" * 101 + "2001" + ")" * 101,
])
def test_deeper_is_refused(project, query):
    with pytest.raises(QueryError) as err:
        project.search(query)
    assert str(err.value) == refused(query)
    with pytest.raises(QueryError) as err:
        project.index.ranked(query)
    assert str(err.value) == refused(query)


def test_the_cli_says_so(project, capsys):
    query = "(" * 500 + "plans" + ")" * 500
    assert main(["search", str(project.paths.root), query]) == 2
    assert capsys.readouterr().err == f"sasc: error: {refused(query)}\n"
