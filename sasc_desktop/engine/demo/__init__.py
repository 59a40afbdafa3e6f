"""Deterministic synthetic demo collection: mailboxes, topics, qrels and per-persona sensitivity.

    from sasc_desktop.engine.demo import generate
    summary = generate(Path("demo"), n_messages=3000, seed=20261122)
"""
from .generator import generate

__all__ = ["generate"]
