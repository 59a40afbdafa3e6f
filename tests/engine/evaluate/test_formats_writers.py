"""Writers write only what their readers read back the same (numpy scores in runs; LETOR rows),
LETOR feature ids are bounded (no MemoryError), and column-count errors quote the line."""
from __future__ import annotations

import math
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from sasc_desktop.engine.errors import InputError
from sasc_desktop.engine.evaluate import (EvalFileError, LetorRow, ScoredDoc, letor_arrays, rank_run, read_letor,
                                          read_qrels, read_run, read_sensitivity, write_letor, write_run)
from sasc_desktop.engine.evaluate.formats import MAX_DENSE_CELLS, MAX_FEATURE_ID


def _short(record) -> str:
    """How an error message shows a record: its repr, cut at 80 characters with '...'."""
    text = repr(record)
    return text if len(text) <= 80 else text[:80] + "..."


def _file(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


# ------------------------------------------------------------- column counts quote the line
@pytest.mark.parametrize("reader, text, message", [
    (read_qrels, "1 0 d1 2\n1 0 d2\n", "2: a qrels line has 4 columns (topic 0 docid rel), found 3: '1 0 d2'"),
    (read_qrels, "1\t0\td1 2 x\r\n", "1: a qrels line has 4 columns (topic 0 docid rel), found 5: '1\\t0\\td1 2 x'"),
    (read_sensitivity, "p d1\n", "1: a sensitivity line has 3 columns (persona docid level) or 4 (topic persona "
                                 "docid level), found 2: 'p d1'"),
    (read_sensitivity, "p d1 1\nt p d2 1\n", "2: expected 3 columns like the first line, found 4: 't p d2 1'"),
    (read_run, "1 Q0 a 1 1.0\n", "1: a run line has 6 columns (topic Q0 docid rank score tag), found 5: '1 Q0 a 1 1.0'"),
    (read_run, "1 Q0 " + "x" * 100 + " 1 1.0\n",
     "1: a run line has 6 columns (topic Q0 docid rank score tag), found 5: '1 Q0 " + "x" * 75 + "'..."),
    (read_letor, "1 1:0.5\n", "1: a LETOR line starts with 'rel qid:QUERY': '1 1:0.5'"),
])
def test_column_count_errors_quote_the_line(tmp_path, reader, text, message):
    p = _file(tmp_path, "f.txt", text)
    with pytest.raises(EvalFileError) as err:
        reader(p)
    assert str(err.value) == f"{p}:{message}"


# ------------------------------------------------------------------------------ runs
def test_write_run_writes_numpy_scores_so_read_run_reads_them(tmp_path):
    """`{d.score!r}` wrote np.float64(1.5), which read_run refused."""
    docs = [ScoredDoc("1", "a", np.float64(1.5), 0, "t"), ScoredDoc("1", "b", np.float32(0.25), 0, "t"),
            ScoredDoc("1", "c", np.int64(3), 0, "t"), ScoredDoc("2", "a", np.float64(-0.1), 0, "t")]
    p = tmp_path / "r.run"
    write_run(p, docs)
    assert p.read_text() == "1 Q0 c 1 3.0 t\n1 Q0 a 2 1.5 t\n1 Q0 b 3 0.25 t\n2 Q0 a 1 -0.1 t\n"
    back = read_run(p)
    assert [(d.topic, d.docid, d.score, d.rank, d.tag) for d in back] == [
        ("1", "c", 3.0, 1, "t"), ("1", "a", 1.5, 2, "t"), ("1", "b", 0.25, 3, "t"), ("2", "a", -0.1, 1, "t")]
    assert all(type(d.score) is float for d in back)


@pytest.mark.parametrize("doc, message", [
    (ScoredDoc("1", "a", float("nan")), "score must be finite, got nan"),
    (ScoredDoc("1", "a", np.float64("inf")), "score must be finite, got inf"),
    (ScoredDoc("1", "a", 10 ** 400), "score must be a finite number, got 1000000000000000000000000000000000000000..."),
    (ScoredDoc("1", "my doc", 1.0), "docid 'my doc' contains white space (a field ends at white space)"),
    (ScoredDoc("1", "", 1.0), "docid is empty"),
    (ScoredDoc("1 2", "a", 1.0), "topic '1 2' contains white space (a field ends at white space)"),
    (ScoredDoc("1", "a", 1.0, 0, "my run"), "tag 'my run' contains white space (a field ends at white space)"),
    (ScoredDoc(1, "a", 1.0), "topic must be a string, got int 1"),
])
def test_write_run_refuses_what_read_run_would(tmp_path, doc, message):
    p = _file(tmp_path, "r.run", "untouched\n")
    with pytest.raises(EvalFileError) as err:
        write_run(p, [ScoredDoc("1", "z", 2.0), doc])
    assert str(err.value) == f"{p}: record 2 ({_short(doc)}): {message}"
    assert p.read_text() == "untouched\n"


def test_write_run_refuses_a_document_twice_for_a_topic(tmp_path):
    p = tmp_path / "r.run"
    with pytest.raises(EvalFileError, match=r"record 2 .*: document a appears twice for topic 1$"):
        write_run(p, [ScoredDoc("1", "a", 2.0), ScoredDoc("1", "a", 1.0)])
    assert not p.exists()


TOKEN = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=8)
SCORE = st.one_of(st.floats(allow_nan=False, allow_infinity=False),
                  st.floats(allow_nan=False, allow_infinity=False).map(np.float64),
                  st.floats(allow_nan=False, allow_infinity=False, width=32).map(np.float32),
                  st.integers(-10 ** 6, 10 ** 6).map(np.int64))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(["1", "2", "10"]), TOKEN, SCORE), max_size=12))
