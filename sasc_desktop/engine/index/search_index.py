"""Writing to and searching the Whoosh index."""
from __future__ import annotations

import copy
import re
import shutil
from array import array
import threading
import time
import zlib
from datetime import datetime, timedelta
from pathlib import Path
from typing import Iterable

import numpy as np

from whoosh import index as whoosh_index
from whoosh.fields import Schema
from whoosh import query as wq
from whoosh.qparser import MultifieldPlugin, OperatorsPlugin, OrGroup, QueryParser, syntax
from whoosh.query.qcore import QueryError as WhooshQueryError
from whoosh.qparser.dateparse import DateParserPlugin
from whoosh.util.times import adatetime, timespan
from whoosh.collectors import TopCollector
from whoosh.matching.binary import AndNotMatcher
from whoosh.codec.whoosh3 import LENGTHS_COLUMN, WHOOSH3_HEADER_MAGIC, W3Codec, W3TermInfo, _lenfield
from whoosh.compat import dumps
from whoosh.system import pack_int, pack_ushort
from whoosh.util.numlists import delta_encode
from whoosh.scoring import BM25F
from whoosh.util.numeric import byte_to_length, length_to_byte
from whoosh.writing import SegmentWriter

from ..errors import ProjectError, QueryError, SascError
from .fastscore import FastScorer, plan
from .schema import (_MAXSIZE as MAX_WORD, _TOKEN_PATTERN, DEFAULT_FIELD_WEIGHTS, SEARCH_FIELDS, analyse_document,
                     build_schema, date_items, text_analyzer)


def document_fields(row, analysed: dict | None = None) -> dict:
    """Index fields for one message row (a mapping with the messages table's columns plus
    'attachment_text' and 'recipient_addrs'). ``analysed``: the text fields (and date terms)
    already analysed by :func:`analyse_row` (in a worker process); analysed here when not given."""
    doc = dict(analysed) if analysed is not None else analyse_row(row)
    doc.update(doc_id=row["doc_id"], id=row["id"], thread=row["thread_id"], folder=row["folder"] or "")
    if "date" not in doc:
        doc["date"] = _row_date(row)
    if doc["date"] is None:
        del doc["date"]
    return doc


def analyse_row(row) -> dict:
    """Pre-analysed text fields and date terms of a message row (see :func:`document_fields`)."""
    out = analyse_document(row["subject"], row["body"], row["attachment_text"], row["sender"],
                           row["recipients"], row["cc"], row["bcc"], row["from_addr"], row["recipient_addrs"])
    out["date"] = _row_date(row)
    return out


def _row_date(row) -> list | None:
    """The date items of a row: its 'date' (ISO 8601 with the sender's offset: the sender's clock)
    where the row has one, else its 'ts' (UTC). The importer and repair_index pass the stored
    'date', so a fresh import and a rebuilt index agree."""
    return date_items(row["date"] if "date" in row.keys() else row["ts"])


class TermPool:
    """An in-memory posting pool keyed by field and term: postings arrive in docnum order
    (documents are added one after another, merged segments after them), so each term's list is
    already sorted and the flush only sorts the term keys. Whoosh's PostingPool instead keeps
    5-tuples, spills sorted runs to disk with pickle and heap-merges them back (most of the
    writer's time on a large import)."""

    def __init__(self):
        self.fieldnames: set[str] = set()
        self.terms: dict[str, dict[bytes, list]] = {}   # field -> term -> [docnums, weights, values]
        self._last = -1
        self.in_order = True
        self.count = 0

    def add(self, item):
        fieldname, tbytes, docnum, weight, vbytes = item
        self.fieldnames.add(fieldname)
        field = self.terms.get(fieldname)
        if field is None:
            field = self.terms[fieldname] = {}
        entry = field.get(tbytes)
        if entry is None:
            entry = field[tbytes] = [array("I"), array("f"), []]
        if docnum < self._last or (entry[0] and entry[0][-1] >= docnum):
            self.in_order = False
        self._last = max(self._last, docnum)
        entry[0].append(docnum)
        entry[1].append(weight)
        if vbytes:
            entry[2].append(vbytes)
        self.count += 1

    def add_items(self, fieldname: str, docnum: int, items) -> None:
        """A document's pre-analysed items ``(term, freq, weight, value)`` for one field."""
        self.fieldnames.add(fieldname)
        field = self.terms.get(fieldname)
        if field is None:
            field = self.terms[fieldname] = {}
        if docnum < self._last:
            self.in_order = False
        self._last = docnum
        get = field.get
        for t, _f, w, v in items:
            entry = get(t)
            if entry is None:
                entry = field[t] = [array("I"), array("f"), []]
            entry[0].append(docnum)
            entry[1].append(w)
            if v:
                entry[2].append(v)
        self.count += len(items)

    def iter_postings(self):
        for fieldname in sorted(self.terms):
            for term, (ids, weights, values) in sorted(self.terms[fieldname].items()):
                vs = values if len(values) == len(ids) else [b""] * len(ids)
                for posting in sorted(zip(ids, weights, vs)) if not self.in_order else zip(ids, weights, vs):
                    yield (fieldname, term, *posting)

    def cleanup(self):
        self.terms = {}


class _Lengths:
    """The new segment's field lengths read once per field into a list: Whoosh otherwise reads
    them back from the column file once per posting while writing postings."""

    def __init__(self, pdr):
        self._pdr, self._cache = pdr, {}

    def field_lengths(self, fieldname):
        lengths = self._cache.get(fieldname)
        if lengths is None:
            reader = self._pdr._cached_reader(_lenfield(fieldname), LENGTHS_COLUMN)
            lengths = self._cache[fieldname] = (
                [] if reader is None else [byte_to_length(b) if b else None for b in reader.load()])
        return lengths

    def doc_field_length(self, docnum, fieldname, default=0):
        lengths = self.field_lengths(fieldname)
        if not lengths:
            return default
        if docnum < len(lengths):
            return lengths[docnum]
        return None

    def __getattr__(self, name):
        return getattr(self._pdr, name)


