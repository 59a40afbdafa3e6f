"""The term cache of searches (rank.features.DocumentTermCache, CachedFeatureExtractor): features
from a warm cache are FeatureExtractor's, computed cold, to the last bit -- across queries, with
a cache small enough to drop documents, with one whose vocabulary starts again, and after mail
is ingested mid-session (new messages, a sender's copy that replaces a kept copy's text), by
this session or by another one. A real demo project (``sasc demo --messages 300``'s builder),
real SQLite, real Whoosh; the counting kernels also against brute force (list.count, min_span)."""
from __future__ import annotations

import shutil
from datetime import datetime
from email.utils import format_datetime

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from sasc_desktop.engine.project import judgments as J
from sasc_desktop.engine.rank.features import (FIELDS, PER_FIELD, CachedFeatureExtractor, DocumentTermCache,
                                               FeatureExtractor, field_counts, min_span, query_hits, term_cache)
from sasc_desktop.engine.session import Session

DEPTH = 120


@pytest.fixture(scope="module")
def demo300(tmp_path_factory):
    from sasc_desktop.engine.demo_project import build_demo_project
    return build_demo_project(tmp_path_factory.mktemp("featcache") / "proj", n_messages=300, train=False)


@pytest.fixture
def demo_copy(demo300, tmp_path):
    root = tmp_path / "proj"
    shutil.copytree(demo300, root)
    return root


def _queries(s) -> list[tuple[str, str]]:
    topics = J.topics(s.store)
    assert len(topics) >= 6
    out = [(t["title"], t["description"]) for t in topics[:6]] + [(t["title"], "") for t in topics[6:12]]
    out += [(w, "") for t in topics[:6] for w in t["title"].split()[:1]]
    return out + [("calibration calibration report", "report of the calibration lab"), ("zzzqqq nonexistentword", ""),
                  ("the of", "")]


def _cold(s, title: str, desc: str, dids=None):
    """Candidates, features and metadata as a new FeatureExtractor gives them (no cache)."""
    ex = FeatureExtractor(s, depth=DEPTH)
    if dids is None:
        cands = ex.candidates(f"{title} {desc}", DEPTH)
        dids, sc = [d for d, _ in cands], [x for _, x in cands]
    else:
        sc = list(np.linspace(9.0, 1.0, len(dids)))
    return dids, sc, ex.relevance(title, desc, dids, sc), ex.metadata(dids)


def _warm(s, cache, title, desc, dids, sc):
    ex = CachedFeatureExtractor(s, depth=DEPTH, cache=cache)
    return ex.relevance(title, desc, dids, sc), ex.metadata(dids)


def _check_equal(s, caches, queries) -> int:
    """Every query's warm features (each cache) equal its cold ones; the candidates seen."""
    n = 0
    for title, desc in queries:
        dids, sc, X, M = _cold(s, title, desc)
        n += len(dids)
        for cache in caches:
            Xw, Mw = _warm(s, cache, title, desc, dids, sc)
            assert Xw.shape == X.shape
            assert np.array_equal(Xw, X), (title, desc, np.argwhere(Xw != X)[:5].tolist())
            assert np.array_equal(Mw, M), (title, desc)
    return n


def test_warm_features_equal_cold_features(demo300):
    with Session.open(demo300) as s:
        shared = term_cache(s)
        assert term_cache(s) is shared                   # one per open project
        small = DocumentTermCache(max_docs=40)            # drops the least recently used documents
        tiny_vocab = DocumentTermCache(max_terms=30)      # starts again on (nearly) every search
        queries = _queries(s)
        seen = _check_equal(s, [shared, small, tiny_vocab], queries)
        assert seen > 500                                 # not vacuous: many candidates
        first = shared.stats()
        assert 0 < first["loaded"] <= 300 and first["reused"] > 0
        # again, now warm: nothing is read or analysed again, the features are the same
        _check_equal(s, [shared, small, tiny_vocab], queries[::-1])
        again = shared.stats()
        assert again["loaded"] == first["loaded"] and again["reused"] >= first["reused"] + seen
        assert len(small) <= 40 and small.stats()["loaded"] > 300     # it did drop and re-read documents
        # the query forms: title only, both forms alike; a document the store does not hold is empty
        title, desc = queries[0]
        dids, sc, X, M = _cold(s, title, "", ["no-such-document@x"] + _cold(s, title, desc)[0][:30])
        Xw, Mw = _warm(s, shared, title, "", dids, sc)
        assert np.array_equal(Xw, X) and np.array_equal(Mw, M)
        half = len(FIELDS) * len(PER_FIELD)
        assert np.array_equal(Xw[:, :half], Xw[:, half:2 * half])
        cols = [b * len(PER_FIELD) + PER_FIELD.index(f) for b in range(2 * len(FIELDS))
                for f in ("tf_sum", "matched", "proximity", "length")]
        assert not Xw[0, cols].any() and not Mw[0].any() and Xw[1:, cols].any()
        assert "no-such-document@x" not in shared and dids[1] in shared        # (not kept: it may come later)
        # no candidates at all
        Xw, Mw = _warm(s, shared, title, desc, [], [])
        assert Xw.shape == (0, X.shape[1]) and Mw.shape == (0, 4)


