"""Ingest + index throughput and search latency, printed as ONE JSON object.

    python benchmarks/ingest_search.py                  # 50,000 demo messages + spamassassin
    python benchmarks/ingest_search.py --messages 5000  # smaller demo mailbox
    python benchmarks/ingest_search.py --skip-spamassassin --demo-dir /tmp/demo50k

For each collection: end-to-end emails/s (parse + SQLite + Whoosh index, all copies read from
the source, counted over wall-clock seconds of Session.ingest), the CPU seconds that took (this
process plus its worker processes, sampled from /proc: a load-independent figure on a shared machine), index and
SQLite size on disk, peak memory (ru_maxrss of this process and of its largest child), and
search latency p50/p95 over 200 queries (top 10 and top 100), measured around Session.search
(query parsing, Whoosh search and total count, summary rows from SQLite), and p50/p95 for
kinds of queries that are not plain words (query_kinds_ms: prefixes and wildcards, date
filters, a word with a date filter, a folder filter sorted by date, sender or subject from an
offset). --project DIR measures only the searches of an existing project. Queries are drawn
deterministically: the demo topics' titles plus words and word pairs from the collection's
vocabulary (seeded). The demo collection is generated outside the timed part.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sasc_desktop.engine.session import Session  # noqa: E402

SPAMASSASSIN = ROOT.parent / "shared" / "data" / "spamassassin"


def du(path: Path) -> int:
    return sum(p.stat().st_size for p in Path(path).rglob("*") if p.is_file())


class DescendantCPU:
    """CPU seconds of this process and every process below it. Ingest workers are started from
    a fork server, so they are grandchildren that RUSAGE_CHILDREN never sees: sample their
    /proc/PID/stat while they run (twice a second) and keep the last value of each, and
    their peak resident memory from /proc/PID/status."""

    def __init__(self):
        import threading
        self.seen: dict[int, float] = {}
        self.peak_rss_mb = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _descendants(self) -> list[int]:
        parents: dict[int, int] = {}
        for d in Path("/proc").iterdir():
            if d.name.isdigit():
                try:
                    parents[int(d.name)] = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
                except (OSError, ValueError, IndexError):
                    pass
        out, frontier = [], [os.getpid()]
        while frontier:
            pid = frontier.pop()
            kids = [c for c, p in parents.items() if p == pid]
            out.extend(kids)
            frontier.extend(kids)
        return out

    def sample(self) -> None:
        tick = os.sysconf("SC_CLK_TCK")
        for pid in self._descendants():
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                self.seen[pid] = (int(fields[11]) + int(fields[12])) / tick
                for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                    if line.startswith("VmHWM:"):
                        self.peak_rss_mb = max(self.peak_rss_mb, int(line.split()[1]) / 1024)
            except (OSError, ValueError, IndexError):
                pass

    def _run(self) -> None:
        while not self._stop.wait(0.5):
            self.sample()

    def __enter__(self):
        me = resource.getrusage(resource.RUSAGE_SELF)
        self._self0 = me.ru_utime + me.ru_stime
        self.sample()
        self._base = dict(self.seen)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        me = resource.getrusage(resource.RUSAGE_SELF)
        self.main_seconds = me.ru_utime + me.ru_stime - self._self0
        self.worker_seconds = sum(v - self._base.get(pid, 0.0) for pid, v in self.seen.items())
        self.seconds = self.main_seconds + self.worker_seconds


def percentile(values: list[float], p: float) -> float:
    values = sorted(values)
    k = (len(values) - 1) * p
    lo, hi = int(k), min(int(k) + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


def vocabulary_queries(session: Session, n: int, seed: int, titles: list[str]) -> list[str]:
    """Titles first, then single words and pairs from mid-frequency body terms (not stop-like)."""
    reader = session.index.searcher().reader()
    docs = reader.doc_count()
    from whoosh.analysis.filters import STOP_WORDS
    terms = [t.decode() for t, info in reader.iter_field("body")
             if t.isalpha() and 3 <= len(t) <= 12 and 5 <= info.doc_frequency() <= docs * 0.3]
    terms = [t for t in terms if t not in STOP_WORDS]
    rng = random.Random(seed)
    rng.shuffle(terms)
    queries = list(titles)[:n]
    i = 0
    while len(queries) < n and terms:
        if i % 3 == 2:
            queries.append(f"{terms[i % len(terms)]} {terms[(i * 7 + 1) % len(terms)]}")
        else:
            queries.append(terms[i % len(terms)])
        i += 1
    return queries[:n]


def measure(name: str, sources: list[Path], titles: list[str], seed: int, workdir: Path) -> dict:
    project = workdir / f"project-{name}"
    shutil.rmtree(project, ignore_errors=True)
    Session.create(project).close()
    with Session.open(project) as s:
        with DescendantCPU() as cpu_meter:
            t0 = time.perf_counter()
            report = s.ingest(sources)
            seconds = time.perf_counter() - t0
        cpu = cpu_meter.seconds
        read = report.ingested + report.duplicates + len(report.skipped)
        out = {
            "messages_read": read,
            "ingested": report.ingested,
            "duplicates": report.duplicates,
            "skipped": len(report.skipped),
            "seconds": round(seconds, 2),
            "emails_per_s": round(read / seconds, 1),
            "cpu_seconds": round(cpu, 2),
            "cpu_seconds_main": round(cpu_meter.main_seconds, 2),
            "cpu_seconds_workers": round(cpu_meter.worker_seconds, 2),
            "worker_peak_rss_mb": round(cpu_meter.peak_rss_mb, 1),
            "emails_per_cpu_s": round(read / cpu, 1),
            "index_mb": round(du(s.paths.index) / 1e6, 1),
            "sqlite_mb": round(sum(p.stat().st_size for p in project.glob("project.sqlite*")) / 1e6, 1),
        }
        queries = vocabulary_queries(s, 200, seed, titles)
        s.search(queries[0], limit=10)  # warm the searcher once
        for limit in (10, 100):
            times, totals = [], []
            for q in queries:
                t = time.perf_counter()
                r = s.search(q, limit=limit)
                times.append((time.perf_counter() - t) * 1000)
                totals.append(r.total)
            out[f"search_top{limit}_ms"] = {"p50": round(percentile(times, 0.5), 1),
                                            "p95": round(percentile(times, 0.95), 1),
                                            "max": round(max(times), 1)}
        out["queries"] = len(queries)
        out["mean_hits_per_query"] = round(statistics.mean(totals), 1)
        out["query_kinds_ms"] = query_kinds(s, queries, seed)
    return out


def kind_queries(s: Session, words: list[str], seed: int, n: int = 40) -> dict[str, list[tuple]]:
    """Queries of the shapes that are not plain words, as (query, sort, descending, offset):
    prefixes and wildcards, date filters, a word with a date filter, a folder filter sorted."""
    rng = random.Random(seed)
    words = [w for w in dict.fromkeys(" ".join(words).split()) if w.isalpha() and len(w) > 3] or ["budget"]
    months = [r[0] for r in s.store.con.execute(
        "SELECT DISTINCT substr(date, 1, 7) FROM messages WHERE date IS NOT NULL ORDER BY 1")] or ["2001-01"]
    years = sorted({m[:4] for m in months})
    folders = [r[0] for r in s.store.con.execute(
        "SELECT folder FROM messages WHERE folder != '' GROUP BY folder ORDER BY COUNT(*) DESC LIMIT 5")]
    leaves = sorted({p.strip("\\/").replace("\\", "/").split("/")[-1].lower() for p in folders}) or ["inbox"]
    pick = lambda xs: xs[rng.randrange(len(xs))]

    def date_filter():
        m = pick(months)
        return pick([f"date:{m[:4]}", f"date:{m}", f"date:>{m}", f"date:<{m}", f"date:[{pick(years)} to {m}]",
                     f"date:({m} {pick(months)})"])
    out = {
        "wildcard": [(pick([w[:1] + "*", w[:2] + "*", w[:3] + "*", w[0] + "?" + w[2:]]), None, False, 0) for w in
                     (pick(words) for _ in range(n))],
        "date_filter": [(date_filter(), None, False, 0) for _ in range(n)],
        "word_date": [(f"{pick(words)} {date_filter()}", None, False, 0) for _ in range(n)],
        "folder_sorted": [(f'folder:"{pick(leaves)}"', pick(["date", "sender", "subject"]), rng.random() < 0.5,
                           pick([0, 0, 50, 500])) for _ in range(n)],
    }
    return out


def query_kinds(s: Session, words: list[str], seed: int) -> dict:
    """p50/p95/max of Session.search (top 100; the sorted ones 50 hits from an offset) for each
    kind of :func:`kind_queries`, each kind's queries run once for warming first."""
    out = {}
    for kind, qs in kind_queries(s, words, seed).items():
        for q, sort, desc, offset in qs[:3]:
            s.search(q, limit=10, sort=sort, descending=desc, offset=offset)
        times, totals = [], []
        for q, sort, desc, offset in qs:
            t = time.perf_counter()
            r = s.search(q, limit=50 if sort else 100, sort=sort, descending=desc, offset=offset)
            times.append((time.perf_counter() - t) * 1000)
            totals.append(r.total)
        out[kind] = {"p50": round(percentile(times, 0.5), 1), "p95": round(percentile(times, 0.95), 1),
                     "max": round(max(times), 1), "queries": len(qs), "mean_hits": round(statistics.mean(totals), 1),
                     "example": qs[0][0]}
    return out


