"""Text composition: slot filling, per-person style (greetings, sign-offs, typos, wrapping)."""
from __future__ import annotations

import datetime as _dt
import random
import re
from dataclasses import dataclass, field
from typing import Callable, Optional

from . import people, pii

_SLOT = re.compile(r"\{([a-z_0-9]+)\}")

ROOMS = ("Cascade", "Hood", "Rainier", "Shasta", "Multnomah", "the big conference room", "Zoom",
         "the 3rd floor huddle room", "my office", "the lab")
CUSTOMERS = ("Brightwater Utilities", "Northfield Water", "Casa Verde Farms", "Pacific Rail", "Helix Biotech",
             "Ostrava Steel", "Summit Medical Devices", "Tidewater Port Authority", "Greenleaf Agritech",
             "Corbel Mining")
CITIES = ("Denver", "Chicago", "Boston", "Austin", "Munich", "Tokyo", "San Jose", "Seattle", "Phoenix",
          "Minneapolis", "Atlanta", "Rotterdam")
WEEK = ("next week", "this Thursday", "by end of month", "before the 15th", "after the holidays", "Monday",
        "by Friday", "early next week", "in two weeks", "tomorrow")
DOCS = ("the design doc", "the spec", "the deck", "the one-pager", "the test plan", "the draft",
        "the requirements doc", "the slides")
REPOS = ("falcon-fw", "lumen-dsp", "calib-tools", "cloud-ingest", "spectra-ml", "factory-test", "web-portal")
TECH = ("hyperspectral imaging", "edge ML", "MEMS gyroscopes", "LiDAR pricing", "battery chemistry",
        "sensor fusion", "data marketplaces", "photonic chips", "supply-chain resilience", "right-to-repair laws")
DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")
TIMES = ("9", "9:30", "10", "10:30", "11", "noon", "1", "1:30", "2", "2:30", "3", "3:30", "4", "4:30")
FOODS = ("tacos", "the Thai place", "ramen", "the food carts", "pho", "sandwiches", "the new Indian place")
PRODUCTS = ("Falcon", "Lumen", "Kestrel", "the Falcon Pro", "the L2 module", "SpectraCloud")


@dataclass
class Ctx:
    rng: random.Random
    sender: people.Person
    recipient: people.Person
    date: _dt.datetime
    extra: dict = field(default_factory=dict)
    sticky: dict = field(default_factory=dict)   # slot values kept for the whole message


# Slots that keep one value within a message (a message talks about one customer, one city, one
# day, one time...); a reply or forward starts with its parent's values (see Ctx.sticky).
STICKY = frozenset(("customer", "city", "kid", "product", "repo", "room", "booking", "day", "time", "week",
                    "tech", "doc", "pr", "food"))

# Slots naming a person's own things: one value per person within a message and its replies
# (a writer has one card, one SSN, one bank account, whoever else names theirs). The owner is the
# writer, or for a booking robot's receipt the guest it is sent to (see owner()). A slot
# "their_<name>" is somebody else's (a candidate's, an intern's): a fresh value each time.
OWNED = frozenset(("card", "ssn", "dob", "address", "routing", "account", "iban", "licence", "flyer"))

WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_WEEKDAY = re.compile(r"\b(" + "|".join(WEEKDAYS) + r")\b", re.IGNORECASE)


def weekdays(text: str) -> list[str]:
    """The weekdays ``text`` names, in order, capitalised ('Lunch friday?' names Friday)."""
    return [m.group(1).capitalize() for m in _WEEKDAY.finditer(text)]


def fits(template: str, ctx: Ctx) -> bool:
    """Whether ``template`` names no weekday (in its literal text) other than the message's day,
    once the message has one."""
    day = ctx.sticky.get("day")
    return day is None or all(d == day for d in weekdays(_SLOT.sub(" ", template)))


def _colleague(ctx: Ctx) -> people.Person:
    """The colleague a message talks about: one per message ({colleague} and {colleague_first}
    name the same person), never its sender or recipient."""
    key = ctx.sticky.get("colleague")
    if key is not None and key not in (ctx.sender.key, ctx.recipient.key):
        return people.BY_KEY[key]
    while True:
        p = people.BY_KEY[ctx.rng.choice(people.WORKERS)]
        if p.key not in (ctx.sender.key, ctx.recipient.key):
            ctx.sticky["colleague"] = p.key
            return p


