"""Small frozen records that cross the evaluation package's boundary."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True, slots=True)
class Qrel:
    """One relevance judgment: TREC qrels line ``topic 0 docid rel``."""

    topic: str
    docid: str
    rel: int


@dataclass(frozen=True, slots=True)
class SensJudgment:
    """One sensitivity judgment for a persona.

    ``topic`` is ``None`` for a topic-independent judgment (file line ``persona docid level``)
    and the topic id for a per-topic judgment (``topic persona docid level``).
    Level 0 means not sensitive; every level >= 1 is sensitive.
    """

    persona: str
    docid: str
    level: int
    topic: Optional[str] = None


@dataclass(frozen=True, slots=True)
class ScoredDoc:
    """One line of a TREC run: ``topic Q0 docid rank score tag``."""

    topic: str
    docid: str
    score: float
    rank: int = 0
    tag: str = ""


@dataclass(frozen=True, slots=True)
class LetorRow:
    """One LETOR line: ``rel qid:q 1:v 2:v ... #docid = X``.

    ``features`` holds ``(feature_id, value)`` pairs in increasing feature id (ids start at 1).
    ``docid`` is ``None`` when the line has no ``docid = X`` comment.
    """

    rel: int
    qid: str
    features: tuple[tuple[int, float], ...]
    docid: Optional[str] = None
