"""Numbers in qrels, sensitivity, run and LETOR files are ASCII, as C's strtol / atof read them.
Python's int() and float() also took '_' separators ('1_0' read as 10) and any Unicode digit
('２' read as 2), silently; such a field is now a file error naming the file and line. What TREC
files really hold ('+1', '-2', '1.5e-3', '.5', '1.', '1E5') is still read."""
from __future__ import annotations

import pytest

from sasc_desktop.engine.evaluate import EvalFileError, read_letor, read_qrels, read_run, read_sensitivity
from sasc_desktop.engine.evaluate.records import LetorRow, Qrel, ScoredDoc, SensJudgment

SEP = " ('_' is not a digit separator here)"
ASCII = " (only ASCII digits 0-9 are read)"


def _file(tmp_path, text):
    p = tmp_path / "f.txt"
    p.write_text(text, encoding="utf-8")
    return p


@pytest.mark.parametrize("reader, text, message", [
    (read_qrels, "1 0 a 1\n1 0 b 1_0\n", "2: relevance must be an integer, got '1_0'" + SEP),
    (read_qrels, "1 0 b \uff12\n", "1: relevance must be an integer, got '\uff12'" + ASCII),       # fullwidth 2
    (read_qrels, "1 0 b \u0663\n", "1: relevance must be an integer, got '\u0663'" + ASCII),       # Arabic-Indic 3
    (read_sensitivity, "p a 0_1\n", "1: sensitivity level must be an integer, got '0_1'" + SEP),
    (read_sensitivity, "1 p a \uff11\n", "1: sensitivity level must be an integer, got '\uff11'" + ASCII),
    (read_run, "1 Q0 a 1_0 1.0 r\n", "1: rank must be an integer, got '1_0'" + SEP),
    (read_run, "1 Q0 a 1 1_000.5 r\n", "1: score must be a number, got '1_000.5'" + SEP),
    (read_run, "1 Q0 a 1 \uff11.5 r\n", "1: score must be a number, got '\uff11.5'" + ASCII),
    (read_run, "1 Q0 a 1 1e-3_0 r\n", "1: score must be a number, got '1e-3_0'" + SEP),
    (read_run, "1 Q0 a 1 0x10 r\n", "1: score must be a number, got '0x10'"),
    (read_letor, "1_0 qid:1 1:0.5\n", "1: relevance label must be an integer, got '1_0'" + SEP),
    (read_letor, "1 qid:1 1_0:0.5\n", "1: feature id must be an integer, got '1_0'" + SEP),
    (read_letor, "1 qid:1 1:0.5_5\n", "1: feature 1 must be a number, got '0.5_5'" + SEP),
    (read_letor, "1 qid:1 \uff11:0.5\n", "1: feature id must be an integer, got '\uff11'" + ASCII),
    (read_run, "1 Q0 a 1 inf r\n", "1: score must be finite, got 'inf'"),
])
def test_non_ascii_numbers_are_file_errors(tmp_path, reader, text, message):
    p = _file(tmp_path, text)
    with pytest.raises(EvalFileError) as err:
        reader(p)
    assert str(err.value) == f"{p}:{message}"


def test_numbers_trec_files_hold_are_read(tmp_path):
    scores = ["+1", "-2", "1.5e-3", ".5", "1.", "1E5", "+.5e+7", "-0", "007"]
    text = "".join(f"1 Q0 d{i} +{i + 1} {s} r\n" for i, s in enumerate(scores))
    assert read_run(_file(tmp_path, text)) == [
        ScoredDoc("1", f"d{i}", float(s), i + 1, "r") for i, s in enumerate(scores)]
    assert [d.score for d in read_run(_file(tmp_path, text))] == [1.0, -2.0, 0.0015, 0.5, 1.0, 1e5, 5e6, 0.0, 7.0]
    assert read_qrels(_file(tmp_path, "1 0 a +1\n1 0 b -2\n1 0 c 02\n")) == [
        Qrel("1", "a", 1), Qrel("1", "b", -2), Qrel("1", "c", 2)]
    assert read_sensitivity(_file(tmp_path, "p a +1\np b -1\n")) == [SensJudgment("p", "a", 1), SensJudgment("p", "b", -1)]
    assert read_letor(_file(tmp_path, "+2 qid:1 1:-.5 2:3e2 3:+1.\n")) == [
        LetorRow(2, "1", ((1, -0.5), (2, 300.0), (3, 1.0)), None)]
