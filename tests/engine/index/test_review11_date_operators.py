"""A date comparison or range with no date in it is refused (it matched every message: date:>,
date:<=, date:[to]; date:> 2019-07, a space after the sign, was every message OR-ed with the
words '2019' and '07'), and so is a sign other than >, <, >= and <= (date:<>2019-07 was read as
<2019-07, date:><2020 as >2020), each with the date hint: a field with nothing after it is an
error (README), and this is one. The four signs still work (against a scan of the dates). Real
project of real mail."""
from __future__ import annotations

import pytest
from mailfactory import ingested_project

from sasc_desktop.engine.errors import QueryError
from sasc_desktop.engine.index import fastscore
from sasc_desktop.engine.index.query import DATE_HINT

MONTHS = ["2019-05", "2019-06", "2019-07", "2019-08"]


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    s = ingested_project(tmp_path_factory.mktemp("dateops"), [
        dict(message_id=f"<{m}@x>", subject=f"plans {m}", body="text", date=f"Mon, 15 {name} 2019 10:00:00 +0000")
        for m, name in zip(MONTHS, ["May", "Jun", "Jul", "Aug"])] + [
        dict(message_id="<2019-05b@x>", subject="plans", body="text", date="Wed, 15 May 2019 10:00:00 +0000")])
    yield s
    s.close()


NO_DATE = "has no date right after"


@pytest.mark.parametrize("query, problem", [
    ("date:>", f"'date:>' {NO_DATE} '>'"),
    ("date:<", f"'date:<' {NO_DATE} '<'"),
    ("date:>=", f"'date:>=' {NO_DATE} '>='"),
    ("date:<=", f"'date:<=' {NO_DATE} '<='"),
    ("plans date:>", f"'date:>' {NO_DATE} '>'"),
    ("date:> 2019-07", f"'date:>' {NO_DATE} '>'"),
    ("(date:<=) plans", f"'date:<=' {NO_DATE} '<='"),
    ("date:(> 2019)", f"'date:>' {NO_DATE} '>'"),
    ("date:[to]", "'date:[to]' has no date on either side of 'to'"),
    ("date:{to}", "'date:{to}' has no date on either side of 'to'"),
    ("date:[ TO ]", "'date:[ TO ]' has no date on either side of 'TO'"),
    ("date:<>2019-07", "'date:<>2019-07': '<>' is not one of >, <, >= and <="),
    ("date:><2020", "'date:><2020': '><' is not one of >, <, >= and <="),
    ("date:>>2019", "'date:>>2019': '>>' is not one of >, <, >= and <="),
    ("date:=>2019", "'date:=>2019': '=>' is not one of >, <, >= and <="),
    ("date:=2019", "'date:=2019': '=' is not one of >, <, >= and <="),
    ("plans -date:=<2019-07", "'date:=<2019-07': '=<' is not one of >, <, >= and <="),
])
def test_no_date_or_another_sign_is_refused(project, query, problem):
    with pytest.raises(QueryError) as err:
        project.search(query)
    assert str(err.value) == f"cannot understand the query {query!r}: {problem}; {DATE_HINT}"


@pytest.mark.parametrize("query, months", [
    ("date:>2019-06", ["2019-07", "2019-08"]),
    ("date:>=2019-06", ["2019-06", "2019-07", "2019-08"]),
    ("date:<2019-07", ["2019-05", "2019-05b", "2019-06"]),
    ("date:<=2019-07", ["2019-05", "2019-05b", "2019-06", "2019-07"]),
    ("date:(>2019-05 <2019-08)", ["2019-06", "2019-07"]),
    ("date:[2019-06 to]", ["2019-06", "2019-07", "2019-08"]),
    ("date:[to 2019-06]", ["2019-05", "2019-05b", "2019-06"]),
    ("plans -date:>2019-06", ["2019-05", "2019-05b", "2019-06"]),
])
def test_the_four_signs_still_work(project, query, months):
    for whoosh in (True, False):
        fastscore.FORCE_WHOOSH = whoosh
        try:
            r = project.search(query, limit=100)
        finally:
            fastscore.FORCE_WHOOSH = False
        assert (r.total, sorted(h.doc_id for h in r.hits)) == (len(months), sorted(f"{m}@x" for m in months)), whoosh
