"""How a persona appears in file names (its model files, its protection rankers'): light, so
modules that only name files need not import scikit-learn."""
from __future__ import annotations

import hashlib
import re

MAX_READABLE = 64  # characters of the persona id kept readable in a file name


def persona_file_part(persona: str) -> str:
    """The persona's part of a file name: its id with every character other than an ASCII letter,
    digit, '_', '.' or '-' as '_', cut to its first 64 characters, then '-' and the first 8 hex
    digits of the SHA-1 of the whole id (which keeps the names of ids cut alike apart). At most
    73 characters, whatever the id's length; the names of ids of up to 64 characters are the
    ones earlier versions gave."""
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", persona)
    return f"{safe[:MAX_READABLE]}-{hashlib.sha1(persona.encode()).hexdigest()[:8]}"


def legacy_persona_file_part(persona: str) -> str:
    """The part earlier versions gave (the whole sanitised id): it differs from
    :func:`persona_file_part` only for ids longer than 64 characters."""
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", persona)
    return f"{safe}-{hashlib.sha1(persona.encode()).hexdigest()[:8]}"
