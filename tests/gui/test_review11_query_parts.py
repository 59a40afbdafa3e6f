"""A long message's search terms are found part by part: the whole-text analysis of a 1.5 MB
message took 1.3 s while it opened, most of it for parts never shown. Opening it finds those of
its first QUERY_AHEAD characters (on the worker); the other parts are searched a slice at a time
while the window is idle, or at once when the reader turns to one first, and the part notice says
which parts are still being searched. The spans are exactly the whole-text analysis's: checked
with hypothesis on small parts and slices, and on a real 645,000-character message."""
from __future__ import annotations

import threading

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from sasc_desktop.engine.session import Session
from sasc_desktop.gui import document
from sasc_desktop.gui.document import (QUERY_SLICE, WORD_REACH, PagedBrowser, QueryPages, locked_highlighter,
                                       spans_within)
from sasc_desktop.gui.evidence import PAGE_CHARS, QUERY, PagedText, page_bounds

from gui_support import open_doc, open_project, pump, search, wait_until
from test_long_messages import _long_mbox


@pytest.fixture(scope="module")
def analyser(tmp_path_factory):
    """A real (empty) project: its index's analyser, and the search terms of a real query."""
    s = Session.create(tmp_path_factory.mktemp("q") / "p")
    terms = set(s.search("quokka meetings budget").terms)
    assert terms == {"quokka", "meet", "budget"}
    yield locked_highlighter(s, terms), (lambda text: s.highlight_spans(text, terms))
    s.close()


def _overlapping(spans, a, b):
    return [(s, e) for s, e in spans if e > a and s < b]


WORDS = ["quokka", "Quokkas", "meeting", "meet", "budget", "budgetary", "the", "x", "a.b", "quokka.meeting",
         "quokka_x", "re\u0301sume\u0301", ",", ".", " ", "\n", "\t", "--", "x" * 45, "quokka" * 8, "e\u0301"]
texts = st.builds(lambda words, sep: sep.join(words), st.lists(st.sampled_from(WORDS), max_size=80),
                  st.sampled_from(["", " ", "\n", ","]))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts, st.integers(0, 400), st.integers(0, 400), st.integers(41, 90))
def test_spans_within_a_range_are_the_whole_texts(analyser, text, a, b, reach):
    highlight, whole = analyser
    a, b = sorted((min(a, len(text)), min(b, len(text))))
    assert spans_within(highlight, text, a, b, reach) == _overlapping(whole(text), a, b)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts, st.integers(5, 120), st.integers(1, 60))
def test_parts_searched_slice_by_slice_find_the_whole_texts_spans(analyser, text, size, slice_chars):
    highlight, whole = analyser
    spans = whole(text)
    pages = QueryPages(text, [], highlight, size=size, slice_chars=slice_chars)
    assert pages.pending() == ([] if not text else list(range(len(pages))))
    for p in reversed(range(len(pages))):             # in any order
        pages.search(p)
    assert pages.pending() == [] and pages.query_spans() == spans
    bounds = page_bounds(text, size)
    assert pages.pages_with(QUERY) == sorted({next(i for i in range(len(pages)) if bounds[i] <= s < bounds[i + 1])
                                             for s, _ in spans})
    # each part's marks (offsets into the part) and HTML: those of the whole text's spans, as PagedText had them
    old = PagedText(text, document.query_marks(spans), size=size)
    for p in range(len(pages)):
        a, b = pages.span(p)
        assert [(m.start, m.end) for m in pages.page_marks(p)] == [(s - a, e - a) for s, e in _overlapping(spans, a, b)]
        assert pages.page_html(p) == old.page_html(p)


def test_a_word_cut_between_two_parts_is_marked_in_both_and_counted_where_it_starts(analyser):
    highlight, _ = analyser
    text = "." * 8 + "quokka and more"            # parts of 10: "........qu" | "okka and m" | "ore"
    pages = QueryPages(text, [], highlight, size=10, slice_chars=3)
    assert pages.bounds == [0, 10, 20, 23]
    assert [(m.start, m.end) for m in pages.page_marks(1)] == [(-2, 4)]
    assert pages.pending() == [0, 2]
    assert [(m.start, m.end) for m in pages.page_marks(0)] == [(8, 14)]
    assert pages.pages_with(QUERY) == [0]
    assert 'title="search term">okka</span>' in pages.page_html(1)