# ----------------------------------------------------------------------------- mail ingested mid-session
def _eml(mid: str, subject: str, body: str, sender: str, to: str, folder: str,
         date: str = "Tue, 6 Mar 2001 10:00:00 -0800") -> str:
    return (f"Message-ID: <{mid}>\nDate: {date}\nFrom: {sender}\nTo: {to}\n"
            f"X-Folder: {folder}\nSubject: {subject}\n\n{body}\n")


def _mail(tmp_path, name: str, files: dict[str, str]):
    folder = tmp_path / name
    folder.mkdir()
    for f, text in files.items():
        (folder / f).write_text(text)
    return folder


def _inbox_candidate(s, title: str, taken: set[str]) -> str:
    """A candidate of the query kept from a recipient's copy (its sender's copy would replace it)."""
    for d in _cold(s, title, "")[0]:
        row = s.store.con.execute("SELECT folder FROM messages WHERE doc_id = ?", (d,)).fetchone()
        if d not in taken and "sent" not in row[0].lower():
            return d
    raise AssertionError(f"no inbox candidate for {title!r}")


def _sender_copy(s, doc_id: str, words: str) -> str:
    """The sender's copy (in Sent Items, other recipients) of a stored message: the same message
    (its Message-ID, subject, Date and text) with the sender's words added after its text."""
    d = s.document(doc_id)
    return _eml(d["message_id"], d["subject"], f"{d['body']}\n{words} zebracorn quokka budget. {words}",
                d["from"] or "someone@arclight.example.com", "quokka.zebracorn@partner.example.org",
                "\\Sender_Copy\\Sent Items", date=format_datetime(datetime.fromisoformat(d["date"])))


def _rows(s, queries, cache):
    """doc_id -> (query, its feature row) for every query's candidates, checking warm == cold."""
    out = {}
    for title, desc in queries:
        dids, sc, X, M = _cold(s, title, desc)
        Xw, Mw = _warm(s, cache, title, desc, dids, sc)
        assert np.array_equal(Xw, X), (title, desc, np.argwhere(Xw != X)[:5].tolist())
        assert np.array_equal(Mw, M), (title, desc)
        for i, d in enumerate(dids):
            out[(title, desc, d)] = X[i]
    return out


def test_ingest_mid_session_new_and_replaced_documents(demo_copy, tmp_path):
    with Session.open(demo_copy) as s:
        cache = term_cache(s)
        topics = J.topics(s.store)
        q1, q2 = topics[0]["title"], topics[1]["title"]
        queries = [(q1, ""), (q2, topics[1]["description"]), (f"{q1} zebracorn quokka", ""), ("budget", "")]
        before = _rows(s, queries, cache)
        r1 = _inbox_candidate(s, q1, set())
        r2 = _inbox_candidate(s, q2, {r1})
        other_doc = next(d for (t, _, d) in before if t == q1 and d not in (r1, r2))
        terms = FeatureExtractor(s).terms
        kept = cache.documents(s.store.con, [other_doc, r1], terms)[0]

        # this session ingests two new messages and the sender's copy of r1
        n0 = s.stats()["messages"]
        rep = s.ingest([_mail(tmp_path, "more1", {
            "new1.eml": _eml("new1@partner.example.org", f"{q1} zebracorn", f"{q1} quokka notes",
                             "ann@partner.example.org", "bob@arclight.example.com", "\\Ann\\Inbox"),
            "new2.eml": _eml("new2@partner.example.org", "budget quokka", "budget budget zebracorn",
                             "ann@partner.example.org", "bob@arclight.example.com", "\\Ann\\Inbox"),
            "r1.eml": _sender_copy(s, r1, q1)})], workers=1)
        assert rep.ingested == 2 and s.stats()["messages"] == n0 + 2
        assert s.store.con.execute("SELECT folder FROM messages WHERE doc_id = ?", (r1,)).fetchone()[0] \
            == "\\Sender_Copy\\Sent Items"                                  # r1's text was replaced in place
        after = _rows(s, queries, cache)
        now = cache.documents(s.store.con, [other_doc, r1], terms)[0]
        assert now[other_doc] is kept[other_doc]          # an unchanged document stays cached as it was
        assert now[r1] is not kept[r1] and not np.array_equal(now[r1].ids, kept[r1].ids)
        new_ids = {d for (_, _, d) in after} - {d for (_, _, d) in before}
        assert {"new1@partner.example.org", "new2@partner.example.org"} <= new_ids   # the new mail's features appear
        key = (f"{q1} zebracorn quokka", "", r1)
        assert key in before and key in after and not np.array_equal(before[key], after[key])  # r1's changed

        # another session (another connection, as another process) ingests more: seen as well
        with Session.open(demo_copy) as other:
            other.ingest([_mail(tmp_path, "more2", {
                "new3.eml": _eml("new3@partner.example.org", f"{q2} quokka", "quokka zebracorn budget",
                                 "cy@partner.example.org", "bob@arclight.example.com", "\\Cy\\Inbox"),
                "r2.eml": _sender_copy(other, r2, q2)})], workers=1)
        again = _rows(s, queries, cache)
        assert "new3@partner.example.org" in {d for (_, _, d) in again}
        key = (q2, topics[1]["description"], r2)
        assert key in after and key in again and not np.array_equal(after[key], again[key])
        assert cache.documents(s.store.con, [other_doc], terms)[0][other_doc] is kept[other_doc]


