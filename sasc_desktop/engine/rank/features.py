"""Query-document features computed over a candidate set (the top few hundred from Whoosh).

For every field (subject, body, attachments, all) and query form (title; title+description)
the kernel :func:`field_features` computes, vectorised over the candidates from a term
frequency matrix ``TF [D, Q]``, document lengths and collection statistics read from the Whoosh
reader: BM25, TF-IDF sum/min/max, TF and length-normalised TF statistics (sum/min/max/mean),
IDF statistics, language-model scores (Dirichlet mu=1000, Jelinek-Mercer lambda=0.1), the DFR
model InL2, query-term coverage and matched-term count, minimal span proximity (matched terms /
shortest window holding them all) and the field length. Sensitivity features (the persona
classifier's probability, its complement, and message metadata) are appended by
:func:`sensitivity_features`.

Texts come from the SQLite store (term vectors are not stored in the index); tokens are cached
per document, so an experiment tokenises each candidate once. Texts are analysed with the
index's fast analysis (:func:`analyse_terms`, the same stems as Whoosh's StemmingAnalyzer) and
candidates come from the index's vectorised BM25F scorer (the same documents, order and scores
as Whoosh's search of the same OR query).

Searches (protect.search) use :class:`CachedFeatureExtractor`: the same features, to the last
bit, from a :class:`DocumentTermCache` shared by every search of a project open in the process
(:func:`term_cache`): each document's stems as term ids (a numpy array, subject | sender and
recipients | body | attachments), kept across searches, least recently used ones dropped past
DOC_CACHE_MAX documents, and forgotten when the project's mail changes (the largest message
and copies row ids: a message added, or a copy that replaced the kept copy's text). Term
counts and minimal spans are then computed for all candidates at once from those arrays.
"""
from __future__ import annotations

import math
import threading
import weakref
from collections import Counter, OrderedDict
from dataclasses import dataclass
from typing import NamedTuple, Optional, Sequence

import numpy as np
from whoosh import query as wq

from ..index.fastscore import plan
from ..index.query import wanted_leaves
from ..index.schema import analyse_terms, text_analyzer

FIELDS = ("subject", "body", "attachments", "all")
FORMS = ("title", "titledesc")
PER_FIELD = ("bm25", "tfidf_sum", "tfidf_min", "tfidf_max",
             "tf_sum", "tf_min", "tf_max", "tf_mean", "ntf_sum", "ntf_min", "ntf_max", "ntf_mean",
             "idf_sum", "idf_min", "idf_max", "idf_mean",
             "lm_dir", "lm_jm", "dfr_inl2", "coverage", "matched", "proximity", "length")
SENS_FEATURES = ("sens_prob", "sens_complement", "n_attachments", "n_recipients", "log_body_len",
                 "is_reply_or_forward")
BM25_K1, BM25_B, MU, JM_LAMBDA = 1.2, 0.75, 1000.0, 0.1


def relevance_feature_names() -> tuple[str, ...]:
    return tuple(f"{form}:{field}:{f}" for form in FORMS for field in FIELDS for f in PER_FIELD) + ("whoosh_bm25f",)


@dataclass(frozen=True)
class CollectionStats:
    n_docs: int
    avg_len: float           # mean field length (tokens)
    total_len: float         # tokens in the field over the collection
    df: np.ndarray           # [Q] document frequency of each query term
    cf: np.ndarray           # [Q] collection frequency


def min_span(tokens: Sequence[str], terms: Sequence[str]) -> int:
    """Length (in tokens) of the shortest window holding every query term that occurs in
    ``tokens``; 0 when fewer than one term occurs."""
    want = {t: i for i, t in enumerate(dict.fromkeys(terms))}
    hits = [(p, want[t]) for p, t in enumerate(tokens) if t in want]
    present = {i for _, i in hits}
    need = len(present)
    if need == 0:
        return 0
    if need == 1:
        return 1
    best = len(tokens) + 1
    counts: Counter = Counter()
    have = 0
    lo = 0
    for hi in range(len(hits)):
        ti = hits[hi][1]
        counts[ti] += 1
        if counts[ti] == 1:
            have += 1
        while have == need:
            best = min(best, hits[hi][0] - hits[lo][0] + 1)
            tl = hits[lo][1]
            counts[tl] -= 1
            if counts[tl] == 0:
                have -= 1
            lo += 1
    return best


