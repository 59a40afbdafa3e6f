"""Vectorised BM25F for OR-of-terms queries (the common case: words typed in the search box,
spread over subject, body and attachments with field boosts).

Whoosh scores a multi-word query by walking a binary tree of union matchers one posting at a
time in Python. Here each term's posting list is read once per searcher generation into numpy
arrays (doc numbers, and the term-frequency part of BM25 for each posting), and a query is a
few vectorised adds into a score array over all documents, then a partial sort.

Same ranking semantics as Whoosh's BM25F query: per (field, term) leaf with boost ``b``
the contribution is ``(idf * tf_part) * b`` computed with the same formula and operation order
(``idf = log(N / (df + 1)) + 1`` over the whole index, field lengths as Whoosh stores them
(one byte, logarithmic), average field length from the segment totals), summed over the
leaves; deleted documents never match; ties go to the lower document number. Anything that is
not a plain OR of terms in scorable fields falls back to Whoosh (see :func:`plan`).
"""
from __future__ import annotations

import threading
from array import array

import numpy as np
from whoosh import query as wq
from whoosh.codec.whoosh3 import LENGTHS_COLUMN, _lenfield
from whoosh.util.numeric import byte_to_length

_BYTE_LENGTH = np.array([byte_to_length(b) for b in range(256)], dtype=np.float64)
MAX_CACHED_POSTINGS = 12_000_000      # ~144 MB of arrays; the cache is emptied beyond that


def plan(q, schema):
    """[(fieldname, text, boost)] for a query made only of ORs (boost 1, no coordination
    bonus) of Term leaves in scorable fields; None when Whoosh must run the query."""
    out = []

    def walk(node) -> bool:
        if isinstance(node, wq.Term):
            if node.fieldname not in schema or not schema[node.fieldname].scorable or getattr(node, "minquality", None):
                return False
            out.append((node.fieldname, node.text, float(node.boost)))
            return True
        if type(node) is wq.Or and node.boost == 1.0 and not node.scale and not node.minmatch:
            return all(walk(child) for child in node.children())
        return False

    return out if walk(q) and out else None


