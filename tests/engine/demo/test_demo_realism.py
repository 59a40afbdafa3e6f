"""The demo reads like real mail in the details a reviewer checks: expense reports list what was
spent before they were sent, an invitation is for the slot its mail proposes and after it was
sent, a card named "Visa" is a Visa number, a writer has one card (one SSN, one bank account...)
per message, identifiers carry no thousands separators, routing numbers use prefixes US banks
use, nobody answers a no-reply robot, a reply to a forward keeps "Fwd:", and a message quoting
or forwarding a sensitive message is judged for what it carries, as its parent was.
"""
from __future__ import annotations

import collections
import datetime as dt
import email
import mailbox
import random
import re
from email import policy
from pathlib import Path

import pytest
from demo_capture import generate_with_labels

from sasc_desktop.engine.demo import attachments, compose, generator, labels, people, pii


N = 3000
SEED = 20261122
BY_EMAIL = {p.email: p for p in people.ALL}
ROBOTS = {p.email for p in people.ALL if p.style.client == "system"}

CARD = re.compile(r"(?<![\dX-])(\d{4}[ -]?\d{4}[ -]?\d{4}[ -]?\d{4}|3\d{3}[ -]?\d{6}[ -]?\d{5})(?![\d-])")
BRANDED = re.compile(r"\b(Visa|Mastercard|Amex) ((?:\d|X)[\dX -]{13,18}\d)")
SSN = re.compile(r"(?<![\d-])\d{3}-\d{2}-\d{4}(?![\d-])")
ROUTING = re.compile(r"\brouting (\d{9})\b")
ACCOUNT = re.compile(r"\baccount (\d{9,12})\b")
US_ROUTING_PREFIXES = set(range(1, 13)) | set(range(21, 33))


class Mail:
    def __init__(self, msg):
        self.msgid = msg["Message-ID"]
        self.subject = str(msg["Subject"])
        self.date = msg["Date"].datetime
        self.sender = msg["From"].addresses[0].addr_spec
        self.to = [a.addr_spec for a in msg["To"].addresses] if msg["To"] else []
        self.in_reply_to = msg["In-Reply-To"]
        plain = msg.get_body(("plain",))
        self.body = plain.get_content() if plain is not None else ""
        self.files: dict[str, str] = {}
        for part in msg.walk():
            name = part.get_filename()
            if name and part.get_content_maintype() == "text":
                self.files[name] = part.get_content()

    @property
    def own(self) -> str:
        """What the writer wrote: the body up to a quoted or forwarded message."""
        text = self.body
        for mark in ("-----Original Message-----", "---------- Forwarded message"):
            text = text.split(mark, 1)[0]
        m = re.search(r"(?m)^On .{10,90} wrote:$", text)
        return text[:m.start()] if m else text


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """(mails by Message-ID, the generator's label records) of the default demo."""
    out: Path = tmp_path_factory.mktemp("realism")
    generated = generate_with_labels(out, N, SEED)
    mails: dict[str, Mail] = {}
    for path in sorted((out / "mail").glob("*/*.mbox")):
        for m in mailbox.mbox(str(path)):
            msg = email.message_from_bytes(m.as_bytes(), policy=policy.default)
            if msg["Message-ID"] not in mails:
                mails[msg["Message-ID"]] = Mail(msg)
    assert len(mails) == N
    return mails, generated, out


# --- 1. attachments agree with their mail's date -------------------------------------------------
def test_expense_rows_are_dated_on_or_before_their_mail_in_date_order(demo):
    mails, _, _ = demo
    late, unordered, reports = [], [], 0
    for m in mails.values():
        csv = m.files.get("expenses.csv")
        if csv is None:
            continue
        reports += 1
        days = [dt.date.fromisoformat(row.split(",")[0]) for row in csv.strip().split("\n")[1:]]
        late += [(m.msgid, str(m.date), str(d)) for d in days if d > m.date.date()]
        if days != sorted(days):
            unordered.append(m.msgid)
        assert min(days) >= m.date.date() - dt.timedelta(days=27), m.msgid
    assert reports >= 30
    assert late == [] and unordered == []


DAY = r"(Monday|Tuesday|Wednesday|Thursday|Friday)"
TIME = r"(noon|\d{1,2}(?::\d\d)?)"


