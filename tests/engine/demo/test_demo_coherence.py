"""The demo mail reads as real mail: a message's subject and body agree, notices to all staff
carry no personal chatter, and every Date has the UTC offset its sender's time zone had then.

The generator computes daylight saving time itself (so every machine writes the same bytes);
the system's time zone database (zoneinfo) is the oracle here.
"""
from __future__ import annotations

import datetime as dt
import email
import mailbox
import re
from email import policy
from pathlib import Path

import pytest

from sasc_desktop.engine.demo import compose, content, generate, generator, people
from sasc_desktop.engine.ingest.parse import parse_message

from test_demo_evidence import template_re, tokens

N = 3000
BY_EMAIL = {p.email: p for p in people.ALL}
SEED = 20261122

try:
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError
except ImportError:  # pragma: no cover
    ZoneInfo = None


def _zone(name: str):
    if ZoneInfo is None:
        pytest.skip("zoneinfo is not available")
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        pytest.skip(f"the time zone database has no {name}")


class Mail:
    def __init__(self, raw: bytes, path: str):
        head = email.message_from_bytes(raw, policy=policy.default)
        parsed = parse_message(raw, path)
        self.subject = str(head["Subject"])
        self.date = head["Date"].datetime
        self.sender = BY_EMAIL[head["From"].addresses[0].addr_spec]
        self.to = [a.addr_spec for a in head["To"].addresses] if head["To"] else []
        self.body = parsed.body
        self.text = " ".join(tokens(parsed.body)) + " "
        self.new = not re.match(r"(Re|RE|Fwd|FW): ", self.subject)


@pytest.fixture(scope="module")
def mails(tmp_path_factory) -> list[Mail]:
    out: Path = tmp_path_factory.mktemp("coherence")
    generate(out, N, SEED)
    seen: dict[str, Mail] = {}
    for path in sorted((out / "mail").glob("*/*.mbox")):
        for m in mailbox.mbox(str(path)):
            raw = m.as_bytes()
            mid = email.message_from_bytes(raw, policy=policy.default)["Message-ID"]
            if mid not in seen:
                seen[mid] = Mail(raw, str(path))
    assert len(seen) == N
    return list(seen.values())


def _subject_re(template: str) -> re.Pattern:
    parts = re.split(r"(\{[a-z_0-9]+\})", template)
    return re.compile("^" + "".join(".+?" if p.startswith("{") else re.escape(p) for p in parts) + "$")


def _has(mail: Mail, phrase: str) -> bool:
    return re.search(template_re(phrase), mail.text) is not None


# --- subject and body agree ----------------------------------------------------------------------
def test_a_subject_naming_a_weekday_has_no_other_weekday_in_its_body(mails):
    named = 0
    for m in mails:
        days = compose.weekdays(m.subject)
        if not days:
            continue
        named += 1
        assert len(set(days)) == 1, m.subject
        other = set(compose.weekdays(m.body)) - set(days)
        assert not other, (m.subject, m.body)
    assert named >= 50


# each notice subject -> words its one paragraph must have (the thing the subject is about)
NOTICES = {
    "Scheduled maintenance: VPN": "The VPN will be down for maintenance",
    "Phishing test results": "phishing test",
    "New laptop rollout": "New laptops arrive",
    "Printer on 3 is fixed": "The printer on the third floor is fixed",
    "Reminder: lock your screen": "lock your screen when you leave your desk",
    "Parking garage closed {day}": "The parking garage is closed {day}",
    "Kitchen cleanup": "Please clean up your dishes",
    "Fire drill {day}": "Fire drill {day} at",
    "Conference room etiquette": "Please release conference rooms you don't use",
    "Lost and found": "in the lost and found box",
    "Lunch {day}?": "Lunch {day}?",
    "Coffee?": "Coffee at 3?",
    "Team lunch": "Team lunch is on me",
    "Food carts?": "Food carts at noon?",
    "Press release: Arclight partners with {customer}": "announced a partnership with",
    "Press release (public): new product": "today introduced a new handheld",
}


