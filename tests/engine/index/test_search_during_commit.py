"""Searching while an import commits to the index: a commit writes a new table of contents,
deletes the old one, merges small segments and deletes their files. A search that opens or reads
the index just then must not fail (SearchIndex retries once on a fresh searcher), and a searcher
left behind by a commit must fail loudly, never score on with a field's lengths missing.
Real Whoosh indexes, real commits from another thread; no mocks."""
from __future__ import annotations

import threading
from pathlib import Path

import pytest

from sasc_desktop.engine.index.fastscore import FastScorer
from sasc_desktop.engine.index.search_index import SearchIndex


def add(idx: SearchIndex, start: int, n: int, merge: bool = True, optimize: bool = False) -> None:
    w = idx.writer()
    for i in range(start, start + n):
        w.add_document(doc_id=f"d{i}", id=i, subject=f"report {i}", body="the weekly report " * (1 + i % 4))
    w.commit(merge=merge, optimize=optimize)   # (merging small segments deletes their files)


def test_searches_during_a_stream_of_commits_never_fail(tmp_path: Path):
    idx = SearchIndex(tmp_path / "ix", create=True)
    add(idx, 0, 20)
    done = threading.Event()
    failures: list[BaseException] = []

    def writer():
        try:
            for k in range(60):
                add(idx, 1000 + 5 * k, 5)
        except BaseException as exc:  # pragma: no cover - reported below
            failures.append(exc)
        finally:
            done.set()

    t = threading.Thread(target=writer)
    t.start()
    errors, searches, last_total = [], 0, 20
    while not done.is_set() or searches < 20:
        try:
            hits, total, _ms, _q = idx.search("report", limit=10)
            ids, scores, total2, _ms, _q = idx.ranked("weekly")
        except Exception as exc:
            errors.append(repr(exc))
            continue
        finally:
            searches += 1
        # every answer is of one whole generation of the index, never a partial one
        assert 20 <= total <= 320 and (total - 20) % 5 == 0 and len(hits) == 10
        assert total2 == len(ids) == len(scores) and (total2 - 20) % 5 == 0 and (ids >= 0).all()
        assert total >= last_total  # (documents are only added)
        last_total = total
    t.join()
    assert not failures
    assert errors == [], f"{len(errors)} of {searches} searches failed: {errors[:3]}"
    hits, total, _ms, _q = idx.search("report", limit=400)
    assert total == 320 and {h[0] for h in hits} == set(range(20)) | set(range(1000, 1300))
    idx.close()


def test_a_searcher_left_behind_by_a_merging_commit_fails_loudly(tmp_path: Path):
    idx = SearchIndex(tmp_path / "ix", create=True)
    for k in range(3):
        add(idx, 10 * k, 5, merge=False)   # three small segments
    stale = idx.ix.searcher()            # opened; its stored fields and lengths not read yet
    assert len(list(stale.reader().leaf_readers())) == 3
    add(idx, 100, 5, optimize=True)      # merges the three: their files are deleted
    assert len(list(idx.searcher().reader().leaf_readers())) == 1
    assert not stale.up_to_date() and idx._outdated(stale)
    # Whoosh finds no stored-fields column for the merged-away segment (what it raises, for the record)
    with pytest.raises(TypeError, match="not subscriptable"):
        stale.stored_fields(0)
    # the fast scorer refuses to score with the lengths gone (it would have used a length of 1)
    with pytest.raises(FileNotFoundError, match="merged away"):
        FastScorer(stale, idx.searcher().weighting).search([("body", "report", 1.0)], 10)
    stale.close()
    # the index itself answers from its current generation
    hits, total, _ms, _q = idx.search("report", limit=100)
    assert total == 20 and sorted(h[0] for h in hits) == [0, 1, 2, 3, 4, 10, 11, 12, 13, 14, 20, 21, 22, 23, 24,
                                                         100, 101, 102, 103, 104]
    idx.close()