def _slot(text: str):
    """(weekday, 'HH:MM') the writer proposes ('{day} at {time}', 'to {time} on {day}'), or None;
    9 to 11 is the morning, 1 to 4:30 the afternoon."""
    m = re.search(rf"\b{DAY} at {TIME}\b", text)
    if m:
        day, time = m.groups()
    else:
        m = re.search(rf"\bto {TIME} on {DAY}\b", text)
        if m is None:
            return None
        time, day = m.groups()
    if time == "noon":
        return day, "12:00"
    h, _, mins = time.partition(":")
    return day, f"{int(h) + 12 if int(h) < 8 else int(h):02d}:{mins or '00'}"


def test_an_invitation_is_after_its_mail_and_for_the_slot_it_proposes(demo):
    mails, _, _ = demo
    early, off_slot, invites, with_slot = [], [], 0, 0
    for m in mails.values():
        ics = m.files.get("invite.ics")
        if ics is None:
            continue
        invites += 1
        start = dt.datetime.strptime(re.search(r"DTSTART:(\S+)", ics).group(1), "%Y%m%dT%H%M%S")
        sent = m.date.replace(tzinfo=None)   # the sender's wall clock, as DTSTART is
        if start <= sent:
            early.append((m.msgid, str(sent), str(start)))
        assert start - sent <= dt.timedelta(days=8), m.msgid
        slot = _slot(m.own)
        if slot is not None:
            with_slot += 1
            if (start.strftime("%A"), start.strftime("%H:%M")) != slot:
                off_slot.append((m.msgid, slot, str(start)))
        else:
            named = set(compose.weekdays(m.own))
            if len(named) == 1 and start.strftime("%A") not in named:
                off_slot.append((m.msgid, named, str(start)))
    assert invites >= 20 and with_slot >= 5
    assert early == [] and off_slot == []


def _local(y, mo, d, h, mi=0):
    return dt.datetime(y, mo, d, h, mi, tzinfo=dt.timezone(dt.timedelta(hours=-8)))


def test_invite_start_by_hand():
    rng = random.Random(1)
    mon = _local(2020, 3, 2, 10)          # a Monday
    assert mon.strftime("%A") == "Monday"
    # the next Thursday, at 1:30 in the afternoon
    assert attachments.invite_start(mon, {"day": "Thursday", "time": "1:30"}, rng) == dt.datetime(2020, 3, 5, 13, 30)
    assert attachments.invite_start(mon, {"day": "Thursday", "time": "noon"}, rng) == dt.datetime(2020, 3, 5, 12, 0)
    assert attachments.invite_start(mon, {"day": "Thursday", "time": "9:30"}, rng) == dt.datetime(2020, 3, 5, 9, 30)
    # the same weekday as the mail: a week later (never before the mail)
    assert attachments.invite_start(mon, {"day": "Monday", "time": "4"}, rng) == dt.datetime(2020, 3, 9, 16, 0)
    # no day: the next working day (Friday -> Monday); no time: on the hour, 9 to 16
    fri = _local(2020, 3, 6, 17)
    got = attachments.invite_start(fri, {"time": "11"}, rng)
    assert got == dt.datetime(2020, 3, 9, 11, 0)
    for _ in range(50):
        got = attachments.invite_start(fri, {}, rng)
        assert got.date() == dt.date(2020, 3, 9) and 9 <= got.hour <= 16 and got.minute == 0


# --- 2. cards and other identifiers --------------------------------------------------------------
def test_card_brand_by_hand():
    assert pii.card_brand("4111 1111 1111 1111") == "Visa"
    assert pii.card_brand("5105-1051-0510-5100") == "Mastercard"
    assert pii.card_brand("5500005555555559") == "Mastercard"
    assert pii.card_brand("3782 822463 10005") == "Amex"
    assert pii.card_brand("3400 000000 00009") == "Amex"
    assert pii.card_brand("6011111111111117") is None
    rng = random.Random(5)
    for _ in range(300):
        assert pii.card_brand(pii.card_number(rng)) in ("Visa", "Mastercard", "Amex")


def test_a_card_named_with_a_brand_is_a_card_of_that_brand(demo):
    mails, _, _ = demo
    wrong, named = [], 0
    for m in mails.values():
        for brand, number in BRANDED.findall(m.body):
            named += 1
            if "X" in number:      # masked: the length is the brand's
                digits = number.replace(" ", "").replace("-", "")
                if len(digits) != (15 if brand == "Amex" else 16):
                    wrong.append((m.msgid, brand, number))
            elif pii.card_brand(number) != brand or not pii.luhn_ok(number):
                wrong.append((m.msgid, brand, number))
    assert named >= 15
    assert wrong == []


def _digits(s: str) -> str:
    return re.sub(r"\D", "", s)


