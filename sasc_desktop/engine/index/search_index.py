"""Writing to and searching the Whoosh index."""
from __future__ import annotations

import re
import shutil
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterable

import numpy as np

from whoosh import index as whoosh_index
from whoosh import query as wq
from whoosh.qparser import MultifieldParser, OrGroup
from whoosh.qparser.dateparse import DateParserPlugin
from whoosh.codec.whoosh3 import LENGTHS_COLUMN, W3Codec, _lenfield
from whoosh.scoring import BM25F
from whoosh.util.numeric import byte_to_length
from whoosh.writing import PostingPool, SegmentWriter

from ..errors import ProjectError, QueryError
from .schema import DEFAULT_FIELD_WEIGHTS, SEARCH_FIELDS, analyse_document, build_schema, text_analyzer


def document_fields(row, analysed: dict | None = None) -> dict:
    """Index fields for one message row (a mapping with the messages table's columns plus
    'attachment_text' and 'recipient_addrs'). ``analysed``: the text fields already analysed
    by :func:`analyse_row` (in a worker process); analysed here when not given."""
    ts = row["ts"]
    doc = dict(analysed) if analysed is not None else analyse_row(row)
    doc.update(doc_id=row["doc_id"], id=row["id"], thread=row["thread_id"], folder=row["folder"] or "")
    if ts is not None:
        try:
            doc["date"] = datetime.fromtimestamp(ts, tz=timezone.utc).replace(tzinfo=None)
        except (OverflowError, OSError, ValueError):
            pass
    return doc


def analyse_row(row) -> dict:
    """Pre-analysed text fields of a message row (see :func:`document_fields`)."""
    return analyse_document(row["subject"], row["body"], row["attachment_text"], row["sender"],
                            row["recipients"], row["cc"], row["bcc"], row["from_addr"], row["recipient_addrs"])


class FastPostingPool(PostingPool):
    """Whoosh's posting pool without per-posting assertions (items come from our own analysis)."""

    def add(self, item):
        self.fieldnames.add(item[0])
        self.currentsize += 150 + 2 * len(item[1]) + len(item[4] or b"")
        if self.currentsize > self.limit:
            self.save()
        self.current.append(item)


class _Lengths:
    """The new segment's field lengths read once per field into a list: Whoosh otherwise reads
    them back from the column file once per posting while writing postings."""

    def __init__(self, pdr):
        self._pdr, self._cache = pdr, {}

    def doc_field_length(self, docnum, fieldname, default=0):
        lengths = self._cache.get(fieldname)
        if lengths is None:
            reader = self._pdr._cached_reader(_lenfield(fieldname), LENGTHS_COLUMN)
            lengths = self._cache[fieldname] = (
                [] if reader is None else [byte_to_length(b) if b else None for b in reader.load()])
            if reader is None:
                return default
        if docnum < len(lengths):
            return lengths[docnum]
        return default if not lengths else None

    def __getattr__(self, name):
        return getattr(self._pdr, name)


class FastSegmentWriter(SegmentWriter):
    """SegmentWriter whose segment flush looks field lengths up in memory, and which adds the
    postings of pre-analysed fields (lists) to the pool in bulk (same output as Whoosh's)."""

    def add_document(self, **fields):
        self._check_state()
        perdocwriter, schema, docnum, pool = self.perdocwriter, self.schema, self.docnum, self.pool
        if "_boost" in fields or any(k.startswith("_") for k in fields):
            return super().add_document(**fields)
        fieldnames = sorted(fields)
        self._check_fields(schema, fieldnames)
        perdocwriter.start_doc(docnum)
        try:
            for fieldname in fieldnames:
                value = fields[fieldname]
                if value is None:
                    continue
                field = schema[fieldname]
                length = 0
                if field.indexed:
                    if isinstance(value, list):
                        posts = [(fieldname, t, docnum, w, v) for t, _f, w, v in value]
                        if field.scorable:
                            length = sum(f for _t, f, _w, _v in value)
                        pool.fieldnames.add(fieldname)
                        pool.current.extend(posts)
                        pool.currentsize += 200 * len(posts)   # about what a posting tuple takes
                    else:
                        scorable = field.scorable
                        for tbytes, freq, weight, vbytes in field.index(value):
                            if scorable:
                                length += freq
                            pool.add((fieldname, tbytes, docnum, weight, vbytes))
                if field.separate_spelling() or field.vector:
                    raise ValueError(f"field {fieldname!r}: spelling and vectors are not supported here")
                perdocwriter.add_field(fieldname, field, value if field.stored else None, length)
                column = field.column_type
                if column:
                    perdocwriter.add_column_value(fieldname, column, field.to_column_value(value))
        except Exception:
            perdocwriter.cancel_doc()
            raise
        perdocwriter.finish_doc()
        if pool.currentsize > pool.limit:
            pool.save()
        self._added = True
        self.docnum += 1

    def _flush_segment(self):
        self.perdocwriter.close()
        pdr = self.per_document_reader() if self.codec.length_stats else None
        lengths = _Lengths(pdr) if pdr is not None else None
        self.fieldwriter.add_postings(self.schema, lengths, self.pool.iter_postings())
        self.fieldwriter.close()
        if pdr:
            pdr.close()


