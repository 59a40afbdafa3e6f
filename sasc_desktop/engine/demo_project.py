"""The built-in demo project: synthetic mail generated, ingested, judged and (when the
classifier is available) a model trained per persona, so a fresh install has something to open."""
from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Optional

from .errors import ProjectError
from .progress import Progress, ensure
from .project import judgments
from .session import Session

DEMO_SEED = 20261122
DEMO_MESSAGES = 3000
RESOURCES = Path(__file__).resolve().parents[2] / "resources"


def _stage(parent: Progress, start: float, end: float, label: str) -> Progress:
    """A child Progress reporting into [start, end] of the parent's 0..1000 scale."""
    def forward(done: int, total: Optional[int], message: str) -> None:
        frac = (done / total) if total else 0.0
        parent.update(int(1000 * (start + (end - start) * min(frac, 1.0))), 1000, f"{label}: {message}".rstrip(": "))
    child = Progress(forward)
    child._cancel = parent._cancel  # one cancel flag for the whole build
    return child


def build_demo_project(root: Path | str, n_messages: int = DEMO_MESSAGES, seed: int = DEMO_SEED,
                       progress: Optional[Progress] = None, train: bool = True) -> Path:
    """Create the demo project at ``root`` (an empty or new folder) and return its path."""
    from .demo import generate  # the generator is only needed here

    progress = ensure(progress)
    root = Path(root)
    session = Session.create(root)
    try:
        source = root / "demo-mail"
        generate(source, n_messages=n_messages, seed=seed, progress=_stage(progress, 0.0, 0.25, "writing demo mail"))
        report = session.ingest([source / "mail"], _stage(progress, 0.25, 0.85, "importing"))
        if report.cancelled:
            raise ProjectError("building the demo project was cancelled")
        load_demo_judgments(session, source)
        if train:
            _train_all(session, _stage(progress, 0.85, 1.0, "training"))
        progress.update(1000, 1000, "demo project ready")
    finally:
        session.close()
    return root


def load_demo_judgments(session: Session, source: Path) -> None:
    from .evaluate.formats import read_qrels, read_sensitivity

    cards_path = RESOURCES / "personas.json"
    cards = json.loads(cards_path.read_text()) if cards_path.exists() else []
    sens = read_sensitivity(source / "sensitivity.txt")
    used = {j.persona for j in sens}
    known = {c["id"] for c in cards}
    judgments.save_personas(session.store, [c for c in cards if c["id"] in used]
                            + [{"id": p, "name": p} for p in sorted(used - known)])
    judgments.save_topics(session.store, json.loads((source / "topics.json").read_text()))
    judgments.save_qrels(session.store, ((q.topic, q.docid, q.rel) for q in read_qrels(source / "qrels.txt")), "demo")
    judgments.save_sensitivity(session.store, ((j.persona, j.topic or "", j.docid, j.level) for j in sens), "demo")
    if (source / "reasons.tsv").exists():  # why each sensitive message is sensitive, per persona
        try:
            from .classify.judgments_io import read_reasons, save_reasons
        except ModuleNotFoundError:
            read_reasons = None
        if read_reasons is not None:
            save_reasons(session, read_reasons(source / "reasons.tsv"), "demo")
    if not session.settings()["active_persona"] and used:
        session.update_settings(active_persona=sorted(used)[0])


def _train_all(session: Session, progress: Progress) -> None:
    try:
        classify = importlib.import_module("sasc_desktop.engine.classify")
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.startswith("sasc_desktop.engine.classify"):
            return
        raise
    personas = [p["id"] for p in judgments.personas(session.store)]
    for n, persona in enumerate(personas):
        progress.update(n, len(personas), persona)
        classify.train(session, persona)
    progress.update(len(personas), len(personas), "done")
