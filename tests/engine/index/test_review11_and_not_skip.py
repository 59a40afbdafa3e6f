"""An AND holding a (date:... -X) group failed in Whoosh when the AND skipped the group past the
last message of its date range: Whoosh's AndNotMatcher.skip_to moved the date side off its end
and then asked it for its document (an empty ListMatcher's id(): IndexError). Every query Whoosh
runs itself (a phrase, a prefix in Whoosh, ANDMAYBE, REQUIRE) failed so, and the failure was
reported as a damaged index ('rebuild it with sasc reindex', which did not help). Now such
queries answer, checked against a brute-force scan of the messages; and a fault in matching is
no longer reported as a damaged index (the index is checked first: damage found there is still
a damaged index). Real projects of real mail, real Whoosh index."""
from __future__ import annotations

import os
from datetime import datetime

import pytest
from index_support import run_by_whoosh
from mailfactory import ingested_project
from whoosh import query as wq

from sasc_desktop.engine.index.search_index import IndexDamagedError, SearchFailedError

# (in this order: the phrase's messages (c4, c2) lie on both sides of the June messages' end, so
# the AND skips the June group past its last message, c5)
MAILS = [
    dict(message_id="<c1@x>", subject="plans", body="some plans", frm="Ann <ann@x.org>",
         date="Mon, 03 Jun 2019 10:00:00 +0000"),
    dict(message_id="<c4@x>", subject="sensors", body="the Arclight Sensorworks order", frm="Ann <ann@x.org>",
         date="Thu, 20 Jun 2019 10:00:00 +0000"),
    dict(message_id="<c5@x>", subject="lunch", body="lunch at noon", frm="Ann <ann@x.org>",
         date="Fri, 28 Jun 2019 10:00:00 +0000"),
    dict(message_id="<c2@x>", subject="news", body="Arclight Sensorworks news", frm="Priya <priya@x.org>",
         date="Mon, 08 Jul 2019 10:00:00 +0000"),
    dict(message_id="<c3@x>", subject="more", body="other text", frm="Priya <priya@x.org>",
         date="Thu, 08 Aug 2019 10:00:00 +0000"),
]


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    s = ingested_project(tmp_path_factory.mktemp("andnot"), MAILS)
    yield s
    s.close()


def answers(s, query, whoosh: bool):
    """(total, doc ids in rank order) of a search, by Whoosh itself or the fast path."""
    with run_by_whoosh(whoosh):
        r = s.search(query, limit=100)
    return r.total, [h.doc_id for h in r.hits]


@pytest.mark.parametrize("whoosh", [True, False], ids=["whoosh", "fast"])
@pytest.mark.parametrize("query, want", [
    ('"Arclight Sensorworks" (date:2019-06 -from:priya)', ["c4@x"]),
    ("arclight* (date:2019-06 -from:priya)", ["c4@x"]),
    ("arclight (date:2019-06 -from:priya)", ["c4@x"]),
    ('"Arclight Sensorworks" AND (date:2019-06 NOT from:priya)', ["c4@x"]),
    ("arclight (date:2019-06 -from:priya) REQUIRE sensorworks", ["c4@x", "c2@x"]),
])
def test_an_and_with_a_date_group_answers(project, query, want, whoosh):
    total, ids = answers(project, query, whoosh)
    assert (total, sorted(ids)) == (len(want), sorted(want))


def _month(mail) -> str:
    return datetime.strptime(mail["date"], "%a, %d %b %Y %H:%M:%S %z").strftime("%Y-%m")


@pytest.mark.parametrize("month", ["2019-06", "2019-07", "2019-08"])
@pytest.mark.parametrize("sender", ["ann", "priya", "nobody"])
def test_brute_force_oracle(project, month, sender):
    """'"Arclight Sensorworks" (date:M -from:S)': the messages holding the phrase, of month M, not
    from S (a scan of MAILS), by Whoosh (a phrase: Whoosh runs it) and the prefix form through
    both paths."""
    want = sorted(f"{m['message_id'][1:-1]}" for m in MAILS if "Arclight Sensorworks" in m["body"]
                  and _month(m) == month and sender not in m["frm"].lower())
    for query, whoosh in ((f'"Arclight Sensorworks" (date:{month} -from:{sender})', True),
                          (f"arclight* (date:{month} -from:{sender})", True),
                          (f"arclight* (date:{month} -from:{sender})", False)):
        total, ids = answers(project, query, whoosh)
        assert (total, sorted(ids)) == (len(want), want), query


def test_a_fault_in_matching_is_not_called_a_damaged_index(project):
    """Whoosh's own AndNot (not the project's: its matcher has the fault above) run on the real
    index: the index is checked, found whole, and the error says so instead of 'rebuild it'."""
    ix = project.index
    june = ix.parse("date:2019-06", None)
    q = wq.And([ix.parse("arclight*", None), wq.AndNot(june, wq.Term("from", "priya"))])
    with pytest.raises(SearchFailedError) as err:
        ix._retrying(lambda s: s.search(q, limit=None))
    assert str(err.value) == (
        "the search failed (IndexError: array index out of range): a fault in SASC Desktop's search, "
        "not in the index (its files were checked and read correctly), so rebuilding it would not help; "
        "please report it with the query")
    assert not isinstance(err.value, IndexDamagedError)


def test_damage_found_by_the_check_is_still_a_damaged_index(tmp_path):
    """The subject lengths cut short (one byte per document: this looks whole on opening) and the
    same fault: the check run after it finds the damage, so it is a damaged index."""
    s = ingested_project(tmp_path, MAILS)
    path = s.paths.index
    s.close()
    (lengths,) = path.glob("MAIN_*._subject_len.col")
    os.truncate(lengths, 1)
    from sasc_desktop.engine.index.search_index import SearchIndex
    ix = SearchIndex(path, create_missing=False)
    try:
        q = wq.And([ix.parse("arclight*", None), wq.AndNot(ix.parse("date:2019-06", None), wq.Term("from", "priya"))])
        with pytest.raises(IndexDamagedError) as err:
            ix._retrying(lambda s: s.search(q, limit=None))
        assert str(err.value) == (f"the search index at {path} is damaged or missing (IndexError: array index out "
                                  "of range); rebuild it with 'sasc reindex'")
    finally:
        ix.close()
