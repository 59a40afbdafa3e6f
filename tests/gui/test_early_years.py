"""Dates before the year 1000 keep four digits (glibc's strftime %Y gives '999'), and a +00:00
date read on a UTC clock gets no "(... on this computer)" note."""
from __future__ import annotations

import time

import pytest

from sasc_desktop.gui.models import header_date, local_date


@pytest.fixture
def clock(monkeypatch):
    def set_zone(zone: str) -> None:
        monkeypatch.setenv("TZ", zone)
        time.tzset()
    yield set_zone
    monkeypatch.undo()
    time.tzset()


def test_years_before_1000_keep_four_digits_on_a_utc_clock(clock):
    clock("UTC")
    assert local_date("0999-01-01T00:00:00+00:00") == "0999-01-01 00:00"
    assert header_date("0999-01-01T00:00:00+00:00") == "0999-01-01 00:00 +00:00"
    assert local_date("0042-07-04T12:30:00+00:00") == "0042-07-04 12:30"
    assert header_date("0042-07-04T12:30:00") == "0042-07-04 12:30"          # no offset given: none shown
    assert header_date("0999-12-31T23:00:00-02:00") == "0999-12-31 23:00 -02:00 (1000-01-01 01:00 on this computer)"


def test_a_moment_this_clock_cannot_name_reads_as_the_message_gives_it(clock):
    clock("UTC")
    # the year 1 at +01:00 is in the year 0 in UTC: no such date in Python
    assert local_date("0001-01-01T00:30:00+01:00") == "0001-01-01 00:30"
    assert header_date("0001-01-01T00:30:00+01:00") == "0001-01-01 00:30 +01:00"


def test_years_before_1000_on_another_clock(clock):
    clock("Etc/GMT-3")   # (POSIX sign: three hours east of UTC)
    assert local_date("0999-01-01T00:00:00+00:00") == "0999-01-01 03:00"
    assert header_date("0999-01-01T00:00:00+00:00") == "0999-01-01 00:00 +00:00 (03:00 on this computer)"
