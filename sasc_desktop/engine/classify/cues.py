"""Sensitivity cues: counts of words that signal the usual reasons mail is withheld.

Word TF-IDF spreads one idea ("attorney", "counsel", "privileged", "lawsuit") over many sparse
columns that 875 judged messages cannot weigh reliably; a cue is the count of a whole family of
such words, one dense column the model can learn from a few examples. The families are written
from the reasons archivists and donors give (legal privilege and litigation, confidentiality,
private life, personnel matters, health, heated or scornful tone), not from any collection's
labels, and every persona's model learns its own weight for each.

Measured with honest nested 5-fold CV on enron-categories-dev (Dana Whitfield, model "or",
mean of 3 outer seeds): F1 0.545 -> 0.562 optimising F1 (see model.py for the full record).
"""
from __future__ import annotations

import math
import re
from typing import Iterator

# One alternation per family, matched case-insensitively as whole words; a trailing \w* marks a
# stem ("litigat\w*" covers litigation and litigate).
CUE_PATTERNS: dict[str, str] = {
    "legal": r"attorneys?|privileged?|privileges|counsel|lawsuits?|litigat\w*|legal|lawyers?|courts?|subpoenas?"
             r"|settlements?|complaints?|plaintiffs?|defendants?|depositions?|indictment|testimony|work product",
    "secrecy": r"confidential\w*|secrets?|secrecy|proprietary|do not (?:forward|distribute|disclose)|internal use only"
               r"|not for distribution|discretion|sensitive|off the record",
    "personal": r"love|family|wife|husband|kids|son|daughter|baby|mom|dad|mother|father|birthday|wedding"
                r"|vacation|holiday|church|friends?|hugs?|miss you|girlfriend|boyfriend|divorce|funeral",
    "employment": r"r[e\u00e9]sum[e\u00e9]s?|interview\w*|hire|hired|hiring|candidates?|recruit\w*|jobs?|offer letter"
                  r"|salary|salaries|compensation|bonus(?:es)?|promot\w*|references?|recommendations?"
                  r"|terminat\w*|layoffs?|laid off|severance|performance review|resign\w*",
    "health": r"sick|illness|hospital\w*|surgery|doctors?|cancer|diagnos\w*|medical|medications?|therapy"
              r"|pregnan\w*|disease",
    "emotion": r"angry|anger|upset|furious|frustrat\w*|ridiculous|stupid|idiots?|damn|hell|crap|sad|sorry|regret\w*"
               r"|ashamed|embarrass\w*|hate|disgust\w*|terrible|awful|outrage\w*|absurd|pathetic|incompetent|moron",
}
CUE_KINDS: tuple[str, ...] = tuple(CUE_PATTERNS)
CUE_NAMES: tuple[str, ...] = (tuple(f"{k}_body" for k in CUE_KINDS) + tuple(f"{k}_subject" for k in CUE_KINDS)
                              + ("exclaim",))

# One pass over the text: the named group that matched says which family it is.
_CUES = re.compile("|".join(rf"\b(?P<{k}>{p})\b" for k, p in CUE_PATTERNS.items()), re.I)
_EXCLAIM = re.compile(r"!!|\?!|!\?")


# The pattern is run over a long text a window at a time: one run over a 1.5 MB message held the
# GIL for half a second (the app's window stalled while a worker thread explained the message).
WINDOW = 16_384   # characters one run covers (6 ms on an idle machine), more only for one word longer than that
MARGIN = 64       # more than the longest fixed part of a cue (all but its \w* tail) and the \b after it


def cue_matches(text: str, window: int = WINDOW, margin: int = MARGIN) -> Iterator[re.Match]:
    r"""The matches of the cue pattern in ``text``, exactly those of one run over the whole text
    (``_CUES.finditer(text)``), found by runs over at most ``window`` characters each.

    A run over ``text[pos:end]`` sees the text end at ``end``, so its matches are taken only up
    to ``end - margin``: an attempt at a position before that examines nothing past ``end``
    (a cue's fixed part and the \b after it are shorter than ``margin``) but through a \w* tail,
    which stays in one word and reaches ``end`` only to match up to it, a match that is not
    taken. Such a match, or else ``end - margin``, is where the next run starts: the whole-text
    run would go on from there too. A window with nothing to take (one word longer than it) is
    made larger until it has."""
    n, pos, size = len(text), 0, window
    while pos < n:
        end = min(n, pos + size)
        if end == n:
            yield from _CUES.finditer(text, pos, n)
            return
        safe, last, next_pos = end - margin, pos, None
        for m in _CUES.finditer(text, pos, end):
            if m.end() > safe:
                next_pos = min(m.start(), safe)
                break
            yield m
            last = m.end()
        next_pos = max(last, safe if next_pos is None else next_pos)
        if next_pos > pos:
            pos, size = next_pos, window
        else:
            size *= 2


def cue_counts(text: str) -> dict[str, int]:
    """How many times each cue family occurs in the text (non-overlapping, left to right)."""
    out = dict.fromkeys(CUE_KINDS, 0)
    for m in cue_matches(text):
        out[m.lastgroup] += 1
    return out


def cue_features(subject: str, body: str) -> dict[str, float]:
    """log(1 + count) per family in the body, whether the subject carries the family, and
    log(1 + runs of '!!' / '?!') in the body."""
    b, s = cue_counts(body), cue_counts(subject)
    f = {f"{k}_body": math.log1p(v) for k, v in b.items()}
    f.update({f"{k}_subject": float(v > 0) for k, v in s.items()})
    f["exclaim"] = math.log1p(len(_EXCLAIM.findall(body)))
    return f


def cue_hits(text: str, field: str = "body") -> list[dict]:
    """Every cue word in the text with its family and character offsets (for highlighting)."""
    return [{"kind": m.lastgroup, "field": field, "start": m.start(), "end": m.end(), "text": m.group()}
            for m in cue_matches(text)]
