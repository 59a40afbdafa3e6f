"""Reading and writing TREC qrels, sensitivity judgments, TREC runs and LETOR files.

Every reader raises :class:`EvalFileError` (an ``InputError``) naming the file and the 1-based
line of the first problem. Files are UTF-8; a leading byte-order mark is ignored. Blank lines are
skipped everywhere; in qrels and sensitivity files a line whose first non-blank character is
``#`` is a comment (LETOR's trailing ``# ...`` comment is part of a line; run files have none).

Run order (what "rank" means): like trec_eval, the rank column of a run file is ignored. Each
topic's documents are ordered by score, highest first, and ties are broken by document id in
*decreasing* string order (trec_eval's ``comp_sim_docno``), so results match trec_eval and
ir_measures/pytrec_eval on the same file. Scores are compared as trec_eval keeps them, in single
precision (float32): two scores equal once rounded to float32 (1.00000001 and 1.0) tie there and
are ordered by document id; the double is kept for display (``ScoredDoc.score``). A document
listed twice for one topic is an error.
"""
from __future__ import annotations

import math
import os
import re
from typing import Iterable, Iterator, Sequence

import numpy as np

from ..errors import InputError
from .errors import EvalFileError, JudgmentsError
from .records import LetorRow, Qrel, ScoredDoc, SensJudgment

PathLike = str | os.PathLike


def _raw_lines(path: PathLike) -> Iterator[tuple[int, str]]:
    """Yield (1-based line number, line), turning I/O problems into EvalFileError.

    Decoded line by line, so a byte that is not UTF-8 is reported with its line and its byte
    offset from the start of the file; a UTF-8 byte-order mark starting a line is dropped (not
    only on line 1: files saved with one and joined, as Windows' ``copy a+b`` or ``type a b > c``
    do, have one at the start of each; kept, it made a second, invisible "bob" of "\\ufeffbob")."""
    try:
        with open(path, "rb") as fh:
            offset = 0
            for number, raw in enumerate(fh, start=1):
                skip = 3 if raw.startswith(b"\xef\xbb\xbf") else 0
                try:
                    line = raw[skip:].decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise EvalFileError(path, number, f"not UTF-8 text ({exc.reason} at byte "
                                        f"{offset + skip + exc.start} of the file)") from None
                offset += len(raw)
                yield number, line
    except FileNotFoundError:
        raise EvalFileError(path, None, "no such file") from None
    except IsADirectoryError:
        raise EvalFileError(path, None, "is a directory, not a file") from None
    except OSError as exc:
        raise EvalFileError(path, None, f"cannot read: {exc.strerror or exc}") from None


def _lines(path: PathLike, comments: bool = False) -> Iterator[tuple[int, list[str], str]]:
    """Yield (line number, whitespace-split fields, the line) for each non-blank line (and,
    with ``comments``, each line not starting with ``#``)."""
    for number, line in _raw_lines(path):
        fields = line.split()
        if fields and not (comments and fields[0].startswith("#")):
            yield number, fields, line


def _quoted_line(line: str, limit: int = 80) -> str:
    """The line as an error message quotes it: repr of the text without its line end,
    shortened to ``limit`` characters with '...'."""
    text = line.rstrip("\r\n")
    return repr(text) if len(text) <= limit else repr(text[:limit]) + "..."


# Relevance grades (qrels, LETOR labels): TREC's negative grades (-2 = junk) up to far beyond any
# scale in use; the gain 2^rel - 1 stays exact and finite. Sensitivity levels: -1 ("I don't
# know"), 0 (not sensitive), 1-9 (sensitive, graded; a cost per level, see evaluate/registry.py).
GRADES = (-9, 99)
LEVELS = (-1, 9)


def _shown_text(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


# What a number in a TREC or LETOR file looks like (C's strtol / atof, ASCII only). Python's
# int() and float() also take '_' separators ('1_0' is 10) and any Unicode digit ('２' is 2), which
# no TREC tool writes or reads: such a field is refused, not read as another number.
_INT_TEXT = re.compile(r"[+-]?[0-9]+")
_FLOAT_TEXT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?(?:inf|infinity|nan)",
                         re.IGNORECASE | re.ASCII)


def _why_not_ascii(text: str) -> str:
    """A hint for a field that Python would read as a number but a TREC file may not hold."""
    if not text.isascii():
        return " (only ASCII digits 0-9 are read)"
    if "_" in text:
        return " ('_' is not a digit separator here)"
    return ""


