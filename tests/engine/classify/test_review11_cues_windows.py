"""Cue words are found window by window: one regex run over a 1.5 MB message held the GIL for
0.5 s (cue_hits, called by explain on the worker thread), and the window's event loop stalled
that long. Each run now covers at most WINDOW characters (more only for one word longer than
that), and the hits and counts are exactly those of one run over the whole text: checked against
the whole-text scan (hypothesis, with small windows so that hits fall on every edge) and against
the brute-force oracle of test_cues."""
from __future__ import annotations

import re
from re import _parser as sre_parse   # the stdlib's own pattern parser, for the widths

from hypothesis import given, settings, strategies as st

from sasc_desktop.engine.classify import cues
from sasc_desktop.engine.classify.cues import CUE_PATTERNS, MARGIN, WINDOW, cue_counts, cue_hits

from test_cues import _oracle


def _whole(text: str) -> list[tuple[str, int, int]]:
    """The hits of one run of the pattern over the whole text (as cue_hits was)."""
    return [(m.lastgroup, m.start(), m.end()) for m in cues._CUES.finditer(text)]


def _windowed(text: str, window: int, margin: int = MARGIN) -> list[tuple[str, int, int]]:
    return [(m.lastgroup, m.start(), m.end()) for m in cues.cue_matches(text, window, margin)]


class _Recording:
    """The cue pattern, with each run's (start, end) recorded."""

    def __init__(self, pattern):
        self.pattern, self.runs = pattern, []

    def finditer(self, text, pos=0, endpos=None):
        endpos = len(text) if endpos is None else min(endpos, len(text))
        self.runs.append((pos, endpos))
        return self.pattern.finditer(text, pos, endpos)


def test_every_cue_is_shorter_than_the_margin():
    """The windows' correctness rests on this: a match is taken from a window only when it ends
    MARGIN characters before the window's end, so every fixed part of a cue (all but a \\w* tail)
    and the \\b after it must be shorter than that."""
    longest = 0
    for family, pattern in CUE_PATTERNS.items():
        depth, start, alternatives = 0, 0, []
        for i, c in enumerate(pattern):
            depth += c == "("
            depth -= c == ")"
            if c == "|" and depth == 0:
                alternatives.append(pattern[start:i])
                start = i + 1
        alternatives.append(pattern[start:])
        for alternative in alternatives:
            fixed = alternative[:-3] if alternative.endswith(r"\w*") else alternative
            low, high = sre_parse.parse(fixed).getwidth()
            assert high < 1000, (family, alternative)      # no other unbounded part
            longest = max(longest, high)
    assert longest == len("not for distribution")
    assert longest + 1 < MARGIN < WINDOW


def test_a_long_message_is_scanned_in_windows(monkeypatch):
    text = "".join(f"x{i}\n" for i in range(200_000)) + "the lawyer said"      # 1,488,905 characters
    rec = _Recording(cues._CUES)
    monkeypatch.setattr(cues, "_CUES", rec)
    hits = cue_hits(text)
    assert hits == [{"kind": "legal", "field": "body", "start": len(text) - 11, "end": len(text) - 5,
                     "text": "lawyer"}]
    assert max(end - start for start, end in rec.runs) <= WINDOW
    assert rec.runs[0] == (0, WINDOW) and rec.runs[-1][1] == len(text)
    assert all(b[0] == a[1] - MARGIN for a, b in zip(rec.runs, rec.runs[1:]))      # no match: on by the margin
    rec.runs.clear()
    assert cue_counts(text)["legal"] == 1 and max(end - start for start, end in rec.runs) <= WINDOW


def test_hits_on_a_window_edge_are_found_once_and_whole():
    window = 100
    for at in range(40, 101):                    # "confidentiality" across the first window's end and around
        text = "." * at + " confidentiality, son sonic. " + "x" * 150 + " lawsuit"
        got = _windowed(text, window)
        assert got == _whole(text), at
        assert [k for k, _, _ in got] == ["secrecy", "personal", "legal"]


def test_a_word_longer_than_a_window_is_one_hit():
    text = "a " + "confidential" + "z" * 300_000 + " end"
    got = _windowed(text, 1_000)
    assert got == [("secrecy", 2, 2 + 12 + 300_000)] == _whole(text)
    assert _windowed("sonic" + "x" * 5000, 100) == [] == _whole("sonic" + "x" * 5000)
    assert _windowed("", 100) == [] and cue_hits("") == []


TOKENS = ["attorney", "attorneys", "privilege", "privileged", "privileges", "son", "sonic", "confidential",
          "confidentiality", "do not forward", "do not", "not for distribution", "internal use only",
          "laid off", "layoffs", "r\u00e9sum\u00e9", "resume", "hell", "hello", "sorry", "x", "xx", "!!", "?!", ",",
          ".", " ", "\n", "  ", "_", "9", "\u00e9", "miss you", "miss", "litigate", "litigators", "work product"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(TOKENS), max_size=120), st.sampled_from(["", " ", "\n", ", ", "_"]),
       st.integers(1, 160), st.integers(22, 70))
def test_windows_find_exactly_what_one_run_finds(tokens, sep, window, margin):
    """Any window (smaller than the margin too: the window grows), any margin from the longest
    cue's length + 1 up: the same hits as one run over the whole text."""
    text = sep.join(tokens)
    assert _windowed(text, window, margin) == _whole(text)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(TOKENS), max_size=200), st.sampled_from([" ", "\n", ""]))
def test_counts_and_hits_at_the_real_window_agree_with_the_oracle(tokens, sep):
    text = sep.join(tokens)
    counts = cue_counts(text)
    assert counts == _oracle(text)
    hits = cue_hits(text, "subject")
    assert [(h["kind"], h["start"], h["end"]) for h in hits] == _whole(text)
    assert all(h["field"] == "subject" and text[h["start"]:h["end"]] == h["text"] for h in hits)
    assert sum(counts.values()) == len(hits)


def test_a_long_text_with_many_cues_on_the_default_windows():
    unit = "Our attorney says the settlement is confidential; my son was sick. " * 7
    text = (unit + "x" * 13) * 2_000                        # 964,000 characters, hits on many edges
    assert len(text) > 10 * WINDOW
    assert [(m.lastgroup, m.start(), m.end()) for m in cues.cue_matches(text)] == _whole(text)
    assert re.sub(r"\s", "", str(cue_counts(text))) == "{'legal':28000,'secrecy':14000,'personal':14000," \
                                                          "'employment':0,'health':14000,'emotion':0}"
