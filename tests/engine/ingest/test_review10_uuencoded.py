"""Files uuencoded inside a text/plain body ('begin 644 name', its lines, 'end': how mail
carried files before MIME) used to stay in the body as kilobytes of gibberish, their content
never indexed. Each is decoded into an attachment named from its begin line (made safe as every
attachment name), taken out of the body, and its text indexed when it is text; a damaged one
stays in the body with a note."""
from __future__ import annotations

import binascii
import hashlib

from mailfactory import mbox, msg

from sasc_desktop.engine.ingest.parse import parse_message
from sasc_desktop.engine.session import Session

NOTES = b"Meeting notes.\nThe secret word is xylophone.\n" * 40     # 1,800 bytes: 40 uuencoded lines and the empty last one
GIF = b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00" \
      b"\x01\x00\x01\x00\x00\x02\x02D\x01\x00;"


def uu(name: str, data: bytes, mode: str = "644", backtick: bool = True) -> str:
    lines = [binascii.b2a_uu(data[i:i + 45], backtick=backtick).decode("ascii") for i in range(0, len(data), 45)]
    return f"begin {mode} {name}\n" + "".join(lines) + ("`\n" if backtick else " \n") + "end\n"


def parsed(body: str):
    return parse_message(msg("files", body, message_id="<uu@x>"), "x")


def test_files_taken_out_of_the_body():
    m = parsed("Here are the notes.\n\n" + uu("notes.txt", NOTES) + "\nand a picture:\n" + uu("dot.gif", GIF, "666")
               + "\nBye.")
    assert m.body == "Here are the notes.\n\n\nand a picture:\n\nBye."
    assert [(a.name, a.original_name, a.mime_type, a.size, a.sha256, a.text) for a in m.attachments] == [
        ("notes.txt", "notes.txt", "text/plain", 1800, hashlib.sha256(NOTES).hexdigest(), NOTES.decode()),
        ("dot.gif", "dot.gif", "image/gif", len(GIF), hashlib.sha256(GIF).hexdigest(), None)]
    assert m.notes == ("body: uuencoded file 'notes.txt' (1800 bytes) taken out as an attachment",
                       f"body: uuencoded file 'dot.gif' ({len(GIF)} bytes) taken out as an attachment")


def test_names_are_made_safe_and_unknown_types_sniffed():
    m = parsed(uu("../../etc/passwd", b"root:x:0:0\n") + uu("C:\\tmp\\CON.dat", b"\x00\x01\x02")
               + uu("a/passwd", b"second\n", backtick=False))
    assert [(a.name, a.original_name, a.mime_type, a.text) for a in m.attachments] == [
        ("passwd", "../../etc/passwd", "text/plain", "root:x:0:0\n"),
        ("_CON.dat", "C:\\tmp\\CON.dat", "application/octet-stream", None),
        ("passwd (2)", "a/passwd", "text/plain", "second\n")]
    assert m.body == ""


def test_damaged_blocks_stay_in_the_body():
    no_end = uu("notes.txt", NOTES).removesuffix("end\n")
    m = parsed("x\n" + no_end)
    assert (m.body, m.attachments) == (("x\n" + no_end).strip(), ())
    assert m.notes == ("body: uuencoded file 'notes.txt' is damaged (no 'end' line); left in the body",)
    prose = "begin 644 of the plan\nwe meet at ten\nend\nthanks"
    m = parsed(prose)
    assert (m.body, m.attachments) == (prose, ())
    assert m.notes == ("body: uuencoded file 'of the plan' is damaged (1 of its 1 line(s) are not uuencoded); "
                       "left in the body",)
    lines = uu("notes.txt", NOTES).split("\n")
    lines[3:8] = ["this line was mangled"] * 5          # 5 of 40 data lines: more than 1 in 10
    m = parsed("\n".join(lines))
    assert m.attachments == () and "begin 644 notes.txt" in m.body
    assert m.notes == ("body: uuencoded file 'notes.txt' is damaged (5 of its 40 line(s) are not uuencoded); "
                       "left in the body",)


def test_indented_or_blank_prose_and_empty_blocks_stay_in_the_body():
    """Indented and blank lines have a zero length character: they read as empty data lines, so
    prose between 'begin 644 staging' and 'end' was cut out into a 0-byte attachment (found by
    no search). A zero-length line is only the end of the data now."""
    prose = "Steps:\nbegin 644 staging\n    copy the zebrafish tables\n\n    check the quokka counts\nend\nThanks"
    m = parsed(prose)
    assert (m.body, m.attachments) == (prose, ())
    assert m.notes == ("body: uuencoded file 'staging' is damaged (3 of its 3 line(s) are not uuencoded); "
                       "left in the body",)
    for empty in ("begin 644 notes.txt\nend\nbye", "begin 644 notes.txt\n`\nend\nbye", "begin 644 x\n\n \nend"):
        m = parsed(empty)
        assert (m.body, m.attachments) == (empty, ()), empty


def test_a_few_bad_lines_are_left_out():
    lines = uu("notes.txt", NOTES).split("\n")
    lines[2] = lines[2].lower()                          # 1 of 40: its 45 bytes left out
    m = parsed("\n".join(lines))
    (a,) = m.attachments
    assert (a.name, a.size, a.text) == ("notes.txt", 1800 - 45, (NOTES[:45] + NOTES[90:]).decode())
    assert m.notes == ("body: uuencoded file 'notes.txt' (1755 bytes) taken out as an attachment; "
                       "1 damaged line(s) of its 40 left out",)


def test_found_by_search(tmp_path):
    src = tmp_path / "m.mbox"
    src.write_bytes(mbox([msg("files", "See attached.\n" + uu("notes.txt", NOTES), message_id="<uu@x>"),
                          msg("other", "nothing here", message_id="<o@x>")]))
    with Session.create(tmp_path / "p") as s:
        assert s.ingest([src], workers=0).ingested == 2
        assert [h.doc_id for h in s.search("xylophone").hits] == ["uu@x"]
        assert [h.doc_id for h in s.search("attachments:xylophone").hits] == ["uu@x"]
        assert s.document("uu@x")["body"] == "See attached."


def test_real_message(shared_data, tmp_path):
    (f,) = (shared_data / "spamassassin" / "hard-ham-1").glob("00189.c69e4af5*.txt")
    m = parse_message(f.read_bytes(), str(f))
    assert [(a.name, a.mime_type, a.size) for a in m.attachments] == [
        ("oops1.dat", "text/plain", 4916), ("oops2.dat", "text/plain", 5077), ("oops3.dat", "text/plain", 4736)]
    assert all(a.text.startswith("tested: 2.4.19-xfs (SGI's CVS on Aug 17)\n") for a in m.attachments)
    assert "begin 666" not in m.body and len(m.body) == 3537
    with Session.create(tmp_path / "p") as s:
        s.ingest([f], workers=0)
        assert [h.doc_id for h in s.search("lvcreate").hits] == ["04b201c245bd$787c4220$d3232fd1@corona"]
