"""CSV tables and PNG charts (matplotlib, Agg backend) for an experiment result."""
from __future__ import annotations

import csv
import os
import tempfile
from pathlib import Path

from ..errors import InputError


def prepare_report_dir(out_dir) -> bool:
    """Make sure the report folder exists and files can be written in it, before an experiment
    runs (so a bad path is not found only after hours of work). Returns True when the folder
    was created here (a caller may remove it, still empty, if the experiment then fails).
    Raises :class:`InputError` when the path is a file, lies under a file, or is not writable."""
    out = Path(out_dir)
    existed = out.is_dir()
    try:
        out.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".sasc-write-test-", dir=out)
        os.close(fd)
        os.unlink(probe)
    except FileExistsError:
        raise InputError(f"report folder {out} is an existing file, not a folder") from None
    except NotADirectoryError:
        raise InputError(f"report folder {out} cannot be made: part of its path is a file, not a folder") from None
    except OSError as exc:
        raise InputError(f"report folder {out} cannot be made or written: {exc.strerror or exc}") from None
    return not existed


def _save(fig, out, name: str) -> str:
    import matplotlib.pyplot as plt  # already loaded by write_report (Agg backend)
    fig.tight_layout()
    fig.savefig(out / name, dpi=110)
    plt.close(fig)
    return name


def per_topic_series(result: dict) -> tuple[str, dict[str, list[tuple[str, list[float]]]]]:
    """What per_topic_csdcg.png plots: its measure (the first CS-DCG evaluation measure, else the
    first measure) and, per ranker, ``(approach, values)`` for every approach of the experiment
    (with and without cluster replacement) with a defined value on some topic, the values sorted
    best to worst (undefined topics left out)."""
    measures = result["measures"]
    cs = next((m for m in measures if m.split("@")[0] == "CS-DCG"), measures[0])
    by = {(r["ranker"], r["approach"], r["measure"]): r for r in result["results"]}
    out: dict[str, list[tuple[str, list[float]]]] = {}
    for rk in result["rankers"]:
        out[rk] = []
        for a in result["approaches"]:
            r = by.get((rk, a, cs))
            vals = sorted((v for v in (r or {}).get("per_topic", {}).values() if v is not None), reverse=True)
            if vals:
                out[rk].append((a, vals))
    return cs, out


def cutoff_figure(result: dict):
    """cutoff.png's figure: per ranker a panel of the first measure's mean over topics against the
    number of documents shown, one line per approach (a gap where no topic is defined)."""
    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib.ticker import MaxNLocator

    rankers, m0 = result["rankers"], result["measures"][0]
    fig, axes = plt.subplots(1, len(rankers), figsize=(min(20, max(8, 4.6 * len(rankers))), 4.8), sharey=True,
                             squeeze=False)
    for ax, rk in zip(axes[0], rankers):
        for c in result.get("cutoff_curves", []):
            if c["ranker"] == rk:
                ys = [np.nan if v is None else v for v in c["values"]]   # None: no topic defined at that cutoff
                ax.plot(range(len(ys)), ys, marker=".", label=c["approach"])
        ax.set_xlabel("cutoff (documents shown)")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))   # (no "1.5 documents shown")
        ax.set_title(rk)
        if ax.lines:
            ax.legend(fontsize=8)
    axes[0][0].set_ylabel(f"mean {m0}")
    fig.suptitle(f"Score against cutoff: {result['persona']}")
    return fig


