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