def field_features(TF: np.ndarray, qtf: np.ndarray, dl: np.ndarray, stats: CollectionStats,
                   span: Optional[np.ndarray] = None) -> np.ndarray:
    """The PER_FIELD features for D documents: ``TF [D, Q]`` term counts, ``qtf [Q]`` query
    term counts, ``dl [D]`` field lengths, ``span [D]`` minimal spans (0 = none). -> [D, F]."""
    TF = np.asarray(TF, dtype=np.float64)
    D, Q = TF.shape
    out = np.zeros((D, len(PER_FIELD)))
    dl = np.asarray(dl, dtype=np.float64)
    if Q == 0:
        out[:, PER_FIELD.index("length")] = dl
        return out
    N = max(stats.n_docs, 1)
    df = np.minimum(stats.df.astype(np.float64), N)
    idf = np.log(1.0 + (N - df + 0.5) / (df + 0.5))
    avg = max(stats.avg_len, 1e-9)
    norm = BM25_K1 * (1 - BM25_B + BM25_B * dl / avg)
    bm25 = (idf[None, :] * TF * (BM25_K1 + 1) / (TF + norm[:, None]) * qtf[None, :]).sum(1)
    tfidf = TF * idf[None, :]
    ntf = TF / np.maximum(dl, 1.0)[:, None]
    pc = (stats.cf.astype(np.float64) + 1.0) / (stats.total_len + 1.0)
    lm_dir = (qtf[None, :] * np.log((TF + MU * pc[None, :]) / (dl[:, None] + MU))).sum(1)
    lm_jm = (qtf[None, :] * np.log((1 - JM_LAMBDA) * ntf + JM_LAMBDA * pc[None, :])).sum(1)
    tfn = TF * np.log2(1.0 + avg / np.maximum(dl, 1.0))[:, None]
    dfr = (qtf[None, :] * tfn / (tfn + 1.0) * np.log2((N + 1.0) / (df + 0.5))[None, :]).sum(1)
    matched = (TF > 0).sum(1).astype(np.float64)
    span = np.zeros(D) if span is None else np.asarray(span, dtype=np.float64)
    prox = np.where(span > 0, matched / np.maximum(span, 1.0), 0.0)
    cols = {
        "bm25": bm25, "tfidf_sum": tfidf.sum(1), "tfidf_min": tfidf.min(1), "tfidf_max": tfidf.max(1),
        "tf_sum": TF.sum(1), "tf_min": TF.min(1), "tf_max": TF.max(1), "tf_mean": TF.mean(1),
        "ntf_sum": ntf.sum(1), "ntf_min": ntf.min(1), "ntf_max": ntf.max(1), "ntf_mean": ntf.mean(1),
        "idf_sum": np.full(D, idf.sum()), "idf_min": np.full(D, idf.min()), "idf_max": np.full(D, idf.max()),
        "idf_mean": np.full(D, idf.mean()), "lm_dir": lm_dir, "lm_jm": lm_jm, "dfr_inl2": dfr,
        "coverage": matched / Q, "matched": matched, "proximity": prox, "length": dl,
    }
    for j, name in enumerate(PER_FIELD):
        out[:, j] = cols[name]
    return out


def _candidate_rows(con, doc_ids: Sequence[str]):
    """(doc_id, subject, body, "sender recipients cc", attachments' text, metadata) of the
    stored messages among ``doc_ids``, read 500 at a time; metadata is (attachments, recipients,
    log(1 + body length), reply or forward)."""
    for i in range(0, len(doc_ids), 500):
        chunk = doc_ids[i:i + 500]
        marks = ",".join("?" * len(chunk))
        rows = con.execute(
            f"SELECT m.doc_id, m.subject, m.body, m.sender, m.recipients, m.cc, m.n_attachments, "
            f"(SELECT group_concat(COALESCE(a.text, ''), ' ') FROM attachments a WHERE a.message = m.id) "
            f"FROM messages m WHERE m.doc_id IN ({marks})", chunk).fetchall()
        for doc_id, subject, body, sender, rcpt, cc, natt, att in rows:
            n_rcpt = sum(1 for x in f"{rcpt},{cc}".split(",") if x.strip())
            low = (subject or "").lower().lstrip()
            meta = (float(natt or 0), float(n_rcpt), math.log1p(len(body or "")),
                    1.0 if low.startswith(("re:", "fw:", "fwd:")) else 0.0)
            yield doc_id, subject, body, f"{sender} {rcpt} {cc}", att or "", meta