def _write_pool(fieldwriter, schema, lengths, pool: TermPool) -> None:
    """Write a TermPool into the segment's postings and terms files: the same bytes as Whoosh's
    W3 field writer (header, blocks of ``blocklimit`` postings pickled as (delta ids, weights,
    values) with their info tuple, then the term info), without a Python call per posting or
    per block. Used with the uncompressed W3 codec; anything else goes through Whoosh."""
    codec = fieldwriter._codec
    if not pool.in_order or codec._compression or codec._inlinelimit > 1:
        fieldwriter.add_postings(schema, lengths, pool.iter_postings())
        return
    limit = codec._blocklimit
    postfile = fieldwriter._postfile
    write, tell = postfile.write, postfile.tell
    tindex_add = fieldwriter._tindex.add
    for fieldname in sorted(pool.terms):
        terms = pool.terms[fieldname]
        fieldobj = schema[fieldname]
        fieldwriter.start_field(fieldname, fieldobj)
        fieldid = pack_ushort(fieldwriter._fieldid)
        fixedsize = fieldobj.format.fixed_value_size()
        lens = lengths.field_lengths(fieldname) if lengths is not None else []
        nlens = len(lens)
        for term in sorted(terms):
            ids, weights, values = terms[term]
            n = len(ids)
            startoffset = tell()
            write(WHOOSH3_HEADER_MAGIC)
            ti = W3TermInfo()
            for start in range(0, n, limit):
                end = start + limit
                bids = ids[start:end]
                bw = weights[start:end]
                if nlens:
                    ls = [x for x in (lens[d] if d < nlens else None for d in bids) if x]
                else:
                    ls = None
                bmin, bmax = (min(ls), max(ls)) if ls else (None, 0)
                bmaxw = max(0, max(bw))
                # W3TermInfo.add_block
                ti._weight += sum(bw)
                ti._df += len(bids)
                ti._minlength = bmin if ti._minlength is None else min(ti._minlength, bmin)
                ti._maxlength = max(ti._maxlength, bmax)
                ti._maxweight = max(ti._maxweight, bmaxw)
                if ti._minid is None:
                    ti._minid = bids[0]
                ti._maxid = bids[-1]
                # W3PostingsWriter._write_block (compression 0)
                first = bw[0]
                if all(w == 1.0 for w in bw):
                    mw = None
                elif all(w == first for w in bw):
                    mw = first
                else:
                    mw = tuple(bw)
                bv = values[start:end] if values else []
                if fixedsize is None or fixedsize < 0:
                    mv = tuple(bv)
                elif fixedsize == 0:
                    mv = None
                else:
                    mv = b"".join(bv)
                data = dumps((tuple(delta_encode(bids)), mw, mv), 2)
                info = dumps((len(bids), bids[-1], bmaxw, 0, length_to_byte(bmin), length_to_byte(bmax)), 2)
                size = len(info) + len(data)
                write(pack_int(-size if end >= n else size) + info + data)
            ti.set_extent(startoffset, tell() - startoffset)
            tindex_add(fieldid + term, ti.to_bytes())
        fieldwriter.finish_field()


def _small_compress(data: bytes, level: int = 3) -> bytes:
    c = zlib.compressobj(level, zlib.DEFLATED, 9, 1)
    return c.compress(data) + c.flush()


