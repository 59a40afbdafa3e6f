"""`run_experiment` / `sasc experiment` options checked before any work (persona, depth, folds,
crossfit, CA restarts and iterations), and repeated names used once."""
from __future__ import annotations

import pytest

from sasc_desktop.cli import main as sasc
from sasc_desktop.engine.errors import InputError
from sasc_desktop.engine.session import Session

PERSONA = "john-snibert"
PERSONAS = "holly-palmer, john-snibert"
QUICK = dict(rankers=["linear"], approaches=["relevance"], classifier="oracle", depth=20)


# ------------------------------------------------------------------------------- 4. the persona
def test_unknown_persona_is_refused_even_with_the_oracle_classifier(exp_project):
    from sasc_desktop.engine.evaluate.experiment import build_dataset
    message = f"unknown persona 'nobody'; this project's personas are: {PERSONAS}"
    with Session.open(exp_project) as s:
        with pytest.raises(InputError) as err:
            s.run_experiment("nobody", eval_measures=["nDCG@10"], **QUICK)
        assert str(err.value) == message
        with pytest.raises(InputError) as err:
            build_dataset(s, "nobody", depth=20)
        assert str(err.value) == message


# ---------------------------------------------------------------------- 5. and 7. numeric options
@pytest.mark.parametrize("options, message", [
    (dict(depth=0), "depth (candidates per topic) must be an integer of at least 1, got 0"),
    (dict(depth=-5), "depth (candidates per topic) must be an integer of at least 1, got -5"),
    (dict(folds=2), "folds must be at least 3 (each rotation needs a test fold, a validation fold and at least "
                    "one training fold), got 2"),
    (dict(folds=0), "folds must be at least 3 (each rotation needs a test fold, a validation fold and at least "
                    "one training fold), got 0"),
    (dict(folds=-3), "folds must be at least 3 (each rotation needs a test fold, a validation fold and at least "
                     "one training fold), got -3"),
    (dict(crossfit=1), "classifier crossfit must be 0 (off) or at least 2 inner models (one model is what 0 does "
                       "already), got 1"),
    (dict(crossfit=-1), "classifier crossfit must be 0 (off) or at least 2 inner models (one model is what 0 does "
                        "already), got -1"),
    (dict(rankers=["ca"], ranker_params={"ca": {"n_restarts": 0}}),
     "coordinate ascent restarts must be an integer of at least 1, got 0"),
    (dict(rankers=["ca"], ranker_params={"ca": {"n_iter": 0}}),
     "coordinate ascent iterations must be an integer of at least 1, got 0"),
    (dict(rankers=["linear", "rankboost"]), "unknown ranker 'rankboost'; rankers are: bm25, linear, lambdamart, "
                                            "adarank, ca"),
])
def test_numeric_options_are_refused_before_any_work(exp_project, options, message):
    opts = dict(QUICK, eval_measures=["nDCG@10"])
    opts.update(options)
    with Session.open(exp_project) as s:
        with pytest.raises(InputError) as err:
            s.run_experiment(PERSONA, **opts)
    assert str(err.value) == message


def test_build_dataset_and_folds_for_check_too(exp_project):
    from sasc_desktop.engine.evaluate.experiment import build_dataset, folds_for
    with Session.open(exp_project) as s:
        with pytest.raises(InputError, match=r"^depth \(candidates per topic\) must be an integer of at least 1, got 0$"):
            build_dataset(s, PERSONA, depth=0)
    with pytest.raises(InputError, match=r"^folds must be at least 3 .*got 2$"):
        folds_for(10, 2)
    assert [len(f) for f in folds_for(4, 5)] == [1, 1, 1, 1]   # more folds than topics: one topic per fold


@pytest.mark.parametrize("option, value, message", [
    ("--depth", "0", "argument --depth: must be at least 1, got 0"),
    ("--depth", "-1", "argument --depth: must be at least 1, got -1"),
    ("--ca-restarts", "0", "argument --ca-restarts: must be at least 1, got 0"),
    ("--ca-iterations", "0", "argument --ca-iterations: must be at least 1, got 0"),
    ("--folds", "2", "argument --folds: must be at least 3 (a test, a validation and at least one training "
                     "fold), got 2"),
    ("--folds", "x", "argument --folds: an integer expected, got 'x'"),
    ("--classifier-crossfit", "1", "argument --classifier-crossfit: must be 0 (off) or at least 2 inner models, got 1"),
    ("--classifier-crossfit", "-1", "argument --classifier-crossfit: must be 0 (off) or at least 2 inner models, "
                                    "got -1"),
])
def test_cli_refuses_bad_numbers_as_usage_errors(tmp_path, capsys, option, value, message):
    with pytest.raises(SystemExit) as exit_:
        sasc(["experiment", str(tmp_path), "--persona", PERSONA, "--eval", "nDCG@10", "--out", str(tmp_path / "r"),
              f"{option}={value}"])
    assert exit_.value.code == 2
    assert capsys.readouterr().err.strip().endswith(f"error: {message}")
    assert not (tmp_path / "r").exists()


# ------------------------------------------------------------------------------ 6. repeated names
def test_repeated_rankers_approaches_and_measures_are_used_once(exp_project):
    with Session.open(exp_project) as s:
        once = s.run_experiment(PERSONA, rankers=["linear"], approaches=["relevance", "postfilter"],
                                eval_measures=["nDCG@10", "nCS-DCG@10(cost=12)"], classifier="oracle", depth=20)
        twice = s.run_experiment(PERSONA, rankers=["linear", "linear"],
                                 approaches=["relevance", "postfilter", "relevance"],
                                 eval_measures=["nDCG@10", "nCS-DCG@10(cost=12)", "nDCG@10", "nCS-DCG@10(cost=12.0)"],
                                 classifier="oracle", depth=20)
    assert twice["rankers"] == ["linear"]
    assert twice["approaches"] == ["relevance", "postfilter"]
    assert twice["measures"] == ["nDCG@10", "nCS-DCG@10(cost=12)"]
    key = lambda r: (r["ranker"], r["approach"], r["measure"])  # noqa: E731
    assert [key(r) for r in twice["results"]] == [key(r) for r in once["results"]]
    assert len(twice["results"]) == 4
    assert {key(r): r["shown_sensitive"] for r in twice["results"]} == {key(r): r["shown_sensitive"]
                                                                        for r in once["results"]}
    assert {key(r): r["per_topic"] for r in twice["results"]} == {key(r): r["per_topic"] for r in once["results"]}
    assert [(t["a"], t["b"], t["measure"]) for t in twice["tests"]] == [(t["a"], t["b"], t["measure"])
                                                                        for t in once["tests"]]
    assert len(twice["tests"]) == 2
    assert [(c["ranker"], c["approach"]) for c in twice["cutoff_curves"]] == [("linear", "relevance"),
                                                                             ("linear", "postfilter")]
    assert any(r["shown_sensitive"] > 0 for r in once["results"])  # the equality above is not 0 == 0
