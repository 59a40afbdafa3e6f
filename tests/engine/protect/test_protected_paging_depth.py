"""Paging a protected search gives one list: the candidates ranked are the query's first
``depth`` matches whatever the page, so successive pages together are the one long list (same
order, no gap, no repeat), its length does not depend on the limit, and no document a person
judged sensitive is on any page. (The depth grew with offset + limit: pages ran out before the
list's end, and deeper pages reordered it.) Real demo projects, the real engine and CLI; the
depth is lowered through protected_search's own parameter to cross it in a small project."""
from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from sasc_desktop.cli import main as sasc
from sasc_desktop.engine.errors import InputError
from sasc_desktop.engine.index.schema import DEFAULT_FIELD_WEIGHTS
from sasc_desktop.engine.protect.search import SEARCH_DEPTH, judged_sensitive, protected_search
from sasc_desktop.engine.session import Session

PERSONA = "john-snibert"                                        # (the demo200 fixture's, conftest.py)
APPROACHES = ("relevance", "postfilter", "joint_postfilter")    # its trained rankers (linear, depth 60)
BROAD = "project budget meeting team please thanks update week"  # (the reviewer's query)
WHOLE = 10_000                                                  # a limit longer than any list here


def _ids(res) -> list[str]:
    return [h["doc_id"] for h in res["hits"]]


def _pages(s, query, approach, cutoff, k, depth, upto):
    """Pages of ``k`` from offset 0 while they are full, and one past the end (which is empty)."""
    pages, offset = [], 0
    while offset <= upto:
        page = protected_search(s, query, PERSONA, approach=approach, k=k, cutoff=cutoff, offset=offset, depth=depth)
        assert page["offset"] == offset and page["depth"] == depth
        assert [h["rank"] for h in page["hits"]] == list(range(offset + 1, offset + 1 + len(page["hits"])))
        pages.append(page)
        if len(page["hits"]) < k:
            break
        offset += k
    return pages


def _matches(s, query, limit):
    """The query's first ``limit`` stored matches as the ranked candidates are found: BM25F
    with the searched fields weighted alike (a trained ranker's candidates)."""
    weights = {**DEFAULT_FIELD_WEIGHTS, **s.settings()["field_weights"]}
    equal = {f: (1.0 if float(w) > 0 else 0.0) for f, w in weights.items()}
    hits, total, _ms, _q = s.index.search(query, limit=limit, weights=equal)
    return [d for _row, d, _score in hits], total


@pytest.mark.parametrize("depth", [23, 60])
def test_pages_are_the_one_long_list_across_the_depth(demo200, depth):
    with Session.open(demo200) as s:
        never = judged_sensitive(s, PERSONA)
        first, total = _matches(s, BROAD, depth)
        assert total > depth + 20              # not vacuous: the query matches well past the depth
        assert set(first) & never               # and some of its candidates are withheld
        for approach in APPROACHES:
            for cutoff in ("fixed", "static", "threshold"):
                whole = protected_search(s, BROAD, PERSONA, approach=approach, k=WHOLE, cutoff=cutoff, depth=depth)
                long = _ids(whole)
                # the length does not depend on the limit: a limit just past the list's end gives it all
                assert _ids(protected_search(s, BROAD, PERSONA, approach=approach, k=len(long) + 1, cutoff=cutoff,
                                             depth=depth)) == long
                assert len(set(long)) == len(long) and not set(long) & never
                assert set(long) <= set(first)                      # ranked from the first `depth` matches
                if approach == "relevance" and cutoff == "fixed":  # nothing filtered: all of them but the withheld
                    assert set(long) == set(first) - never
                if approach != "relevance":
                    assert all(h["p_sensitive"] < 0.5 for h in whole["hits"])
                for k in (7, depth - 1, depth + 4):                 # pages crossing the depth
                    pages = _pages(s, BROAD, approach, cutoff, k, depth, upto=len(long) + k)
                    joined = [d for p in pages for d in _ids(p)]
                    assert joined == long, (approach, cutoff, k)
                    assert not pages[-1]["hits"] or len(pages[-1]["hits"]) < k
                    for p in pages:
                        assert not set(_ids(p)) & never
                        held = [h["doc_id"] for h in p["held_back"]]
                        assert not set(held) & never and not set(held) & set(long[:p["offset"] + k])