def test_every_notice_subject_has_its_own_paragraph(mails):
    pats = {s: _subject_re(s) for s in NOTICES}
    seen = dict.fromkeys(NOTICES, 0)
    for m in mails:
        for s, pat in pats.items():
            if m.new and pat.match(m.subject):
                seen[s] += 1
                assert _has(m, NOTICES[s]), (m.subject, m.body)
    assert all(v >= 1 for v in seen.values()), seen


def test_the_day_in_a_lunch_or_facilities_subject_is_the_day_in_its_body(mails):
    """... in a new message's body, or in the text a reply or forward quotes (a short answer
    that quotes nothing, 'Re: Lunch Thursday?' 'I'll take care of it.', need not repeat it)."""
    checked = 0
    for m in mails:
        got = re.match(r"(?:(?:Re|RE|Fwd|FW): )*(?:Lunch|Fire drill|Parking garage closed) (\w+day)\b", m.subject)
        quoting = "wrote:" in m.body or "-----Original Message-----" in m.body or "Forwarded message" in m.body
        if got and (m.new or quoting):
            checked += 1
            assert _has(m, got.group(1)), (m.subject, m.body)   # (with a typo, maybe)
    assert checked >= 10


def _kinds_by_subject():
    """Subject template -> (kind, lead paragraphs), for subjects of one paired kind only."""
    banks = [content.WORK[k] for k in content.WORK] + [content.SENSITIVE[k] for k in content.SENSITIVE] + \
        [generator.INTL]
    count: dict[str, int] = {}
    for kd in banks:
        for s in kd.subjects:
            count[s] = count.get(s, 0) + 1
    out = {}
    for kd in banks:
        if kd.leads:
            for i, s in enumerate(kd.subjects):
                if count[s] == 1:
                    out[s] = kd.lead_paras(i)
    return out


def test_every_new_message_of_a_paired_kind_has_a_paragraph_written_for_its_subject(mails):
    table = {s: (_subject_re(s), [template_re(p) for p in leads]) for s, leads in _kinds_by_subject().items()}
    checked = 0
    for m in mails:
        if not m.new:
            continue
        for s, (pat, leads) in table.items():
            if pat.match(m.subject):
                checked += 1
                assert any(re.search(p, m.text) for p in leads), (m.subject, m.body)
    assert checked >= 500


def test_every_paired_kind_is_complete():
    for kd in list(content.WORK.values()) + list(content.SENSITIVE.values()) + [generator.INTL]:
        if kd.leads:
            assert len(kd.leads) == len(kd.subjects)
            assert all(kd.leads), kd.subjects
            used = {j for lead in kd.leads for j in lead} | set(kd.neutral)
            assert used == set(range(len(kd.paras))), kd.subjects


def test_a_topic_distractor_subject_goes_with_its_own_paragraphs():
    from sasc_desktop.engine.demo.topics import TOPICS
    stop = set("the a an of in on at to for and or with from by my your this that is are be new next".split())

    def words(s):
        out = set()
        for w in re.findall(r"[A-Za-z]+", re.sub(r"\{[a-z_0-9]+\}", "", s)):
            w = w.lower()
            if w not in stop and len(w) > 2:
                out.add(w[:-1] if w.endswith("s") and len(w) > 3 else w)
        return out
    for t in TOPICS:
        kd = generator._distractor_kind(t)
        for i, s in enumerate(kd.subjects):
            for p in kd.lead_paras(i):
                assert words(s) & words(p), (t.id, s, p)


def _openers():
    out = []
    for t in content.OPENERS + content.CLOSERS:
        if t:
            out.append(template_re(t))
    return re.compile("|".join(f"(?:{p})" for p in out))


def test_notices_from_systems_or_to_all_staff_have_no_personal_openers_or_asides(mails):
    openers = _openers()
    asides = re.compile("|".join(f"(?:{template_re(a)})" for v in content.ASIDES.values() for a in v))
    decoys = re.compile("|".join(f"(?:{template_re(d)})" for d in content.DECOYS))
    checked = 0
    for m in mails:
        if m.new and (m.sender.style.client == "system" or generator.ALL_STAFF.email in m.to):
            checked += 1
            assert not openers.search(m.text), (m.subject, m.body)
            assert not asides.search(m.text), (m.subject, m.body)
            assert not decoys.search(m.text), (m.subject, m.body)
    assert checked >= 100


