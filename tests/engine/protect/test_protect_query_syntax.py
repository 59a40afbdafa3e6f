"""Protected search keeps the query's syntax: its candidates are exactly the documents plain
search matches (NOT, -word, field:term, phrases, filters), and the rankers' features use only
the words the query looks for (not the NOT-ed ones, not field names). It turned the query into
a bag of its words OR-ed: 'falcon NOT launch' showed launch mail, 'subject:meeting' searched
for the word 'subject'. Real demo project (200 messages), real index, real rankers."""
from __future__ import annotations

import pytest

from sasc_desktop.engine.protect.search import judged_sensitive
from sasc_desktop.engine.session import Session

PERSONA = "john-snibert"                                        # (the demo200 fixture's, conftest.py)
APPROACHES = ("relevance", "postfilter", "joint_postfilter")    # its trained rankers (linear, depth 60)
KINDS = {   # each kind of syntax, by queries of which at least one matches mail in the demo project
    "NOT": ("falcon NOT launch", "launch OR meeting NOT falcon", "schedule NOT meeting"),
    "-word": ("falcon -launch", "-falcon meeting"),
    "field:term": ("subject:meeting", "subject:falcon -budget", "subject:launch", "subject:budget"),
    "phrase": ('"falcon launch"', '"project falcon"'),
    "filter": ("from:holly", "from:john", "from:holly falcon"),
    "words": ("falcon launch",),
}
QUERIES = tuple(q for qs in KINDS.values() for q in qs)


def test_every_kind_of_syntax_is_exercised(demo200):
    with Session.open(demo200) as s:
        for kind, queries in KINDS.items():
            assert any(s.search(q).total for q in queries), kind


def _plain(s, query):
    res = s.search(query, limit=10_000)
    assert len(res.hits) == res.total
    return [h.doc_id for h in res.hits], {h.doc_id: h.score for h in res.hits}


@pytest.mark.parametrize("approach", APPROACHES)
def test_candidates_are_exactly_what_plain_search_matches(demo200, approach):
    with Session.open(demo200) as s:
        never = judged_sensitive(s, PERSONA)
        for query in QUERIES:
            plain, _ = _plain(s, query)
            res = s.protected_search(query, PERSONA, approach=approach, k=500, show_withheld=True)
            assert res["ranker"] == "linear"
            shown = [h["doc_id"] for h in res["hits"]]
            held = [h["doc_id"] for h in res["held_back"]]
            assert res["candidates"] == len(plain), query
            assert set(shown) <= set(plain) and set(held) <= set(plain), query
            assert not (set(shown) | set(held)) & never, query           # the safety rule, as ever
            assert res["withheld_judged_sensitive"] == len(set(plain) & never), query
            # (on this one page of every candidate, each one quoting a judged message is held back)
            quoting = {h["doc_id"] for h in res["held_back"] if h["quotes"]}
            assert len(quoting) == res["withheld_quoting_sensitive"], query
            if approach == "relevance":               # nothing filtered but the judged and their quotes
                assert sorted(shown) == sorted(set(plain) - never - quoting), query


def test_not_and_minus_leave_documents_out(demo200):
    with Session.open(demo200) as s:
        both = set(_plain(s, "falcon AND launch")[0])
        assert both and both < set(_plain(s, "falcon")[0])
        for query in ("falcon NOT launch", "falcon -launch"):
            res = s.protected_search(query, PERSONA, approach="relevance", k=500)
            assert res["hits"] and not {h["doc_id"] for h in res["hits"]} & both


def test_features_use_only_the_words_the_query_looks_for(demo200):
    """A NOT-ed word adds no feature: the ranker scores a document matched by 'falcon NOT launch'
    exactly as it scores it for 'falcon' (AndNot scores as its left side)."""
    with Session.open(demo200) as s:
        for query, words in (("falcon NOT launch", "falcon"), ("-falcon meeting", "meeting"),
                             ("schedule NOT meeting", "schedule")):
            for approach in APPROACHES:
                narrow = s.protected_search(query, PERSONA, approach=approach, k=500)
                wide = {h["doc_id"]: h["score"] for h in s.protected_search(words, PERSONA, approach=approach,
                                                                             k=500)["hits"]}
                assert narrow["hits"], query
                for h in narrow["hits"]:
                    assert h["score"] == pytest.approx(wide[h["doc_id"]], rel=1e-12, abs=1e-12), (query, approach)


def test_without_judged_topics_the_list_is_plain_search_without_the_judged(demo_copy):
    """The BM25 stand-in (no judged topics) ranks as plain search does, the project's field
    weights included: the same order and scores, less what a person judged sensitive."""
    with Session.open(demo_copy) as s:
        with s.store.transaction() as con:
            con.execute("DELETE FROM qrels")
        never = judged_sensitive(s, PERSONA)
        for query in QUERIES:
            plain, score = _plain(s, query)
            res = s.protected_search(query, PERSONA, approach="relevance", k=500,
                                     retrain_stale=True)   # (the demo's trained ranker gives way to BM25)
            assert res["ranker"] == "bm25"
            assert [h["doc_id"] for h in res["hits"]] == [d for d in plain if d not in never], query
            assert [h["score"] for h in res["hits"]] == [score[d] for d in plain if d not in never], query


def test_positive_terms_of_parsed_queries(demo200):
    from sasc_desktop.engine.rank.features import positive_terms
    expected = {
        "Falcon launch": ["falcon", "launch"],
        "falcon NOT launch": ["falcon"],
        "falcon -launch": ["falcon"],
        "subject:launch": ["launch"],
        "all:falcon": ["falcon"],
        '"budget meeting"': ["budget", "meet"],
        "from:holly budget": ["budget"],
        'from:"Holly Palmer"': [],
        "date:2019 budget": ["budget"],
        "launch*": [],
        "NOT falcon": [],
        "budget AND (falcon OR meeting) NOT draft": ["budget", "falcon", "meet"],
        "budget ANDMAYBE falcon": ["budget", "falcon"],
        "(falcon AND budget) OR (meeting NOT falcon)": ["falcon", "budget", "meet"],
        "budget budget": ["budget"],
        "NOT (NOT falcon NOT budget)": ["falcon", "budget"],      # each NOT turns the sense round
        "meeting NOT (falcon NOT budget)": ["meet", "budget"],
    }
    with Session.open(demo200) as s:
        assert {q: positive_terms(s.index.parse(q)) for q in expected} == expected
