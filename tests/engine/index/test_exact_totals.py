"""A search's total is the exact number of matches whatever the limit (with filters, NOTs or
phrases it came from Whoosh's collector, which skips blocks of low-scoring documents and then
undercounted: 'from:kean date:2001' was 264 at limit 1, 798 at limit 1,000). Against a count
by brute force over every document, for limits 1, 10, 100 and 1,000, pages included."""
from __future__ import annotations

import pytest
from whoosh import query as wq

QUERIES = ["power", "power gas", "power NOT california", '"power plant"', "power date:2001", "to:ann date:2001",
           "from:holly gas", "from:ann OR date:2000", "year-end OR energy*", "energ* NOT (gas OR power)",
           "subject:report OR body:market", "date:[2000-06 to 2001-06] NOT price", "(power AND gas) OR contract",
           "power ANDMAYBE gas", "NOT power"]


def brute_force(session, query) -> int:
    """How many live documents the parsed query matches, asked of each document alone."""
    q = session.index.parse(query)
    s = session.index.searcher()
    n = 0
    for docnum in range(s.doc_count_all()):
        if not s.reader().is_deleted(docnum):
            alone = wq.And([q, wq.Term("doc_id", s.stored_fields(docnum)["doc_id"])])
            n += alone.matcher(s, s.boolean_context()).is_active()
    return n


@pytest.mark.parametrize("query", QUERIES)
def test_total_is_exact_for_every_limit(oracle, query):
    session, _docs = oracle
    expected = brute_force(session, query)
    for limit in (1, 10, 100, 1000):
        assert session.search(query, limit=limit).total == expected, limit
        assert session.search(query, limit=limit, offset=3).total == expected
    assert len(session.search(query, limit=1000).hits) == expected
    pages = [h.doc_id for off in range(0, expected + 10, 10) for h in session.search(query, limit=10, offset=off).hits]
    assert pages == [h.doc_id for h in session.search(query, limit=1000).hits]
    assert session.search(query, limit=1, sort="date").total == expected
