"""A small real project for classifier tests: .eml files on disk, ingested into SQLite and Whoosh,
every third message judged sensitive for persona p1 (sensitivity file and personas.json imported
as a user would)."""
import json
import random

from sasc_desktop.engine.classify import import_judgments
from sasc_desktop.engine.session import Session

SENSITIVE = ["privileged attorney advice on the lawsuit", "my divorce and family trouble", "he is an idiot, so angry",
             "confidential settlement terms", "salary and termination of Bob"]
PLAIN = ["lunch menu for friday", "quarterly gas volumes report", "meeting room booking", "pipeline capacity update",
         "conference travel schedule"]


def eml(mid: str, subject: str, body: str, sender: str = "ann@corp.com", extra: str = "") -> str:
    """One message; ``extra`` is more header lines (each ending in a newline)."""
    return (f"Message-ID: <{mid}>\nDate: Mon, 5 Mar 2001 10:00:00 -0800\nFrom: {sender}\n"
            f"To: carl@corp.com, dee@other.org\n{extra}Subject: {subject}\n\n{body}\n")


def judged_project(tmp_path, n: int, seed: int, subject=lambda i, text: f"note {i}", workers: int = 0) -> Session:
    """n messages m0..m{n-1}@corp.com in tmp_path/mail (every third judged sensitive for p1, senders
    alternating ann/bob), ingested into the project tmp_path/proj."""
    rng = random.Random(seed)
    folder = tmp_path / "mail"
    folder.mkdir()
    lines = []
    for i in range(n):
        s = i % 3 == 0
        text = rng.choice(SENSITIVE if s else PLAIN) + " " + rng.choice(PLAIN)
        (folder / f"{i:03d}.eml").write_text(eml(f"m{i}@corp.com", subject(i, text), text,
                                                 "ann@corp.com" if i % 2 else "bob@corp.com"))
        lines.append(f"p1 m{i}@corp.com {int(s)}")
    (tmp_path / "sens.txt").write_text("\n".join(lines) + "\n")
    (tmp_path / "personas.json").write_text(json.dumps([{"id": "p1", "name": "Persona One"}]))
    s = Session.create(tmp_path / "proj")
    s.ingest([folder], workers=workers)
    import_judgments(s, sensitivity_path=tmp_path / "sens.txt", personas_path=tmp_path / "personas.json")
    return s
