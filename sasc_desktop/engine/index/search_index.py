"""Writing to and searching the Whoosh index."""
from __future__ import annotations

import copy
import os
import pickle
import struct
import shutil
import tempfile
from array import array
import threading
import time
import zlib
from pathlib import Path
from typing import Iterable, Optional

import numpy as np

from whoosh import index as whoosh_index
from whoosh.fields import Schema
from whoosh.filedb.filestore import StorageError
from whoosh.filedb.filetables import FileFormatError
from whoosh import query as wq
from whoosh.qparser import MultifieldPlugin
from whoosh.qparser.dateparse import DateParserPlugin
from whoosh.query.qcore import QueryError as WhooshQueryError
from whoosh.collectors import TopCollector
from whoosh.codec.whoosh3 import LENGTHS_COLUMN, WHOOSH3_HEADER_MAGIC, W3Codec, W3TermInfo, _lenfield
from whoosh.compat import dumps
from whoosh.system import pack_int, pack_ushort
from whoosh.util.numlists import delta_encode
from whoosh.scoring import BM25F
from whoosh.util.numeric import byte_to_length, length_to_byte
from whoosh.writing import SegmentWriter

from ..errors import ProjectError, QueryError, SascError
from ..project.modelfile import unwritable_reason
from . import fastscore
from .fastscore import FastScorer, Unsupported, plan
from .query import (DATE_HINT, STEMMED_FIELDS, _bare_thread_ids, _check_syntax,
                    _date_groups, _filters_restrict, _fixed_and_not, _ImplicitGroup, _LongWord, _normalise_dates, _NoLongWords,
                    _Parser, _phrases_without_positions, _query_problem, _quoted_urls, expansions, too_deep,
                    wanted_leaves)
