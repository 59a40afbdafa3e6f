"""A protected search with the project's term cache (its default) gives what it gives with a new
FeatureExtractor (no cache, the features read and analysed afresh): the same hits, scores,
probabilities and held-back documents, on a warm session and after mail is ingested
mid-session. The real demo project of conftest.py (trained linear rankers), the real engine."""
from __future__ import annotations

from datetime import datetime
from email.utils import format_datetime

from sasc_desktop.engine.project import judgments as J
from sasc_desktop.engine.protect.search import protected_search
from sasc_desktop.engine.rank.features import FeatureExtractor, term_cache
from sasc_desktop.engine.session import Session

DEMO_PERSONA = "john-snibert"                                 # (the demo200 fixture's, conftest.py)
DEMO_APPROACHES = ("relevance", "postfilter", "joint_postfilter")  # its trained rankers (linear)


def _same(s, query: str, approach: str, **kw) -> dict:
    cached = protected_search(s, query, DEMO_PERSONA, approach=approach, show_withheld=True, **kw)
    cold = protected_search(s, query, DEMO_PERSONA, approach=approach, show_withheld=True,
                            extractor=FeatureExtractor(s, depth=kw.get("depth", 500)), **kw)
    cached.pop("ms"), cold.pop("ms")
    assert cached == cold, (query, approach, kw)
    assert cached["ranker"] == "linear"           # a trained ranker: the features are used
    return cached


def _queries(s) -> list[str]:
    topics = J.topics(s.store)
    return [t["title"] for t in topics[:5]] + ["project budget meeting team please thanks update week",
                                               "calibration -report", "subject:launch OR budget"]


def test_protected_search_with_the_cache_equals_without(demo200):
    with Session.open(demo200) as s:
        for rnd in range(2):                      # cold cache, then warm
            for q in _queries(s):
                for approach in DEMO_APPROACHES:
                    _same(s, q, approach, k=10)
            _same(s, _queries(s)[5], "relevance", k=7, offset=14, depth=60)
        assert term_cache(s).stats()["reused"] > term_cache(s).stats()["loaded"]


def test_protected_search_after_mail_ingested_mid_session(demo_copy, tmp_path):
    with Session.open(demo_copy) as s:
        queries = _queries(s)
        for q in queries:
            _same(s, q, "joint_postfilter", k=10)
        d = s.document(protected_search(s, queries[0], DEMO_PERSONA, approach="relevance")["hits"][0]["doc_id"])
        folder = tmp_path / "more"
        folder.mkdir()
        (folder / "new.eml").write_text(
            f"Message-ID: <fresh1@partner.example.org>\nDate: Tue, 6 Mar 2001 10:00:00 -0800\n"
            f"From: ann@partner.example.org\nTo: bob@arclight.example.com\nSubject: {queries[0]}\n\n"
            f"{queries[0]} {queries[0]} budget meeting\n")
        # its sender's copy (the same message: its Date and text, the sender's words added after it):
        # replaces the kept copy's text if that was a recipient's
        date = format_datetime(datetime.fromisoformat(d["date"]))
        (folder / "copy.eml").write_text(
            f"Message-ID: <{d['message_id']}>\nDate: {date}\nFrom: {d['from']}\n"
            f"To: quokka@partner.example.org\nX-Folder: \\Sender\\Sent Items\nSubject: {d['subject']}\n\n"
            f"{d['body']}\nbudget budget quokka\n")
        assert s.ingest([folder], workers=1).ingested == 1
        res = [_same(s, q, approach, k=10) for q in queries for approach in DEMO_APPROACHES]
        assert any(h["doc_id"] == "fresh1@partner.example.org" for r in res for h in r["hits"] + r["held_back"])