def measure_project(project: Path, seed: int) -> dict:
    """Only the search latencies (plain words and the query kinds) of an existing project
    (--project: open it, a copy if it must not change)."""
    with Session.open(project) as s:
        queries = vocabulary_queries(s, 200, seed, [])
        s.search(queries[0], limit=10)
        out = {"messages": s.store.con.execute("SELECT COUNT(*) FROM messages").fetchone()[0]}
        for limit in (10, 100):
            times = []
            for q in queries:
                t = time.perf_counter()
                s.search(q, limit=limit)
                times.append((time.perf_counter() - t) * 1000)
            out[f"search_top{limit}_ms"] = {"p50": round(percentile(times, 0.5), 1),
                                            "p95": round(percentile(times, 0.95), 1), "max": round(max(times), 1)}
        out["query_kinds_ms"] = query_kinds(s, queries, seed)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--messages", type=int, default=50_000, help="unique demo messages (default 50000)")
    ap.add_argument("--seed", type=int, default=20261122)
    ap.add_argument("--demo-dir", type=Path, help="reuse a demo collection generated with these settings")
    ap.add_argument("--skip-spamassassin", action="store_true")
    ap.add_argument("--workdir", type=Path, help="where projects go (default: a temporary folder)")
    ap.add_argument("--project", type=Path, help="only measure the searches of this existing project (no ingest)")
    ap.add_argument("--whoosh", action="store_true", help="run every query through Whoosh (the figures before the fast paths)")
    args = ap.parse_args()
    if args.whoosh:
        from sasc_desktop.engine.index import fastscore
        fastscore.FORCE_WHOOSH = True
    if args.project is not None:
        result = {"load_average_before": [round(x, 2) for x in os.getloadavg()], "whoosh_only": args.whoosh,
                  "project": str(args.project), **measure_project(args.project, args.seed),
                  "load_average_after": [round(x, 2) for x in os.getloadavg()]}
        print(json.dumps(result, indent=2))
        return

    tmp = Path(tempfile.mkdtemp(prefix="sasc-bench-")) if args.workdir is None else args.workdir
    tmp.mkdir(parents=True, exist_ok=True)
    result: dict = {"cpus": os.cpu_count(), "python": sys.version.split()[0]}
    try:
        demo = args.demo_dir
        if demo is None:
            from sasc_desktop.engine.demo import generate
            demo = tmp / "demo"
            t = time.perf_counter()
            generate(demo, n_messages=args.messages, seed=args.seed)
            result["demo_generation_seconds"] = round(time.perf_counter() - t, 1)
        titles = [t["title"] for t in json.loads((demo / "topics.json").read_text())]
        result["load_average_before"] = [round(x, 2) for x in os.getloadavg()]
        result["demo"] = {"unique_messages": args.messages,
                          **measure("demo", [demo / "mail"], titles, args.seed, tmp)}
        if not args.skip_spamassassin and SPAMASSASSIN.is_dir():
            result["spamassassin"] = measure("spamassassin", [SPAMASSASSIN], [], args.seed, tmp)
        result["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
        me = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        result["peak_memory_mb"] = {"main": round(me / 1024, 1),
                                    "largest_worker": max(result[k]["worker_peak_rss_mb"] for k in ("demo", "spamassassin")
                                                          if k in result)}
    finally:
        if args.workdir is None:
            shutil.rmtree(tmp, ignore_errors=True)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
