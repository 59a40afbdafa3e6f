"""Whitespace in HTML as a browser shows it: a newline in the source is a space, not a line
break."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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
])
def test_exact_text(html, expected):
    assert html_to_text(html) == expected
    assert html_to_text_checked(html) == (expected, None)


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