def _int(path, number: int, text: str, what: str, bounds: tuple[int, int] | None = None) -> int:
    """An integer field: ASCII digits with an optional sign; with ``bounds`` (lowest, highest)
    one outside them is an error too (a 20-digit grade used to reach SQLite and fail there as
    an OverflowError)."""
    if not _INT_TEXT.fullmatch(text):
        raise EvalFileError(path, number, f"{what} must be an integer, got {_shown_text(text)!r}"
                            f"{_why_not_ascii(text)}")
    try:
        value = int(text)
    except ValueError:
        value = None                                   # digits, too many for int() (over 4300)
    if value is None or (bounds is not None and not bounds[0] <= value <= bounds[1]):
        allowed = f"from {bounds[0]} to {bounds[1]}" if bounds is not None else "an integer of at most 4300 digits"
        raise EvalFileError(path, number, f"{what} must be {allowed}, got {_shown_text(text)}")
    return value


def _float(path, number: int, text: str, what: str) -> float:
    """A real-number field as C's atof reads it: ASCII digits, an optional sign, point and
    exponent ('1', '+1', '-2', '1.5e-3', '.5', '1.', '1E5'); inf and nan are refused as not
    finite."""
    if not _FLOAT_TEXT.fullmatch(text):
        raise EvalFileError(path, number, f"{what} must be a number, got {_shown_text(text)!r}"
                            f"{_why_not_ascii(text)}")
    try:
        value = float(text)
    except ValueError:                                 # not expected after the pattern
        raise EvalFileError(path, number, f"{what} must be a number, got {_shown_text(text)!r}") from None
    if not math.isfinite(value):
        raise EvalFileError(path, number, f"{what} must be finite, got {text!r}")
    return value


def _bad_token(value, what: str, extra_forbidden: str = "") -> str | None:
    """Why ``value`` cannot be written as one whitespace-separated field that reads back as the
    same string (None when it can)."""
    if not isinstance(value, str):
        return f"{what} must be a string, got {type(value).__name__} {_shown_text(repr(value))}"
    if not value:
        return f"{what} is empty"
    if any(ch.isspace() for ch in value):
        return f"{what} {_shown_text(repr(value))} contains white space (a field ends at white space)"
    for ch in extra_forbidden:
        if ch in value:
            return f"{what} {_shown_text(repr(value))} contains {ch!r}"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return f"{what} {_shown_text(repr(value))} cannot be written as UTF-8"
    return None


# --------------------------------------------------------------------------------------- qrels
def _checked_docid(path, number: int, docid: str, check_docid) -> None:
    """``check_docid(docid)`` (a caller's rule for its document ids, raising InputError), its
    error given the file and line."""
    if check_docid is not None:
        try:
            check_docid(docid)
        except InputError as exc:
            raise EvalFileError(path, number, str(exc)) from None


def read_qrels(path: PathLike, check_docid=None) -> list[Qrel]:
    """Read TREC qrels (``topic iteration docid rel``; the iteration column is ignored; a grade
    is an integer from -9 to 99).

    Repeated identical lines are kept once; the same (topic, docid) with two different grades
    is an error. ``check_docid`` (optional) is called with each document id and may raise
    InputError: it is raised as an EvalFileError naming the file and line.
    """
    seen: dict[tuple[str, str], tuple[int, int]] = {}
    out: list[Qrel] = []
    for number, fields, line in _lines(path, comments=True):
        if len(fields) != 4:
            raise EvalFileError(path, number, f"a qrels line has 4 columns (topic 0 docid rel), found {len(fields)}: "
                                f"{_quoted_line(line)}")
        topic, _, docid, rel_text = fields
        _checked_docid(path, number, docid, check_docid)
        rel = _int(path, number, rel_text, "relevance", GRADES)
        key = (topic, docid)
        if key in seen:
            if seen[key][0] != rel:
                raise EvalFileError(path, number, f"topic {topic} document {docid} judged {seen[key][0]} on line {seen[key][1]} and {rel} here")
            continue
        seen[key] = (rel, number)
        out.append(Qrel(topic, docid, rel))
    return out


def write_qrels(path: PathLike, qrels: Iterable[Qrel]) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        for q in qrels:
            fh.write(f"{q.topic} 0 {q.docid} {int(q.rel)}\n")


