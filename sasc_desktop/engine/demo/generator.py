"""The demo collection generator: a deterministic synthetic email collection with planted topics
(graded relevance) and planted sensitive content (per-persona ground truth).

Everything derives from ``random.Random(seed)``: no wall-clock time, no set or hash ordering.
Messages are written to mboxrd files as they are generated; only small label records stay in
memory, so 50,000 messages are fine.
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import json
import operator
import random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from .. import progress as _progress
from ..errors import InputError
from . import attachments as att
from . import compose, content, labels, mime, people
from .content import Kind
from .people import BY_KEY, CUSTODIANS, Person
from .topics import ECHO_DISTRACTORS, TOPICS, Topic

FORMAT_VERSION = 1
MAX_MESSAGES = 1_000_000   # unique messages at most (50,000 take about a minute to write)
START = _dt.datetime(2019, 1, 7, tzinfo=_dt.timezone.utc)
SPAN_DAYS = 960
NOISE_RATE = 0.05
MILD_FLAG_RATE = 0.6   # chance a persona flags a kind that was only mentioned in passing (an aside)

ALL_STAFF = Person(key="all-staff", name="All Staff", email=f"all-staff@{people.ORG_DOMAIN}", title="", dept="list",
                   style=people.SYSTEM, internal=True)
INTERNAL_CUSTODIANS = tuple(k for k in CUSTODIANS if BY_KEY[k].internal)

# Standard offsets (hours east of UTC) and daylight-saving rules of the zones the cast lives in,
# computed here rather than read from the system's time zone database, so that every machine
# writes the same dates: "US" (since 2007) from 02:00 local time on the second Sunday of March
# to 02:00 local (daylight) time on the first Sunday of November; "EU" from 01:00 UTC on the last
# Sunday of March to 01:00 UTC on the last Sunday of October; None: no daylight saving time.
ZONES: dict[str, tuple[float, Optional[str]]] = {
    "US/Pacific": (-8.0, "US"), "US/Mountain": (-7.0, "US"), "US/Central": (-6.0, "US"),
    "US/Eastern": (-5.0, "US"), "Europe/London": (0.0, "EU"), "Europe/Paris": (1.0, "EU"),
    "Europe/Berlin": (1.0, "EU"), "Europe/Stockholm": (1.0, "EU"), "Asia/Tokyo": (9.0, None),
    "Asia/Kolkata": (5.5, None)}
_TZ_CACHE: dict[float, _dt.timezone] = {}
_DST_CACHE: dict[tuple[str, int], tuple[_dt.datetime, _dt.datetime]] = {}
_UTC = _dt.timezone.utc


def _sunday(year: int, month: int, nth: int) -> _dt.date:
    """The ``nth`` Sunday of the month (1 = first); ``nth=-1`` is the last one."""
    if nth > 0:
        first = _dt.date(year, month, 1)
        return first + _dt.timedelta(days=(6 - first.weekday()) % 7 + 7 * (nth - 1))
    last = _dt.date(year + (month == 12), month % 12 + 1, 1) - _dt.timedelta(days=1)
    return last - _dt.timedelta(days=(last.weekday() - 6) % 7)


def dst_span(tz: str, year: int) -> Optional[tuple[_dt.datetime, _dt.datetime]]:
    """The UTC instants daylight saving time starts and ends in ``tz`` in ``year`` (None: the
    zone has none)."""
    base, rule = ZONES[tz]
    if rule is None:
        return None
    got = _DST_CACHE.get((tz, year))
    if got is None:
        if rule == "US":   # 02:00 local standard time; 02:00 local daylight time = 01:00 standard
            start = _dt.datetime.combine(_sunday(year, 3, 2), _dt.time(2), _UTC) - _dt.timedelta(hours=base)
            end = _dt.datetime.combine(_sunday(year, 11, 1), _dt.time(1), _UTC) - _dt.timedelta(hours=base)
        else:
            start = _dt.datetime.combine(_sunday(year, 3, -1), _dt.time(1), _UTC)
            end = _dt.datetime.combine(_sunday(year, 10, -1), _dt.time(1), _UTC)
        got = _DST_CACHE[(tz, year)] = (start, end)
    return got


def _fixed(off: float) -> _dt.timezone:
    z = _TZ_CACHE.get(off)
    if z is None:
        z = _TZ_CACHE[off] = _dt.timezone(_dt.timedelta(hours=off))
    return z


def offset_at(tz: str, when: _dt.datetime) -> _dt.timezone:
    """The fixed UTC offset zone ``tz`` has at the instant ``when`` (an aware datetime)."""
    base = ZONES[tz][0]
    u = when.astimezone(_UTC)
    span = dst_span(tz, u.year)
    return _fixed(base + 1 if span is not None and span[0] <= u < span[1] else base)


def local_time(tz: str, naive: _dt.datetime) -> _dt.datetime:
    """The wall-clock time ``naive`` in zone ``tz``, with the offset the zone has then. In the
    hour the clocks go back the earlier (daylight) one is meant; a time the clocks skip is
    read with the offset before the change and shown as the time it is after it."""
    base = ZONES[tz][0]
    for off in (base + 1, base):   # daylight first: the earlier of two readings
        z = _fixed(off)
        if offset_at(tz, naive.replace(tzinfo=z)) == z:
            return naive.replace(tzinfo=z)
    when = naive.replace(tzinfo=_fixed(base))
    return when.astimezone(offset_at(tz, when))


def in_zone(tz: str, when: _dt.datetime) -> _dt.datetime:
    """The instant ``when`` as a wall-clock time in zone ``tz``."""
    return when.astimezone(offset_at(tz, when))


# --- the plan ---------------------------------------------------------------------------------
WORK_WEIGHTS = (("scheduling", 12), ("status", 9), ("code_review", 5), ("design_review", 5), ("it_notice", 4),
                ("facilities", 3), ("lunch", 4), ("fyi_article", 3), ("vendor", 2), ("customer", 5),
                ("doc_edit", 4), ("conference", 2), ("thanks", 3), ("seminar", 2), ("expenses", 2), ("social", 4))
OTHER_WEIGHTS = (("news", 3.0), ("press", 1.5), ("intl", 1.5))
SENS_WEIGHTS = (("family", 7.0), ("romance", 2.0), ("health", 2.0), ("receipt", 4.0), ("pii", 1.5),
                ("student", 0.5), ("litigation", 1.0), ("trade_secret", 2.5), ("contract", 1.0),
                ("reputational", 0.8), ("membership", 1.2), ("stigmatised", 1.0), ("offensive", 1.0),
                ("gossip", 3.5), ("peer_opinion", 2.5), ("review", 2.0), ("unflattering_family", 1.0),
                ("emotional", 2.0))
ASIDE_WEIGHTS = (("family", 3.0), ("health", 2.0), ("receipt", 1.0), ("pii", 1.0), ("litigation", 0.5),
                 ("trade_secret", 2.0), ("contract", 0.5), ("reputational", 0.5), ("membership", 1.0),
                 ("stigmatised", 0.5), ("offensive", 1.0), ("gossip", 2.0), ("peer_opinion", 2.0),
                 ("review", 0.7), ("unflattering_family", 0.5), ("emotional", 1.5), ("romance", 0.5))

HIGH_SHARE = 0.008      # highly relevant messages per topic, as a share of n (times topic weight)
DIST_SHARE = 0.005      # planted distractors per topic
OBLIQUE_RATE = 0.4      # relevant messages written with codenames/synonyms instead of the title words
ECHO_RATE = 0.25        # distractors that repeat the title words in an unrelated context


def _alias_pattern(topic: Topic):
    """One compiled regex over the topic's alias keys (longest first), cached per topic."""
    pat = _ALIAS_RE.get(topic.id)
    if pat is None:
        keys = sorted((k for k, _ in topic.aliases), key=len, reverse=True)
        pat = re.compile(r"(?<![\w-])(" + "|".join(re.escape(k) for k in keys) + r")(?![\w-])", re.IGNORECASE) \
            if keys else None
        _ALIAS_RE[topic.id] = pat
    return pat


