"""The fast paths equal the slow, obvious ones: hashed character n-grams vs sklearn's char_wb,
plain address splitting vs the e-mail parser, worker-process transforms vs in-process. (PII
pre-filters vs running every detector: tests/engine/test_classify_scoring_speed.py.)"""
from email.utils import getaddresses

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from sklearn.feature_extraction.text import TfidfVectorizer

from sasc_desktop.engine.classify import features as F
from sasc_desktop.engine.classify import workers as W
from sasc_desktop.engine.classify.charhash import HashedCharTfidf

TEXTS = ["Privileged and Confidential: the lawsuit", "Lunch on Friday?  Re: lunch", "a b  c\tde\nfgh",
         "the Lawsuit settlement is confidential", "", "Ünïcödé wörds ünd Lunch", "RE: FW: gas volumes 2001",
         "gas volumes for friday", "x"]


def test_hashed_char_tfidf_equals_sklearn_char_wb():
    sk = TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 5), min_df=2, max_df=0.95, sublinear_tf=True,
                         dtype=np.float32)
    A = sk.fit_transform(TEXTS)
    h = HashedCharTfidf(ngram_range=(2, 5), min_df=2, max_df=0.95, n_bits=24)
    B = h.fit_transform(TEXTS)
    names = list(h.get_feature_names_out())
    assert sorted(names) == sorted(sk.vocabulary_)  # no collisions on this small vocabulary
    perm = [sk.vocabulary_[n] for n in names]
    np.testing.assert_allclose(B.toarray(), A[:, perm].toarray(), rtol=1e-5, atol=1e-6)
    new = ["confidential lunch", "nothing known here", ""]
    np.testing.assert_allclose(h.transform(new).toarray(), sk.transform(new)[:, perm].toarray(), rtol=1e-5, atol=1e-6)


def test_hashed_char_tfidf_max_features_and_cap():
    h = HashedCharTfidf(ngram_range=(2, 3), min_df=1, max_df=1.0, max_features=5, n_bits=20, max_chars=4)
    X = h.fit_transform(["abcdefgh", "abcdxyz", "ab"])
    assert X.shape == (3, 5) and len(h.names_) == 5
    assert all(set(n) <= set(" abcd") for n in h.names_)  # only the first 4 characters are seen
    assert np.allclose(np.asarray(X.multiply(X).sum(axis=1)).ravel(), 1.0, atol=1e-6)


@pytest.mark.parametrize("header", ['"Doe, Jane" <Jane@Corp.com>, bob@x.org', "a@b.com, C@D.com", "", "a@b.com,,c@d.com",
                                    "undisclosed-recipients:;", "x@y.com (Xy)", "Ann <a@b.com>", "a@b.com; c@d.com",
                                    "no address here", "bad@@x.com, ok@y.org"])
def test_addresses_equal_the_email_parser(header):
    assert F.addresses(header) == [a.strip().lower() for _, a in getaddresses([header]) if "@" in a]


def test_worker_process_transform_equals_in_process(monkeypatch):
    docs = [F.DocFields(doc_id=f"d{i}", subject=f"note {i} {TEXTS[i % len(TEXTS)]}", body=TEXTS[(i * 7) % len(TEXTS)] * 3,
                        from_addr="a@corp.com", to="b@corp.com, c@ext.org", date="2001-03-05T10:00:00-08:00")
            for i in range(40)]
    space = F.FeatureSpace()
    X = space.fit_transform(docs, ["corp.com"], F.network_centralities([("a@corp.com", "b@corp.com", "to", 1)]))
    monkeypatch.setattr(W, "PARALLEL_MIN_DOCS", 10)
    monkeypatch.setattr(W, "_workers", lambda: 2)
    assert len(W._chunks(docs, F._text_size)) == 2
    Y = space.transform(docs)
    assert Y.shape == X.shape and abs(Y - X).max() < 1e-6


@pytest.mark.parametrize("ngram_range", [(1, 1), (1, 2)])
def test_word_tfidf_equals_sklearn(ngram_range):
    import pickle
    from sasc_desktop.engine.classify.charhash import WordTfidf
    sk = TfidfVectorizer(ngram_range=ngram_range, min_df=1, sublinear_tf=True, dtype=np.float32,
                         token_pattern=r"(?u)\b[^\W\d_][\w'-]*[^\W_]\b|\b[^\W\d_]\b")
    sk.fit(TEXTS)
    w = pickle.loads(pickle.dumps(WordTfidf(sk)))
    assert list(w.get_feature_names_out()) == list(sk.get_feature_names_out())
    new = TEXTS + ["lawsuit lawsuit lawsuit and gas", "unknown words only"]
    np.testing.assert_allclose(w.transform(new).toarray(), sk.transform(new).toarray(), rtol=1e-5, atol=1e-6)


_NAME = st.text("AbcZ .'_-", max_size=8)
_ADDR = st.builds(lambda a, b: f"{a}@{b}.com", st.text("abXY0._-+", min_size=1, max_size=6),
                  st.text("abxy0-", min_size=1, max_size=5))
_PART = st.one_of(_ADDR, st.builds(lambda n, a: f"{n} <{a}>", _NAME, _ADDR),
                  st.builds(lambda n, a: f'"{n}, x" <{a}>', _NAME, _ADDR), st.just(""), st.just("nobody"))


@settings(max_examples=300, deadline=None)
@given(st.lists(_PART, max_size=4), st.sampled_from([",", ", ", " , "]))
def test_addresses_equal_the_email_parser_generated(parts, sep):
    header = sep.join(parts)
    F._addresses.cache_clear()
    assert F.addresses(header) == [a.strip().lower() for _, a in getaddresses([header]) if "@" in a]
