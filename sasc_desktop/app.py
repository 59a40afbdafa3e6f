"""The ``sasc-desktop`` entry point: wires the GUI to the engine."""
from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    from .gui.main import run  # Qt is imported only here, never by the engine
    return run(sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    sys.exit(main())
