"""A new persona's id may not start with '-': `--persona -x` is read by the command line as an
option, so such a persona could be imported but never trained, explained or searched as. It is
refused as an id starting with '#' is, from a persona card, a sensitivity file and a reasons
file alike, and nothing is written. Real enron-categories-dev mail, the real CLI."""
from __future__ import annotations

import json

import pytest
from test_review11_judged_ids import enron_project

from sasc_desktop.cli import main as sasc
from sasc_desktop.engine.session import Session

WHY = "starts with '-'; a persona id cannot (the command line would read --persona {ident} as an option)"


@pytest.mark.parametrize("ident", ["-x", "--all", "-1"])
def test_a_persona_id_starting_with_a_dash_is_refused(shared_data, tmp_path, capsys, ident):
    s = enron_project(shared_data, tmp_path, n=3)
    doc = s.store.con.execute("SELECT doc_id FROM messages ORDER BY doc_id LIMIT 1").fetchone()[0]
    s.close()
    cards, sens, reasons = tmp_path / "cards.json", tmp_path / "s.txt", tmp_path / "r.tsv"
    cards.write_text(json.dumps([{"id": "ok", "name": "Fine"}, {"id": ident, "name": "Dash"}]))
    sens.write_text(f"ok {doc} 0\n{ident} {doc} 1\n")
    reasons.write_text(f"{doc}\t{ident}\tlegal\n")
    proj = str(tmp_path / "proj")
    for option, path, where in (("--personas", cards, f"{cards}: persona 2"), ("--sensitivity", sens, f"{sens}"),
                                ("--reasons", reasons, f"{reasons}")):
        capsys.readouterr()
        assert sasc(["judgments", "import", proj, f"{option}={path}"]) == 2
        assert capsys.readouterr() == ("", f"sasc: error: {where}: the persona id {ident!r} {WHY.format(ident=ident)}\n")
    with Session.open(proj) as s:
        assert s.personas() == []
        assert s.store.con.execute("SELECT COUNT(*) FROM sensitivity").fetchone()[0] == 0
    # a dash inside an id is fine, and that persona is one the command line can name
    sens.write_text(f"ok-2 {doc} 1\n")
    assert sasc(["judgments", "import", proj, "--sensitivity", str(sens)]) == 0
    capsys.readouterr()
    assert sasc(["personas", proj]) == 0
    assert capsys.readouterr().out == "ok-2\tok-2\n"
