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
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np
from whoosh import query as wq

from ..index.fastscore import plan
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
        con = self.session.store.con
        for i in range(0, len(need), 500):
            chunk = need[i:i + 500]
            marks = ",".join("?" * len(chunk))
            rows = con.execute(
                f"SELECT m.doc_id, m.subject, m.body, m.sender, m.recipients, m.cc, m.n_attachments, "
                f"(SELECT group_concat(COALESCE(a.text, ''), ' ') FROM attachments a WHERE a.message = m.id) "
                f"FROM messages m WHERE m.doc_id IN ({marks})", chunk).fetchall()
            for doc_id, subject, body, sender, rcpt, cc, natt, att in rows:
                toks = {"subject": self.terms(subject), "body": self.terms(body), "attachments": self.terms(att or "")}
                toks["all"] = toks["subject"] + self.terms(f"{sender} {rcpt} {cc}") + toks["body"] + toks["attachments"]
                self._tokens[doc_id] = toks
                n_rcpt = sum(1 for x in f"{rcpt},{cc}".split(",") if x.strip())
                subj = (subject or "").lower().lstrip()
                self._meta[doc_id] = (float(natt or 0), float(n_rcpt), math.log1p(len(body or "")),
                                      1.0 if subj.startswith(("re:", "fw:", "fwd:")) else 0.0)
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
        blocks = []
        done: dict[tuple, list[np.ndarray]] = {}   # the same query terms give the same blocks
        for qterms in (list(title_terms), list(titledesc_terms)):
            counts = Counter(qterms)
            uniq = list(counts)
            key = tuple(counts.items())
            if key in done:
                blocks.extend(done[key])
                continue
            qtf = np.array([counts[t] for t in uniq], float)
            form_blocks = []
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
                form_blocks.append(field_features(TF, qtf, dl, self._stats(field, uniq), span))
            done[key] = form_blocks
            blocks.extend(form_blocks)
        ws = np.zeros((D, 1)) if whoosh_scores is None else np.asarray(whoosh_scores, float).reshape(D, 1)
        return np.hstack(blocks + [ws])

    def metadata(self, doc_ids: Sequence[str]) -> np.ndarray:
        self._load(doc_ids)
        return np.array([self._meta[d] for d in doc_ids], float).reshape(len(doc_ids), 4)


# Fields whose words are what a query is about (from:, to:, date:, thread: and folder: only
# restrict which messages match).
TERM_FIELDS = ("subject", "body", "attachments", "all")


def positive_terms(q) -> list[str]:
    """The words a parsed search query (``SearchIndex.parse``) looks for, in order, each once:
    the terms and phrase words of its text fields (subject, body, attachments, all). What it
    leaves out (NOT x, -x, the right side of ANDNOT) adds no word, nor do field names
    (subject:launch looks for launch) or the values of filters (from:, to:, date:, thread:,
    folder:). Wildcards and ranges name no single word and add none."""
    out: list[str] = []

    def walk(node) -> None:
        if isinstance(node, wq.Not):
            return
        if isinstance(node, wq.AndNot):          # AndNot(wanted, left out)
            walk(node.a)
            return
        field = getattr(node, "fieldname", None)
        if isinstance(node, (wq.Term, wq.Phrase)):
            if field in TERM_FIELDS:
                words = [node.text] if isinstance(node, wq.Term) else node.words
                out.extend(w.decode("utf-8", "replace") if isinstance(w, bytes) else str(w) for w in words)
            return
        for child in (node.children() if hasattr(node, "children") else ()):
            walk(child)

    walk(q)
    return list(dict.fromkeys(out))


def sensitivity_features(probs: np.ndarray, metadata: np.ndarray) -> np.ndarray:
    """[D, len(SENS_FEATURES)]: probability, complement, then the metadata columns."""
    p = np.asarray(probs, float).reshape(-1, 1)
    return np.hstack([p, 1.0 - p, np.asarray(metadata, float)])
