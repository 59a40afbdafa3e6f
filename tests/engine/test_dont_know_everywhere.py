"""A sensitivity level of -1 ("I don't know") counts as unjudged, i.e. not sensitive, everywhere
judgments feed ranking: the experiment's dataset, LambdaMART's and Coordinate Ascent's
objectives, the "demote" approach (in experiments and in search-and-protect), the protected
search's judged set and the classifier's training labels.

A real project: synthetic mail written here, ingested by the real importer, judgments imported
from files; exact expected values. Second judgments review, finding 3."""
from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from sasc_desktop.engine.classify import import_judgments, training_labels
from sasc_desktop.engine.evaluate.experiment import (approach_lists, build_dataset, oracle_probabilities,
                                                     with_sensitivity)
from sasc_desktop.engine.evaluate.registry import parse_measure
from sasc_desktop.engine.rank import rankers as R
from sasc_desktop.engine.rank.data import Evaluator
from sasc_desktop.engine.session import Session

P = "p"
PIPELINE = ["gas pipeline capacity expansion", "pipeline capacity report for the gas desk",
            "pipeline outage and gas flows", "gas pipeline tariff filing", "pipeline maintenance schedule",
            "confidential pipeline capacity deal", "pipeline gas storage numbers"]
MERGER = ["merger negotiations with the partner", "merger term sheet draft", "merger due diligence list",
          "merger announcement timing", "merger integration planning", "merger rumours in the press"]
# doc -> grade (topic 1: m0-m6, pipeline; topic 2: m7-m12, merger); m13 is judged for nothing
GRADES = {"1": {"m0": 2, "m1": 1, "m2": 2, "m3": 1, "m4": 0, "m5": 2, "m6": 1},
          "2": {"m7": 2, "m8": 2, "m9": 1, "m10": 0, "m11": 1, "m12": 0}}
# the persona's levels for the collection as a whole (topic ""); m6 is also judged 1 under topic 1
LEVELS = {"m0": 0, "m1": 0, "m2": -1, "m3": -1, "m4": 1, "m5": 1, "m6": -1,
          "m7": -1, "m8": 0, "m9": 1, "m10": -1, "m11": 0, "m12": 0}
DONT_KNOW = {"m2", "m3", "m7", "m10"}                 # -1 under every topic
SENSITIVE = {"m4", "m5", "m6", "m9"}                  # m6: -1 for the collection, 1 under topic 1
# a "don't know" document -> a level-0 document with the same grade in the same topic
TWIN = {"m2": "m0", "m3": "m1", "m7": "m8", "m10": "m12"}


def _id(name: str) -> str:
    return f"{name}@corp.example"


def _level(doc_id: str) -> int:
    """The level every consumer should see: 1 for a judged-sensitive document, else 0."""
    return int(doc_id in {_id(d) for d in SENSITIVE})


@pytest.fixture
def project(tmp_path):
    mail = tmp_path / "mail"
    mail.mkdir()
    texts = PIPELINE + MERGER + ["lunch on friday"]
    for i, text in enumerate(texts):
        (mail / f"{i}.eml").write_text(
            f"Message-ID: <{_id(f'm{i}')}>\nDate: Mon, {i + 1} Jan 2001 09:00:00 -0800\nFrom: ann@corp.example\n"
            f"To: bob@corp.example\nSubject: note {i}\n\n{text}\n", encoding="utf-8")
    (tmp_path / "topics.json").write_text(json.dumps([
        {"id": "1", "title": "pipeline", "description": "gas pipeline capacity"},
        {"id": "2", "title": "merger", "description": "merger negotiations"}]), encoding="utf-8")
    (tmp_path / "j.qrels").write_text("".join(f"{t} 0 {_id(d)} {g}\n" for t, ds in GRADES.items()
                                              for d, g in ds.items()), encoding="utf-8")
    (tmp_path / "j.sens").write_text("".join(f"{P} {_id(d)} {lvl}\n" for d, lvl in LEVELS.items()), encoding="utf-8")
    (tmp_path / "t.sens").write_text(f"1 {P} {_id('m6')} 1\n2 {P} {_id('m7')} -1\n", encoding="utf-8")
    s = Session.create(tmp_path / "proj")
    assert s.ingest([mail], workers=0).ingested == len(texts)
    import_judgments(s, qrels_path=tmp_path / "j.qrels", sensitivity_path=tmp_path / "j.sens",
                     topics_path=tmp_path / "topics.json")
    import_judgments(s, sensitivity_path=tmp_path / "t.sens")
    yield s
    s.close()


