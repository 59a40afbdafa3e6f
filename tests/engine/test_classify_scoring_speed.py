"""The fast scoring path (batched dense features, numpy character n-grams, parallel shares read
from SQLite, scores stored) equals straightforward reference computations on a real project:
the demo collection, really ingested."""
import math
import re
import string
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st

from sasc_desktop.engine.classify import charhash as C
from sasc_desktop.engine.classify import cues as Q
from sasc_desktop.engine.classify import features as F
from sasc_desktop.engine.classify import import_judgments, pii as P, train
from sasc_desktop.engine.classify import workers as W
from sasc_desktop.engine.classify.api import load_model, probabilities, score_project
from sasc_desktop.engine.demo import generate
from sasc_desktop.engine.session import Session

PERSONAS = Path(__file__).resolve().parents[2] / "resources" / "personas.json"


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("scoring")
    generate(tmp / "demo", n_messages=300)
    s = Session.create(tmp / "proj")
    s.ingest([tmp / "demo" / "mail"])
    import_judgments(s, qrels_path=tmp / "demo" / "qrels.txt", sensitivity_path=tmp / "demo" / "sensitivity.txt",
                     topics_path=tmp / "demo" / "topics.json", personas_path=PERSONAS if PERSONAS.exists() else None)
    fm = F.project_features(s)
    train(s, "john-snibert", full=True)
    docs = F.load_docs(s.store)
    yield s, fm, docs
    s.close()


def _csr_equal(a: sp.csr_matrix, b: sp.csr_matrix) -> bool:
    a, b = sp.csr_matrix(a), sp.csr_matrix(b)
    a.sort_indices(), b.sort_indices()
    return (a.shape == b.shape and np.array_equal(a.indptr, b.indptr) and np.array_equal(a.indices, b.indices)
            and np.array_equal(a.data, b.data))


# ------------------------------------------------------------------------------ the whole matrix
def test_parallel_store_path_equals_single_process_transform(project, monkeypatch):
    s, fm, docs = project
    space = fm.space
    reference = space._transform([d for _, d in docs])          # one process, no shares
    assert abs(reference - fm.X).max() < 1e-6                    # what fitting gave (sklearn's float32 rounding)
    monkeypatch.setattr(W, "PARALLEL_MIN_DOCS", 50)
    monkeypatch.setattr(W, "_workers", lambda: 2)
    ids, X = space.transform_store(s.store)                      # two shares: a worker reads its own
    assert np.array_equal(ids, [i for i, _ in docs])
    assert _csr_equal(X, reference)
    assert _csr_equal(space.transform([d for _, d in docs]), reference)
    some = [i for i, _ in docs][::7][::-1]                       # given ids, in the given order
    ids2, X2 = space.transform_store(s.store, some)
    assert list(ids2) == some and _csr_equal(X2, reference[[[i for i, _ in docs].index(r) for r in some]])


def test_scores_stored_equal_the_model_on_reference_rows(project, monkeypatch):
    s, fm, docs = project
    monkeypatch.setattr(W, "PARALLEL_MIN_DOCS", 50)
    monkeypatch.setattr(W, "_workers", lambda: 2)
    model = load_model(s, "john-snibert")
    expected = model.proba_positive(model.space_._transform([d for _, d in docs]))
    s.store.con.execute("DELETE FROM scores WHERE persona = ?", ("john-snibert",))
    assert score_project(s, "john-snibert") == len(docs)
    got = probabilities(s, "john-snibert")
    np.testing.assert_array_equal([got[d.doc_id] for _, d in docs], expected)


# ------------------------------------------------------------------------------ dense block
def test_dense_block_equals_per_message_extractors(project):
    s, fm, docs = project
    space = fm.space
    args = (space.internal_domains_, space.central_, [d for _, d in docs])
    np.testing.assert_array_equal(F._dense_rows(args), F._dense_rows_reference(args))


# ------------------------------------------------------------------------------ character n-grams
def _python_char_tfidf(vec: C.HashedCharTfidf, texts: list[str]) -> np.ndarray:
    """Every n-gram of every padded lower-cased word hashed with Python integers, counted with a
    Counter, sublinear tf x idf, L2 rows."""
    mask, lut = (1 << 64) - 1, vec._lookup()
    out = np.zeros((len(texts), len(vec.buckets_)))
    for i, t in enumerate(texts):
        counts = Counter()
        for word in t[:vec.max_chars].lower().split():
            for part in (" " + word + " ").split("\0"):  # a NUL inside a word ends an n-gram
                codes = [ord(c) for c in part]
                for n in range(vec.ngram_range[0], vec.ngram_range[1] + 1):
                    for p in range(len(codes) - n + 1):
                        h = 0
                        for c in codes[p:p + n]:
                            h = (h * 1_000_003 + c) & mask
                        b = (((h ^ (n * 0x51ED27)) * 0x9E3779B97F4A7C15) & mask) >> (64 - vec.n_bits)
                        if lut[b] >= 0:
                            counts[int(lut[b])] += 1
        for j, c in counts.items():
            out[i, j] = (1 + math.log(c)) * vec.idf_[j]
        norm = np.sqrt((out[i] ** 2).sum())
        if norm:
            out[i] /= norm
    return out


