"""`sasc experiment`: an undefined mean in text mode, and the report folder checked before any work."""
from __future__ import annotations

import re

import pytest

from sasc_desktop.cli import main as sasc
from sasc_desktop.engine.errors import InputError
from sasc_desktop.engine.project import judgments as J
from sasc_desktop.engine.session import Session

PERSONA = "john-snibert"


# ------------------------------------------------------------------ 2. undefined mean, text mode
def test_cli_text_mode_prints_an_undefined_mean_as_a_dash(zero_project, tmp_path, capsys):
    out_dir = tmp_path / "rep"
    rc = sasc(["experiment", str(zero_project), "--persona", PERSONA, "--rankers", "linear", "--approaches",
               "relevance", "--classifier", "oracle", "--depth", "20", "--eval", "nCS-DCG@10(cost=0)",
               "--eval", "nDCG@10", "--out", str(out_dir)])
    out = capsys.readouterr().out.splitlines()
    assert rc == 0
    rows = [line for line in out if "relevance" in line]
    assert len(rows) == 1
    with Session.open(zero_project) as s:
        n_topics = len(J.qrels(s.store))
    assert re.fullmatch(r"    linear  relevance              nCS-DCG@10\(cost=0\) = -  shown sensitive \d+  "
                        rf"undefined on {n_topics} topics", rows[0])
    assert out[-1] == f"report: {out_dir}"
    assert (out_dir / "results.csv").is_file()


# -------------------------------------------------------------------------- 3. the report folder
def test_out_that_is_a_file_is_refused_before_the_experiment(exp_project, tmp_path, capsys, run_spy):
    afile = tmp_path / "afile"
    afile.write_text("x")
    args = ["experiment", str(exp_project), "--persona", PERSONA, "--rankers", "linear", "--approaches",
            "relevance", "--classifier", "oracle", "--depth", "20", "--eval", "nDCG@10"]
    assert sasc(args + ["--out", str(afile)]) == 2
    assert capsys.readouterr().err == f"sasc: error: report folder {afile} is an existing file, not a folder\n"
    assert sasc(args + ["--out", str(afile / "sub")]) == 2
    assert capsys.readouterr().err == (f"sasc: error: report folder {afile / 'sub'} cannot be made: part of its "
                                       f"path is a file, not a folder\n")
    assert run_spy == []
    assert afile.read_text() == "x"


def test_a_report_folder_made_for_an_experiment_that_is_refused_is_removed(exp_project, tmp_path, capsys):
    out_dir = tmp_path / "new" / "rep"
    args = ["experiment", str(exp_project), "--persona", PERSONA, "--approaches", "bogus", "--classifier", "oracle",
            "--eval", "nDCG@10"]
    assert sasc(args + ["--out", str(out_dir)]) == 2
    assert capsys.readouterr().err == ("sasc: error: unknown approach 'bogus'; approaches are: relevance, prefilter, "
                                       "postfilter, demote, joint, joint_postfilter\n")
    assert not out_dir.exists()
    assert (tmp_path / "new").is_dir()   # only the folder made for the report is removed, not its parents
    kept = tmp_path / "kept"
    kept.mkdir()
    assert sasc(args + ["--out", str(kept)]) == 2
    assert kept.is_dir()                 # a folder the user had is never removed


def test_prepare_report_dir_and_write_report_say_what_is_wrong(tmp_path):
    from sasc_desktop.engine.evaluate.experiment_report import prepare_report_dir, write_report
    afile = tmp_path / "afile"
    afile.write_text("x")
    with pytest.raises(InputError) as err:
        prepare_report_dir(afile)
    assert str(err.value) == f"report folder {afile} is an existing file, not a folder"
    with pytest.raises(InputError) as err:
        write_report({"results": [], "tests": [], "measures": ["nDCG@10"], "rankers": [], "approaches": []}, afile)
    assert str(err.value).startswith(f"cannot write the report in {afile}: ")
    assert prepare_report_dir(tmp_path / "a" / "b") is True
    assert prepare_report_dir(tmp_path / "a" / "b") is False
    assert list((tmp_path / "a" / "b").iterdir()) == []      # the write probe leaves nothing behind

