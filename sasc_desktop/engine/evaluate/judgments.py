"""Judgments for evaluation: relevance grades and one persona's sensitivity levels.

Rules (from the measures spec):
* Unjudged documents are not relevant (grade 0) and not sensitive (level 0).
* A topic's *judged pool* is every document with a relevance judgment for the topic, every
  document with a per-topic sensitivity judgment for it, and every document with a
  topic-independent sensitivity judgment (``persona docid level``) that an evaluated run lists
  for the topic, at any rank (a document the system retrieved is one it could have shown; an
  "I don't know" judgment is dropped when read, so such a document is unjudged). Bounds and
  ideals are over the pool. Before the last rule a judged-sensitive document outside the qrels
  was charged when shown but could never be in the worst case, and nCS-DCG_f and nDCG_f went far
  outside [0, 1] (-12 for a list of one such document at cost 12).
* The measures whose bounds range over sub-lists (nCS-DCG_f, nDCG_f: ``Measure.LISTED_POOL``)
  also take in the unjudged documents a run lists for the topic, as neither relevant nor
  sensitive (``unjudged=True`` below; up to ``gaps`` of them, the largest such k: more never
  change a bound over lists of at most k documents). The worst case may use them as gaps too,
  so every list a run shows is one of the lists the bounds range over, and its value is in
  [0, 1]. This is ``sasc experiment``'s rule (every candidate of a topic is in its pool): with
  a run listing the experiment's candidates among the runs evaluated, a list scores on these
  measures as the experiment scores it. The other measures keep the spec's bounds over the
  judged documents (a list with unjudged documents can fall outside them, as before).
* :func:`~sasc_desktop.engine.evaluate.measures.evaluate_run` adds the documents of the run it
  scores (:meth:`Judgments.with_listed`); ``sasc evaluate`` adds those of every run given
  (their union), so the runs it compares share one pool and one set of bounds.
* The evaluated topics are those with judgments (qrels or per-topic sensitivity); run topics
  without judgments are ignored (as trec_eval does) and a judged topic missing from a run is an
  empty list.
"""
from __future__ import annotations

from typing import Iterable, Mapping, Sequence

import numpy as np

from .errors import MeasureError
from .formats import natural_sorted, qrels_map, sensitivity_maps
from .kernels import work_width
from .records import Qrel, SensJudgment

Run = Mapping[str, Sequence[str]]


