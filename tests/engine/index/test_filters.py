"""Filters narrow a search as in a mail program, with or without words: filters of one field are
OR-ed (from:ann from:bob: either sender), filters of different fields AND-ed (from:holly
date:2001: from Holly, in 2001; was: from Holly OR in 2001), words must match beside them; a
one-sided date bound is a filter of its own (date:>2001-03 date:<2001-06: the time between);
an OR or AND the user typed is kept as typed. Against a scan of the messages' headers and text."""
from __future__ import annotations

import random
from datetime import datetime

import pytest
from oracle_corpus import WORDS, has_word, in_dates

FROM = ["ann", "bob", "holly", "keiser", "corp.com", "example.org", "ann@corp.com"]
TO = ["ann", "bob", "legal", "firm.com", "holly.keiser"]
DATES = {"2000": lambda w: w.year == 2000, "2001": lambda w: w.year == 2001, "2002": lambda w: w.year == 2002,
         "2001-03": lambda w: (w.year, w.month) == (2001, 3), "2000-12": lambda w: (w.year, w.month) == (2000, 12),
         ">2001-06": lambda w: w >= datetime(2001, 7, 1), "<2001-03": lambda w: w < datetime(2001, 3, 1),
         ">=2002": lambda w: w.year >= 2002, "<=2000": lambda w: w.year <= 2000}


def fr(a):
    return lambda d: a in d.frm


def to(a):
    return lambda d: a in d.to


def dt(v):
    return lambda d: in_dates(d, DATES[v])


def word(w):
    return lambda d: has_word(d, w)


def both(*ps):
    return lambda d: _and([p(d) for p in ps])


def either(*ps):
    return lambda d: _or([p(d) for p in ps])


def but_not(p, n):
    return lambda d: _and([p(d), _not(n(d))])


def _and(vs):
    return False if False in vs else (None if None in vs else True)


def _or(vs):
    return True if True in vs else (None if None in vs else False)


def _not(v):
    return None if v is None else not v


def shapes(rng):
    a, b = rng.sample(FROM, 2)
    c, e = rng.sample(TO, 2)
    y1, y2 = rng.sample(CLOSED, 2)
    bound = rng.choice(BOUNDS)
    w, v = rng.sample(WORDS, 2)
    return [
        (f"from:{a} date:{y1}", both(fr(a), dt(y1))),
        (f"from:{a} from:{b}", either(fr(a), fr(b))),
        (f"{w} from:{a} from:{b}", both(word(w), either(fr(a), fr(b)))),
        (f"{w} {v} from:{a} to:{c}", both(either(word(w), word(v)), fr(a), to(c))),
        (f"from:{a} date:{y1} date:{y2}", both(fr(a), either(dt(y1), dt(y2)))),
        (f"to:{c} to:{e} date:{y1}", both(either(to(c), to(e)), dt(y1))),
        (f"date:>2001-03 date:<2001-09 from:{a}", both(dt(">2001-03"), dt("<2001-09"), fr(a))),
        (f"{w} date:>=2001 date:<=2001-06", both(word(w), dt(">=2001"), dt("<=2001-06"))),
        (f"from:{a} OR date:{y1}", either(fr(a), dt(y1))),                   # typed: kept
        (f"{w} OR from:{a}", either(word(w), fr(a))),
        (f"({w} from:{a}) OR {v}", either(both(word(w), fr(a)), word(v))),
        (f"from:{a} date:{y1} NOT {w}", but_not(both(fr(a), dt(y1)), word(w))),
        (f"{w} -{v} to:{c}", but_not(both(word(w), to(c)), word(v))),
        (f"{w} (from:{a} AND to:{c})", both(word(w), fr(a), to(c))),
        (f"{w} (from:{a} OR to:{c})", both(word(w), either(fr(a), to(c)))),
        (f"from:({a} {b}) {w}", both(word(w), either(fr(a), fr(b)))),
        (f"{w} NOT from:{a} date:{y1}", but_not(both(word(w), dt(y1)), fr(a))),
        (f"date:{y1} date:{bound} date:{y2}", both(either(dt(y1), dt(y2)), dt(bound))),   # a bound narrows
        (f"date:{y1} OR date:{bound}", either(dt(y1), dt(bound))),
        (f"date:({y1} {y2}) from:{a}", both(either(dt(y1), dt(y2)), fr(a))),           # a date group
        (f"{w} date:({y1} OR {y2})", both(word(w), either(dt(y1), dt(y2)))),
        (f"date:(>2001-03 <2001-09) {w}", both(word(w), dt(">2001-03"), dt("<2001-09"))),
        (f"{w} date:({y1} NOT {y2})", both(word(w), but_not(dt(y1), dt(y2)))),
        (f"{w} (date:{y1} NOT date:{y2})", both(word(w), but_not(dt(y1), dt(y2)))),   # a filter with a NOT
        (f"{w} (from:{a} -from:{b})", both(word(w), but_not(fr(a), fr(b)))),
    ]


CLOSED = ["2000", "2001", "2002", "2001-03", "2000-12"]
BOUNDS = [">2001-06", "<2001-03", ">=2002", "<=2000"]
DATES[">2001-03"] = lambda w: w >= datetime(2001, 4, 1)
DATES["<2001-09"] = lambda w: w < datetime(2001, 9, 1)
DATES[">=2001"] = lambda w: w.year >= 2001
DATES["<=2001-06"] = lambda w: w < datetime(2001, 7, 1)


@pytest.mark.parametrize("seed", range(8))
def test_filters_against_a_scan(oracle, seed):
    session, docs = oracle
    for query, match in shapes(random.Random(seed)):
        r = session.search(query, limit=1000)
        got = {h.doc_id for h in r.hits}
        assert r.total == len(got)
        known = {d.doc_id: match(d) for d in docs.values()}
        sure = {k for k, v in known.items() if v is not None}
        assert got & sure == {k for k in sure if known[k]}, query
        assert len(sure) > len(docs) * 0.8


@pytest.mark.parametrize("query, same_as", [
    ("from:holly date:2001", "from:holly AND date:2001"),
    ("from:ann from:bob", "from:ann OR from:bob"),
    ("power from:ann from:bob", "power AND (from:ann OR from:bob)"),
    ("date:2000 date:2002", "date:2000 OR date:2002"),
    ("date:>2001-03 date:<2001-09", "date:>2001-03 AND date:<2001-09"),
    ("from:ann to:bob date:2001", "from:ann AND to:bob AND date:2001"),
    ("date:(2000 2002)", "date:2000 OR date:2002"),
    ("power date:(2001-03 OR 2000-12)", "power AND (date:2001-03 OR date:2000-12)"),
])
def test_reviewers_cases_read_as_written_out(oracle, query, same_as):
    session, _docs = oracle
    got = [h.doc_id for h in session.search(query, limit=1000).hits]
    assert got and sorted(got) == sorted(h.doc_id for h in session.search(same_as, limit=1000).hits)
