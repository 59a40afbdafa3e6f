"""Candidates and features in a real (small demo) project: the fast paths (vectorised BM25F
candidates, the index's fast analysis) give exactly what Whoosh gives."""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from whoosh import query as wq

from sasc_desktop.engine.project import judgments as J
from sasc_desktop.engine.rank.features import FIELDS, PER_FIELD, FeatureExtractor
from sasc_desktop.engine.session import Session


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    from sasc_desktop.engine.demo_project import build_demo_project
    root = tmp_path_factory.mktemp("rankfeatures")
    return build_demo_project(root / "proj", n_messages=600, seed=7, train=False)


class WhooshAnalysis(FeatureExtractor):
    """The extractor with Whoosh's own analyser (the oracle for the fast analysis)."""

    def terms(self, text):
        return [t.text for t in self.analyzer(text or "")]


def queries(s):
    topics = J.topics(s.store)
    assert topics
    out = [t["title"] for t in topics] + [f"{t['title']} {t['description']}" for t in topics]
    out += [w for t in topics for w in t["title"].split()[:2]]
    return out + ["the", "zzzqqq nonexistentword", "meeting meeting gas", "e-mail 3.14 don't"]


def whoosh_candidates(ex, text, depth):
    terms = list(dict.fromkeys(ex.terms(text)))
    if not terms:
        return []
    q = wq.Or([wq.Term(f, t) for f in ("subject", "body", "attachments") for t in terms])
    return ex._whoosh_candidates(q, depth)


@pytest.mark.parametrize("depth", [1, 10, 200, 5000])
def test_candidates_equal_whoosh_search(project, depth):
    with Session.open(project) as s:
        ex = FeatureExtractor(s, depth=depth)
        n_nonempty = 0
        for text in queries(s):
            fast = ex.candidates(text, depth)
            slow = whoosh_candidates(ex, text, depth)
            assert [d for d, _ in fast] == [d for d, _ in slow], text
            assert [x for _, x in fast] == [x for _, x in slow], text     # bit-identical scores
            n_nonempty += bool(fast)
        assert n_nonempty > 10


def test_fast_terms_equal_whoosh_analysis_on_queries_and_messages(project):
    with Session.open(project) as s:
        ex, oracle = FeatureExtractor(s), WhooshAnalysis(s)
        texts = queries(s) + [r[0] or "" for r in s.store.con.execute("SELECT subject FROM messages")]
        texts += [r[0] or "" for r in s.store.con.execute("SELECT body FROM messages LIMIT 150")]
        for text in texts:
            assert ex.terms(text) == oracle.terms(text)


def test_relevance_features_equal_whoosh_analysis_and_counts(project):
    with Session.open(project) as s:
        ex, oracle = FeatureExtractor(s), WhooshAnalysis(s)
        topics = J.topics(s.store)[:6]
        for t in topics:
            cands = ex.candidates(f"{t['title']} {t['description']}", 100)
            dids, sc = [d for d, _ in cands], [x for _, x in cands]
            for title, desc in ((t["title"], t["description"]), (t["title"], "")):
                X = ex.relevance(title, desc, dids, sc)
                assert np.array_equal(X, oracle.relevance(title, desc, dids, sc))
            # the title-only query: both query forms are the same block
            X = ex.relevance(t["title"], "", dids, sc)
            half = len(FIELDS) * len(PER_FIELD)
            assert np.array_equal(X[:, :half], X[:, half:2 * half])
            # brute force: subject tf_sum is the count of query stems among the subject's stems
            q = Counter(oracle.terms(t["title"]))
            col = PER_FIELD.index("tf_sum")
            for i, d in enumerate(dids[:20]):
                subj = s.store.con.execute("SELECT subject FROM messages WHERE doc_id = ?", (d,)).fetchone()[0]
                toks = Counter(oracle.terms(subj))
                assert X[i, col] == sum(toks[w] for w in q)
