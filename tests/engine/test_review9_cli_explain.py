"""Plain `sasc classify explain` prints an equation that adds up: the score is the intercept plus
every weight printed plus "other features", to the 6 decimals printed, and equals the JSON
raw_score; it lists the features pushing towards not sensitive too (a message scored unlikely to
be sensitive shows why), a short part of the absent features, and the cue words found. The
previous output listed only the features towards sensitive, so its numbers did not add up.
Real demo mail, a real trained classifier, the real CLI."""
from __future__ import annotations

import json
import re

import pytest

from sasc_desktop.cli import main as sasc
from sasc_desktop.engine.session import Session

PERSONA = "holly-palmer"
NUMBER = re.compile(r"^\s+([+-]\d+\.\d{6})  ")


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    from sasc_desktop.engine.demo_project import build_demo_project
    root = build_demo_project(tmp_path_factory.mktemp("explain") / "demo", n_messages=300, train=False)
    assert sasc(["classify", "train", str(root), "--persona", PERSONA, "--json"]) == 0
    return root


def _explain(root, doc_id: str, capsys, *extra: str) -> str:
    capsys.readouterr()
    assert sasc(["classify", "explain", str(root), doc_id, "--persona", PERSONA, *extra]) == 0
    return capsys.readouterr().out


def test_the_printed_numbers_add_up_to_the_score(demo, capsys):
    from sasc_desktop.engine.classify import explain
    with Session.open(demo) as s:   # (choosing the messages: the engine's explain, in one session)
        docs = [r[0] for r in s.store.con.execute("SELECT doc_id FROM messages ORDER BY doc_id LIMIT 120")]
        explained = [(d, explain(s, d, PERSONA)) for d in docs]
    low = sorted(explained, key=lambda e: e[1]["probability"])
    cued = [e for e in explained if e[1]["cues"]]
    assert cued and low[0][1]["probability"] < 0.2 and low[-1][1]["probability"] > 0.5
    for doc_id, r in [low[0], low[1], low[len(low) // 2], low[-2], low[-1], cued[0]]:
        assert json.loads(_explain(demo, doc_id, capsys, "--json"))["raw_score"] == pytest.approx(r["raw_score"], abs=1e-12)
        out = _explain(demo, doc_id, capsys)
        lines = out.splitlines()
        head = re.fullmatch(rf"{r['deciding_model']} score (-?\d+\.\d{{6}}) = intercept (-?\d+\.\d{{6}}) \+ the "
                            r"weights below \+ other features (-?\d+\.\d{6})", lines[1])
        assert head, lines[1]
        score, intercept, other = (float(g) for g in head.groups())
        weights = [float(m.group(1)) for m in map(NUMBER.match, lines) if m]
        other_line = [line for line in lines if line.startswith("other features: ")]
        assert len(other_line) == 1 and float(other_line[0].split()[2]) == other
        # every number printed adds up to the score printed, and that is the JSON raw score
        assert score == round(r["raw_score"], 6)
        assert abs(intercept + sum(weights) + other - r["raw_score"]) <= 3e-6
        # both directions, the shown absent features, each once, as the JSON has them
        absent = r["absent_towards_sensitive"][:5] + r["absent_towards_not_sensitive"][:5]
        listed = r["towards_sensitive"] + r["towards_not_sensitive"] + absent
        assert sorted(weights) == sorted(round(e["weight"], 6) for e in listed)
        assert len(weights) == len(listed) and r["towards_not_sensitive"]
        for e in r["towards_not_sensitive"]:
            assert any(line.strip().startswith(f"{e['weight']:+.6f}  {e['label']}") for line in lines)
        if r["cues"]:
            cue_line, = [line for line in lines if line.startswith("cue words: ")]
            for c in r["cues"]:
                assert f"{c['kind']} {c['text']!r} in {c['field']} [{c['start']}:{c['end']}]" in cue_line
        else:
            assert "cue words: none" in lines
