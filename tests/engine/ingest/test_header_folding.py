"""RFC 2047 encoded words in folded headers: the whitespace of a fold separates words; it is
dropped only between two encoded words (RFC 2047 section 6.2)."""
from __future__ import annotations

import base64

from hypothesis import given, settings
from hypothesis import strategies as st

from mailfactory import msg

from sasc_desktop.engine.ingest.parse import parse_message
from sasc_desktop.engine.ingest.text import decode_header_value


def test_exact_values():
    cases = {
        # encoded display name folded before its address: the space stays
        "=?iso-8859-1?q?Luc=EDa_Fern=E1ndez?=\n <l@x.com>": "Lucía Fernández <l@x.com>",
        "=?utf-8?q?caf=C3=A9?=\n meeting": "café meeting",
        "=?utf-8?q?caf=C3=A9?=\r\n\tmeeting": "café meeting",
        "Re: =?utf-8?q?caf=C3=A9?=\n meeting\n notes": "Re: café meeting notes",
        "plain\n =?utf-8?q?caf=C3=A9?=": "plain café",
        # two adjacent encoded words: the whitespace between them goes, folded or not
        "=?utf-8?q?caf=C3=A9?=\n =?utf-8?q?_au_lait?=": "café au lait",
        "=?utf-8?q?caf=C3=A9?= =?utf-8?q?cr=C3=A8me?=": "cafécrème",
        "=?utf-8?q?a?=\n =?iso-8859-1?q?=E9?=": "aé",
        # encoded + plain on one line: kept as before
        "Re: =?utf-8?q?na=C3=AFve?= plan": "Re: naïve plan",
        "plain\n  text": "plain text",
    }
    for raw, expected in cases.items():
        assert decode_header_value(raw) == (expected, []), raw


def test_parsed_sender_and_subject():
    raw = msg(subject="=?utf-8?q?caf=C3=A9?=\n meeting", frm="=?iso-8859-1?q?Luc=EDa_Fern=E1ndez?=\n <l@x.com>",
              to="=?utf-8?q?Bj=C3=B6rn?=\n <b@x.com>, =?utf-8?q?Ann?= <a@x.com>")
    m = parse_message(raw, "x")
    assert (m.subject, m.sender, m.to) == ("café meeting", "Lucía Fernández <l@x.com>", "Björn <b@x.com>, Ann <a@x.com>")
    assert (m.from_addr, m.recipient_addrs) == ("l@x.com", ("b@x.com", "a@x.com"))
    assert m.notes == ()


_PLAIN = st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E), min_size=1, max_size=8).filter(
    lambda t: "=?" not in t and "?=" not in t)
_ENCODED = st.text(st.characters(blacklist_categories=("Cc", "Cs")), min_size=1, max_size=8)
_FOLD = st.sampled_from([" ", "\n ", "\n\t", "\r\n  ", "\n \t"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.booleans(), _ENCODED, _PLAIN, _FOLD), min_size=1, max_size=6))
def test_words_and_folds(tokens):
    """Any sequence of plain and encoded words, folded anywhere: plain words keep a space on each
    side, adjacent encoded words are joined."""
    raw, expected = [], []
    for n, (encoded, etext, ptext, fold) in enumerate(tokens):
        if n:
            raw.append(fold)
            if not (encoded and tokens[n - 1][0]):
                expected.append(" ")
        if encoded:
            raw.append("=?utf-8?b?" + base64.b64encode(etext.encode()).decode() + "?=")
            expected.append(etext)
        else:
            raw.append(ptext)
            expected.append(ptext)
    assert decode_header_value("".join(raw)) == ("".join(expected).strip(), [])
