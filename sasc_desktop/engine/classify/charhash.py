"""Character n-gram TF-IDF computed with numpy: hashed n-grams, a fitted bucket vocabulary.

sklearn's ``char_wb`` analyser builds every n-gram as a Python string (about 1 ms per e-mail
for 2-5-grams); here the whole batch of texts becomes one array of code points, every n-gram a
64-bit polynomial hash computed by array arithmetic, and the counts one sparse matrix. The
result matches ``TfidfVectorizer(analyzer="char_wb", sublinear_tf=True)`` up to hash
collisions: n-grams are taken inside each lower-cased word padded with one space each side;
``fit`` keeps buckets seen in at least ``min_df`` documents and at most ``max_df`` of them (the
``max_features`` most frequent), with smoothed idf and L2-normalised rows. Each kept bucket is
named by one n-gram that fell into it, for explanations.
"""
from __future__ import annotations

from itertools import repeat
from typing import Optional, Sequence

import numpy as np
import scipy.sparse as sp

_PRIME = np.uint64(1_000_003)
_MIX = np.uint64(0x9E3779B97F4A7C15)


def _stream(texts: Sequence[str], max_chars: int, wide: bool = True) -> tuple[str, np.ndarray, np.ndarray]:
    """One string of every text's words, each padded with a space, separated by NUL; the code
    points (uint64, or uint32 when not ``wide``); and the document of every position."""
    pieces = []
    for t in texts:
        words = t[:max_chars].lower().split()
        pieces.append(" " + " \0 ".join(words) + " " if words else "")
    big = "\0".join(pieces) + "\0"
    codes = np.frombuffer(big.encode("utf-32-le"), dtype=np.uint32)
    if wide:
        codes = codes.astype(np.uint64)
    lens = np.fromiter(map(len, pieces), dtype=np.int64, count=len(pieces)) + 1
    doc_of = np.repeat(np.arange(len(pieces), dtype=np.int64 if wide else np.int32), lens)
    return big, codes, doc_of


def hashed_ngrams(texts: Sequence[str], ngram_range: tuple[int, int], n_bits: int, max_chars: int,
                  record: Optional[tuple[np.ndarray, np.ndarray]] = None):
    """(doc index, bucket) of every character n-gram of the texts. With ``record`` (two arrays
    of 2^n_bits), the start position and n of one n-gram of each bucket are written into them,
    and the stream string is returned as a third value (to name buckets)."""
    big, codes, doc_of = _stream(texts, max_chars)
    L = len(codes)
    sentinel = np.concatenate([[0], np.cumsum(codes == 0)])
    shift = np.uint64(64 - n_bits)
    docs, buckets = [], []
    h = codes.copy()
    for n in range(1, ngram_range[1] + 1):
        if n > 1:
            h = h[:-1] * _PRIME + codes[n - 1:]
        if n < ngram_range[0] or L < n:
            continue
        pos = np.flatnonzero(sentinel[n:L + 1] == sentinel[:L - n + 1])
        b = (((h[pos] ^ np.uint64(n * 0x51ED27)) * _MIX) >> shift).astype(np.int64)
        docs.append(doc_of[pos])
        buckets.append(b)
        if record is not None:
            record[0][b] = pos
            record[1][b] = n
    docs = np.concatenate(docs) if docs else np.zeros(0, dtype=np.int64)
    buckets = np.concatenate(buckets) if buckets else np.zeros(0, dtype=np.int64)
    return (docs, buckets, big) if record is not None else (docs, buckets)


def _vocab_keys(texts: Sequence[str], ngram_range: tuple[int, int], n_bits: int, max_chars: int,
                lut: np.ndarray, n_cols: int) -> np.ndarray:
    """doc index * n_cols + column of every character n-gram of the texts whose bucket is in the
    vocabulary (``lut``: bucket -> column or -1): the pairs :func:`hashed_ngrams` gives, looked
    up, in another order. Hashes are computed only where an n-gram fits: the positions valid for
    n are those valid for n - 1 whose next code point is not a NUL (every text ends with one),
    and each step extends their hashes by that code point (the same uint64 arithmetic)."""
    _big, codes, doc_of = _stream(texts, max_chars, wide=False)
    lo, hi = ngram_range
    shift = np.uint64(64 - n_bits)
    pos = np.flatnonzero(codes).astype(np.int32 if len(codes) < 2**31 else np.int64)
    h = codes[pos].astype(np.uint64)
    keys = []
    kt = np.int32 if len(texts) * n_cols < 2**31 else np.int64  # int32 keys sort twice as fast
    for n in range(1, hi + 1):
        if n > 1:
            c = codes[pos + (n - 1)]
            keep = c != 0
            pos, h = pos[keep], h[keep]
            h *= _PRIME
            h += c[keep]
        if n < lo or not len(pos):
            continue
        b = h ^ np.uint64(n * 0x51ED27)
        b *= _MIX
        b >>= shift
        col = lut[b.astype(np.intp)]
        ok = col >= 0
        k = doc_of[pos[ok]].astype(kt)
        k *= n_cols
        k += col[ok]
        keys.append(k)
    return np.concatenate(keys) if keys else np.zeros(0, dtype=kt)


