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
MAX_CACHED_MISC = 200_000             # expansions and frequencies kept (TreeEvaluator)


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
        self.largest_segment = max((r.doc_count_all() for r, _b in self.leaves), default=0)
        self._lock = threading.Lock()
        self._lengths: dict[str, np.ndarray] = {}
        self._terms: dict[tuple, tuple | None] = {}
        self._cached = 0
        self.misc: dict = {}        # TreeEvaluator's expansions, frequencies, compiled ranges
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
        live = self._live_postings(fieldname, tbytes)
        if live is None:
            result = None
        else:
            ids, w = live
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

    def _live_postings(self, fieldname: str, tbytes: bytes):
        """(global doc numbers, posting weights) of a term over every segment, deleted documents
        left out; None when no segment has the term."""
        ids_parts, w_parts = [], []
        for r, base in self.leaves:
            if (fieldname, tbytes) not in r:
                continue
            ids, weights = self._postings(r, fieldname, tbytes)
            ids_parts.append(np.frombuffer(ids, dtype=np.int64) + base)
            w_parts.append(np.frombuffer(weights, dtype=np.float64))
        if not ids_parts:
            return None
        ids, w = np.concatenate(ids_parts), np.concatenate(w_parts)
        keep = self.live[ids]
        return ids[keep], w[keep]

    def weights(self, fieldname: str, tbytes: bytes):
        """(global doc numbers, posting weights) of a term of a field that is not scored by BM25
        (Whoosh scores its postings by their weight), deleted documents left out; cached."""
        key = ("weights", fieldname, tbytes)
        hit = self._terms.get(key)
        if hit is not None:
            return hit
        result = self._live_postings(fieldname, tbytes) or (np.empty(0, dtype=np.int64), np.empty(0))
        with self._lock:
            if self._cached > MAX_CACHED_POSTINGS:
                self._terms.clear()
                self._cached = 0
            self._terms[key] = result
            self._cached += len(result[0])
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
        return self.top(cand, scores[cand], k)

    def evaluate(self, q):
        """(doc numbers, scores) of every match of a parsed query, in doc number order, as
        Whoosh scores them; Unsupported when the query has a part this does not compute."""
        return TreeEvaluator(self).run(q)

    @staticmethod
    def top(cand, cs, k: int):
        """(the k best of doc numbers ``cand`` (ascending) scoring ``cs``, their scores, how many):
        Whoosh's order, higher scores first, ties to the lower doc number."""
        total = int(cand.size)
        if total == 0 or k <= 0:
            return np.empty(0, dtype=np.int64), np.empty(0), total
        if k < total:
            # Everything scoring above the k-th best, plus every tie with it (ties: lower docnum).
            kth = np.partition(cs, total - k)[total - k]
            sel = cs >= kth
            cand, cs = cand[sel], cs[sel]
        order = np.lexsort((cand, -cs))[:k]
        return cand[order], cs[order], total


# --- whole query trees ----------------------------------------------------------------
# Whoosh matches a query one index segment at a time (Collector.run: a matcher per segment,
# built with that segment's reader and size), walking a tree of matchers one posting at a
# time in Python. :func:`evaluate` computes the same matches and scores with numpy, segment by
# segment, building the same tree: the same nodes, the same Or matcher kind (a union tree
# weighted by estimated sizes, or a pre-loaded array union for small segments), the same
# order of additions (so the same floating-point sums), the same constant scores (a date
# range: its boost; a NOT: 1; a prefix with many expansions in a small segment: 1, unboosted;
# a prefix with one expansion: that term's score, unboosted). A node it does not know raises
# Unsupported, and the caller runs the query through Whoosh.

FORCE_WHOOSH = False   # tests set this to compare the fast path with Whoosh's


class Unsupported(Exception):
    """A query (part) :func:`evaluate` does not compute: Whoosh must run the query."""


