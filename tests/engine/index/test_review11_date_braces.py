"""A date range's braces leave its bound out, the whole period it names: date:{2019-06 to 2019-08}
is July 2019 only, date:[2019-06 to 2019-08} June and July, date:{2019 to} from 2020 on. Braces
were not read: date:{2019-12 to 2020-02} found 2019-12-01 to 2020-12-31 (silently wrong),
date:{2019 to 2019} ignored them, date:{2019-06 to 2019-07} failed with "'NoneType' object has no
attribute 'month'". Oracle: a scan of the messages' dates (the sender's clock, as the index keeps
them), for every pair of bounds and every kind of bracket, through Whoosh and the fast path;
messages a second either side of the boundaries, and some whose UTC day is another."""
from __future__ import annotations

import itertools
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given, settings, strategies as st
from index_support import period, run_by_whoosh
from mailfactory import ingested_project

from sasc_desktop.engine.errors import QueryError
from sasc_desktop.engine.index.query import _span, _whoosh_span

# (local wall time, UTC offset in hours)
EDGES = [(datetime(2019, 6, 1, 0, 0, 0), 0), (datetime(2019, 6, 30, 23, 59, 59), 0), (datetime(2019, 7, 1, 0, 0, 0), 0),
         (datetime(2019, 7, 31, 23, 59, 59), 0), (datetime(2019, 8, 1, 0, 0, 0), 0),
         (datetime(2018, 12, 31, 23, 59, 59), 0), (datetime(2019, 1, 1, 0, 0, 0), 0),
         (datetime(2019, 12, 31, 23, 59, 59), 0), (datetime(2020, 1, 1, 0, 0, 0), 0),
         (datetime(2020, 2, 29, 23, 59, 59), -8), (datetime(2020, 3, 1, 0, 0, 0), 0),
         (datetime(2019, 6, 30, 23, 30, 0), -5),    # (UTC: 1 July)
         (datetime(2019, 7, 1, 0, 30, 0), 10)]      # (UTC: 30 June)
MOMENTS = EDGES + [(datetime(2018, 11, 20, 12, 0, 0) + timedelta(days=9 * i), 0) for i in range(54)]


def doc_id(k: int) -> str:
    return f"d{k}@x"


def header(when: datetime, hours: int) -> str:
    return when.replace(tzinfo=timezone(timedelta(hours=hours))).strftime("%a, %d %b %Y %H:%M:%S %z")


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    s = ingested_project(tmp_path_factory.mktemp("braces"), [
        dict(message_id=f"<{doc_id(k)}>", subject=f"note {k}", body="text", date=header(w, h))
        for k, (w, h) in enumerate(MOMENTS)])
    yield s
    s.close()


def span(value: str) -> tuple[datetime, datetime]:
    """First and last moment of 2019, 2019-06 or 2019-06-30."""
    return period(value, timedelta(microseconds=1))


def oracle(open_: str, start: str, end: str, close: str) -> list[str]:
    """The messages date:<open_><start> to <end><close> finds: a bracket takes its bound in, a
    brace leaves it out; bounds the wrong way round (the start's first moment after the end's
    last) are swapped, each with its bracket (Whoosh swaps them too: date:[2020 to 2019] is 2019
    and 2020)."""
    start_out, end_out = open_ == "{", close == "}"
    if start and end and span(start)[0] > span(end)[1]:
        start, end, start_out, end_out = end, start, end_out, start_out

    def inside(when: datetime) -> bool:
        if start:
            first, last = span(start)
            if not (when > last if start_out else when >= first):
                return False
        if end:
            first, last = span(end)
            if not (when < first if end_out else when <= last):
                return False
        return True
    return sorted(doc_id(k) for k, (w, _h) in enumerate(MOMENTS) if inside(w))


def found(s, query: str, whoosh: bool) -> list[str]:
    with run_by_whoosh(whoosh):
        r = s.search(query, limit=1000)
    assert r.total == len(r.hits)
    return sorted(h.doc_id for h in r.hits)


BOUNDS = ["2018", "2019", "2019-06", "2019-07", "2019-06-30", "2020-02", "2019-12"]
PAIRS = list(itertools.product(BOUNDS, BOUNDS)) + [(b, "") for b in BOUNDS] + [("", b) for b in BOUNDS]


