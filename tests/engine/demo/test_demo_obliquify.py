"""The codename/synonym rewrite (``generator.obliquify``) writes readable text: whole phrases
are replaced, an alias never repeats a word next to it, articles stay single and agree."""
from __future__ import annotations

import dataclasses
import itertools
import random
import re

import pytest

from sasc_desktop.engine.demo import generator
from sasc_desktop.engine.demo.generator import obliquify
from sasc_desktop.engine.demo.topics import BY_ID, TOPICS

_W = re.compile(r"[\w][\w'-]*")
LIGHT = set("the our a an of in on at to for and or with from by my your his her their its this that is are be".split())
DETERMINERS = "the|our|a|an|my|your|his|her|their|its|this|that"


def _words(text: str) -> list[str]:
    return [w.lower() for w in _W.findall(text)]


def doubled(text: str) -> set[str]:
    """Words written twice in a row ('year year')."""
    ws = _words(text)
    return {a for a, b in zip(ws, ws[1:]) if a == b}


def _stem(w: str) -> str:
    w = w[:-2] if w.endswith("'s") else w
    return w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w


def near_repeats(text: str, window: int = 4) -> set[str]:
    """Content words (singular) written again within ``window`` words ('Nova in Nova', 'unit units')."""
    ws = [_stem(w) for w in _words(text)]
    return {w for i, w in enumerate(ws) if w not in LIGHT and w in ws[i + 1:i + 1 + window]}


def double_determiners(text: str) -> set[str]:
    return {m.group(0).lower() for m in re.finditer(rf"\b({DETERMINERS}) ({DETERMINERS})\b", text, re.I)}


def problems(before: str, after: str) -> dict:
    found = {"doubled": doubled(after) - doubled(before),
             "near repeats": near_repeats(after) - near_repeats(before),
             "double determiners": double_determiners(after) - double_determiners(before)}
    return {k: v for k, v in found.items() if v}


def _topic(aliases, tid: str):
    """A topic with only the given aliases (a unique id: the alias regex is cached per id)."""
    return dataclasses.replace(BY_ID["1"], id=tid, aliases=aliases)


# --- the reviewer's examples --------------------------------------------------------------------
@pytest.mark.parametrize("choice", ["research year", "year away"])
def test_sabbatical_year_is_replaced_as_one_phrase(choice):
    t = BY_ID["29"]
    text = "We found an apartment in Campo de Ourique for the sabbatical year, ten minutes from the school."
    out = obliquify(text, t, random.Random(0), {"sabbatical year": choice})
    assert out == f"We found an apartment in Campo de Ourique for the {choice}, ten minutes from the school."


def test_every_rewrite_of_the_lisbon_sentence_reads_well():
    t = BY_ID["29"]
    text = "The dean approved my sabbatical for the next academic year; I'll be visiting at Nova in Lisbon."
    outs = set()
    table = dict((k.lower(), v) for k, v in t.aliases)
    for leave, place in itertools.product(table["sabbatical"], table["in lisbon"]):
        out = obliquify(text, t, random.Random(0), {"sabbatical": leave, "in lisbon": place})
        assert problems(text, out) == {}, out
        outs.add(out)
    assert outs == {f"The dean approved my {a} for the next academic year; I'll be visiting at Nova {b}."
                    for a in ("leave", "research leave") for b in ("in Portugal", "abroad")}


def test_an_alias_repeating_a_neighbouring_word_gives_way():
    t = _topic((("Lisbon", ("Nova", "Portugal")), ("sabbatical", ("research year", "leave"))), "t-neighbour")
    chosen = {"lisbon": "Nova", "sabbatical": "research year"}
    assert obliquify("visiting at Nova in Lisbon", t, random.Random(0), chosen) == "visiting at Nova in Portugal"
    assert obliquify("for the sabbatical year", t, random.Random(0), chosen) == "for the leave year"
    assert chosen == {"lisbon": "Nova", "sabbatical": "research year"}   # still the message's choice
    assert obliquify("Lisbon is nice", t, random.Random(0), chosen) == "Nova is nice"
    # no alias fits: the words stay as written
    t2 = _topic((("Lisbon", ("Nova",)),), "t-neighbour-2")
    assert obliquify("at Nova in Lisbon", t2, random.Random(0), {}) == "at Nova in Lisbon"
    t3 = _topic((("Kestrel", ("the crop unit", "K-1")),), "t-neighbour-3")
    assert obliquify("Kestrel units are back", t3, random.Random(0), {"kestrel": "the crop unit"}) == \
        "K-1 units are back"


def test_articles_possessives_and_capitals():
    t = _topic((("Brightwater", ("the utility",)), ("Kinetic Labs", ("KL",)), ("outage", ("incident",)),
                ("TechWire", ("Nora's magazine",)), ("hire", ("ML engineer",))), "t-articles")
    r = random.Random(0)
    assert obliquify("The Brightwater outage is over.", t, r, {}) == "The utility incident is over."
    assert obliquify("Brightwater is down. We are on it.", t, r, {}) == "The utility is down. We are on it."
    assert obliquify("Hi! Brightwater called. We called Brightwater back.", t, r, {}) == \
        "Hi! The utility called. We called Brightwater back."   # 'utility' 3 words before: kept
    assert obliquify("We called Brightwater.", t, r, {}) == "We called the utility."
    assert obliquify("It was a outage, an hire and an Kinetic Labs thing.", t, r, {}) == \
        "It was an incident, an ML engineer and a KL thing."
    assert obliquify("Assess Kinetic Labs' sensor IP.", t, r, {}) == "Assess KL's sensor IP."
    assert obliquify("Call it 'Brightwater' for now.", t, r, {}) == "Call it 'the utility' for now."
    assert obliquify("Kinetic Labs's and Brightwater's sensors", t, r, {}) == "KL's and the utility's sensors"
    assert obliquify("The TechWire interview is on.", t, r, {}) == "Nora's magazine interview is on."
    assert obliquify("our Brightwater account", t, r, {}) == "our utility account"


# --- every sentence the rewrite can meet, every choice of aliases ------------------------------
def test_no_topic_sentence_is_garbled_by_any_choice_of_aliases():
    bad = []
    rewrites = 0
    for t in TOPICS:
        if not t.aliases:
            continue
        table = {k.lower(): v for k, v in t.aliases}
        pat = generator._alias_pattern(t)
        for text in t.subjects + t.high + tuple(s for _, s in t.sens):
            keys = sorted({m.group(1).lower() for m in pat.finditer(text)})
            for combo in itertools.product(*(table[k] for k in keys)):
                out = obliquify(text, t, random.Random(0), dict(zip(keys, combo)))
                rewrites += 1
                if problems(text, out):
                    bad.append((t.id, out, problems(text, out)))
    assert rewrites > 500
    assert bad == []


@pytest.mark.parametrize("seed", [20261122, 7])
def test_no_rewrite_in_a_generated_collection_doubles_a_word(tmp_path, monkeypatch, seed):
    seen = []

    def recording(text, topic, rng, chosen):
        out = obliquify(text, topic, rng, chosen)
        seen.append((text, out))
        return out
    monkeypatch.setattr(generator, "obliquify", recording)
    generator.generate(tmp_path, 1500, seed)
    changed = [(a, b) for a, b in seen if a != b]
    assert len(changed) > 50
    assert [(b, problems(a, b)) for a, b in changed if problems(a, b)] == []