def test_duplicate_copies_keep_cached_documents(tmp_path):
    """A copy that changes no text (the same mail imported again from another folder: kept = 0)
    leaves the cached documents as they are (only a kept copy replaces a message's text)."""
    mail = _mail(tmp_path, "inbox", {f"m{i}.eml": _eml(f"m{i}@x.org", f"budget {i}", f"budget quokka {i}",
                                                       "ann@x.org", "bob@y.org", "\\Ann\\Inbox")
                                     for i in range(3)})
    again = tmp_path / "again"
    shutil.copytree(mail, again)
    with Session.create(tmp_path / "p") as s:
        s.ingest([mail], workers=0)
        cache, terms = term_cache(s), FeatureExtractor(s).terms
        ids = [f"m{i}@x.org" for i in range(3)]
        before = cache.documents(s.store.con, ids, terms)[0]
        rep = s.ingest([again], workers=0)
        assert (rep.ingested, rep.duplicates) == (0, 3)
        now = cache.documents(s.store.con, ids, terms)[0]
        assert all(now[d] is before[d] for d in ids)


# ----------------------------------------------------------------------------- the kernels, brute force
_TOKS = st.lists(st.integers(0, 5), max_size=12)


@settings(max_examples=300, deadline=None)
@given(docs=st.lists(st.tuples(_TOKS, _TOKS, _TOKS, _TOKS), max_size=6),
       qids=st.lists(st.integers(-1, 7), max_size=5, unique=True))
def test_counts_and_spans_equal_list_count_and_min_span(docs, qids):
    ids = [np.array(a + b + c + d, np.int32) for a, b, c, d in docs]
    lens = np.array([len(x) for x in ids], np.int64)
    starts = np.r_[0, np.cumsum(lens)].astype(np.int64)
    ends = np.array([(len(a), len(a) + len(b), len(a) + len(b) + len(c)) for a, b, c, _ in docs],
                    np.int64).reshape(len(docs), 3)
    allids = np.concatenate(ids) if docs else np.zeros(0, np.int32)
    hits = query_hits(qids, allids, starts, ends)
    D, Q = len(docs), len(qids)
    for field in FIELDS:
        TF, span = field_counts(field, hits, D, Q)
        assert TF.shape == (D, Q) and TF.dtype == np.float64
        for i, (a, b, c, d) in enumerate(docs):
            toks = {"subject": a, "body": c, "attachments": d, "all": a + b + c + d}[field]
            row = [toks.count(t) for t in qids]
            assert TF[i].tolist() == row
            nz = sum(1 for v in row if v)
            assert span[i] == (min_span(toks, qids) if nz >= 2 else nz and 1)


# ----------------------------------------------------------------------------- real mail
def test_warm_features_equal_cold_features_on_real_mail(shared_data, tmp_path):
    """Real, messy MIME (SpamAssassin's hard ham: HTML, attachments, odd charsets), cached with
    a cache small enough to drop documents."""
    s = Session.create(tmp_path / "proj")
    try:
        s.ingest([shared_data / "spamassassin" / "hard-ham-1"], workers=1)
        shared, small = term_cache(s), DocumentTermCache(max_docs=60)
        queries = [("free offer", "click here to unsubscribe"), ("newsletter", ""), ("html email", "special offer"),
                   ("credit card credit", "")]
        for _ in range(2):
            for title, desc in queries:
                dids, sc, X, M = _cold(s, title, desc)
                assert len(dids) >= 20, title
                for cache in (shared, small):
                    Xw, Mw = _warm(s, cache, title, desc, dids, sc)
                    assert np.array_equal(Xw, X) and np.array_equal(Mw, M), (title, desc)
        assert shared.stats()["reused"] > shared.stats()["loaded"]
    finally:
        s.close()