def approaches_figure(result: dict):
    """approaches.png's figure: the first measure's mean per approach, a bar per ranker with its
    95% confidence interval; an undefined mean (no topic defined) has no bar but a label."""
    import matplotlib.pyplot as plt
    import numpy as np

    m0 = result["measures"][0]
    rankers, approaches = result["rankers"], result["approaches"]
    by = {(r["ranker"], r["approach"], r["measure"]): r for r in result["results"]}
    fig, ax = plt.subplots(figsize=(min(14, max(8, 0.9 * len(approaches))), 6))
    width = 0.8 / max(1, len(rankers))
    x = np.arange(len(approaches))
    for i, rk in enumerate(rankers):
        rows = [by[(rk, a, m0)] for a in approaches]
        # An undefined mean (no topic defined) gets no bar and says so: a 0 bar would read as a
        # real score of 0 (e.g. "shows no sensitive mail" for an F-docs nobody could compute).
        means = [np.nan if r["mean"] is None else r["mean"] for r in rows]
        err = [[r["mean"] - r["ci"][0] if r["mean"] is not None and r["ci"] else 0 for r in rows],
               [r["ci"][1] - r["mean"] if r["mean"] is not None and r["ci"] else 0 for r in rows]]
        xs = x + (i - (len(rankers) - 1) / 2) * width
        ax.bar(xs, means, width, yerr=err, capsize=3, label=rk)
        for xi, r in zip(xs, rows):
            if r["mean"] is None:
                ax.text(xi, 0, f"undefined\n(0 of {r['n_topics'] + r['undefined_topics']} topics)", ha="center",
                        va="bottom", rotation=90, fontsize=7, color="dimgrey")
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xticks(x)
    ax.set_xticklabels(approaches, rotation=30, ha="right")
    ax.set_ylabel(f"mean {m0} (95% CI)")
    ax.set_title(f"Search and protect: {result['persona']}, classifier {result['classifier']}")
    ax.legend(title="ranker")
    return fig


def write_report(result: dict, out_dir) -> list[str]:
    """Write the CSV tables and PNG charts into ``out_dir`` (made when missing); returns the
    file names. A file system problem is an :class:`InputError` naming the folder."""
    try:
        return _write_report(result, out_dir)
    except OSError as exc:
        where = f" ({exc.filename})" if getattr(exc, "filename", None) else ""
        raise InputError(f"cannot write the report in {out_dir}: {exc.strerror or exc}{where}") from None


def _write_report(result: dict, out_dir) -> list[str]:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    files = []
    with open(out / "results.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["ranker", "approach", "measure", "mean", "ci_low", "ci_high", "n_topics", "undefined", "shown_sensitive"])
        for r in result["results"]:
            ci = r.get("ci") or [None, None]
            w.writerow([r["ranker"], r["approach"], r["measure"], r["mean"], ci[0], ci[1], r["n_topics"],
                        r["undefined_topics"], r["shown_sensitive"]])
    with open(out / "per_topic.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["ranker", "approach", "measure", "topic", "value"])
        for r in result["results"]:
            for t, v in r["per_topic"].items():
                w.writerow([r["ranker"], r["approach"], r["measure"], t, v])
    with open(out / "tests.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        cols = ["ranker", "measure", "a", "b", "n", "mean_a", "mean_b", "mean_diff", "t_p", "wilcoxon_p", "sign_p",
                "wins", "losses", "t_significant", "wilcoxon_significant", "sign_significant"]
        w.writerow(cols)
        for t in result["tests"]:
            w.writerow([t[c] for c in cols])
    files += ["results.csv", "per_topic.csv", "tests.csv"]

    files.append(_save(approaches_figure(result), out, "approaches.png"))
    rankers, approaches = result["rankers"], result["approaches"]

    # 2. per-topic CS-DCG sorted best to worst: every approach run, one panel per ranker
    cs, series = per_topic_series(result)
    fig, axes = plt.subplots(1, len(rankers), figsize=(min(20, max(8, 4.6 * len(rankers))), 4.8), sharey=True,
                             squeeze=False)
    bases = list(dict.fromkeys(a.removesuffix("+cr") for a in approaches))
    for ax, rk_ in zip(axes[0], rankers):
        for a, vals in series[rk_]:
            ax.plot(range(1, len(vals) + 1), vals, marker="o", ms=3, color=f"C{bases.index(a.removesuffix('+cr')) % 10}",
                    linestyle="--" if a.endswith("+cr") else "-", label=a)
        ax.axhline(0, color="grey", lw=0.8)
        ax.set_xlabel("topics, sorted best to worst")
        ax.set_title(rk_)
        if series[rk_]:
            ax.legend(fontsize=8)
        else:
            ax.text(0.5, 0.5, f"no topic has a defined {cs}\n(for any approach)", ha="center", va="center",
                    transform=ax.transAxes)
    axes[0][0].set_ylabel(cs)
    fig.suptitle(f"Per-topic {cs}" + ("; dashed = with cluster replacement" if any(a.endswith("+cr") for a in approaches)
                                      else ""))
    files.append(_save(fig, out, "per_topic_csdcg.png"))

    # 3. score against cutoff: one panel per ranker
    files.append(_save(cutoff_figure(result), out, "cutoff.png"))
    return files