def _feature_matrix(title_terms: Sequence[str], titledesc_terms: Sequence[str], form_blocks,
                    whoosh_scores: Optional[Sequence[float]], D: int) -> np.ndarray:
    """[D, F]: ``form_blocks(unique terms, their query counts)`` (one block per field) for the
    title form, then the title+description form (computed once when both have the same terms),
    then the Whoosh scores (zeros when not given)."""
    blocks = []
    done: dict[tuple, list[np.ndarray]] = {}   # the same query terms give the same blocks
    for qterms in (list(title_terms), list(titledesc_terms)):
        counts = Counter(qterms)
        key = tuple(counts.items())
        if key not in done:
            uniq = list(counts)
            done[key] = form_blocks(uniq, np.array([counts[t] for t in uniq], float))
        blocks.extend(done[key])
    ws = np.zeros((D, 1)) if whoosh_scores is None else np.asarray(whoosh_scores, float).reshape(D, 1)
    return np.hstack(blocks + [ws])


class FeatureExtractor:
    """Candidates and features for queries against one project (session)."""

    def __init__(self, session, depth: int = 200):
        self.session = session
        self.depth = depth
        self.analyzer = text_analyzer()
        self._tokens: dict[str, dict[str, list[str]]] = {}
        self._meta: dict[str, tuple] = {}
        self._stats_cache: dict[tuple[str, str], tuple[int, int]] = {}
        self._reader = None

    # ------------------------------------------------------------------ helpers
    def terms(self, text: str) -> list[str]:
        """The stems of ``text`` in order, as ``text_analyzer()`` gives them."""
        return analyse_terms(text or "")[1]

    def _searcher(self):
        return self.session.index.searcher()

    def candidates(self, text: str, depth: Optional[int] = None) -> list[tuple[str, float]]:
        """Top ``depth`` (doc_id, BM25F score) for the words of ``text`` (OR over the text fields)."""
        terms = list(dict.fromkeys(self.terms(text)))
        if not terms:
            return []
        q = wq.Or([wq.Term(f, t) for f in ("subject", "body", "attachments") for t in terms])
        s = self._searcher()
        limit = depth or self.depth
        leaves = plan(q, s.schema)
        fast = getattr(self.session.index, "fast_scorer", None)
        if leaves is None or fast is None:
            return self._whoosh_candidates(q, limit)
        docnums, scores, _total = fast(s).search(leaves, limit)
        stored = s.stored_fields
        return [(stored(n)["doc_id"], sc) for n, sc in zip(docnums.tolist(), scores.tolist())]

    def _whoosh_candidates(self, q, limit: int) -> list[tuple[str, float]]:
        """Whoosh's own search of ``q`` (the oracle the fast path is tested against)."""
        res = self._searcher().search(q, limit=limit)
        return [(r["doc_id"], float(r.score)) for r in res]

    def _load(self, doc_ids: Sequence[str]) -> None:
        need = [d for d in doc_ids if d not in self._tokens]
        for doc_id, subject, body, head, att, meta in _candidate_rows(self.session.store.con, need):
            toks = {"subject": self.terms(subject), "body": self.terms(body), "attachments": self.terms(att)}
            toks["all"] = toks["subject"] + self.terms(head) + toks["body"] + toks["attachments"]
            self._tokens[doc_id] = toks
            self._meta[doc_id] = meta
        for d in need:  # documents missing from the store: empty
            self._tokens.setdefault(d, {f: [] for f in FIELDS})
            self._meta.setdefault(d, (0.0, 0.0, 0.0, 0.0))

    def _stats(self, field: str, terms: list[str]) -> CollectionStats:
        s = self._searcher()
        r = s.reader()
        n = s.doc_count()
        df, cf = [], []
        for t in terms:
            key = (field, t)
            if key not in self._stats_cache:
                self._stats_cache[key] = (r.doc_frequency(field, t), r.frequency(field, t))
            a, b = self._stats_cache[key]
            df.append(a)
            cf.append(b)
        total = float(r.field_length(field))
        return CollectionStats(n, total / max(n, 1), total, np.array(df, float), np.array(cf, float))

    # ----------------------------------------------------------------- features
    def relevance(self, title: str, description: str, doc_ids: Sequence[str],
                  whoosh_scores: Optional[Sequence[float]] = None) -> np.ndarray:
        """[D, F] relevance features (``relevance_feature_names()`` order) of a topic: the title
        form is the title's words, the title+description form those of both."""
        return self.relevance_for_terms(self.terms(title), self.terms(f"{title} {description}"),
                                        doc_ids, whoosh_scores)

    def relevance_for_terms(self, title_terms: Sequence[str], titledesc_terms: Sequence[str],
                            doc_ids: Sequence[str], whoosh_scores: Optional[Sequence[float]] = None) -> np.ndarray:
        """:meth:`relevance` for query forms given as their (analysed) terms, e.g. the positive
        terms of a parsed search query (:func:`positive_terms`), passed as both forms."""
        self._load(doc_ids)
        D = len(doc_ids)

        def form_blocks(uniq: list[str], qtf: np.ndarray) -> list[np.ndarray]:
            out = []
            for field in FIELDS:
                TF = np.zeros((D, len(uniq)))
                dl = np.zeros(D)
                span = np.zeros(D)
                for i, d in enumerate(doc_ids):
                    toks = self._tokens[d][field]
                    dl[i] = len(toks)
                    if not uniq or not toks:
                        continue
                    row = [toks.count(t) for t in uniq]
                    TF[i] = row
                    nz = sum(1 for v in row if v)
                    if nz >= 2:
                        span[i] = min_span(toks, uniq)
                    elif nz:
                        span[i] = 1
                out.append(field_features(TF, qtf, dl, self._stats(field, uniq), span))
            return out

        return _feature_matrix(title_terms, titledesc_terms, form_blocks, whoosh_scores, D)

    def metadata(self, doc_ids: Sequence[str]) -> np.ndarray:
        self._load(doc_ids)
        return np.array([self._meta[d] for d in doc_ids], float).reshape(len(doc_ids), 4)


