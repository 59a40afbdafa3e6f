"""Attachment names: safe to write on any system, distinct within a message, shown as they are."""
from __future__ import annotations

import os
import unicodedata
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from mailfactory import msg

from sasc_desktop.engine.ingest.parse import parse_message
from sasc_desktop.engine.ingest.text import MAX_NAME_BYTES, is_reserved_name, safe_filename, unique_names
from sasc_desktop.engine.session import Session


def test_exact_names():
    cases = {
        "../../x": "x", "C:\\Windows\\win.ini": "win.ini", "a\x00b.txt": "a_b.txt",
        "CON": "_CON", "aux.txt": "_aux.txt", "NUL.pdf": "_NUL.pdf", "com1": "_com1", "LPT9.doc": "_LPT9.doc",
        "con .txt": "_con .txt", "CONIN$": "_CONIN$", "COM\u00b9.log": "_COM\u00b9.log",
        "console.txt": "console.txt", "report. ": "report", "report...": "report", " .bashrc": "bashrc",
        "invoice\u202eFDP.exe": "invoiceFDP.exe", "a\u2066b\u2069\u200e\u200f\ufeffc.txt": "abc.txt",
        "..\u2215..\u2215x": "_.._x", "tab\there": "tab_here", "line\u2028sep": "line_sep",
        "e\u0301t\u00e9.txt": "\u00e9t\u00e9.txt",  # NFC
        "": "attachment", "..": "attachment", "\u202e": "attachment",
        "é" * 149 + ".txt": "é" * 98 + ".txt", "a" * 300: "a" * 200,
        "\U0001F600" * 60 + ".txt": "\U0001F600" * 49 + ".txt",
    }
    for given_name, expected in cases.items():
        assert safe_filename(given_name) == expected, given_name
    assert safe_filename("", fallback="attachment-3.bin") == "attachment-3.bin"


def test_unique_names():
    assert unique_names(["report.txt", "report.txt", "REPORT.TXT", "report (2).txt", "x"]) == \
        ["report.txt", "report (3).txt", "REPORT (4).TXT", "report (2).txt", "x"]
    long = "é" * 98 + ".txt"
    first, second = unique_names([long, long])
    assert first == long and second == "é" * 96 + " (2).txt" and len(second.encode()) <= MAX_NAME_BYTES
    assert unique_names(["\u00e9.txt", "e\u0301.TXT"]) == ["\u00e9.txt", "e\u0301 (2).TXT"]


def _attachment(name_header: str, data: str = "data") -> str:
    return (f"--B\nContent-Type: application/octet-stream; {name_header.replace('filename', 'name')}\n"
            f"Content-Disposition: attachment; {name_header}\nContent-Transfer-Encoding: 7bit\n\n{data}\n")


NAMES = ['filename="../../etc/passwd"', 'filename="C:\\\\evil\\\\CON"', 'filename="aux.txt"',
         "filename*=UTF-8''" + "%C3%A9" * 149 + ".txt", "filename*=UTF-8''invoice%E2%80%AEFDP.exe",
         'filename="a/report.txt"', 'filename="b/report.txt"', 'filename="B/REPORT.TXT"']
EXPECTED = ["passwd", "_CON", "_aux.txt", "é" * 98 + ".txt", "invoiceFDP.exe",
            "report.txt", "report (2).txt", "REPORT (3).TXT"]
ORIGINAL = ["../../etc/passwd", "C:\\evil\\CON", "aux.txt", "é" * 149 + ".txt", "invoice\u202eFDP.exe",
            "a/report.txt", "b/report.txt", "B/REPORT.TXT"]


def _message() -> bytes:
    body = "--B\nContent-Type: text/plain\n\nsee attached\n" + "".join(_attachment(n) for n in NAMES) + "--B--"
    return msg(message_id="<att@x>", body=body, ctype='Content-Type: multipart/mixed; boundary="B"')


def test_message_attachment_names(tmp_path):
    m = parse_message(_message(), "x")
    assert [a.name for a in m.attachments] == EXPECTED
    assert [a.original_name for a in m.attachments] == ORIGINAL
    out = tmp_path / "out"
    out.mkdir()
    for a in m.attachments:  # each can be written in one folder, none overwrites another
        (out / a.name).write_text("x")
    assert sorted(os.listdir(out)) == sorted(EXPECTED)


def test_ingested_names_shown_and_stored(tmp_path):
    src = tmp_path / "m.eml"
    src.write_bytes(_message())
    with Session.create(tmp_path / "p") as s:
        s.ingest([src], workers=0)
        atts = s.document("att@x")["attachments"]
    assert [a["name"] for a in atts] == EXPECTED and [a["original_name"] for a in atts] == ORIGINAL


def test_names_inside_a_forwarded_message_are_distinct_from_the_outer_ones():
    inner = ("From: c@x\nSubject: inner\nContent-Type: multipart/mixed; boundary=\"I\"\n\n--I\n"
             "Content-Type: text/plain\n\ninner\n--I\nContent-Type: application/pdf; name=report.pdf\n"
             "Content-Disposition: attachment; filename=report.pdf\n\n%PDF\n--I--\n")
    body = ("--B\nContent-Type: text/plain\n\nfwd\n--B\nContent-Type: application/pdf; name=report.pdf\n"
            "Content-Disposition: attachment; filename=report.pdf\n\n%PDF\n"
            f"--B\nContent-Type: message/rfc822\n\n{inner}--B--")
    m = parse_message(msg(body=body, ctype='Content-Type: multipart/mixed; boundary="B"'), "x")
    assert [a.name for a in m.attachments] == ["report.pdf", "report (2).pdf", "inner.eml"]


@settings(max_examples=600, deadline=None)
@given(st.text(max_size=400), st.sampled_from(["attachment", "attachment-1.txt", "forwarded-message.eml"]))
def test_safe_filename_property(tmp_path_factory, name, fallback):
    folder = tmp_path_factory.getbasetemp()
    out = safe_filename(name, fallback=fallback)
    assert out and out not in (".", "..")
    assert "/" not in out and "\\" not in out and "\x00" not in out
    assert not any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Zl", "Zp") for ch in out)
    assert not is_reserved_name(out) and not out.endswith((".", " ")) and not out.startswith(".")
    assert len(out.encode("utf-8")) <= MAX_NAME_BYTES
    assert Path(folder, out).resolve().parent == folder.resolve()
    assert safe_filename(out) == out  # stable


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(max_size=220), max_size=8))
def test_unique_names_property(names):
    safe = [safe_filename(n) for n in names]
    out = unique_names(safe)
    keys = [unicodedata.normalize("NFC", n).casefold() for n in out]
    assert len(set(keys)) == len(out)
    seen = set()
    for before, after in zip(safe, out):
        assert len(after.encode("utf-8")) <= MAX_NAME_BYTES and safe_filename(after) == after
        key = unicodedata.normalize("NFC", before).casefold()
        if key not in seen:  # the first of a name keeps it
            assert after == before
        seen.add(key)
