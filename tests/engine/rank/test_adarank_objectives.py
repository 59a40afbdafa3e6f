"""AdaRank optimises any registered measure (issue 5): per-topic values are rescaled to the
measure's own per-topic interval before the boosting weights, not clipped to [0, 1] (which made
every topic with DCG or CS-DCG >= 1 look perfect, and TERN's -M look like 0), while measures
already in [0, 1] train exactly as before (bit for bit, against coefficients recorded from the
previous code)."""
from __future__ import annotations

import numpy as np
import pytest

from sasc_desktop.engine.evaluate import parse_measure
from sasc_desktop.engine.rank.data import Evaluator, RankData
from sasc_desktop.engine.rank.rankers import make_ranker

RECORDED = {  # coef_ (float.hex) of the previous code (commit a88b35d), 20 rounds
    ('nDCG@5', 'train'): ['0x1.537c24a9a6200p+1', '0x0.0p+0', '0x1.fa8c4fc4b95f2p+1', '0x1.c7782e1f1167ep+1', '0x0.0p+0'],
    ('nDCG@5', 'valid'): ['0x1.a74b93656c0b2p+1', '0x0.0p+0', '0x1.fa8c4fc4b95f2p+1', '0x1.c7782e1f1167ep+1', '0x0.0p+0'],
    ('nCS-DCG@5(cost=2)', 'train'): ['0x1.73b3d8fe9b276p+1', '0x1.2e0b7555a65b5p+1', '0x1.e7042d02d4416p+1', '0x1.cdab9b7664e7fp+1', '0x0.0p+0'],
    ('nCS-DCG@5(cost=2)', 'valid'): ['0x1.73b3d8fe9b276p+1', '0x0.0p+0', '0x1.e7042d02d4416p+1', '0x1.cdab9b7664e7fp+1', '0x0.0p+0'],
    ('nCS-DCG_f@5(cost=2)', 'train'): ['0x1.73b3d8fe9b276p+1', '0x1.2e0b7555a65b5p+1', '0x1.e7042d02d4416p+1', '0x1.cdab9b7664e7fp+1', '0x0.0p+0'],
    ('nCS-DCG_f@5(cost=2)', 'valid'): ['0x1.73b3d8fe9b276p+1', '0x0.0p+0', '0x1.e7042d02d4416p+1', '0x1.cdab9b7664e7fp+1', '0x0.0p+0'],
    ('P@5', 'train'): ['0x1.62e42fefa39efp-1', '0x0.0p+0', '0x1.59a30d0140edap-1', '0x0.0p+0', '0x0.0p+0'],
    ('P@5', 'valid'): ['0x1.62e42fefa39efp-1', '0x0.0p+0', '0x1.574b7157ba114p+0', '0x1.5b29b3ef9e4ddp-1', '0x0.0p+0'],
    ('ngCS-DCG@5(cost=2,gamma=0.5)', 'train'): ['0x1.7adf79c3208d5p+1', '0x1.1b5fc4d8fdba9p+1', '0x1.e32f7b315c84bp+1', '0x1.c7719e9129e44p+1', '0x0.0p+0'],
    ('ngCS-DCG@5(cost=2,gamma=0.5)', 'valid'): ['0x1.7adf79c3208d5p+1', '0x0.0p+0', '0x1.e32f7b315c84bp+1', '0x1.c7719e9129e44p+1', '0x0.0p+0'],
    ('nDCG_f@5', 'train'): ['0x1.6906dfcc3b295p+1', '0x1.0c80dacf6e404p+1', '0x1.d0b04dab8503cp+1', '0x1.d3e909860870cp+1', '0x0.0p+0'],
    ('nDCG_f@5', 'valid'): ['0x1.6906dfcc3b295p+1', '0x1.b0dc562e1d68cp-2', '0x1.d0b04dab8503cp+1', '0x1.d3e909860870cp+1', '0x0.0p+0'],
}
NDCG_HISTORY = {  # history_ of the previous code for nDCG@5
    'train': ['0x1.574b0e5001a7bp-1', '0x1.574b0e5001a7bp-1', '0x1.574b0e5001a7bp-1', '0x1.574b0e5001a7bp-1', '0x1.574b0e5001a7bp-1', '0x1.7e0e07b7a70c0p-1', '0x1.800adba5ba038p-1', '0x1.7f16fcf29c43bp-1', '0x1.89d5c1a192268p-1', '0x1.89d5c1a192268p-1', '0x1.8c28a16db04e8p-1', '0x1.8f8ba1052e978p-1', '0x1.90f391a1fe51fp-1', '0x1.95cf587931cdep-1', '0x1.95cf587931cdep-1', '0x1.8cd1e97877d9ep-1', '0x1.8cd1e97877d9ep-1', '0x1.90c2c7747399ep-1', '0x1.90c2c7747399ep-1', '0x1.88b3cf165dd06p-1'],
    'valid': ['0x1.64ff0474dad3cp-1', '0x1.64ff0474dad3cp-1', '0x1.64ff0474dad3cp-1', '0x1.64ff0474dad3cp-1', '0x1.64ff0474dad3cp-1', '0x1.60178cf333ae4p-1', '0x1.6e300b1fc7594p-1', '0x1.4fbe772546852p-1', '0x1.550db13c2d7dap-1', '0x1.71a341281785ap-1', '0x1.7a75666fe1c9ep-1', '0x1.68eb50986524bp-1', '0x1.7fc706740bfacp-1', '0x1.ab6df5ae160d0p-1', '0x1.b367245cc9d1dp-1', '0x1.ac890d30c9f6cp-1', '0x1.91512218a9f8ep-1', '0x1.8c2a72f277f63p-1', '0x1.7b857c748eab2p-1', '0x1.7b857c748eab2p-1'],
}