# ------------------------------------------------------------ the term cache of searches
DOC_CACHE_MAX = 20_000     # documents a project's term cache keeps (least recently used dropped)
VOCAB_MAX = 500_000        # distinct stems past which a term cache starts again (bounds its vocabulary)


class CachedDoc(NamedTuple):
    """One document's stems as term ids: ``ids`` is the "all" field (subject, then the sender
    and recipients' words, body, attachments: FeatureExtractor's order), ``ends`` where the
    subject, the header words and the body end in it, ``meta`` as FeatureExtractor.metadata."""
    ids: np.ndarray
    ends: tuple[int, int, int]
    meta: tuple[float, float, float, float]


_EMPTY_DOC = CachedDoc(np.zeros(0, np.int32), (0, 0, 0), (0.0, 0.0, 0.0, 0.0))


def mail_state(con) -> tuple[int, int]:
    """What the text of a project's mail depends on, in O(log n): the largest message row id (a
    message added) and the largest ``copies`` row id (ingest adds a copies row for every copy,
    also for one whose text replaces the kept copy's): classify.api's cache key of scores."""
    top, copies = con.execute("SELECT (SELECT MAX(id) FROM messages), (SELECT MAX(id) FROM copies)").fetchone()
    return (top or 0, copies or 0)


class DocumentTermCache:
    """Documents' stems as term ids (:class:`CachedDoc`), shared by the searches of one project:
    at most ``max_docs`` documents (least recently used dropped), started again when the
    vocabulary passes ``max_terms`` stems. Before each use the project's :func:`mail_state` is
    read: documents whose message or copies rows were added since are dropped (a kept copy
    whose text a later copy replaced; new messages), and everything when the state went back
    (another database). Thread-safe: one lock around each :meth:`documents` call."""

    def __init__(self, max_docs: int = DOC_CACHE_MAX, max_terms: int = VOCAB_MAX):
        self.max_docs = max(1, int(max_docs))
        self.max_terms = max(1, int(max_terms))
        self._lock = threading.Lock()
        self._docs: OrderedDict[str, CachedDoc] = OrderedDict()
        self._vocab: dict[str, int] = {}
        self._state: Optional[tuple[int, int]] = None
        self._searcher_ref = None          # the index searcher the term statistics below are of
        self._term_stats: dict[tuple[str, str], tuple[int, int]] = {}
        self.loaded = 0        # documents read and tokenised (not found in the cache)
        self.reused = 0        # documents found in the cache

    def __len__(self) -> int:
        return len(self._docs)

    def __contains__(self, doc_id: str) -> bool:
        return doc_id in self._docs

    def stats(self) -> dict:
        return {"documents": len(self._docs), "terms": len(self._vocab),
                "tokens": int(sum(d.ids.size for d in self._docs.values())),
                "loaded": self.loaded, "reused": self.reused}

    def clear(self) -> None:
        with self._lock:
            self._clear()

    def _clear(self) -> None:
        self._docs = OrderedDict()
        self._vocab = {}           # a new dict: records handed out keep the one their ids are of

    def _sync(self, con, state: tuple[int, int]) -> None:
        old = self._state
        self._state = state
        if old is None or old == state or not self._docs:
            return
        if state[0] < old[0] or state[1] < old[1]:
            self._clear()
            return
        changed = con.execute(
            "SELECT m.doc_id FROM copies c JOIN messages m ON m.id = c.message WHERE c.id > ? AND c.kept = 1 "
            "UNION SELECT doc_id FROM messages WHERE id > ?", (old[1], old[0])).fetchall()
        if len(changed) >= len(self._docs):
            self._clear()
            return
        for (d,) in changed:
            self._docs.pop(d, None)

    def term_stats(self, searcher) -> dict[tuple[str, str], tuple[int, int]]:
        """(field, term) -> (document frequency, collection frequency) read from ``searcher``:
        kept while the index's searcher is the same one (a changed index gets a new searcher)."""
        with self._lock:
            if (self._searcher_ref is None or self._searcher_ref() is not searcher
                    or len(self._term_stats) > self.max_terms):
                self._searcher_ref = weakref.ref(searcher)
                self._term_stats = {}
            return self._term_stats

    def documents(self, con, doc_ids: Sequence[str], terms) -> tuple[dict[str, CachedDoc], dict[str, int]]:
        """``({doc_id: CachedDoc}, vocabulary)`` for these documents (read through ``con`` and
        analysed by ``terms(text)`` when not cached; a document the store does not hold is
        empty and not kept). The vocabulary (stem -> id) is the one the records' ids are of."""
        state = mail_state(con)       # (read before the texts: a change meanwhile is seen next time)
        with self._lock:
            self._sync(con, state)
            if len(self._vocab) > self.max_terms:
                self._clear()
            docs, vocab = self._docs, self._vocab
            out: dict[str, CachedDoc] = {}
            need = []
            for d in dict.fromkeys(doc_ids):
                rec = docs.get(d)
                if rec is None:
                    need.append(d)
                else:
                    docs.move_to_end(d)
                    out[d] = rec
            self.reused += len(out)
            add = vocab.setdefault
            for doc_id, subject, body, head, att, meta in _candidate_rows(con, need):
                subj_t, head_t, body_t, att_t = terms(subject), terms(head), terms(body), terms(att)
                toks = subj_t + head_t + body_t + att_t
                ids = np.array([add(t, len(vocab)) for t in toks], np.int32)
                a = len(subj_t)
                b = a + len(head_t)
                rec = CachedDoc(ids, (a, b, b + len(body_t)), meta)
                docs[doc_id] = rec
                out[doc_id] = rec
                self.loaded += 1
            while len(docs) > self.max_docs:
                docs.popitem(last=False)
            for d in need:                # documents missing from the store: empty, not kept
                out.setdefault(d, _EMPTY_DOC)
            return out, vocab


