"""Generate a demo collection and keep the generator's label records (its planted kinds and
topics for each message) as they were when it wrote the label files."""
from __future__ import annotations

from pathlib import Path

from sasc_desktop.engine.demo import generator


def generate_with_labels(out: Path, n: int, seed: int) -> list:
    """``generator.generate(out, n, seed)``, returning the generator's label records."""
    captured = {}
    original = generator._write_labels

    def capture(out_, gen, n_, seed_):
        captured["labels"] = list(gen.labels)
        return original(out_, gen, n_, seed_)
    generator._write_labels = capture
    try:
        generator.generate(out, n, seed)
    finally:
        generator._write_labels = original
    return captured["labels"]
