from __future__ import annotations

import numpy as np
import pytest

from sasc_desktop.engine.errors import InputError
from sasc_desktop.engine.evaluate import (EvalFileError, JudgmentsError, Judgments, LetorRow, Qrel, ScoredDoc,
                                          SensJudgment, letor_arrays, rank_run, read_letor, read_qrels, read_run,
                                          read_sensitivity, run_tag, sensitivity_maps, write_letor, write_qrels,
                                          write_run, write_sensitivity)


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_qrels_read_write(tmp_path):
    p = write(tmp_path, "q.txt", "1 0 d1 2\n\n1 0 d2 0\n10 0 d1 1\n1 0 d1 2\n")
    q = read_qrels(p)
    assert q == [Qrel("1", "d1", 2), Qrel("1", "d2", 0), Qrel("10", "d1", 1)]
    out = tmp_path / "out.txt"
    write_qrels(out, q)
    assert read_qrels(out) == q


@pytest.mark.parametrize("text, line, fragment", [
    ("1 0 d1 2\n1 0 d2\n", 2, "4 columns"),
    ("1 0 d1 x\n", 1, "must be an integer"),
    ("1 0 d1 2\n1 0 d1 1\n", 2, "judged 2 on line 1"),
])
def test_qrels_errors_name_file_and_line(tmp_path, text, line, fragment):
    p = write(tmp_path, "bad.qrels", text)
    with pytest.raises(EvalFileError) as info:
        read_qrels(p)
    assert isinstance(info.value, InputError)
    assert info.value.line == line and f"bad.qrels:{line}:" in str(info.value) and fragment in str(info.value)


def test_bom_and_comment_lines(tmp_path):
    p = tmp_path / "c.qrels"
    p.write_bytes(b"\xef\xbb\xbf# topic iter doc rel\n1 0 d1 2\n  # 1 0 d2 1\n")
    assert read_qrels(p) == [Qrel("1", "d1", 2)]
    p.write_bytes(b"\xef\xbb\xbfalice d1 1\n# alice d2 x\n")
    assert read_sensitivity(p) == [SensJudgment("alice", "d1", 1)]


def test_non_utf8_names_line_and_file_offset(tmp_path):
    p = tmp_path / "bad.qrels"
    p.write_bytes(b"\xef\xbb\xbf1 0 d1 1\n" + b"1 0 d2 1\n" * 1000 + b"1 0 d\xff 1\n")
    with pytest.raises(EvalFileError) as info:
        read_qrels(p)
    assert info.value.line == 1002
    assert str(info.value) == f"{p}:1002: not UTF-8 text (invalid start byte at byte {3 + 9 * 1001 + 5} of the file)"


def test_missing_file(tmp_path):
    with pytest.raises(EvalFileError, match="no such file"):
        read_qrels(tmp_path / "nope")


def test_sensitivity_two_layouts(tmp_path):
    a = read_sensitivity(write(tmp_path, "a", "alice d1 1\nalice d2 0\nbob d1 2\n"))
    assert a == [SensJudgment("alice", "d1", 1), SensJudgment("alice", "d2", 0), SensJudgment("bob", "d1", 2)]
    b = read_sensitivity(write(tmp_path, "b", "7 alice d1 2\n"))
    assert b == [SensJudgment("alice", "d1", 2, "7")]
    for recs, name in ((a, "a2"), (b, "b2")):
        write_sensitivity(tmp_path / name, recs)
        assert read_sensitivity(tmp_path / name) == recs
    with pytest.raises(JudgmentsError):
        write_sensitivity(tmp_path / "mixed", a + b)
    with pytest.raises(EvalFileError, match=r":2: expected 3 columns"):
        read_sensitivity(write(tmp_path, "c", "alice d1 1\n7 alice d1 1\n"))
    with pytest.raises(EvalFileError, match=r":1: sensitivity level must be 0 .* or -1 \(I don't know\), got -2"):
        read_sensitivity(write(tmp_path, "d", "alice d1 -2\n"))
    # -1 is "I don't know": read and written back, but left out of the evaluation maps
    dk = read_sensitivity(write(tmp_path, "dk", "alice d1 -1\nalice d2 1\n"))
    assert dk == [SensJudgment("alice", "d1", -1), SensJudgment("alice", "d2", 1)]
    write_sensitivity(tmp_path / "dk2", dk)
    assert read_sensitivity(tmp_path / "dk2") == dk
    assert sensitivity_maps(dk) == ({"d2": 1}, {})
    with pytest.raises(EvalFileError, match=r":1: a sensitivity line has 3 columns"):
        read_sensitivity(write(tmp_path, "e", "alice d1\n"))


def test_persona_selection():
    recs = [SensJudgment("alice", "d1", 1), SensJudgment("bob", "d2", 1), SensJudgment("bob", "d3", 2, "5")]
    with pytest.raises(JudgmentsError, match="alice, bob"):
        sensitivity_maps(recs)
    assert sensitivity_maps(recs, "bob") == ({"d2": 1}, {"5": {"d3": 2}})
    with pytest.raises(JudgmentsError, match="personas present: alice, bob"):
        sensitivity_maps(recs, "carol")


