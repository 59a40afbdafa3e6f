"""Attachment payloads: meeting notes, CSV tables (budgets, expenses), HTML pages, calendar
invites and small fake binaries (PDF, images, instrument files) that carry no extractable text.
"""
from __future__ import annotations

import random

from . import compose, pii
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
    rng = ctx.rng
    card = pii.card_number(rng, "") if with_cards else ""
    rows = ["date,merchant,amount_usd,payment"]
    for _ in range(rng.randrange(3, 8)):
        d = ctx.date.replace(day=rng.randrange(1, 28))
        pay = f"card {card}" if with_cards else rng.choice(("corporate card", "cash", "invoice"))
        rows.append(f"{d.strftime('%Y-%m-%d')},{rng.choice(MERCHANTS)},{rng.randrange(8, 900)}.{rng.randrange(100):02d},"
                    f"{pay}")
    return Attachment("expenses.csv", "text/csv", "\n".join(rows) + "\n", rng.choice(("7bit", "b64")))


def html_page(ctx: compose.Ctx, title: str, paras: list[str]) -> Attachment:
    body = "\n".join(f"<p>{p}</p>" for p in paras)
    doc = f"<!DOCTYPE html>\n<html><head><title>{title}</title></head>\n<body><h1>{title}</h1>\n{body}\n</body></html>\n"
    return Attachment(title.lower().replace(" ", "_")[:30] + ".html", "text/html", doc, ctx.rng.choice(("qp", "b64")))


def calendar(ctx: compose.Ctx, summary: str) -> Attachment:
    d = ctx.date
    start = d.strftime("%Y%m%dT") + f"{ctx.rng.randrange(8, 17):02d}0000"
    ics = ("BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//Arclight//Calendar//EN\nMETHOD:REQUEST\nBEGIN:VEVENT\n"
           f"DTSTART:{start}\nDURATION:PT30M\nSUMMARY:{summary}\nORGANIZER:mailto:{ctx.sender.email}\n"
           f"UID:{ctx.rng.getrandbits(64):016x}@arclight.example.com\nEND:VEVENT\nEND:VCALENDAR\n")
    return Attachment("invite.ics", "text/calendar", ics, "7bit")