def test_the_notice_says_which_parts_are_still_being_searched(qtbot, analyser):
    highlight, whole = analyser
    text = "".join(f"line {i:02d} {'quokkas' if i in (3, 25, 44) else 'minutes':>11}\n" for i in range(50))
    pager = PagedBrowser("message")
    qtbot.addWidget(pager)
    pages = QueryPages(text, [], highlight, size=100, slice_chars=30)
    assert pages.bounds == list(range(0, 1001, 100))                  # ten parts of five lines
    assert pages.look_ahead(150) == -50                               # parts 1 and 2 searched
    pager.set_pages(pages)
    assert pager.notice.text() == ("<b>Long message:</b> part 1 of 10 (characters 1–100 of 1,000). Search terms "
                                   "in part 1 so far; parts 3–10 still being searched.")
    # turned to first, a part is searched at once
    pager.next_button.click()
    pager.next_button.click()
    assert pages.pending() == [3, 4, 5, 6, 7, 8, 9] and pager.page == 2
    assert pager.notice.text() == ("<b>Long message:</b> part 3 of 10 (characters 201–300 of 1,000). Search "
                                   "terms in part 1 so far; parts 4–10 still being searched.")
    # the rest while idle, a slice at a time
    wait_until(lambda: not pages.pending(), 10, "the parts to be searched")
    assert pager.notice.text() == ("<b>Long message:</b> part 3 of 10 (characters 201–300 of 1,000). Search "
                                   "terms in parts 1, 6, 9.")
    assert pages.query_spans() == whole(text)
    # none in the parts searched yet
    pages = QueryPages(text.replace("quokkas", "wombats"), [], highlight, size=100, slice_chars=30)
    pages.look_ahead(1)
    pager.set_pages(pages)
    assert pager.notice.text() == ("<b>Long message:</b> part 1 of 10 (characters 1–100 of 1,000). Search terms: "
                                   "none found so far; parts 2–10 still being searched.")
    wait_until(lambda: not pages.pending(), 10, "the parts to be searched")
    assert pager.notice.text() == "<b>Long message:</b> part 1 of 10 (characters 1–100 of 1,000)."


def test_a_long_message_opens_with_its_first_parts_searched_and_the_rest_while_idle(
        qtbot, window, tmp_path, monkeypatch):
    mbox, _ = _long_mbox(tmp_path / "long.mbox")
    with Session.create(tmp_path / "long") as s:
        assert s.ingest([mbox], workers=0).ingested == 2
        body = s.document("long@example.com")["body"]
    assert len(body) > 6 * PAGE_CHARS
    ahead = 150_000
    monkeypatch.setattr(document, "QUERY_AHEAD", ahead)
    calls = []
    real = Session.highlight_spans

    def recording(self, text, terms):
        calls.append((threading.current_thread() is threading.main_thread(), len(text)))
        return real(self, text, terms)
    monkeypatch.setattr(Session, "highlight_spans", recording)
    open_project(qtbot, window, tmp_path / "long")
    search(qtbot, window, "quokka")
    calls.clear()
    open_doc(qtbot, window, "long@example.com")
    pages = window.doc_view.doc["body_pages"]
    bounds = page_bounds(body)
    assert isinstance(pages, QueryPages) and pages.bounds == bounds and len(pages) == 7
    # on the worker: the subject, then the body's first two parts (the first reaching 150,000
    # characters), a slice at a time
    worker = [n for ui, n in calls if not ui]
    assert worker[0] == len("The whole year of minutes")
    assert max(worker[1:]) <= QUERY_SLICE + 2 * WORD_REACH
    assert bounds[2] <= sum(worker[1:]) <= bounds[2] + len(worker) * 2 * WORD_REACH
    assert window.doc_view.doc["body_spans"] == [s for s in pages.query_spans() if s[0] < bounds[2]] != []
    # the rest on the UI thread, while idle, then the notice is whole
    wait_until(lambda: not pages.pending(), 60, "the other parts to be searched")
    assert all(n <= QUERY_SLICE + 2 * WORD_REACH for ui, n in calls if ui)
    whole = window.session.highlight_spans(body, {"quokka"})
    assert pages.query_spans() == whole and len(whole) == 3
    quokka_parts = sorted({next(i for i in range(7) if bounds[i] <= s < bounds[i + 1]) + 1 for s, _ in whole})
    assert quokka_parts[0] == 1 and len(quokka_parts) == 3
    notice = window.doc_view.body_pager.notice.text()
    assert f"Search terms in parts {', '.join(map(str, quokka_parts))}." in notice
    pump(10)
