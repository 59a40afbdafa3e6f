"""Every planted judgment of the demo collection has its evidence in the message's text.

The generator plants a sensitive kind by writing one of that kind's template sentences
(content.SENSITIVE, content.ASIDES, content.SYSTEM_RECEIPTS, a topic's ``sens``) and a topic by
writing one of the topic's ``high`` (highly relevant) or ``passing`` (a mention) sentences; a
reply quoting a message, or a forward copying it inline, carries what the quoted text carries;
a forward with the original attached (message/rfc822) carries what the attachment carries.

The check reads each message as the import does (``ingest.parse.parse_message``: body text and
attachment texts) and looks for a template sentence with every literal word of it, in order,
allowing for what the generator does to a sentence:

* slots (``{colleague}``, ``{card}``...) are any run of at most 14 words (a word glued to a slot,
  as ``0{num}``, is part of the slot's value);
* one typo per word of five letters or more, as ``compose.add_typos`` makes (two letters swapped,
  one dropped or one doubled); case, line wrapping, quoting marks and HTML are ignored;
* in a topic's own sentences, a key of the topic's aliases may be written as any of its aliases
  (with or without the alias's leading "the"/"our", with an "s" after it), and an article before
  it may change or go (the codename rewrite, ``obliquify``).

Nothing else is allowed. Evidence must be in the body, except for a message with a forwarded
message attached, whose evidence may be in that attachment's text.
"""
from __future__ import annotations

import collections
import mailbox
import re
from pathlib import Path

import pytest
from demo_capture import generate_with_labels

from sasc_desktop.engine.demo import content, labels
from sasc_desktop.engine.demo.topics import TOPICS
from sasc_desktop.engine.ingest.parse import parse_message

SEEDS = (20261122, 7)
N = 1500

_TOK = re.compile(r"[a-z]+|[0-9]+")
_SLOT = re.compile(r"\{[a-z_0-9]+\}")
GAP = r"(?:\S+ ){0,14}"
ARTICLES = ("the", "our", "a", "an")


def tokens(text: str) -> list[str]:
    return _TOK.findall(text.lower())


def typo_variants(word: str) -> set[str]:
    """``word`` and every one-typo variant ``compose.add_typos`` can make of it."""
    out = {word}
    if len(word) >= 5 and word.isalpha():
        for j in range(1, len(word) - 1):
            out.add(word[:j] + word[j + 1] + word[j] + word[j + 2:])
            out.add(word[:j] + word[j + 1:])
            out.add(word[:j] + word[j] + word[j:])
    return out


def _word(word: str) -> str:
    if word in ("a", "an"):
        return "(?:a|an) "
    return "(?:" + "|".join(sorted(typo_variants(word), key=lambda v: (-len(v), v))) + ") "


def literal_words(text: str) -> list[str]:
    """The words of a template that are not slots (nor glued to one)."""
    chunks = _SLOT.split(text)
    out = []
    for i, chunk in enumerate(chunks):
        toks = tokens(chunk)
        if i and toks and chunk[:1].isalnum():
            toks = toks[1:]
        if i < len(chunks) - 1 and toks and chunk[-1:].isalnum():
            toks = toks[:-1]
        out += toks
    return out


def _seq(text: str) -> str:
    chunks = _SLOT.split(text)
    parts = []
    for i, chunk in enumerate(chunks):
        if i:
            parts.append(GAP)
        toks = tokens(chunk)
        if i and toks and chunk[:1].isalnum():
            toks = toks[1:]      # glued to the slot before it: part of the slot's value
        if i < len(chunks) - 1 and toks and chunk[-1:].isalnum():
            toks = toks[:-1]
        parts += [_word(t) for t in toks]
    return "".join(parts)


