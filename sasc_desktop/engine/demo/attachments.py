"""Attachment payloads: meeting notes, CSV tables (budgets, expenses), HTML pages, calendar
invites and small fake binaries (PDF, images, instrument files) that carry no extractable text.
"""
from __future__ import annotations

import datetime as _dt
import random

from . import compose
from .mime import Attachment


def _fake_binary(rng: random.Random, header: bytes, trailer: bytes, size: int) -> bytes:
    return header + rng.getrandbits(8 * size).to_bytes(size, "little") + trailer


def pdf(rng: random.Random, name: str) -> Attachment:
    data = _fake_binary(rng, b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nstream\n",
                        b"\nendstream\n%%EOF\n", rng.randrange(300, 1400))
    return Attachment(name, "application/pdf", data)


def octet(rng: random.Random, name: str) -> Attachment:
    return Attachment(name, "application/octet-stream",
                      _fake_binary(rng, b"SPC\x01\x00", b"", rng.randrange(200, 900)))


def png(rng: random.Random, name: str) -> Attachment:
    return Attachment(name, "image/png", _fake_binary(rng, b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", b"IEND\xaeB`\x82",
                                                      rng.randrange(200, 800)))


def notes(ctx: compose.Ctx, title: str, paras: list[str]) -> Attachment:
    rng = ctx.rng
    lines = [f"Notes: {title}", f"Date: {ctx.date.strftime('%Y-%m-%d')}",
             f"Attendees: {ctx.sender.name}, {ctx.recipient.name}, {compose.fill('{colleague}', ctx)}", ""]
    for i, p in enumerate(paras, 1):
        lines.append(f"{i}. {p}")
    lines += ["", "Action items:", f"- {ctx.recipient.short}: follow up {compose.fill('{week}', ctx)}",
              f"- {ctx.sender.short}: update {compose.fill('{doc}', ctx)}"]
    enc = rng.choice(("7bit", "qp", "b64"))
    fname = title.lower().replace(" ", "-").replace("/", "-")[:40] + ".txt"
    return Attachment(fname, "text/plain", "\n".join(lines) + "\n", enc)


BUDGET_LINES = ("Contractors", "Lab equipment", "Prototype builds", "Travel", "Conferences", "Software licences",
                "Test fixtures", "Cloud hosting", "Recruiting", "Training")


def budget_csv(ctx: compose.Ctx, label: str) -> Attachment:
    rng = ctx.rng
    rows = ["cost_center,line_item,plan_usd,actual_usd,variance_usd"]
    for item in rng.sample(BUDGET_LINES, rng.randrange(4, 9)):
        plan = rng.randrange(5, 400) * 1000
        actual = int(plan * rng.uniform(0.8, 1.4))
        rows.append(f"{rng.choice(('ENG-OPT', 'ENG-FW', 'OPS-MFG', 'PRD', 'MKT'))},{item},{plan},{actual},"
                    f"{actual - plan}")
    return Attachment(f"{label}.csv", "text/csv", "\n".join(rows) + "\n", rng.choice(("7bit", "b64", "b64")))


MERCHANTS = ("SkyWays Air", "Harborview Hotel", "Metro Cab", "Cafe Lumiere", "Rail Express", "Airport Parking",
             "Conference Registration", "Office Depot North")


def expenses_csv(ctx: compose.Ctx, with_cards: bool) -> Attachment:
    """An expense report: what was spent in the four weeks up to the day it is sent, in date
    order; ``with_cards``: paid with the owner's own card (the one the mail names)."""
    rng = ctx.rng
    card = "".join(ch for ch in compose.own(ctx, "card") if ch.isdigit()) if with_cards else ""
    rows = []
    for _ in range(rng.randrange(3, 8)):
        d = ctx.date - _dt.timedelta(days=rng.randrange(0, 28))
        pay = f"card {card}" if with_cards else rng.choice(("corporate card", "cash", "invoice"))
        rows.append((d.strftime('%Y-%m-%d'), f"{rng.choice(MERCHANTS)},{rng.randrange(8, 900)}.{rng.randrange(100):02d},"
                                             f"{pay}"))
    rows.sort(key=lambda r: r[0])   # stable: rows of one day keep their order
    text = "\n".join(["date,merchant,amount_usd,payment"] + [f"{d},{rest}" for d, rest in rows]) + "\n"
    return Attachment("expenses.csv", "text/csv", text, rng.choice(("7bit", "b64")))


def html_page(ctx: compose.Ctx, title: str, paras: list[str]) -> Attachment:
    body = "\n".join(f"<p>{p}</p>" for p in paras)
    doc = f"<!DOCTYPE html>\n<html><head><title>{title}</title></head>\n<body><h1>{title}</h1>\n{body}\n</body></html>\n"
    return Attachment(title.lower().replace(" ", "_")[:30] + ".html", "text/html", doc, ctx.rng.choice(("qp", "b64")))


# what "at 1:30" means in an office: 9 to 11:30 in the morning, noon, 1 to 4:30 in the afternoon
def _clock(time: str):
    if time == "noon":
        return 12, 0
    h, _, m = time.partition(":")
    h = int(h)
    return (h + 12 if h < 8 else h), int(m or 0)


def invite_start(sent: _dt.datetime, sticky: dict, rng) -> _dt.datetime:
    """When an invitation sent at ``sent`` (the sender's wall clock) starts, as a naive wall-clock
    time: on the weekday and at the time its mail names (``sticky["day"]``, ``sticky["time"]``,
    the values of the mail's {day} and {time} slots), the next such weekday after the day it is
    sent; with no day named, the next working day; with no time named, on the hour from 9 to 16."""
    day = sticky.get("day")
    if day in compose.WEEKDAYS:
        ahead = (compose.WEEKDAYS.index(day) - sent.weekday()) % 7 or 7
    else:
        ahead = {4: 3, 5: 2}.get(sent.weekday(), 1)   # Friday and Saturday: the Monday after
    date = sent.date() + _dt.timedelta(days=ahead)
    time = sticky.get("time")
    hour, minute = _clock(time) if time else (rng.randrange(9, 17), 0)
    return _dt.datetime(date.year, date.month, date.day, hour, minute)


def calendar(ctx: compose.Ctx, summary: str) -> Attachment:
    """A meeting request for the slot the mail proposes (see :func:`invite_start`)."""
    start = invite_start(ctx.date, ctx.sticky, ctx.rng).strftime("%Y%m%dT%H%M%S")
    ics = ("BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//Arclight//Calendar//EN\nMETHOD:REQUEST\nBEGIN:VEVENT\n"
           f"DTSTART:{start}\nDURATION:PT30M\nSUMMARY:{summary}\nORGANIZER:mailto:{ctx.sender.email}\n"
           f"UID:{ctx.rng.getrandbits(64):016x}@arclight.example.com\nEND:VEVENT\nEND:VCALENDAR\n")
    return Attachment("invite.ics", "text/calendar", ics, "7bit")