_CACHES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()    # Store -> DocumentTermCache
_CACHES_LOCK = threading.Lock()


def term_cache(session) -> DocumentTermCache:
    """The term cache of the session's project (one per open store; it goes with the store)."""
    with _CACHES_LOCK:
        cache = _CACHES.get(session.store)
        if cache is None:
            cache = _CACHES[session.store] = DocumentTermCache()
        return cache


def _min_spans(pos: np.ndarray, col: np.ndarray, grp: np.ndarray, present: np.ndarray) -> np.ndarray:
    """:func:`min_span` of many (document, field) groups at once, each holding >= 2 distinct
    query terms: ``pos`` the hits' positions (increasing, also across groups), ``col`` their
    query term, ``grp`` their group (non-decreasing), ``present [G, Q]`` which terms a group
    holds. The shortest window ending at a hit starts at the earliest of the last occurrences
    (up to it) of the group's terms, all of them in the group; -> [number of groups] spans."""
    first = np.flatnonzero(np.r_[True, grp[1:] != grp[:-1]])
    gstart = np.repeat(pos[first], np.diff(np.r_[first, len(pos)]))
    big = np.iinfo(np.int64).max
    start = np.full(len(pos), big, np.int64)
    for j in range(present.shape[1]):
        here = present[grp, j]
        if not here.any():
            continue
        last = np.where(col == j, pos, -1)
        np.maximum.accumulate(last, out=last)
        np.minimum(start, last, out=start, where=here)
    length = np.where(start >= gstart, pos - start + 1, big)
    return np.minimum.reduceat(length, first)


