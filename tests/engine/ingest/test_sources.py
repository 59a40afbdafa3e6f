"""The fast mbox separator finder agrees with the reference regex on any bytes."""
from hypothesis import given, settings, strategies as st

from sasc_desktop.engine.ingest.sources import _SEPARATOR, _separators

pieces = st.lists(st.sampled_from([b"From ", b"From x@y Mon\n", b"\n", b"\r\n", b"\n\n", b"x", b">From ", b"\r",
                                   b"From - Mon Mar  5 10:00:00 2001\n", b"From a@b Tue Jan 1 1:00 PST 2001\r\n",
                                   b"From a@b Sun Dec 31 23:59:59 +0000 2000\n", b"From here on\n", b"\xef\xbb\xbf"]),
                  max_size=40).map(b"".join)


def reference(data: bytes) -> list[tuple[int, int]]:
    return [m.span(m.lastindex) for m in _SEPARATOR.finditer(data)]


@settings(max_examples=500, deadline=None)
@given(pieces)
def test_separators_match_reference_regex(data):
    assert _separators(data) == reference(data)


def test_reference_examples():
    assert reference(b"From a\nx\n\nFrom b\n") == [(0, 7), (10, 17)]
    assert reference(b"\xef\xbb\xbf\r\n\nFrom a\n") == [(6, 13)]
    # a strict From_ line after any line; a loose one only after a blank line
    strict = b"From - Mon Mar  5 10:00:00 2001\n"
    assert reference(b"From a\nx\n" + strict + b"From here on\n") == [(0, 7), (9, 9 + len(strict))]


def test_mailboxes_saved_with_a_byte_order_mark_and_joined_split_at_each(tmp_path):
    """cat a.mbox b.mbox, each saved with a byte order mark: b's first message is a message of its
    own (it was the end of a's last body), with a blank line or without one before it."""
    from sasc_desktop.engine.ingest.sources import iter_mbox
    bom, strict = b"\xef\xbb\xbf", b"From - Mon Mar  5 10:00:00 2001\n"
    one = bom + strict + b"Subject: a\n\nbody a\n\n"
    two = bom + strict + b"Subject: b\n\nbody b\n"
    three = bom + b"From x@y\nSubject: c\n\nbody c\n"
    path = tmp_path / "joined.mbox"
    path.write_bytes(one + two + b"\n" + three)
    assert [item.data for item in iter_mbox(path, "")] == [b"Subject: a\n\nbody a\n", b"Subject: b\n\nbody b\n",
                                                           b"Subject: c\n\nbody c\n"]