def template_re(text: str, aliases=()) -> str:
    """The pattern of one template sentence (see the module docstring)."""
    if not aliases:
        return _seq(text)
    keys = sorted((k for k, _ in aliases), key=len, reverse=True)
    table = {k.lower(): v for k, v in aliases}
    pat = re.compile(r"(?<![\w-])(" + "|".join(re.escape(k) for k in keys) + r")(?![\w-])", re.I)
    out, last = [], 0
    for m in pat.finditer(text):
        before = _seq(text[last:m.start()])
        for art in ARTICLES:  # an article just before the key may go or change with the alias
            w = _word(art)
            if before.endswith(w):
                before = before[:-len(w)] + "(?:(?:the|our|a|an) )?"
                break
        out.append(before)
        alts = [_seq(m.group(1))]
        for a in table[m.group(1).lower()]:
            alts.append(_seq(a))
            first, _, rest = a.partition(" ")
            if first.lower() in ARTICLES and rest:
                alts.append(_seq(rest))
        out.append("(?:" + "|".join(alts) + ")(?:s )?")   # ("Kinetic Labs' sensor" -> "KL's sensor")
        last = m.end()
    out.append(_seq(text[last:]))
    return "".join(out)


def _any(patterns) -> re.Pattern:
    return re.compile("|".join(f"(?:{p})" for p in patterns))


def kind_sentences() -> dict[str, list[tuple[str, tuple]]]:
    """kind -> [(template, aliases it may be rewritten with)]."""
    bank: dict[str, list] = collections.defaultdict(list)
    for k, kd in content.SENSITIVE.items():
        bank[k] += [(p, ()) for p in kd.paras]
    for k, sentences in content.ASIDES.items():
        bank[k] += [(p, ()) for p in sentences]
    for kd in content.SYSTEM_RECEIPTS.values():
        bank["receipt"].append((kd.paras[0], ()))   # the receipt itself (the others are boilerplate)
    for t in TOPICS:
        for k, s in t.sens:
            bank[k].append((s, t.aliases))
    return bank


KIND_RE = {k: _any(template_re(s, a) for s, a in v) for k, v in kind_sentences().items()}
HIGH_RE = {t.id: _any(template_re(p, t.aliases) for p in t.high) for t in TOPICS}
MENTION_RE = {t.id: _any([template_re(p, t.aliases) for p in t.high] + [template_re(p) for p in t.passing])
              for t in TOPICS}


def _text(s: str) -> str:
    return " ".join(tokens(s)) + " "


class Collection:
    def __init__(self, out: Path, seed: int):
        self.out, self.seed = out, seed
        self.labels = generate_with_labels(out, N, seed)
        self.body: dict[str, str] = {}
        self.attached: dict[str, str] = {}   # text of attachments that are forwarded messages
        self.attachments: dict[str, str] = {}
        self.in_reply_to: dict[str, str] = {}
        for path in sorted((out / "mail").glob("*/*.mbox")):
            for m in mailbox.mbox(str(path)):
                msg = parse_message(m.as_bytes(), str(path))
                if msg.message_id in self.body:
                    continue
                self.body[msg.message_id] = _text(msg.body)
                self.attachments[msg.message_id] = _text("\n".join(a.text for a in msg.attachments if a.text))
                self.attached[msg.message_id] = _text("\n".join(a.text for a in msg.attachments
                                                                if a.is_message and a.text))
                self.in_reply_to[msg.message_id] = msg.in_reply_to

    def where(self, docid: str) -> str:
        """Where evidence of the message's judgments may be: its body, and the forwarded
        message attached to it if any."""
        return self.body[docid] + self.attached[docid]

    def everything(self, docid: str) -> str:
        return self.body[docid] + self.attachments[docid]


@pytest.fixture(scope="module", params=SEEDS, ids=lambda s: f"seed{s}")
def coll(request, tmp_path_factory):
    return Collection(tmp_path_factory.mktemp(f"evidence{request.param}"), request.param)


def test_every_template_has_enough_literal_words():
    """The check is meaningful: no template is matched by slots alone."""
    for k, sentences in kind_sentences().items():
        for s, _ in sentences:
            assert len(literal_words(s)) >= 3, (k, s)
    for t in TOPICS:
        for s in t.high + t.passing:
            assert len(literal_words(s)) >= 3, (t.id, s)