def query_hits(qids: Sequence[int], allids: np.ndarray, starts: np.ndarray, ends: np.ndarray):
    """Every occurrence of a query term among documents' concatenated term ids ``allids``
    (document i is ``allids[starts[i]:starts[i + 1]]``, its subject, header words and body
    ending at ``ends[i]``), in order: (position in ``allids``, query term (index into ``qids``;
    an id < 0 is a term no document holds), document, field: 0 subject, 1 header words,
    2 body, 3 attachments)."""
    col = np.full(allids.size, -1, np.int64)
    for j, t in enumerate(qids):
        if t >= 0:
            col[allids == t] = j
    pos = np.flatnonzero(col >= 0)
    col = col[pos]
    doc = np.searchsorted(starts, pos, side="right") - 1
    local = pos - starts[doc]
    e = ends[doc]
    fld = (local >= e[:, 0]).astype(np.int8) + (local >= e[:, 1]) + (local >= e[:, 2])
    return pos, col, doc, fld


_FIELD_CODE = {"subject": 0, "body": 2, "attachments": 3}


def field_counts(field: str, hits, D: int, Q: int) -> tuple[np.ndarray, np.ndarray]:
    """``TF [D, Q]`` (float) and minimal spans ``[D]`` (:func:`min_span` of the field's tokens;
    1 for one matched term, 0 for none) of one field (FIELDS; "all" is every field and the
    header words) from :func:`query_hits`."""
    pos, col, doc, fld = hits
    if field != "all":
        keep = fld == _FIELD_CODE[field]
        pos, col, doc = pos[keep], col[keep], doc[keep]
    if Q == 0:
        return np.zeros((D, 0)), np.zeros(D)
    TF = np.bincount(doc * Q + col, minlength=D * Q).reshape(D, Q).astype(np.float64)
    present = TF > 0
    matched = present.sum(1)
    span = np.minimum(matched, 1).astype(np.float64)
    multi = matched >= 2
    if multi.any():
        sel = multi[doc]
        span[multi] = _min_spans(pos[sel], col[sel], doc[sel], present)
    return TF, span