class FastSegmentWriter(SegmentWriter):
    """SegmentWriter with an in-memory :class:`TermPool` (no spilling to disk), which adds
    the postings of pre-analysed fields (lists) to the pool in bulk and writes them a block at
    a time (same output as Whoosh's)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.pool = TermPool()
        self._small_zlib = False

    def add_document(self, **fields):
        self._check_state()
        perdocwriter, schema, docnum, pool = self.perdocwriter, self.schema, self.docnum, self.pool
        if any(k.startswith("_") for k in fields):
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
                    items = value if isinstance(value, list) else list(field.index(value))
                    if field.scorable:
                        length = sum(f for _t, f, _w, _v in items)
                    pool.add_items(fieldname, docnum, items)
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
        if not self._small_zlib:
            # Stored fields are a few dozen bytes a document, zlib-compressed one by one; zlib's
            # default 32 KB window makes each call allocate ~300 KB. A 512-byte window gives the
            # same bytes for such short input at a tenth of the cost, and any zlib reads it.
            stored = getattr(perdocwriter, "_colwriters", {}).get("_stored")
            child = getattr(stored, "_child", None)
            if child is not None and hasattr(child, "_compress"):
                child._compress = _small_compress
                self._small_zlib = True
        self._added = True
        self.docnum += 1

    def _flush_segment(self):
        self.perdocwriter.close()
        pdr = self.per_document_reader() if self.codec.length_stats else None
        lengths = _Lengths(pdr) if pdr is not None else None
        _write_pool(self.fieldwriter, self.schema, lengths, self.pool)
        self.fieldwriter.close()
        if pdr:
            pdr.close()


class IndexDamagedError(ProjectError):
    """The search index cannot be opened or read: damaged (a truncated or emptied file), or
    ``missing``. ``why``: what was found, in a few words. The index is derived from the project's
    database: a writable project rebuilds it (Session.open, 'sasc reindex')."""

    def __init__(self, path: Path, why: str, missing: bool = False):
        self.path, self.why, self.missing = Path(path), why, missing
        super().__init__(f"the search index at {path} is damaged or missing ({why}); rebuild it with 'sasc reindex'")


def _why(exc: BaseException) -> str:
    text = str(exc)
    return f"{exc.__class__.__name__}: {text}" if text else exc.__class__.__name__


class SearchIndex:
    def __init__(self, path: Path, create: bool = False, create_missing: bool = True):
        """The index at ``path``: made there when ``create``, or when there is none and
        ``create_missing``; else opened and checked (:meth:`check`), IndexDamagedError when it
        cannot be opened or read, or when there is none and not ``create_missing``."""
        self.path = Path(path)
        self._lock = threading.Lock()
        self._searcher = None
        self._fast = None          # FastScorer of the current searcher
        self._query_schema = None
        self.analyzer = text_analyzer()
        if create:
            self._create()
            return
        try:
            # (Whoosh's exists_in opens the index: a damaged one fails there, not only in open_dir)
            exists = whoosh_index.exists_in(str(self.path))
            if exists:
                self.ix = whoosh_index.open_dir(str(self.path))
                # Read once: Whoosh's ix.schema reads the table of contents from disk each time,
                # which a commit replaces (a query parsed during an import found it deleted).
                self.schema = self.ix.schema
        except Exception as exc:  # (a damaged file: OSError, EOFError, pickle's, TypeError, Whoosh's...)
            raise IndexDamagedError(self.path, _why(exc)) from exc
        if not exists:
            if not create_missing:
                raise IndexDamagedError(self.path, "there is no index in its folder", missing=True)
            self._create()
            return
        try:
            self.check()
        except BaseException:
            self.close()
            raise

    def _create(self) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        self.ix = whoosh_index.create_in(str(self.path), build_schema())
        self.schema = self.ix.schema

    def check(self) -> None:
        """IndexDamagedError unless every segment's files can be read where reading starts: the
        table of contents, each segment's term index, the stored fields of its first and last
        document and the postings of each field's first term. Reads a few blocks, whatever the
        index's size: an emptied or missing file is found, damage deep inside a file only when
        a search reads it (then also an IndexDamagedError)."""
        try:
            reader = self.searcher().reader()
            for leaf, _offset in reader.leaf_readers():
                n = leaf.doc_count_all()
                if n:
                    leaf.stored_fields(0)
                    leaf.stored_fields(n - 1)
                for fieldname in leaf.indexed_field_names():
                    first = next(iter(leaf.lexicon(fieldname)), None)
                    if first is not None:
                        next(iter(leaf.postings(fieldname, first).all_ids()), None)
                for fieldname in leaf.schema.scorable_names():
                    # (a field's lengths are one byte a document with a length, none after the
                    # last such one: a shortened file cannot be told from a whole one here)
                    if leaf.field_length(fieldname):
                        lengths = leaf._perdoc._cached_reader(_lenfield(fieldname), LENGTHS_COLUMN)
                        if lengths is None:
                            raise FileNotFoundError(f"the file of the {fieldname!r} field's lengths is missing")
                        if not any(lengths.load()):
                            raise ValueError(f"the file of the {fieldname!r} field's lengths is empty")
        except Exception as exc:
            raise IndexDamagedError(self.path, _why(exc)) from exc

    @classmethod
    def recreate(cls, path: Path, keep: Iterable[str] = ()) -> "SearchIndex":
        """A new empty index at ``path``: everything in its folder removed first, but the files
        named in ``keep`` (the project's import lock, held by the caller: removed, another
        process could lock a new file of that name meanwhile)."""
        path = Path(path)
        keep = set(keep)
        if path.is_dir() and not path.is_symlink():
            for entry in path.iterdir():
                if entry.name in keep:
                    continue
                if entry.is_dir() and not entry.is_symlink():
                    shutil.rmtree(entry, ignore_errors=True)
                else:
                    try:
                        entry.unlink()
                    except FileNotFoundError:
                        pass
        elif path.exists() or path.is_symlink():
            path.unlink()
        return cls(path, create=True)

    # writing --------------------------------------------------------------------------
    def writer(self):
        # One segment per commit, its postings held in memory until the commit (TermPool).
        # Segments stay as separate files: Whoosh reads a compound segment's sub-files through
        # an in-memory copy (BytesIO), so every reader opened (a searcher, each writer's
        # delete/update lookups) held a private copy of all postings (+800 MB at 50k messages).
        return FastSegmentWriter(self.ix, timeout=30.0, delay=0.25, codec=W3Codec(compression=0), compound=False)

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
                self._searcher = self._fast = None
            if self._searcher is None:
                self._searcher = self.ix.searcher(weighting=BM25F(B=0.75, K1=1.2))
            return self._searcher

    def _retrying(self, run):
        """``run(searcher)``, once more on a fresh searcher when it fails because an index commit
        changed the index under it. A commit writes a new table of contents and deletes the old
        one, and merges small segments and deletes their files: opening a searcher just then can
        find the table of contents it listed gone (FileNotFoundError), and a searcher taken just
        before the commit can fail reading a segment's files Whoosh opens only when first read
        (the stored fields: Whoosh finds no such column and fails with a TypeError; the field
        lengths, see FastScorer; an OSError for a file it opens). A failure on a searcher that is
        still current, or again on the fresh one, is an IndexDamagedError (the index's files
        cannot be read: 'sasc reindex' rebuilds it); a SascError (a bad query) is raised as it is."""
        s = None
        try:
            try:
                s = self.searcher()
                return run(s)
            except (SascError, WhooshQueryError, MemoryError):
                raise
            except Exception:
                if s is not None and not self._outdated(s):
                    raise
                if s is not None:
                    self._drop(s)
            return run(self.searcher())
        except (SascError, WhooshQueryError, MemoryError):
            raise
        except Exception as exc:  # (the index's files cannot be read: said so, not a traceback)
            raise IndexDamagedError(self.path, _why(exc)) from exc

    @staticmethod
    def _outdated(searcher) -> bool:
        try:
            return not searcher.up_to_date()
        except Exception:  # (the index's table of contents being rewritten)
            return True

    def _drop(self, searcher) -> None:
        with self._lock:
            if self._searcher is searcher:
                self._searcher.close()
                self._searcher = self._fast = None

    def fast_scorer(self, searcher) -> FastScorer:
        with self._lock:
            if self._fast is None or self._fast.searcher is not searcher:
                self._fast = FastScorer(searcher, searcher.weighting)
            return self._fast

    def close(self) -> None:
        with self._lock:
            if self._searcher is not None:
                self._searcher.close()
                self._searcher = self._fast = None

    def query_schema(self):
        """The index's schema as queries are parsed with it: its text fields' analyser refuses a
        word longer than the longest indexed (:class:`_NoLongWords`)."""
        if self._query_schema is None:
            qs = Schema()
            for name, field in self.schema.items():
                if name in STEMMED_FIELDS:
                    field = copy.copy(field)
                    field.analyzer = _NoLongWords(field.analyzer)
                qs.add(name, field)
            self._query_schema = qs
        return self._query_schema

    def parse(self, text: str, weights: dict[str, float] | None = None):
        weights = {**DEFAULT_FIELD_WEIGHTS, **(weights or {})}
        fields = [f for f in SEARCH_FIELDS if weights.get(f, 0) > 0] or list(SEARCH_FIELDS)
        parser = _Parser(None, self.query_schema(), group=_ImplicitGroup)
        parser.add_plugin(MultifieldPlugin(fields, fieldboosts={f: float(weights[f]) for f in fields}))
        parser.add_plugin(DateParserPlugin(free=False))
        original = text = (text or "").strip()
        if not text:
            raise QueryError("the query is empty")
        schema = self.schema
        searchable = sorted(set(schema.names()) - {"id", "doc_id"})
        text = _check_syntax(_quoted_urls(text), searchable, original)   # (field names lower-cased)
        text, dates = _normalise_dates(text, original)
        try:
            # (normalised after the filters are placed: Whoosh's normalising merges an OR's
            # overlapping date ranges, and groups the user typed into groups around them)
            q = parser.parse(text, normalize=False)
        except _LongWord as exc:
            word = exc.word if len(exc.word) <= 24 else exc.word[:20] + "\u2026"
            raise QueryError(f"cannot search for {word!r} in the query {original!r}: words longer than {MAX_WORD} "
                             "characters are not indexed, so no message can match one; leave it out of the "
                             "query") from None
        except Exception as exc:
            if dates.get(""):  # (Whoosh's date parser lets some errors through: "month must be in 1..12")
                why = "" if "invalid literal" in str(exc) else f" ({exc})"   # (Python's words for a non-number: noise)
                raise QueryError(f"cannot understand the query {original!r}: {dates['']} is not a date{why}; "
                                 f"{DATE_HINT}") from exc
            raise QueryError(f"cannot understand the query {original!r}: {exc}") from exc
        q = _bare_thread_ids(_phrases_without_positions(q, schema))
        q = _fixed_and_not(_filters_restrict(q).normalize())
        problem = _query_problem(q, dates)
        if problem:
            raise QueryError(f"cannot understand the query {original!r}: {problem}")
        if q is wq.NullQuery or type(q).__name__ == "_NullQuery":
            raise QueryError(f"the query {original!r} has no searchable words (only stop words or punctuation)")
        return q

    def search(self, text: str, limit: int = 10, offset: int = 0, weights=None):
        """(hits, total, ms): hits are (id, doc_id, score) for ranks offset+1 .. offset+limit."""
        q = self.parse(text, weights)
        try:
            return self._retrying(lambda s: self._search(s, q, limit, offset))
        except WhooshQueryError as exc:  # (a query parse() let through: said as its mistakes are)
            raise QueryError(f"cannot understand the query {(text or '').strip()!r}: {exc}") from exc

    def _search(self, s, q, limit: int, offset: int):
        t0 = time.perf_counter()
        leaves = plan(q, s.schema)
        if leaves is not None:
            # Plain words: vectorised BM25F over cached posting arrays (same ranking as Whoosh's).
            docnums, scores, total = self.fast_scorer(s).search(leaves, offset + limit)
            stored = s.stored_fields
            hits = []
            for docnum, score in zip(docnums[offset:].tolist(), scores[offset:].tolist()):
                fields = stored(docnum)
                hits.append((fields["id"], fields["doc_id"], score))
            return hits, total, (time.perf_counter() - t0) * 1000.0, q
        # Every match is scored and counted, in one pass: Whoosh's block-quality skipping and its
        # matcher replacement (dropping branches that cannot beat the k-th score) left matches
        # uncounted once k were found, so the total depended on the limit.
        collector = TopCollector(limit=max(1, min(offset + limit, s.doc_count_all())), usequality=False, replace=0)
        s.search_with_collector(q, collector)
        results = collector.results()
        total = collector.count()
        hits = [(r["id"], r["doc_id"], float(r.score)) for r in results[offset:offset + limit]]
        return hits, total, (time.perf_counter() - t0) * 1000.0, q

    def ranked(self, text: str, weights=None):
        """Every match in rank order: (store ids, scores, total, ms, parsed query); ``ids`` and
        ``scores`` are numpy arrays over ranks 1..total (for sorting the whole result set)."""
        q = self.parse(text, weights)
        try:
            return self._retrying(lambda s: self._ranked(s, q))
        except WhooshQueryError as exc:
            raise QueryError(f"cannot understand the query {(text or '').strip()!r}: {exc}") from exc

    def _ranked(self, s, q):
        t0 = time.perf_counter()
        leaves = plan(q, s.schema)
        if leaves is not None:
            fast = self.fast_scorer(s)
            docnums, scores, total = fast.search(leaves, fast.n)
            ids = fast.store_ids()[docnums]
            return ids, scores, total, (time.perf_counter() - t0) * 1000.0, q
        results = s.search(q, limit=None)
        ids = np.fromiter((r["id"] for r in results), dtype=np.int64, count=len(results))
        scores = np.fromiter((r.score for r in results), dtype=np.float64, count=len(results))
        return ids, scores, len(results), (time.perf_counter() - t0) * 1000.0, q

    def query_terms(self, q) -> set[str]:
        """The (stemmed) text terms of a parsed query, for highlighting. A prefix, wildcard or
        range (budg*, bud?et) stands for the indexed terms it matches: the first
        MAX_EXPANSIONS of them in term order."""
        fields = SEARCH_FIELDS + ("all",)
        wanted = list(wanted_leaves(q))
        terms = {t.decode() if isinstance(t, bytes) else str(t)
                 for leaf in wanted if not isinstance(leaf, wq.MultiTerm)
                 for field, t in leaf.iter_all_terms() if field in fields}
        patterns = [leaf for leaf in wanted if isinstance(leaf, wq.MultiTerm) and leaf.field() in fields]
        if patterns:
            terms |= self._retrying(lambda s: expansions(s.reader(), patterns))
        return terms

    def highlight_spans(self, text: str, terms: set[str]) -> list[tuple[int, int]]:
        """Character spans of the words of ``text`` whose stems are among ``terms``."""
        if not terms or not text:
            return []
        return [(t.startchar, t.endchar) for t in self.analyzer(text, chars=True, removestops=False)
                if t.text in terms]


STEMMED_FIELDS = frozenset(SEARCH_FIELDS + ("all",))


class EitherPattern(wq.Wildcard):
    """The indexed terms of a field matching any of several globs (``patterns``), as one
    multi-term query: a prefix or wildcard in a stemmed field is its stemmed form or the text
    as typed, lower-cased (energy* is energi* or energy*, so 'EnergyOnline', indexed as
    'energyonlin', is found; the stem alone missed it). One query, so a message matched by both
    forms counts once."""

    def __init__(self, fieldname, patterns, boost=1.0, constantscore=True):
        super().__init__(fieldname, patterns[0], boost=boost, constantscore=constantscore)
        self.patterns = tuple(dict.fromkeys(patterns))

    def __eq__(self, other):
        return super().__eq__(other) and self.patterns == other.patterns

    def __hash__(self):
        return super().__hash__() ^ hash(self.patterns)

    def __repr__(self):
        return f"{self.__class__.__name__}({self.fieldname!r}, {self.patterns!r}, boost={self.boost})"

    def __unicode__(self):
        return "%s:(%s)" % (self.fieldname, " OR ".join(self.patterns))

    __str__ = __unicode__

    def normalize(self):
        return self

    def _btexts(self, ixreader):
        found: set[bytes] = set()
        for pattern in self.patterns:
            one = wq.Wildcard(self.fieldname, pattern).normalize()   # (a Prefix where it can be)
            if isinstance(one, wq.MultiTerm):
                found.update(one._btexts(ixreader))
        return sorted(found)   # (term order)


_query_tokens = re.compile(_TOKEN_PATTERN, re.UNICODE).findall


class _LongWord(Exception):
    def __init__(self, word: str):
        super().__init__(word)
        self.word = word


class _NoLongWords:
    """A text field's analyser at query time: a word longer than MAX_WORD characters (the longest
    the index keeps: a pasted SHA-256 is 64) raises _LongWord (the analyser dropped it: alone
    it was called 'only stop words or punctuation', beside other words it was left out
    silently)."""

    def __init__(self, analyzer):
        self.analyzer = analyzer

    def __call__(self, value, **kwargs):
        for word in _query_tokens(value or ""):
            if len(word) > MAX_WORD:
                raise _LongWord(word)
        return self.analyzer(value, **kwargs)

    def __getattr__(self, name):
        return getattr(self.analyzer, name)


def _glob_escape(text: str) -> str:
    return re.sub(r"([*?\[])", r"[\1]", text)


class _ImplicitOr(wq.Or):
    """An OR the user did not type: words (and filters) side by side, a group in brackets
    (:func:`_filters_restrict` makes its filters narrow the search)."""


class _ImplicitGroup(OrGroup):
    qclass = _ImplicitOr

    def __init__(self, nodes=None, **kwargs):
        kwargs.pop("scale", None)
        super().__init__(nodes=nodes, scale=0.0, **kwargs)   # (no coordination bonus, as before)


class _TypedOrGroup(OrGroup):
    """An OR the user typed: kept as typed. (Its own class, so that normalising never merges a
    group the user did not type into it, nor the other way round.)"""
    qclass = type("TypedOr", (wq.Or,), {"__doc__": "An OR the user typed."})


def _operators() -> OperatorsPlugin:
    """Whoosh's operators (the same patterns), OR making a :class:`_TypedOrGroup`."""
    ot = OperatorsPlugin.OpTagger
    return OperatorsPlugin(clean=True, ops=[
        (ot(r"(^|(?<=(\s|[()])))NOT(?=\s)", syntax.NotGroup, syntax.PrefixOperator, memo="not"), 0),
        (ot(r"(?<=\s)AND(?=\s)", syntax.AndGroup, memo="and"), 0),
        (ot(r"(?<=\s)OR(?=\s)", _TypedOrGroup, memo="or"), 0),
        (ot(r"(?<=\s)ANDNOT(?=\s)", syntax.AndNotGroup, memo="anot"), -5),
        (ot(r"(?<=\s)ANDMAYBE(?=\s)", syntax.AndMaybeGroup, memo="amaybe"), -5),
        (ot(r"(^|(?<=\s))REQUIRE(?=\s)", syntax.RequireGroup, memo="req"), 0)])


