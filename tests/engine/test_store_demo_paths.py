"""The demo is built in a temporary folder and moved into place; the paths its store records are
then pointed at the project: as they are in path columns, JSON-escaped inside JSON columns. The
reviewer's case: `sasc demo é1` stored sources.path '/.../\\u00e91/demo-mail/mail' (the
JSON-escaped form replaced the plain one for every column: the build folder's name is ASCII, so
both forms were one key), also in messages.location, copies.location and skipped.location; the
demo's own mail imported again then doubled the copies (470 for 235). Real demo builds."""
from __future__ import annotations

import json

import pytest

from sasc_desktop.engine.demo_project import build_demo_project
from sasc_desktop.engine.session import Session


@pytest.mark.parametrize("name, train", [("é1", False), ("q\"uo\\te ü", True)])
def test_demo_paths_point_into_the_project_as_written(tmp_path, name, train):
    """A folder name with an accent (escaped by JSON), or with a quote and a backslash (which
    JSON escapes too): path columns hold the real path; the model's info, JSON, decodes to it."""
    root = build_demo_project(tmp_path / name, n_messages=200, train=train)
    mail = root / "demo-mail" / "mail"
    with Session.open(root) as s:
        con = s.store.con
        assert [r[0] for r in con.execute("SELECT path FROM sources")] == [str(mail)]
        for table in ("messages", "copies", "skipped"):
            outside = con.execute(f"SELECT COUNT(*) FROM {table} WHERE instr(location, ?) <> 1",
                                  (str(mail) + "/",)).fetchone()[0]
            assert (table, outside) == (table, 0)
        assert con.execute("SELECT COUNT(*) FROM messages").fetchone()[0] == 200
        copies = con.execute("SELECT COUNT(*) FROM copies").fetchone()[0]
        assert copies == 223
        infos = [json.loads(r[0]) for r in con.execute("SELECT info FROM classifier_models ORDER BY persona")]
        assert [i["path"].startswith(str(root / "models") + "/") for i in infos] == ([True, True] if train else [])
        for (report,) in con.execute("SELECT report FROM sources WHERE report IS NOT NULL"):
            json.loads(report)
        # The demo's mail imported again: every copy is already known (the same paths).
        report = s.ingest([mail], workers=0)
        assert (report.ingested, report.duplicates) == (0, 223)
        assert con.execute("SELECT COUNT(*) FROM copies").fetchone()[0] == 223
        assert [r[0] for r in con.execute("SELECT path FROM sources")] == [str(mail)]