def test_char_ngrams_equal_python_hashing_and_the_old_numpy_path(project):
    s, fm, docs = project
    vec = fm.space.vectorizers_["chars"]
    texts = [F.TEXT_OF["chars"](d) for _, d in docs[:60]] + ["", "   ", "a", "x\0y ZZ", "İstanbul straße ÉCOLE 42"]
    fast = vec.transform(texts)
    np.testing.assert_allclose(fast.toarray(), _python_char_tfidf(vec, texts), rtol=2e-6, atol=1e-7)
    # the previous numpy implementation: every position hashed, per-row duplicate summing
    d, b = C.hashed_ngrams(texts, vec.ngram_range, vec.n_bits, vec.max_chars)
    cols = vec._lookup()[b]
    ok = cols >= 0
    old = sp.csr_matrix((np.ones(ok.sum(), dtype=np.float32), (d[ok], cols[ok])), shape=(len(texts), len(vec.buckets_)))
    old.sum_duplicates()
    assert _csr_equal(fast, C._tfidf(old, vec.idf_))


def test_char_ngrams_in_small_batches_equal_one_batch(project, monkeypatch):
    s, fm, docs = project
    vec = fm.space.vectorizers_["chars"]
    texts = [F.TEXT_OF["chars"](d) for _, d in docs]
    one = vec.transform(texts)
    monkeypatch.setattr(vec, "BATCH_CHARS", 700)   # dozens of batches, some of one text
    assert _csr_equal(vec.transform(texts), one)
    assert vec.transform([]).shape == (0, len(vec.buckets_))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 40)), max_size=60))
def test_counts_matrix_equals_sum_duplicates(pairs):
    rows = np.array([r for r, _ in pairs], dtype=np.int64)
    cols = np.array([c for _, c in pairs], dtype=np.int64)
    ref = sp.csr_matrix((np.ones(len(pairs), dtype=np.float32), (rows, cols)), shape=(31, 41))
    ref.sum_duplicates()
    got = C.counts_matrix(rows, cols, 31, 41)
    assert _csr_equal(got, ref) and got.has_canonical_format


def test_word_blocks_equal_sklearn_refitted(project):
    from sklearn.feature_extraction.text import TfidfVectorizer
    s, fm, docs = project
    o = fm.space.options
    for name in ("subject", "body"):
        texts = [F.TEXT_OF[name](d) for _, d in docs]
        vec = fm.space.vectorizers_[name]
        sk = F._text_vectorizer(o, max(1000, int(o.max_features * {"subject": 0.15, "body": 0.6}[name])))
        assert isinstance(sk, TfidfVectorizer)
        sk.fit(texts)
        assert list(sk.get_feature_names_out()) == list(vec.get_feature_names_out())
        np.testing.assert_allclose(vec.transform(texts).toarray(), sk.transform(texts).toarray(), rtol=1e-5, atol=1e-6)


# ------------------------------------------------------------------------------ PII
def _simple_pii(text: str) -> list[tuple[str, int, int, str]]:
    """Every detector over the whole text (no pre-filters), weaker overlapping hits dropped."""
    taken, out = [], []
    for kind in P.PII_KINDS:
        for h in P.DETECTORS[kind](text):
            if any(h.start < e and s < h.end for s, e in taken):
                continue
            taken.append((h.start, h.end))
            out.append((h.kind, h.start, h.end, h.text))
    return sorted(out, key=lambda x: (x[1], x[2]))


PII_TEXTS = [
    "card 4111 1111 1111 1111 and 4111 1111 1111 1112 (Luhn-invalid) and 5500-0000-0000-0004",
    "4111111111111112 is not a card; 378282246310005 is; 6011 0009 9013 9424 too",
    "SSN 123-45-6789, 000-12-3456 (never issued), 666 12 3456, 123-45-67890, 9123-45-6789",
    "Call (503) 555-0123 or +1 212 555 0100 or +44 20 7946 0958; fax 503.555.0199",
    "IBAN GB82 WEST 1234 5698 7654 32 and GB82WEST12345698765433 (bad check)",
    "Routing 021000021, routing 021000022 (bad ABA), account no. 12345678, acct # 9876-5432-10",
    "born on 03/15/1962; D.O.B. 1970-01-02; birthday March 3rd, 1985; born in 1999",
    "1600 Pennsylvania Avenue, Washington, DC 20500 and 221 Baker St and 10 Downing Street",
    "Ship to 350 5th Ave, Suite 3300, New York, NY 10118. Room 12 Main",
    "ﬁle 4111 1111 1111 1111 born 1/2/1990 routıng 021000021 ACCOUNT NUMBER: 123456789",
    "12 13 14 2001-05-14 10:00 555-0100 99 Oak Lane 2 x",
]


