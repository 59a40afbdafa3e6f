"""A TREC qrels file passed by mistake as the sensitivity file (``topic 0 docid grade``, four
columns) was read as the per-topic layout ``topic persona docid level``: it made a persona "0"
and judged its documents sensitive by their relevance grades. A persona id 0 (or Q0, a run
file's second column) in that layout is refused with a hint. Real enron-categories-dev mail and
its qrels as `sasc judgments import-categories` stores them; the real CLI."""
from __future__ import annotations

import pytest
from test_review11_judged_ids import enron_project

from sasc_desktop.cli import main as sasc
from sasc_desktop.engine.errors import InputError
from sasc_desktop.engine.evaluate.formats import read_sensitivity
from sasc_desktop.engine.session import Session

HINT = "this looks like a TREC qrels file (topic 0 docid grade); did you mean --qrels?"


def _qrels_file(shared_data, tmp_path, column: str):
    """The Enron categories qrels of 20 messages (topic, docid, grade; grades 0 to 2) written as
    a TREC qrels file with ``column`` as its second column, and the project they are about."""
    s = enron_project(shared_data, tmp_path)
    s.close()
    assert sasc(["judgments", "import-categories", str(tmp_path / "proj"), str(tmp_path / "mail")]) == 0
    with Session.open(tmp_path / "proj") as s:
        rows = s.store.con.execute("SELECT topic, doc_id, rel FROM qrels ORDER BY CAST(topic AS INTEGER), doc_id").fetchall()
    assert len(rows) == 260 and {r[2] for r in rows} == {0, 1, 2}
    path = tmp_path / "enron.qrels"
    path.write_text("".join(f"{t} {column} {d} {g}\n" for t, d, g in rows))
    return path, rows


@pytest.mark.parametrize("column", ["0", "Q0"])
def test_qrels_given_as_sensitivity_are_refused_with_a_hint(shared_data, tmp_path, capsys, column):
    path, rows = _qrels_file(shared_data, tmp_path, column)
    with Session.open(tmp_path / "proj") as s:
        before = s.store.con.execute("SELECT persona, topic, doc_id, level FROM sensitivity ORDER BY 1, 2, 3").fetchall()
    capsys.readouterr()
    assert sasc(["judgments", "import", str(tmp_path / "proj"), "--sensitivity", str(path)]) == 2
    why = f"{path}:1: the persona id {column!r} in a 'topic persona docid level' line: {HINT}"
    assert capsys.readouterr() == ("", f"sasc: error: {why}\n")
    with Session.open(tmp_path / "proj") as s:
        assert [p["id"] for p in s.personas()] == ["dana-whitfield"]
        assert s.store.con.execute("SELECT persona, topic, doc_id, level FROM sensitivity "
                                   "ORDER BY 1, 2, 3").fetchall() == before
    with pytest.raises(InputError) as e:   # (sasc evaluate --sensitivity reads it so too)
        read_sensitivity(path)
    assert str(e.value) == why


def test_a_later_line_with_persona_0_is_refused_and_the_right_layouts_still_read(tmp_path):
    path = tmp_path / "s.txt"
    path.write_text("1 zoe a@b 1\n2 zoe a@b 0\n# 1 0 x 1\n3 0 a@b 2\n")
    with pytest.raises(InputError) as e:
        read_sensitivity(path)
    assert str(e.value) == f"{path}:4: the persona id '0' in a 'topic persona docid level' line: {HINT}"
    path.write_text("1 zoe a@b 1\n2 Q0x a@b 0\n3 q 0 2\n")
    assert [(j.topic, j.persona, j.docid, j.level) for j in read_sensitivity(path)] == [
        ("1", "zoe", "a@b", 1), ("2", "Q0x", "a@b", 0), ("3", "q", "0", 2)]
    path.write_text("0 a@b 1\n0 c@d -1\n")          # a persona "0" in the 3-column layout is no qrels line
    assert [(j.topic, j.persona, j.docid, j.level) for j in read_sensitivity(path)] == [
        (None, "0", "a@b", 1), (None, "0", "c@d", -1)]


def test_the_same_file_as_qrels_imports(shared_data, tmp_path, capsys):
    path, rows = _qrels_file(shared_data, tmp_path, "0")
    capsys.readouterr()
    assert sasc(["judgments", "import", str(tmp_path / "proj"), "--qrels", str(path), "--replace", "--json"]) == 0
    with Session.open(tmp_path / "proj") as s:
        assert s.store.con.execute("SELECT topic, doc_id, rel FROM qrels ORDER BY CAST(topic AS INTEGER), "
                                   "doc_id").fetchall() == rows
