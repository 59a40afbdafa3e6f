"""Exact expectations for cluster replacement, cutoff policies, thresholds and the safety rule."""
from __future__ import annotations

import numpy as np

from sasc_desktop.engine.protect.policies import (cluster_replace, dynamic_cutoff, filter_list, learn_score_threshold,
                                                  learn_static_cutoff, rank_order, repeated_bisection, safety_filter)


def test_cluster_replace_hand_made():
    # candidates 0..5; clusters: {0,3}, {1,4}, {2,5}; ranking 0,1,2,3,4,5
    clusters = np.array([0, 1, 2, 0, 1, 2])
    prob = np.array([0.9, 0.1, 0.8, 0.2, 0.05, 0.95])
    order = [0, 1, 2, 3, 4, 5]
    # rank 1: doc 0 (0.9) -> doc 3 (0.2); rank 2: doc 1 (0.1) -> doc 4 (0.05);
    # rank 3: doc 2 (0.8) stays (5 is worse)
    assert cluster_replace(order, 3, clusters, prob).tolist() == [3, 4, 2]
    # k = 5: rank 4 is doc 3, already chosen -> the remaining member of its cluster, doc 0;
    # rank 5 doc 4 already chosen -> doc 1
    assert cluster_replace(order, 5, clusters, prob).tolist() == [3, 4, 2, 0, 1]


def test_cluster_replace_ties_keep_the_shown_document():
    clusters = np.array([0, 0])
    prob = np.array([0.3, 0.3])
    assert cluster_replace([0, 1], 1, clusters, prob).tolist() == [0]


def test_repeated_bisection_separates_obvious_groups():
    rng = np.random.default_rng(0)
    centres = np.eye(4)
    V = np.vstack([c + rng.normal(0, 0.05, (10, 4)) for c in centres])
    labels = repeated_bisection(V, n_clusters=4, seed=1)
    assert len(set(labels)) == 4
    for g in range(4):
        assert len(set(labels[g * 10:(g + 1) * 10])) == 1
    assert len(set(repeated_bisection(V, n_clusters=20))) == 20


def test_dynamic_cutoff_exact():
    assert dynamic_cutoff(10, 0, 200) == 10
    assert dynamic_cutoff(10, 50, 200) == 7      # floor(10 * 0.75) = 7
    assert dynamic_cutoff(10, 199, 200) == 0
    assert dynamic_cutoff(10, 21, 100) == 7      # floor(7.9)
    assert dynamic_cutoff(10, 5, 0) == 10


def test_static_cutoff_learns_best_and_prefers_longer_on_ties():
    scores = {0: 0.1, 1: 0.5, 2: 0.9, 3: 0.7, 4: 0.9}
    assert learn_static_cutoff(lambda c: scores[c], 4) == 4
    assert learn_static_cutoff(lambda c: [0.2, 0.8, 0.3][c], 2) == 1


def test_score_threshold():
    s = np.array([0.1, 0.4, 0.6, 0.9])
    t = learn_score_threshold(lambda th: 1.0 if 0.4 < th <= 0.6 else 0.0, s, n_grid=4)
    assert 0.4 < t <= 0.6
    assert learn_score_threshold(lambda th: 0.5, s) == -np.inf


def test_filter_and_order():
    order = rank_order(np.array([0.2, 0.9, 0.5, 0.9]))
    assert order.tolist() == [1, 3, 2, 0]
    assert filter_list(order, np.array([0.1, 0.6, 0.4, 0.5])).tolist() == [2, 0]


def test_safety_filter():
    assert safety_filter(["a", "b", "c"], {"b"}) == ["a", "c"]