@pytest.mark.parametrize("text", PII_TEXTS)
def test_pii_equals_the_simple_per_regex_detector(text):
    got = [(h.kind, h.start, h.end, h.text) for h in P.detect_pii(text)]
    assert got == _simple_pii(text)
    counts = P.pii_count_rows([text])[0]
    assert list(counts) == [sum(1 for g in got if g[0] == k) for k in P.PII_KINDS]


def test_luhn_invalid_numbers_do_not_match():
    assert [h.kind for h in P.detect_pii("pay 4111 1111 1111 1112 now")] != ["payment_card"]
    assert not any(h.kind == "payment_card" for h in P.detect_pii("4111111111111112 and 5500 0000 0000 0005"))
    assert [h.text for h in P.detect_pii("4111111111111111") if h.kind == "payment_card"] == ["4111111111111111"]


_PIECES = ["4111 1111 1111 1111", "4111 1111 1111 1112", "123-45-6789", "(503) 555-0123", "+44 20 7946 0958",
           "GB82 WEST 1234 5698 7654 32", "routing 021000021", "account no. 12345678", "born on 03/15/1962",
           "DOB: Jan 5, 1970", "221 Baker St", "350 5th Ave, Suite 3300, New York, NY 10118", "-", "+", "\n", "İ",
           "ı", "Main Street", "4111111111111112", "born on 3/4/1970", "DOB: Jan 5, 1980", "12 Main Street",
           "350 Fifth Avenue, New York, NY 10118", "Birthday", "ACCT # 9876543", "x7",
           # reviewed defects: IBANs cut at their country's length, number runs, dates of birth in
           # words, 2-series cards, "+1" unspaced, digits of other scripts, accounts
           "IBAN BE68 5390 0754 7034 BIC", "gb82 west 1234 5698 7654 32", "DE89-3704-0044-0532-0130-00 2019",
           "57 47 70 21 33 23 45 24", "212.555.1234.123", "2.212.555.1234", "1-866-522-8575 24hrs",
           "date of birth: march 3, 1970", "born 3-Mar-70", "born on the twenty-first of June, 1970", "March third, 1970",
           "2223 0000 4841 0010", "+12125550100", "SSN ١٢٣-٤٥-٦٧٨٩", "SSN １２３-４５-６７８９", "١٢ Main Street",
           "+44 ٢٠ ٧٩٤٦ ٠٩٥٨", "Bırthday: 03/15/1970", "bİrthday 03/15/1970", "ROUTİNG 021000021",
           "account 12345678 2 times", "card 4111 1111 1111 1111 12/25"]
# ASCII letters, digits and separators, digits of other scripts (Arabic-Indic, full-width,
# Devanagari), the dotless and dotted i, line ends.
_ALPHABET = string.ascii_letters + string.digits + " -+()/.:#" + "٠١٢٣٤٥٦٧٨٩" + "０１２３４５６７８９" + "४२" + "ıİ" + "\r\n"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(_PIECES), st.text(_ALPHABET, max_size=14)), max_size=8),
       st.sampled_from([" ", "", "\n", ", ", "\r\n", "١"]))
def test_pii_equals_the_simple_detector_generated(parts, sep):
    text = sep.join(parts)
    assert [(h.kind, h.start, h.end, h.text) for h in P.detect_pii(text)] == _simple_pii(text)


def test_pii_block_on_the_project_equals_pii_features(project):
    s, fm, docs = project
    texts = ["\n".join((d.subject, d.body[:F.MAX_TEXT], d.attachments[:F.MAX_TEXT])) for _, d in docs]
    expected = [[F.pii_features(t)[k] for k in F.PII_NAMES] for t in texts]
    np.testing.assert_array_equal(F._pii_block([d for _, d in docs]), np.array(expected))
    for t in texts:
        if re.search(r"\d", t):
            assert [(h.kind, h.start, h.end, h.text) for h in P.detect_pii(t)] == _simple_pii(t)


# ------------------------------------------------------------------------------ cues
_CUE_WORDS = ["attorney", "do not forward", "Do NOT disclose", "internal use only", "miss you", "resume", "résumé",
              "RÉSUMÉS", "laid off the record", "work product", "hire", "hired", "hireling", "sorry", "hell's",
              "confidentiality", "bonuses", "ſecret", "Kids", "promotion_x", "x", "!!", "the", "ﬁle", "offer letter"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(_CUE_WORDS), st.text(string.ascii_letters + " _'-!?\n", max_size=10)),
                max_size=12), st.sampled_from([" ", "", "\n", ", ", "_"]))
def test_cue_counter_equals_cue_counts(words, sep):
    text = sep.join(words)
    got = F._CueCounter().counts([text, text.upper()])
    assert list(got[0]) == [Q.cue_counts(text)[k] for k in Q.CUE_KINDS]
    assert list(got[1]) == [Q.cue_counts(text.upper())[k] for k in Q.CUE_KINDS]


def test_cue_block_on_the_project_equals_cue_features(project):
    s, fm, docs = project
    expected = [[Q.cue_features(d.subject, d.body[:F.MAX_TEXT])[k] for k in Q.CUE_NAMES] for _, d in docs]
    np.testing.assert_array_equal(F._cue_block([d for _, d in docs]), np.array(expected))
