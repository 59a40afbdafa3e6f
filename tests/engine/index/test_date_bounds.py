"""date:>X and date:<X leave X itself out (date:>2001 is from 2002 on, date:<2001-05 up to the end
of April 2001); date:>=X and date:<=X take it in; at year, month and day granularity, on
messages a second either side of each boundary, against a scan of their dates."""
from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from index_support import period
from mailfactory import ingested_project

from sasc_desktop.engine.errors import QueryError

# (all in UTC, so that the sender's clock and UTC agree: which clock is another test's subject)
MOMENTS = [datetime(2000, 12, 31, 23, 59, 59), datetime(2001, 1, 1, 0, 0, 0), datetime(2001, 3, 4, 23, 59, 59),
           datetime(2001, 3, 5, 0, 0, 0), datetime(2001, 3, 5, 23, 59, 59), datetime(2001, 3, 6, 0, 0, 0),
           datetime(2001, 4, 30, 23, 59, 59), datetime(2001, 5, 1, 0, 0, 0), datetime(2001, 5, 31, 23, 59, 59),
           datetime(2001, 6, 1, 0, 0, 0), datetime(2001, 12, 31, 23, 59, 59), datetime(2002, 1, 1, 0, 0, 0),
           datetime(2002, 6, 15, 12, 0, 0)]


def doc_id(when: datetime) -> str:
    return f"{when:%Y%m%d%H%M%S}@x"


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    s = ingested_project(tmp_path_factory.mktemp("bounds"), [
        dict(message_id=f"<{doc_id(w)}>", subject="budget" if w.second else "lunch", body="text",
             date=w.strftime("%a, %d %b %Y %H:%M:%S +0000")) for w in MOMENTS])
    yield s
    s.close()


def span(value: str) -> tuple[datetime, datetime]:
    """First and last second of 2001, 2001-05 or 2001-03-05."""
    return period(value, timedelta(seconds=1))


def expected(op: str, value: str) -> list[str]:
    first, last = span(value)
    keep = {">": lambda w: w > last, ">=": lambda w: w >= first, "<": lambda w: w < first, "<=": lambda w: w <= last}[op]
    return sorted(doc_id(w) for w in MOMENTS if keep(w))


def found(session, query) -> list[str]:
    r = session.search(query, limit=100)
    assert r.total == len(r.hits)
    return sorted(h.doc_id for h in r.hits)


VALUES = ["2000", "2001", "2002", "2001-03", "2001-04", "2001-05", "2001-12", "2001-03-04", "2001-03-05",
          "2001-03-06", "2001-04-30", "2001-05-01", "2001-12-31"]


@pytest.mark.parametrize("op", [">", ">=", "<", "<="])
@pytest.mark.parametrize("value", VALUES)
def test_bounds_against_a_scan(project, op, value):
    assert found(project, f"date:{op}{value}") == expected(op, value)
    compact = value.replace("-", "")
    assert found(project, f"date:{op}{compact}") == expected(op, value)


@pytest.mark.parametrize("query, ids", [
    ("date:>2001", ["20020101000000@x", "20020615120000@x"]),
    ("date:<2002", [doc_id(w) for w in MOMENTS if w.year <= 2001]),
    ("date:<2001-05", [doc_id(w) for w in MOMENTS if w < datetime(2001, 5, 1)]),
    ("date:>2001-03-05 AND date:<2001-05", ["20010306000000@x", "20010430235959@x"]),   # from Mar 6 to Apr 30
    ("budget date:>2001-03-05", ["20010430235959@x", "20010531235959@x", "20011231235959@x"]),
    ("lunch date:<=2001-03-05", ["20010101000000@x", "20010305000000@x"]),
    ("date:[2001-03-05 to 2001-03-05]", ["20010305000000@x", "20010305235959@x"]),   # a range keeps its ends
])
def test_reviewers_cases_and_combinations(project, query, ids):
    assert found(project, query) == sorted(ids)


def test_no_date_beyond_the_last(project):
    with pytest.raises(QueryError, match="no date comes after '9999'"):
        project.search("date:>9999")
    assert found(project, "date:>=9999") == []


@pytest.mark.parametrize("op", [">", ">=", "<", "<=", ""])
@pytest.mark.parametrize("value", ["2001", "2001-05", "2001-03-05"])
def test_a_date_right_before_a_closing_bracket(project, op, value):
    """A date: value ends at a bracket: '(power date:<2001-06)' is '(power date:<2001-06 )' (it
    took the ')' in: 'cannot understand the query ...: 200106)')."""
    if op:
        dates = expected(op, value)
    else:
        first, last = span(value)
        dates = sorted(doc_id(w) for w in MOMENTS if first <= w <= last)
    budget = {doc_id(w) for w in MOMENTS if w.second}
    for query, ids in ((f"(date:{op}{value})", dates),
                       (f"(budget date:{op}{value})", [d for d in dates if d in budget]),
                       (f"text (date:{op}{value})", dates),
                       (f"(lunch OR budget) AND (text date:{op}{value})", dates),
                       (f"((budget) date:{op}{value})", [d for d in dates if d in budget])):
        assert found(project, query) == ids, query
        assert found(project, query.replace(")", " )")) == ids, query
