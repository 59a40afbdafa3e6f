"""Mail headers and bodies are the sender's text: plain `sasc search`, `show` and
`search --protect` print their control characters escaped (\\n, \\x1b, \\u202e), so one hit stays
one line and no ESC / OSC / C1 sequence or bidi override reaches the terminal; `show` keeps a
body's lines and tabs. JSON output stays as it was (the characters escaped by JSON itself).
Real mail (an .eml with RFC 2047 encoded words), real projects, the real CLI. The previous code
printed them raw: every test here fails on it."""
from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest

from sasc_desktop.cli import main as sasc
from sasc_desktop.engine.session import Session

PERSONA = "holly-palmer"

EVIL = (b"From: =?utf-8?q?Evil=0AName=E2=80=AE?= <e@x.org>\n"
        b"To: =?utf-8?q?you=1B=5D0=3Bpwned=07?= <y@x.org>\n"
        b"Subject: =?utf-8?q?line1=0Aline2=1B[31mRED=1B[0m=0Dcr=C2=9B2J?=\n"
        b"Message-ID: <c1@x>\n"
        b"Date: Mon, 05 Mar 2001 10:00:00 +0000\n"
        b"Content-Type: text/plain; charset=utf-8\n"
        b"Content-Transfer-Encoding: quoted-printable\n\n"
        b"zebraquux budget\n"
        b"\tindented=09tab=0D\n"
        b"osc =1B]0;title=07 end\n"
        b"bidi =E2=80=AE reversed, C1 =C2=9B2J, NUL =00 DEL =7F\n")

# what the decoded headers hold, and how plain output shows them (written out by hand)
RAW_FROM = "Evil\nName\u202e <e@x.org>"
RAW_SUBJECT = "line1\nline2\x1b[31mRED\x1b[0m\rcr\x9b2J"
SHOWN_FROM = r"Evil\nName\u202e <e@x.org>"
SHOWN_SUBJECT = r"line1\nline2\x1b[31mRED\x1b[0m\rcr\x9b2J"


def _evil_mail(folder: Path) -> Path:
    (folder / "mail").mkdir(parents=True)
    (folder / "mail" / "1.eml").write_bytes(EVIL)
    return folder / "mail"


def _run(capsys, *argv: str) -> str:
    capsys.readouterr()
    assert sasc(list(argv)) == 0
    return capsys.readouterr().out


def _assert_terminal_safe(text: str) -> None:
    """No control character but the line ends, no bidi control or line separator."""
    bad = [c for c in text if c != "\n" and (unicodedata.category(c) == "Cc" or c in "\u2028\u2029"
                                             or unicodedata.bidirectional(c) in ("LRE", "RLE", "LRO", "RLO", "PDF",
                                                                                "LRI", "RLI", "FSI", "PDI"))]
    assert bad == []


@pytest.fixture
def evil_project(tmp_path) -> Path:
    root = tmp_path / "p"
    with Session.create(root) as s:
        s.ingest([_evil_mail(tmp_path)], workers=0)
    return root


def test_plain_search_prints_one_line_per_hit_with_the_controls_escaped(evil_project, capsys):
    data = json.loads(_run(capsys, "search", str(evil_project), "zebraquux", "--json"))
    hit, = data["hits"]
    assert (hit["from"], hit["subject"]) == (RAW_FROM, RAW_SUBJECT)      # JSON: as it was
    out = _run(capsys, "search", str(evil_project), "zebraquux")
    _assert_terminal_safe(out)
    assert out.splitlines()[1:] == [f"   1  {hit['score']:7.3f}  2001-03-05  {SHOWN_FROM[:28]:28}  {SHOWN_SUBJECT}"]


def test_show_escapes_header_controls_and_keeps_the_bodys_lines_and_tabs(evil_project, capsys):
    out = _run(capsys, "show", str(evil_project), "c1@x")
    _assert_terminal_safe(out.replace("\t", ""))
    assert out == ("    doc_id: c1@x\n"
                   "      date: 2001-03-05T10:00:00+00:00\n"
                   "      from: Evil\\nName\\u202e <e@x.org>\n"
                   '        to: "you\\x1b]0;pwned\\x07" <y@x.org>\n'
                   "   subject: line1\\nline2\\x1b[31mRED\\x1b[0m\\rcr\\x9b2J\n"
                   "    folder: mail\n"
                   " thread_id: c1@x\n"
                   "\n"
                   "zebraquux budget\n"
                   "\tindented\ttab\n"                 # (a CRLF is a line end; the tabs kept)
                   "osc \\x1b]0;title\\x07 end\n"
                   "bidi \\u202e reversed, C1 \\x9b2J, NUL \\x00 DEL \\x7f\n")
    doc = json.loads(_run(capsys, "show", str(evil_project), "c1@x", "--json"))
    assert doc["body"].startswith("zebraquux budget\n\tindented\ttab\r\nosc \x1b]0;title\x07 end\n")


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    from sasc_desktop.engine.demo_project import build_demo_project
    return build_demo_project(tmp_path_factory.mktemp("ctl") / "demo", n_messages=300, train=False)


def test_protected_search_prints_one_line_per_hit_with_the_controls_escaped(demo, tmp_path, capsys):
    """The demo mail and its sensitivity judgments (no topics: the BM25 stand-in ranks) and the
    message with controls in its headers, found by a word only it has."""
    mail = demo / "demo-mail"
    root = tmp_path / "prot"
    with Session.create(root) as s:
        s.ingest([mail / "mail", _evil_mail(tmp_path)], workers=0)
    assert sasc(["judgments", "import", str(root), "--sensitivity", str(mail / "sensitivity.txt"), "--json"]) == 0
    argv = ["search", str(root), "zebraquux OR budget", "--protect", "joint", "--persona", PERSONA, "--limit", "50"]
    data = json.loads(_run(capsys, *argv, "--json"))
    rows = data["hits"] + data["held_back"]
    evil = [h for h in rows if h["doc_id"] == "c1@x"]
    assert len(evil) == 1 and (evil[0]["sender"], evil[0]["subject"]) == (RAW_FROM, RAW_SUBJECT)
    out = _run(capsys, *argv)
    _assert_terminal_safe(out)
    lines = out.splitlines()
    assert len(lines) == 1 + len(data["hits"]) + (1 + len(data["held_back"]) if data["held_back"] else 0)
    h = evil[0]
    if h in data["hits"]:
        expected = (f"{h['rank']:>4}  {h['score']:8.3f}  p={h['p_sensitive']:.2f}  2001-03-05  "
                    f"{SHOWN_FROM[:26]:26}  {SHOWN_SUBJECT}")
    else:
        expected = f"      p={h['p_sensitive']:.2f}  c1@x  {SHOWN_SUBJECT}"
    assert expected in lines