_ALIAS_RE: dict[str, object] = {}
_WORDS = re.compile(r"[\w][\w'-]*")
_PREV = re.compile(r"(?<![\w'-])([\w][\w'-]*)[ \t]+$")
# Words an alias may share with its neighbours (articles, prepositions...).
_LIGHT = frozenset("the our a an of in on at to for and or with from by my your his her their its this that "
                   "is are be".split())
_DETERMINERS = frozenset("the our a an my your his her their its this that these those".split())
NEIGHBOURS = 4   # words either side of a rewritten phrase that must not repeat the alias's words


def _content_words(text: str) -> set:
    """The words of ``text`` that an alias must not repeat nearby, singular ('units' is 'unit')."""
    out = set()
    for w in _WORDS.findall(text):
        w = w.lower()
        if w.endswith("'s"):
            w = w[:-2]
        if w not in _LIGHT:
            out.add(w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w)
    return out


def _article(word: str) -> str:
    """'a' or 'an' before ``word`` (by its sound: acronyms by their letters' names)."""
    if len(word) > 1 and word.isupper():
        return "an" if word[0] in "AEFHILMNORSX" else "a"
    w = word.lower()
    if w.startswith(("uni", "use", "usu", "uti", "eu", "one")):
        return "a"
    return "an" if w[:1] in "aeiou" else "a"


def obliquify(text: str, topic: Topic, rng: random.Random, chosen: dict) -> str:
    """Rewrite ``text`` with the topic's codenames/synonyms instead of its title words (vocabulary
    mismatch, as in real mail). Keys are whole phrases (longest first); ``chosen`` keeps one alias
    per key within a message. An alias that would repeat a word of the text next to it ('sabbatical
    year' -> 'research year year', 'visiting at Nova in Lisbon' -> '... Nova in Nova') gives way to
    the key's first alias that does not, or the key stays as written. An alias's own article gives
    way to one already there ('the the utility'), an 'a'/'an' before it agrees with it, and it
    starts with a capital at the start of a sentence."""
    pat = _alias_pattern(topic)
    if pat is None or not text:
        return text
    table = {k.lower(): v for k, v in topic.aliases}
    done = ""
    last = 0
    for m in pat.finditer(text):
        left = done + text[last:m.start()]
        key = m.group(1).lower()
        if key not in chosen:
            chosen[key] = rng.choice(table[key])
        near = _content_words(" ".join(_WORDS.findall(left)[-NEIGHBOURS:])) | \
            _content_words(" ".join(_WORDS.findall(text[m.end():])[:NEIGHBOURS]))
        alt = next((a for a in (chosen[key],) + tuple(table[key]) if not (_content_words(a) & near)), None)
        if alt is None:
            alt = m.group(1)
        else:
            mp = _PREV.search(left)   # the word just before (only spaces between)
            prev = mp.group(1).lower() if mp else ""
            first, sep, rest = alt.partition(" ")
            if sep and first.lower() in ("the", "our") and (prev in _DETERMINERS or prev.endswith("'s")):
                alt = rest
            elif first.endswith("'s") and prev in ("the", "a", "an"):   # 'the Nora's magazine'
                left = left[:mp.start(1)]
                prev = ""
            if prev in ("a", "an"):
                art = _article(alt.split(" ", 1)[0])
                art = art.capitalize() if mp.group(1)[0].isupper() else art
                left = left[:mp.start(1)] + art + left[mp.end(1):]
            stripped = left.rstrip(" \t")
            if not stripped or stripped.endswith((".", "!", "?", "\n")):
                alt = alt[0].upper() + alt[1:]
        last = m.end()
        if m.group(1).endswith("s") and text.startswith("'", last) and not text.startswith("'s", last) \
                and not alt.endswith("s"):
            alt += "'s"   # 'Kinetic Labs' sensor' -> 'KL's sensor' (after another key, a quote ends)
            last += 1
        done = left + alt
    return done + text[last:]


def _weighted(rng: random.Random, pairs) -> str:
    names = [p[0] for p in pairs]
    weights = [p[1] for p in pairs]
    return rng.choices(names, weights)[0]


def build_plan(n: int, rng: random.Random) -> list[tuple[str, str]]:
    min_high = 3 if n >= 200 else (1 if n >= 60 else 0)
    items: list[tuple[str, str]] = []
    for t in TOPICS:
        items += [("high", t.id)] * max(min_high, round(n * HIGH_SHARE * t.weight))
    for t in TOPICS:
        items += [("dist", t.id)] * max(1 if n >= 100 else 0, round(n * DIST_SHARE))
    if len(items) > n:
        rng.shuffle(items)
        items = items[:n]
    rest = n - len(items)
    bg_pairs = [(k, w * 0.59 / 69) for k, w in WORK_WEIGHTS] + [(k, w / 100) for k, w in OTHER_WEIGHTS]
    sens_total = sum(w for _, w in SENS_WEIGHTS)
    bg_pairs += [("sens:" + k, w * 0.35 / sens_total) for k, w in SENS_WEIGHTS]
    names = [p[0] for p in bg_pairs]
    weights = [p[1] for p in bg_pairs]
    for name in rng.choices(names, weights, k=rest):
        if name.startswith("sens:"):
            items.append(("sens", name[5:]))
        elif name in ("news", "press", "intl"):
            items.append((name, ""))
        else:
            items.append(("work", name))
    rng.shuffle(items)
    return items


# --- per-message records ----------------------------------------------------------------------
@dataclass(frozen=True)
class Carried:
    """Planted labels carried by some text: sensitive kinds (``mild``: those mentioned in an
    aside), topics it is highly relevant to and topics it mentions in passing; ``asides``: for
    each mild kind, ``(kind, index)`` of the message(s) whose writer wrote the aside (a persona
    flags an aside or not once, the same in every message quoting it)."""
    kinds: tuple = ()
    mild: tuple = ()
    high: tuple = ()
    passing: tuple = ()
    asides: tuple = ()


def _carried(kinds: list, mild: list, high: list, passing: list, asides: list) -> Carried:
    """Unique labels, in order. A kind is mild only if it was never planted as the main content
    (``kinds`` lists it once more than ``mild`` each time it was)."""
    kinds_t = _uniq(kinds)
    mild_t = tuple(k for k in _uniq(mild) if kinds.count(k) <= mild.count(k))
    high_t = _uniq(high)
    return Carried(kinds_t, mild_t, high_t, tuple(t for t in _uniq(passing) if t not in high_t),
                   tuple(a for a in _uniq(asides) if a[0] in mild_t))


@dataclass
class Summary:
    """What a later reply or forward needs to know about a message: ``text`` is what its
    ``body`` carries (a reply quoting it, or a forward copying it inline, carries exactly
    that); ``whole`` adds what only its attached forwarded message carries (a forward
    attaching ``msg`` carries that)."""
    msgid: str
    subject: str
    sender: Person
    to: list
    cc: list
    date: _dt.datetime
    body: str
    text: Carried
    whole: Carried
    refs: tuple
    depth: int
    msg: object
    sticky: Optional[dict] = None  # the slot values its text used (a reply's or forward's start from them)
    theme: Optional[int] = None    # its subject's index in its kind (a reply's text fits the same subject)