def test_run_ordering_follows_trec_eval(tmp_path):
    # the rank column is ignored; ties in score are broken by docid descending
    p = write(tmp_path, "r.txt", "1 Q0 a 1 1.0 tagX\n1 Q0 c 2 2.0 tagX\n1 Q0 b 3 1.0 tagX\n1 Q0 d 4 1.0 tagX\n"
                                 "2 Q0 z 1 -1 tagX\n")
    docs = read_run(p)
    assert docs[0] == ScoredDoc("1", "a", 1.0, 1, "tagX")
    assert rank_run(docs) == {"1": ["c", "d", "b", "a"], "2": ["z"]}
    assert run_tag(docs, "stem") == "tagX" and run_tag([], "stem") == "stem"
    out = tmp_path / "w.txt"
    write_run(out, docs)
    again = read_run(out)
    assert rank_run(again) == rank_run(docs)
    assert [d.rank for d in again if d.topic == "1"] == [1, 2, 3, 4]


@pytest.mark.parametrize("text, fragment", [
    ("1 Q0 a 1 1.0\n", "6 columns"),
    ("1 Q0 a 1 high tag\n", "score must be a number"),
    ("1 Q0 a 1 inf tag\n", "finite"),
    ("1 Q0 a one 1.0 tag\n", "rank must be an integer"),
])
def test_run_errors(tmp_path, text, fragment):
    with pytest.raises(EvalFileError, match=r"r\.txt:1: .*" + fragment):
        read_run(write(tmp_path, "r.txt", text))


def test_run_duplicate_document(tmp_path):
    with pytest.raises(EvalFileError, match=r"r\.txt:2: document a appears twice for topic 1 \(first on line 1\)"):
        read_run(write(tmp_path, "r.txt", "1 Q0 a 1 1.0 t\n1 Q0 a 2 0.5 t\n"))


def test_letor_read_write_arrays(tmp_path):
    p = write(tmp_path, "l.txt", "2 qid:10 1:0.5 3:-1.25 #docid = GX001 inc = 1\n0 qid:10 2:3 #docid = GX002\n"
                                 "# comment only\n1 qid:11 1:1e-3\n")
    rows = read_letor(p)
    assert rows == [LetorRow(2, "10", ((1, 0.5), (3, -1.25)), "GX001"), LetorRow(0, "10", ((2, 3.0),), "GX002"),
                    LetorRow(1, "11", ((1, 0.001),), None)]
    out = tmp_path / "o.txt"
    write_letor(out, rows)
    assert read_letor(out) == rows
    X, y, qids, docids = letor_arrays(rows)
    np.testing.assert_array_equal(X, [[0.5, 0, -1.25], [0, 3, 0], [0.001, 0, 0]])
    assert y.tolist() == [2, 0, 1] and qids == ["10", "10", "11"] and docids == ["GX001", "GX002", None]


@pytest.mark.parametrize("text, fragment", [
    ("2 1:0.5\n", "qid"),
    ("2 qid:1 1=0.5\n", "id:value"),
    ("2 qid:1 0:0.5\n", "start at 1"),
    ("2 qid:1 1:0.5 1:0.7\n", "given twice"),
    ("x qid:1 1:0.5\n", "relevance label must be an integer"),
    ("2 qid:1 1:abc\n", "feature 1 must be a number"),
])
def test_letor_errors(tmp_path, text, fragment):
    with pytest.raises(EvalFileError, match=r"l\.txt:1: .*" + fragment):
        read_letor(write(tmp_path, "l.txt", text))


def test_judgments_pool_rules():
    j = Judgments(qrels={"1": {"a": 2, "b": 0, "c": -1}, "2": {"x": 1}},
                  sensitivity={"a": 1, "zz": 2},
                  topic_sensitivity={"1": {"b": 2, "s": 1}, "3": {"y": 1}})
    assert j.topics == ("1", "2", "3")
    docs, rel, sens = j.pool("1")
    assert docs == ["a", "b", "c", "s"] and rel.tolist() == [2, 0, -1, 0] and sens.tolist() == [1, 2, 0, 1]
    assert j.level("2", "zz") == (0, 2)       # topic-independent level applies in runs, outside pools
    counts = j.pool_counts()
    assert counts.shape == (3, 3, 3)
    assert counts[0].tolist() == [[1, 1, 1], [0, 0, 0], [0, 1, 0]]     # c (grade -1 -> 0), s, b ; a
    assert counts[1].sum() == 1 and counts[2].sum() == 1
    R, S, L = j.ranked_levels({"1": ["a", "zz", "q"], "3": []}, 2)
    assert R.tolist() == [[2, 0], [0, 0], [0, 0]] and S.tolist() == [[1, 2], [0, 0], [0, 0]] and L.tolist() == [2, 0, 0]