class _R:
    """A matcher's matches in one segment: local doc numbers (sorted) and their scores; a null
    matcher (Whoosh's NullMatcher: an absent term) is ``null``."""
    __slots__ = ("ids", "scores", "null")

    def __init__(self, ids, scores, null=False):
        self.ids, self.scores, self.null = ids, scores, null


_EMPTY_I = np.empty(0, dtype=np.int64)
_EMPTY_F = np.empty(0, dtype=np.float64)


def _null() -> _R:
    return _R(_EMPTY_I, _EMPTY_F, True)


def _union(a: _R, b: _R) -> _R:
    # UnionMatcher.score: a + b where both match, else the one that matches.
    if not len(a.ids):
        return _R(b.ids, b.scores)
    if not len(b.ids):
        return _R(a.ids, a.scores)
    ids = np.union1d(a.ids, b.ids)
    scores = np.zeros(len(ids), dtype=np.float64)
    pa = np.searchsorted(ids, a.ids)
    pb = np.searchsorted(ids, b.ids)
    scores[pa] = a.scores
    scores[pb] += b.scores          # (0 + x is x: the sum only where both match)
    return _R(ids, scores)


def _intersection(a: _R, b: _R) -> _R:
    ids, ia, ib = np.intersect1d(a.ids, b.ids, assume_unique=True, return_indices=True)
    return _R(ids, a.scores[ia] + b.scores[ib])


def _weighted_tree(fn, items):
    """whoosh.util.make_weighted_tree over (weight, result) pairs. Whoosh sorts (weight,
    matcher) tuples; matchers of equal weight never compare less (Matcher.__eq__ is true for
    the same class, __lt__ false otherwise), so equal weights keep their order: a stable sort
    by weight, and a merged pair goes after the pairs of equal weight (insort)."""
    import bisect
    ls = sorted(items, key=lambda x: x[0])
    while len(ls) > 1:
        a = ls.pop(0)
        b = ls.pop(0)
        bisect.insort_right(ls, (a[0] + b[0], fn(a[1], b[1])), key=lambda x: x[0])
    return ls[0][1]


class _Segment:
    __slots__ = ("reader", "base", "count", "live")

    def __init__(self, reader, base, count, live):
        self.reader, self.base, self.count, self.live = reader, base, count, live


# MultiTerm.matcher, and the two that call it unless the pattern matches everything
_MULTITERM_MATCHERS = (wq.MultiTerm.matcher, wq.Prefix.matcher, wq.Wildcard.matcher)
_PATTERN_TYPES = (wq.Prefix, wq.Wildcard, wq.TermRange)   # (and EitherPattern: see btexts)
_SCORED, _BOOLEAN = True, False   # a context's weighting: the searcher's, or None (boolean_context)