# --------------------------------------------------------------------------------- sensitivity
def read_sensitivity(path: PathLike, check_docid=None) -> list[SensJudgment]:
    """Read sensitivity judgments.

    Two layouts, detected by the column count of the first line (all lines must agree):
    ``persona docid level`` (3 columns, topic-independent) and ``topic persona docid level``
    (4 columns, per topic). Levels are integers from -1 to 9: 0 = not sensitive, 1 to 9 =
    sensitive, -1 = "I don't know" (kept as a record; :func:`sensitivity_maps` and training leave it out).
    A persona id ``0`` or ``Q0`` in the 4-column layout is refused: that is a TREC qrels file
    (``topic 0 docid grade``) given as sensitivity judgments, which made a persona "0" judged by
    relevance grades. ``check_docid``: as for :func:`read_qrels`.
    """
    width: int | None = None
    seen: dict[tuple, tuple[int, int]] = {}
    out: list[SensJudgment] = []
    for number, fields, line in _lines(path, comments=True):
        if width is None:
            if len(fields) not in (3, 4):
                raise EvalFileError(path, number, "a sensitivity line has 3 columns (persona docid level) or 4 (topic persona docid level), "
                                    f"found {len(fields)}: {_quoted_line(line)}")
            width = len(fields)
        elif len(fields) != width:
            raise EvalFileError(path, number, f"expected {width} columns like the first line, found {len(fields)}: "
                                f"{_quoted_line(line)}")
        if width == 3:
            persona, docid, level_text = fields
            topic = None
        else:
            topic, persona, docid, level_text = fields
            if persona in ("0", "Q0"):   # (qrels: topic 0 docid grade; a run's topic Q0 docid ...)
                raise EvalFileError(path, number, f"the persona id {persona!r} in a 'topic persona docid level' line: "
                                    "this looks like a TREC qrels file (topic 0 docid grade); did you mean --qrels?")
        _checked_docid(path, number, docid, check_docid)
        level = _int(path, number, level_text, "sensitivity level")
        if not LEVELS[0] <= level <= LEVELS[1]:
            raise EvalFileError(path, number, f"sensitivity level must be 0 (not sensitive), 1 to {LEVELS[1]} "
                                f"(sensitive) or -1 (I don't know), got {_shown_text(level_text)}")
        key = (topic, persona, docid)
        if key in seen:
            if seen[key][0] != level:
                raise EvalFileError(path, number, f"document {docid} (persona {persona}) has level {seen[key][0]} on line {seen[key][1]} and {level} here")
            continue
        seen[key] = (level, number)
        out.append(SensJudgment(persona, docid, level, topic))
    return out


def write_sensitivity(path: PathLike, judgments: Iterable[SensJudgment]) -> None:
    """Write judgments; all must be topic-independent or all per-topic (one layout per file)."""
    judgments = list(judgments)
    per_topic = {j.topic is not None for j in judgments}
    if len(per_topic) > 1:
        raise JudgmentsError("cannot write topic-independent and per-topic sensitivity judgments to one file")
    with open(path, "w", encoding="utf-8") as fh:
        for j in judgments:
            prefix = f"{j.topic} " if j.topic is not None else ""
            fh.write(f"{prefix}{j.persona} {j.docid} {int(j.level)}\n")


def personas(judgments: Iterable[SensJudgment]) -> list[str]:
    """The distinct personas, sorted."""
    return sorted({j.persona for j in judgments})


# ---------------------------------------------------------------------------------------- runs
def read_run(path: PathLike) -> list[ScoredDoc]:
    """Read a TREC run (``topic Q0 docid rank score tag``), in file order.

    Use :func:`rank_run` to get each topic's ranked list. A document repeated within a topic is
    an error (trec_eval refuses such runs too).
    """
    seen: dict[tuple[str, str], int] = {}
    out: list[ScoredDoc] = []
    for number, fields, line in _lines(path):
        if len(fields) != 6:
            raise EvalFileError(path, number, f"a run line has 6 columns (topic Q0 docid rank score tag), found {len(fields)}: "
                                f"{_quoted_line(line)}")
        topic, _, docid, rank_text, score_text, tag = fields
        rank = _int(path, number, rank_text, "rank")
        score = _float(path, number, score_text, "score")
        key = (topic, docid)
        if key in seen:
            raise EvalFileError(path, number, f"document {docid} appears twice for topic {topic} (first on line {seen[key]})")
        seen[key] = number
        out.append(ScoredDoc(topic, docid, score, rank, tag))
    return out