class _Parser(QueryParser):
    """Whoosh's parser, but:

    - a word the analyser splits into several (an address, a hyphenated word, a number with
      slashes: steven.kean@enron.com, year-end, 11/22/99, 2001-03) is searched as those words
      in that order, a phrase, in the fields with word positions (subject, body, attachments),
      and as all of them in 'all' (Whoosh's default OR-ed them: year-end found every message
      with 'year' or 'end'). At parse time: the index is not changed.
    - a prefix or wildcard in a stemmed field is its stem or the text as typed (:class:`EitherPattern`).
    - an OR typed is told from words side by side (:func:`_operators`, :class:`_ImplicitGroup`).
    """

    def default_set(self):
        return [_operators() if isinstance(p, OperatorsPlugin) else p for p in super().default_set()]

    def term_query(self, fieldname, text, termclass, boost=1.0, tokenize=True, removestops=True):
        q = super().term_query(fieldname, text, termclass, boost=boost, tokenize=tokenize, removestops=removestops)
        if type(q) is not termclass or termclass not in (wq.Prefix, wq.Wildcard) or fieldname not in STEMMED_FIELDS:
            return q
        raw, stem = text.lower(), q.text
        if raw == stem:
            return q
        if termclass is wq.Prefix:
            if raw.startswith(stem):     # (every term raw* matches, stem* matches)
                return q
            if stem.startswith(raw):
                return wq.Prefix(fieldname, raw, boost=q.boost)
            raw, stem = _glob_escape(raw) + "*", _glob_escape(stem) + "*"
        return EitherPattern(fieldname, (stem, raw), boost=q.boost)

    def multitoken_query(self, spec, texts, fieldname, termclass, boost):
        if fieldname in SEARCH_FIELDS:
            spec = "phrase"
        elif fieldname == "all":
            spec = "and"
        return super().multitoken_query(spec, texts, fieldname, termclass, boost)


