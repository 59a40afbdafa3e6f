"""`sasc search` without --protect refuses the options of protected search (exit 2, a usage
error) instead of silently returning the unprotected list. A real project, the real CLI."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "ingest"))
from mailfactory import mbox, msg  # noqa: E402

from sasc_desktop.cli import main  # noqa: E402
from sasc_desktop.engine.session import Session  # noqa: E402


@pytest.fixture
def project(tmp_path) -> str:
    src = tmp_path / "box.mbox"
    src.write_bytes(mbox([msg(message_id="<z@x>", subject="zanzibar custody", body="private zanzibar matter")]))
    with Session.create(tmp_path / "p") as s:
        s.ingest([src], workers=0)
    return str(tmp_path / "p")


@pytest.mark.parametrize("options, named", [
    (["--persona", "john-snibert"], "--persona needs"),
    (["--cutoff", "dynamic"], "--cutoff needs"),
    (["--cutoff", "fixed"], "--cutoff needs"),
    (["--persona", "john-snibert", "--cutoff", "static"], "--persona and --cutoff need"),
    (["--show-withheld"], "--show-withheld needs"),
])
def test_protect_options_without_protect_are_a_usage_error(project, capsys, options, named):
    with pytest.raises(SystemExit) as caught:
        main(["search", project, "zanzibar", "--json", *options])
    assert caught.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""  # no unprotected list
    assert err.startswith("usage: sasc search")
    assert err.strip().splitlines()[-1] == \
        f"sasc search: error: {named} --protect APPROACH: without it the search is not protected"


def test_plain_search_unchanged(project, capsys):
    assert main(["search", project, "zanzibar", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [h["doc_id"] for h in out["hits"]] == ["z@x"] and out["total"] == 1


def test_protect_without_persona_still_says_so(project, capsys):
    assert main(["search", project, "zanzibar", "--protect", "relevance"]) == 2
    assert capsys.readouterr().err.strip() == "sasc: error: --protect needs --persona (whose sensitivities to protect)"


@pytest.fixture
def dated(tmp_path) -> str:
    """Four messages matching 'budget', whose rank order (more 'budget' ranks higher) is neither
    date nor sender order; one has no date."""
    mails = [msg(message_id="<a@x>", subject="budget", body="budget " * 1, frm="Cy <cy@x.org>",
                 date="Tue, 06 Mar 2001 10:00:00 +0000"),
             msg(message_id="<b@x>", subject="budget", body="budget " * 6, frm="Al <al@x.org>",
                 date="Mon, 05 Mar 2001 23:00:00 -0800"),             # 07:00 on the 6th, UTC
             msg(message_id="<c@x>", subject="budget", body="budget " * 3, frm="bo <bo@x.org>",
                 date="Sun, 04 Mar 2001 10:00:00 +0000"),
             msg(message_id="<d@x>", subject="budget", body="budget " * 9, frm="Di <di@x.org>", date=None)]
    src = tmp_path / "box.mbox"
    src.write_bytes(mbox(mails))
    with Session.create(tmp_path / "p") as s:
        s.ingest([src], workers=0)
    return str(tmp_path / "p")


@pytest.mark.parametrize("options, order", [
    ([], None),                                                   # rank order: from the engine
    (["--sort", "date"], ["c@x", "b@x", "a@x", "d@x"]),           # undated last
    (["--sort", "date", "--descending"], ["a@x", "b@x", "c@x", "d@x"]),
    (["--sort", "sender"], ["b@x", "c@x", "a@x", "d@x"]),         # Al, bo, Cy, Di: case ignored
    (["--sort", "sender", "--descending"], ["d@x", "a@x", "c@x", "b@x"]),
])
def test_sort_orders_all_matches(dated, capsys, options, order):
    with Session.open(dated) as s:
        ranked = [h.doc_id for h in s.search("budget", limit=10).hits]
    assert ranked[0] == "d@x" and ranked[-1] == "a@x"      # rank order is not the sorted orders
    assert main(["search", dated, "budget", "--json", *options]) == 0
    assert [h["doc_id"] for h in json.loads(capsys.readouterr().out)["hits"]] == (order or ranked)
    assert main(["search", dated, "budget", "--json", "--limit", "2", "--offset", "2", *options]) == 0
    assert [h["doc_id"] for h in json.loads(capsys.readouterr().out)["hits"]] == (order or ranked)[2:]


@pytest.mark.parametrize("options, message", [
    (["--descending"], "--descending needs --sort date, sender or subject"),
    (["--sort", "date", "--protect", "relevance", "--persona", "p"],
     "--sort is not available with --protect: a protected list is in the order its approach ranks it"),
])
def test_sort_usage_errors(dated, capsys, options, message):
    with pytest.raises(SystemExit) as caught:
        main(["search", dated, "budget", *options])
    assert caught.value.code == 2
    out, err = capsys.readouterr()
    assert out == "" and err.strip().splitlines()[-1] == f"sasc search: error: {message}"
