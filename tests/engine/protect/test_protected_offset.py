"""Paging a protected search: page 2 (``--offset``) is ranks offset+1..offset+limit of the longer
list, and a withheld (judged-sensitive) document never shifts into view. Real demo project,
the real CLI and engine."""
from __future__ import annotations

import json

import pytest

from sasc_desktop.cli import main as sasc
from sasc_desktop.engine.errors import InputError
from sasc_desktop.engine.project import judgments as J
from sasc_desktop.engine.protect.search import judged_sensitive, protected_search
from sasc_desktop.engine.session import Session

PERSONA = "john-snibert"


def _ids(res) -> list[str]:
    return [h["doc_id"] for h in res["hits"]]


def _busy_query(s) -> str:
    """A topic title whose unprotected top 12 holds judged-sensitive documents (withheld)."""
    for t in J.topics(s.store):
        res = protected_search(s, t["title"], PERSONA, approach="relevance", k=12, show_withheld=True)
        if res["withheld_judged_sensitive"] >= 2 and len(res["hits"]) == 12:
            return t["title"]
    raise AssertionError("no topic of the demo has withheld documents in its top 12")


def test_page_two_is_the_next_ranks_of_the_longer_list(demo_copy, capsys):
    with Session.open(demo_copy) as s:
        query = _busy_query(s)
        never = judged_sensitive(s, PERSONA)
        for approach in ("relevance", "postfilter"):
            for cutoff in ("fixed", "dynamic"):
                long = protected_search(s, query, PERSONA, approach=approach, k=12, cutoff=cutoff)
                assert not set(_ids(long)) & never
                for offset, k in ((4, 4), (8, 4), (3, 9), (12, 5)):
                    page = protected_search(s, query, PERSONA, approach=approach, k=k, cutoff=cutoff, offset=offset)
                    longer = protected_search(s, query, PERSONA, approach=approach, k=offset + k, cutoff=cutoff)
                    assert _ids(page) == _ids(longer)[offset:offset + k], (approach, cutoff, offset, k)
                    assert [h["rank"] for h in page["hits"]] == list(range(offset + 1, offset + 1 + len(page["hits"])))
                    assert page["offset"] == offset
                    assert not set(_ids(page)) & never
                    if offset + k <= 12 and cutoff == "fixed":        # dynamic: a cutoff of its own per length
                        assert _ids(page) == _ids(long)[offset:offset + k]
        with pytest.raises(InputError, match="offset must be 0 or more"):
            protected_search(s, query, PERSONA, approach="relevance", offset=-1)
    # the CLI: --offset is no longer ignored
    root = str(demo_copy)
    base = ["search", root, query, "--protect", "relevance", "--persona", PERSONA, "--json"]
    capsys.readouterr()
    assert sasc(base + ["--limit", "8"]) == 0
    eight = json.loads(capsys.readouterr().out)
    assert sasc(base + ["--limit", "4", "--offset", "4"]) == 0
    page2 = json.loads(capsys.readouterr().out)
    assert _ids(page2) == _ids(eight)[4:8] and len(_ids(page2)) == 4
    assert [h["rank"] for h in page2["hits"]] == [5, 6, 7, 8]
    assert sasc(base + ["--offset", "-2"]) == 2
    assert "offset must be 0 or more" in capsys.readouterr().err
