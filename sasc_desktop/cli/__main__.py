"""python -m sasc_desktop.cli: the same as the sasc command."""
import sys

from . import main

sys.exit(main())