class FastScorer:
    """Score arrays for one searcher (one index generation)."""

    def __init__(self, searcher, weighting):
        self.searcher = searcher
        self.weighting = weighting
        self.reader = searcher.reader()
        self.schema = searcher.schema
        self.n = searcher.doc_count_all()
        self.leaves = list(self.reader.leaf_readers())
        self._lock = threading.Lock()
        self._lengths: dict[str, np.ndarray] = {}
        self._terms: dict[tuple, tuple | None] = {}
        self._cached = 0
        self._store_ids = None      # the project's row id of every document number (-1: deleted)
        deleted = np.zeros(self.n, dtype=bool)
        for r, base in self.leaves:
            dels = sorted(r.deleted_docs_set) if r.has_deletions() else []
            if dels:
                deleted[np.asarray(dels, dtype=np.int64) + base] = True
        self.live = ~deleted

    # --- per-field and per-term arrays ------------------------------------------------
    def _field_lengths(self, fieldname: str) -> np.ndarray:
        arr = self._lengths.get(fieldname)
        if arr is None:
            arr = np.ones(self.n, dtype=np.float64)        # Whoosh's default when a segment has no lengths
            for r, base in self.leaves:
                count = r.doc_count_all()
                col = r._perdoc._cached_reader(_lenfield(fieldname), LENGTHS_COLUMN)
                if col is None:
                    if r.field_length(fieldname):
                        # The segment has lengths for this field but its file is gone: a commit
                        # merged the segment away since this searcher was opened (scoring on
                        # with lengths of 1 would give wrong scores).
                        raise FileNotFoundError(f"the index file of {fieldname!r} lengths was merged away "
                                                "(the index changed while it was being read)")
                    continue
                raw = np.asarray(col.load(), dtype=np.uint8)[:count]
                arr[base:base + len(raw)] = _BYTE_LENGTH[raw]
            self._lengths[fieldname] = arr
        return arr

    def _postings(self, r, fieldname: str, tbytes: bytes):
        m = r._terms.matcher(fieldname, tbytes, self.schema[fieldname].format)
        ids, weights = array("l"), array("d")
        if hasattr(m, "_read_ids") and hasattr(m, "_next_block"):
            while m.is_active():
                m._read_ids()
                m._read_weights()
                ids.extend(m._ids)
                w = m._weights
                weights.extend(w.tolist() if isinstance(w, array) else w)
                m._next_block()
        else:  # pragma: no cover - inlined postings (not written by this index's codec settings)
            while m.is_active():
                ids.append(m.id())
                weights.append(m.weight())
                m.next()
        return ids, weights

    def term(self, fieldname: str, text):
        """(global doc numbers, idf, tf part of BM25 per posting) or None if absent."""
        field = self.schema[fieldname]
        tbytes = field.to_bytes(text) if not isinstance(text, bytes) else text
        key = (fieldname, tbytes)
        hit = self._terms.get(key, False)
        if hit is not False:
            return hit
        ids_parts, w_parts = [], []
        for r, base in self.leaves:
            if (fieldname, tbytes) not in r:
                continue
            ids, weights = self._postings(r, fieldname, tbytes)
            ids_parts.append(np.frombuffer(ids, dtype=np.int64) + base)
            w_parts.append(np.frombuffer(weights, dtype=np.float64))
        if not ids_parts:
            result = None
        else:
            ids = np.concatenate(ids_parts)
            w = np.concatenate(w_parts)
            keep = self.live[ids]
            ids, w = ids[keep], w[keep]
            B = self.weighting._field_B.get(fieldname, self.weighting.B)
            K1 = self.weighting.K1
            avgfl = self.searcher.avg_field_length(fieldname) or 1
            fl = self._field_lengths(fieldname)[ids]
            # bm25(): idf * ((tf * (K1 + 1)) / (tf + K1 * ((1 - B) + B * fl / avgfl)))
            tfpart = (w * (K1 + 1)) / (w + K1 * ((1 - B) + B * fl / avgfl))
            idf = self.weighting.idf(self.searcher, fieldname, tbytes)
            result = (ids, float(idf), tfpart)
        with self._lock:
            if self._cached > MAX_CACHED_POSTINGS:
                self._terms.clear()
                self._cached = 0
            self._terms[key] = result
            self._cached += 0 if result is None else len(result[0])
        return result

    def store_ids(self) -> np.ndarray:
        """The project's row id (the stored 'id' field) of every document number, -1 for deleted
        documents; read once per searcher generation."""
        ids = self._store_ids
        if ids is None:
            ids = np.full(self.n, -1, dtype=np.int64)
            stored = self.searcher.stored_fields
            for docnum in np.flatnonzero(self.live).tolist():
                ids[docnum] = stored(docnum)["id"]
            self._store_ids = ids
        return ids

    # --- queries ----------------------------------------------------------------------
    def search(self, leaves, k: int):
        """(top docnums, their scores, total matching) for an OR of (field, text, boost)."""
        scores = np.zeros(self.n, dtype=np.float64)
        matched = np.zeros(self.n, dtype=bool)
        for fieldname, text, boost in leaves:
            t = self.term(fieldname, text)
            if t is None:
                continue
            ids, idf, tfpart = t
            contrib = idf * tfpart
            if boost != 1.0:
                contrib = contrib * boost
            scores[ids] += contrib
            matched[ids] = True
        cand = np.flatnonzero(matched)
        total = int(cand.size)
        if total == 0 or k <= 0:
            return np.empty(0, dtype=np.int64), np.empty(0), total
        cs = scores[cand]
        if k < total:
            # Everything scoring above the k-th best, plus every tie with it (ties: lower docnum).
            kth = np.partition(cs, total - k)[total - k]
            sel = cs >= kth
            cand, cs = cand[sel], cs[sel]
        order = np.lexsort((cand, -cs))[:k]
        return cand[order], cs[order], total