class Judgments:
    """Relevance and sensitivity judgments (one persona), ready for batch evaluation.

    ``qrels``: topic -> {docid: grade}. ``sensitivity``: docid -> level (topic-independent).
    ``topic_sensitivity``: topic -> {docid: level} (per topic; overrides ``sensitivity``).
    ``listed``: topic -> docids with a topic-independent sensitivity judgment that a run lists
    for the topic; ``gaps``: topic -> unjudged docids a run lists for it (both made by
    :meth:`with_listed`; usually left out). Treat an instance as read-only; it caches pool
    summaries.
    """

    def __init__(self, qrels: Mapping[str, Mapping[str, int]],
                 sensitivity: Mapping[str, int] | None = None,
                 topic_sensitivity: Mapping[str, Mapping[str, int]] | None = None,
                 listed: Mapping[str, Iterable[str]] | None = None,
                 gaps: Mapping[str, Iterable[str]] | None = None):
        self.qrels = {str(t): dict(d) for t, d in qrels.items()}
        self.sensitivity = dict(sensitivity or {})
        self.topic_sensitivity = {str(t): dict(d) for t, d in (topic_sensitivity or {}).items()}
        self.topics: tuple[str, ...] = tuple(natural_sorted(set(self.qrels) | set(self.topic_sensitivity)))
        self.listed = self._outside(listed)
        self.gaps = self._outside(gaps, self.listed)
        self._sets = {t: set(docs) for t, docs in self.listed.items()}
        for t, docs in self.gaps.items():
            self._sets.setdefault(t, set()).update(docs)
        self._counts: dict[tuple, np.ndarray] = {}

    def _outside(self, extra: Mapping[str, Iterable[str]] | None,
                 taken: Mapping[str, Sequence[str]] | None = None) -> dict[str, tuple[str, ...]]:
        """``extra`` for the judged topics, each document once and outside the topic's qrels,
        per-topic judgments and ``taken``."""
        out: dict[str, tuple[str, ...]] = {}
        for t, docs in (extra or {}).items():
            t = str(t)
            if t not in self.qrels and t not in self.topic_sensitivity:
                continue                                  # not an evaluated topic
            q, ts = self.qrels.get(t, {}), self.topic_sensitivity.get(t, {})
            other = set(taken.get(t, ())) if taken else ()
            kept = tuple(d for d in dict.fromkeys(docs) if d not in q and d not in ts and d not in other)
            if kept:
                out[t] = kept
        return out

    def with_listed(self, runs: Iterable[Run], gaps: int = 0) -> "Judgments":
        """These judgments with the documents ``runs`` (each topic -> docids) list for each
        judged topic, at any rank, outside its qrels and per-topic judgments: every one with a
        topic-independent sensitivity judgment joins the topic's pool (:attr:`listed`), and
        unjudged ones, up to ``gaps`` per topic (distinct, over all runs; first listed first),
        join the ``unjudged=True`` pool (:attr:`gaps`); see the module's rules. Returns
        ``self`` when nothing is added (its cached pool summaries are kept)."""
        gs = self.sensitivity
        add_listed: dict[str, dict[str, None]] = {}
        add_gaps: dict[str, dict[str, None]] = {}
        for run in runs:
            for t in self.topics:
                docs = run.get(t)
                if docs is None or not len(docs):
                    continue
                q, ts, have = self.qrels.get(t, {}), self.topic_sensitivity.get(t, {}), self._sets.get(t, ())
                if gs:   # filter with a C-level test first: most listed documents have no judgment
                    new = [d for d in filter(gs.__contains__, docs) if d not in q and d not in ts and d not in have]
                    if new:
                        add_listed.setdefault(t, {}).update(dict.fromkeys(new))
                more = gaps - len(self.gaps.get(t, ())) - len(add_gaps.get(t, ()))
                if more > 0:
                    got = add_gaps.setdefault(t, {})
                    for d in docs:
                        if d not in q and d not in ts and d not in gs and d not in have and d not in got:
                            got[d] = None
                            more -= 1
                            if not more:
                                break
                    if not got:
                        del add_gaps[t]
        if not add_listed and not add_gaps:
            return self

        def joined(old: dict[str, tuple[str, ...]], new: dict[str, dict[str, None]]) -> dict[str, list[str]]:
            out = {t: list(docs) for t, docs in old.items()}
            for t, docs in new.items():
                out.setdefault(t, []).extend(docs)
            return out
        return Judgments(self.qrels, self.sensitivity, self.topic_sensitivity,
                         joined(self.listed, add_listed), joined(self.gaps, add_gaps))

    @classmethod
    def from_records(cls, qrels: Iterable[Qrel], sensitivity: Iterable[SensJudgment] = (),
                     persona: str | None = None) -> "Judgments":
        """Build from file records; ``persona`` must be given if several personas are present."""
        general, per_topic = sensitivity_maps(sensitivity, persona)
        return cls(qrels_map(qrels), general, per_topic)

    # ------------------------------------------------------------------------- look-ups
    def level(self, topic: str, docid: str) -> tuple[int, int]:
        rel = self.qrels.get(topic, {}).get(docid, 0)
        ts = self.topic_sensitivity.get(topic)
        if ts is not None and docid in ts:
            return rel, ts[docid]
        return rel, self.sensitivity.get(docid, 0)

    def levels(self, topic: str, docids: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """(grades, levels) of ``docids`` for ``topic`` as int64 arrays (unjudged -> 0, 0)."""
        q = self.qrels.get(topic, {})
        ts = self.topic_sensitivity.get(topic, {})
        gs = self.sensitivity
        rel = np.fromiter((q.get(d, 0) for d in docids), dtype=np.int64, count=len(docids))
        if ts:
            sens = np.fromiter((ts[d] if d in ts else gs.get(d, 0) for d in docids), dtype=np.int64, count=len(docids))
        elif gs:
            sens = np.fromiter((gs.get(d, 0) for d in docids), dtype=np.int64, count=len(docids))
        else:
            sens = np.zeros(len(docids), dtype=np.int64)
        return rel, sens

    def pool(self, topic: str, unjudged: bool = False) -> tuple[list[str], np.ndarray, np.ndarray]:
        """The topic's judged pool: (docids, grades, levels); with ``unjudged``, the unjudged
        documents runs list too (:attr:`gaps`, grade 0, level 0)."""
        q = self.qrels.get(topic, {})
        docs = list(q)
        extra = [d for d in self.topic_sensitivity.get(topic, {}) if d not in q]
        docs.extend(extra)
        docs.extend(self.listed.get(topic, ()))
        if unjudged:
            docs.extend(self.gaps.get(topic, ()))
        rel, sens = self.levels(topic, docs)
        return docs, rel, sens

    def pool_counts(self, topics: Sequence[str] | None = None, unjudged: bool = False) -> np.ndarray:
        """Class counts ``[T, G + 1, L + 1]``: how many pool documents of each topic have
        grade g (negative grades count as 0) and sensitivity level l (negative levels count
        as 0); with ``unjudged``, the pools of :meth:`pool` with ``unjudged``."""
        topics = tuple(self.topics if topics is None else topics)
        key = (topics, bool(unjudged))
        cached = self._counts.get(key)
        if cached is not None:
            return cached
        # Vectorised: every qrels document starts at (grade, level 0); only documents with a
        # sensitivity judgment are looked up one by one, and only in C-level dict operations.
        T = len(topics)
        gs = self.sensitivity
        sizes = np.zeros(T, dtype=np.int64)
        grades: list[int] = []
        # judged-sensitivity entries: topic index, grade (0 when not in the qrels), whether the
        # document is in the qrels (kept apart from the grade: every grade, -1 included, is a
        # valid qrels grade), level
        j_topic: list[int] = []
        j_grade: list[int] = []
        j_inq: list[bool] = []
        j_level: list[int] = []
        for i, t in enumerate(topics):
            q = self.qrels.get(t, {})
            sizes[i] = len(q)
            grades.extend(q.values())
            ts = self.topic_sensitivity.get(t)
            docs = list(ts) if ts else []
            if gs:
                docs.extend(d for d in gs.keys() & q.keys() if not ts or d not in ts)
            if docs:
                j_topic.extend([i] * len(docs))
                j_grade.extend([q.get(d, 0) for d in docs])
                j_inq.extend([d in q for d in docs])
                j_level.extend([ts[d] if ts and d in ts else gs.get(d, 0) for d in docs])
            listed = self.listed.get(t)
            if listed:                      # outside q and ts: a (0, level) document each
                j_topic.extend([i] * len(listed))
                j_grade.extend([0] * len(listed))
                j_inq.extend([False] * len(listed))
                j_level.extend([gs.get(d, 0) for d in listed])
        counts = _class_counts(T, sizes, np.array(grades, dtype=np.int64), np.array(j_topic, dtype=np.int64),
                               np.array(j_grade, dtype=np.int64), np.array(j_inq, dtype=bool),
                               np.array(j_level, dtype=np.int64))
        if unjudged:
            for i, t in enumerate(topics):
                counts[i, 0, 0] += len(self.gaps.get(t, ()))
        self._counts[key] = counts
        return counts

    def ranked_levels(self, run: Run, k: int, topics: Sequence[str] | None = None
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Levels of each topic's top k documents: ``(grades [T, w], levels [T, w],
        lengths [T])`` with w = k, or fewer when k is far past the longest list; positions past a list's end hold 0.
        Topics missing from ``run`` are empty lists.

        A document ranked twice in a topic's top k is a :class:`MeasureError` naming the topic
        and the document (it would be counted twice; the run-file reader rejects duplicates
        anywhere in a file, this checks the part that is evaluated)."""
        topics = tuple(self.topics if topics is None else topics)
        T = len(topics)
        tops: list[list[str]] = []
        for t in topics:
            docs = run.get(t)
            top = list(docs[:k]) if docs else []
            if len(set(top)) != len(top):
                _duplicate_error(t, top)
            tops.append(top)
        # Columns: k, or only as many as the longest list shows when k is huge (positions past
        # every list's end are 0 and not shown); see kernels.work_width.
        w = work_width(k, max((len(top) for top in tops), default=0))
        R = np.zeros((T, w), dtype=np.int64)
        S = np.zeros((T, w), dtype=np.int64)
        lengths = np.zeros(T, dtype=np.int64)
        for i, (t, top) in enumerate(zip(topics, tops)):
            n = len(top)
            if not n:
                continue
            r, s = self.levels(t, top)
            R[i, :n] = r
            S[i, :n] = s
            lengths[i] = n
        return R, S, lengths


def _duplicate_error(topic: str, docs: Sequence[str]) -> None:
    first: dict[str, int] = {}
    for rank, d in enumerate(docs, 1):
        if d in first:
            raise MeasureError(f"document {d} appears twice in the ranked list for topic {topic} (ranks "
                               f"{first[d]} and {rank}): a ranked list names each document once")
        first[d] = rank


def _class_counts(T: int, sizes: np.ndarray, grades: np.ndarray, j_topic: np.ndarray, j_grade: np.ndarray,
                  j_in_qrels: np.ndarray, j_level: np.ndarray) -> np.ndarray:
    """Counts [T, G, L] from the qrels grades (all at level 0) corrected by the sensitivity
    judgments: a judged qrels document (``j_in_qrels``) moves from (grade, 0) to (grade,
    level); a per-topic judgment of a document outside the qrels adds a (0, level) document.
    Negative grades count as 0 and negative levels ("I don't know") as 0, as the measures do."""
    grades = np.maximum(grades, 0)
    jg = np.where(j_in_qrels, np.maximum(j_grade, 0), 0)
    jl = np.maximum(j_level, 0)
    G = int(max(grades.max(initial=0), jg.max(initial=0))) + 1
    L = int(jl.max(initial=0)) + 1
    size = max(T, 1) * G * L
    flat = np.bincount((np.repeat(np.arange(T), sizes) * G + grades) * L, minlength=size)
    flat += np.bincount((j_topic * G + jg) * L + jl, minlength=size)
    flat -= np.bincount(((j_topic * G + jg) * L)[j_in_qrels], minlength=size)
    return flat[: T * G * L].reshape(T, G, L)


def counts_from_levels(rel_parts: Sequence[np.ndarray], sens_parts: Sequence[np.ndarray]) -> np.ndarray:
    """Class counts ``[T, G + 1, L + 1]`` from per-topic arrays of grades and levels."""
    T = len(rel_parts)
    sizes = np.array([len(r) for r in rel_parts], dtype=np.int64)
    if T == 0 or sizes.sum() == 0:
        return np.zeros((T, 1, 1), dtype=np.int64)
    rel = np.maximum(np.concatenate([np.asarray(r, dtype=np.int64) for r in rel_parts]), 0)
    sens = np.maximum(np.concatenate([np.asarray(s, dtype=np.int64) for s in sens_parts]), 0)
    G, L = int(rel.max()) + 1, int(sens.max()) + 1
    tidx = np.repeat(np.arange(T), sizes)
    flat = np.bincount((tidx * G + rel) * L + sens, minlength=T * G * L)
    return flat.reshape(T, G, L)


__all__ = ["Judgments", "Run", "counts_from_levels"]
