"""The fast mbox separator finder agrees with the reference regex on any bytes."""
from hypothesis import given, settings, strategies as st

from sasc_desktop.engine.ingest.sources import _SEPARATOR, _separators

pieces = st.lists(st.sampled_from([b"From ", b"From x@y Mon\n", b"\n", b"\r\n", b"\n\n", b"x", b">From ", b"\r"]),
                  max_size=40).map(b"".join)


@settings(max_examples=500, deadline=None)
@given(pieces)
def test_separators_match_reference_regex(data):
    assert _separators(data) == [(m.start(), m.end()) for m in _SEPARATOR.finditer(data)]