def _float32(scores: Sequence[float]) -> list[float]:
    """``scores`` rounded to single precision (trec_eval's ``float sim``), as Python floats;
    beyond float32's range a score becomes +-inf (as C's conversion does), still ordered."""
    with np.errstate(over="ignore"):
        return np.asarray(scores, dtype=np.float64).astype(np.float32).tolist()


def _trec_order(items: Sequence[tuple[float, str]]) -> list[int]:
    """Indices of ``(score, docid)`` pairs in trec_eval's rank order: score as float32
    descending, ties (equal in float32) by docid descending."""
    s32 = _float32([score for score, _ in items])
    return sorted(range(len(items)), key=lambda i: (s32[i], items[i][1]), reverse=True)


def rank_run(docs: Iterable[ScoredDoc]) -> dict[str, list[str]]:
    """Each topic's document ids in rank order: score descending compared in float32 (as
    trec_eval stores scores), ties by docid descending (trec_eval's order; the file's rank
    column is ignored)."""
    by_topic: dict[str, list[tuple[float, str]]] = {}
    for d in docs:
        by_topic.setdefault(d.topic, []).append((d.score, d.docid))
    return {topic: [items[i][1] for i in _trec_order(items)] for topic, items in by_topic.items()}


def run_tag(docs: Sequence[ScoredDoc], fallback: str) -> str:
    """The run's tag (the tag column of its first line), or ``fallback`` for an empty run."""
    for d in docs:
        if d.tag:
            return d.tag
    return fallback


def write_run(path: PathLike, docs: Iterable[ScoredDoc], tag: str | None = None) -> None:
    """Write a TREC run, topics in sorted order and documents in trec_eval order with ranks
    1, 2, ... rewritten; ``tag`` overrides each record's tag.

    Scores may be any real numbers (numpy's too) and are written with ``repr(float(score))``,
    so :func:`read_run` reads them back exactly. What ``read_run`` would refuse is refused here
    (:class:`EvalFileError` naming the record, nothing written): a score that is not finite, a
    topic, docid or tag that is empty or contains white space, a document twice for a topic."""
    docs = list(docs)
    by_topic: dict[str, list[tuple[float, ScoredDoc]]] = {}
    seen: set[tuple[str, str]] = set()
    for i, d in enumerate(docs, start=1):
        def bad(message: str):
            return EvalFileError(path, None, f"record {i} ({_shown_text(repr(d), 80)}): {message}")
        t = tag if tag is not None else (d.tag or "run")
        for value, what in ((d.topic, "topic"), (d.docid, "docid"), (t, "tag")):
            problem = _bad_token(value, what)
            if problem:
                raise bad(problem)
        try:
            score = float(d.score)
        except (TypeError, ValueError, OverflowError):
            raise bad(f"score must be a finite number, got {_shown_text(repr(d.score))}") from None
        if not math.isfinite(score):
            raise bad(f"score must be finite, got {score!r}")
        if (d.topic, d.docid) in seen:
            raise bad(f"document {d.docid} appears twice for topic {d.topic}")
        seen.add((d.topic, d.docid))
        by_topic.setdefault(d.topic, []).append((score, d))
    lines = []
    for topic in natural_sorted(by_topic):
        pairs = by_topic[topic]
        items = [pairs[i] for i in _trec_order([(score, d.docid) for score, d in pairs])]
        for rank, (score, d) in enumerate(items, start=1):
            t = tag if tag is not None else (d.tag or "run")
            lines.append(f"{topic} Q0 {d.docid} {rank} {score!r} {t}\n")
    with open(path, "w", encoding="utf-8") as fh:
        fh.writelines(lines)


def natural_sorted(items: Iterable[str]) -> list[str]:
    """Sort ids so that '2' comes before '10' (numeric parts compared as numbers)."""
    def key(s: str):
        return [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.split(r"(\d+)", s) if p != ""]
    return sorted(items, key=key)


# --------------------------------------------------------------------------------------- LETOR
_DOCID = re.compile(r"docid\s*=\s*(\S+)")

# The largest LETOR feature id read or turned into arrays. Feature sets in use have at most a
# few hundred features (LETOR 4.0: 46, MSLR-WEB: 136, Istella: 220); a dense matrix for a
# stray id such as 10000000000000 would need terabytes, so a larger id is refused with a
# clear error instead of a MemoryError.
MAX_FEATURE_ID = 100_000
# The largest dense matrix letor_arrays makes: rows x features cells (float64: 2 GiB).
MAX_DENSE_CELLS = 2 ** 28


