"""A multipart/alternative whose plain-text part is a stub ('This is an HTML message', 54
characters of broken text) beside an HTML part of 14 KB: the plain part always won, and the
HTML's text was found by no search. The rule now: a plain text shorter than 200 characters and
than a tenth of the HTML's text gives way to the HTML; any other plain text is kept."""
from __future__ import annotations

import pytest

from sasc_desktop.engine.ingest.parse import parse_message
from sasc_desktop.engine.session import Session

HEAD = (b"From: a@x.org\nTo: b@y.org\nSubject: news\nMessage-ID: <alt@x>\nDate: Wed, 10 Jul 2002 06:22:17 -0700\n"
        b"MIME-Version: 1.0\nContent-Type: multipart/alternative; boundary=b\n\n")
PARAGRAPH = "<p>The quarterly newsletter about databases and performance tuning.</p>\n"   # 64 characters of text


def alternative(plain: str, html: str, related: bool = False) -> bytes:
    html_part = f"Content-Type: text/html; charset=utf-8\n\n<html><body>{html}</body></html>\n"
    if related:
        html_part = ("Content-Type: multipart/related; boundary=r\n\n--r\n" + html_part
                     + "--r\nContent-Type: image/gif\nContent-ID: <i>\n\nGIF89a\n--r--\n")
    return HEAD + (f"--b\nContent-Type: text/plain; charset=utf-8\n\n{plain}\n--b\n{html_part}--b--\n").encode()


@pytest.mark.parametrize("related", [False, True])
def test_a_stub_gives_way_to_the_html(related):
    m = parse_message(alternative("This is an HTML message!", PARAGRAPH * 10, related), "x")
    assert m.body == "\n\n".join(["The quarterly newsletter about databases and performance tuning."] * 10)
    assert m.body_is_html
    assert "its plain-text alternative is a stub (24 characters, 658 in the HTML one); the HTML alternative was read" \
        in m.notes


@pytest.mark.parametrize("plain, html", [
    ("A real summary. " * 13, PARAGRAPH * 100),      # 207 characters: not a stub, however long the HTML
    ("Short summary.", PARAGRAPH * 2),                 # 14 characters against 130: near enough
    ("This is an HTML message!", PARAGRAPH * 3 + "<p>abc</p>"),   # 24 against 201: under ten times
])
def test_a_plain_text_is_kept(plain, html):
    m = parse_message(alternative(plain, html), "x")
    assert m.body == plain.strip() and not m.body_is_html
    assert not any("stub" in n for n in m.notes)


def test_real_message(shared_data, tmp_path):
    (f,) = (shared_data / "spamassassin" / "hard-ham-1").glob("00021.1707cc*.txt")
    m = parse_message(f.read_bytes(), str(f))
    assert m.body.startswith("OTN TechBlast\nJuly 2002 Issue\n") and len(m.body) == 14072
    assert m.notes == ("its plain-text alternative is a stub (54 characters, 14072 in the HTML one); "
                       "the HTML alternative was read",)
    with Session.create(tmp_path / "p") as s:
        s.ingest([f], workers=0)
        assert [h.doc_id for h in s.search("JDeveloper").hits] == ["200207101322.g6ADMHs25188@inet-mail6.oracle.com"]
