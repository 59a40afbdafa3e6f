"""sasc evaluate without --sensitivity says on stderr that no document is treated as sensitive
when a requested measure reads sensitivity (a cost, a penalty M, a forbidden document's label,
or the filtering figures F-docs and Withheld): such measures used to run silently as if the
judge had found nothing sensitive."""
from __future__ import annotations

import json

import pytest

from sasc_desktop.cli import main
from sasc_desktop.cli.evaluate_cmds import reads_sensitivity
from sasc_desktop.engine.evaluate import measure_specs


@pytest.fixture
def files(tmp_path):
    (tmp_path / "q").write_text("1 0 a 1\n")
    (tmp_path / "s").write_text("P b 1\n")
    (tmp_path / "r").write_text("1 Q0 b 1 1 r\n")
    return tmp_path


def run(files, *measures, sensitivity=False):
    args = ["evaluate", "--qrels", str(files / "q"), "--run", str(files / "r"), "--json"]
    if sensitivity:
        args += ["--sensitivity", str(files / "s")]
    for m in measures:
        args += ["--measure", m]
    return main(args)


def test_the_note_names_the_measures_that_read_sensitivity(files, capsys):
    assert run(files, "nCS-DCG_f@10(cost=12)", "nDCG@10", "TERN@5(M=1)", "nDCG_f@10", "F-docs@3",
               "TERN@5(M=1)") == 0
    out, err = capsys.readouterr()
    assert err == ("sasc: note: no --sensitivity file was given, so no document is treated as sensitive by "
                   "nCS-DCG_f@10(cost=12), TERN@5(M=1), nDCG_f@10, F-docs@3\n")
    assert json.loads(out)["runs"]["r"]["TERN@5(M=1)"]["per_topic"] == {"1": 0.0}   # b counted as not sensitive


def test_no_note_with_a_sensitivity_file_or_without_such_measures(files, capsys):
    assert run(files, "nCS-DCG_f@10(cost=12)", sensitivity=True) == 0
    assert capsys.readouterr().err == ""
    assert run(files, "nDCG@10", "P@1", "DCG@3", "Empty@2") == 0
    assert capsys.readouterr().err == ""


def test_which_families_read_sensitivity():
    reading = {name for name, spec in measure_specs().items() if reads_sensitivity(spec)}
    assert reading == {"CS-DCG", "nCS-DCG", "nCS-DCG_f", "gCS-DCG", "ngCS-DCG", "TERN", "SENS", "nDCG_min",
                       "nDCG_f", "O-CS-DCG", "F-docs", "Withheld", "CS-DCG-sign"}