def counts_from_keys(key: np.ndarray, n_rows: int, n_cols: int) -> sp.csr_matrix:
    """How often each row * n_cols + col key occurs, as a float32 CSR matrix in canonical form
    (sorted indices, no duplicates): the matrix ``csr_matrix((ones, (rows, cols)))`` gives after
    ``sum_duplicates()``, from one vectorised sort instead of a sort per row. ``key`` is sorted
    in place."""
    key.sort()
    if len(key):
        first = np.empty(len(key), dtype=bool)
        first[0] = True
        np.not_equal(key[1:], key[:-1], out=first[1:])
        starts = np.flatnonzero(first)
        key = key[starts]
        ends = np.empty_like(starts)
        ends[:-1] = starts[1:]
        ends[-1] = len(first)
        ends -= starts
        data = ends.astype(np.float32)
    else:
        data = np.zeros(0, dtype=np.float32)
    r = (key // n_cols).astype(np.intp)
    key -= (r * n_cols).astype(key.dtype)
    idx = np.int32 if max(n_cols, len(key)) < np.iinfo(np.int32).max else np.int64
    indptr = np.zeros(n_rows + 1, dtype=idx)
    np.cumsum(np.bincount(r, minlength=n_rows), out=indptr[1:])
    m = sp.csr_matrix((data, key.astype(idx), indptr), shape=(n_rows, n_cols))
    m.has_sorted_indices = True
    m.has_canonical_format = True
    return m


def counts_matrix(rows: np.ndarray, cols: np.ndarray, n_rows: int, n_cols: int) -> sp.csr_matrix:
    """:func:`counts_from_keys` of (row, col) pairs."""
    key = rows.astype(np.int64) * n_cols
    key += cols
    return counts_from_keys(key, n_rows, n_cols)


class HashedCharTfidf:
    """Fitted character n-gram TF-IDF on hashed buckets (see the module docstring)."""

    def __init__(self, ngram_range=(2, 5), min_df: int = 2, max_df: float = 0.95, max_features: int = 150_000,
                 n_bits: int = 22, max_chars: int = 20_000):
        self.ngram_range = tuple(ngram_range)
        self.min_df, self.max_df, self.max_features = min_df, max_df, max_features
        self.n_bits, self.max_chars = n_bits, max_chars

    def _counts(self, docs, buckets, n_docs, n_cols):
        m = sp.csr_matrix((np.ones(len(docs), dtype=np.float32), (docs, buckets)), shape=(n_docs, n_cols))
        m.sum_duplicates()
        return m

    def fit_transform(self, texts: Sequence[str]) -> sp.csr_matrix:
        n = len(texts)
        size = 1 << self.n_bits
        first, first_n = np.zeros(size, dtype=np.int64), np.zeros(size, dtype=np.int8)
        docs, buckets, big = hashed_ngrams(texts, self.ngram_range, self.n_bits, self.max_chars, (first, first_n))
        counts = counts_matrix(docs, buckets, n, size)
        del docs, buckets
        df = np.bincount(counts.indices, minlength=size)
        total = np.bincount(counts.indices, weights=counts.data, minlength=size)
        keep = np.flatnonzero((df >= self.min_df) & (df <= self.max_df * n))
        if len(keep) == 0:
            raise ValueError("empty vocabulary")
        if len(keep) > self.max_features:
            order = np.lexsort((keep, -total[keep]))[:self.max_features]
            keep = np.sort(keep[order])
        self.buckets_ = keep.astype(np.int64)
        self.idf_ = (np.log((1.0 + n) / (1.0 + df[keep])) + 1.0).astype(np.float32)
        self.names_ = [big[p:p + k] for p, k in zip(first[keep].tolist(), first_n[keep].tolist())]
        self.vocabulary_size_ = len(keep)
        # Keep only the vocabulary's columns: kept buckets are sorted, so the renumbering keeps
        # each row's column order.
        cols = self._lookup()[counts.indices]
        ok = cols >= 0
        rows = np.repeat(np.arange(n), np.diff(counts.indptr))[ok]
        indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=n))])
        kept = sp.csr_matrix((counts.data[ok], cols[ok], indptr), shape=(n, len(keep)))
        return self._tfidf(kept)

    def _lookup(self) -> np.ndarray:
        lut = self.__dict__.get("_lut")
        if lut is None:
            lut = np.full(1 << self.n_bits, -1, dtype=np.int32)
            lut[self.buckets_] = np.arange(len(self.buckets_), dtype=np.int32)
            self.__dict__["_lut"] = lut
        return lut

    def _tfidf(self, counts: sp.csr_matrix) -> sp.csr_matrix:
        return _tfidf(counts, self.idf_)

    BATCH_CHARS = 150_000  # texts hashed together: arrays of this order stay in a core's cache

    def transform(self, texts: Sequence[str]) -> sp.csr_matrix:
        lut, n_cols = self._lookup(), len(self.buckets_)
        parts, start, size = [], 0, 0
        for i, t in enumerate(texts):
            size += min(len(t), self.max_chars) + 16
            if size >= self.BATCH_CHARS or i == len(texts) - 1:
                batch = texts[start:i + 1]
                keys = _vocab_keys(batch, self.ngram_range, self.n_bits, self.max_chars, lut, n_cols)
                parts.append(counts_from_keys(keys, len(batch), n_cols))
                start, size = i + 1, 0
        if not parts:
            return self._tfidf(counts_from_keys(np.zeros(0, dtype=np.int64), 0, n_cols))
        return self._tfidf(parts[0] if len(parts) == 1 else sp.vstack(parts, format="csr"))

    def get_feature_names_out(self) -> np.ndarray:
        return np.asarray(self.names_, dtype=object)

    def __getstate__(self):
        return {k: v for k, v in self.__dict__.items() if k != "_lut"}


