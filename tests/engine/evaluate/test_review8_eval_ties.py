"""Run order ties as trec_eval's: scores are compared in single precision (trec_eval keeps a
run's scores as C floats), so two scores equal once rounded to float32 tie and are ordered by
document id descending. 1.00000001 and 1.0 were ordered as doubles (a before b), giving P@1 = 1
where trec_eval and pytrec_eval give 0 (b, the non-relevant one, first). Exact expectations by
hand; pytrec_eval is not a dependency."""
from __future__ import annotations

import json

from sasc_desktop.cli import main
from sasc_desktop.engine.evaluate.formats import rank_run, read_run, write_run
from sasc_desktop.engine.evaluate.records import ScoredDoc


def ranked(pairs):
    return rank_run([ScoredDoc("1", d, s, 0, "r") for d, s in pairs])["1"]


def test_scores_equal_in_float32_tie_and_go_by_docid_descending():
    assert ranked([("a", 1.00000001), ("b", 1.0)]) == ["b", "a"]
    assert ranked([("b", 1.0), ("a", 1.00000001)]) == ["b", "a"]
    # 1 + 2^-23 is the next float32 after 1: a real difference, kept
    assert ranked([("a", 1.0 + 2 ** -23), ("b", 1.0)]) == ["a", "b"]
    # 1 + 2^-25 rounds to 1 in float32: a tie
    assert ranked([("a", 1.0 + 2 ** -25), ("b", 1.0), ("c", 0.5)]) == ["b", "a", "c"]
    # beyond float32's range both are +inf: a tie; -0.0 and 0.0 tie too
    assert ranked([("a", 2e39), ("b", 1e39), ("c", 3e38)]) == ["b", "a", "c"]
    assert ranked([("a", 0.0), ("b", -0.0), ("c", -1e-50)]) == ["c", "b", "a"]


def test_write_run_orders_as_rank_run_and_keeps_the_double(tmp_path):
    path = tmp_path / "r.run"
    write_run(path, [ScoredDoc("1", "a", 1.00000001, 1, "r"), ScoredDoc("1", "b", 1.0, 2, "r")])
    assert path.read_text() == "1 Q0 b 1 1.0 r\n1 Q0 a 2 1.00000001 r\n"
    docs = read_run(path)
    assert [d.score for d in docs] == [1.0, 1.00000001]
    assert rank_run(docs) == {"1": ["b", "a"]}


def test_sasc_evaluate_agrees_with_trec_eval_on_a_float32_tie(tmp_path, capsys):
    (tmp_path / "tq").write_text("1 0 a 1\n1 0 b 0\n")
    (tmp_path / "tr").write_text("1 Q0 a 1 1.00000001 r\n1 Q0 b 2 1.0 r\n")
    assert main(["evaluate", "--qrels", str(tmp_path / "tq"), "--run", str(tmp_path / "tr"),
                 "--measure", "P@1", "--measure", "P@2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)["runs"]["r"]
    assert out["P@1"]["per_topic"] == {"1": 0.0}          # pytrec_eval: P_1 = 0.0 (was 1.0)
    assert out["P@2"]["per_topic"] == {"1": 0.5}