def _dataset(s):
    data, meta, _ = build_dataset(s, P, depth=50)
    rows = {d: i for i, d in enumerate(data.doc_ids)}
    # every judged document of a topic is one of its candidates (so each check below is made)
    for t, topic in enumerate(data.topics):
        assert {_id(d) for d in GRADES[topic]} <= set(data.doc_ids[data.group(t)])
    return data, meta, rows


def test_build_dataset_levels_are_zero_for_dont_know(project):
    data, _, rows = _dataset(project)
    assert data.topics == ("1", "2")
    assert data.sens.tolist() == [_level(d) for d in data.doc_ids]
    assert {d: int(data.sens[rows[_id(d)]]) for d in sorted(DONT_KNOW)} == {d: 0 for d in sorted(DONT_KNOW)}
    assert {d: int(data.sens[rows[_id(d)]]) for d in sorted(SENSITIVE)} == {d: 1 for d in sorted(SENSITIVE)}
    # the judged pools (the measures' bounds): every document at its level, none at -1
    for t, topic in enumerate(data.topics):
        pool = {_id(d) for d in GRADES[topic]} | set(data.doc_ids[data.group(t)])
        assert sorted(data.pool_sens[t].tolist()) == sorted(_level(d) for d in pool)
        assert sorted(data.pool_rel[t].tolist()) == sorted(GRADES[topic].get(d.split("@")[0], 0) for d in pool)
    # the oracle classifier calls them not sensitive
    prob = oracle_probabilities(data)
    assert {d: float(prob[rows[_id(d)]]) for d in sorted(DONT_KNOW | SENSITIVE)} == \
        {d: float(d in SENSITIVE) for d in sorted(DONT_KNOW | SENSITIVE)}


def test_ranker_objectives_of_dont_know_equal_level_zero(project):
    """LambdaMART's pair weights (the objective's swap deltas) and Coordinate Ascent's objective
    (the measure an Evaluator computes) for a "don't know" document equal those of a level-0
    document with the same grade."""
    data, _, rows = _dataset(project)
    # LambdaMART: its lambdas on data that still carries -1 (built elsewhere) are those with -1
    # read as level 0, for any ranking
    dk_rows = np.array([d in {_id(x) for x in DONT_KNOW} for d in data.doc_ids])
    assert dk_rows.any()
    raw = replace(data, sens=np.where(dk_rows, -1, data.sens))
    zero = replace(data, sens=np.where(dk_rows, 0, data.sens))
    nonzero = []
    for objective in ("nCS-DCG@10(cost=12)", "CS-DCG@10(costs=0/5/12)", "TERN@10(M=1)", "nCS-DCG@3(cost=12)"):
        m = parse_measure(objective)
        for seed in range(3):
            scores = np.random.default_rng(seed).permutation(len(data.rel)).astype(float)
            got = R.LambdaMART.lambdas(Evaluator(m, raw), scores)
            want = R.LambdaMART.lambdas(Evaluator(m, zero), scores)
            assert all(np.array_equal(a, b) for a, b in zip(got, want)), (objective, seed)
            nonzero.append(bool(np.any(got[0] != 0)))
    # (the lambdas compared are not all 0, but for TERN@10: each topic has at most 10 candidates,
    # so no swap changes the set shown)
    assert nonzero == [True] * 6 + [False] * 3 + [True] * 3
    # Coordinate Ascent: swapping a "don't know" document with its level-0 twin (same grade)
    # leaves the objective as it was, and it is what the measure gives with the document at level 0
    m = parse_measure("nCS-DCG@10(cost=12)")
    ev = Evaluator(m, data)
    for dk, twin in TWIN.items():
        t = next(i for i, topic in enumerate(data.topics) if dk in GRADES[topic])
        g = data.group(t)
        i, j = rows[_id(dk)], rows[_id(twin)]
        order = [i] + [r for r in range(g.start, g.stop) if r not in (i, j)] + [j]   # dk first, its twin last
        scores = np.zeros(len(data.rel))
        scores[order] = np.arange(len(order), 0, -1)
        swapped = scores.copy()
        swapped[[i, j]] = scores[[j, i]]
        by_hand = m.score_list(data.rel[order], [_level(data.doc_ids[r]) for r in order],
                               data.pool_rel[t], data.pool_sens[t])
        assert float(ev.per_topic(scores)[t]) == float(ev.per_topic(swapped)[t]) == by_hand
        assert by_hand > 0
        assert float(Evaluator(m, raw).per_topic(scores)[t]) == by_hand          # the measures clamp -1 too


