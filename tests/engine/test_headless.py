"""The engine is headless: every engine module imports with PySide6 unavailable."""
from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import sasc_desktop.engine as engine

ROOT = Path(__file__).resolve().parents[2]

PROBE = r"""
import importlib, pkgutil, sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in ('PySide6', 'shiboken6'):
            raise ModuleNotFoundError('blocked ' + name, name=name)
sys.meta_path.insert(0, Block())
import sasc_desktop.engine as engine
names = [m.name for m in pkgutil.walk_packages(engine.__path__, 'sasc_desktop.engine.')]
for name in names:
    importlib.import_module(name)
import sasc_desktop.cli
sasc_desktop.cli.build_parser()
qt = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'shiboken6')]
assert not qt, qt
print(len(names))
"""


def test_every_engine_module_imports_without_qt():
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    n = int(out.stdout.strip().splitlines()[-1])
    assert n == len(list(pkgutil.walk_packages(engine.__path__, "sasc_desktop.engine.")))
    assert n >= 10


def test_import_contract_keeps_qt_out_of_the_engine():
    lint = Path(sys.executable).with_name("lint-imports")
    out = subprocess.run([str(lint)], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "1 kept, 0 broken" in out.stdout
