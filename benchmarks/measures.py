"""Benchmark: evaluate 10,000 topics x 1,000-document runs with nCS-DCG@10(cost=12) and
TERN@10(M=1) on random judgments (fixed seed). Prints one JSON object.

Timed per measure (cold: a fresh Judgments object, so pool summaries are rebuilt): building the
pool class counts, looking up the levels of each topic's top k, the exact bounds and the
scores. Generating the random data is not timed. Peak memory: the process's maximum resident
set size (getrusage) and, for the evaluation alone, tracemalloc's peak in a separate untimed
pass.

    .venv/bin/python benchmarks/measures.py [--topics N] [--run-length N] [--pool N]
"""
from __future__ import annotations

import argparse
import json
import platform
import resource
import sys
import time
import tracemalloc

import numpy as np

from sasc_desktop.engine.evaluate import Judgments, parse_measure


def make_data(topics: int, run_length: int, pool: int, seed: int):
    rng = np.random.default_rng(seed)
    names = [f"d{i}" for i in range(run_length)]
    runs, qrels, sens = {}, {}, {}
    for t in range(topics):
        order = rng.permutation(run_length)
        key = str(t)
        runs[key] = [names[i] for i in order]
        judged = rng.choice(run_length, size=pool, replace=False)
        grades = rng.choice(3, size=pool, p=[0.7, 0.2, 0.1])
        levels = rng.choice(3, size=pool, p=[0.85, 0.1, 0.05])
        qrels[key] = {names[i]: int(g) for i, g in zip(judged.tolist(), grades.tolist())}
        sens[key] = {names[i]: int(s) for i, s in zip(judged.tolist(), levels.tolist()) if s}
    return runs, qrels, sens


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--topics", type=int, default=10_000)
    ap.add_argument("--run-length", type=int, default=1_000)
    ap.add_argument("--pool", type=int, default=200, help="judged documents per topic")
    ap.add_argument("--seed", type=int, default=20190721)
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    runs, qrels, sens = make_data(args.topics, args.run_length, args.pool, args.seed)
    setup = time.perf_counter() - t0

    results = {}
    for text in ("nCS-DCG@10(cost=12)", "TERN@10(M=1)"):
        m = parse_measure(text)
        judgments = Judgments(qrels, topic_sensitivity=sens)
        start = time.perf_counter()
        scores = m.score_run(runs, judgments)
        elapsed = time.perf_counter() - start
        defined = [v for v in scores.values() if v is not None]
        judgments = Judgments(qrels, topic_sensitivity=sens)
        tracemalloc.start()
        m.score_run(runs, judgments)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        results[m.name] = {
            "seconds": round(elapsed, 4),
            "topics_per_second": round(args.topics / elapsed, 1),
            "evaluation_peak_mb": round(peak / 2**20, 2),
            "mean": sum(defined) / len(defined) if defined else None,
            "undefined_topics": len(scores) - len(defined),
        }
    rss_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({
        "benchmark": "measures",
        "topics": args.topics, "run_length": args.run_length, "judged_per_topic": args.pool, "seed": args.seed,
        "setup_seconds": round(setup, 3),
        "measures": results,
        "max_rss_mb": round(rss_kb / 1024, 1),
        "python": platform.python_version(), "numpy": np.__version__,
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
