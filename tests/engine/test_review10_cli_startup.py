"""Every sasc command builds the whole parser, which imports every command module: the evaluate
module pulled in scipy.stats (about 0.6 s) before any command ran, so `sasc search DIR budget`
took a second for a 2 ms search. scipy.stats is imported when a significance test needs it."""
from __future__ import annotations

import subprocess
import sys

from sasc_desktop.engine.evaluate.stats import paired_tests


def test_building_the_parser_imports_no_scipy_stats():
    code = ("import sys\nfrom sasc_desktop.cli import build_parser\nbuild_parser()\n"
            "print(sorted(m for m in sys.modules if m == 'scipy.stats' or m.startswith('scipy.stats.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == "[]"


def test_the_tests_still_use_scipy():
    from scipy import stats
    a, b = [0.1, 0.5, 0.3, 0.9, 0.4, 0.7, 0.2, 0.8], [0.2, 0.4, 0.1, 0.6, 0.3, 0.5, 0.25, 0.55]
    pt = paired_tests(a, b)
    assert pt.t_p == stats.ttest_rel(a, b).pvalue