def _without_angle_brackets(text: str) -> str:
    """A thread id as the index keeps it: '<id@example.com>' (a Message-ID as its header writes
    it) is 'id@example.com'; anything else as it is."""
    stripped = text.strip()
    if len(stripped) > 2 and stripped[0] == "<" and stripped[-1] == ">":
        return stripped[1:-1].strip()
    return text


MAX_EXPANSIONS = 1000  # indexed terms a query's prefixes and wildcards are highlighted by


def wanted_leaves(q):
    """The leaves of a parsed query that a match looks for: not those it leaves out (NOT x,
    -x, the right side of ANDNOT). (rank.features.positive_terms walks the tree the same way.)"""
    if isinstance(q, wq.Not):
        return
    if isinstance(q, wq.AndNot):      # AndNot(wanted, left out)
        yield from wanted_leaves(q.a)
        return
    if q.is_leaf():
        yield q
        return
    for child in q.children():
        yield from wanted_leaves(child)


def expansions(reader, patterns, limit: int = MAX_EXPANSIONS) -> set[str]:
    """The indexed terms the multi-term queries ``patterns`` (Prefix, Wildcard, TermRange...)
    match in their fields: the first ``limit`` of them in term order. Each pattern is read for
    at most ``limit`` terms (its first in term order), so the whole is the first ``limit``."""
    found: set[str] = set()
    for leaf in patterns:
        field = leaf.field()
        if field not in reader.schema:
            continue
        decode = reader.schema[field].from_bytes
        n = 0
        for btext in leaf._btexts(reader):  # (term order: Whoosh reads its term index in order)
            if n >= limit:
                break
            found.add(decode(btext))
            n += 1
    return set(sorted(found)[:limit])


