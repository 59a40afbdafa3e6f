"""Small frozen records that cross the engine boundary (GUI and CLI never see Whoosh or SQL rows)."""
from __future__ import annotations

from dataclasses import dataclass, field, asdict
from typing import Optional


@dataclass(frozen=True)
class Attachment:
    name: str                 # safe file name (no path parts); never used as a path on its own
    mime_type: str
    size: int
    sha256: str
    text: Optional[str] = None  # extracted for text/*, HTML, CSV and nested messages
    original_name: str = ""     # the name exactly as the message gave it
    is_message: bool = False    # a nested message/rfc822 part


@dataclass(frozen=True)
class Message:
    """One parsed email, as ingestion produces it (before it gets a project id)."""
    message_id: str            # without angle brackets; synthetic "sasc-<hash>" when absent
    synthetic_id: bool
    date: Optional[str]        # ISO 8601 with the original UTC offset, or None
    timestamp: Optional[float]  # POSIX seconds (UTC) for sorting, or None
    sender: str                # From header, decoded
    to: str
    cc: str
    bcc: str
    reply_to: str
    subject: str
    in_reply_to: str
    references: tuple[str, ...]
    folder: str
    importance: str
    priority: str
    sensitivity_header: str
    body: str
    body_is_html: bool
    attachments: tuple[Attachment, ...]
    raw_sha256: str
    raw_size: int
    location: str              # source path, plus "#N" for the N-th message of an mbox
    notes: tuple[str, ...] = ()  # decoding problems that were repaired (replaced bytes, bad charsets)
    # All addresses (lower-case) for the network, parsed from From / To / Cc / Bcc.
    from_addr: str = ""
    recipient_addrs: tuple[str, ...] = ()

    @property
    def attachment_text(self) -> str:
        return "\n\n".join(a.text for a in self.attachments if a.text)


@dataclass(frozen=True)
class SkippedMessage:
    source: str
    reason: str


@dataclass
class IngestReport:
    ingested: int = 0
    duplicates: int = 0
    skipped: list[SkippedMessage] = field(default_factory=list)
    seconds: float = 0.0
    cancelled: bool = False

    def to_json(self) -> dict:
        return {
            "ingested": self.ingested,
            "duplicates": self.duplicates,
            "skipped": [asdict(s) for s in self.skipped],
            "seconds": round(self.seconds, 3),
            **({"cancelled": True} if self.cancelled else {}),
        }


@dataclass(frozen=True)
class SearchHit:
    rank: int
    doc_id: str
    score: float
    subject: str
    sender: str
    date: Optional[str]
    id: int = 0                # the project's integer id of the document


@dataclass(frozen=True)
class SearchResult:
    query: str
    hits: tuple[SearchHit, ...]
    total: int
    ms: float
    terms: tuple[str, ...] = ()  # query terms (lower-case), for highlighting

    def to_json(self) -> dict:
        return {
            "hits": [{"doc_id": h.doc_id, "score": round(h.score, 6), "subject": h.subject,
                      "from": h.sender, "date": h.date} for h in self.hits],
            "total": self.total,
            "ms": round(self.ms, 2),
        }
