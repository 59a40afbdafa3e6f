"""date: filters read the message's own date, as its sender's clock showed it (the day the list
shows): 'Sun, 18 Mar 2001 23:53:00 -0800' is found by date:2001-03-18, not date:2001-03-19
(its UTC day). Sorting by date stays on the moment (UTC). An import, a rebuilt index (sasc
reindex, a repair after a killed import) and an index of the previous version (UTC days,
INDEX_VERSION 3: rebuilt on opening) all agree."""
from __future__ import annotations

from datetime import datetime

import pytest
from mailfactory import ingested_project, module_project
from oracle_corpus import EDGES

from sasc_desktop.engine.index.schema import INDEX_VERSION, date_items
from sasc_desktop.engine.index.search_index import document_fields
from sasc_desktop.engine.ingest.importer import index_row
from sasc_desktop.engine.session import Session

def test_date_items_read_the_senders_clock_from_an_iso_date():
    local = date_items("2001-03-18T23:53:00-08:00")
    assert local == date_items("2001-03-18T23:53:00+00:00") == date_items("2001-03-18T23:53:00")
    assert local != date_items(datetime(2001, 3, 19, 7, 53).timestamp() + 0)   # (a timestamp: UTC)
    from whoosh.fields import DATETIME
    assert local == list(DATETIME().index(datetime(2001, 3, 18, 23, 53)))
    assert date_items(None) is None and date_items("not a date") is None


MAILS = [dict(message_id="<late@x>", subject="late", body="power", date="Sun, 18 Mar 2001 23:53:00 -0800"),
         dict(message_id="<early@x>", subject="early", body="power", date="Mon, 19 Mar 2001 00:30:00 +0530"),
         dict(message_id="<noon@x>", subject="noon", body="power", date="Sun, 18 Mar 2001 12:00:00 +0000"),
         dict(message_id="<undated@x>", subject="undated", body="power", date=None)]

DAYS = [("date:2001-03-18", ["late@x", "noon@x"]),      # the reviewer's: shown 2001-03-18, found only by 03-19
        ("date:2001-03-19", ["early@x"]),               # (in UTC: 2001-03-18 19:00)
        ("date:<2001-03-19", ["late@x", "noon@x"]),
        ("power date:>=2001-03-19", ["early@x"]),
        ("date:2001", ["early@x", "late@x", "noon@x"])]


project = module_project(MAILS)


def found(session, query):
    return sorted(h.doc_id for h in session.search(query, limit=100).hits)


@pytest.mark.parametrize("query, expected", DAYS)
def test_a_date_is_the_day_its_sender_wrote(project, query, expected):
    assert found(project, query) == expected


def test_sorting_by_date_is_by_the_moment(project):
    r = project.search("power", sort="date")
    assert [h.doc_id for h in r.hits] == ["noon@x", "early@x", "late@x", "undated@x"]  # 12:00Z, 19:00Z, 07:53Z next day


def test_a_rebuilt_index_reads_the_same_clock(tmp_path):
    """sasc reindex and the repair of messages left unindexed (a killed import) index every
    message from the store: the stored date with its offset, as the import did."""
    s = ingested_project(tmp_path, MAILS)
    try:
        assert s.reindex() == len(MAILS)
        assert [found(s, q) for q, _ in DAYS] == [e for _, e in DAYS]
        with s.store.transaction() as con:   # (as a killed import leaves them)
            con.execute("UPDATE messages SET indexed = 0 WHERE doc_id IN ('late@x', 'early@x')")
    finally:
        s.close()
    with Session.open(tmp_path / "proj") as s:
        assert s.stats()["unindexed"] == 0
        assert [found(s, q) for q, _ in DAYS] == [e for _, e in DAYS]


def test_a_project_indexed_in_utc_is_rebuilt_on_opening(tmp_path):
    """A project whose index has dates in UTC (INDEX_VERSION 3: made from the timestamp) is
    rebuilt when it opens, quietly (a new version is no news to the user)."""
    s = ingested_project(tmp_path, MAILS)
    try:
        writer = s.index.writer()
        for (row_id,) in s.store.con.execute("SELECT id FROM messages").fetchall():
            row = index_row(s.store.con, row_id)
            del row["date"]                   # (the timestamp alone: version 3's UTC days)
            writer.update_document(**document_fields(row))
        writer.commit()
        with s.store.transaction():
            s.store.set_meta("index_version", "3")
        assert found(s, "date:2001-03-18") == ["early@x", "noon@x"] and found(s, "date:2001-03-19") == ["late@x"]
    finally:
        s.close()
    assert INDEX_VERSION >= 4
    with Session.open(tmp_path / "proj") as s:
        assert s.notes == [] and s.store.get_meta("index_version") == str(INDEX_VERSION)
        assert [found(s, q) for q, _ in DAYS] == [e for _, e in DAYS]


def test_day_filters_against_a_scan_of_the_senders_clock(oracle):
    session, docs = oracle
    days = sorted({d.local.date() for d in docs.values()} | {datetime(*e[0][:3]).date() for e in EDGES})
    for day in days:
        expected = sorted(d.doc_id for d in docs.values() if d.local.date() == day)
        assert found(session, f"date:{day:%Y-%m-%d}") == expected, day
