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
# An independent reference for the meta, network and PII columns, written here from what each
# column means (not through metadata_features / network_features / _meta_net_rows / detect_pii,
# which the fast path shares): addresses by the standard library's parser, PII by every detector
# over the whole text with no pre-filter.
_WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


def _ref_addresses(header: str) -> list[str]:
    from email.utils import getaddresses
    return [a.strip().lower() for _, a in getaddresses([header]) if "@" in a] if header else []


def _ref_internal(address: str, domains) -> bool:
    host = address.split("@")[-1].lower()
    return any(host == d or host.endswith("." + d) for d in domains)


def _ref_first_word(value: str) -> str:
    words = value.replace('"', " ").replace("'", " ").replace("(", " ").replace(")", " ").split()
    return words[0].lower() if words else ""


def _ref_meta_net(d, domains, central) -> tuple[dict[str, float], dict[str, float]]:
    """(metadata columns, network columns) of one message."""
    from datetime import datetime
    f = {}
    try:
        when = datetime.fromisoformat(d.date) if d.date else None
    except ValueError:
        when = None
    for i, day in enumerate(_WEEKDAYS):
        f[f"weekday_{day}"] = float(when is not None and when.weekday() == i)
    hour = when.hour if when is not None else None
    f["hour_night"] = float(hour is not None and 0 <= hour < 6)
    f["hour_morning"] = float(hour is not None and 6 <= hour < 12)
    f["hour_afternoon"] = float(hour is not None and 12 <= hour < 18)
    f["hour_evening"] = float(hour is not None and 18 <= hour < 24)
    f["weekend"] = float(when is not None and when.weekday() >= 5)
    f["no_date"] = float(when is None)
    sender = d.from_addr.lower()
    f["sender_internal"] = float(bool(sender) and _ref_internal(sender, domains))
    f["sender_external"] = float(bool(sender) and not _ref_internal(sender, domains))
    to, cc, bcc = _ref_addresses(d.to), _ref_addresses(d.cc), _ref_addresses(d.bcc)
    rcpts = []
    for a in to + cc + bcc:
        if a not in rcpts:
            rcpts.append(a)
    n_int = sum(_ref_internal(a, domains) for a in rcpts)
    f["n_recipients"] = math.log1p(len(rcpts))
    f["n_internal_recipients"] = math.log1p(n_int)
    f["n_external_recipients"] = math.log1p(len(rcpts) - n_int)
    f["any_external_recipient"] = float(n_int < len(rcpts))
    f["all_recipients_internal"] = float(len(rcpts) > 0 and n_int == len(rcpts))
    f["n_cc"] = math.log1p(len(cc))
    f["has_bcc"] = float(len(bcc) > 0)
    f["subject_length"] = math.log1p(len(d.subject))
    f["body_length"] = math.log1p(len(d.body))
    f["attachment_length"] = math.log1p(len(d.attachments))
    f["has_attachments"] = float(d.n_attachments > 0)
    f["n_attachments"] = math.log1p(d.n_attachments)
    subj = d.subject.lstrip().lower()
    f["is_reply"] = float(bool(d.in_reply_to) or bool(re.match(r"(re|aw|sv) *:", subj)))
    head = d.body[:20000].lower()
    f["is_forward"] = float(bool(re.match(r"(fw|fwd|wg) *:", subj)) or "begin forwarded message" in head
                            or bool(re.search(r"-+ *forwarded (by|message)", head)))
    f["has_quoted_original"] = float(bool(re.search(r"--- *original message", head)))
    f["importance_high"] = float(_ref_first_word(d.importance) == "high")
    f["importance_low"] = float(_ref_first_word(d.importance) == "low")
    f["priority_high"] = float(_ref_first_word(d.priority) in ("1", "2", "high", "highest", "urgent"))
    sens = d.sensitivity_header.lower()
    f["sensitivity_header_private"] = float("private" in sens or "personal" in sens)
    f["sensitivity_header_confidential"] = float("confidential" in sens)
    zero, net = (0.0, 0.0, 0.0, 0.0), {}
    for m, v in zip(F.NET_MEASURES, central.get(sender, zero)):
        net[f"sender_{m}"] = float(v)
    for j, m in enumerate(F.NET_MEASURES):
        vals = [central.get(a, zero)[j] for a in rcpts]
        net[f"recipients_min_{m}"] = float(min(vals)) if vals else 0.0
        net[f"recipients_max_{m}"] = float(max(vals)) if vals else 0.0
        net[f"recipients_mean_{m}"] = float(sum(vals) / len(vals)) if vals else 0.0
    return f, net