def owner(ctx: Ctx) -> people.Person:
    """Whose card, address... a message names: its writer's, or for a robot's receipt its
    recipient's."""
    return ctx.recipient if ctx.sender.style.client == "system" else ctx.sender


def own(ctx: Ctx, name: str) -> str:
    """The value of the :data:`OWNED` slot ``name`` for the message's owner (the same in the whole
    message and in the owner's replies to it)."""
    key = f"{name}:{owner(ctx).key}"
    got = ctx.sticky.get(key)
    if got is None:
        got = ctx.sticky[key] = SLOTS[name](ctx)
    return got


def _paycard(ctx: Ctx) -> str:
    """The owner's card as a receipt names it: its brand (from its prefix) and the number, in
    full or masked but for the last four digits."""
    card = own(ctx, "card")
    shown = card if ctx.rng.random() < 0.6 else pii.masked(card)
    return f"{pii.card_brand(card)} {shown}"


def _week(ctx: Ctx) -> str:
    """When, loosely ('next week', 'by Friday'); a weekday in it is the message's day."""
    text = ctx.rng.choice(WEEK)
    named = weekdays(text)
    if named:
        day = ctx.sticky.get("day")
        if day is None:
            day = ctx.sticky["day"] = named[0]
        text = text.replace(named[0], day)
    return text


def _future_date(ctx: Ctx) -> str:
    d = ctx.date + _dt.timedelta(days=ctx.rng.randrange(2, 30))
    return f"{d.strftime('%B')} {d.day}"


def _amount(ctx: Ctx) -> str:
    return f"${ctx.rng.randrange(2, 400) * 100 + ctx.rng.choice((0, 0, 50, 80)):,}"


SLOTS: dict[str, Callable[[Ctx], str]] = {
    "first": lambda c: c.recipient.short,
    "me": lambda c: c.sender.short,
    "myname": lambda c: c.sender.name,
    "colleague": lambda c: _colleague(c).name,
    "colleague_first": lambda c: _colleague(c).short,
    "day": lambda c: c.rng.choice(DAYS),
    "time": lambda c: c.rng.choice(TIMES),
    "date": _future_date,
    "room": lambda c: c.rng.choice(ROOMS),
    "num": lambda c: str(c.rng.randrange(2, 40)),
    "bignum": lambda c: f"{c.rng.randrange(120, 9800):,}",
    "pct": lambda c: f"{c.rng.randrange(3, 41)}%",
    "k": lambda c: f"${c.rng.randrange(8, 480)}k",
    "amount": _amount,
    "customer": lambda c: c.rng.choice(CUSTOMERS),
    "city": lambda c: c.rng.choice(CITIES),
    "week": _week,
    "doc": lambda c: c.rng.choice(DOCS),
    "repo": lambda c: c.rng.choice(REPOS),
    "pr": lambda c: str(c.rng.randrange(100, 2400)),
    "tech": lambda c: c.rng.choice(TECH),
    "food": lambda c: c.rng.choice(FOODS),
    "product": lambda c: c.rng.choice(PRODUCTS),
    "year": lambda c: str(c.date.year + (1 if c.date.month > 9 else 0)),
    "quarter": lambda c: f"Q{(c.date.month - 1) // 3 + 1}",
    "month": lambda c: c.date.strftime("%B"),
    "ssn": lambda c: pii.ssn(c.rng),
    "card": lambda c: pii.card_number(c.rng, c.rng.choice((" ", "-", ""))),
    "fakecard": lambda c: pii.non_luhn_number(c.rng, c.rng.choice(("", " "))),
    "iban": lambda c: pii.iban(c.rng),
    "routing": lambda c: pii.routing_number(c.rng),
    "account": lambda c: pii.account_number(c.rng),
    "phone": lambda c: pii.phone(c.rng),
    "dob": lambda c: pii.dob(c.rng),
    "address": lambda c: pii.home_address(c.rng),
    "booking": lambda c: pii.booking_ref(c.rng),
    "tracking": lambda c: pii.tracking_number(c.rng),
    "org": lambda c: people.ORG_NAME,
    "rname": lambda c: c.recipient.name,
    "last4": lambda c: "".join(ch for ch in own(c, "card") if ch.isdigit())[-4:],
    "fare": lambda c: f"${c.rng.randrange(89, 1900)}.{c.rng.randrange(100):02d}",
    "paycard": _paycard,
    "expiry": lambda c: f"{c.rng.randrange(1, 13):02d}/{(c.date.year + c.rng.randrange(1, 5)) % 100:02d}",
    "licence": lambda c: str(c.rng.randrange(1_000_000, 100_000_000)),   # a driver's licence number
    "flyer": lambda c: str(c.rng.randrange(10_000_000, 100_000_000)),    # a frequent flyer number
}


