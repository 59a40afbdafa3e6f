"""Whitespace in HTML as a browser shows it: a newline in the source is a space, not a line
break; preformatted text (<pre>, white-space: pre) keeps its spaces, tabs and line breaks."""
from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mailfactory import msg

from sasc_desktop.engine.ingest.parse import parse_message
from sasc_desktop.engine.ingest.text import html_to_text, html_to_text_checked


@pytest.mark.parametrize("html, expected", [
    # source newlines add no lines
    ("<p>a<br>\nb</p>", "a\nb"),
    ("<p>a<br>b</p>", "a\nb"),
    ("<p>a<br>\r\n  \n b</p>", "a\nb"),
    ("x <b>bold</b>\n<i>it</i>", "x bold it"),
    ("<p>one\ntwo\r\n   three\tfour\x0cfive</p>", "one two three four five"),
    ("<p>a</p>\n\n\n<p>b</p>", "a\n\nb"),
    ("<ul>\n  <li>one</li>\n  <li>two</li>\n</ul>", "- one\n\n- two"),  # (as <ul><li>one</li><li>two</li></ul>)
    # table cells: one tab between cells, none at a row's ends
    ("<table>\n<tr>\n  <td>a</td>\n  <td>b</td>\n</tr>\n<tr><td>c</td><td></td><td>d</td></tr></table>",
     "a\tb\n\nc\td"),
    # preformatted text keeps its layout; the newline right after <pre> is not shown
    ("<p>Code:</p><pre>\ndef f(x):\n    if x:\n\treturn 1\n</pre><p>done</p>",
     "Code:\n\ndef f(x):\n    if x:\n\treturn 1\n\ndone"),
    ("<pre>a    b\n  c  d</pre>", "a    b\n  c  d"),
    ("<pre>\n\n  two newlines</pre>", "two newlines".rjust(14)),
    ("<pre>x&nbsp;&nbsp;y\r\n  z</pre>", "x  y\n  z"),
    ("<pre>  never ended\n    still pre", "  never ended\n    still pre"),
    ("<PRE>  upper</PRE>  after   it", "  upper\nafter it"),
    ("<listing>  l  l</listing>", "  l  l"),
    ('<div style="white-space:pre">  x\n    y</div>', "  x\n    y"),
    ('<div style="color: red; white-space: pre-wrap">  x  y</div>', "  x  y"),
    ('<div style="white-space: pre-line">  x   y</div>', "x y"),
    ('<pre>  a <span style="white-space: normal">b   c</span>  d</pre>', "  a b c  d"),
    ('a<span style="white-space:pre">\t</span>b', "a\tb"),
    ('<div style="white-space:pre"><div>  in</div>  after</div> c  d', "  in\n  after\nc d"),
    ("<pre/>  not  pre", "not pre"),
    # (Unicode noncharacters in the document are dropped: the text extraction uses three)
    ("<p>a\ufdd0b\ufdd1c\ufdd2d</p><pre> \ufdd0x</pre>", "abcd\n\n x"),
])
def test_exact_text(html, expected):
    assert html_to_text(html) == expected
    assert html_to_text_checked(html) == (expected, None)


def test_parsed_html_body():
    html = "<html><body><p>Dear Ann,<br>\nthe figures:</p>\n<pre>\nQ1   10\nQ2  200\n</pre>\n<p>Regards,\nBob</p></body></html>"
    m = parse_message(msg(body=html, ctype="Content-Type: text/html; charset=utf-8"), "x")
    assert m.body == "Dear Ann,\nthe figures:\n\nQ1   10\nQ2  200\n\nRegards, Bob"


_WORD = st.text("abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=6)
_TAG = st.sampled_from(["<b>", "</b>", "<p>", "</p>", "<br>", "<div>", "</div>", "<span>", "</span>",
                        "<li>", "<td>", "<tr>", "&nbsp;", "&amp;", ""])
_SPACE = st.sampled_from(["\n", "\r\n", "\t", "  \n  ", "\n\n\n", " \x0c "])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_TAG, _WORD), min_size=1, max_size=20), st.data())
def test_source_line_breaks_change_nothing(parts, data):
    """Outside preformatted text, any run of whitespace in the source shows as one space does."""
    spaced = "".join(f" {tag} {word}" for tag, word in parts)
    broken = "".join(f"{data.draw(_SPACE)}{tag}{data.draw(_SPACE)}{word}" for tag, word in parts)
    assert html_to_text(broken) == html_to_text(spaced)


_LINE = st.tuples(st.text(" \t", max_size=6), st.lists(st.tuples(_WORD, st.text(" \t", min_size=1, max_size=4)),
                                                       min_size=1, max_size=5))


@settings(max_examples=200, deadline=None)
@given(st.lists(_LINE, min_size=1, max_size=8))
def test_pre_text_is_kept_as_written(lines):
    text = "\n".join(indent + "".join(w + gap for w, gap in words).rstrip(" \t") for indent, words in lines)
    assert html_to_text(f"<p>Before\n  it</p><pre>\n{text}\n</pre>after") == f"Before it\n\n{text.rstrip()}\n\nafter"
    assert re.sub(r"\s+", " ", html_to_text(f"<p>{text}</p>")) == html_to_text(f"<p>{text}</p>")


@pytest.mark.parametrize("html, text", [
    ("<pre>a\n\n\n\nb</pre>", "a\n\n\n\nb"),                      # blank lines inside kept (were cut to one)
    ("<p>x</p><pre>\n  a\n\n\n b\n</pre><p>y</p>", "x\n\n  a\n\n\n b\n\ny"),
    ("<pre>\n\n\nstart</pre>", "start"),                        # at the very start: as any line breaks
    ("<pre>end\n\n\n</pre>after", "end\n\nafter"),              # at its end: they meet the block's own
])
def test_blank_lines_inside_pre_are_kept(html, text):
    assert html_to_text(html) == text