_FIELD_AT = re.compile(r"([A-Za-z_]+):")
_FIELD_BEFORE = re.compile(r"(?:^|(?<=[\s(]))([A-Za-z_]+):$")
_DATE_VALUE = re.compile(r"\bdate:(\[[^\]]*\]|[<>]=?[^\s()]+|[^\s()]+)")   # (a value ends at a bracket: (power date:<2001-06))
_ISO = re.compile(r"(\d{4})-(\d{2})(?:-(\d{2}))?")
_BINARY_OPERATORS = ("AND", "OR", "ANDNOT", "ANDMAYBE")
DATE_HINT = ("write a date as 2001, 2001-03 or 2001-03-05, or a range as date:[2001-01 to 2001-06], "
             "date:>2001-03 or date:<2002")
_EXAMPLE = {"from": "fossum", "to": "enron.com", "date": "2001-03", "thread": "<id@example.com>",
            "folder": "inbox"}


# a web or mail address typed without quotes: http://..., https://..., ftp://..., mailto:x@y (up to
# a space, a quote or a bracket), where a word may start (after a space, "(", a field's ":" or "-")
_URL = re.compile(r'(?<![^\s(:-])(?:(?:https?|ftp)://|mailto:(?=[^\s"()]*@))[^\s"()]+', re.I)


def _quoted_urls(text: str) -> str:
    """``text`` with each web or mail address outside quotes quoted, a phrase as when typed
    quoted: http://www.latimes.com/news/x.html is "http://www.latimes.com/news/x.html" (the
    query failed "unknown field 'http'"). Quoted text, and a quote not closed (left for
    :func:`_check_syntax` to report), as it is."""
    pieces = re.split(r'("[^"]*"?)', text)   # (odd pieces: quoted)
    return "".join(p if k % 2 else _URL.sub(lambda m: f'"{m.group(0)}"', p) for k, p in enumerate(pieces))


def _check_syntax(text: str, fields: list[str], shown: str | None = None) -> str:
    """The query's mistakes Whoosh would pass over silently (searching for a field's name, or
    dropping a bracket or a quote), as a QueryError quoting the query and saying how to write it:
    a quote or a bracket not closed, a ")" without its "(", a field name followed by nothing, a
    field Whoosh does not know, AND/OR/NOT with nothing on one side. Returns the text with field
    names lower-cased (From:ann is from:ann) and a "-" before a word made NOT (budget -draft is
    budget NOT draft; Whoosh searched for draft too; e-mail and 2001-03 are words). Quoted text is
    a phrase, never checked. Messages quote ``shown`` (the query as typed), if given, else ``text``."""
    shown = text if shown is None else shown

    def fail(problem: str) -> QueryError:
        return QueryError(f"cannot understand the query {shown!r}: {problem}")

    out: list[str] = []
    opened: list[tuple[int, str]] = []   # (position of "(", the field before it or "")
    quote = negated = -1
    i, n = 0, len(text)

    def starts(i: int) -> bool:  # a word starts at i
        return i == 0 or text[i - 1].isspace() or text[i - 1] == "(" or negated == i - 1
    while i < n:
        c = text[i]
        if quote >= 0:
            if c == '"':
                quote = -1
        elif c == '"':
            quote = i
        elif c == "(":
            m = _FIELD_BEFORE.search(text, 0, i)
            opened.append((i, m.group(1).lower() if m and m.group(1).lower() in fields else ""))
        elif c == ")":
            if not opened:
                raise fail('a ")" has no "(" before it; remove it, or add the "(" where the group starts')
            opened.pop()
        elif c == "-" and starts(i) and i + 1 < n and not text[i + 1].isspace() and text[i + 1] != "-":
            out.append("NOT ")   # -draft leaves out draft (Whoosh searched for it)
            negated = i
            i += 1
            continue
        elif starts(i):
            m = _FIELD_AT.match(text, i)
            if m:
                name, rest = m.group(1), text[m.end():m.end() + 1]
                if name.lower() in fields:
                    if rest == "" or rest.isspace() or rest == ")":
                        example = _EXAMPLE.get(name.lower(), "budget")
                        raise fail(f"'{name}:' is not followed by anything to search for; write it right after "
                                   f"the colon, e.g. {name.lower()}:{example}")
                    out.append(name.lower() + ":")
                    i = m.end()
                    continue
                if rest and not rest.isspace():
                    url = (" (to search for a web address, put it in quotes: \"http://www.example.com/page\")"
                           if name.lower() in ("http", "https", "ftp", "mailto") else "")
                    raise QueryError(f"unknown field {name!r} in the query {shown!r}; fields are: "
                                     + ", ".join(fields) + url)
        out.append(c)
        i += 1
    if quote >= 0:
        raise fail('a \'"\' is not closed; put a phrase between two quotes, e.g. "budget meeting"')
    if opened:
        field = opened[-1][1]
        example = f"{field}:(budget meeting)" if field else "(budget OR lunch) AND meeting"
        raise fail(f'a "(" is not closed; close the group with ")", e.g. {example}')
    words = "".join(out).replace("(", " ( ").replace(")", " ) ").split()
    for k, word in enumerate(words):
        before = words[k - 1] if k else "("
        after = words[k + 1] if k + 1 < len(words) else ")"
        if word in _BINARY_OPERATORS and (before == "(" or after == ")" or after in _BINARY_OPERATORS):
            raise fail(f"{word} needs something to search for on both sides, e.g. budget {word} meeting")
        if word == "NOT" and (after == ")" or after in _BINARY_OPERATORS or after == "NOT"):
            raise fail("NOT needs something to search for after it, e.g. budget NOT draft")
    return "".join(out)