def test_person_to_person_mail_still_has_openers(mails):
    openers = _openers()
    assert sum(1 for m in mails if m.sender.style.client != "system" and openers.search(m.text)) >= 100


# --- dates ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("tz", sorted(generator.ZONES))
def test_offsets_equal_zoneinfo_for_every_hour_of_2019_to_2021(tz):
    zone = _zone(tz)
    t = dt.datetime(2019, 1, 1, tzinfo=dt.timezone.utc)
    end = dt.datetime(2022, 1, 1, tzinfo=dt.timezone.utc)
    hour = dt.timedelta(hours=1)
    while t < end:
        assert generator.offset_at(tz, t).utcoffset(None) == t.astimezone(zone).utcoffset(), (tz, t)
        assert generator.in_zone(tz, t) == t
        t += hour


@pytest.mark.parametrize("tz", sorted(generator.ZONES))
def test_every_wall_clock_hour_of_2019_to_2021_gets_zoneinfos_offset(tz):
    """Wall-clock times (fold=0: the earlier of two in the hour the clocks go back); a time
    the clocks skip is shown as the time it is after the change, as zoneinfo reads it."""
    zone = _zone(tz)
    t = dt.datetime(2019, 1, 1)
    while t.year < 2022:
        got = generator.local_time(tz, t)
        want = t.replace(tzinfo=zone)
        assert got.timestamp() == want.timestamp(), (tz, t)   # the same instant
        assert got.utcoffset() == want.astimezone(dt.timezone.utc).astimezone(zone).utcoffset(), (tz, t)
        t += dt.timedelta(hours=1)


def test_daylight_saving_transitions_by_hand():
    utc = dt.timezone.utc
    # US 2019: 10 March 02:00 PST (10:00 UTC) to 3 November 02:00 PDT (09:00 UTC)
    assert generator.dst_span("US/Pacific", 2019) == (dt.datetime(2019, 3, 10, 10, tzinfo=utc),
                                                      dt.datetime(2019, 11, 3, 9, tzinfo=utc))
    assert generator.dst_span("US/Eastern", 2021) == (dt.datetime(2021, 3, 14, 7, tzinfo=utc),
                                                      dt.datetime(2021, 11, 7, 6, tzinfo=utc))
    # EU 2020: 29 March to 25 October, 01:00 UTC everywhere
    assert generator.dst_span("Europe/Berlin", 2020) == (dt.datetime(2020, 3, 29, 1, tzinfo=utc),
                                                         dt.datetime(2020, 10, 25, 1, tzinfo=utc))
    assert generator.dst_span("Asia/Kolkata", 2020) is None
    # the reported dates
    assert generator.local_time("US/Pacific", dt.datetime(2019, 3, 10, 1, 22, 16)).isoformat() == \
        "2019-03-10T01:22:16-08:00"
    assert generator.local_time("US/Pacific", dt.datetime(2021, 3, 12, 14, 56, 9)).isoformat() == \
        "2021-03-12T14:56:09-08:00"
    assert generator.local_time("US/Pacific", dt.datetime(2020, 11, 1, 23, 54, 14)).isoformat() == \
        "2020-11-01T23:54:14-08:00"
    # the skipped hour reads as the hour after; the repeated hour as daylight time
    assert generator.local_time("US/Pacific", dt.datetime(2019, 3, 10, 2, 30)).isoformat() == \
        "2019-03-10T03:30:00-07:00"
    assert generator.local_time("US/Pacific", dt.datetime(2019, 11, 3, 1, 30)).isoformat() == \
        "2019-11-03T01:30:00-07:00"


def test_every_message_date_has_its_senders_offset(mails):
    for m in mails:
        zone = _zone(m.sender.tz)
        assert m.date.utcoffset() == m.date.astimezone(zone).utcoffset(), (m.sender.key, m.date.isoformat())
    assert len({m.date.utcoffset() for m in mails}) >= 6


def test_every_person_lives_in_a_zone_with_rules():
    assert {p.tz for p in people.ALL} <= set(generator.ZONES)