def fill(template: str, ctx: Ctx) -> str:
    if "{" not in template:
        if "day" not in ctx.sticky:
            named = weekdays(template)
            if named:
                ctx.sticky["day"] = named[0]
        return template
    extra = ctx.extra

    def repl(m: re.Match) -> str:
        name = m.group(1)
        if name in OWNED and name not in extra:
            return own(ctx, name)
        if name.startswith("their_") and name[6:] in OWNED:
            return _value(name[6:])
        if name in STICKY:
            got = ctx.sticky.get(name)
            if got is None:
                got = ctx.sticky[name] = _value(name)
            return got
        return _value(name)

    def _value(name: str) -> str:
        v = extra.get(name)
        if v is not None:
            if isinstance(v, str):
                return v
            if isinstance(v, tuple):
                return ctx.rng.choice(v)
            return v(ctx)
        f = SLOTS.get(name)
        if f is None:
            raise KeyError(f"unknown slot {{{name}}} in template: {template[:60]!r}")
        return f(ctx)

    out = _SLOT.sub(repl, template)
    if "day" not in ctx.sticky:
        named = weekdays(out)   # a weekday written out ('Potluck Friday') is the message's day too
        if named:
            ctx.sticky["day"] = named[0]
    return out


# --- style ------------------------------------------------------------------------------------
_WORD = re.compile(r"[A-Za-z]{5,}")


def add_typos(text: str, rate: float, rng: random.Random) -> str:
    if rate <= 0:
        return text
    words = list(_WORD.finditer(text))
    if not words:
        return text
    expected = len(words) * rate
    k = int(expected) + (1 if rng.random() < expected - int(expected) else 0)
    if k == 0:
        return text
    picks = sorted(rng.sample(range(len(words)), min(k, len(words))))
    out, last = [], 0
    for i in picks:
        m = words[i]
        w = m.group(0)
        j = rng.randrange(1, len(w) - 1)
        op = rng.randrange(3)
        if op == 0:
            w = w[:j] + w[j + 1] + w[j] + w[j + 2:]
        elif op == 1:
            w = w[:j] + w[j + 1:]
        else:
            w = w[:j] + w[j] + w[j:]
        out.append(text[last:m.start()])
        out.append(w)
        last = m.end()
    out.append(text[last:])
    return "".join(out)


def wrap(text: str, width: int = 72) -> str:
    """Greedy hard wrap of each line (what a plain-text mail client does)."""
    lines = []
    for line in text.split("\n"):
        if len(line) <= width or line.startswith(">"):
            lines.append(line)
            continue
        cur = ""
        for word in line.split(" "):
            if cur and len(cur) + 1 + len(word) > width:
                lines.append(cur)
                cur = word
            else:
                cur = f"{cur} {word}" if cur else word
        lines.append(cur)
    return "\n".join(lines)


def signature(person: people.Person) -> str:
    lines = [ln.format(name=person.name, title=person.title, phone=person.phone) for ln in person.style.signature]
    lines = [ln for ln in lines if ln.strip()]
    return "\n".join(lines)


def letter(ctx: Ctx, paragraphs: list[str], with_signature: Optional[bool] = None) -> str:
    """Wrap authored paragraphs in the sender's greeting, sign-off, typos and signature."""
    st = ctx.sender.style
    rng = ctx.rng
    text = "\n\n".join(p for p in paragraphs if p)
    text = add_typos(text, st.typo_rate, rng)
    if st.lowercase:
        text = text.lower()
    parts = []
    greet = fill(rng.choice(st.greetings), ctx)
    if greet:
        parts.append(greet)
    parts.append(text)
    sign = fill(rng.choice(st.signoffs), ctx)
    if sign:
        parts.append(sign)
    body = "\n\n".join(parts)
    if st.client in ("thunderbird", "mobile"):
        body = wrap(body)
    if with_signature is None:
        with_signature = rng.random() < 0.7
    if with_signature and st.signature:
        sep = "-- \n" if st.client == "thunderbird" else ""
        body += "\n\n" + sep + signature(ctx.sender)
    if st.client == "mobile" and rng.random() < 0.5:
        body += "\n\nSent from my phone"
    return body + "\n"