@dataclass
class Label:
    """A message's planted labels: what its body carries, with what a forwarded message attached
    to it carries. ``quotes``: the docid of the message whose text it carries (quoted in a reply,
    copied into a forward or attached to it; "" for none); ``attached``: that message is attached
    (so its attachments are carried too), not in the body."""
    docid: str
    kinds: tuple
    mild: tuple
    high: tuple
    passing: tuple
    dist: tuple
    asides: tuple = ()
    quotes: str = ""
    attached: bool = False


def _uniq(seq) -> tuple:
    out = []
    for x in seq:
        if x not in out:
            out.append(x)
    return tuple(out)


_DEVIS = ("Suite à notre échange, je vous envoie le devis révisé pour le revêtement anti-reflet. Les échantillons "
          "partent vendredi.")
_QUOTE = "The quote came in at 12.400 € excluding VAT. Café meeting to discuss?"
INTL = content.paired(
    (("Échantillons de revêtement", (_DEVIS,)),
     ("Devis révisé – Lumière Optique", (_DEVIS,)),
     ("Réunion à Paris", ("Merci pour votre accueil à Portland. Pouvons-nous fixer une réunion à Paris en {month} ?",)),
     ("Återkoppling på kalibrering", ("Tack för senast! The calibration fixture works much better with the new "
                                      "clamp; the spread is down to {pct}.",)),
     ("Café-Treffen nächste Woche?", (_QUOTE,)),
     ("Präsentation für München", ("Die Präsentation für den Kunden in München ist fast fertig; bitte prüfe die "
                                   "Zahlen auf Folie {num}.",)),
     ("Budget 2020 (€)", (_QUOTE,)),
     ("Naïve Bayes results", ("The naïve Bayes baseline gets {pct} accuracy; the façade of the new model is nicer "
                              "but not better.",))),
    n=(1, 2))
INTL_SENDERS = ("ines.moreau", "bjorn.akesson", "francois.dubois", "ingrid.sorensen", "zoe.clarke",
                "lucia.fernandez", "hannah.becker")

KIDS_OF = {"holly.palmer": ("Ava",), "priya.raman": ("Maya", "Rohan"), "tom.brennan": ("Noah", "Grace"),
           "john.snibert": ("Leo", "Emily"), "peter.palmer": ("Ava",), "linda.snibert": ("Emily", "Leo"),
           "arjun.raman": ("Maya", "Rohan"), "kelly.brennan": ("Noah", "Grace")}
FAMILY_OWNERS = (("john.snibert", 4.0), ("holly.palmer", 4.0), ("priya.raman", 1.5), ("tom.brennan", 1.5))
ROMANCE_PAIRS = ((("john.snibert", "carla.benedetti"), 5.0), (("holly.palmer", "peter.palmer"), 2.0),
                 (("priya.raman", "arjun.raman"), 1.0), (("tom.brennan", "kelly.brennan"), 1.0))
CUSTODIAN_WEIGHTS = (("john.snibert", 3.0), ("holly.palmer", 2.5), ("priya.raman", 1.5), ("elena.vasquez", 1.0),
                     ("grace.lindqvist", 1.0), ("tom.brennan", 1.0), ("dave.kowalski", 1.5))
# A booking robot's receipt forwarded by its guest: the guest writes what goes with it (the
# subject of the receipt kind whose paragraphs fit, so its replies fit too).
ROBOT_RECEIPT_THEME = {"skyways.bookings": content.SENSITIVE["receipt"].subjects.index("Fwd: flight receipt"),
                       "harborview.hotel": content.SENSITIVE["receipt"].subjects.index("hotel bill")}
HOLLY_CIRCLE = ("samuel.okafor", "ruth.abernathy", "daniel.cho", "beth.hollis", "john.snibert", "june.hollis")
FOLDER_NAMES = {"inbox": "Inbox", "sent": "Sent Items", "projects": "Projects"}


def x_folder(custodian: str, folder: str) -> str:
    """The X-Folder header of a copy in ``mail/<custodian>/<folder>.mbox``, as an Outlook export
    writes it: ``\\Snibert_John\\Sent Items``."""
    p = BY_KEY[custodian]
    return f"\\{p.last}_{p.first}\\{FOLDER_NAMES[folder]}"


