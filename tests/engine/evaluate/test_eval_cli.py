from __future__ import annotations

import json
import math

import pytest

from sasc_desktop.cli import main

L3 = math.log2(3)


@pytest.fixture
def files(tmp_path):
    (tmp_path / "q.txt").write_text("1 0 d1 2\n1 0 d2 1\n1 0 d3 0\n2 0 e1 1\n2 0 e2 0\n3 0 f1 0\n")
    (tmp_path / "s.txt").write_text("alice d3 1\nalice e2 1\n")
    (tmp_path / "s2.txt").write_text("alice d3 1\nbob d1 1\n")
    (tmp_path / "a.run").write_text("1 Q0 d1 1 2.0 good\n1 Q0 d3 2 1.0 good\n2 Q0 e1 1 1.0 good\n9 Q0 x 1 1 good\n")
    (tmp_path / "b.run").write_text("1 Q0 d3 1 2.0 bad\n2 Q0 e2 1 1.0 bad\n")
    return tmp_path


def test_json_output(files, capsys):
    rc = main(["evaluate", "--qrels", str(files / "q.txt"), "--sensitivity", str(files / "s.txt"),
               "--run", str(files / "a.run"), "--run", str(files / "b.run"),
               "--measure", "TERN@2(M=1)", "--measure", "ncs-dcg_f@2(cost=2)", "--json"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"runs", "tests"}
    assert list(out["runs"]) == ["good", "bad"]
    tern = out["runs"]["good"]["TERN@2(M=1)"]
    assert tern == {"mean": pytest.approx(0.0), "per_topic": {"1": -1.0, "2": 1.0, "3": 0.0}, "undefined_topics": 0}
    f = out["runs"]["bad"]["nCS-DCG_f@2(cost=2)"]
    # topic 1 pool: d1 g3, d2 g1, d3 sensitive. best (d1, d2) = 3 + 1/L3, worst (d3) = -2 ; bad shows (d3)
    # topic 2 pool: e1 g1, e2 sensitive: best 1, worst -2 ; bad shows (e2) -> 0 ; topic 3 undefined
    assert f["per_topic"]["1"] == pytest.approx(0.0, abs=1e-12)
    assert f["per_topic"]["2"] == pytest.approx(0.0, abs=1e-12)
    assert f["per_topic"]["3"] is None and f["undefined_topics"] == 1
    assert f["mean"] == pytest.approx(0.0, abs=1e-12)
    good1 = out["runs"]["good"]["nCS-DCG_f@2(cost=2)"]["per_topic"]["1"]
    # good shows (d1, d3): 3 + 0 - 2 = 1  ->  (1 - -2) / (3 + 1/L3 - -2)
    assert good1 == pytest.approx((1 + 2) / (3 + 1 / L3 + 2), rel=1e-12)
    assert [(t["a"], t["b"], t["measure"]) for t in out["tests"]] == [("good", "bad", "TERN@2(M=1)"),
                                                                     ("good", "bad", "nCS-DCG_f@2(cost=2)")]
    for t in out["tests"]:
        assert set(t) == {"a", "b", "measure", "n", "t_p", "wilcoxon_p", "sign_p"}
        assert all(0.0 <= t[p] <= 1.0 for p in ("t_p", "wilcoxon_p", "sign_p"))
    assert [t["n"] for t in out["tests"]] == [3, 2]   # (nCS-DCG_f is undefined on topic 3)


def test_table_output_marks_significance(tmp_path, capsys):
    qrels = "".join(f"{t} 0 r{t} 1\n{t} 0 n{t} 0\n" for t in range(1, 9))
    (tmp_path / "q").write_text(qrels)
    (tmp_path / "good.run").write_text("".join(f"{t} Q0 r{t} 1 1.0 goodtag\n" for t in range(1, 9)))
    (tmp_path / "poor.run").write_text("".join(f"{t} Q0 n{t} 1 1.0 p\n" for t in range(1, 9)))
    rc = main(["evaluate", "--qrels", str(tmp_path / "q"), "--run", str(tmp_path / "good.run"),
               "--run", str(tmp_path / "poor.run"), "--measure", "nDCG@5"])
    assert rc == 0
    text = capsys.readouterr().out
    lines = text.splitlines()
    assert lines[0].split() == ["run", "measure", "mean", "topics", "undefined"]
    assert lines[1].split() == ["goodtag", "nDCG@5", "1.0000", "8", "0"]
    assert lines[2].split() == ["p", "nDCG@5", "0.0000", "8", "0"]
    test_line = lines[-1].split()
    assert test_line[:4] == ["goodtag", "p", "nDCG@5", "8"]
    assert test_line[4] == "0.0000*"                    # constant differences: t-test p = 0
    assert test_line[6] == f"{2 / 256:.4f}*"           # sign test: 8 wins of 8


def test_several_personas_need_a_choice(files, capsys):
    args = ["evaluate", "--qrels", str(files / "q.txt"), "--sensitivity", str(files / "s2.txt"),
            "--run", str(files / "a.run"), "--measure", "TERN@2(M=1)"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "several personas" in err and "alice, bob" in err
    assert main(args + ["--persona", "bob", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["runs"]["good"]["TERN@2(M=1)"]["per_topic"]["1"] == -1.0     # d1 is sensitive for bob
    assert main(args + ["--persona", "carol"]) == 2
    assert "alice, bob" in capsys.readouterr().err


def test_errors_are_one_line(files, capsys):
    base = ["evaluate", "--qrels", str(files / "q.txt"), "--run", str(files / "a.run")]
    assert main(base + ["--measure", "nCS-DCG@10"]) == 2
    assert "cost=" in capsys.readouterr().err
    (files / "bad.run").write_text("1 Q0 d1 1 2.0 t\n1 Q0 d2 x 1.0 t\n")
    assert main(["evaluate", "--qrels", str(files / "q.txt"), "--run", str(files / "bad.run"),
                 "--measure", "P@5"]) == 2
    assert "bad.run:2:" in capsys.readouterr().err


def test_run_tag_falls_back_and_duplicates_are_disambiguated(files, capsys):
    (files / "empty.run").write_text("")
    (files / "copy.run").write_text((files / "a.run").read_text())
    assert main(["evaluate", "--qrels", str(files / "q.txt"), "--run", str(files / "a.run"), "--run", str(files / "copy.run"),
                 "--run", str(files / "empty.run"), "--measure", "P@2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert list(out["runs"]) == ["good (a)", "good (copy)", "empty"]
    assert out["runs"]["empty"]["P@2"]["per_topic"] == {"1": 0.0, "2": 0.0, "3": 0.0}
    assert len(out["tests"]) == 3