def test_the_old_depth_of_200_is_crossed_with_the_default_depth(tmp_path, capsys):
    """The reviewer's case: 400 messages, a query matching more than 200 of them (withheld ones
    among them); pages of 10 up to its end are the one list a limit of 200, 260 or 1000 gives
    the start of (the old depth let pages end at rank 147 and list lengths follow the limit)."""
    from sasc_desktop.engine.demo_project import build_demo_project
    root = build_demo_project(tmp_path / "demo400", n_messages=400, train=False)
    with Session.open(root) as s:
        s.train_protection(PERSONA, "joint", ranker="linear", depth=60)
        never = judged_sensitive(s, PERSONA)
        first, total = _matches(s, BROAD, SEARCH_DEPTH)
        assert 200 < total <= SEARCH_DEPTH      # (258: the old depth of 200 left 58 out of reach)
        whole = protected_search(s, BROAD, PERSONA, approach="joint", k=WHOLE)
        long = _ids(whole)
        quoting = {h["doc_id"] for h in whole["held_back"] if h["quotes"]}   # quote a judged message
        assert whole["depth"] == SEARCH_DEPTH
        assert set(long) == set(first) - never - quoting and len(long) == len(set(long)) > 160
        joined = [d for off in range(0, len(long) + 10, 10)
                  for d in _ids(protected_search(s, BROAD, PERSONA, approach="joint", k=10, offset=off))]
        assert joined == long
    # the CLI, as the reviewer ran it
    base = ["search", str(root), BROAD, "--protect", "joint", "--persona", PERSONA, "--json"]

    def cli(*extra):
        capsys.readouterr()
        assert sasc(base + list(extra)) == 0
        return _ids(json.loads(capsys.readouterr().out))

    l260, l200 = cli("--limit", "260"), cli("--limit", "200")
    assert l260 == long[:260] and l200 == long[:200]
    assert cli("--limit", "10", "--offset", "150") == long[150:160]
    assert cli("--limit", "10", "--offset", "80") == long[80:90]
    assert cli("--limit", "10", "--offset", str(len(long))) == []
    assert cli("--limit", "1000") == long


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(depth=st.integers(1, 90), k=st.integers(1, 40), offset=st.integers(0, 120),
       approach=st.sampled_from(APPROACHES), cutoff=st.sampled_from(("fixed", "dynamic", "static", "threshold")))
def test_any_page_is_a_slice_of_its_list(demo200, depth, k, offset, approach, cutoff):
    """Every page is ranks offset+1..offset+k of the list the limit offset+k gives (for the
    fixed, static and threshold policies: of the one long list), never a judged-sensitive one."""
    with Session.open(demo200) as s:
        never = judged_sensitive(s, PERSONA)
        page = protected_search(s, BROAD, PERSONA, approach=approach, k=k, cutoff=cutoff, offset=offset, depth=depth)
        upto = protected_search(s, BROAD, PERSONA, approach=approach, k=offset + k, cutoff=cutoff, depth=depth)
        assert _ids(page) == _ids(upto)[offset:]
        if cutoff != "dynamic":
            long = _ids(protected_search(s, BROAD, PERSONA, approach=approach, k=WHOLE, cutoff=cutoff, depth=depth))
            assert _ids(page) == long[offset:offset + k]
        assert not set(_ids(page)) & never


def test_depth_must_be_positive(demo200):
    with Session.open(demo200) as s:
        with pytest.raises(InputError, match="depth"):
            protected_search(s, BROAD, PERSONA, approach="relevance", depth=0)


def test_a_list_cut_by_the_depth_says_so(demo200, capsys):
    """A query matching more than the depth: ``beyond_depth`` (and, for the archivist, how many
    it matches in all) and, when the list ends on the page asked for, a note on stderr naming
    --depth; a larger --depth reaches the others. A query within the depth says nothing."""
    with Session.open(demo200) as s:
        _first, total = _matches(s, BROAD, 23)
        res = protected_search(s, BROAD, PERSONA, approach="relevance", k=WHOLE, depth=23, show_withheld=True)
        assert res["beyond_depth"] is True and res["matches"] == total and res["candidates"] == 23
        whole = protected_search(s, BROAD, PERSONA, approach="relevance", k=WHOLE, depth=total)
        assert whole["beyond_depth"] is False and len(_ids(whole)) > len(_ids(res))
        assert "matches" not in protected_search(s, BROAD, PERSONA, approach="relevance", k=5, depth=23)
    base = ["search", str(demo200), BROAD, "--protect", "relevance", "--persona", PERSONA]

    def cli(*extra):
        capsys.readouterr()
        assert sasc(base + list(extra)) == 0
        return capsys.readouterr()

    note = ("note: a protected search ranks the query's first 23 matches and it has more; narrow the query "
            "(words, from:, date:), or give a larger --depth, to reach the others\n")
    assert cli("--depth", "23", "--limit", "1000").err == note                 # the list ended on this page
    assert cli("--depth", "23", "--limit", "3").err == ""                     # a full page: nothing to say yet
    assert cli("--depth", str(total), "--limit", "1000").err == ""            # every match ranked
    with Session.open(demo200) as s:
        n = len(_ids(protected_search(s, BROAD, PERSONA, approach="relevance", k=WHOLE, depth=23)))
        dyn = protected_search(s, BROAD, PERSONA, approach="relevance", k=5, cutoff="dynamic", depth=23)
        assert len(_ids(dyn)) < 5 and dyn["list_ends"] is False      # a policy's short page: more follow
    # a list ending exactly at a page's end says so on that page, not only on the empty one after it
    assert cli("--depth", "23", "--limit", str(n)).err == note
    assert cli("--depth", "23", "--limit", "1", "--offset", str(n - 1)).err == note
    assert cli("--depth", "23", "--limit", "1", "--offset", str(n - 2)).err == ""
    assert cli("--depth", "23", "--limit", "5", "--cutoff", "dynamic").err == ""
    with pytest.raises(SystemExit) as exc:                                    # (a usage error, exit 2)
        sasc(["search", str(demo200), BROAD, "--depth", "5"])
    assert exc.value.code == 2 and "--depth needs --protect APPROACH" in capsys.readouterr().err