def test_write_run_round_trip(items):
    """Whatever write_run accepts, read_run gives back: the same scores (as floats) and the same
    ranking (rank_run) as the records."""
    docs = [ScoredDoc(t, d, s, 0, "tag") for t, d, s in items]
    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp) / "r.run"
        try:
            write_run(p, docs)
        except EvalFileError:
            assert not p.exists()
            assume(False)
        back = read_run(p)
    assert sorted((d.topic, d.docid, d.score) for d in back) == sorted((d.topic, d.docid, float(d.score)) for d in docs)
    assert rank_run(back) == rank_run([ScoredDoc(d.topic, d.docid, float(d.score)) for d in docs])


# ----------------------------------------------------------------------------- LETOR
@pytest.mark.parametrize("row, message", [
    (LetorRow(1, "q#1", ((1, 0.5),)), "qid 'q#1' contains '#'"),
    (LetorRow(1, "q 1", ((1, 0.5),)), "qid 'q 1' contains white space (a field ends at white space)"),
    (LetorRow(1, "", ((1, 0.5),)), "qid is empty"),
    (LetorRow(1, 7, ((1, 0.5),)), "qid must be a string, got int 7"),
    (LetorRow(1, "q", ((1, 0.5),), "my doc"), "docid 'my doc' contains white space (a field ends at white space)"),
    (LetorRow(1, "q", ((1, 0.5),), ""), "docid is empty"),
    (LetorRow(1.7, "q", ((1, 0.5),)), "relevance label must be an integer from -9 to 99, got 1.7"),
    (LetorRow(100, "q", ((1, 0.5),)), "relevance label must be an integer from -9 to 99, got 100"),
    (LetorRow(True, "q", ((1, 0.5),)), "relevance label must be an integer from -9 to 99, got True"),
    (LetorRow(1, "q", ((1, float("nan")),)), "feature 1 must be finite, got nan"),
    (LetorRow(1, "q", ((1, float("inf")),)), "feature 1 must be finite, got inf"),
    (LetorRow(1, "q", ((0, 0.5),)), f"feature ids are integers from 1 to {MAX_FEATURE_ID}, got 0"),
    (LetorRow(1, "q", ((10 ** 13, 1.0),)), f"feature ids are integers from 1 to {MAX_FEATURE_ID}, got 10000000000000"),
    (LetorRow(1, "q", ((2, 0.5), (1, 0.5))), "feature ids must increase along a row (read_letor sorts them), got 1 after 2"),
    (LetorRow(1, "q", ((1, 0.5), (1, 0.7))), "feature ids must increase along a row (read_letor sorts them), got 1 after 1"),
    (LetorRow(1, "q", ((1, "x"),)), "feature 1 must be a finite number, got 'x'"),
])
def test_write_letor_refuses_rows_that_would_not_read_back(tmp_path, row, message):
    p = _file(tmp_path, "l.txt", "untouched\n")
    with pytest.raises(EvalFileError) as err:
        write_letor(p, [LetorRow(0, "q", ((1, 1.0),)), row])
    assert str(err.value) == f"{p}: row 2 ({_short(row)}): {message}"
    assert p.read_text() == "untouched\n"


def test_write_letor_takes_numpy_numbers_and_integral_labels(tmp_path):
    rows = [LetorRow(np.int64(2), "q1", ((np.int64(1), np.float32(0.5)), (3, np.float64(-2.25))), "d1"),
            LetorRow(1.0, "q1", (), None)]
    p = tmp_path / "l.txt"
    write_letor(p, rows)
    assert p.read_text() == "2 qid:q1 1:0.5 3:-2.25 #docid = d1\n1 qid:q1\n"
    assert read_letor(p) == [LetorRow(2, "q1", ((1, 0.5), (3, -2.25)), "d1"), LetorRow(1, "q1", (), None)]