def read_letor(path: PathLike) -> list[LetorRow]:
    """Read a LETOR / SVMrank file: ``rel qid:q 1:v 2:v ... #docid = X``.

    Anything after ``#`` is a comment, from which ``docid = X`` is taken when present.
    Labels are integers from -9 to 99; feature ids are integers from 1 to
    :data:`MAX_FEATURE_ID` and may not repeat on a line; values are finite numbers.
    """
    out: list[LetorRow] = []
    for number, line in _raw_lines(path):
        body, hash_, comment = line.partition("#")
        fields = body.split()
        if not fields:
            continue  # blank or comment-only line
        if len(fields) < 2 or not fields[1].startswith("qid:"):
            raise EvalFileError(path, number, f"a LETOR line starts with 'rel qid:QUERY': {_quoted_line(line)}")
        rel = _int(path, number, fields[0], "relevance label", GRADES)
        qid = fields[1][4:]
        if not qid:
            raise EvalFileError(path, number, "empty qid")
        feats: dict[int, float] = {}
        for tok in fields[2:]:
            fid_text, colon, val_text = tok.partition(":")
            if not colon:
                raise EvalFileError(path, number, f"expected feature 'id:value', got {tok!r}")
            fid = _int(path, number, fid_text, "feature id")
            if fid < 1:
                raise EvalFileError(path, number, f"feature ids start at 1, got {fid}")
            if fid > MAX_FEATURE_ID:
                raise EvalFileError(path, number, f"feature id {fid} is beyond the largest supported, {MAX_FEATURE_ID}")
            if fid in feats:
                raise EvalFileError(path, number, f"feature {fid} given twice")
            feats[fid] = _float(path, number, val_text, f"feature {fid}")
        m = _DOCID.search(comment) if hash_ else None
        out.append(LetorRow(rel, qid, tuple(sorted(feats.items())), m.group(1) if m else None))
    return out


def write_letor(path: PathLike, rows: Iterable[LetorRow]) -> None:
    """Write LETOR lines; values are written with ``repr`` so they read back exactly.

    Every row must be one :func:`read_letor` reads back as an equal row, else
    :class:`EvalFileError` names the row (1-based, the line it would be) and nothing is
    written: an integer label from -9 to 99 (an integral float such as 2.0 is fine); a
    non-empty string qid without white space or '#'; feature ids increasing, from 1 to
    :data:`MAX_FEATURE_ID`, with finite values; docid None or a non-empty string without
    white space."""
    lines = []
    for i, r in enumerate(rows, start=1):
        def bad(message: str):
            return EvalFileError(path, None, f"row {i} ({_shown_text(repr(r), 80)}): {message}")
        rel = _integral(r.rel)
        if rel is None or not GRADES[0] <= rel <= GRADES[1]:
            raise bad(f"relevance label must be an integer from {GRADES[0]} to {GRADES[1]}, "
                      f"got {_shown_text(repr(r.rel))}")
        problem = _bad_token(r.qid, "qid", "#")
        if problem:
            raise bad(problem)
        if r.docid is not None:
            problem = _bad_token(r.docid, "docid")
            if problem:
                raise bad(problem)
        feats = []
        last = 0
        for pair in r.features:
            try:
                fid, v = pair
            except (TypeError, ValueError):
                raise bad(f"a feature is a (feature id, value) pair, got {_shown_text(repr(pair))}") from None
            fid_int = _integral(fid)
            if fid_int is None or not 1 <= fid_int <= MAX_FEATURE_ID:
                raise bad(f"feature ids are integers from 1 to {MAX_FEATURE_ID}, got {_shown_text(repr(fid))}")
            if fid_int <= last:
                raise bad(f"feature ids must increase along a row (read_letor sorts them), got {fid_int} after {last}")
            last = fid_int
            try:
                value = float(v)
            except (TypeError, ValueError, OverflowError):
                raise bad(f"feature {fid_int} must be a finite number, got {_shown_text(repr(v))}") from None
            if not math.isfinite(value):
                raise bad(f"feature {fid_int} must be finite, got {value!r}")
            if isinstance(v, (int, np.integer)) and int(value) != v:   # beyond 2**53: read back as another number
                raise bad(f"feature {fid_int} is {_shown_text(repr(v))}, which has no exact double-precision form "
                          f"(read back it would be {value!r}); give it as a float")
            feats.append(f"{fid_int}:{value!r}")
        line = f"{rel} qid:{r.qid}" + (" " + " ".join(feats) if feats else "")
        if r.docid is not None:
            line += f" #docid = {r.docid}"
        lines.append(line + "\n")
    with open(path, "w", encoding="utf-8") as fh:
        fh.writelines(lines)