class TreeEvaluator:
    """Evaluates a parsed query's tree like Whoosh (see the comment above), per segment."""

    def __init__(self, fast: "FastScorer"):
        self.fast = fast
        if len(fast.misc) > MAX_CACHED_MISC:
            fast.misc.clear()
        self.schema = fast.schema
        self.segments = []
        for r, base in fast.leaves:
            count = r.doc_count_all()
            self.segments.append(_Segment(r, base, count, fast.live[base:base + count]))

    def run(self, q):
        """(global doc numbers, scores) of every match, in doc number order."""
        ids_parts, score_parts = [], []
        for seg in self.segments:
            res = self.ev(q, seg, _SCORED)
            if len(res.ids):
                ids_parts.append(res.ids + seg.base)
                score_parts.append(res.scores)
        if not ids_parts:
            return _EMPTY_I, _EMPTY_F
        return np.concatenate(ids_parts), np.concatenate(score_parts)

    # --- estimated sizes (Whoosh's, for the weighted trees) --------------------------------
    def btexts(self, node, seg):
        """The terms a multi-term query expands to in a segment (its _btexts), cached for the
        searcher's generation: they depend on the pattern (its text) and the segment only."""
        t = type(node)
        key = ("btexts", t, str(node), seg.base) if t in _PATTERN_TYPES or t.__name__ == "EitherPattern" else None
        if key is not None:
            hit = self.fast.misc.get(key)
            if hit is not None:
                return hit
        out = list(node._btexts(seg.reader))
        if key is not None:
            self.fast.misc[key] = out
        return out

    def df(self, fieldname, text, seg) -> int:
        key = ("df", fieldname, text, seg.base)
        hit = self.fast.misc.get(key)
        if hit is None:
            hit = self.fast.misc[key] = seg.reader.doc_frequency(fieldname, text)
        return hit

    def compiled(self, node, seg):
        """NumericRange._compile_query (depends on the range and the schema only), cached."""
        key = ("range", type(node), node.fieldname, node.start, node.end, node.startexcl, node.endexcl,
               node.boost, node.constantscore)
        hit = self.fast.misc.get(key)
        if hit is None:
            hit = self.fast.misc[key] = node._compile_query(seg.reader)
        return hit

    def estimate(self, node, seg) -> int:
        """node.estimate_size(segment reader), with the expansions and frequencies cached."""
        r = seg.reader
        t = type(node)
        if t is wq.Term:
            return self.df(node.fieldname, node.text, seg)
        if isinstance(node, wq.MultiTerm) and t.estimate_size is wq.MultiTerm.estimate_size:
            field = node.field()
            return sum(self.df(field, b, seg) for b in self.btexts(node, seg))
        if t in (wq.NumericRange, wq.DateRange) and t.estimate_size is wq.NumericRange.estimate_size:
            return self.estimate(self.compiled(node, seg), seg)
        if t is wq.ConstantScoreQuery:
            return self.estimate(node.child, seg)
        if isinstance(node, wq.And) and t.estimate_size is wq.And.estimate_size:
            return min(self.estimate(k, seg) for k in node.subqueries)
        if isinstance(node, wq.CompoundQuery) and t.estimate_size is wq.CompoundQuery.estimate_size:
            return min(sum(self.estimate(k, seg) for k in node.subqueries), r.doc_count())
        return node.estimate_size(r)

    # --- matchers --------------------------------------------------------------------------
    def term(self, fieldname, text, boost, seg) -> _R:
        """Term.matcher: the term's postings in the segment (deleted documents left out),
        scored by the searcher's weighting (also in a boolean context: Searcher.postings
        falls back to it), times ``boost`` when it is not 1."""
        if fieldname not in self.schema:
            return _null()
        field = self.schema[fieldname]
        try:
            tbytes = field.to_bytes(text)
        except ValueError:
            return _null()
        except Exception as exc:
            raise Unsupported(str(exc)) from None
        r = seg.reader
        if (fieldname, tbytes) not in r:
            return _null()
        if field.scorable:
            t = self.fast.term(fieldname, tbytes)
            if t is None:
                return _R(_EMPTY_I, _EMPTY_F)
            gids, idf, tfpart = t
            lo, hi = np.searchsorted(gids, (seg.base, seg.base + seg.count))
            ids = gids[lo:hi] - seg.base
            scores = idf * tfpart[lo:hi]
        else:   # WeightScorer: the posting's weight
            gids, weights = self.fast.weights(fieldname, tbytes)
            lo, hi = np.searchsorted(gids, (seg.base, seg.base + seg.count))
            ids = gids[lo:hi] - seg.base
            scores = weights[lo:hi].copy()
        if boost != 1.0:
            scores = scores * boost
        return _R(ids, scores)

    def ev(self, node, seg, scored) -> _R:
        t = type(node)
        if t is wq.Term:
            if node.minquality:
                raise Unsupported("minquality")
            return self.term(node.fieldname, node.text, node.boost, seg)
        if node is wq.NullQuery or t.__name__ == "_NullQuery":
            return _null()
        if isinstance(node, wq.MultiTerm) and t.matcher in _MULTITERM_MATCHERS:
            if (t.matcher is wq.Prefix.matcher and node.text == "") or (t.matcher is wq.Wildcard.matcher and node.text == "*"):
                raise Unsupported("Every")     # (Prefix('') and Wildcard('*') match as Every)
            return self.multiterm(node, seg, scored)
        if t in (wq.NumericRange, wq.DateRange) and t.matcher is wq.NumericRange.matcher:
            return self.ev(self.compiled(node, seg), seg, scored)
        if t is wq.ConstantScoreQuery:
            child = self.ev(node.child, seg, scored)
            if child.null:
                return child
            return _R(child.ids, np.full(len(child.ids), float(node.score)))   # ListMatcher(all_weights=score)
        if t is wq.Not or (t.__name__ == "Not" and t.__module__.endswith("engine.index.query")):
            child = self.ev(node.query, seg, _BOOLEAN)
            keep = seg.live.copy()
            keep[child.ids] = False
            ids = np.flatnonzero(keep)
            return _R(ids, np.ones(len(ids)))       # InverseMatcher: weight 1
        if isinstance(node, (wq.Or, wq.And)) and t.matcher is wq.CompoundQuery.matcher:
            subs = node.subqueries
            if not subs:
                return _null()
            if len(subs) == 1:
                return self.ev(subs[0], seg, scored)
            if isinstance(node, wq.Or) and t._matcher is wq.Or._matcher:
                return self.or_(node, subs, seg, scored)
            if isinstance(node, wq.And) and t._matcher is wq.And._matcher:
                items = [(0 - self.estimate(k, seg), self.ev(k, seg, scored)) for k in subs]
                m = _weighted_tree(_intersection, items)
                return self._boosted(m, node.boost)
            raise Unsupported(t.__name__)
        if t.__name__ == "AndNot" and t.__module__.endswith("engine.index.query"):
            a = self.ev(node.a, seg, scored)
            b = self.ev(node.b, seg, _BOOLEAN)
            if not len(b.ids) or not len(a.ids):
                return _R(a.ids, a.scores)
            keep = ~np.isin(a.ids, b.ids, assume_unique=True)
            return _R(a.ids[keep], a.scores[keep])
        raise Unsupported(t.__name__)

    @staticmethod
    def _boosted(m: _R, boost) -> _R:
        if boost != 1.0:
            return _R(m.ids, m.scores * boost)     # WrappingMatcher
        return m

    def multiterm(self, node, seg, scored) -> _R:
        field = node.field()
        words = [w for w in self.btexts(node, seg) if w]
        if not words:
            return _null()
        if len(words) == 1:
            return self.term(field, words[0], 1.0, seg)     # Term(fieldname, word): no boost
        if node.constantscore:
            scored = _BOOLEAN
        qs = [wq.Term(field, w) for w in words]
        return self.or_(wq.Or(qs, boost=node.boost), qs, seg, scored)

    def or_(self, node, subs, seg, scored) -> _R:
        if len(subs) < wq.Or.TOO_MANY_CLAUSES and (node.scale or len(subs) == 2 or seg.count > 5000):
            if node.scale:
                raise Unsupported("coordination")
            items = [(self.estimate(k, seg), self.ev(k, seg, scored)) for k in subs]
            m = _weighted_tree(_union, items)
            return self._boosted(m, node.boost)
        # PreloadedOr: ArrayUnionMatcher, each submatcher's score times the boost added in
        # order into an array (1 for any match when unscored); a document scoring 0 is no match.
        kids = [self.ev(k, seg, scored) for k in subs]
        ids = np.concatenate([k.ids for k in kids]) if kids else _EMPTY_I
        if scored:
            boost = node.boost
            w = np.concatenate([k.scores * boost for k in kids])
            a = np.bincount(ids, weights=w, minlength=seg.count)
        else:
            a = np.zeros(seg.count, dtype=np.float64)
            a[ids] = 1.0
        out = np.flatnonzero(a > 0)
        return _R(out, a[out])