def test_a_writer_names_one_card_ssn_and_bank_account_of_their_own_per_message(demo):
    """In the text a person writes (not what they quote or forward) and the expense report they
    attach, every card number is the same card; so for SSNs, routing, account and driver's
    licence numbers."""
    mails, _, _ = demo
    two = []
    cards_seen = 0
    for m in mails.values():
        if m.sender in ROBOTS:
            continue
        own = m.own
        cards = {_digits(c) for c in CARD.findall(own) if pii.luhn_ok(c)}
        csv = m.files.get("expenses.csv", "")
        cards |= {_digits(c) for c in re.findall(r",card (\d+)$", csv, re.M)}
        cards_seen += bool(cards)
        for what, found in (("card", cards), ("ssn", set(SSN.findall(own))), ("routing", set(ROUTING.findall(own))),
                            ("account", set(ACCOUNT.findall(own))),
                            ("licence", set(re.findall(r"licence\s+OR(\d+)", own)))):
            if len(found) > 1:
                two.append((m.msgid, what, sorted(found)))
    assert cards_seen >= 30
    assert two == []


def test_a_robot_receipt_is_paid_with_the_card_its_guest_names():
    """A card is its owner's: the recipient's for a booking robot, the writer's otherwise."""
    holly, robot = people.BY_KEY["holly.palmer"], people.BY_KEY["skyways.bookings"]
    ctx = compose.Ctx(random.Random(3), robot, holly, _local(2020, 3, 2, 10))
    paid = compose.fill("{paycard}", ctx)
    card = compose.fill("{card}", ctx)
    assert _digits(card) in _digits(paid) or paid.endswith(_digits(card)[-4:])
    reply = compose.Ctx(random.Random(4), holly, people.BY_KEY["ivan.morozov"], ctx.date, sticky=dict(ctx.sticky))
    assert compose.fill("{card}", reply) == card                    # the same person, the same card
    other = compose.Ctx(random.Random(4), people.BY_KEY["ivan.morozov"], holly, ctx.date, sticky=dict(ctx.sticky))
    assert compose.fill("{card}", other) != card                    # someone else's own card
    assert compose.fill("{last4}", reply) == _digits(card)[-4:]


def test_identifiers_have_no_thousands_separators(demo):
    mails, _, _ = demo
    bad, seen = [], 0
    for m in mails.values():
        for ident in re.findall(r"Frequent flyer: (SW\S+)|driver's\s+licence\s+(OR\S+?)\.?(?:\s|$)", m.body):
            ident = "".join(ident)
            seen += 1
            if not re.fullmatch(r"(SW|OR)\d{6,9}", ident):
                bad.append((m.msgid, ident))
    assert seen >= 10
    assert bad == []


def test_routing_numbers_use_us_prefixes_and_pass_the_checksum():
    rng = random.Random(11)
    prefixes = set()
    for _ in range(3000):
        r = pii.routing_number(rng)
        d = list(map(int, r))
        assert len(r) == 9
        assert (3 * (d[0] + d[3] + d[6]) + 7 * (d[1] + d[4] + d[7]) + d[2] + d[5] + d[8]) % 10 == 0
        prefixes.add(int(r[:2]))
    assert prefixes == US_ROUTING_PREFIXES


def test_every_routing_slot_writes_a_us_prefix():
    """What the templates write: a writer's own routing number and somebody else's."""
    ctx = compose.Ctx(random.Random(2), people.BY_KEY["holly.palmer"], people.BY_KEY["ivan.morozov"],
                      _local(2020, 3, 2, 10))
    for _ in range(300):
        ctx.sticky.clear()
        for text in (compose.fill("For direct deposit: routing {routing}, account {account}.", ctx),
                     compose.fill("Intern payroll: routing {their_routing}.", ctx)):
            r = ROUTING.search(text).group(1)
            assert int(r[:2]) in US_ROUTING_PREFIXES, text


# --- 3 and 5. threads ------------------------------------------------------------------------------
def test_reply_subject_by_hand():
    assert generator.reply_subject("Fwd: Progress report", "apple") == "Re: Fwd: Progress report"
    assert generator.reply_subject("FW: TechWire article", "outlook") == "RE: FW: TechWire article"
    assert generator.reply_subject("Re: Lunch Friday?", "apple") == "Re: Lunch Friday?"
    assert generator.reply_subject("RE: Lunch Friday?", "webmail") == "Re: Lunch Friday?"
    assert generator.reply_subject("Re: Fwd: notes", "outlook") == "RE: Fwd: notes"
    assert generator.reply_subject("Budget", "outlook") == "RE: Budget"


