"""A query that starts with '-' (`sasc search P "-budget"`: mail without the word, as the query
syntax documents) was taken by argparse for an unknown option: "the following arguments are
required: query". Real project, real CLI."""
from __future__ import annotations

import json

import pytest

from sasc_desktop.cli import main as sasc
from sasc_desktop.engine.session import Session

MAIL = {"a.eml": "Subject: budget plan\nMessage-ID: <a@x>\n\nthe budget for 2002\n",
        "b.eml": "Subject: lunch\nMessage-ID: <b@x>\n\nlunch on friday\n",
        "c.eml": "Subject: -dash notes\nMessage-ID: <c@x>\n\nthe dash notes\n"}


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    base = tmp_path_factory.mktemp("dash")
    (base / "mail").mkdir()
    for name, text in MAIL.items():
        (base / "mail" / name).write_text("From: ann@corp.com\nDate: Mon, 5 Mar 2001 08:23:00 -0800\n" + text)
    with Session.create(base / "p") as s:
        s.ingest([base / "mail"], workers=0)
    return str(base / "p")


def _ids(capsys, *argv) -> list[str]:
    assert sasc(["search", "--json", *argv]) == 0
    return sorted(h["doc_id"] for h in json.loads(capsys.readouterr().out)["hits"])


@pytest.mark.parametrize("argv", [["{p}", "-budget"], ["{p}", "-budget", "--limit", "5"],
                                  ["--limit", "5", "{p}", "-budget"], ["{p}", "--limit=5", "-budget"],
                                  ["{p}", "--", "-budget"], ["{p}", "-budget", "--lim", "5"],
                                  ["--lim=5", "{p}", "-budget"]])
def test_a_query_starting_with_a_minus_is_a_query(project, capsys, argv):
    assert _ids(capsys, *[a.format(p=project) for a in argv]) == ["b@x", "c@x"]


def test_options_and_their_values_are_left_alone(project, capsys):
    assert _ids(capsys, project, "budget", "--offset", "0") == ["a@x"]
    assert _ids(capsys, project, "budget", "--off", "0", "--desc", "--sort", "date") == ["a@x"]   # argparse's prefixes
    with pytest.raises(SystemExit) as done:                     # an unknown option stays an error, not a query
        sasc(["search", project, "budget", "--jsn"])
    assert done.value.code == 2
    assert "unrecognized arguments: --jsn" in capsys.readouterr().err
    assert sasc(["search", project, "budget", "--limit", "-3"]) == 2       # a value, still refused as one
    assert "limit must be at least 1" in capsys.readouterr().err
    assert sasc(["search", project, "-budget"]) == 0                        # plain output too
    out = capsys.readouterr().out
    assert out.startswith("2 hits") and "lunch" in out and "budget plan" not in out