class _Generator:
    def __init__(self, out_dir: Path, n: int, seed: int):
        self.out = out_dir
        self.n = n
        self.seed = seed
        self.rng = random.Random(seed)
        self.noise_rng = random.Random(seed * 7919 + 17)
        self.pools: dict[tuple, list[Summary]] = {}
        self.labels: list[Label] = []
        self.files: dict[tuple[str, str], object] = {}
        self.copies = 0
        self.duplicates = 0
        self.stats: dict[str, int] = {}
        self.workers = [BY_KEY[k] for k in people.WORKERS]
        self.files_written: list[tuple[str, str]] = []

    # ---- helpers --------------------------------------------------------------------------
    def _count(self, key: str, k: int = 1) -> None:
        self.stats[key] = self.stats.get(key, 0) + k

    def _p(self, key: str) -> Person:
        return BY_KEY[key]

    def _worker(self, exclude=()) -> Person:
        while True:
            p = self.rng.choice(self.workers)
            if p.key not in exclude:
                return p

    def _expenses(self, owner: Person) -> Person:
        """Who handles ``owner``'s expense claims (Holly's: the department's administrator)."""
        return self._p("ivan.morozov" if owner.key == "holly.palmer" else
                       self.rng.choice(("lena.fischer", "dolores.martin", "gary.whitman")))

    def _custodian(self) -> Person:
        return self._p(_weighted(self.rng, CUSTODIAN_WEIGHTS))

    def _date(self, i: int, sender: Person, personal: bool) -> _dt.datetime:
        rng = self.rng
        day = START + _dt.timedelta(days=(i * SPAN_DAYS) // max(1, self.n))
        if not personal and day.weekday() >= 5 and rng.random() < 0.85:
            day -= _dt.timedelta(days=day.weekday() - 4)
        if personal:
            hour = rng.choice((7, 8, 12, 17, 18, 19, 20, 21, 22, 23))
        else:
            hour = rng.choice((7, 8, 8, 9, 9, 9, 10, 10, 11, 11, 12, 13, 14, 14, 15, 15, 16, 16, 17, 18, 21, 23))
        return local_time(sender.tz, _dt.datetime(day.year, day.month, day.day, hour, rng.randrange(60),
                                                  rng.randrange(60)))

    def _msgid(self, i: int, sender: Person) -> str:
        rng = self.rng
        client = sender.style.client
        domain = sender.email.split("@", 1)[1]
        if client == "outlook":
            return f"<{rng.getrandbits(64):016X}{i:06d}@EXCH{rng.randrange(1, 5):02d}.{domain}>"
        if client == "webmail":
            return f"<CA+{rng.getrandbits(96):024x}{i:06d}@mail.{domain}>"
        if client == "system":
            return f"<{i:06d}.{rng.getrandbits(48):012x}@mailer.{domain}>"
        if client == "mobile":
            return f"<{rng.getrandbits(32):08X}-{i:06d}-{rng.getrandbits(32):08X}@{domain}>"
        return f"<{rng.getrandbits(32):08x}-{i:06d}.{rng.getrandbits(24):06x}@{domain}>"

    # ---- participants ---------------------------------------------------------------------
    def _work_people(self, cast=None):
        rng = self.rng
        if cast:
            keys = [k for k in cast if BY_KEY[k].style.client != "system"]
            sender = self._p(rng.choice(keys))
            others = [k for k in keys if k != sender.key]
            to = [self._p(k) for k in rng.sample(others, min(len(others), rng.choice((1, 1, 1, 2, 2, 3))))]
            cc = []
            if rng.random() < 0.35:
                rest = [k for k in others if k not in [p.key for p in to]]
                if rest:
                    cc = [self._p(k) for k in rng.sample(rest, min(len(rest), rng.choice((1, 1, 2))))]
            return sender, to, cc
        sender = self._worker()
        to = [self._worker((sender.key,))]
        if rng.random() < 0.3:
            extra = self._worker((sender.key, to[0].key))
            to.append(extra)
        cc = [self._worker((sender.key,) + tuple(p.key for p in to))] if rng.random() < 0.25 else []
        return sender, to, cc

    def _pair(self, kind: str):
        rng = self.rng
        if kind in ("family", "unflattering_family"):
            owner = self._p(_weighted(rng, FAMILY_OWNERS))
            fam = [k for k in owner.family if k != "carla.benedetti"]
            if kind == "unflattering_family" and rng.random() < 0.5:
                other = self._p(rng.choice(HOLLY_CIRCLE[:3]) if owner.key == "holly.palmer" else self._worker(
                    (owner.key,)).key)
            else:
                other = self._p(rng.choice(fam))
        elif kind == "romance":
            a, b = _weighted(rng, ROMANCE_PAIRS)
            owner, other = self._p(a), self._p(b)
        elif kind == "receipt":
            owner = self._p(rng.choice(("holly.palmer", "holly.palmer", "john.snibert", "tom.brennan", "priya.raman")))
            if rng.random() < 0.55:
                return self._p(rng.choice(("skyways.bookings", "harborview.hotel"))), [owner], []
            return owner, [self._expenses(owner)], []
        elif kind == "pii":
            owner = self._custodian()
            if owner.key == "holly.palmer":
                other = self._p("ivan.morozov")
            elif owner.key == "elena.vasquez":
                other = self._worker((owner.key,))
                return other, [owner], []
            else:
                other = self._p(rng.choice(("elena.vasquez", "carol.jennings")))
            return owner, [other], []
        elif kind == "student":
            owner, other = self._p("holly.palmer"), self._p(rng.choice(("ruth.abernathy", "samuel.okafor")))
        elif kind == "litigation":
            owner = self._p("grace.lindqvist")
            other = self._p(rng.choice(("jonathan.kessler", "margaret.osei", "elena.vasquez", "john.snibert",
                                        "megan.oconnell")))
        elif kind == "review":
            owner = self._p(rng.choice(("elena.vasquez", "holly.palmer", "john.snibert", "dave.kowalski")))
            other = self._p(rng.choice(("ruth.abernathy", "samuel.okafor"))) if owner.key == "holly.palmer" \
                else self._worker((owner.key,))
        else:
            owner = self._custodian()
            if owner.key == "holly.palmer":
                other = self._p(rng.choice(HOLLY_CIRCLE))
            else:
                other = self._worker((owner.key,))
        if rng.random() < 0.5 and other.style.client != "system":
            return other, [owner], []
        return owner, [other], []

    # ---- composition ----------------------------------------------------------------------
    def _slots(self, ctx: compose.Ctx, topic: Optional[Topic]) -> None:
        kids = KIDS_OF.get(ctx.sender.key) or KIDS_OF.get(ctx.recipient.key) or content.KIDS
        ctx.extra["kid"] = tuple(kids)
        if topic is not None:
            for name, choices in topic.slots:
                ctx.extra[name] = choices

    @staticmethod
    def _fitting(ctx: compose.Ctx, bank) -> list[str]:
        """The templates of ``bank`` that name no weekday but the message's day (all of them if
        none does: a bank is never left empty)."""
        ok = [p for p in bank if compose.fits(p, ctx)]
        return ok or list(bank)

    @staticmethod
    def _count_for(ctx: compose.Ctx, lo: int, hi: int) -> int:
        return max(lo, min(hi, round(ctx.rng.uniform(lo, hi) * ctx.sender.style.verbosity)))

    def _paras(self, ctx: compose.Ctx, bank, lo: int, hi: int) -> list[str]:
        rng = ctx.rng
        k = self._count_for(ctx, lo, hi)
        bank = self._fitting(ctx, bank)
        k = min(k, len(bank))
        return [compose.fill(p, ctx) for p in rng.sample(bank, k)]

    def _kind_text(self, ctx: compose.Ctx, kd: Kind, theme: Optional[int], lo: int, hi: int):
        """``(theme, subject, paragraphs)`` of a message of kind ``kd``: ``theme`` is the index of
        its subject (a reply or forward keeps its parent's, so its paragraphs fit the subject it
        answers). A kind without leads takes any of its paragraphs."""
        rng = ctx.rng
        if not kd.leads:
            subject = compose.fill(rng.choice(kd.subjects), ctx)
            return None, subject, self._paras(ctx, kd.paras, lo, hi)
        i = theme if theme is not None and theme < len(kd.subjects) else rng.randrange(len(kd.subjects))
        subject = compose.fill(kd.subjects[i], ctx)
        k = self._count_for(ctx, lo, hi)
        first = rng.choice(self._fitting(ctx, kd.lead_paras(i)))
        paras = [compose.fill(first, ctx)]
        more = [p for p in self._fitting(ctx, kd.more_paras(i)) if p != first and compose.fits(p, ctx)]
        paras += [compose.fill(p, ctx) for p in rng.sample(more, min(k - 1, len(more)))] if k > 1 else []
        return i, subject, paras

    def _insert(self, paras: list[str], sentence: str, rng: random.Random) -> None:
        if paras and rng.random() < 0.5:
            j = rng.randrange(len(paras))
            paras[j] = paras[j] + " " + sentence
        else:
            paras.insert(rng.randrange(len(paras) + 1), sentence)

    def _compose(self, cat: str, arg: str, ctx: compose.Ctx, kinds: list, mild: list, high: list,
                 passing: list, dist: list, reply: bool, theme: Optional[int] = None, broadcast: bool = False):
        """Authored paragraphs and a fresh subject for a plan item, and the subject's index in its
        kind (``theme``: a reply or forward passes its parent's); appends planted labels.
        ``broadcast``: the message is from a system or to all staff (no personal openers or
        closers, no asides, decoys or passing mentions)."""
        rng = ctx.rng
        topic = TOPICS_BY_ID.get(arg) if cat in ("high", "dist") else None
        self._slots(ctx, topic)
        subject = ""
        theme = theme if cat in ("work", "sens", "intl") else None
        aside_p, decoy_p, passing_p = 0.09, 0.2, 0.22
        if cat == "high":
            high.append(topic.id)
            subject = compose.fill(rng.choice(topic.subjects), ctx)
            paras = self._paras(ctx, topic.high, 1, 2 if reply else 3)
            if rng.random() < topic.sens_share:
                sens = [(k, t) for k, t in topic.sens if compose.fits(t, ctx)]
                if sens:
                    kind, sent = rng.choice(sens)
                    self._insert(paras, compose.fill(sent, ctx), rng)
                    kinds.append(kind)
            if topic.aliases and rng.random() < OBLIQUE_RATE:
                chosen: dict = {}
                subject = obliquify(subject, topic, rng, chosen)
                paras = [obliquify(p, topic, rng, chosen) for p in paras]
                self._count("oblique_relevant")
            aside_p = 0.025
        elif cat == "dist":
            dist.append(topic.id)
            if rng.random() < ECHO_RATE:
                subj, para = rng.choice(ECHO_DISTRACTORS)
                ctx.extra["title"] = topic.title
                subject = compose.fill(subj, ctx)
                paras = [compose.fill(para, ctx)]   # (a paragraph of the topic's would not fit it)
                self._count("echo_distractors")
            else:
                theme, subject, paras = self._kind_text(ctx, _distractor_kind(topic), None, 1, 2)
            decoy_p = 0.3
        elif cat == "work":
            kd: Kind = content.WORK[arg]
            theme, subject, paras = self._kind_text(ctx, kd, theme, kd.n[0], kd.n[1])
            if reply and rng.random() < 0.45:
                paras = []
            decoy_p = 0.28
        elif cat == "intl":
            theme, subject, paras = self._kind_text(ctx, INTL, theme, INTL.n[0], INTL.n[1])
        elif cat == "sens":
            kinds.append(arg)
            aside_p, decoy_p, passing_p = 0.03, 0.05, 0.03
            if arg == "receipt" and ctx.sender.key in content.SYSTEM_RECEIPTS:
                # the receipt itself, then what goes with its subject
                kd = content.SYSTEM_RECEIPTS[ctx.sender.key]
                theme, subject, paras = self._kind_text(ctx, kd, theme, 1, 2)
                return subject, [compose.fill(kd.paras[0], ctx)] + paras, theme
            kd = content.SENSITIVE[arg]
            theme, subject, paras = self._kind_text(ctx, kd, theme, kd.n[0], 2 if reply else kd.n[1])
        else:
            raise ValueError(cat)
        if broadcast:
            aside_p = decoy_p = passing_p = 0.0
        elif cat in ("high", "work", "dist", "intl"):
            if rng.random() < 0.35:
                op = compose.fill(rng.choice(content.OPENERS), ctx)
                if op:
                    paras.insert(0, op)
            if rng.random() < 0.35:
                cl = compose.fill(rng.choice(content.CLOSERS), ctx)
                if cl:
                    paras.append(cl)
        if rng.random() < aside_p:
            kind = _weighted(rng, ASIDE_WEIGHTS)
            sentences = [a for a in content.ASIDES[kind] if compose.fits(a, ctx)]
            if sentences:
                self._insert(paras, compose.fill(rng.choice(sentences), ctx), rng)
                kinds.append(kind)
                mild.append(kind)
        if rng.random() < decoy_p:
            self._insert(paras, compose.fill(rng.choice(self._fitting(ctx, content.DECOYS)), ctx), rng)
        if rng.random() < passing_p:
            t = rng.choices(TOPICS, [x.weight for x in TOPICS])[0]
            sentences = [p for p in t.passing if compose.fits(p, ctx)]
            if t.id not in high and sentences:
                self._insert(paras, compose.fill(rng.choice(sentences), ctx), rng)
                passing.append(t.id)
        if reply:
            paras.insert(0, rng.choice(content.REPLY_LINES))
        return subject, paras, theme

    # ---- quoting --------------------------------------------------------------------------
    @staticmethod
    def _names(ps) -> str:
        return "; ".join(p.name for p in ps)

    def _quote(self, parent: Summary, style: str) -> str:
        when = parent.date.strftime("%a, %b %d, %Y at %I:%M %p")
        if style == "outlook":
            head = (f"-----Original Message-----\nFrom: {parent.sender.name}\nSent: {when}\n"
                    f"To: {self._names(parent.to)}\n")
            if parent.cc:
                head += f"Cc: {self._names(parent.cc)}\n"
            return head + f"Subject: {parent.subject}\n\n{parent.body}"
        lines = parent.body.rstrip("\n").split("\n")
        quoted = "\n".join(">" + ln if ln.startswith(">") or not ln else "> " + ln for ln in lines)
        return f"On {when}, {parent.sender.name} <{parent.sender.email}> wrote:\n{quoted}\n"

    def _forward_block(self, parent: Summary, style: str) -> str:
        when = parent.date.strftime("%a, %b %d, %Y at %I:%M %p")
        if style == "outlook":
            return (f"-----Original Message-----\nFrom: {parent.sender.name} [mailto:{parent.sender.email}]\n"
                    f"Sent: {when}\nTo: {self._names(parent.to)}\nSubject: {parent.subject}\n\n{parent.body}")
        return (f"---------- Forwarded message ---------\nFrom: {parent.sender.name} <{parent.sender.email}>\n"
                f"Date: {when}\nSubject: {parent.subject}\nTo: {', '.join(p.email for p in parent.to)}\n\n"
                f"{parent.body}")

    # ---- one message ----------------------------------------------------------------------
    def make(self, i: int, cat: str, arg: str) -> None:
        rng = self.rng
        key = (cat, arg)
        pool = self.pools.get(key)
        mode = "new"
        if pool and cat in ("high", "work", "sens"):
            r = rng.random()
            p_reply = {"high": 0.45, "work": 0.3, "sens": 0.3}[cat]
            if r < p_reply:
                mode = "reply"
            elif r < p_reply + 0.08:
                mode = "forward"
        parent: Optional[Summary] = None
        topic = TOPICS_BY_ID.get(arg) if cat in ("high", "dist") else None
        personal = cat == "sens" and arg in ("family", "romance", "unflattering_family", "stigmatised")

        if mode != "new":
            parent = pool[-1 - min(int(rng.expovariate(0.8)), len(pool) - 1)]
            recips = [p for p in parent.to + parent.cc if p.style.client != "system" and p.key != "all-staff"]
            if not recips:
                mode, parent = "new", None
            elif rng.random() < 0.7:
                pool.remove(parent)     # most messages get one answer; some get several
        robot = parent is not None and parent.sender.style.client == "system"
        if mode == "reply" and robot:
            mode = "forward"    # nobody answers a no-reply robot: its mail is passed on
        if mode == "reply":
            sender = rng.choice(recips)
            to = [parent.sender]
            others = [p for p in parent.to if p.key not in (sender.key, parent.sender.key)]
            reply_all = rng.random() < 0.4
            if reply_all:
                to += others
            cc = [p for p in parent.cc if p.key != sender.key] if reply_all else []
        elif mode == "forward":
            sender = rng.choice(recips if robot else recips + [parent.sender])
            if cat == "high":
                cands = [k for k in topic.cast if k not in (sender.key,) and BY_KEY[k].style.client != "system"]
                to = [self._p(rng.choice(cands))] if cands else [self._worker((sender.key,))]
            elif cat == "sens" and sender.key in ("john.snibert", "holly.palmer", "priya.raman", "tom.brennan") \
                    and arg in ("family", "romance", "receipt") and rng.random() < 0.5:
                fam = [k for k in sender.family if k != "carla.benedetti"]
                to = [self._p(rng.choice(fam))] if fam else [self._worker((sender.key,))]
            elif robot and cat == "sens" and arg == "receipt":
                to = [self._expenses(sender)]   # a booking's receipt goes to whoever pays expenses
            else:
                to = [self._worker((sender.key, parent.sender.key))]
            cc = []
        elif cat == "high":
            sender, to, cc = self._work_people(topic.cast)
        elif cat == "sens":
            sender, to, cc = self._pair(arg)
        elif cat == "news":
            sender, to, cc = self._p("sensor.weekly"), [self._custodian()], []
        elif cat == "press":
            sender, to, cc = self._p("derek.osborne"), [ALL_STAFF], []
        elif cat == "intl":
            sender = self._p(rng.choice(INTL_SENDERS))
            to = [self._custodian() if sender.key == "ines.moreau" else self._worker((sender.key,))]
            cc = []
        elif cat == "work" and arg == "seminar":
            sender, to, cc = self._p(rng.choice(("ruth.abernathy", "daniel.cho", "ivan.morozov"))), \
                [self._p("holly.palmer")], []
        elif cat == "work" and arg == "vendor":
            sender, to, cc = self._p(rng.choice(("paul.mendes", "ines.moreau", "brad.nolan"))), [self._custodian()], []
            if to[0].key == "holly.palmer":
                to = [self._p("john.snibert")]
        elif cat == "work" and arg == "it_notice":
            sender, to, cc = self._p(rng.choice(("it.helpdesk", "kevin.obrien"))), [ALL_STAFF], []
        elif cat == "work" and arg == "facilities":
            sender, to, cc = self._p(rng.choice(("walter.huang", "dolores.martin"))), [ALL_STAFF], []
        else:
            sender, to, cc = self._work_people()

        # make sure a mailbox owner is involved
        involved = [sender] + to + cc
        if not any(p.key in CUSTODIANS for p in involved) and not any(p.key == "all-staff" for p in involved):
            c = self._p(rng.choice(INTERNAL_CUSTODIANS))
            if c.key not in [p.key for p in involved]:
                cc = cc + [c]

        date = self._date(i, sender, personal)
        if parent is not None:
            # replies and forwards follow their parent within minutes to a few days
            delay = _dt.timedelta(minutes=int(rng.expovariate(1 / 240)) + 3)
            when = parent.date + delay
            date = in_zone(sender.tz, when)
        ctx = compose.Ctx(rng, sender, to[0] if to else sender, date)
        if parent is not None and parent.sticky:
            ctx.sticky.update(parent.sticky)   # the same day, time, customer... as the message it answers
        broadcast = sender.style.client == "system" or any(p.key == "all-staff" for p in to + cc)

        kinds: list = []
        mild: list = []
        high: list = []
        passing: list = []
        dist: list = []
        theme = parent.theme if parent else None
        if robot and cat == "sens" and arg == "receipt":
            theme = ROBOT_RECEIPT_THEME[parent.sender.key]
        asides: list = []
        if cat not in ("news", "press"):
            subject, paras, theme = self._compose(cat, arg, ctx, kinds, mild, high, passing, dist,
                                                  reply=mode == "reply", theme=theme, broadcast=broadcast)
        elif cat == "news":
            subject = compose.fill(rng.choice(content.NEWSLETTER_SUBJECTS), ctx)
            paras = [compose.fill(p, ctx) for p in rng.sample(content.NEWSLETTER_PARAS, 3)]
        elif cat == "press":
            subject, texts = rng.choice(content.PRESS)
            subject = compose.fill(subject, ctx)
            paras = [compose.fill(p, ctx) for p in texts]

        asides += [(k, i) for k in mild]   # the asides this message's writer wrote
        style = sender.style.quote
        client = sender.style.client
        in_reply_to, refs, depth = "", (), 0
        nested = None
        attached = Carried()   # what an attached forwarded message carries (not in the body)
        if sender.style.client == "system":
            body = "\n\n".join(paras) + "\n"
        else:
            body = compose.letter(ctx, paras)
        quotes, whole_parent = "", False
        if mode == "reply":
            subject = reply_subject(parent.subject, client)
            if rng.random() < 0.88:
                in_reply_to = parent.msgid
                refs = (parent.refs + (parent.msgid,))[-8:]
            if rng.random() < 0.88:  # most people keep the quoted text
                body = body + "\n" + self._quote(parent, style)
                # the quote is the parent's body: what its body carries, not its attachments
                kinds += parent.text.kinds
                mild += parent.text.mild
                asides += parent.text.asides
                passing += [t for t in parent.text.high + parent.text.passing if t not in high]
                quotes = parent.msgid
            depth = parent.depth + 1
            self._count("replies")
        elif mode == "forward":
            subject = ("FW: " if client == "outlook" else "Fwd: ") + parent.subject
            if rng.random() < 0.3:
                # the whole parent message attached: its body and its own attachments, but not
                # in this message's body (a reply to this one does not quote it)
                nested = parent.msg
                attached = parent.whole
                whole_parent = True
                self._count("rfc822_forwards")
            else:
                body = body + "\n" + self._forward_block(parent, style)
                kinds += parent.text.kinds
                mild += parent.text.mild
                asides += parent.text.asides
                passing += [t for t in parent.text.high + parent.text.passing if t not in high]
            quotes = parent.msgid
            if robot:
                self._count("robot_forwards")
            depth = parent.depth + 1
            self._count("forwards")

        msgid = self._msgid(i, sender)
        # delivery
        bcc = []
        placements: list[tuple[str, str]] = []
        if sender.key in CUSTODIANS:
            placements.append((sender.key, "sent"))
            if rng.random() < 0.05 and cat in ("high", "work"):
                bcc = [self._worker(tuple(p.key for p in [sender] + to + cc))]
        if not bcc:
            proj = people.PROJECT_FOLDER_TOPICS
            seen = {sender.key}
            for p in to + cc:
                if p.key in seen:
                    continue
                seen.add(p.key)
                if p.key in CUSTODIANS and (not placements or rng.random() < 0.85):
                    folder = "projects" if any(t in proj.get(p.key, ()) for t in high) else "inbox"
                    placements.append((p.key, folder))
            if any(p.key == "all-staff" for p in to):
                for c in rng.sample(INTERNAL_CUSTODIANS, rng.randrange(1, 3)):
                    if c != sender.key:
                        placements.append((c, "inbox"))
        if not placements:
            c = next(p for p in to + cc if p.key in CUSTODIANS) if any(p.key in CUSTODIANS for p in to + cc) \
                else self._p(INTERNAL_CUSTODIANS[0])
            placements.append((c.key, "inbox"))

        extra = []
        if client == "outlook":
            if subject.isascii():
                extra.append(("Thread-Topic", subject.split(": ", 1)[-1] if mode != "new" else subject))
            if (cat == "high" and arg == "7" and rng.random() < 0.6) or rng.random() < 0.02:
                extra += [("X-Priority", "1 (Highest)"), ("Importance", "High")]
                self._count("priority_high")
            if ("litigation" in kinds + list(attached.kinds) or (cat == "high" and arg in ("9", "14"))) \
                    and rng.random() < 0.5:
                extra.append(("Sensitivity", "Company-Confidential"))
            elif cat == "sens" and arg in ("family", "romance", "health") and rng.random() < 0.4:
                extra.append(("Sensitivity", "Personal"))
        if cat == "news":
            extra.append(("List-Unsubscribe", "<mailto:unsubscribe@sensorweekly.example.com>"))
            extra.append(("Precedence", "bulk"))

        # MIME shape
        html_only = alternative = False
        charset = sender.charset
        if client == "outlook":
            alternative = rng.random() < 0.7
            html_only = not alternative and rng.random() < 0.08
            cte = "qp" if rng.random() < 0.6 else "7bit"
        elif client == "thunderbird":
            cte = "8bit" if rng.random() < 0.6 else "qp"
        elif client == "apple":
            alternative = rng.random() < 0.4
            cte = "qp"
        elif client == "webmail":
            alternative = rng.random() < 0.85
            cte = "qp" if rng.random() < 0.6 else "b64"
        elif client == "mobile":
            cte = "b64" if rng.random() < 0.5 else "8bit"
        else:  # system
            html_only = cat in ("news",) or rng.random() < 0.5
            alternative = not html_only
            cte = "b64" if rng.random() < 0.5 else "qp"
        if cat == "press":
            html_only, alternative = False, True

        attachments = []
        self._attachments(cat, arg, topic, ctx, paras, attachments, kinds)
        if attachments:
            self._count("attachments", len(attachments))

        mail = mime.Mail(idx=i, msgid=msgid, date=date, sender=sender, to=to, cc=cc, bcc=bcc, subject=subject,
                         body=body, client=client, in_reply_to=in_reply_to, references=refs,
                         extra_headers=extra, attachments=attachments, nested=nested, html_only=html_only,
                         alternative=alternative, charset=charset, cte=cte)
        msg = mime.build(mail, rng)
        data = mime.serialise(msg)
        for c, folder in placements:
            # every copy names the folder it is in, the same way for every copy of a folder
            copy = mime.with_x_folder(data, x_folder(c, folder))
            self._write(c, folder, mime.mboxrd_entry(sender.email, date, copy))
        self.copies += len(placements)
        self.duplicates += len(placements) - 1
        self._stats_mime(mail, subject)

        text = _carried(kinds, mild, high, passing, asides)
        whole = _carried(kinds + list(attached.kinds), mild + list(attached.mild), high,
                         passing + [t for t in attached.high + attached.passing if t not in high],
                         asides + list(attached.asides))
        self.labels.append(Label(msgid[1:-1], whole.kinds, whole.mild, whole.high, whole.passing, _uniq(dist),
                                 whole.asides, quotes[1:-1], whole_parent))
        summary = Summary(msgid, subject, sender, to, cc, date, body, text, whole, refs, depth, msg,
                          dict(ctx.sticky), theme)
        if depth < 3 and not bcc:
            pool = self.pools.setdefault(key, [])
            pool.append(summary)
            if len(pool) > 6:
                del pool[0]

    def _attachments(self, cat, arg, topic, ctx, paras, out, kinds) -> None:
        rng = ctx.rng
        if cat == "high" and topic.attach and rng.random() < 0.3:
            a = rng.choice(topic.attach)
            slug = topic.title.split()[0] if topic.title[0].isupper() else topic.title.split()[-1]
            if a == "notes":
                out.append(att.notes(ctx, topic.title, [compose.fill(p, ctx) for p in
                                                        rng.sample(topic.high, min(3, len(topic.high)))]))
            elif a == "pdf":
                out.append(att.pdf(rng, f"{slug.lower()}_v{rng.randrange(1, 9)}.pdf"))
            elif a == "budget_csv":
                out.append(att.budget_csv(ctx, f"{slug.lower()}_budget_{ctx.date.year}"))
            elif a == "html":
                out.append(att.html_page(ctx, topic.title, [compose.fill(p, ctx) for p in topic.high[:2]]))
        elif cat == "work":
            r = rng.random()
            if arg == "scheduling" and r < 0.25:
                out.append(att.calendar(ctx, "Sync"))
            elif arg == "design_review" and r < 0.35:
                out.append(att.png(rng, f"layout_{rng.randrange(1, 40)}.png") if r < 0.15 else
                           att.pdf(rng, "design_review.pdf"))
            elif arg == "status" and r < 0.2:
                out.append(att.notes(ctx, "status notes", paras[:3]) if r < 0.1 else
                           att.octet(rng, f"scan_{rng.randrange(1, 9999):04d}.spc"))
            elif arg == "doc_edit" and r < 0.5:
                out.append(att.pdf(rng, "draft_v2.pdf"))
            elif arg == "expenses" and r < 0.4:
                out.append(att.expenses_csv(ctx, with_cards=False))
        elif cat == "sens":
            r = rng.random()
            if arg == "receipt":
                if r < 0.5:
                    out.append(att.pdf(rng, f"receipt_{compose.fill('{booking}', ctx)}.pdf"))
                if rng.random() < 0.35:
                    out.append(att.expenses_csv(ctx, with_cards=True))
            elif arg == "pii" and r < 0.4:
                out.append(att.pdf(rng, "direct_deposit_form.pdf"))
            elif arg == "review" and r < 0.3:
                out.append(att.notes(ctx, "confidential evaluation", paras))

    def _stats_mime(self, mail: mime.Mail, subject: str) -> None:
        if mail.html_only:
            self._count("html_only")
        if mail.alternative:
            self._count("multipart_alternative")
        if mail.nested is not None or mail.attachments:
            self._count("multipart_mixed")
        if not subject.isascii():
            self._count("rfc2047_subjects")
        if not mail.sender.name.isascii():
            self._count("rfc2047_names")
        if mail.cte == "b64":
            self._count("base64_bodies")
        if mail.cte == "qp":
            self._count("qp_bodies")
        if mail.bcc:
            self._count("bcc")
        if mail.in_reply_to:
            self._count("in_reply_to")

    def _write(self, custodian: str, folder: str, entry: bytes) -> None:
        f = self.files.get((custodian, folder))
        if f is None:
            d = self.out / "mail" / custodian
            d.mkdir(parents=True, exist_ok=True)
            f = self.files[(custodian, folder)] = open(d / f"{folder}.mbox", "wb")
        f.write(entry)

    def close(self) -> None:
        self.files_written = sorted(self.files)
        for f in self.files.values():
            f.close()
        self.files.clear()


TOPICS_BY_ID = {t.id: t for t in TOPICS}
_DIST_KINDS: dict[str, Kind] = {}


def _distractor_kind(topic: Topic) -> Kind:
    """A topic's distractors as a kind whose subjects each have their own paragraphs
    (``topic.dleads``; by default subject i goes with paragraph i)."""
    kd = _DIST_KINDS.get(topic.id)
    if kd is None:
        leads = topic.dleads or tuple((i,) for i in range(len(topic.dsubjects)))
        kd = _DIST_KINDS[topic.id] = Kind(topic.dsubjects, topic.distractor, (1, 2), leads)
    return kd


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def check_arguments(n_messages, seed) -> tuple[int, int]:
    """``(n_messages, seed)`` as ints, or InputError: whole numbers, 1 <= n_messages <=
    :data:`MAX_MESSAGES` (the plan and the labels are held in memory), seed >= 0 (random.Random
    takes a seed's absolute value, so -7 would write seed 7's mail with other judgments)."""
    def whole(value, what: str) -> int:
        if isinstance(value, bool):
            raise InputError(f"{what} must be a whole number, got {value!r}")
        try:
            return operator.index(value)
        except TypeError:
            raise InputError(f"{what} must be a whole number, got {value!r}") from None
    n = whole(n_messages, "the number of demo messages")
    if not 1 <= n <= MAX_MESSAGES:
        raise InputError(f"the number of demo messages must be between 1 and {MAX_MESSAGES:,}, got {n:,}")
    s = whole(seed, "the demo seed")
    if s < 0:
        raise InputError(f"the demo seed must be 0 or more, got {s} (a negative seed would write the mail of "
                         f"seed {-s} with other judgments)")
    return n, s


def generate(out_dir, n_messages: int = 3000, seed: int = 20261122, progress=None) -> dict:
    """Write a deterministic demo collection into ``out_dir`` and return a summary.

    Same ``seed`` and ``n_messages`` give byte-identical files. ``n_messages`` counts unique
    messages (Message-IDs); copies of a message in the sender's sent folder and in recipients'
    inboxes are extra, identical but for the X-Folder header naming each copy's folder.
    Arguments out of range (see :func:`check_arguments`) are an InputError, before anything
    is written.
    """
    out = Path(out_dir)
    n, seed = check_arguments(n_messages, seed)
    prog = _progress.ensure(progress)
    out.mkdir(parents=True, exist_ok=True)
    mail_dir = out / "mail"
    if mail_dir.exists():
        for old in sorted(mail_dir.glob("*/*.mbox")):
            old.unlink()
    gen = _Generator(out, n, seed)
    plan = build_plan(n, gen.rng)
    step = max(1, min(500, n // 100))
    prog.update(0, n, "Writing demo messages")
    try:
        for i, (cat, arg) in enumerate(plan):
            gen.make(i, cat, arg)
            if (i + 1) % step == 0:
                prog.update(i + 1, n, "Writing demo messages")
    finally:
        gen.close()
    prog.update(n, n, "Writing labels")
    return _write_labels(out, gen, n, seed)


def judge(labs: list, rng: random.Random) -> dict[str, list[tuple[tuple, int]]]:
    """Each persona's judgment of each message: ``(reasons, level)``, the reasons (sorted) its
    planted kinds give the persona, and the level written (1 sensitive), which is 1 exactly when
    there are reasons but for label noise (:data:`NOISE_RATE` of the levels flipped, at random).

    A kind only mentioned in an aside is borderline: the persona flags it with probability
    :data:`MILD_FLAG_RATE`, once for the aside, so a reply or forward carrying that text is
    judged for it as the message its writer wrote it in. A message carrying a parent's text
    thereby has every reason its parent has (before noise)."""
    flags: dict[tuple, bool] = {}

    def flagged(persona: str, aside: tuple) -> bool:
        key = (persona,) + tuple(aside)
        got = flags.get(key)
        if got is None:
            got = flags[key] = rng.random() < MILD_FLAG_RATE
        return got

    out: dict[str, list[tuple[tuple, int]]] = {}
    for persona in labels.PERSONAS:
        rows = []
        for lab in labs:
            kinds = [k for k in lab.kinds if k not in lab.mild]
            for k in lab.mild:
                votes = [flagged(persona, a) for a in lab.asides if a[0] == k]   # (every aside drawn)
                if any(votes):
                    kinds.append(k)
            reasons = tuple(labels.sensitive_reasons(persona, kinds))
            level = 1 if reasons else 0
            if rng.random() < NOISE_RATE:
                level = 1 - level
            rows.append((reasons, level))
        out[persona] = rows
    return out


def reply_subject(parent: str, client: str) -> str:
    """A reply's subject, as mail programs write it: "Re: " ("RE: " from Outlook) before the
    parent's subject with a leading "Re: "/"RE: " taken off, so a reply to "Fwd: Progress report"
    is "Re: Fwd: Progress report" and a reply to a reply stays "Re: ..."."""
    for pre in ("Re: ", "RE: "):
        if parent.startswith(pre):
            parent = parent[len(pre):]
            break
    return ("RE: " if client == "outlook" else "Re: ") + parent


def _write_labels(out: Path, gen: _Generator, n: int, seed: int) -> dict:
    labs = gen.labels
    # topics
    topics_path = out / "topics.json"
    topics_path.write_text(json.dumps([t.public() for t in TOPICS], indent=2, ensure_ascii=False) + "\n",
                           encoding="utf-8")
    # sensitivity with label noise
    judged = judge(labs, gen.noise_rng)
    persona_labels = {p: [level for _, level in judged[p]] for p in labels.PERSONAS}
    reason_rows = [(lab.docid, persona, r) for persona in labels.PERSONAS
                   for lab, (reasons, level) in zip(labs, judged[persona]) if level for r in reasons]
    sens_path = out / "sensitivity.txt"
    with open(sens_path, "w", encoding="ascii", newline="\n") as f:
        for persona in labels.PERSONAS:
            for lab, level in zip(labs, persona_labels[persona]):
                f.write(f"{persona} {lab.docid} {level}\n")
    reasons_path = out / "reasons.tsv"
    with open(reasons_path, "w", encoding="ascii", newline="\n") as f:
        f.write("docid\tpersona\treason\n")
        for docid, persona, r in reason_rows:
            f.write(f"{docid}\t{persona}\t{r}\n")
    # qrels: pool = relevant + planted distractors + random judged negatives
    pool_rng = random.Random(seed * 31 + 7)
    rel: dict[str, dict[int, int]] = {t.id: {} for t in TOPICS}
    for idx, lab in enumerate(labs):
        for t in lab.passing:
            rel[t][idx] = 1
        for t in lab.high:
            rel[t][idx] = 2
        for t in lab.dist:
            rel[t].setdefault(idx, 0)
    qrels_path = out / "qrels.txt"
    n_qrels = 0
    per_topic = {}
    with open(qrels_path, "w", encoding="ascii", newline="\n") as f:
        for t in TOPICS:
            judged = rel[t.id]
            n_rel = sum(1 for v in judged.values() if v > 0)
            extra = max(5, n_rel // 3)
            for _ in range(min(extra, len(labs))):
                j = pool_rng.randrange(len(labs))
                judged.setdefault(j, 0)
            for idx in sorted(judged):
                f.write(f"{t.id} 0 {labs[idx].docid} {judged[idx]}\n")
                n_qrels += 1
            counts = {g: sum(1 for v in judged.values() if v == g) for g in (0, 1, 2)}
            rs = {}
            for persona in labels.PERSONAS:
                relevant = [i for i, v in judged.items() if v > 0]
                rs[persona] = round(sum(persona_labels[persona][i] for i in relevant) / len(relevant), 3) \
                    if relevant else 0.0
            per_topic[t.id] = {"title": t.title, "rel2": counts[2], "rel1": counts[1], "rel0": counts[0],
                               "relevant_sensitive_share": rs}
    sens_share = {p: round(sum(v) / len(v), 4) if v else 0.0 for p, v in persona_labels.items()}
    disagree = sum(1 for a, b in zip(*[persona_labels[p] for p in labels.PERSONAS]) if a != b)
    mailboxes = sorted(f"mail/{c}/{folder}.mbox" for c, folder in gen.files_written)
    counts = {
        "unique_messages": n,
        "message_copies": gen.copies,
        "duplicate_copies": gen.duplicates,
        "mailboxes": len(mailboxes),
        "topics": len(TOPICS),
        "qrels": n_qrels,
        "reasons_rows": len(reason_rows),
        "persona_disagreements": disagree,
        **{k: gen.stats[k] for k in sorted(gen.stats)},
    }
    written = mailboxes + ["topics.json", "qrels.txt", "sensitivity.txt", "reasons.tsv"]
    hashes = {name: _sha256(out / name) for name in written}
    manifest = {"format_version": FORMAT_VERSION, "generator": "sasc_desktop.engine.demo", "seed": seed,
                "n_messages": n, "personas": list(labels.PERSONAS), "counts": counts,
                "sensitive_share": sens_share, "files": hashes}
    manifest_path = out / "manifest.json"
    manifest_path.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return {
        "out_dir": str(out), "seed": seed, "n_messages": n, "counts": counts, "sensitive_share": sens_share,
        "topics": per_topic,
        "files": {"mailboxes": [str(out / m) for m in mailboxes], "topics": str(topics_path),
                  "qrels": str(qrels_path), "sensitivity": str(sens_path), "reasons": str(reasons_path),
                  "manifest": str(manifest_path)},
    }
