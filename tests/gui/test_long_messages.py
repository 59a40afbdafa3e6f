"""A long message opens without freezing the window: the highlight merge is one sorted sweep
(checked against the old quadratic merge as a brute-force oracle, and by counting the lines it
executes, not by timing), the text is shown in parts of bounded size, and the first part's HTML is
made on the worker thread."""
from __future__ import annotations

import html
import sys
import threading
from email.utils import format_datetime
from datetime import datetime, timezone
from typing import Iterable, Optional

import pytest
from hypothesis import given, settings, strategies as st

from sasc_desktop.engine.session import Session
from sasc_desktop.gui import document, evidence
from sasc_desktop.gui.evidence import (COLOURS, CUE, LAYER_NAMES, PAGE_CHARS, PII, PRIORITY, QUERY, Mark, PagedText,
                                       _style, merged_html, page_bounds)

from gui_support import open_doc, open_project, pump, search


# ------------------------------------------------------------------------ the oracle: the old merge
def _old_title(marks: Iterable[Mark]) -> str:
    labels: list[str] = []
    for m in sorted(marks, key=lambda m: (PRIORITY.index(m.layer), m.label)):
        label = m.label or LAYER_NAMES.get(m.layer, m.layer)
        if label not in labels:
            labels.append(label)
    return "; ".join(labels)


def old_merged_html(text: str, marks) -> str:
    """The merge as it was: for every piece between two cut points, every mark is tested (O(n^2))."""
    n = len(text)
    usable = [Mark(max(0, m.start), min(n, m.end), m.layer, m.label) for m in marks
              if m.layer in COLOURS and min(n, m.end) > max(0, m.start)]
    if not usable:
        return html.escape(text)
    cuts = sorted({0, n, *(m.start for m in usable), *(m.end for m in usable)})
    pieces: list[tuple[int, int, Optional[tuple[str, str]]]] = []
    for a, b in zip(cuts, cuts[1:]):
        covering = [m for m in usable if m.start <= a and b <= m.end]
        look = (_style(frozenset(m.layer for m in covering)), _old_title(covering)) if covering else None
        if pieces and pieces[-1][2] == look:
            pieces[-1] = (pieces[-1][0], b, look)
        else:
            pieces.append((a, b, look))
    out = []
    for a, b, look in pieces:
        chunk = html.escape(text[a:b])
        if look is None:
            out.append(chunk)
        else:
            style, title = look
            out.append(f'<span style="{style}" title="{html.escape(title, quote=True)}">{chunk}</span>')
    return "".join(out)


LABELS = ["", "PII: card", "PII: IBAN", 'cue: <"x">', "cue: legal", "search term", "a; b"]
marks_strategy = st.lists(st.builds(Mark, st.integers(-5, 70), st.integers(-5, 70),
                                    st.sampled_from([QUERY, PII, CUE, "other"]), st.sampled_from(LABELS)),
                          max_size=30)


@settings(max_examples=600, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab <>&\"'\n\té€")), max_size=64), marks_strategy)
def test_the_sweep_gives_exactly_what_the_old_merge_gave(text, marks):
    assert merged_html(text, marks) == old_merged_html(text, marks)


# ------------------------------------------------------------------------ how much work, counted
class _Budget(Exception):
    pass


def lines_run(fn, *args, budget: int, target: str = evidence.__file__) -> int:
    """How many lines of ``target`` (evidence.py) ``fn(*args)`` executes (sys.settrace line
    events, loop iterations of comprehensions included); stops with _Budget beyond ``budget``."""
    count = 0

    def local(frame, event, arg):
        nonlocal count
        if event == "line":
            count += 1
            if count > budget:
                raise _Budget()
        return local

    def tracer(frame, event, arg):
        return local if frame.f_code.co_filename == target else None
    old = sys.gettrace()
    sys.settrace(tracer)
    try:
        fn(*args)
    finally:
        sys.settrace(old)
    return count


def marked_text(n_marks: int) -> tuple[str, list[Mark]]:
    """A text of words with ``n_marks`` marks: query terms, cue words and PII runs overlapping them."""
    words, marks, pos = [], [], 0
    for i in range(n_marks):
        w = ("salary", "budget", "4111")[i % 3]
        words.append(w + " filler")
        layer = (CUE, QUERY, PII)[i % 3]
        marks.append(Mark(pos, pos + len(w), layer, {CUE: "cue: employment", QUERY: "", PII: "PII: card"}[layer]))
        if i % 5 == 0:  # an evidence mark over this word and the next: overlaps
            marks.append(Mark(pos, pos + 2 * len(w) + 8, PII, "PII: phone"))
        pos += len(w) + 8
    return " ".join(words), marks


def test_the_merge_does_work_in_proportion_to_the_marks():
    per_mark = 60  # lines per mark allowed; the old merge needs about (2 x marks) x marks
    small = marked_text(2_000)
    large = marked_text(4_000)
    n_small = lines_run(merged_html, *small, budget=per_mark * len(small[1]))
    n_large = lines_run(merged_html, *large, budget=per_mark * len(large[1]))
    assert n_large <= 2.2 * n_small  # twice the marks: about twice the work, not four times
    # and the same output as the oracle on a size the oracle can do
    text, marks = marked_text(300)
    assert merged_html(text, marks) == old_merged_html(text, marks)