def test_matcher_allows_typos_slots_and_aliases_only():
    t = next(t for t in TOPICS if t.id == "1")
    r = re.compile(template_re("Tom's team wants launch pricing before the distributor summit.", t.aliases))
    assert r.search(_text("Tom's team wnats GA pricing before the distributor summit."))
    assert not r.search(_text("Tom's team wants pricing before the distributor summit."))
    r = re.compile(template_re("Can you pick up {kid} from school today?"))
    assert r.search(_text("> Can you pick up Leo from\n> school today?"))
    assert not r.search(_text("Can you pick up Leo from work today?"))


def test_planted_kinds_and_topics_have_evidence_in_the_text_carrying_them(coll):
    missing = []
    for lab in coll.labels:
        where = coll.where(lab.docid)
        missing += [(lab.docid, "kind", k) for k in lab.kinds if not KIND_RE[k].search(where)]
        missing += [(lab.docid, "high", t) for t in lab.high if not HIGH_RE[t].search(where)]
        missing += [(lab.docid, "passing", t) for t in lab.passing if not MENTION_RE[t].search(where)]
    assert missing == []


def test_text_carries_no_unplanted_kind_or_topic(coll):
    extra = []
    for lab in coll.labels:
        text = coll.everything(lab.docid)
        extra += [(lab.docid, "kind", k) for k, r in KIND_RE.items() if k not in lab.kinds and r.search(text)]
        extra += [(lab.docid, "topic", t) for t, r in MENTION_RE.items()
                  if t not in lab.high + lab.passing and r.search(text)]
    assert extra == []


def test_judgment_files_have_evidence(coll):
    """sensitivity reasons and relevance grades (what the app loads) rest on the text."""
    missing = []
    rows = (coll.out / "reasons.tsv").read_text().splitlines()[1:]
    assert rows
    for row in rows:
        docid, persona, reason = row.split("\t")
        kinds = [k for k in labels.PERSONA_KINDS[persona] if labels.KIND_REASON[k] == int(reason)]
        if not any(KIND_RE[k].search(coll.where(docid)) for k in kinds):
            missing.append(row)
    graded = 0
    for line in (coll.out / "qrels.txt").read_text().splitlines():
        topic, _, docid, rel = line.split(" ")
        if rel == "0":
            continue
        graded += 1
        if not (HIGH_RE if rel == "2" else MENTION_RE)[topic].search(coll.where(docid)):
            missing.append(line)
    assert graded > 100
    assert missing == []


def test_replies_to_forwards_with_the_original_attached_are_covered(coll):
    """The collection has replies to forwards whose attached original carries judgments the
    forward's own body does not (so the tests above test that case)."""
    by_id = {lab.docid: lab for lab in coll.labels}
    cases = 0
    for lab in coll.labels:
        parent = by_id.get(coll.in_reply_to[lab.docid])
        if parent is None or not coll.attached[parent.docid]:
            continue
        body = coll.body[parent.docid]
        if any(not KIND_RE[k].search(body) for k in parent.kinds) or \
                any(not MENTION_RE[t].search(body) for t in parent.high + parent.passing):
            cases += 1
    assert cases >= 1


def _main_sentences() -> dict[str, re.Pattern]:
    """kind -> its sentences that are a message's main content (not the one-line asides)."""
    asides = {(k, s) for k, v in content.ASIDES.items() for s in v}
    return {k: _any(template_re(s, a) for s, a in v if (k, s) not in asides) for k, v in kind_sentences().items()}


MAIN_RE = _main_sentences()


def test_a_kind_is_mild_exactly_when_it_is_only_an_aside(coll):
    """A kind planted as the main content somewhere in the text is not "mild" (a persona flags
    mild kinds only sometimes), even when an aside of the same kind is there too."""
    wrong = []
    for lab in coll.labels:
        where = coll.where(lab.docid)
        wrong += [(lab.docid, k, k in lab.mild) for k in lab.kinds if (k in lab.mild) == bool(MAIN_RE[k].search(where))]
    assert wrong == []
