"""A protection ranker is retrained when the judgments it learned from change, and only then:
the BM25 stand-in stored while a project had no judged topics gives way to a trained ranker
once topics and qrels are imported; a trained ranker learns later judgments when the search asks
for it (--retrain) and is otherwise used as it is, the result saying it is out of date (a
training can take minutes: searching stays interactive); a search says which ranker it used
and whether it (re)trained it. Real demo mail, the real CLI import,
real processes searching at once."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sasc_desktop.cli import main as sasc
from sasc_desktop.engine.protect import search as P
from sasc_desktop.engine.session import Session

PERSONA = "holly-palmer"
OTHER = "john-snibert"
ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    from sasc_desktop.engine.demo_project import build_demo_project
    return build_demo_project(tmp_path_factory.mktemp("retrain") / "demo", n_messages=300, train=False)


def _import(root: Path, *args: str) -> dict:
    return sasc(["judgments", "import", str(root), *args, "--json"])


@pytest.fixture
def p2(demo, tmp_path, capsys) -> Path:
    """The reviewer's project: the demo mail with the sensitivity judgments and reasons, no
    topics or qrels yet; the joint ranker's training options set (linear, depth 60) while
    there is nothing to train on, so the BM25 stand-in is stored."""
    mail = demo / "demo-mail"
    root = tmp_path / "p2"
    with Session.create(root) as s:
        s.ingest([mail / "mail"], workers=0)
    assert _import(root, "--sensitivity", str(mail / "sensitivity.txt"), "--reasons", str(mail / "reasons.tsv")) == 0
    with Session.open(root) as s:
        info = s.train_protection(PERSONA, "joint", ranker="linear", depth=60)
    assert (info["ranker"], info["topics"]) == ("bm25", 0)
    capsys.readouterr()
    return root


def _search(root: Path, capsys, query: str = "Falcon launch", retrain: bool = False) -> dict:
    capsys.readouterr()
    assert sasc(["search", str(root), query, "--protect", "joint", "--persona", PERSONA, "--json"]
                + (["--retrain"] if retrain else [])) == 0
    return json.loads(capsys.readouterr().out)


def _counts(root: Path) -> dict:
    with Session.open(root) as s:
        one = lambda sql, *a: s.store.con.execute(sql, a).fetchone()[0]  # noqa: E731
        return {"topics": one("SELECT count(*) FROM topics"), "qrels": one("SELECT count(*) FROM qrels"),
                "sensitivity": one("SELECT count(*) FROM sensitivity WHERE persona = ?", PERSONA),
                "reasons": one("SELECT count(*) FROM sensitivity_reasons WHERE persona = ?", PERSONA)}


def test_the_bm25_stand_in_gives_way_once_topics_and_qrels_arrive(p2, demo, capsys):
    first = _search(p2, capsys)
    assert first["ranker"] == "bm25"
    mail = demo / "demo-mail"
    assert _import(p2, "--qrels", str(mail / "qrels.txt"), "--topics", str(mail / "topics.json")) == 0
    second = _search(p2, capsys)
    assert second["ranker"] == "linear"          # (the previous code kept the BM25 stand-in: bm25)
    assert (first["trained"], first["model_up_to_date"]) == (False, True)
    assert (second["trained"], second["model_up_to_date"]) == (True, True)
    # retrained with the options it was trained with, on every judged topic
    with Session.open(p2) as s:
        payload = P.load_protection(s, PERSONA, "joint")
        assert payload["training"] == {"ranker": "linear", "objective": "nCS-DCG@10(cost=12)", "depth": 60,
                                       "ranker_params": None}
        judged_topics = s.store.con.execute("SELECT count(DISTINCT topic) FROM qrels").fetchone()[0]
        assert payload["topics"] == judged_topics > 5
        assert payload["judgments"] == P.judgments_fingerprint(s, PERSONA)
    counts = _counts(p2)
    lines = lambda name: sum(1 for x in (mail / name).read_text(encoding="utf-8").splitlines() if x.strip())  # noqa: E731
    assert counts == {"topics": len(json.loads((mail / "topics.json").read_text(encoding="utf-8"))),
                      "qrels": lines("qrels.txt"), "reasons": counts["reasons"],
                      "sensitivity": sum(1 for x in (mail / "sensitivity.txt").read_text(encoding="utf-8").split("\n")
                                         if x.split()[:1] == [PERSONA])}
    assert counts["reasons"] > 0
    assert {k: payload["judgments"][k] for k in counts} == counts
    # the same judgments: the stored ranker, not retrained (searching stays interactive)
    third = _search(p2, capsys, "budget meeting")
    assert (third["ranker"], third["trained"], third["model_up_to_date"]) == ("linear", False, True)


def test_a_trained_ranker_learns_later_judgments_of_its_persona_only(p2, demo, tmp_path, capsys):
    mail = demo / "demo-mail"
    assert _import(p2, "--qrels", str(mail / "qrels.txt"), "--topics", str(mail / "topics.json")) == 0
    assert _search(p2, capsys)["trained"] is True
    with Session.open(p2) as s:
        before = P.load_protection(s, PERSONA, "joint")["judgments"]
        doc = s.store.con.execute("SELECT doc_id FROM messages WHERE doc_id NOT IN "
                                  "(SELECT doc_id FROM qrels WHERE topic = '1') ORDER BY doc_id LIMIT 1").fetchone()[0]
    # a new relevance judgment
    (tmp_path / "more.qrels").write_text(f"1 0 {doc} 1\n", encoding="utf-8")
    assert _import(p2, "--qrels", str(tmp_path / "more.qrels")) == 0
    stale = _search(p2, capsys)                       # used as it is, said to be out of date
    assert (stale["ranker"], stale["trained"], stale["model_up_to_date"]) == ("linear", False, False)
    with Session.open(p2) as s:
        assert P.load_protection(s, PERSONA, "joint")["judgments"] == before
    for json_flag in ([], ["--json"]):     # the note on stderr, with --json too (stdout stays the JSON)
        capsys.readouterr()
        assert sasc(["search", str(p2), "Falcon launch", "--protect", "joint", "--persona", PERSONA, *json_flag]) == 0
        assert "learned from older judgments" in capsys.readouterr().err
    res = _search(p2, capsys, retrain=True)
    assert (res["trained"], res["model_up_to_date"]) == (True, True)
    with Session.open(p2) as s:
        after = P.load_protection(s, PERSONA, "joint")["judgments"]
    assert after["qrels"] == before["qrels"] + 1 and after["sha256"] != before["sha256"]
    assert _search(p2, capsys)["trained"] is False
    # another persona's judgment is not what this ranker learns from
    level = {d: lvl for d, lvl in _levels(p2, OTHER)}.get(doc, 0)
    (tmp_path / "other.sens").write_text(f"{OTHER} {doc} {level + 1 if level > 0 else 1}\n", encoding="utf-8")
    assert _import(p2, "--sensitivity", str(tmp_path / "other.sens"), "--replace") == 0
    assert _search(p2, capsys)["trained"] is False
    # this persona's is
    level = {d: lvl for d, lvl in _levels(p2, PERSONA)}[doc]
    (tmp_path / "mine.sens").write_text(f"{PERSONA} {doc} {level + 1 if level > 0 else 1}\n", encoding="utf-8")
    assert _import(p2, "--sensitivity", str(tmp_path / "mine.sens"), "--replace") == 0
    assert _search(p2, capsys)["model_up_to_date"] is False
    res = _search(p2, capsys, retrain=True)
    assert (res["trained"], res["model_up_to_date"]) == (True, True)
    with Session.open(p2) as s:
        assert P.load_protection(s, PERSONA, "joint")["judgments"] == P.judgments_fingerprint(s, PERSONA)
        assert P.judgments_fingerprint(s, PERSONA)["sha256"] != after["sha256"]


def _levels(root: Path, persona: str) -> list[tuple[str, int]]:
    with Session.open(root) as s:
        return [tuple(r) for r in s.store.con.execute(
            "SELECT doc_id, level FROM sensitivity WHERE persona = ? AND topic = ''", (persona,))]


def test_the_fingerprint_follows_every_kind_of_change_seen_from_another_connection(p2, demo, tmp_path):
    mail = demo / "demo-mail"
    with Session.open(p2) as reader:
        seen = [P.judgments_fingerprint(reader, PERSONA)]
        assert P.judgments_fingerprint(reader, PERSONA) == seen[0]   # (kept while nothing changes)

        def changed(*args: str) -> dict:
            assert _import(p2, *args) == 0     # another connection (the CLI's session) writes
            now = P.judgments_fingerprint(reader, PERSONA)
            assert now["sha256"] not in {f["sha256"] for f in seen}
            seen.append(now)
            return now

        changed("--qrels", str(mail / "qrels.txt"), "--topics", str(mail / "topics.json"))
        first = reader.store.con.execute("SELECT topic, doc_id, rel FROM qrels ORDER BY topic, doc_id LIMIT 1").fetchone()
        (tmp_path / "q").write_text(f"{first[0]} 0 {first[1]} {1 - min(first[2], 1)}\n", encoding="utf-8")
        now = changed("--qrels", str(tmp_path / "q"), "--replace")               # a grade changed: same counts
        assert now["qrels"] == seen[-2]["qrels"]
        t = json.loads((mail / "topics.json").read_text(encoding="utf-8"))
        topics = t if isinstance(t, list) else t.get("topics", t)
        topic = dict(topics[0])
        topic["title"] = topic["title"] + " revised"
        (tmp_path / "t.json").write_text(json.dumps([topic]), encoding="utf-8")
        changed("--topics", str(tmp_path / "t.json"), "--replace")               # a topic's title
        doc, level = reader.store.con.execute("SELECT doc_id, level FROM sensitivity WHERE persona = ? "
                                              "AND topic = '' ORDER BY doc_id LIMIT 1", (PERSONA,)).fetchone()
        (tmp_path / "s").write_text(f"{PERSONA} {doc} {level + 1 if level > 0 else 1}\n", encoding="utf-8")
        changed("--sensitivity", str(tmp_path / "s"), "--replace")  # the persona's level
        doc = reader.store.con.execute(
            "SELECT doc_id FROM sensitivity WHERE persona = ? AND level > 0 AND doc_id NOT IN "
            "(SELECT doc_id FROM sensitivity_reasons WHERE persona = ?) ORDER BY doc_id LIMIT 1",
            (PERSONA, PERSONA)).fetchone()[0]
        (tmp_path / "r.tsv").write_text(f"{doc}\t{PERSONA}\t7\n", encoding="utf-8")
        changed("--reasons", str(tmp_path / "r.tsv"))                # a reason
        # another persona's judgment: the same fingerprint
        level = dict(_levels(p2, OTHER)).get(doc, 0)
        (tmp_path / "o").write_text(f"{OTHER} {doc} {level + 1 if level > 0 else 1}\n", encoding="utf-8")
        assert _import(p2, "--sensitivity", str(tmp_path / "o"), "--replace") == 0
        assert dict(_levels(p2, OTHER))[doc] == (level + 1 if level > 0 else 1)
        assert P.judgments_fingerprint(reader, PERSONA) == seen[-1]


def test_two_processes_searching_at_once_train_once(p2, demo):
    mail = demo / "demo-mail"
    assert _import(p2, "--qrels", str(mail / "qrels.txt"), "--topics", str(mail / "topics.json")) == 0
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "sasc_desktop.cli", "search", str(p2), "Falcon launch", "--protect", "joint",
           "--persona", PERSONA, "--json"]
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
             for _ in range(2)]
    outs = [p.communicate(timeout=600) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [e for _, e in outs]
    results = [json.loads(o) for o, _ in outs]
    assert sorted(r["trained"] for r in results) == [False, True]     # one trained, the other used it
    assert [r["ranker"] for r in results] == ["linear", "linear"]
    assert results[0]["hits"] == results[1]["hits"]
    with Session.open(p2) as s:
        path = P._model_path(s, PERSONA, "joint")
        assert P.load_protection(s, PERSONA, "joint")["judgments"] == P.judgments_fingerprint(s, PERSONA)
    assert not path.with_name(path.name + ".tmp").exists()


@pytest.fixture
def immutable(tmp_path):
    """chattr +i (not even root may change a file there); undone afterwards."""
    if shutil.which("chattr") is None:
        pytest.skip("no chattr here: cannot make a folder read-only for root")
    done = []

    def make(path: Path) -> None:
        run = subprocess.run(["chattr", "-R", "+i", str(path)], capture_output=True, text=True)
        if run.returncode:
            pytest.skip(f"chattr +i is not possible here: {run.stderr.strip()}")
        done.append(path)
    yield make
    for path in done:
        subprocess.run(["chattr", "-R", "-i", str(path)], capture_output=True, text=True)


def test_a_read_only_project_searches_with_the_ranker_it_has(p2, demo, tmp_path, capsys, immutable):
    mail = demo / "demo-mail"
    assert _search(p2, capsys)["ranker"] == "bm25"
    assert _import(p2, "--qrels", str(mail / "qrels.txt"), "--topics", str(mail / "topics.json")) == 0
    with Session.open(p2):
        pass  # (closed cleanly: no -wal left for a read-only open)
    immutable(p2)
    res = _search(p2, capsys)
    assert (res["ranker"], res["trained"], res["model_up_to_date"]) == ("bm25", False, False)
    assert len(res["hits"]) == 10


def test_a_query_plain_search_refuses_is_refused_before_any_training(p2, demo):
    from sasc_desktop.engine.errors import QueryError
    mail = demo / "demo-mail"
    assert _import(p2, "--qrels", str(mail / "qrels.txt"), "--topics", str(mail / "topics.json")) == 0
    with Session.open(p2) as s:
        path = P._model_path(s, PERSONA, "joint")
        before = path.read_bytes()
        with pytest.raises(QueryError) as err:
            s.protected_search('"falcon launch', PERSONA, approach="joint")
        with pytest.raises(QueryError) as plain:
            s.search('"falcon launch')
        assert str(err.value) == str(plain.value)
        assert path.read_bytes() == before          # still the BM25 stand-in: nothing was trained
        assert s.protected_search("falcon launch", PERSONA, approach="joint")["trained"] is True


def test_retrain_without_protect_is_a_usage_error(p2, capsys):
    with pytest.raises(SystemExit) as e:
        sasc(["search", str(p2), "Falcon", "--retrain"])
    assert e.value.code == 2
    assert "--retrain needs --protect APPROACH" in capsys.readouterr().err