def test_a_reply_answers_its_parents_sender_and_keeps_its_subject(demo):
    mails, _, _ = demo
    wrong, replies, to_forwards = [], 0, 0
    for m in mails.values():
        parent = mails.get(m.in_reply_to or "")
        if parent is None:
            continue
        replies += 1
        if parent.sender in ROBOTS:
            wrong.append((m.msgid, "answers a robot", parent.sender))
        if parent.sender not in m.to:
            wrong.append((m.msgid, "not to the parent's sender", parent.sender, m.to))
        base = re.sub(r"^(Re|RE): ", "", parent.subject)
        if m.subject not in ("Re: " + base, "RE: " + base):
            wrong.append((m.msgid, parent.subject, m.subject))
        to_forwards += parent.subject.startswith(("Fwd: ", "FW: "))
    assert replies >= 500 and to_forwards >= 20
    assert wrong == []


def test_robot_mail_is_forwarded_not_answered(demo):
    """Receipts from booking robots are passed on (to expenses, to family), in the body or
    attached, by the guest they were sent to."""
    mails, labs, _ = demo
    by_docid = {mid[1:-1]: m for mid, m in mails.items()}
    forwarded = collections.Counter()
    for lab in labs:
        parent = by_docid.get(lab.quotes)
        if parent is not None and parent.sender in ROBOTS:
            m = by_docid[lab.docid]
            assert m.subject.startswith(("Fwd: ", "FW: ")) and m.sender in parent.to, (m.msgid, m.subject)
            forwarded[parent.sender] += 1
    assert sum(forwarded.values()) >= 5


def test_a_forwarded_robot_receipt_is_introduced_as_what_it_is(demo):
    """Holly forwarding the hotel's folio writes about the hotel bill, not a flight receipt (and
    the airline's e-ticket about the flight)."""
    mails, labs, _ = demo
    by_docid = {mid[1:-1]: m for mid, m in mails.items()}
    wrong, seen = [], 0
    other = {"folio@harborview-hotel.example.com": "flight", "bookings@skyways.example.com": "hotel"}
    for lab in labs:
        parent = by_docid.get(lab.quotes)
        if parent is not None and parent.sender in other:
            seen += 1
            own = by_docid[lab.docid].own
            if other[parent.sender] in own.lower():
                wrong.append((lab.docid, parent.sender, own))
    assert seen >= 5
    assert wrong == []


# --- 6. a message carrying a sensitive message's text is judged as that message -------------------
def test_a_quote_or_forward_carries_its_parents_reasons_before_label_noise(demo):
    """Before the deliberate label noise, a reply quoting its parent, a forward copying it inline
    and a forward attaching it have every reason the parent has for each persona (an aside's kind
    is flagged or not once per persona, where it was written, for every message carrying it)."""
    _, labs, _ = demo
    judged = generator.judge(labs, random.Random(SEED * 7919 + 17))
    index = {lab.docid: i for i, lab in enumerate(labs)}
    missing, pairs, sensitive_pairs = [], 0, 0
    for i, lab in enumerate(labs):
        if not lab.quotes:
            continue
        j = index[lab.quotes]
        if not lab.attached and labs[j].attached:
            continue   # a reply to a forward quotes the forward's body, not the message attached to it
        pairs += 1
        for persona in labels.PERSONAS:
            parent_reasons, _ = judged[persona][j]
            child_reasons, _ = judged[persona][i]
            sensitive_pairs += bool(parent_reasons)
            if not set(parent_reasons) <= set(child_reasons):
                missing.append((lab.docid, persona, parent_reasons, child_reasons))
    assert pairs >= 500 and sensitive_pairs >= 150
    assert missing == []


def test_judgment_files_are_the_judgments_after_noise(demo):
    _, labs, out = demo
    judged = generator.judge(labs, random.Random(SEED * 7919 + 17))
    lines = (out / "sensitivity.txt").read_text().splitlines()
    want = [f"{p} {lab.docid} {judged[p][i][1]}" for p in labels.PERSONAS for i, lab in enumerate(labs)]
    assert lines == want
    rows = (out / "reasons.tsv").read_text().splitlines()[1:]
    assert rows == [f"{lab.docid}\t{p}\t{r}" for p in labels.PERSONAS for i, lab in enumerate(labs)
                    if judged[p][i][1] for r in judged[p][i][0]]
    # the noise is what it says: about NOISE_RATE of the levels differ from the planted reasons
    flips = sum(1 for p in labels.PERSONAS for reasons, level in judged[p] if level != bool(reasons))
    assert 0.03 * 2 * N <= flips <= 0.07 * 2 * N