def test_the_line_counter_sees_a_quadratic_loop():
    # the measure itself is sound: the old merge blows the same budget at the small size
    text, marks = marked_text(2_000)
    with pytest.raises(_Budget):
        lines_run(old_merged_html, text, marks, budget=60 * len(marks), target=__file__)


# ------------------------------------------------------------------------ parts of bounded size
@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab \n")), max_size=300), st.integers(1, 40))
def test_parts_cover_the_text_in_order_each_at_most_the_size(text, size):
    bounds = page_bounds(text, size)
    assert bounds[0] == 0 and bounds[-1] == len(text)
    assert all(0 < b - a <= size for a, b in zip(bounds, bounds[1:])) or (text == "" and bounds == [0, 0])
    for a, b in zip(bounds[1:-1], bounds[2:]):  # a part ends after a line break in its last tenth when there is one
        start = bounds[bounds.index(a) - 1]
        low = start + size - size // 10
        if "\n" in text[low:start + size]:
            assert text[a - 1] == "\n"


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab <&\n")), max_size=120), marks_strategy, st.integers(3, 30))
def test_each_part_is_the_oracle_merge_of_its_own_text_and_marks(text, marks, size):
    pages = PagedText(text, marks, size=size)
    assert "".join(pages.text[a:b] for a, b in zip(pages.bounds, pages.bounds[1:])) == text
    for i in range(len(pages)):
        a, b = pages.span(i)
        clipped = [Mark(max(m.start, a) - a, min(m.end, b) - a, m.layer, m.label) for m in marks
                   if m.layer in COLOURS and min(m.end, b) > max(m.start, a)]
        assert pages.page_html(i) == old_merged_html(text[a:b], clipped)


# ------------------------------------------------------------------------ in the window
LONG_LINES = 9_000  # about 630,000 characters: seven parts


def _long_mbox(path):
    date = format_datetime(datetime(2001, 6, 1, 9, 0, tzinfo=timezone.utc))
    lines = []
    for i in range(LONG_LINES):
        word = "quokka" if i in (10, 4_000, 8_500) else "minutes"
        lines.append(f"Line {i}: the {word} of the weekly meeting, item {i}, were read out.")
    body = "\n".join(lines)
    path.write_text("From a@example.com Fri Jun  1 09:00:00 2001\n"
                    "From: A <a@example.com>\nTo: B <b@example.com>\nSubject: The whole year of minutes\n"
                    f"Date: {date}\nMessage-ID: <long@example.com>\n\n{body}\n\n"
                    "From b@example.com Fri Jun  1 10:00:00 2001\n"
                    "From: B <b@example.com>\nTo: A <a@example.com>\nSubject: short\n"
                    f"Date: {date}\nMessage-ID: <short@example.com>\n\nA short note on the quokka.\n\n")
    return path, body


@pytest.fixture
def long_project(tmp_path):
    mbox, body = _long_mbox(tmp_path / "long.mbox")
    root = tmp_path / "long"
    with Session.create(root) as s:
        assert s.ingest([mbox], workers=0).ingested == 2
        stored = s.document("long@example.com")["body"]
    return root, stored


def test_a_long_message_opens_in_parts_with_no_long_merge_on_the_ui_thread(qtbot, window, long_project, monkeypatch):
    root, body = long_project
    assert len(body) > 6 * PAGE_CHARS
    calls = []

    def recording(real):
        def merged(text, marks):
            calls.append((threading.current_thread() is threading.main_thread(), len(text)))
            return real(text, marks)
        return merged
    monkeypatch.setattr(evidence, "merged_html", recording(evidence.merged_html))
    monkeypatch.setattr(document, "merged_html", recording(document.merged_html))
    open_project(qtbot, window, root)
    search(qtbot, window, "quokka")
    calls.clear()
    open_doc(qtbot, window, "long@example.com")
    # the body's merge ran on the worker; on the UI thread only header lines (at most 400 characters)
    assert any(not ui and size > PAGE_CHARS // 2 for ui, size in calls)
    assert all(size <= 402 for ui, size in calls if ui)
    view = window.doc_view
    pager = view.body_pager
    pages = view.doc["body_pages"]
    n = len(pages)
    assert n == len(page_bounds(body)) - 1 >= 7
    assert pager.bar.isVisible() and pager.page == 0
    notice = pager.notice.text()
    assert f"part 1 of {n}" in notice and f"of {len(body):,})" in notice
    assert "Search terms in parts 1, " in notice
    shown = view.body.toPlainText()
    assert len(shown) <= PAGE_CHARS and body.startswith(shown.rstrip("\n"))
    assert 'title="search term">quokka</span>' in pages.page_html(0)
    # the next parts, one at a time; the part with the second quokka has it highlighted
    second = next(i for i in range(n) if "quokka" in body[slice(*pages.span(i))] and i > 0)
    for i in range(1, second + 1):
        pager.next_button.click()
    assert pager.page == second and f"part {second + 1} of {n}" in pager.notice.text()
    a, b = pages.span(second)
    assert view.body.toPlainText().rstrip("\n") == body[a:b].rstrip("\n")
    assert "#ffe066" in view.body.toHtml()
    while pager.next_button.isEnabled():
        pager.next_button.click()
    assert pager.page == n - 1 and not pager.next_button.isEnabled() and pager.prev_button.isEnabled()
    view.grab().save(str(root.parent / "long_message.png"))
    # a short message has no bar
    open_doc(qtbot, window, "short@example.com")
    assert not pager.bar.isVisible() and "quokka" in view.body.toPlainText()
    pump(10)
