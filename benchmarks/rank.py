"""Search-and-protect benchmark: prints JSON.

    .venv/bin/python benchmarks/rank.py [--messages 3000] [--project DIR] [--persona john-snibert] [--latency-only]

Builds the demo collection as a project (or uses --project), then measures feature extraction
(ms per query, cold token cache), training time per ranker (joint approach, objective
nCS-DCG@10(cost=12), oracle probabilities) and protected search latency (joint, top 10) p50/p95.
--latency-only skips the ranker training measurements (the protected search still trains its
model on first use if the project has none: that warm-up call is reported, not counted).

Protected search latency is measured on one open session: ``protected_search_ms`` is each query's
first search (its candidates' terms read and analysed unless an earlier query's candidates
included them), ``protected_search_repeat_ms`` the same queries searched --repeat more times
(a warm session: what the GUI sees when a person searches again or pages). ``term_cache`` is the
project's term cache after those searches, and ``term_cache_full`` (unless --no-memory) one
holding every message (up to its limit, DOC_CACHE_MAX documents) with its memory measured by
tracemalloc. Code without the term cache reports neither.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sasc_desktop.engine.evaluate.experiment import build_dataset, with_sensitivity  # noqa: E402
from sasc_desktop.engine.project import judgments as J  # noqa: E402
from sasc_desktop.engine.rank.features import FeatureExtractor  # noqa: E402
from sasc_desktop.engine.rank.rankers import make_ranker  # noqa: E402
from sasc_desktop.engine.session import Session  # noqa: E402

try:  # (absent before the term cache: the benchmark also measures that code, for comparisons)
    from sasc_desktop.engine.rank.features import DOC_CACHE_MAX, DocumentTermCache, term_cache  # noqa: E402
except ImportError:
    DocumentTermCache = None


def build(root: Path, n: int) -> Path:
    from sasc_desktop.engine.demo_project import build_demo_project
    return build_demo_project(root / "proj", n_messages=n, train=False)


def _summary(lat: list[float]) -> dict:
    return {"n": len(lat), "p50": round(float(np.percentile(lat, 50)), 1),
            "p95": round(float(np.percentile(lat, 95)), 1), "max": round(float(np.max(lat)), 1)}


def _cache_memory(s) -> dict:
    """A new term cache filled with every message of the project (at most DOC_CACHE_MAX, the
    newest), its size and the memory it holds (tracemalloc: Python objects and numpy arrays; the
    stem strings are the analyser's, which it holds anyway)."""
    ids = [d for (d,) in s.store.con.execute("SELECT doc_id FROM messages ORDER BY id DESC LIMIT ?", (DOC_CACHE_MAX,))]
    terms = FeatureExtractor(s).terms
    scratch = DocumentTermCache()           # the analyser's own cache of stems filled first: not the term cache's
    for i in range(0, len(ids), 500):
        scratch.documents(s.store.con, ids[i:i + 500], terms)
    del scratch
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    cache = DocumentTermCache()
    a = time.perf_counter()
    for i in range(0, len(ids), 500):
        cache.documents(s.store.con, ids[i:i + 500], terms)
    fill_s = time.perf_counter() - a
    held = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    st = cache.stats()
    return {"documents": st["documents"], "terms": st["terms"], "tokens": st["tokens"],
            "tracemalloc_mb": round(held / 2 ** 20, 1),
            "bytes_per_document": int(held / max(st["documents"], 1)), "fill_s_traced": round(fill_s, 1)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--messages", type=int, default=3000)
    ap.add_argument("--project", type=Path)
    ap.add_argument("--persona", default="john-snibert")
    ap.add_argument("--depth", type=int, default=200)
    ap.add_argument("--rankers", nargs="+", default=["bm25", "linear", "lambdamart", "adarank", "ca"])
    ap.add_argument("--latency-only", action="store_true",
                    help="skip the ranker training measurements: feature extraction and protected search latency only")
    ap.add_argument("--repeat", type=int, default=2,
                    help="times the protected search queries are searched again on the warm session (default 2)")
    ap.add_argument("--no-memory", action="store_true",
                    help="skip measuring a term cache holding every message with tracemalloc")
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
        searched = []
        lat = []
        for q in queries:
            try:
                res = s.protected_search(q, args.persona, approach="joint", k=10)
            except Exception:
                continue
            searched.append(q)
            lat.append(res["ms"])
        out["protected_search_ms"] = _summary(lat)
        lat = [s.protected_search(q, args.persona, approach="joint", k=10)["ms"]
               for _ in range(max(0, args.repeat)) for q in searched]
        if lat:
            out["protected_search_repeat_ms"] = _summary(lat)
        if DocumentTermCache is not None:
            out["term_cache"] = term_cache(s).stats()
            if not args.no_memory:
                out["term_cache_full"] = _cache_memory(s)
    out["loadavg_1_5_15"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(out, indent=1))
    if tmp:
        tmp.cleanup()


if __name__ == "__main__":
    main()
