"""A chain of ANDNOT, ANDMAYBE or REQUIRE took time doubling with each operator: Whoosh's
BinaryGroup.query read both sides twice (once to test for nothing, once to build), so 'plans
ANDNOT x ANDNOT x ...' read its first word 2^n times (16 ANDNOTs: 9 s to parse and 9 s more to
search; 20: minutes, the GUI's search never ending). Each side is read once now: every word of
the query is analysed once per field it is searched in. Found while checking review 11's deeply
nested queries. Real parser, real project."""
from __future__ import annotations

import pytest
from mailfactory import module_project

from sasc_desktop.engine.index.query import _ImplicitGroup, _Parser
from whoosh.qparser import MultifieldPlugin

project = module_project([
    dict(message_id="<a@x>", subject="plans", body="some plans here"),
    dict(message_id="<b@x>", subject="plans", body="plans and lunch"),
    dict(message_id="<c@x>", subject="plans", body="plans and budget"),
    dict(message_id="<d@x>", subject="lunch", body="lunch budget"),
])


class CountingParser(_Parser):
    """The project's parser, counting the words it turns into queries."""
    words = 0

    def term_query(self, *args, **kwargs):
        CountingParser.words += 1
        return super().term_query(*args, **kwargs)


@pytest.mark.parametrize("op", ["ANDNOT", "ANDMAYBE", "REQUIRE"])
def test_each_word_is_read_once(project, op):
    fields = ["subject", "body", "attachments"]
    parser = CountingParser(None, project.index.query_schema(), group=_ImplicitGroup)
    parser.add_plugin(MultifieldPlugin(fields))
    CountingParser.words = 0
    q = parser.parse("plans" + f" {op} lunch" * 12, normalize=False)
    assert CountingParser.words == 13 * len(fields)      # (was 36,858 for 12 ANDNOTs)
    (node,) = q.subqueries      # (the words side by side: a group of one)
    depth = 0
    while hasattr(node, "a"):
        depth, node = depth + 1, node.a
    assert depth == 12


@pytest.mark.parametrize("query, want", [
    ("plans" + " ANDNOT lunch" * 9 + " ANDNOT budget" * 9, ["a@x"]),
    ("plans" + " ANDNOT zzz" * 20, ["a@x", "b@x", "c@x"]),
    ("plans" + " REQUIRE plans" * 20, ["a@x", "b@x", "c@x"]),
    ("plans" + " ANDMAYBE lunch" * 20, ["a@x", "b@x", "c@x"]),
])
def test_long_chains_answer(project, query, want):
    r = project.search(query, limit=10)
    assert (r.total, sorted(h.doc_id for h in r.hits)) == (len(want), want)