def _ref_pii(text: str) -> dict[str, float]:
    counts = Counter(kind for kind, *_ in _simple_pii(text))
    f = {f"{k}_count": math.log1p(counts[k]) for k in P.PII_KINDS}
    f["any_pii"] = float(sum(counts.values()) > 0)
    return f


def _ref_dense(docs, domains, central) -> np.ndarray:
    """Meta, PII, network and cue columns in DENSE_NAMES order (cues by cues.cue_features)."""
    rows = []
    for d in docs:
        meta, net = _ref_meta_net(d, domains, central)
        f = {f"meta:{k}": v for k, v in meta.items()}
        f.update({f"net:{k}": v for k, v in net.items()})
        f.update({f"pii:{k}": v for k, v in _ref_pii("\n".join((d.subject, d.body[:F.MAX_TEXT],
                                                                 d.attachments[:F.MAX_TEXT]))).items()})
        f.update({f"cue:{k}": v for k, v in Q.cue_features(d.subject, d.body[:F.MAX_TEXT]).items()})
        assert set(f) == set(F.DENSE_NAMES)
        rows.append([f[n] for n in F.DENSE_NAMES])
    return np.array(rows, dtype=np.float64).reshape(len(docs), len(F.DENSE_NAMES))


_EDGE_DOCS = [
    F.DocFields(doc_id="e1", subject="RE: budget", body="ok\n-----Original Message-----\nFrom: x", date="2001-03-10T21:15:00-08:00",
                from_addr="Ann@Corp.com", to='"Lee, Bob" <bob@corp.com>, c@ext.org, bob@corp.com', cc="d@mail.corp.com, d@mail.corp.com",
                bcc="e@ext.org", importance='"High"', priority="1 (Highest)", sensitivity_header="Company-Confidential",
                n_attachments=2, attachments="salary list"),
    F.DocFields(doc_id="e2", subject="Fwd: SSN 123-45-6789", body="call (503) 555-0123; IBAN BE68 5390 0754 7034 BIC x",
                date="not a date", from_addr="x@gmail.com", to="undisclosed-recipients:;", priority="non-urgent",
                importance="not high", sensitivity_header="Personal"),
    F.DocFields(doc_id="e3", subject="lunch", body="---------------------- Forwarded by Ann Lee/Corp on 01/02/2001\n"
                "born on the 3rd of March 1970; Scores 57 47 70 21 33 23 45 24; SSN ١٢٣-٤٥-٦٧٨٩",
                date="2001-03-05T05:59:00+01:00", from_addr="", to="", in_reply_to="<x@y>", importance="low"),
    F.DocFields(doc_id="e4"),
]


def test_dense_block_equals_an_independent_reference(project):
    s, fm, docs = project
    space = fm.space
    plain = [d for _, d in docs] + _EDGE_DOCS
    central = dict(space.central_)
    central.setdefault("ann@corp.com", (0.5, 0.25, 1.5, 0.125))
    central.setdefault("bob@corp.com", (0.25, 0.0, 0.75, 0.0))
    central.setdefault("c@ext.org", (1.0, 0.0, 2.0, 0.5))
    domains = list(space.internal_domains_) + ["corp.com"]
    expected = _ref_dense(plain, domains, central)
    np.testing.assert_array_equal(F._dense_rows((domains, central, plain)), expected)
    # ... and on the edge messages the reference gives what the columns mean
    row = dict(zip(F.DENSE_NAMES, expected[len(docs)]))
    assert row["meta:weekday_sat"] == row["meta:hour_evening"] == row["meta:sender_internal"] == 1.0
    assert row["meta:n_recipients"] == math.log1p(4) and row["meta:n_internal_recipients"] == math.log1p(2)
    assert row["meta:n_cc"] == math.log1p(2) and row["meta:has_bcc"] == 1.0 and row["meta:is_forward"] == 0.0
    assert row["meta:has_quoted_original"] == row["meta:priority_high"] == row["meta:importance_high"] == 1.0
    assert row["net:sender_pagerank"] == 1.5 and row["net:recipients_max_in_degree"] == 1.0
    assert row["net:recipients_mean_in_degree"] == (0.25 + 1.0 + 0.0 + 0.0) / 4
    row = dict(zip(F.DENSE_NAMES, expected[len(docs) + 1]))
    assert row["meta:no_date"] == row["meta:sender_external"] == row["meta:is_forward"] == 1.0
    assert row["meta:priority_high"] == row["meta:importance_high"] == 0.0
    assert row["pii:national_id_count"] == row["pii:phone_count"] == row["pii:iban_count"] == math.log1p(1)
    row = dict(zip(F.DENSE_NAMES, expected[len(docs) + 2]))
    assert row["meta:is_forward"] == row["meta:is_reply"] == row["meta:hour_night"] == row["meta:importance_low"] == 1.0
    assert row["pii:date_of_birth_count"] == math.log1p(1) and row["pii:any_pii"] == 1.0
    assert row["pii:payment_card_count"] == row["pii:national_id_count"] == 0.0
    assert row["meta:sender_internal"] == row["meta:sender_external"] == 0.0