class SearchIndex:
    def __init__(self, path: Path, create: bool = False):
        self.path = Path(path)
        self._lock = threading.Lock()
        self._searcher = None
        self.analyzer = text_analyzer()
        if create or not whoosh_index.exists_in(str(self.path)):
            self.path.mkdir(parents=True, exist_ok=True)
            self.ix = whoosh_index.create_in(str(self.path), build_schema())
            return
        try:
            self.ix = whoosh_index.open_dir(str(self.path))
        except (OSError, EOFError, ValueError, whoosh_index.IndexError) as exc:
            raise ProjectError(f"the search index at {self.path} cannot be opened ({exc}); "
                               "rebuild it with 'sasc reindex'") from exc

    @classmethod
    def recreate(cls, path: Path) -> "SearchIndex":
        shutil.rmtree(path, ignore_errors=True)
        return cls(path, create=True)

    # writing --------------------------------------------------------------------------
    def writer(self):
        # One segment per commit; a large pool keeps the writer from spilling to disk often.
        return FastSegmentWriter(self.ix, limitmb=256, timeout=30.0, delay=0.25, codec=W3Codec(compression=0),
                                 poolclass=FastPostingPool)

    def delete_ids(self, writer, doc_ids: Iterable[str]) -> None:
        for doc_id in doc_ids:
            writer.delete_by_term("doc_id", doc_id)

    def doc_count(self) -> int:
        return self.searcher().doc_count()

    # searching ------------------------------------------------------------------------
    def searcher(self):
        with self._lock:
            # (Whoosh's refresh() fails when the old searcher saw an empty index: reopen instead.)
            if self._searcher is not None and not self._searcher.up_to_date():
                self._searcher.close()
                self._searcher = None
            if self._searcher is None:
                self._searcher = self.ix.searcher(weighting=BM25F(B=0.75, K1=1.2))
            return self._searcher

    def close(self) -> None:
        with self._lock:
            if self._searcher is not None:
                self._searcher.close()
                self._searcher = None

    def parse(self, text: str, weights: dict[str, float] | None = None):
        weights = {**DEFAULT_FIELD_WEIGHTS, **(weights or {})}
        fields = [f for f in SEARCH_FIELDS if weights.get(f, 0) > 0] or list(SEARCH_FIELDS)
        parser = MultifieldParser(fields, self.ix.schema, fieldboosts={f: float(weights[f]) for f in fields},
                                  group=OrGroup.factory(0.0))
        parser.add_plugin(DateParserPlugin(free=False))
        text = (text or "").strip()
        if not text:
            raise QueryError("the query is empty")
        unknown = sorted({m.group(1) for m in _FIELD_PREFIX.finditer(text)} - set(self.ix.schema.names()))
        if unknown:
            raise QueryError(f"unknown field {unknown[0]!r} in the query; fields are: "
                             + ", ".join(sorted(set(self.ix.schema.names()) - {"id", "doc_id"})))
        text = _normalise_dates(text)
        try:
            q = parser.parse(text)
        except Exception as exc:
            raise QueryError(f"cannot understand the query {text!r}: {exc}") from exc
        q = _filters_restrict(q)
        problem = _query_problem(q)
        if problem:
            raise QueryError(f"cannot understand the query {text!r}: {problem}")
        if q is wq.NullQuery or type(q).__name__ == "_NullQuery":
            raise QueryError(f"the query {text!r} has no searchable words (only stop words or punctuation)")
        return q

    def search(self, text: str, limit: int = 10, offset: int = 0, weights=None):
        """(hits, total, ms): hits are (id, doc_id, score) for ranks offset+1 .. offset+limit."""
        q = self.parse(text, weights)
        t0 = time.perf_counter()
        s = self.searcher()
        results = s.search(q, limit=offset + limit)
        total = _count_or_of_terms(s.reader(), q)
        if total is None:
            total = len(results)
        hits = [(r["id"], r["doc_id"], float(r.score)) for r in results[offset:offset + limit]]
        return hits, total, (time.perf_counter() - t0) * 1000.0, q

    def query_terms(self, q) -> set[str]:
        """The (stemmed) text terms of a parsed query, for highlighting."""
        return {t.decode() if isinstance(t, bytes) else str(t)
                for field, t in q.iter_all_terms() if field in SEARCH_FIELDS + ("all",)}

    def highlight_spans(self, text: str, terms: set[str]) -> list[tuple[int, int]]:
        """Character spans of the words of ``text`` whose stems are among ``terms``."""
        if not terms or not text:
            return []
        return [(t.startchar, t.endchar) for t in self.analyzer(text, chars=True, removestops=False)
                if t.text in terms]