def reviewer_data():
    """2 topics, 4 candidates each, grades 2, 2, 0, 0, nothing sensitive. Feature 0 ("weak")
    puts one relevant document first and the other last; feature 1 ("strong") both first."""
    rel = np.array([2, 2, 0, 0] * 2)
    sens = np.zeros(8, int)
    weak = np.array([4, 1, 3, 2] * 2, float)
    strong = np.array([4, 3, 2, 1] * 2, float)
    return RankData(np.c_[weak, strong], rel, sens, np.array([0, 4, 8]), ("t1", "t2"),
                    tuple(f"d{i}" for i in range(8)), (rel[:4], rel[4:]), (sens[:4], sens[4:]), ("weak", "strong"))


def sensitive_data():
    """Topic A: s (not relevant, sensitive) and n (neither); topic B: r (grade 2) and N. The weak
    feature shows s first on A, the strong one n; both show r first on B."""
    rel = np.array([0, 0, 2, 0])
    sens = np.array([1, 0, 0, 0])
    weak = np.array([2, 1, 2, 1], float)
    strong = np.array([1, 2, 2, 1], float)
    return RankData(np.c_[weak, strong], rel, sens, np.array([0, 2, 4]), ("A", "B"), tuple("snrN"),
                    (rel[:2], rel[2:]), (sens[:2], sens[2:]), ("weak", "strong"))


L = [1 / np.log2(i + 1) for i in range(1, 5)]


@pytest.mark.parametrize("objective, best", [
    ("CS-DCG@4(cost=12)", 3 + 3 * L[1]),                 # both relevant first: 4.8928 (weak 3 + 3 L4 = 4.2920)
    ("DCG@4", 3 + 3 * L[1]),
    ("gCS-DCG@4(cost=12,gamma=0.5)", 3 + 3 * L[1]),
    ("O-CS-DCG@4(ka=2,effort=0,cost=12)", 3 + 3 * L[1]),  # no value_range: the weak rankers' spread
    ("nDCG@4", 1.0),
])
def test_reviewer_case_picks_the_strong_feature(objective, best):
    data = reviewer_data()
    ada = make_ranker("adarank", objective=objective).fit(data)
    assert ada.coef_[0] == 0.0 and ada.coef_[1] > 0
    ev = Evaluator(parse_measure(objective), data)
    assert ev.mean(ada.predict(data.X)) == pytest.approx(best, rel=1e-12)
    assert ev.mean(data.X[:, 0]) == pytest.approx(3 + 3 * L[3] if best > 1 else (3 + 3 * L[3]) / (3 + 3 * L[1]), rel=1e-12)


@pytest.mark.parametrize("objective, best", [("TERN@1(M=1)", 0.5), ("SENS@1(M=1)", 0.5), ("TERN@1(M=3)", 0.5)])
def test_penalty_is_worse_than_showing_nothing_relevant(objective, best):
    # weak: A shows s (-M), B 1 -> mean (1 - M) / 2; strong: A shows n (0), B 1 -> 0.5. Clipped,
    # -M and 0 were both 0 and the tie went to the weak feature.
    data = sensitive_data()
    ada = make_ranker("adarank", objective=objective).fit(data)
    assert ada.coef_[0] == 0.0 and ada.coef_[1] > 0
    assert Evaluator(parse_measure(objective), data).mean(ada.predict(data.X)) == best


def dataset(seed=11, T=8, n=15, F=5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(T * n, F))
    rel = rng.choice(3, size=T * n, p=[0.6, 0.25, 0.15])
    sens = rng.choice(2, size=T * n, p=[0.8, 0.2])
    topic = np.repeat(np.arange(T), n)
    X[:, 0] += rel * np.where(topic % 2 == 0, 1.2, 0.1)       # informative on even topics
    X[:, 2] += rel * np.where(topic % 2 == 1, 1.2, 0.3)       # ... on odd topics
    X[:, 1] -= sens * 0.8
    X[:, 3] += rel * 0.4 - sens * 0.4
    offs = np.arange(0, T * n + 1, n)
    return RankData(X, rel, sens, offs, tuple(f"t{i}" for i in range(T)), tuple(f"d{i}" for i in range(T * n)),
                    tuple(rel[offs[t]:offs[t + 1]] for t in range(T)), tuple(sens[offs[t]:offs[t + 1]] for t in range(T)),
                    tuple(f"f{j}" for j in range(F)))


@pytest.mark.parametrize("objective, mode", list(RECORDED))
def test_measures_in_unit_interval_train_bit_for_bit_as_before(objective, mode):
    data, valid = dataset(), dataset(seed=12, T=4)
    ada = make_ranker("adarank", objective=objective, n_rounds=20, tolerance=-1.0).fit(
        data, valid if mode == "valid" else None)
    assert [x.hex() for x in ada.coef_] == RECORDED[(objective, mode)]
    if objective == "nDCG@5":
        assert [float(h).hex() for h in ada.history_] == NDCG_HISTORY[mode]
