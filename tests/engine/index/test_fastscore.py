"""The vectorised BM25F path ranks exactly as Whoosh's BM25F query does (brute-force oracle:
Whoosh itself, over a multi-segment index with deletions), for many OR-of-words queries and
field weights; other queries fall back to Whoosh."""
from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest
from whoosh import query as wq

from sasc_desktop.engine.index import SearchIndex
from sasc_desktop.engine.index.fastscore import plan
from test_writer import WORDS, _docs


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    ix = SearchIndex(tmp_path_factory.mktemp("fastscore") / "ix", create=True)
    for n, batch in enumerate([_docs(500, 11), _docs(200, 12), _docs(40, 13)]):
        w = ix.writer()
        if n == 2:
            for i in range(0, 500, 9):
                w.delete_by_term("doc_id", f"d11-{i}")
        for doc in batch:
            w.add_document(**doc)
        w.commit(merge=False)
    yield ix
    ix.close()


def _whoosh(ix, q, k):
    s = ix.searcher()
    return [(r.docnum, r.score) for r in s.search(q, limit=k)], len(s.search(q, limit=None))


def _same_ranking(got, want):
    assert len(got) == len(want)
    gs, ws = np.array([g[1] for g in got]), np.array([w[1] for w in want])
    np.testing.assert_allclose(gs, ws, rtol=1e-12, atol=0)
    # Documents agree rank by rank except inside groups of equal scores (up to rounding).
    key = lambda pairs: sorted((round(s, 9), d) for d, s in pairs)
    assert key(got) == key(want)
    def alone(pairs):
        counts = Counter(round(s, 9) for _d, s in pairs)
        return [(d, round(s, 9)) for d, s in pairs if counts[round(s, 9)] == 1]
    assert alone(got) == alone(want)


def test_vectorised_bm25f_equals_whoosh(index):
    rng = random.Random(5)
    vocab = WORDS + ["nosuchword", "person", "org"]
    weights_choices = [None, {"subject": 3.0, "body": 1.0, "attachments": 0.0}, {"subject": 1.0, "body": 0.5, "attachments": 2.0}]
    s = index.searcher()
    fast = index.fast_scorer(s)
    checked = 0
    for i in range(120):
        words = " ".join(rng.choices(vocab, k=rng.randint(1, 6)))
        if i % 10 == 0:
            words += " all:w1ord subject:w2ord"
        weights = weights_choices[i % 3]
        q = index.parse(words, weights)
        leaves = plan(q, s.schema)
        assert leaves is not None
        for k in (1, 10, 100, 10_000):
            docnums, scores, total = fast.search(leaves, k)
            want, want_total = _whoosh(index, q, k)
            assert total == want_total
            _same_ranking(list(zip(docnums.tolist(), scores.tolist())), want)
            checked += len(want)
    assert checked > 10_000


def test_search_uses_fast_path_and_matches_hits(index):
    hits, total, _ms, q = index.search("pipeline budget w5ord", limit=20, offset=5)
    want, want_total = _whoosh(index, q, 25)
    assert total == want_total
    s = index.searcher()
    assert [h[1] for h in hits] == [s.stored_fields(d)["doc_id"] for d, _ in want[5:]]


@pytest.mark.parametrize("text", ['"pipeline budget"', "pipeline NOT gas", "pipeline AND gas", "pipe*",
                                  "pipeline date:2001-03", "thread:t3", "budget folder:sent", "gas from:p3@x.org"])
def test_other_queries_fall_back_to_whoosh(index, text):
    q = index.parse(text)
    assert plan(q, index.searcher().schema) is None
    hits, total, _ms, _q = index.search(text, limit=10)
    want, want_total = _whoosh(index, q, 10)
    assert total == want_total and [h[2] for h in hits] == [w[1] for w in want]


def test_boosted_or_falls_back():
    q = wq.Or([wq.Term("body", "a"), wq.Term("body", "b")], boost=2.0)
    from sasc_desktop.engine.index.schema import build_schema
    assert plan(q, build_schema()) is None
    assert plan(wq.Or([wq.Term("body", "a"), wq.Term("subject", "b", boost=2.0)]), build_schema()) == \
        [("body", "a", 1.0), ("subject", "b", 2.0)]
