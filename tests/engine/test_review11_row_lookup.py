"""A document id that names no document is looked up as a row number only when it is plain ASCII
digits that fit SQLite's INTEGER. Before, any str.isdigit() id was: an Arabic-Indic '٣' showed
and explained row 3 (another message, silently), a superscript '²' ended in a ValueError
traceback and a 20-digit id in an OverflowError one. Real enron-categories-dev mail, the real CLI."""
from __future__ import annotations

import json
import shutil

import pytest

from sasc_desktop.cli import main as sasc
from sasc_desktop.engine.errors import InputError
from sasc_desktop.engine.session import Session

PERSONA = "dana-whitfield"


@pytest.fixture(scope="module")
def _built() -> dict:
    return {}


@pytest.fixture
def project(shared_data, tmp_path_factory, _built):
    """20 enron-categories-dev messages with their labels and a trained classifier (built once)."""
    if "root" not in _built:
        _built["root"] = _enron_project(shared_data, tmp_path_factory.mktemp("rows"))
    return _built["root"]


def _enron_project(shared_data, base):
    src = shared_data / "enron-categories-dev" / "1"
    mail = base / "mail"
    mail.mkdir()
    for txt in sorted(src.glob("*.txt"))[:20]:
        shutil.copy(txt, mail / txt.name)
        shutil.copy(txt.with_suffix(".cats"), mail / txt.with_suffix(".cats").name)
    root = base / "proj"
    with Session.create(root) as s:
        s.ingest([mail], workers=0)
    assert sasc(["judgments", "import-categories", str(root), str(mail), "--json"]) == 0
    assert sasc(["classify", "train", str(root), "--persona", PERSONA, "--json"]) == 0
    return root


@pytest.mark.parametrize("doc_id", ["\u0663", "\u00b2", "99999999999999999999", "9223372036854775808",
                                    "1" * 5000])
def test_an_id_that_is_no_ascii_row_number_is_no_document(project, capsys, doc_id):
    for command in (["show", str(project), doc_id],
                    ["classify", "explain", str(project), doc_id, "--persona", PERSONA]):
        capsys.readouterr()
        assert sasc(command) == 2
        out, err = capsys.readouterr()
        assert (out, err) == ("", f"sasc: error: no document {doc_id!r} in this project\n")
    with Session.open(project) as s:
        for lookup in (s.document, s.thread, s.raw_message):
            with pytest.raises(InputError) as e:
                lookup(doc_id)
            assert str(e.value) == f"no document {doc_id!r} in this project"


@pytest.mark.parametrize("typed", ["3", "03", "20", "9223372036854775807"])
def test_a_plain_row_number_still_names_its_row(project, capsys, typed):
    with Session.open(project) as s:
        row = s.store.con.execute("SELECT doc_id FROM messages WHERE id = ?", (int(typed),)).fetchone()
        if row is None:
            with pytest.raises(InputError) as e:
                s.document(typed)
            assert str(e.value) == f"no document {typed!r} in this project"
            return
        assert s.document(typed)["doc_id"] == row[0]
    capsys.readouterr()
    assert sasc(["show", str(project), typed, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["doc_id"] == row[0]
    assert sasc(["classify", "explain", str(project), typed, "--persona", PERSONA, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["doc_id"] == row[0]