from .schema import (_MAXSIZE as MAX_WORD, DEFAULT_FIELD_WEIGHTS, SEARCH_FIELDS, analyse_document,
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


class SearchFailedError(SascError):
    """A search failed on a fault in matching (a bug), not in the index: the index was checked
    and found whole, so rebuilding it would not help. ``why``: the error, in a few words."""

    def __init__(self, why: str):
        self.why = why
        super().__init__(f"the search failed ({why}): a fault in SASC Desktop's search, not in the index (its "
                         "files were checked and read correctly), so rebuilding it would not help; please report "
                         "it with the query")


class IndexUnwritableError(ProjectError):
    """The index folder cannot be written (read-only, another user's after 'sudo sasc reindex', a
    read-only file system, a full disk): ``why`` and ``fix`` say so in words
    (modelfile.unwritable_reason, as for the models folder); the message is
    ``"<what_failed>: <why>; <fix>"`` unless a whole ``message`` is given."""

    def __init__(self, folder: Path, error: OSError, what_failed: str = "the search index cannot be written",
                 message: Optional[str] = None):
        self.folder, self.error = Path(folder), error
        self.why, self.fix = unwritable_reason(self.folder, error)
        super().__init__(message or f"{what_failed}: {self.why}; {self.fix}")


# Files of the index folder that writing opens for writing as they are (not made anew): Whoosh's
# writer lock, the project's import lock (engine/ingest/importer.py IMPORT_LOCK).
_OPENED_FOR_WRITING = ("MAIN_WRITELOCK", "sasc-import.lock")


def index_write_problem(folder: Path) -> Optional[OSError]:
    """Why the index folder ``folder`` cannot be written, found by trying (a file made there and
    removed, the lock files it holds opened for writing, nothing written to them): the OSError,
    or None when writing works. Tried rather than asked (os.access): a sandbox (Landlock), a
    read-only mount or a network share's access rules deny what the permission bits allow, and
    root passes any permission check. A missing folder is tried at its parent (a rebuild makes
    it). Changes nothing but the folder's modification time, and only where it can be written."""
    folder = Path(folder)
    where = folder if folder.is_dir() else folder.parent
    try:
        fd, name = tempfile.mkstemp(prefix=".sasc-write-check-", dir=where)
        os.close(fd)
        try:
            os.unlink(name)
        except FileNotFoundError:   # (removed meanwhile by another process's rebuild emptying the folder)
            pass
        if where == folder:
            for lock in _OPENED_FOR_WRITING:
                try:
                    fd = os.open(folder / lock, os.O_WRONLY)
                except FileNotFoundError:
                    continue
                os.close(fd)
    except OSError as exc:
        return exc
    return None


def _column_bytes(lengths) -> bytes:
    """A lengths column's bytes (one a document), read in one piece (load() asked for them one
    document at a time: 195,000 calls, 151 ms, on every open of a 30,000-message project);
    through load() for a column of another kind."""
    dbfile, base, count, width = (getattr(lengths, a, None) for a in ("_dbfile", "_basepos", "_count", "_fixedlen"))
    if dbfile is None or base is None or not isinstance(count, int) or not isinstance(width, int):
        return bytes(lengths.load())
    return bytes(dbfile.get(base, count * width)) if count else b""


def _any_length(lengths) -> bool:
    """Whether a lengths column holds any length above 0 (scanned in C)."""
    data = _column_bytes(lengths)
    return len(data) != data.count(0)


_BYTE_LENGTH = np.array([byte_to_length(b) for b in range(256)], dtype=np.float64)


def _lengths_cover(lengths, total: int) -> bool:
    """Whether a lengths column can hold a segment's field lengths adding up to ``total``: each
    length is kept as a byte that stands for it or more (up to 106,374; a byte of 255 for any
    longer), so whole columns add up to ``total`` or more. A column cut short (the documents
    after the cut read as no length) adds up to less."""
    data = np.frombuffer(_column_bytes(lengths), dtype=np.uint8)
    if data.size and data.max() == 255:
        return True    # (a length beyond what a byte holds: the sum says nothing)
    return float(_BYTE_LENGTH[data].sum()) >= total


# Errors reading the index's files: the index is damaged (or was changed under the reader).
_READ_ERRORS = (OSError, EOFError, pickle.UnpicklingError, zlib.error, struct.error, whoosh_index.IndexError,
                FileFormatError, StorageError)


def _why(exc: BaseException) -> str:
    text = str(exc)
    return f"{exc.__class__.__name__}: {text}" if text else exc.__class__.__name__


class SearchIndex:
    def __init__(self, path: Path, create: bool = False, create_missing: bool = True):
        """The index at ``path``: made there when ``create``, or when there is none and
        ``create_missing``; else opened and checked (:meth:`check`), IndexDamagedError when it
        cannot be opened or read, or when there is none and not ``create_missing``."""
        self.path = Path(path)
        self.rebuilt = False   # made anew, empty, by recreate (its documents to be indexed again)
        self._lock = threading.Lock()
        self._searcher = None
        self._fast = None          # FastScorer of the current searcher
        self._toc = None           # the identity of the table of contents the searcher read
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

    def check(self, thorough: bool = False) -> None:
        """IndexDamagedError unless every segment's files can be read where reading starts: the
        table of contents, each segment's term index, the stored fields of its first and last
        document and the postings of each field's first term. Reads a few blocks, whatever the
        index's size: an emptied or missing file is found, damage deep inside a file only when
        a search reads it (then also an IndexDamagedError). ``thorough`` (after a search failed
        on an error that is not one of reading a file): also every document's stored fields,
        and each field's lengths adding up to the segment's total (a lengths file cut short
        looks whole otherwise)."""
        try:
            reader = self.searcher().reader()
            for leaf, _offset in reader.leaf_readers():
                n = leaf.doc_count_all()
                if n:
                    for docnum in range(n) if thorough else (0, n - 1):
                        leaf.stored_fields(docnum)
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
                        if not _any_length(lengths):
                            raise ValueError(f"the file of the {fieldname!r} field's lengths is empty")
                        if thorough and not _lengths_cover(lengths, leaf.field_length(fieldname)):
                            raise ValueError(f"the file of the {fieldname!r} field's lengths is cut short")
        except Exception as exc:
            raise IndexDamagedError(self.path, _why(exc)) from exc

    @classmethod
    def recreate(cls, path: Path, keep: Iterable[str] = ()) -> "SearchIndex":
        """A new empty index at ``path``: everything in its folder removed first, but the files
        named in ``keep`` (the project's import lock, held by the caller: removed, another
        process could lock a new file of that name meanwhile)."""
        path = Path(path)
        keep = set(keep)
        try:
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
            index = cls(path, create=True)
        except OSError as exc:  # (a folder that cannot be written: said so, not a traceback)
            raise IndexUnwritableError(path, exc, "the search index cannot be rebuilt") from None
        index.rebuilt = True
        return index

    # writing --------------------------------------------------------------------------
    def writer(self):
        # One segment per commit, its postings held in memory until the commit (TermPool).
        # Segments stay as separate files: Whoosh reads a compound segment's sub-files through
        # an in-memory copy (BytesIO), so every reader opened (a searcher, each writer's
        # delete/update lookups) held a private copy of all postings (+800 MB at 50k messages).
        # A folder that cannot be written is an IndexUnwritableError (Whoosh's OSError was a
        # traceback), the writer lock Whoosh took before failing released (else every later
        # writer of this process waited for it, then failed with a LockError).
        writer = FastSegmentWriter.__new__(FastSegmentWriter)
        try:
            writer.__init__(self.ix, timeout=30.0, delay=0.25, codec=W3Codec(compression=0), compound=False)
        except OSError as exc:
            lock = getattr(writer, "writelock", None)
            if lock is not None and getattr(lock, "locked", False):
                try:
                    lock.release()
                except Exception:
                    pass
            raise IndexUnwritableError(self.path, exc) from None
        return writer

    def delete_ids(self, writer, doc_ids: Iterable[str]) -> None:
        for doc_id in doc_ids:
            writer.delete_by_term("doc_id", doc_id)

    def doc_count(self) -> int:
        return self.searcher().doc_count()

    # searching ------------------------------------------------------------------------
    def searcher(self):
        with self._lock:
            # (Whoosh's refresh() fails when the old searcher saw an empty index: reopen instead.)
            if self._searcher is not None and self._outdated(self._searcher):
                self._searcher.close()
                self._searcher = self._fast = None
            if self._searcher is None:
                self._searcher = self.ix.searcher(weighting=BM25F(B=0.75, K1=1.2))
                self._toc = self._toc_identity(self._searcher.ixreader.generation())
            return self._searcher

    def _toc_identity(self, generation: int):
        """The table of contents file of ``generation``: (inode, mtime, size), None when gone."""
        try:
            st = os.stat(self.path / f"_MAIN_{generation}.toc")
        except OSError:
            return None
        return st.st_ino, st.st_mtime_ns, st.st_size

    def _retrying(self, run):
        """``run(searcher)``, once more on a fresh searcher when it fails because an index commit
        changed the index under it. A commit writes a new table of contents and deletes the old
        one, and merges small segments and deletes their files: opening a searcher just then can
        find the table of contents it listed gone (FileNotFoundError), and a searcher taken just
        before the commit can fail reading a segment's files Whoosh opens only when first read
        (the stored fields: Whoosh finds no such column and fails with a TypeError; the field
        lengths, see FastScorer; an OSError for a file it opens). A failure on a searcher that is
        still current, or again on the fresh one, is :meth:`_failure`: an IndexDamagedError when
        the index's files cannot be read ('sasc reindex' rebuilds it), else a SearchFailedError;
        a SascError (a bad query) is raised as it is."""
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
        except Exception as exc:  # (said in words, not a traceback)
            raise self._failure(exc) from exc

    def _failure(self, exc: Exception) -> SascError:
        """What a search failing with ``exc`` is: an error reading a file (an OSError, a
        truncated pickle, Whoosh's own index errors and its bare Exception for a bad block...)
        is an IndexDamagedError; any other (an IndexError, a TypeError...) too when the index,
        checked thoroughly now, is damaged (a lengths file cut short makes Whoosh's scoring
        fail with a TypeError); else it is a fault in matching, a SearchFailedError (it said
        'rebuild the index', which could not help)."""
        if isinstance(exc, _READ_ERRORS) or type(exc) is Exception:
            return IndexDamagedError(self.path, _why(exc))
        try:
            self.check(thorough=True)
        except IndexDamagedError:
            return IndexDamagedError(self.path, _why(exc))
        return SearchFailedError(_why(exc))

    def _outdated(self, searcher) -> bool:
        """Whether ``searcher`` no longer reads the latest index: a later generation was committed,
        or its generation's table of contents is another file. An index rebuilt by another
        process ('sasc reindex') numbers its generations from 0 again: after it and one import,
        _MAIN_2.toc was a new file while an open session's searcher, of the old generation 2,
        counted as up to date and missed the new mail until the next commit."""
        try:
            if not searcher.up_to_date():
                return True
        except Exception:  # (the index's table of contents being rewritten)
            return True
        return searcher is self._searcher and self._toc_identity(searcher.ixreader.generation()) != self._toc

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
        text, dates = _normalise_dates(_date_groups(text, original), original)
        try:
            # (normalised after the filters are placed: Whoosh's normalising merges an OR's
            # overlapping date ranges, and groups the user typed into groups around them)
            q = parser.parse(text, normalize=False)
        except _LongWord as exc:
            word = exc.word if len(exc.word) <= 24 else exc.word[:20] + "\u2026"
            raise QueryError(f"cannot search for {word!r} in the query {original!r}: words longer than {MAX_WORD} "
                             "characters are not indexed, so no message can match one; leave it out of the "
                             "query") from None
        except RecursionError:   # (_check_syntax refuses deep nesting: a net under it)
            raise too_deep(original) from None
        except Exception as exc:
            if dates.get(""):  # (Whoosh's date parser lets some errors through: "month must be in 1..12")
                why = "" if "invalid literal" in str(exc) else f" ({exc})"   # (Python's words for a non-number: noise)
                raise QueryError(f"cannot understand the query {original!r}: {dates['']} is not a date{why}; "
                                 f"{DATE_HINT}") from exc
            raise QueryError(f"cannot understand the query {original!r}: {exc}") from exc
        try:
            q = _bare_thread_ids(_phrases_without_positions(q, schema))
            q = _fixed_and_not(_filters_restrict(q).normalize())
            problem = _query_problem(q, dates)
        except RecursionError:
            raise too_deep(original) from None
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

    def _fast_matches(self, s, q, k: int):
        """(top k doc numbers, their scores, total) by numpy (fastscore: the same matches, scores
        and order as Whoosh's), or None when the query has a part only Whoosh runs."""
        if fastscore.FORCE_WHOOSH:
            return None
        fast = self.fast_scorer(s)
        leaves = plan(q, s.schema)
        if leaves is not None and (len(leaves) <= 2 or fast.largest_segment <= 5000):
            # Plain words: vectorised BM25F over cached posting arrays, the scores added in
            # the query's order, as Whoosh adds them in segments of up to 5,000 documents
            # (in larger ones it adds them in a tree: the tree evaluator below, bit for bit).
            return fast.search(leaves, k)
        try:
            # Prefixes, wildcards, filters (dates, folders, senders...), AND, NOT: the query's
            # tree evaluated segment by segment as Whoosh's matchers would.
            cand, cs = fast.evaluate(q)
        except Unsupported:
            return None
        return fast.top(cand, cs, k)

    def _search(self, s, q, limit: int, offset: int):
        t0 = time.perf_counter()
        found = self._fast_matches(s, q, offset + limit)
        if found is not None:
            docnums, scores, total = found
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
        fast = self.fast_scorer(s)
        found = self._fast_matches(s, q, fast.n)
        if found is not None:
            docnums, scores, total = found
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