class WordTfidf:
    """A fitted sklearn ``TfidfVectorizer`` (word analyser, sublinear tf, L2 rows) re-expressed
    with plain Python and numpy: the same matrix, but unpickling it does not import
    scikit-learn, so worker processes start in a fraction of the time."""

    def __init__(self, fitted):
        import re
        self.token_pattern = fitted.token_pattern
        self._re = re.compile(self.token_pattern)
        self.lowercase = fitted.lowercase
        self.ngram_range = tuple(fitted.ngram_range)
        self.vocabulary_ = dict(fitted.vocabulary_)
        self.idf_ = np.asarray(fitted.idf_, dtype=np.float32)
        names = np.empty(len(self.vocabulary_), dtype=object)
        for t, j in self.vocabulary_.items():
            names[j] = t
        self.names_ = names

    def __getstate__(self):
        return {k: v for k, v in self.__dict__.items() if k != "_re"}

    def __setstate__(self, state):
        import re
        self.__dict__.update(state)
        self._re = re.compile(self.token_pattern)

    def _tokens(self, text: str) -> list[str]:
        toks = self._re.findall(text.lower() if self.lowercase else text)
        lo, hi = self.ngram_range
        if hi == 1:
            return toks
        out = list(toks) if lo == 1 else []
        for n in range(max(2, lo), min(hi, len(toks)) + 1):
            out += [" ".join(toks[i:i + n]) for i in range(len(toks) - n + 1)]
        return out

    def transform(self, texts: Sequence[str]) -> sp.csr_matrix:
        vocab = self.vocabulary_
        get = vocab.get
        indices: list[int] = []
        lens = []
        for t in texts:
            toks = self._tokens(t)
            indices += map(get, toks, repeat(-1, len(toks)))  # column, or -1 out of vocabulary
            lens.append(len(toks))
        cols = np.array(indices, dtype=np.int64)
        ok = cols >= 0
        rows = np.repeat(np.arange(len(texts), dtype=np.int64), lens)[ok]
        return _tfidf(counts_matrix(rows, cols[ok], len(texts), len(vocab)), self.idf_)

    def get_feature_names_out(self) -> np.ndarray:
        return self.names_


def _tfidf(counts: sp.csr_matrix, idf: np.ndarray) -> sp.csr_matrix:
    """Sublinear tf (1 + log count) times idf, rows scaled to unit length."""
    counts = sp.csr_matrix(counts, dtype=np.float32)
    counts.data = (1.0 + np.log(counts.data)) * idf[counts.indices]
    nnz_rows = np.diff(counts.indptr)
    rows = np.repeat(np.arange(counts.shape[0]), nnz_rows)
    sq = np.sqrt(np.bincount(rows, weights=counts.data.astype(np.float64) ** 2, minlength=counts.shape[0]))
    sq = np.where(sq > 0, sq, 1.0)
    counts.data /= np.repeat(sq, nnz_rows).astype(np.float32)
    return counts
