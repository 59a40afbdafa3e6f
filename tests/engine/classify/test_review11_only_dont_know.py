"""Training a persona whose only judgments on the project's messages are "I don't know" (level
-1) says that those judgments are left out of training and what training needs, instead of
"has no sensitivity judgments on this project's messages; import or make judgments first" (it
has them). Real enron-categories-dev mail, real ingest and SQLite, the real CLI."""
from __future__ import annotations

import pytest
from test_review11_judged_ids import enron_project

from sasc_desktop.cli import main as sasc


@pytest.mark.parametrize("n", [1, 3])
def test_only_dont_know_judgments_say_so(shared_data, tmp_path, capsys, n):
    s = enron_project(shared_data, tmp_path, n=4)
    docs = [r[0] for r in s.store.con.execute("SELECT doc_id FROM messages ORDER BY doc_id")]
    s.close()
    sens = tmp_path / "zoe.txt"
    # n "I don't know" on the project's messages (one of them under two topics), one on mail not ingested
    lines = [f"1 zoe {d} -1" for d in docs[:n]] + [f"2 zoe {docs[0]} -1", "1 zoe elsewhere@x -1"]
    sens.write_text("\n".join(lines) + "\n")
    proj = str(tmp_path / "proj")
    assert sasc(["judgments", "import", proj, "--sensitivity", str(sens)]) == 0
    judgments = "judgment" if n == 1 else "judgments"
    expected = (f"sasc: error: persona 'zoe' has only \"I don't know\" judgments on this project's messages: "
                f"its {n} \"I don't know\" {judgments} (level -1) {'is' if n == 1 else 'are'} left out of training, "
                "which needs at least 2 messages judged sensitive (level 1 or more) and 2 judged not sensitive "
                "(level 0)\n")
    for command in (["classify", "train", proj, "--persona", "zoe"], ["classify", "cv", proj, "--persona", "zoe"]):
        capsys.readouterr()
        assert sasc(command) == 2
        assert capsys.readouterr().err.rsplit("\n", 2)[-2:] == [expected[:-1], ""]


def test_a_persona_without_any_judgment_keeps_its_message(shared_data, tmp_path, capsys):
    s = enron_project(shared_data, tmp_path, n=2)
    s.close()
    sens = tmp_path / "zoe.txt"
    sens.write_text("zoe elsewhere@x -1\nzoe other@x 1\n")
    proj = str(tmp_path / "proj")
    assert sasc(["judgments", "import", proj, "--sensitivity", str(sens)]) == 0
    capsys.readouterr()
    assert sasc(["classify", "train", proj, "--persona", "zoe"]) == 2
    assert capsys.readouterr().err.endswith("sasc: error: persona 'zoe' has no sensitivity judgments on this project's "
                                            "messages; import or make judgments first\n")