def _normalise_dates(text: str, query: str | None = None) -> tuple[str, dict[str, str]]:
    """date:2001-03-05, date:>2001-03, date:<=2001 and ISO ranges -> Whoosh's compact forms;
    with each compact value's text as the user wrote it (for messages), and under "" every
    date: part as written. ``>X`` and ``<X`` leave X out (date:>2001 is from 2002 on,
    date:<2001-05 up to the end of April 2001: :func:`_beyond`); ``>=X`` and ``<=X`` take it in."""
    written: dict[str, str] = {}
    parts: list[str] = []

    def fix(m: re.Match) -> str:
        value = _ISO.sub(lambda d: d.group(1) + d.group(2) + (d.group(3) or ""), m.group(1))
        if value[:1] in "<>":
            bound = value.lstrip("<>=")
            if value[1:2] != "=":
                bound = _beyond(bound, value[0], query or text)
            value = f"[{bound} to]" if value[0] == ">" else f"[to {bound}]"
        for compact, original in zip(_date_parts(value), _date_parts(m.group(1))):
            written.setdefault(compact, original)
        written.setdefault(value, m.group(1))
        parts.append(repr(m.group(0)))
        return "date:" + value
    text = _DATE_VALUE.sub(fix, text)
    if parts:
        written[""] = " or ".join(dict.fromkeys(parts))
    return text, written


_DATES = DateParserPlugin(free=False).dateparser.get_parser()   # (as Whoosh reads a range's bounds)


def _beyond(bound: str, side: str, query: str) -> str:
    """The bound of date:>X (``side`` ">") or date:<X ("<") that leaves the whole of X out, in
    Whoosh's compact form: the second after X's last (date:>2001 is date:>=20020101000000), the
    second before X's first (date:<2001-05 is date:<=20010430235959). ``bound`` as it is when
    Whoosh cannot read it (its error then says so)."""
    try:
        d = _DATES.date_from(bound, datetime.utcnow())
    except Exception:
        return bound
    if d is None:
        return bound
    d = d.disambiguated(datetime.utcnow()) if hasattr(d, "disambiguated") else d
    if isinstance(d, timespan):
        first, last = d.start, d.end
    elif isinstance(d, adatetime):
        first, last = d.floor(), d.ceil()
    else:
        first = last = d
    try:
        edge = last + timedelta(microseconds=1) if side == ">" else first - timedelta(microseconds=1)
    except OverflowError:
        raise QueryError(f"cannot understand the query {query!r}: no date comes "
                         f"{'after' if side == '>' else 'before'} {bound!r}") from None
    if side == ">" and edge.microsecond:     # (a bound to the microsecond: the next whole second)
        edge = edge.replace(microsecond=0) + timedelta(seconds=1)
    return f"{edge.year:04d}{edge:%m%d%H%M%S}"


def _date_parts(value: str) -> list[str]:
    """A date value's pieces as Whoosh's date parser reports a bad one: the value, and a range's
    bounds with and without its brackets."""
    parts = [value]
    inner = value.strip("[]{}<>=")
    parts += [p.strip() for p in re.split(r"\s+to\s+", inner, flags=re.I)]
    return parts


def _phrases_without_positions(q, schema):
    """A phrase in a field that keeps no word positions (from, to, all), e.g. from:"Patricia
    Nolan", is all of its words in that field (Whoosh cannot search it as a phrase and raised
    its own error when searching): And([from:patricia, from:nolan])."""
    if isinstance(q, wq.Phrase):
        field = schema[q.fieldname] if q.fieldname in schema else None
        if field is not None and not field.format.supports("positions"):
            words = [wq.Term(q.fieldname, w, boost=q.boost) for w in q.words]
            return words[0] if len(words) == 1 else wq.And(words)
        return q
    if isinstance(q, wq.Not):
        return wq.Not(_phrases_without_positions(q.query, schema))
    if isinstance(q, wq.CompoundQuery):
        return _rebuild(q, [_phrases_without_positions(k, schema) for k in q.children()])
    if isinstance(q, wq.WrappingQuery):  # (e.g. ConstantScoreQuery)
        return q.__class__(_phrases_without_positions(q.child, schema))
    return q


def _bare_thread_ids(q):
    """A thread id is searched with or without the angle brackets of a Message-ID header:
    thread:<id@example.com> (quoted or not, in a group or not) is thread:id@example.com, as
    the index keeps it (with them it found nothing)."""
    if isinstance(q, wq.Term):
        if q.fieldname == "thread" and isinstance(q.text, str):
            bare = _without_angle_brackets(q.text)
            if bare != q.text:
                return wq.Term("thread", bare, boost=q.boost)
        return q
    if isinstance(q, wq.Not):
        return wq.Not(_bare_thread_ids(q.query), boost=q.boost)
    if isinstance(q, wq.CompoundQuery):
        return _rebuild(q, [_bare_thread_ids(k) for k in q.children()])
    if isinstance(q, wq.WrappingQuery):  # (e.g. ConstantScoreQuery)
        return q.__class__(_bare_thread_ids(q.child))
    return q


class _AndNotMatcher(AndNotMatcher):
    """Whoosh's AndNotMatcher skipped the excluded list only when both lists began on the same
    document: with the excluded list's first document before the wanted list's first, that
    first wanted one was matched even when excluded ('power NOT california' listed a message
    holding both). Here the excluded list is first moved on to the wanted list's document."""

    def _find_first(self):
        if self.a.is_active() and self.b.is_active():
            self._find_next()


