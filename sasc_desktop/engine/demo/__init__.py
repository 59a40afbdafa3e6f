"""Deterministic synthetic demo collection: mailboxes, topics, qrels and per-persona sensitivity.

    from sasc_desktop.engine.demo import generate
    summary = generate(Path("demo"), n_messages=3000, seed=20261122, progress=None)

Files written into ``out_dir`` (same seed and n give byte-identical files):

``mail/<custodian>/{inbox,sent,projects}.mbox``
    mboxrd: ``From <sender> <asctime UTC>`` separator lines, body lines matching ``^>*From `` get
    one more ``>``. A message can appear in the sender's sent.mbox and in recipients'
    inbox/projects.mbox as copies (same Message-ID) that differ only in their ``X-Folder``
    header, which names the copy's folder (``\\Snibert_John\\Sent Items``) in every copy.
``topics.json``
    ``[{"id": "1", "title", "description", "narrative"}, ...]``
``qrels.txt``
    TREC qrels ``topic 0 docid rel`` (rel 2 highly, 1 somewhat, 0 judged not relevant);
    docid = Message-ID without angle brackets.
``sensitivity.txt``
    ``persona docid level`` (0/1) for every message, personas ``john-snibert`` and ``holly-palmer``.
``reasons.tsv``
    ``docid<TAB>persona<TAB>reason`` (1-8) for each planted reason of a message labelled sensitive.
``manifest.json``
    seed, n_messages, counts, sensitive shares and the sha256 of every file above.
"""
from .generator import generate
from .labels import PERSONAS

__all__ = ["generate", "PERSONAS"]