_FIELD_PREFIX = re.compile(r"(?:^|(?<=[\s(]))([A-Za-z_]+):(?=[^\s])")
_DATE_VALUE = re.compile(r"\bdate:(\[[^\]]*\]|[<>]=?\S+|\S+)")
_ISO = re.compile(r"(\d{4})-(\d{2})(?:-(\d{2}))?")


def _normalise_dates(text: str) -> str:
    """date:2001-03-05, date:>2001-03, date:<=2001 and ISO ranges -> Whoosh's compact forms."""
    def fix(m: re.Match) -> str:
        value = _ISO.sub(lambda d: d.group(1) + d.group(2) + (d.group(3) or ""), m.group(1))
        if value[:1] in "<>":
            bound = value.lstrip("<>=")
            value = f"[{bound} to]" if value[0] == ">" else f"[to {bound}]"
        return "date:" + value
    return _DATE_VALUE.sub(fix, text)


FILTER_FIELDS = {"date", "from", "to", "thread", "folder"}


def _filters_restrict(q):
    """Words are OR-ed for ranking, but a filter (date:, from:, to:, ...) or a NOT beside them
    must restrict them: Or([words..., filter, Not(x)]) -> AndNot(And([Or(words), filter]), x).
    Applied to every Or in the query tree."""
    if isinstance(q, wq.CompoundQuery) or isinstance(q, wq.Not):
        kids = [_filters_restrict(k) for k in q.children()]
        q = q.__class__(kids[0]) if isinstance(q, wq.Not) else _rebuild(q, kids)
    if not isinstance(q, wq.Or):
        return q
    kids = list(q.children())
    nots = [k.query for k in kids if isinstance(k, wq.Not)]
    rest = [k for k in kids if not isinstance(k, wq.Not)]
    filters = [k for k in rest if getattr(k, "fieldname", None) in FILTER_FIELDS]
    words = [k for k in rest if getattr(k, "fieldname", None) not in FILTER_FIELDS]
    if not words or (not filters and not nots):
        return q
    out = wq.Or(words) if len(words) > 1 else words[0]
    if filters:
        out = wq.And([out, *filters])
    if nots:
        out = wq.AndNot(out, wq.Or(nots) if len(nots) > 1 else nots[0])
    return out


def _term_leaves(q):
    """The Term leaves of a query made only of ORs of terms, else None."""
    if isinstance(q, wq.Term):
        return [q]
    if isinstance(q, wq.Or):
        out = []
        for child in q.children():
            leaves = _term_leaves(child)
            if leaves is None:
                return None
            out.extend(leaves)
        return out
    return None


def _count_or_of_terms(reader, q):
    """Exact number of documents matching an OR of terms (the common case: plain words), as
    the size of the union of the terms' posting lists (deleted documents excluded). Much
    cheaper than Whoosh's second pass over the whole query. None for other queries."""
    leaves = _term_leaves(q)
    if leaves is None:
        return None
    lists = [np.fromiter(reader.postings(t.fieldname, t.text).all_ids(), dtype=np.int64)
             for t in leaves if (t.fieldname, t.text) in reader]
    return int(np.unique(np.concatenate(lists)).size) if lists else 0


def _rebuild(q, kids):
    new = q.__class__(kids, boost=q.boost) if not isinstance(q, wq.Or) else wq.Or(kids, boost=q.boost, scale=q.scale)
    return new


def _query_problem(q) -> str:
    for node in _walk(q):
        if isinstance(node, wq.Term) and node.fieldname == "date" and node.text in ("", None):
            return "a date must look like 2001, 2001-03 or 2001-03-05"
        name = type(node).__name__
        if name == "ErrorQuery" or getattr(node, "error", None):
            return str(getattr(node, "error", "syntax error"))
    return ""


def _walk(q):
    yield q
    if hasattr(q, "children"):
        for child in q.children():
            yield from _walk(child)