def test_dense_block_pii_columns_from_placed_pieces():
    """PII columns of messages built from pieces whose hits are known (no detector involved)."""
    pieces = {"payment_card": "4111 1111 1111 1111", "national_id": "SSN 123-45-6789", "phone": "(503) 555-0123",
              "iban": "GB82 WEST 1234 5698 7654 32", "bank_account": "routing 021000021",
              "date_of_birth": "born on 03/15/1962", "street_address": "221 Baker St"}
    negatives = ["4111 1111 1111 1112", "GB82 WEST 1234 5698 7654 33", "57 47 70 21 33 23 45 24", "routing 021000022"]
    rng = np.random.default_rng(7)
    docs, expected = [], []
    for i in range(40):
        counts = {k: int(rng.integers(0, 3)) for k in P.PII_KINDS}
        parts = [pieces[k] for k, n in counts.items() for _ in range(n)] + list(rng.choice(negatives, 2))
        rng.shuffle(parts)
        docs.append(F.DocFields(doc_id=f"p{i}", subject="note", body=" 🙂 ".join(parts) + "\r\n"))
        expected.append([math.log1p(counts[k]) for k in P.PII_KINDS] + [float(sum(counts.values()) > 0)])
    got = F._dense_rows(([], {}, docs))
    cols = [F.DENSE_NAMES.index(f"pii:{n}") for n in F.PII_NAMES]
    np.testing.assert_array_equal(got[:, cols], np.array(expected))


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
        texts = [F.TEXT_OF[name](d) for d in fm.space._read([d for _, d in docs])]  # (bodies as the space reads them)
        vec = fm.space.vectorizers_[name]
        sk = F._text_vectorizer(o, max(1000, int(o.max_features * {"subject": 0.15, "body": 0.6}[name])))
        assert isinstance(sk, TfidfVectorizer)
        sk.fit(texts)
        assert list(sk.get_feature_names_out()) == list(vec.get_feature_names_out())
        np.testing.assert_allclose(vec.transform(texts).toarray(), sk.transform(texts).toarray(), rtol=1e-5, atol=1e-6)


# ------------------------------------------------------------------------------ PII
def _simple_pii(text: str) -> list[tuple[str, int, int, str]]:
    """Every detector over the whole text (no pre-filters), weaker overlapping hits dropped
    (an IBAN is stronger than a card: P.PII_PRECEDENCE)."""
    taken, out = [], []
    for kind in P.PII_PRECEDENCE:
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
           "account 12345678 2 times", "card 4111 1111 1111 1111 12/25",
           # second review: neighbours of another shape, IBAN digits, accounts in a date's or phone's shape
           "$25 4111 1111 1111 1111", "5500 0000 0000 0004", "EB 3880 (713) 853-5620", "44-207-842-9259",
           "+001 407 323 1668", "IBAN: BE61821107065877", "AT33 5515 7527 7472 7345", "HN88CABF00000000000250005469",
           "account: 713 853 5620", "account no. 713 853 5620", "account 05-14-2001", "TX 77002"]
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