def test_read_letor_and_letor_arrays_bound_feature_ids(tmp_path):
    """`2 qid:1 10000000000000:1` was read, and letor_arrays then raised MemoryError."""
    p = _file(tmp_path, "l.txt", "2 qid:1 1:0.5\n2 qid:1 10000000000000:1\n")
    with pytest.raises(EvalFileError) as err:
        read_letor(p)
    assert str(err.value) == f"{p}:2: feature id 10000000000000 is beyond the largest supported, {MAX_FEATURE_ID}"
    with pytest.raises(InputError) as err:
        letor_arrays([LetorRow(2, "1", ((10 ** 13, 1.0),))])
    assert str(err.value) == (f"feature id 10000000000000 is beyond the largest supported, {MAX_FEATURE_ID}: "
                              "a dense matrix that wide is not made")
    with pytest.raises(InputError) as err:
        letor_arrays([LetorRow(2, "1", ((1, 1.0),))], n_features=-1)
    assert str(err.value) == "n_features must be an integer >= 0, got -1"
    rows = [LetorRow(0, "1", ((MAX_FEATURE_ID, 1.0),))] * (MAX_DENSE_CELLS // MAX_FEATURE_ID + 1)
    with pytest.raises(InputError) as err:
        letor_arrays(rows)
    assert str(err.value) == (f"{len(rows)} rows x {MAX_FEATURE_ID} features is more than {MAX_DENSE_CELLS} cells "
                              f"(2 GiB): too large for a dense matrix")
    # the largest id is read, and made into arrays
    p = _file(tmp_path, "ok.txt", f"1 qid:a 2:0.5 {MAX_FEATURE_ID}:-1.5 #docid = d\n")
    X, y, qids, docids = letor_arrays(read_letor(p))
    assert X.shape == (1, MAX_FEATURE_ID) and X[0, 1] == 0.5 and X[0, -1] == -1.5 and X.sum() == -1.0
    assert (y.tolist(), qids, docids) == ([1], ["a"], ["d"])


def test_letor_arrays_refuses_feature_id_0_instead_of_filling_the_last_column():
    from sasc_desktop.engine.evaluate import JudgmentsError
    with pytest.raises(JudgmentsError, match=r"^feature ids start at 1, got 0$"):
        letor_arrays([LetorRow(0, "1", ((0, 1.0), (3, 2.0)))])


def test_write_letor_refuses_an_integer_value_with_no_exact_float(tmp_path):
    """2**53 + 1 is read back as 2**53 (double precision): refused, not written as another number;
    2**53 itself and the same value given as a float are written and read back equal."""
    p = tmp_path / "l.txt"
    with pytest.raises(EvalFileError, match=r"feature 1 is 9007199254740993, which has no exact double-precision "
                                            r"form \(read back it would be 9007199254740992\.0\); give it as a float"):
        write_letor(p, [LetorRow(1, "q", ((1, 2 ** 53 + 1),))])
    assert not p.exists()
    for v in (2 ** 53, np.int64(2 ** 53), float(2 ** 53 + 1)):
        write_letor(p, [LetorRow(1, "q", ((1, v),))])
        assert read_letor(p)[0].features == ((1, 9007199254740992.0),)


ANY_TEXT = st.text(st.characters(blacklist_categories=()), max_size=6)
ANY_NUMBER = st.one_of(st.integers(-12, 120), st.floats(), st.integers(-10 ** 20, 10 ** 20),
                       st.sampled_from([np.int64(3), np.float64(2.0), np.float32(0.1), True]))
ANY_FID = st.one_of(st.integers(-2, 8), st.sampled_from([MAX_FEATURE_ID, MAX_FEATURE_ID + 1, 2.0, 1.5]))
ANY_ROW = st.builds(LetorRow, ANY_NUMBER, ANY_TEXT,
                    st.lists(st.tuples(ANY_FID, ANY_NUMBER), max_size=4).map(tuple),
                    st.one_of(st.none(), ANY_TEXT))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(ANY_ROW, max_size=4))
def test_whatever_write_letor_accepts_read_letor_returns_identically(rows):
    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp) / "l.txt"
        try:
            write_letor(p, rows)
        except EvalFileError:
            assert not p.exists()        # nothing written
            return
        back = read_letor(p)
    assert back == rows
    for got, row in zip(back, rows):     # equal and of the reader's types
        assert type(got.rel) is int and got.rel == row.rel
        assert all(type(f) is int and type(v) is float and (v == row_v or math.isnan(v)) for (f, v), (_, row_v)
                   in zip(got.features, row.features))


VALID_ROW = st.builds(
    LetorRow, st.integers(-9, 99),
    st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=6).filter(
        lambda q: "#" not in q and not any(ch.isspace() for ch in q)),
    st.lists(st.tuples(st.integers(1, MAX_FEATURE_ID), st.floats(allow_nan=False, allow_infinity=False)),
             max_size=5, unique_by=lambda fv: fv[0]).map(lambda fs: tuple(sorted(fs))),
    st.one_of(st.none(), st.text(st.characters(blacklist_categories=("Cs",)), min_size=1,
                                 max_size=6).filter(lambda d: not any(ch.isspace() for ch in d))))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(VALID_ROW, max_size=5))
def test_every_row_read_letor_can_return_is_written_and_read_back(rows):
    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp) / "l.txt"
        write_letor(p, rows)
        assert read_letor(p) == rows
