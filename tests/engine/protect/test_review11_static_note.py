"""The static cutoff policy says why its list is short: the list length it learned on validation
topics (a cost-sensitive objective can learn 0 or 1: every query on the demo then showed nothing
or one document, with no word why). Real demo project, real trained rankers, the real CLI."""
from __future__ import annotations

import json

from sasc_desktop.cli import main
from sasc_desktop.engine.protect.search import load_protection
from sasc_desktop.engine.session import Session

PERSONA = "john-snibert"                                        # (the demo200 fixture's, conftest.py)


def _note(n: int) -> str:
    return (f"note: the static cutoff policy ends every list after {n} document{'' if n == 1 else 's'}: the length "
            "that scored best for the ranker's objective on its validation topics (a cost-sensitive measure can "
            "prefer short lists); the fixed or dynamic policy shows more")


def test_the_learned_length_is_given_and_said(demo200, capsys):
    with Session.open(demo200) as s:
        c = int(load_protection(s, PERSONA, "relevance")["static_value"])
        res = s.protected_search("Falcon OR launch OR meeting", PERSONA, approach="relevance", cutoff="static", k=c + 5)
        assert res["static_length"] == c and len(res["hits"]) == c and res["list_ends"]
        assert "static_length" not in s.protected_search("Falcon", PERSONA, approach="relevance", cutoff="fixed")
    capsys.readouterr()
    base = ["search", str(demo200), "Falcon OR launch OR meeting", "--protect", "relevance", "--persona", PERSONA,
            "--cutoff", "static"]
    assert main(base + ["--limit", str(c + 5), "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["static_length"] == c and _note(c) in err.splitlines()
    if c > 1:                                                   # a page that ends before the learned length: no note
        assert main(base + ["--limit", "1"]) == 0
        assert "static cutoff" not in capsys.readouterr().err
    assert main(base[:-2] + ["--cutoff", "fixed", "--limit", str(c + 5)]) == 0
    assert "static cutoff" not in capsys.readouterr().err
