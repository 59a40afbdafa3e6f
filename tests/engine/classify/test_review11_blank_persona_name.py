"""A persona card's name is stored stripped of white space around it, and a name that is only
white space is the persona's id: before, "   " was stored as it was, and the persona showed as
blank in `sasc personas` and in the app (which reads the card's name). Importing the same card
file again changes nothing. Real enron-categories-dev mail, real SQLite, the real CLI."""
from __future__ import annotations

import json

from test_review11_judged_ids import enron_project

from sasc_desktop.cli import main as sasc
from sasc_desktop.engine.session import Session


def test_names_are_stripped_and_a_blank_name_is_the_id(shared_data, tmp_path, capsys):
    s = enron_project(shared_data, tmp_path, n=3)
    doc = s.store.con.execute("SELECT doc_id FROM messages ORDER BY doc_id LIMIT 1").fetchone()[0]
    s.close()
    cards = tmp_path / "cards.json"
    cards.write_text(json.dumps([{"id": "zoe", "name": "   "}, {"id": "amy", "name": " Amy Lee\u00a0",
                                                               "occupation": "archivist"},
                                 {"id": "bob", "name": ""}, {"id": "cy"}]))
    sens = tmp_path / "s.txt"
    sens.write_text(f"zoe {doc} 1\namy {doc} 0\n")
    proj = str(tmp_path / "proj")
    assert sasc(["judgments", "import", proj, "--personas", str(cards), "--sensitivity", str(sens)]) == 0
    capsys.readouterr()
    assert sasc(["personas", proj]) == 0
    assert capsys.readouterr().out == "amy\tAmy Lee\nbob\tbob\ncy\tcy\nzoe\tzoe\n"
    with Session.open(proj) as s:
        assert s.personas() == [{"id": "amy", "name": "Amy Lee"}, {"id": "bob", "name": "bob"},
                                {"id": "cy", "name": "cy"}, {"id": "zoe", "name": "zoe"}]
        stored = {r[0]: json.loads(r[1]) for r in s.store.con.execute("SELECT id, card FROM personas")}
    assert stored == {"amy": {"id": "amy", "name": "Amy Lee", "occupation": "archivist"},
                      "bob": {"id": "bob", "name": "bob"}, "cy": {"id": "cy"}, "zoe": {"id": "zoe", "name": "zoe"}}
    # the same file again: nothing to replace
    capsys.readouterr()
    assert sasc(["judgments", "import", proj, "--personas", str(cards), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["personas_changed"] == 0
    # another name is a change, refused without --replace
    cards.write_text(json.dumps([{"id": "amy", "name": "Amy  Lee", "occupation": "archivist"}]))
    assert sasc(["judgments", "import", proj, "--personas", str(cards)]) == 2
    assert capsys.readouterr().err == ("sasc: error: this import would replace the persona card of amy; nothing was "
                                       "imported. To replace them, import again with --replace.\n")
