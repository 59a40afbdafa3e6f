"""word^0 (Whoosh's boost syntax, which the parser accepts) gave three answers: every match on the
plain-word path, none once a filter joined it, and from Whoosh itself the first match of each
index segment and block (2 of 15 in a two-segment demo). It is refused with the reason."""
from __future__ import annotations

import pytest

from sasc_desktop.engine.errors import QueryError
from sasc_desktop.engine.session import Session


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    from sasc_desktop.engine.demo_project import build_demo_project
    root = build_demo_project(tmp_path_factory.mktemp("boost") / "proj", n_messages=120, train=False)
    with Session.open(root) as s:
        yield s


@pytest.mark.parametrize("query", ["budget^0", "budget^0 date:2020", "budget^0 -lunch", "(budget lunch)^0",
                                   "subject:budget^0", "bud*^0"])
def test_a_zero_boost_is_refused(demo, query):
    with pytest.raises(QueryError, match=r"a boost \(word\^N\) must be above 0, as in budget\^2"):
        demo.search(query)


def test_positive_boosts_still_work(demo):
    plain = demo.search("budget", limit=1000)
    assert plain.total > 0
    for query in ("budget^2", "budget^0.5", "(budget)^3"):
        r = demo.search(query, limit=1000)
        assert sorted(h.doc_id for h in r.hits) == sorted(h.doc_id for h in plain.hits), query
