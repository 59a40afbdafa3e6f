"""Kinds of planted sensitive content, the reason (1-8 from the spec) each stands for, and which
kinds each study persona considers sensitive.

Reasons (personas-and-annotation.md): 1 legally protected (PII, banking, health, student records,
pending litigation); 2 business secrets; 3 reputational risk; 4 memberships and beliefs;
5 stigmatised activity; 6 offensive language; 7 gossip / frank remarks; 8 emotional content.
"""
from __future__ import annotations

PERSONAS: tuple[str, ...] = ("john-snibert", "holly-palmer")

# kind -> reason number
KIND_REASON: dict[str, int] = {
    "family": 3,            # family logistics and private life of named relatives
    "romance": 8,           # romantic conversation
    "health": 1,            # medical conditions, treatment, leave
    "receipt": 1,           # travel and purchase receipts with card numbers, addresses, bookings
    "pii": 1,               # SSNs, bank accounts, dates of birth, home addresses in HR/payroll mail
    "student": 1,           # student records and grades
    "litigation": 1,        # pending litigation, depositions, privileged advice
    "trade_secret": 2,      # unreleased products, costs, algorithms, internal security
    "contract": 2,          # contract terms, NDAs, negotiations
    "reputational": 3,      # embarrassing conduct or decisions a journalist would love
    "membership": 4,        # religious, political, union memberships and beliefs
    "stigmatised": 5,       # drug use, heavy drinking, gambling, rehab
    "offensive": 6,         # profanity and slurs-free but offensive language at work
    "gossip": 7,            # gossip about colleagues' private lives
    "peer_opinion": 7,      # frank, unflattering opinions about peers' competence
    "review": 7,            # professional reviews of colleagues (references, promotion, tenure)
    "unflattering_family": 7,  # unflattering remarks about family members
    "emotional": 8,         # anger, despair, tears in a professional setting
}

# persona -> kinds that persona finds sensitive (a message is sensitive when it carries any).
PERSONA_KINDS: dict[str, tuple[str, ...]] = {
    # The cautious writer: family and romance, opinions about peers, proprietary information;
    # worried about journalists (reputation, offensive language).
    "john-snibert": ("family", "romance", "health", "pii", "litigation", "trade_secret", "contract",
                     "reputational", "stigmatised", "offensive", "gossip", "peer_opinion",
                     "unflattering_family"),
    # The diarist: family and personal life, receipts, reviews of colleagues, unflattering
    # remarks about family and colleagues, gossip; not the companies' secrets.
    "holly-palmer": ("family", "romance", "health", "receipt", "pii", "student", "membership",
                     "stigmatised", "gossip", "peer_opinion", "review", "unflattering_family",
                     "emotional"),
}


def persona_reasons(persona: str) -> list[int]:
    return sorted({KIND_REASON[k] for k in PERSONA_KINDS[persona]})


def sensitive_reasons(persona: str, kinds) -> list[int]:
    """Reasons (sorted, unique) for which ``persona`` finds a message with ``kinds`` sensitive."""
    flagged = PERSONA_KINDS[persona]
    return sorted({KIND_REASON[k] for k in kinds if k in flagged})
