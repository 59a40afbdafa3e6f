"""A long subject wraps within the message pane at any window size down to the window's least
(60 bold capitals are wider than the pane: a subject of 100 W lost ~18 characters a line, a long
URL its tail, cut at the right edge with no ellipsis). Its breaks are worked out for the width
the header has, again when the window is resized; an address is still never broken."""
from __future__ import annotations

import html
import re
from pathlib import Path

from sasc_desktop.engine.session import Session
from sasc_desktop.gui.document import breakable_html

from gui_support import needed_width, open_doc, open_project, pump

ZW = "\u200b"
SHOTS = Path("/tmp/s7/gui_fix")
URL = "https://shop.example.com/track/ORD4F7QK2ZXW9M3PLR8T6YVBN5HJ1DGCQWERTYUIOPASDFGHJKLZXCVBNM0123456789"
SUBJECTS = {"w": "W" * 100, "url": f"Your order {URL} shipped"}


def _plain(markup: str) -> str:
    return html.unescape(re.sub("<[^>]*>", "", markup)).replace(ZW, "")


def _project(tmp_path) -> Path:
    mail = tmp_path / "mail"
    mail.mkdir()
    for name, subject in SUBJECTS.items():
        (mail / f"{name}.eml").write_text(f"From: Web Tracker <news@shop.example.com>\nTo: bob@corp.com\n"
                                          f"Subject: {subject}\nDate: Tue, 1 May 2001 09:00:00 +0000\n"
                                          f"Message-ID: <{name}@x>\n\nYour order shipped.\n")
    with Session.create(tmp_path / "p") as s:
        assert s.ingest([mail], workers=0).ingested == len(SUBJECTS)
    return tmp_path / "p"


def test_a_long_subject_wraps_within_the_header_at_every_window_size(qtbot, window, tmp_path):
    open_project(qtbot, window, _project(tmp_path))
    least = window.minimumSizeHint()
    sizes = [(1280, 800), (1024, 700), (800, 600), (least.width(), max(least.height(), 400))]
    header = window.doc_view.header
    for name, subject in SUBJECTS.items():
        for w, h in sizes:
            window.resize(w, h)
            pump(100)
            open_doc(qtbot, window, f"{name}@x")
            pump(200)
            width = header.contentsRect().width()
            assert needed_width(header) <= width, f"{name} at {w}x{h}: the subject is cut at the right edge"
            assert subject in _plain(header.text())       # all of it: only break opportunities added
            if SHOTS.is_dir():
                window.doc_view.grab().save(str(SHOTS / f"long_subject_{name}_{w}x{h}.png"))
        # shown at one size, then the window made narrower: the breaks follow the new width
        window.resize(1280, 800)
        pump(100)
        open_doc(qtbot, window, f"{name}@x")
        window.resize(1024, 700)
        pump(200)
        assert needed_width(header) <= header.contentsRect().width(), f"{name}: after a resize"


def test_breakable_html_breaks_only_a_run_wider_than_the_width_where_it_ends():
    width_of = lambda text: float(len(text))   # noqa: E731 (one unit a character)
    assert breakable_html("abcdefghij", width=4, advance=width_of) == f"abcd{ZW}efgh{ZW}ij"
    assert breakable_html("abcd efg hi", width=4, advance=width_of) == "abcd efg hi"      # each run fits
    # across inline tags, an entity one character; a line break ends a run
    assert breakable_html("<b>ab</b>c&amp;de<br>fgh", width=3, advance=width_of) == f"<b>ab</b>c{ZW}&amp;de<br>fgh"
    # a run too wide is broken by width only (no extra break every 60 characters): no short pieces
    assert breakable_html("x" * 130, width=100, advance=width_of) == "x" * 100 + ZW + "x" * 30
    assert breakable_html("x" * 130, width=200, advance=width_of) == "x" * 60 + ZW + "x" * 60 + ZW + "x" * 10
    # an address is never broken, however wide
    address = "jane.elizabeth.longname@records.example-university.edu"
    assert breakable_html(f"To: {address}", width=10, advance=width_of) == f"To: {address}"