class _Recording(R.Ranker):
    """A real linear ranker that also keeps the labels it was trained on."""
    name = "recording"
    needs_objective = True
    seen: list = []

    def __init__(self, objective: str = "nDCG@10"):
        self.objective = objective

    def fit(self, train, valid=None):
        _Recording.seen.append(dict(zip(train.doc_ids, train.rel.tolist())))
        self.inner_ = R.LinearRanker().fit(train, valid)
        return self

    def predict(self, X):
        return self.inner_.predict(X)


def test_demote_keeps_the_relevance_of_dont_know_documents(project):
    base, meta, _ = _dataset(project)
    data = with_sensitivity(base, oracle_probabilities(base), meta)
    _Recording.seen = []
    F = base.X.shape[1]
    approach_lists("demote", lambda obj: _Recording(obj), data, data, data, list(range(F)),
                   "nCS-DCG@10(cost=12)", "nDCG@10", {})
    labels = _Recording.seen[0]
    want = {t: {_id(d): g * (d not in SENSITIVE) for d, g in ds.items()} for t, ds in GRADES.items()}
    assert {d: labels[d] for ds in want.values() for d in ds} == {d: g for ds in want.values() for d, g in ds.items()}
    assert {d: labels[_id(d)] for d in ("m2", "m3", "m7", "m4", "m5", "m6", "m9")} == \
        {"m2": 2, "m3": 1, "m7": 2, "m4": 0, "m5": 0, "m6": 0, "m9": 0}
    # the same when the data still carries -1 (a RankData built elsewhere)
    raw = replace(data, sens=np.where([d.split("@")[0] in DONT_KNOW for d in data.doc_ids], -1, data.sens))
    approach_lists("demote", lambda obj: _Recording(obj), raw, raw, raw, list(range(F)),
                   "nCS-DCG@10(cost=12)", "nDCG@10", {})
    assert _Recording.seen[-1] == labels


def test_protect_treats_dont_know_as_not_judged_sensitive(project, monkeypatch):
    from sasc_desktop.engine.protect.search import judged_sensitive, judged_sensitive_among
    s = project
    dont_know, sensitive = {_id(d) for d in DONT_KNOW}, {_id(d) for d in SENSITIVE}
    # training labels leave them out; the judged set does not hold them
    assert training_labels(s, P) == {_id(d): int(d in SENSITIVE)
                                     for d in ("m0", "m1", "m4", "m5", "m6", "m8", "m9", "m11", "m12")}
    assert judged_sensitive(s, P) == sensitive
    every = [_id(f"m{i}") for i in range(14)]
    assert judged_sensitive_among(s, P, every) == sensitive
    # search-and-protect's "demote" ranker is trained with their relevance kept
    monkeypatch.setitem(R.RANKERS, "recording", _Recording)
    _Recording.seen = []
    info = s.train_protection(P, "demote", ranker="recording", depth=50)
    assert info["topics"] == 2
    labels = _Recording.seen[0]
    assert {d: labels[_id(d)] for d in ("m2", "m3", "m7", "m0", "m4", "m5", "m6", "m9")} == \
        {"m2": 2, "m3": 1, "m7": 2, "m0": 2, "m4": 0, "m5": 0, "m6": 0, "m9": 0}
    # the protected search shows them (only judged-sensitive documents are withheld)
    s.train_protection(P, "relevance", ranker="linear", depth=50)
    res = s.protected_search("pipeline", P, approach="relevance", k=10, show_withheld=True)
    shown = {h["doc_id"] for h in res["hits"]}
    assert {_id("m2"), _id("m3")} <= shown
    assert not shown & sensitive
    assert res["withheld_judged_sensitive"] == 3                      # m4, m5, m6
    assert dont_know - shown == {_id("m7"), _id("m10")}              # merger mail: not a pipeline candidate
