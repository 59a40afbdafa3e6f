"""Search-and-protect benchmark: prints JSON.

    .venv/bin/python benchmarks/rank.py [--messages 3000] [--project DIR] [--persona john-snibert] [--latency-only]

Builds the demo collection as a project (or uses --project), then measures feature extraction
(ms per query, cold token cache), training time per ranker (joint approach, objective
nCS-DCG@10(cost=12), oracle probabilities) and protected search latency (joint, top 10) p50/p95.
--latency-only skips the ranker training measurements (the protected search still trains its
model on first use if the project has none: that warm-up call is reported, not counted).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sasc_desktop.engine.evaluate.experiment import build_dataset, with_sensitivity  # noqa: E402
from sasc_desktop.engine.project import judgments as J  # noqa: E402
from sasc_desktop.engine.rank.features import FeatureExtractor  # noqa: E402
from sasc_desktop.engine.rank.rankers import make_ranker  # noqa: E402
from sasc_desktop.engine.session import Session  # noqa: E402


def build(root: Path, n: int) -> Path:
    from sasc_desktop.engine.demo_project import build_demo_project
    return build_demo_project(root / "proj", n_messages=n, train=False)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--messages", type=int, default=3000)
    ap.add_argument("--project", type=Path)
    ap.add_argument("--persona", default="john-snibert")
    ap.add_argument("--depth", type=int, default=200)
    ap.add_argument("--rankers", nargs="+", default=["bm25", "linear", "lambdamart", "adarank", "ca"])
    ap.add_argument("--latency-only", action="store_true",
                    help="skip the ranker training measurements: feature extraction and protected search latency only")
    args = ap.parse_args()
    tmp = None
    t0 = time.perf_counter()
    if args.project is None:
        tmp = tempfile.TemporaryDirectory()
        project = build(Path(tmp.name), args.messages)
    else:
        project = args.project
    build_s = time.perf_counter() - t0
    out = {"project_build_s": round(build_s, 1), "depth": args.depth}
    with Session.open(project) as s:
        out["messages"] = s.stats()["messages"]
        topics = J.topics(s.store)
        out["topics"] = len(topics)
        # feature extraction, cold token cache per query
        times = []
        for t in topics:
            ex = FeatureExtractor(s, depth=args.depth)
            a = time.perf_counter()
            c = ex.candidates(f"{t['title']} {t['description']}")
            ex.relevance(t["title"], t["description"], [d for d, _ in c], [x for _, x in c])
            times.append((time.perf_counter() - a) * 1000)
        out["feature_ms_per_query"] = {"mean": round(float(np.mean(times)), 1), "p95": round(float(np.percentile(times, 95)), 1)}
        if not args.latency_only:
            base, meta, _ = build_dataset(s, args.persona, depth=args.depth)
            data = with_sensitivity(base, (base.sens > 0).astype(float), meta)
            n = data.n_topics
            tr, va = data.subset(list(range(0, n - n // 5))), data.subset(list(range(n - n // 5, n)))
            train_s = {}
            for r in args.rankers:
                a = time.perf_counter()
                make_ranker(r, objective="nCS-DCG@10(cost=12)").fit(tr, va)
                train_s[r] = round(time.perf_counter() - a, 2)
            out["train_s_joint_nCS-DCG@10(cost=12)"] = train_s
            out["train_rows"] = int(len(tr.rel))
            a = time.perf_counter()
            s.train_protection(args.persona, "joint", ranker="ca")
            out["train_protection_joint_ca_s"] = round(time.perf_counter() - a, 2)
        queries = [t["title"] for t in topics] + [w for t in topics for w in t["title"].split()[:2]]
        a = time.perf_counter()
        s.protected_search(queries[0], args.persona, approach="joint")  # warm-up (classifier scores, model)
        out["protected_search_warmup_s"] = round(time.perf_counter() - a, 2)
        lat = []
        for q in queries:
            try:
                res = s.protected_search(q, args.persona, approach="joint", k=10)
            except Exception:
                continue
            lat.append(res["ms"])
        out["protected_search_ms"] = {"n": len(lat), "p50": round(float(np.percentile(lat, 50)), 1),
                                      "p95": round(float(np.percentile(lat, 95)), 1),
                                      "max": round(float(np.max(lat)), 1)}
    out["loadavg_1_5_15"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(out, indent=1))
    if tmp:
        tmp.cleanup()


if __name__ == "__main__":
    main()
