"""The words a search highlights are those it looks for: a NOT (or ANDNOT's right side) turns the
sense round, so a word under two of them is looked for again. NOT (NOT power NOT gas) finds
power or gas, and highlighted nothing."""
from __future__ import annotations

import pytest
from mailfactory import module_project


MAILS = [
    dict(message_id="<p@x>", subject="Power", body="power prices"),
    dict(message_id="<g@x>", subject="Gas", body="gas prices"),
    dict(message_id="<pg@x>", subject="Both", body="power and gas"),
    dict(message_id="<n@x>", subject="Lunch", body="lunch on friday"),
]


project = module_project(MAILS)


@pytest.mark.parametrize("query, ids, terms", [
    ("NOT (NOT power NOT gas)", {"p@x", "g@x", "pg@x"}, ("ga", "power")),
    ("NOT (-power -gas)", {"p@x", "g@x", "pg@x"}, ("ga", "power")),
    ("NOT (NOT power)", {"p@x", "pg@x"}, ("power",)),
    ("NOT (NOT power) prices", {"p@x"}, ("power", "price")),   # (prices, without what has no power)
    ("NOT (power NOT gas)", {"g@x", "pg@x", "n@x"}, ("ga",)),
    ("NOT (power ANDNOT gas)", {"g@x", "pg@x", "n@x"}, ("ga",)),
    ("prices NOT (NOT power)", {"p@x"}, ("power", "price")),
    ("prices -(-power)", {"p@x"}, ("power", "price")),
    ("power NOT gas", {"p@x"}, ("power",)),                 # one NOT: as before
    ("NOT power NOT gas", {"n@x"}, ()),
    ("power OR gas", {"p@x", "g@x", "pg@x"}, ("ga", "power")),
])
def test_terms_follow_the_sense_of_each_not(project, query, ids, terms):
    r = project.search(query, limit=100)
    assert {h.doc_id for h in r.hits} == ids
    assert r.terms == terms