class AndNot(wq.AndNot):
    """wq.AndNot (the same tree shape: rank.features.positive_terms reads it) matched by
    :class:`_AndNotMatcher`."""

    def matcher(self, searcher, context=None):
        return _AndNotMatcher(self.a.matcher(searcher, context), self.b.matcher(searcher, searcher.boolean_context()))


def _fixed_and_not(q):
    """``q`` with every wq.AndNot (ANDNOT typed, or made by :func:`_filters_restrict`) an :class:`AndNot`."""
    if isinstance(q, wq.AndNot):
        return AndNot(_fixed_and_not(q.a), _fixed_and_not(q.b))
    if isinstance(q, wq.Not):
        return wq.Not(_fixed_and_not(q.query), boost=q.boost)
    if isinstance(q, wq.CompoundQuery):
        return _rebuild(q, [_fixed_and_not(k) for k in q.children()])
    if isinstance(q, wq.WrappingQuery):
        return q.__class__(_fixed_and_not(q.child))
    return q


FILTER_FIELDS = {"date", "from", "to", "thread", "folder"}


def _filters_restrict(q):
    """Filters (date:, from:, to:, thread:, folder:) narrow a search, as in a mail program, and
    words are OR-ed for ranking. In a group the user did not join with OR or AND themselves
    (words side by side, :class:`_ImplicitOr`): filters of one field are OR-ed (from:ann
    from:bob, either sender; date:2000 date:2002, either year), filters of different fields are
    AND-ed, and the words, if any, must match too: Or([w1, w2, from:ann, from:bob, date:2001])
    -> And([Or([w1, w2]), Or([from:ann, from:bob]), date:2001]). A one-sided date bound
    (date:>X, date:<Y, with or without =) is a filter of its own, so date:>2001-03 date:<2001-06
    is the time between. A NOT beside them leaves its matches out: AndNot(..., x). What the user
    joined with OR or AND is kept as typed (budget OR from:ann: either), but for a NOT beside
    it (a OR NOT b: AndNot(a, b)). A group of NOTs alone (NOT a NOT b, -a -b, NOT a OR NOT b)
    is the messages matching none of them: Not(Or([a, b])) (it was Or of the NOTs, every
    message matching any one's complement). Applied to every group of the tree, innermost first; the
    result is built of plain wq.Or, And and AndNot (the fast scorer reads plain Or)."""
    if isinstance(q, wq.Not):
        return wq.Not(_filters_restrict(q.query), boost=q.boost)
    if not isinstance(q, wq.CompoundQuery):
        if isinstance(q, wq.WrappingQuery):
            return q.__class__(_filters_restrict(q.child))
        return q
    kids = [_filters_restrict(k) for k in q.children()]
    if isinstance(q, wq.BinaryQuery):
        return q.__class__(*kids)
    kids = [k.normalize() if not isinstance(k, wq.Not) else k for k in kids]
    kids = [k for k in kids if k is not wq.NullQuery]
    if not isinstance(q, wq.Or):
        return _rebuild(q, kids) if kids else wq.NullQuery
    nots = [k.query for k in kids if isinstance(k, wq.Not)]
    rest = [k for k in kids if not isinstance(k, wq.Not)]
    if not rest:   # (only NOTs: every message matching none of them, as with AND between them)
        if not nots:
            return wq.NullQuery
        return kids[0] if len(kids) == 1 else wq.Not(wq.Or(nots), boost=q.boost)
    if isinstance(q, _ImplicitOr):
        words = [k for k in rest if not _is_filter(k)]
        groups: dict = {}
        for k in rest:
            if _is_filter(k):
                groups.setdefault(_filter_key(k), []).append(k)
        parts = [wq.Or(words, boost=q.boost, scale=q.scale)] if words else []
        parts += [g[0] if len(g) == 1 else wq.Or(g) for g in groups.values()]
        out = parts[0] if len(parts) == 1 else wq.And(parts)
    else:
        out = wq.Or(rest, boost=q.boost, minmatch=q.minmatch, scale=q.scale) if len(rest) > 1 else rest[0]
    if nots:
        out = wq.AndNot(out, wq.Or(nots) if len(nots) > 1 else nots[0])
    return out


def _filter_key(q):
    """Filters with the same key are OR-ed: the field they filter on; a one-sided date bound, or
    a group mixing fields, has a key of its own."""
    if isinstance(q, wq.NumericRange) and (q.start is None or q.end is None):
        return ("bound", id(q))
    fields = {getattr(leaf, "fieldname", None) for leaf in ([q] if q.is_leaf() else q.leaves())}
    return fields.pop() if len(fields) == 1 else ("mixed", id(q))


def _is_filter(q) -> bool:
    """A query on filter fields only: from:ann, from:"Ann Lee" (an And), from:(ann OR bob)."""
    if isinstance(q, (wq.And, wq.Or)):
        kids = list(q.children())
        return bool(kids) and all(_is_filter(k) for k in kids)
    return getattr(q, "fieldname", None) in FILTER_FIELDS


def _rebuild(q, kids):
    """``q`` with other children (ANDNOT and ANDMAYBE are binary queries: they take two)."""
    if isinstance(q, wq.BinaryQuery):
        return q.__class__(*kids)
    if isinstance(q, wq.Or):
        return q.__class__(kids, boost=q.boost, minmatch=q.minmatch, scale=q.scale)
    if isinstance(q, wq.DisjunctionMax):
        return wq.DisjunctionMax(kids, boost=q.boost, tiebreak=q.tiebreak)
    return q.__class__(kids, boost=q.boost)


def _query_problem(q, dates: dict[str, str] | None = None) -> str:
    """What is wrong in a parsed query (a bad date, said as the user wrote it), or ""."""
    dates = dates or {}
    for node in _walk(q):
        if isinstance(node, wq.Term) and node.fieldname == "date" and node.text in ("", None):
            return f"that is not a date; {DATE_HINT}"
        name = type(node).__name__
        if name == "ErrorQuery" or getattr(node, "error", None):
            error = str(getattr(node, "error", "syntax error"))
            if error in dates or error.strip() in dates:
                return f"{dates.get(error, dates.get(error.strip()))!r} is not a date; {DATE_HINT}"
            return error
    return ""


def _walk(q):
    yield q
    if hasattr(q, "children"):
        for child in q.children():
            yield from _walk(child)
