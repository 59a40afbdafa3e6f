"""Protected search in a read-only project (a demo copied to read-only media) for a persona and
approach without a stored ranker: nothing can be trained or saved, so it searches with the BM25
stand-in in memory, as a project without judged topics does (model None, the candidates in
plain search's BM25 order), and says so ("ranker" "bm25", "trained" false, "model_up_to_date"
false, a "note"); no file is written and every judged-sensitive candidate is withheld.

The project is made read-only with the immutable attribute (chattr +i), which stops root too:
the whole folder, or only project.sqlite (the folder writable, where a training could have
written its ranker). The real demo project of conftest.py (judged topics: a writable project
trains a ranker here), real Whoosh, real SQLite."""
from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from sasc_desktop.cli import main as sasc
from sasc_desktop.engine.classify import probabilities_for
from sasc_desktop.engine.errors import InputError
from sasc_desktop.engine.protect import search as P
from sasc_desktop.engine.protect.quotes import quoting_judged
from sasc_desktop.engine.session import Session

DEMO_PERSONA = "john-snibert"      # conftest.py's demo persona (a ranker for some approaches, none for joint)
QUERY = "meeting OR thanks"   # (more candidates than 10 + the judged-sensitive among them)
NO_RANKER = ("the project is open for reading only, so no ranker can be trained or saved: there is no stored ranker "
             "for persona {persona} and approach {approach}, so the candidates are in BM25 order (documents judged "
             "sensitive are withheld all the same)")


def snapshot(root: Path) -> dict[str, tuple]:
    """Every file and folder under ``root``: contents' digest, size and modification time."""
    out = {}
    for p in sorted(root.rglob("*")):
        st = p.lstat()
        digest = hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
        out[str(p.relative_to(root))] = (digest, st.st_size, st.st_mtime_ns)
    return out


@pytest.fixture
def immutable(tmp_path):
    """chattr +i (not even root may change a file there); everything under tmp_path made
    mutable again afterwards, whatever happens."""
    if shutil.which("chattr") is None:
        pytest.skip("no chattr here: cannot make a folder read-only for root")

    def make(path: Path, recursive: bool) -> None:
        run = subprocess.run(["chattr", *(["-R"] if recursive else []), "+i", str(path)], capture_output=True, text=True)
        if run.returncode:
            pytest.skip(f"chattr +i is not possible here: {run.stderr.strip()}")
    yield make
    subprocess.run(["chattr", "-R", "-i", str(tmp_path)], capture_output=True, text=True)


def _closed_cleanly(root: Path) -> None:
    Session.open(root).close()           # (no -wal left: a read-only open needs none)
    assert not (root / "project.sqlite-wal").exists()


def _bm25_oracle(s, approach: str, k: int) -> tuple[list[str], set[str], list[str]]:
    """The searcher's list by hand: the query's candidates in plain search's order (BM25F with
    the project's field weights), the filtering approaches' probability filter, minus every
    judged-sensitive candidate, the first k. Also the judged-sensitive candidates, and all."""
    cands = [h.doc_id for h in s.search(QUERY, limit=200).hits]
    prob = probabilities_for(s, DEMO_PERSONA, cands)
    keep = [d for d, p in zip(cands, prob) if approach not in ("prefilter", "postfilter", "joint_postfilter")
            or p < P.THRESHOLD]
    judged = P.judged_sensitive(s, DEMO_PERSONA) & set(cands)
    quoting = quoting_judged(s, DEMO_PERSONA, cands, judged)      # (held back: they quote a judged one)
    return [d for d in keep if d not in judged and d not in quoting][:k], judged, cands


@pytest.mark.parametrize("which", ["whole project", "database only"])
def test_read_only_protected_search_without_a_ranker_uses_bm25_in_memory_and_writes_nothing(demo_copy, immutable,
                                                                                             which):
    root = demo_copy
    _closed_cleanly(root)
    with Session.open(root) as s:
        assert P.load_protection(s, DEMO_PERSONA, "joint") is None          # no stored ranker for these
        assert P.load_protection(s, DEMO_PERSONA, "prefilter") is None
        assert s.store.con.execute("SELECT COUNT(*) FROM qrels").fetchone()[0] > 0   # (writable: it would train)
    before = snapshot(root)
    if which == "whole project":
        immutable(root, recursive=True)
    else:
        immutable(root / "project.sqlite", recursive=False)
    with Session.open(root) as s:
        assert s.store.read_only
        for approach in ("joint", "prefilter"):
            expected, judged, cands = _bm25_oracle(s, approach, 10)
            assert len(judged) > 0 and len(cands) > 10 + len(judged)       # the withheld rule is exercised
            res = s.protected_search(QUERY, DEMO_PERSONA, approach=approach, k=10, show_withheld=True)
            assert (res["ranker"], res["trained"], res["model_up_to_date"]) == ("bm25", False, False)
            assert res["note"] == NO_RANKER.format(persona=DEMO_PERSONA, approach=approach)
            assert [h["doc_id"] for h in res["hits"]] == expected
            assert not {h["doc_id"] for h in res["hits"]} & judged
            assert (res["candidates"], res["withheld_judged_sensitive"]) == (len(cands), len(judged))
            scores = [h["score"] for h in res["hits"]]
            assert scores == sorted(scores, reverse=True)                  # BM25 scores, best first
            # the next page goes on where this one ended, still without a judged-sensitive document
            more, _, _ = _bm25_oracle(s, approach, 20)
            page2 = s.protected_search(QUERY, DEMO_PERSONA, approach=approach, k=10, offset=10)
            assert [h["doc_id"] for h in page2["hits"]] == more[10:]
        # a stored ranker is still used as it is (up to date: no note)
        res = s.protected_search(QUERY, DEMO_PERSONA, approach="relevance", k=10)
        assert (res["ranker"], res["trained"], res["model_up_to_date"]) == ("linear", False, True)
        assert "note" not in res
    assert snapshot(root) == before


def test_read_only_cli_protected_search_answers_and_learned_cutoffs_say_why_not(demo_copy, immutable, capsys):
    root = demo_copy
    _closed_cleanly(root)
    with Session.open(root) as s:
        expected, judged, _ = _bm25_oracle(s, "joint", 10)
    before = snapshot(root)
    immutable(root, recursive=True)
    capsys.readouterr()
    assert sasc(["search", str(root), QUERY, "--protect", "joint", "--persona", DEMO_PERSONA, "--json"]) == 0
    out, err_text = capsys.readouterr()
    res = json.loads(out)
    assert (res["ranker"], res["trained"], res["model_up_to_date"]) == ("bm25", False, False)
    assert [h["doc_id"] for h in res["hits"]] == expected
    # the read-only note on stderr (not the advice to --retrain, which cannot write here)
    assert err_text.strip() == f"note: {res['note']}" and "--retrain" not in err_text
    with Session.open(root) as s:
        with pytest.raises(InputError) as err:
            s.protected_search(QUERY, DEMO_PERSONA, approach="joint", cutoff="static")
        assert str(err.value) == (
            "cannot search with the static cutoff policy (a list length learned on validation topics): there is no "
            "trained ranker for it (the project is open for reading only, so none can be trained); use the fixed or "
            "dynamic policy")
        assert s.protected_search(QUERY, DEMO_PERSONA, approach="joint", cutoff="dynamic")["ranker"] == "bm25"
    assert snapshot(root) == before