class CachedFeatureExtractor(FeatureExtractor):
    """FeatureExtractor's features (bit for bit) from a shared :class:`DocumentTermCache`, term
    counts and minimal spans computed for all candidates at once. One per search: it reads the
    collection statistics from the index's current searcher (those of its terms are kept in the
    cache while that searcher is current: the index has not changed)."""

    def __init__(self, session, depth: int = 200, cache: Optional[DocumentTermCache] = None):
        super().__init__(session, depth)
        self.cache = term_cache(session) if cache is None else cache
        self._recs: dict[str, CachedDoc] = {}
        self._vocab: dict[str, int] = {}
        self._s = None

    def _searcher(self):
        if self._s is None:       # (one searcher for the search's statistics)
            self._s = super()._searcher()
        return self._s

    def _stats(self, field: str, terms: list[str]) -> CollectionStats:
        self._stats_cache = self.cache.term_stats(self._searcher())
        return super()._stats(field, terms)

    def _load(self, doc_ids: Sequence[str]) -> None:
        need = [d for d in doc_ids if d not in self._recs]
        if not need and self._recs:
            return
        recs, vocab = self.cache.documents(self.session.store.con, need, self.terms)
        if self._recs and vocab is not self._vocab:      # the cache started again: ids of one vocabulary only
            recs, vocab = self.cache.documents(self.session.store.con, list(dict.fromkeys([*self._recs, *need])),
                                               self.terms)
            self._recs = {}
        self._recs.update(recs)
        self._vocab = vocab

    def relevance_for_terms(self, title_terms: Sequence[str], titledesc_terms: Sequence[str],
                            doc_ids: Sequence[str], whoosh_scores: Optional[Sequence[float]] = None) -> np.ndarray:
        self._load(doc_ids)
        D = len(doc_ids)
        recs = [self._recs[d] for d in doc_ids]
        lens = np.fromiter((r.ids.size for r in recs), np.int64, count=D)
        starts = np.zeros(D + 1, np.int64)
        np.cumsum(lens, out=starts[1:])
        allids = np.concatenate([r.ids for r in recs]) if D else np.zeros(0, np.int32)
        ends = np.array([r.ends for r in recs], np.int64).reshape(D, 3)
        dls = {"subject": ends[:, 0], "body": ends[:, 2] - ends[:, 1], "attachments": lens - ends[:, 2], "all": lens}
        get = self._vocab.get

        def form_blocks(uniq: list[str], qtf: np.ndarray) -> list[np.ndarray]:
            hits = query_hits([get(t, -1) for t in uniq], allids, starts, ends)
            out = []
            for field in FIELDS:
                TF, span = field_counts(field, hits, D, len(uniq))
                out.append(field_features(TF, qtf, dls[field], self._stats(field, uniq), span))
            return out

        return _feature_matrix(title_terms, titledesc_terms, form_blocks, whoosh_scores, D)

    def metadata(self, doc_ids: Sequence[str]) -> np.ndarray:
        self._load(doc_ids)
        return np.array([self._recs[d].meta for d in doc_ids], float).reshape(len(doc_ids), 4)


# Fields whose words are what a query is about (from:, to:, date:, thread: and folder: only
# restrict which messages match).
TERM_FIELDS = ("subject", "body", "attachments", "all")


def positive_terms(q) -> list[str]:
    """The words a parsed search query (``SearchIndex.parse``) looks for, in order, each once:
    the terms and phrase words of its text fields (subject, body, attachments, all) among the
    leaves it looks for (``index.query.wanted_leaves``: not what a NOT, -x or the right side of
    ANDNOT leaves out; NOT (NOT x) looks for x). Field names (subject:launch looks for launch)
    and the values of filters (from:, to:, date:, thread:, folder:) add no word; wildcards and
    ranges name no single word and add none."""
    out: list[str] = []
    for node in wanted_leaves(q):
        if isinstance(node, (wq.Term, wq.Phrase)) and getattr(node, "fieldname", None) in TERM_FIELDS:
            words = [node.text] if isinstance(node, wq.Term) else node.words
            out.extend(w.decode("utf-8", "replace") if isinstance(w, bytes) else str(w) for w in words)
    return list(dict.fromkeys(out))


def sensitivity_features(probs: np.ndarray, metadata: np.ndarray) -> np.ndarray:
    """[D, len(SENS_FEATURES)]: probability, complement, then the metadata columns."""
    p = np.asarray(probs, float).reshape(-1, 1)
    return np.hstack([p, 1.0 - p, np.asarray(metadata, float)])
