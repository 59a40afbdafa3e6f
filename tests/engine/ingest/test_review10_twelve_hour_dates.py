"""Dates in 12-hour time: email.utils reads '10:05:15 PM' as 10:05 and takes 'PM' for the zone,
dropping a real zone after it ('06:50:21 PM -0400' was 06:50 UTC, 'has no time zone'). The time
is made 24-hour first (12 AM is 00, 12 PM is 12), with a note, and its zone is kept. A zone the
parser does not know is said so ('unrecognised time zone'), not 'has no time zone'."""
from __future__ import annotations

import pytest
from mailfactory import msg

from sasc_desktop.engine.ingest.parse import parse_message
from sasc_desktop.engine.session import Session

NO_ZONE = "Date has no time zone; taken as UTC"


def date_of(date: str) -> tuple[str, list[str]]:
    m = parse_message(msg(date=date), "x")
    return m.date, [n for n in m.notes if "Date" in n or "zone" in n]


@pytest.mark.parametrize("date, iso, notes", [
    ("28 Jun 01 10:05:15 PM", "2001-06-28T22:05:15+00:00",
     ["Date in 12-hour time '10:05:15 PM'; read as 22:05:15", NO_ZONE]),
    ("03 Jul 01 12:47:50 AM", "2001-07-03T00:47:50+00:00",
     ["Date in 12-hour time '12:47:50 AM'; read as 00:47:50", NO_ZONE]),
    ("Tue, 06 Aug 2002 06:50:21 PM -0400", "2002-08-06T18:50:21-04:00",
     ["Date in 12-hour time '06:50:21 PM'; read as 18:50:21"]),
    ("Mon, 4 Mar 2002 12:53 pm +0100", "2002-03-04T12:53:00+01:00", ["Date in 12-hour time '12:53 pm'; read as 12:53"]),
    ("Mon, 4 Mar 2002 12:05 a.m. +0100", "2002-03-04T00:05:00+01:00",
     ["Date in 12-hour time '12:05 a.m.'; read as 00:05"]),
    ("Tue, 06 Aug 2002 18:50:21 PM -0400", "2002-08-06T18:50:21-04:00",
     ["Date has AM or PM after a 24-hour time '18:50:21 PM'; read as 18:50:21"]),
    ("Sun Jul 14, 2002  05:38:00 PM US/Central", "2002-07-14T17:38:00+00:00",
     ["Date in 12-hour time '05:38:00 PM'; read as 17:38:00", "unrecognised time zone 'US/Central'; taken as UTC"]),
    # zones
    ("Tue, 06 Aug 2002 18:50:21 CEST", "2002-08-06T18:50:21+00:00", ["unrecognised time zone 'CEST'; taken as UTC"]),
    ("Tue, 06 Aug 2002 18:50:21 Eastern Daylight Time", "2002-08-06T18:50:21+00:00",
     ["unrecognised time zone 'Eastern Daylight Time'; taken as UTC"]),
    ("Tue, 06 Aug 2002 18:50:21 GMT+1", "2002-08-06T18:50:21+00:00", ["unrecognised time zone 'GMT+1'; taken as UTC"]),
    ("Wed Sep 25 14:29:23 CEST 2002", "2002-09-25T14:29:23+00:00", ["unrecognised time zone 'CEST'; taken as UTC"]),
    ("Tue, 06 Aug 2002 18:50:21", "2002-08-06T18:50:21+00:00", [NO_ZONE]),
    ("Tue, 06 Aug 2002 18:50:21 -0000", "2002-08-06T18:50:21+00:00", [NO_ZONE]),
    ("Wed Sep 25 14:29:23 2002", "2002-09-25T14:29:23+00:00", [NO_ZONE]),
    ("Tue, 06 Aug 2002 18:50:21 (no zone)", "2002-08-06T18:50:21+00:00", [NO_ZONE]),
    ("Tue, 06 Aug 2002 18:50:21 +0200 (CEST)", "2002-08-06T18:50:21+02:00", []),
    ("Tue, 06 Aug 2002 18:50:21 EDT", "2002-08-06T18:50:21-04:00", []),
    ("Tue, 06 Aug 2002 10:00:00 AMT", "2002-08-06T10:00:00+00:00", ["unrecognised time zone 'AMT'; taken as UTC"]),
])
def test_dates(date, iso, notes):
    assert date_of(date) == (iso, notes)


# The 12 SpamAssassin messages whose Date header is in 12-hour time, and what it says.
REAL = {
    "00034.cac95512308c52cfba33258e46feff97.txt": "2001-06-27T03:36:25+00:00",
    "00039.1295593cb1da98e80123f333def0b8dd.txt": "2001-06-28T22:05:15+00:00",
    "00059.d7351d4fe66fb96d83ffb65b4a60b3cc.txt": "2001-07-03T00:47:50+00:00",
    "00063.98dc120045d9b6c675c286524bf893ba.txt": "2001-07-03T16:12:06+00:00",
    "00075.f1c6bf042cf0ed13452e4a15929db8cd.txt": "2001-07-05T16:00:55+00:00",
    "00078.f318607d8f4699d51f456fea10838c5a.txt": "2001-07-06T20:00:34+00:00",
    "00079.7a1b9cd54acec8774ef833df17206630.txt": "2001-07-06T20:04:54+00:00",
    "00089.1235261e1b2063edce03a18d06c11474.txt": "2001-07-29T11:34:44+00:00",
    "00091.7b4331237cddd30e9fa27b99af25bf3c.txt": "2001-07-29T23:30:41+00:00",
    "00112.e4952a7d270c78cd6bba9d4f6add13f2.txt": "2001-08-02T03:11:43+00:00",
    "00535.6f0720362e104f169c08308d82a8c804.txt": "2002-05-31T13:28:53+00:00",
    "01321.f32dcf9a564da7e27f9fcad664cb0fe1.txt": "2002-08-06T18:50:21-04:00",
}


def test_real_messages(shared_data, tmp_path):
    files = [shared_data / "spamassassin" / "spam-2" / name for name in REAL]
    with Session.create(tmp_path / "p") as s:
        r = s.ingest(files, workers=0)
        assert (r.ingested, r.skipped) == (12, [])
        got = {row["location"].rpartition("/")[2].removesuffix("#1"): row["date"]
               for row in s.store.con.execute("SELECT location, date FROM messages")}
        assert got == REAL
        (hit,) = s.search("date:2002-08-06").hits     # (18:50 on the 6th: was 06:50)
        assert s.document(hit.doc_id)["location"].endswith("01321.f32dcf9a564da7e27f9fcad664cb0fe1.txt#1")
