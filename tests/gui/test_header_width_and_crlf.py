"""The message header never widens the window (a word-wrapping label is as wide as its longest
word: real spam has a subject of 190 dots), and CRLF mail is shown single-spaced (Qt breaks a
line at both the CR and the LF)."""
from __future__ import annotations

import html
import re
import shutil

from hypothesis import given, settings, strategies as st

from sasc_desktop.engine.session import Session
from sasc_desktop.gui.document import BREAK_EVERY, SafeBrowser, breakable_html, text_page
from sasc_desktop.gui.evidence import CUE, PII, QUERY, Mark, PagedText, merged_html, page_bounds

from gui_support import open_doc, open_project, pump

ZW = "\u200b"
SPAM = "spamassassin/spam-2/01394.a76cc347fac514441bef43e7a599fb55.txt"


def _width_after_opening(qtbot, window, root, doc_id):
    window.resize(1280, 800)
    open_project(qtbot, window, root)
    before = window.width(), window.splitter.sizes()[0]
    open_doc(qtbot, window, doc_id)
    pump(300)   # (the layout requests the new header posts)
    return before, (window.width(), window.splitter.sizes()[0])


def test_a_real_spam_subject_of_190_dots_leaves_the_window_as_wide_as_it_was(qtbot, window, tmp_path, shared_data):
    mail = tmp_path / "mail"
    mail.mkdir()
    shutil.copy(shared_data / SPAM, mail / "spam.eml")
    with Session.create(tmp_path / "p") as s:
        assert s.ingest([mail], workers=0).ingested == 1
    before, after = _width_after_opening(qtbot, window, tmp_path / "p", "200212031937.TAA18180@webnote.net")
    assert after == before and before[0] == 1280
    shown = window.doc_view.header.text()
    assert "300%" + "." * BREAK_EVERY in html.unescape(re.sub("<[^>]*>", "", shown)).replace(ZW, "")


def test_headers_without_spaces_wrap_instead_of_widening(qtbot, window, tmp_path):
    to = ",".join(f"person{i}@example.com" for i in range(15))   # (under the 400 characters shown)
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "a.eml").write_text(f"From: a@example.com\nTo: {to}\nSubject: {'x' * 300}\n"
                                         "Message-ID: <wide@x>\n\nbody\n")
    with Session.create(tmp_path / "p") as s:
        assert s.ingest([tmp_path / "m"], workers=0).ingested == 1
    before, after = _width_after_opening(qtbot, window, tmp_path / "p", "wide@x")
    assert after == before
    plain = html.unescape(re.sub("<[^>]*>", "", window.doc_view.header.text())).replace(ZW, "")
    assert "x" * 300 in plain and to in plain       # nothing lost, only break opportunities added


def test_breakable_html_exact():
    assert breakable_html("abcdef", every=3) == f"abc{ZW}def"
    assert breakable_html("ab cdef gh", every=3) == f"ab cde{ZW}f gh"
    # tags are never split and do not count; an entity is one character
    assert breakable_html('<span style="color:#555">abcd</span>&amp;&lt;ef', every=3) == (
        f'<span style="color:#555">abc{ZW}d</span>&amp;&lt;{ZW}ef')
    assert breakable_html("", every=3) == ""
    # a line break ends a run (Subject's end does not count into the From: line)
    assert breakable_html("<span>yy</span><br><span>From:</span> a", every=5) == "<span>yy</span><br><span>From:</span> a"
    assert breakable_html("<span>yy</span><b>From:</b>", every=5) == f"<span>yy</span><b>Fro{ZW}m:</b>"
    # an address (a run holding "@") is never broken: a copied address must stay one
    long = "jane.elizabeth.longname-archives.department@records.example-university.edu"
    assert breakable_html(f"To: Jane &lt;{long}&gt;") == f"To: Jane &lt;{long}&gt;"
    assert breakable_html("x" * 61 + " " + long) == "x" * 60 + ZW + "x " + long


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab <>&\"\n")), max_size=120), st.integers(1, 12))
def test_breakable_html_only_adds_zero_width_spaces_between_characters(text, every):
    markup = merged_html(text, [Mark(2, 9, QUERY)])
    out = breakable_html(markup, every=every)
    assert out.replace(ZW, "") == markup
    plain = html.unescape(re.sub("<[^>]*>", "", out))
    assert max((len(run) for run in re.split(f"[\\s{ZW}]", plain)), default=0) <= every


def test_crlf_mail_is_shown_single_spaced():
    browser = SafeBrowser()
    browser.setHtml(text_page("a\r\nb\r\nc"))
    assert browser.toPlainText() == "a\nb\nc"
    browser.setHtml(text_page("a\r\nb", marks=[Mark(0, 2, PII)]))   # a mark ending between CR and LF
    assert browser.toPlainText() == "a\nb"
    browser.setHtml(text_page("a\rb"))                                # a lone CR is still a line break
    assert browser.toPlainText() == "a\nb"


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab \r\n<&")), max_size=60),
       st.lists(st.tuples(st.integers(-2, 62), st.integers(-2, 62), st.sampled_from([QUERY, PII, CUE])), max_size=6))
def test_merged_html_drops_exactly_the_cr_of_each_crlf(text, raw):
    out = merged_html(text, [Mark(a, b, layer) for a, b, layer in raw])
    assert html.unescape(re.sub(r"<[^>]*>", "", out)) == text.replace("\r\n", "\n")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab\r\n")), max_size=200), st.integers(2, 30))
def test_parts_never_split_a_crlf_so_parts_show_as_the_whole(text, size):
    bounds = page_bounds(text, size)
    assert all(0 < b - a <= size for a, b in zip(bounds, bounds[1:])) or bounds == [0, 0]
    assert not any(text[b - 1] == "\r" and text[b] == "\n" for b in bounds[1:-1])
    pages = PagedText(text, [], size=size)
    shown = "".join(html.unescape(pages.page_html(i)) for i in range(len(pages)))
    assert shown == text.replace("\r\n", "\n")
