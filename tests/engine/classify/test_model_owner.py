"""A persona's model file holds another persona's model (copied over it by hand, restored from
the wrong backup): loading it is a ProjectError saying whose model it is and how to retrain,
never that other persona's model used silently. Real demo project, real model files."""
import shutil
from pathlib import Path

import pytest

from sasc_desktop.cli import main as sasc
from sasc_desktop.engine.classify import explain, load_model, probabilities_for, train
from sasc_desktop.engine.errors import ProjectError
from sasc_desktop.engine.session import Session


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Path:
    from sasc_desktop.engine.demo_project import build_demo_project
    return build_demo_project(tmp_path_factory.mktemp("owner") / "demo", n_messages=300)  # trains both personas


def _file(s, persona: str) -> Path:
    name = s.store.con.execute("SELECT path FROM classifier_models WHERE persona = ?", (persona,)).fetchone()[0]
    return Path(s.paths.models) / name


def test_another_personas_model_file_is_refused_until_retrained(demo, tmp_path, capsys):
    root = tmp_path / "demo"
    shutil.copytree(demo, root)
    with Session.open(root) as s:
        doc = s.store.con.execute("SELECT doc_id FROM messages ORDER BY id LIMIT 1").fetchone()[0]
        john = load_model(s, "john-snibert")
        assert load_model(s, "holly-palmer").persona_ == "holly-palmer"
        assert john.persona_ == "john-snibert"
        holly_file = _file(s, "holly-palmer")
        shutil.copyfile(_file(s, "john-snibert"), holly_file)
        message = (f"the sensitivity model file {holly_file} is persona john-snibert's model, not holly-palmer's; "
                   f"retrain with 'sasc classify train {s.root} --persona holly-palmer'")
        with pytest.raises(ProjectError) as err:
            load_model(s, "holly-palmer")
        assert str(err.value) == message
        with pytest.raises(ProjectError) as err:   # explaining with it ...
            explain(s, doc, "holly-palmer")
        assert str(err.value) == message
        with pytest.raises(ProjectError) as err:   # ... and scoring unscored mail with it
            s.store.con.execute("DELETE FROM scores WHERE persona = 'holly-palmer'")
            probabilities_for(s, "holly-palmer", [doc])
        assert str(err.value) == message
        assert load_model(s, "john-snibert").persona_ == "john-snibert"   # john's own file is his

    assert sasc(["classify", "explain", str(root), doc, "--persona", "holly-palmer"]) == 2
    assert capsys.readouterr().err == f"sasc: error: {message}\n"

    with Session.open(root) as s:   # retraining, as the message says, gives holly her own model again
        info = train(s, "holly-palmer")
        assert (info.n_train, info.incremental) == (300, False)   # a full fit: the file was not hers
        model = load_model(s, "holly-palmer")
        assert model.persona_ == "holly-palmer"
        assert explain(s, doc, "holly-palmer")["persona"] == "holly-palmer"
