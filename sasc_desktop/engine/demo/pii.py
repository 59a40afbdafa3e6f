"""Fake personal identifiers that look real: SSNs, Luhn-valid card numbers, IBANs with correct
check digits, ABA routing numbers, phone numbers in the 555-01xx fiction range, addresses.

Also decoys: long digit strings that fail the Luhn check (order and tracking numbers).
"""
from __future__ import annotations

import random

STREETS = ("Alder", "Birchwood", "Cedar Hollow", "Division", "Elm", "Foxglove", "Glisan", "Hawthorne",
           "Juniper", "Larkspur", "Maple Ridge", "Northrup", "Orchard", "Pine Crest", "Quimby", "Raleigh",
           "Sandy", "Thurman", "Umatilla", "Vista", "Willow Bend", "Yamhill")
STREET_TYPES = ("St", "Ave", "Dr", "Ln", "Ct", "Blvd", "Way", "Pl")
CITIES = (("Portland", "OR", "972"), ("Beaverton", "OR", "970"), ("Lake Oswego", "OR", "970"),
          ("Vancouver", "WA", "986"), ("Cambridge", "MA", "021"), ("Somerville", "MA", "021"),
          ("Newton", "MA", "024"), ("Denver", "CO", "802"), ("Austin", "TX", "787"))


def luhn_digit(partial: str) -> str:
    total = 0
    for i, ch in enumerate(reversed(partial)):
        d = int(ch)
        if i % 2 == 0:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return str((10 - total % 10) % 10)


def luhn_ok(number: str) -> bool:
    digits = [c for c in number if c.isdigit()]
    return len(digits) > 1 and luhn_digit("".join(digits[:-1])) == digits[-1]


def card_number(rng: random.Random, sep: str = " ") -> str:
    prefix = rng.choice(("4", "4", "51", "52", "55", "37"))
    length = 15 if prefix == "37" else 16
    body = prefix + "".join(str(rng.randrange(10)) for _ in range(length - len(prefix) - 1))
    num = body + luhn_digit(body)
    if length == 15:
        return sep.join((num[:4], num[4:10], num[10:]))
    return sep.join(num[i:i + 4] for i in range(0, 16, 4))


def card_brand(number: str):
    """The brand a card number's prefix (IIN) names: 4 Visa, 51-55 Mastercard, 34 and 37 American
    Express ("Amex"); None for any other prefix."""
    digits = "".join(c for c in number if c.isdigit())
    if digits[:1] == "4":
        return "Visa"
    if "51" <= digits[:2] <= "55":
        return "Mastercard"
    if digits[:2] in ("34", "37"):
        return "Amex"
    return None


def masked(number: str) -> str:
    """A card number as receipts print it: every digit but the last four hidden, in the card's
    grouping (XXXX-XXXX-XXXX-1234, an Amex XXXX-XXXXXX-X1234)."""
    digits = "".join(c for c in number if c.isdigit())
    hidden = "X" * (len(digits) - 4) + digits[-4:]
    if len(digits) == 15:
        return "-".join((hidden[:4], hidden[4:10], hidden[10:]))
    return "-".join(hidden[i:i + 4] for i in range(0, len(hidden), 4))


def non_luhn_number(rng: random.Random, sep: str = "") -> str:
    """Sixteen digits that fail the Luhn check (looks like a card number, is an order number)."""
    body = str(rng.randrange(1, 10)) + "".join(str(rng.randrange(10)) for _ in range(14))
    good = int(luhn_digit(body))
    bad = (good + rng.randrange(1, 10)) % 10
    num = body + str(bad)
    return sep.join(num[i:i + 4] for i in range(0, 16, 4)) if sep else num


def ssn(rng: random.Random) -> str:
    while True:
        area = rng.randrange(1, 900)
        if area != 666:
            break
    return f"{area:03d}-{rng.randrange(1, 100):02d}-{rng.randrange(1, 10000):04d}"


# The first two digits of an ABA routing number: 01-12 name the Federal Reserve district of a
# bank, 21-32 the same districts for a thrift; other prefixes are government (00), electronic
# (61-72) or traveller's cheques (80), or unused.
ROUTING_PREFIXES = tuple(range(1, 13)) + tuple(range(21, 33))


def routing_number(rng: random.Random) -> str:
    """Nine digits with a US bank's prefix and a valid ABA check digit (3-7-1 weights)."""
    d = [rng.randrange(10) for _ in range(8)]
    d[0], d[1] = divmod(rng.choice(ROUTING_PREFIXES), 10)
    s = 3 * (d[0] + d[3] + d[6]) + 7 * (d[1] + d[4] + d[7]) + (d[2] + d[5])
    d.append((10 - s % 10) % 10)
    return "".join(map(str, d))


def account_number(rng: random.Random) -> str:
    return "".join(str(rng.randrange(10)) for _ in range(rng.choice((9, 10, 12))))


def iban(rng: random.Random) -> str:
    country, bban_len = rng.choice((("DE", 18), ("GB", 18), ("FR", 23), ("NL", 14)))
    if country == "GB":
        bban = rng.choice(("NWBK", "BARC", "MIDL")) + "".join(str(rng.randrange(10)) for _ in range(14))
    elif country == "NL":
        bban = rng.choice(("ABNA", "INGB", "RABO")) + "".join(str(rng.randrange(10)) for _ in range(10))
    else:
        bban = "".join(str(rng.randrange(10)) for _ in range(bban_len))
    rearranged = bban + country + "00"
    numeric = "".join(str(int(c, 36)) for c in rearranged)
    check = 98 - int(numeric) % 97
    raw = f"{country}{check:02d}{bban}"
    return " ".join(raw[i:i + 4] for i in range(0, len(raw), 4))


def iban_ok(value: str) -> bool:
    raw = value.replace(" ", "")
    rearranged = raw[4:] + raw[:4]
    return int("".join(str(int(c, 36)) for c in rearranged)) % 97 == 1


def phone(rng: random.Random) -> str:
    area = rng.choice(("503", "971", "360", "617", "857", "720", "512"))
    return f"({area}) 555-01{rng.randrange(100):02d}"


def dob(rng: random.Random) -> str:
    y = rng.randrange(1952, 2001)
    m = rng.randrange(1, 13)
    d = rng.randrange(1, 29)
    return rng.choice((f"{m:02d}/{d:02d}/{y}", f"{y}-{m:02d}-{d:02d}"))


def home_address(rng: random.Random) -> str:
    city, state, zip3 = rng.choice(CITIES)
    return (f"{rng.randrange(100, 9900)} {rng.choice(('NE', 'SE', 'SW', 'NW', ''))} {rng.choice(STREETS)} "
            f"{rng.choice(STREET_TYPES)}, {city}, {state} {zip3}{rng.randrange(10, 100)}").replace("  ", " ")


def booking_ref(rng: random.Random) -> str:
    return "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(6))


def tracking_number(rng: random.Random) -> str:
    return "1Z" + "".join(rng.choice("0123456789ABCDEFGHJKLMNPRSTUVWXY") for _ in range(16))