def _integral(value) -> int | None:
    """``value`` as an int when it is an integer (int, numpy integer, or a float with no
    fraction); None otherwise (bool is not a number here)."""
    if isinstance(value, (bool, np.bool_)):
        return None
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)) and math.isfinite(value) and float(value).is_integer():
        return int(value)
    return None


def letor_arrays(rows: Sequence[LetorRow], n_features: int | None = None):
    """Dense arrays for learning to rank: ``(X [N, F] float64, y [N] int64, qids, docids)``.

    Missing features are 0. ``n_features`` defaults to the largest feature id seen; it may be
    at most :data:`MAX_FEATURE_ID`, and N x F at most :data:`MAX_DENSE_CELLS` (else an
    :class:`~sasc_desktop.engine.errors.InputError` says why, rather than a MemoryError).
    """
    rows = list(rows)
    if n_features is None:
        n_features = max((max(fid for fid, _ in r.features) for r in rows if r.features), default=0)
    elif isinstance(n_features, bool) or not isinstance(n_features, (int, np.integer)) or n_features < 0:
        raise InputError(f"n_features must be an integer >= 0, got {n_features!r}")
    n_features = int(n_features)
    if n_features > MAX_FEATURE_ID:
        raise InputError(f"feature id {n_features} is beyond the largest supported, {MAX_FEATURE_ID}: a dense "
                         f"matrix that wide is not made")
    if len(rows) * n_features > MAX_DENSE_CELLS:
        raise InputError(f"{len(rows)} rows x {n_features} features is more than {MAX_DENSE_CELLS} cells "
                         f"({MAX_DENSE_CELLS * 8 // 2 ** 30} GiB): too large for a dense matrix")
    X = np.zeros((len(rows), n_features), dtype=np.float64)
    y = np.zeros(len(rows), dtype=np.int64)
    for i, r in enumerate(rows):
        y[i] = r.rel
        for fid, v in r.features:
            if fid > n_features:
                raise JudgmentsError(f"feature {fid} is beyond n_features={n_features}")
            if fid < 1:
                raise JudgmentsError(f"feature ids start at 1, got {fid}")
            X[i, fid - 1] = v
    return X, y, [r.qid for r in rows], [r.docid for r in rows]


# ------------------------------------------------------------------------------ plain mappings
def qrels_map(qrels: Iterable[Qrel]) -> dict[str, dict[str, int]]:
    """topic -> {docid: rel}."""
    out: dict[str, dict[str, int]] = {}
    for q in qrels:
        out.setdefault(q.topic, {})[q.docid] = q.rel
    return out


def sensitivity_maps(judgments: Iterable[SensJudgment], persona: str | None = None
                     ) -> tuple[dict[str, int], dict[str, dict[str, int]]]:
    """Split one persona's judgments into (docid -> level, topic -> {docid: level}).
    "I don't know" judgments (level < 0) are left out: such a document counts as unjudged.

    With ``persona=None`` the judgments must name exactly one persona (or none); otherwise a
    :class:`JudgmentsError` lists the personas to choose from.
    """
    judgments = list(judgments)
    names = personas(judgments)
    if persona is None:
        if len(names) > 1:
            raise JudgmentsError("the sensitivity judgments cover several personas; choose one of: " + ", ".join(names))
        persona = names[0] if names else None
    elif persona not in names:
        raise JudgmentsError(f"no sensitivity judgments for persona {persona!r}; personas present: "
                             + (", ".join(names) if names else "(none)"))
    general: dict[str, int] = {}
    per_topic: dict[str, dict[str, int]] = {}
    for j in judgments:
        if j.persona != persona or j.level < 0:   # -1, "I don't know": as if unjudged
            continue
        if j.topic is None:
            general[j.docid] = j.level
        else:
            per_topic.setdefault(j.topic, {})[j.docid] = j.level
    return general, per_topic


__all__ = [
    "read_qrels", "write_qrels", "read_sensitivity", "write_sensitivity", "personas",
    "read_run", "rank_run", "run_tag", "write_run", "natural_sorted",
    "read_letor", "write_letor", "letor_arrays", "qrels_map", "sensitivity_maps",
    "MAX_FEATURE_ID", "MAX_DENSE_CELLS",
]
