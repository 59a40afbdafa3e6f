"""Ids and lines that made look-alike personas or topics, or silently dropped judgments: a
byte-order mark starting a later line (two files saved with one and joined), invisible or
decomposed characters in an id, an id starting with '#' (its judgment lines read as comments),
a reasons file whose first doc id starts with "docid", and a persona name with a line break (the
plain listing is one id<TAB>name line per persona)."""
from __future__ import annotations

import json
import unicodedata

import pytest
from test_classify_checks import _project

from sasc_desktop.engine.classify import import_judgments
from sasc_desktop.engine.errors import InputError

BOM = b"\xef\xbb\xbf"


def test_files_joined_with_their_byte_order_marks_make_one_persona(tmp_path):
    s = _project(tmp_path, n=6, persona="bob")
    joined = tmp_path / "both.txt"
    joined.write_bytes(BOM + b"bob m0@corp.com 0\r\nbob m1@corp.com 1\r\n" + BOM + b"bob m2@corp.com 1\r\n"
                       + BOM + b"bob m3@corp.com 0\r\n")
    reasons = tmp_path / "r.tsv"
    reasons.write_bytes(BOM + b"docid\tpersona\treason\n" + BOM + b"m1@corp.com\tbob\tlegal\n")
    out = import_judgments(s, sensitivity_path=joined, reasons_path=reasons, replace=True)
    assert (out["sensitivity"], out["reasons"]) == (4, 1)
    assert s.personas() == [{"id": "bob", "name": "Persona One"}]
    levels = dict(s.store.con.execute("SELECT doc_id, level FROM sensitivity WHERE persona = 'bob' "
                                      "AND doc_id IN ('m0@corp.com', 'm1@corp.com', 'm2@corp.com', 'm3@corp.com')"))
    assert levels == {"m0@corp.com": 0, "m1@corp.com": 1, "m2@corp.com": 1, "m3@corp.com": 0}
    s.close()


@pytest.mark.parametrize("ident, message", [
    ("zoe\u200b", "contains the character U+200B; a persona id cannot contain spaces, tabs, line breaks or other "
                  "control or invisible characters"),
    ("#team", "starts with '#'; a persona id cannot (a judgment line starting with '#' is a comment)"),
    (unicodedata.normalize("NFD", "zoë"), "has letters written as a letter plus a separate accent (Unicode NFD); "
                                          "save the file with composed letters (NFC)"),
])
def test_a_look_alike_or_comment_persona_id_is_refused(tmp_path, ident, message):
    s = _project(tmp_path, n=6)
    sens = tmp_path / "new.txt"
    sens.write_text(f"{ident} m0@corp.com 1\n", encoding="utf-8")
    cards = tmp_path / "cards.json"
    cards.write_text(json.dumps([{"id": ident, "name": "Team"}]))
    cases = [(dict(personas_path=cards), f"{cards}: persona 1")]
    if not ident.startswith("#"):   # (there, the line is a comment)
        cases.append((dict(sensitivity_path=sens), f"{sens}"))
    for kwargs, where in cases:
        with pytest.raises(InputError) as err:
            import_judgments(s, **kwargs)
        assert str(err.value) == f"{where}: the persona id {ident!r} {message}"
    assert s.personas() == [{"id": "p1", "name": "Persona One"}]
    s.close()


def test_a_topic_id_starting_with_a_hash_is_refused(tmp_path):
    s = _project(tmp_path, n=6)
    topics = tmp_path / "topics.json"
    topics.write_text(json.dumps([{"id": "1", "title": "fine"}, {"id": "#2", "title": "x"}]))
    with pytest.raises(InputError) as err:
        import_judgments(s, topics_path=topics)
    assert str(err.value) == (f"{topics}: topic 2: the topic id '#2' starts with '#'; a topic id cannot (a judgment "
                              "line starting with '#' is a comment)")
    s.close()


@pytest.mark.parametrize("header", ["", "docid\tpersona\treason\n", "DocID\tPersona\tReasons\n",
                                    "doc_id\tpersona_id\treason\n", "Doc ID\tPersona\tReason\n"])
def test_a_reasons_line_whose_doc_id_starts_with_docid_is_a_reason(tmp_path, header):
    s = _project(tmp_path, n=3)
    reasons = tmp_path / "r.tsv"
    reasons.write_text(header + "docid42@x\tp1\tlegal\nm0@corp.com\tp1\tpersonal\n")
    assert import_judgments(s, reasons_path=reasons)["reasons"] == 2
    assert [p["id"] for p in s.personas()] == ["p1"]      # (a header read as data made a persona "Persona")
    s.close()


def test_a_persona_name_with_a_line_break_is_refused(tmp_path):
    s = _project(tmp_path, n=3)
    cards = tmp_path / "nl.json"
    cards.write_text(json.dumps([{"id": "dana", "name": "Dana Whitfield\nmallory\tMallory"}]))
    with pytest.raises(InputError) as err:
        import_judgments(s, personas_path=cards)
    assert str(err.value) == (f"{cards}: persona 'dana': the name 'Dana Whitfield\\nmallory\\tMallory' contains a tab, "
                              "line break or other control character (the plain 'sasc personas' listing is one "
                              "id<TAB>name line per persona)")
    assert [p["id"] for p in s.personas()] == ["p1"]
    s.close()