@pytest.mark.parametrize("open_, close", [("[", "]"), ("{", "}"), ("[", "}"), ("{", "]")])
def test_every_bracket_against_a_scan(project, open_, close):
    for start, end in PAIRS:
        value = f"{open_}{start + ' ' if start else ''}to{' ' + end if end else ''}{close}"
        want = oracle(open_, start, end, close)
        for whoosh in (True, False):
            assert found(project, f"date:{value}", whoosh) == want, (value, whoosh)


@pytest.mark.parametrize("query, months", [
    ("date:{2019-06 to 2019-08}", ["2019-07"]),
    ("date:{2019-12 to 2020-02}", ["2020-01"]),
    ("date:{2019-06 to 2019-07}", []),
    ("date:{2019 to 2019}", []),
    ("date:[2019 to 2019-06]", ["2019-01", "2019-02", "2019-03", "2019-04", "2019-05", "2019-06"]),
    ("date:[2019-07 to 2019]", ["2019-07", "2019-08", "2019-09", "2019-10", "2019-11", "2019-12"]),
    ("date:[2020 to 2019]", ["2019", "2020"]),
    ("date:{2019-08 to 2019-06}", ["2019-07"]),
    ("date:[2019-06 to 2019-08}", ["2019-06", "2019-07"]),
    ("date:{2019-06 to 2019-08]", ["2019-07", "2019-08"]),
    ("date:{2019-06-30 TO 2019-07-01}", []),
    ("date:({2019-06 to 2019-08} 2018)", ["2019-07", "2018"]),
    ("text date:{2019-06 to 2019-08}", ["2019-07"]),
    ("-date:{2019-06 to 2019-08} date:2019", [f"2019-{m:02d}" for m in range(1, 13) if m != 7]),
    ("-date:{2019-06 to 2019-07} date:2019-06", ["2019-06"]),    # (leaving out nothing)
    ("date:{2019-06 to 2019-07} OR date:2018", ["2018"]),
])
def test_named_cases(project, query, months):
    want = sorted(doc_id(k) for k, (w, _h) in enumerate(MOMENTS)
                  if any(f"{w:%Y-%m}".startswith(m) for m in months))
    assert want or not months
    for whoosh in (True, False):
        assert found(project, query, whoosh) == want, (query, whoosh)


def test_a_bad_bound_in_braces_is_said_as_written(project):
    with pytest.raises(QueryError) as err:
        project.search("date:{2019-13 to 2020}")
    assert str(err.value).startswith("cannot understand the query 'date:{2019-13 to 2020}': ")
    assert "'NoneType'" not in str(err.value) and "write a date as 2001" in str(err.value)


def test_a_range_without_years_is_this_years(project):
    """date:[june to august] failed ("'NoneType' object has no attribute 'year'"); it is this
    year's June to August, as date:june is this year's June."""
    parse = project.index.parse
    whole = parse("date:[june to august]", None)
    assert (whole.start, whole.end) == (parse("date:june", None).start, parse("date:august", None).end)
    inner = parse("date:{june to august}", None)
    assert (inner.start, inner.end) == (parse("date:july", None).start, parse("date:july", None).end)


@settings(max_examples=400, deadline=None)
@given(st.one_of(
    st.integers(1, 9999).map(lambda y: f"{y:04d}"),
    st.tuples(st.integers(1, 9999), st.integers(0, 13)).map(lambda t: f"{t[0]:04d}{t[1]:02d}"),
    st.tuples(st.integers(1, 9999), st.integers(1, 12), st.integers(0, 32)).map(lambda t: "%04d%02d%02d" % t),
    st.tuples(st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31, 23, 59, 59)),
              st.sampled_from([10, 12, 14])).map(
        lambda t: "%04d%02d%02d%02d%02d%02d" % (t[0].year, t[0].month, t[0].day, t[0].hour, t[0].minute,
                                                 t[0].second)[:t[1]]),
    st.sampled_from(["99991231", "9999123123", "999912312359", "99991231235959", "20190229", "20200229",
                     "2019063024", "201906302360", "20190630235960", "000101"])))
def test_compact_dates_are_read_as_whoosh_reads_them(text):
    """query._span reads a compact date itself (Whoosh's parser took a quarter of a millisecond a
    bound): the same first and last moments as Whoosh's reading, or None where it reads none."""
    assert _span(text) == _whoosh_span(text)
