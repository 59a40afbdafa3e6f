"""Features for sensitivity classification.

Pure extractors (one message's fields in, numbers out) plus :class:`FeatureSpace`, which is fitted
on a project's messages (unsupervised: TF-IDF vocabularies, network centralities, scaling; no
labels are used, so fitting on every message of the collection leaks nothing) and turns messages
into one sparse matrix. The matrix for a project's message set is cached under ``models/`` keyed
by the message set, so models can be refitted in milliseconds.

Blocks of the matrix: ``subject:``, ``body:`` and ``attach:`` word TF-IDF (kept apart), ``chars:`` character 2-5-gram TF-IDF of subject and body (hashed n-grams counted with numpy, see :mod:`.charhash`),
``meta:`` message metadata, ``pii:`` PII counts, ``net:`` sender/recipient network features, ``cue:``
sensitivity cue counts (see :mod:`.cues`).
"""
from __future__ import annotations

import hashlib
import logging
import math
import re
import os
import threading
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime
from email.utils import getaddresses
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Optional, Sequence

import numpy as np
import scipy.sparse as sp

from ..errors import ProjectError
from ..progress import Progress, ensure
from . import workers
from .cues import CUE_NAMES
from .embedded_headers import strip_embedded_headers
from .pii import PII_KINDS, detect_pii
from .workers import _chunks, _parallel, _shares, _warm_pool

log = logging.getLogger(__name__)

FEATURE_VERSION = 12  # bumped whenever an extractor changes what it computes (10: spaced cards' 1-4 digit neighbours;
#                       11: internal domains compared in IDNA's ASCII form, ascii_domain; 12: bodies read without
#                       the header blocks of the mail they quote or forward, embedded_headers)
CACHE_FORMAT = "sasc-features"
MAX_TEXT = 100_000

_REPLY = re.compile(r"^\s*(re|aw|sv)\s*:", re.I)


# ------------------------------------------------------------------------------ records
@dataclass(frozen=True)
class DocFields:
    """What feature extraction needs from one message."""
    doc_id: str
    subject: str = ""
    body: str = ""
    attachments: str = ""
    n_attachments: int = 0
    date: Optional[str] = None
    from_addr: str = ""
    to: str = ""
    cc: str = ""
    bcc: str = ""
    in_reply_to: str = ""
    importance: str = ""
    priority: str = ""
    sensitivity_header: str = ""


# ------------------------------------------------------------------------------ pure extractors
_PLAIN_ADDRESS = re.compile(r"[^\s@<>\"(),;:\[\]\\]+@[^\s@<>\"(),;:\[\]\\]+")


_NAMED_ADDRESS = re.compile(r"[A-Za-z0-9 .'_-]*<([^\s@<>\"(),;:\[\]\\]+@[^\s@<>\"(),;:\[\]\\]+)>")


@lru_cache(maxsize=100_000)
def _addresses(header: str) -> tuple[str, ...]:
    parts = [p.strip() for p in header.split(",")]
    if all(_PLAIN_ADDRESS.fullmatch(p) for p in parts if p):  # "a@x.com, b@y.org": no parser needed
        return tuple(p.lower() for p in parts if p)
    named = [_PLAIN_ADDRESS.fullmatch(p) or _NAMED_ADDRESS.fullmatch(p) for p in parts if p]
    if all(named):  # "Ann Lee <a@x.com>, b@y.org": unquoted names, no comments
        return tuple((m.group(1) if m.re is _NAMED_ADDRESS else m.group(0)).lower() for m in named)
    return tuple(a.strip().lower() for _, a in getaddresses([header]) if "@" in a)


def addresses(header: str) -> list[str]:
    """Lower-case e-mail addresses in an address header."""
    return list(_addresses(header)) if header else []


# Label separators that IDNA (UTS #46) maps to "." (ideographic, fullwidth, halfwidth full stops).
_DOTS = str.maketrans({"\u3002": ".", "\uff0e": ".", "\uff61": "."})


def ascii_domain(domain: str) -> str:
    """``domain`` in the form mail headers carry it: lower case, every label not in ASCII
    written as IDNA's ASCII form ("münchen.de", "MÜNCHEN.DE" and "xn--mnchen-3ya.de" all give
    "xn--mnchen-3ya.de"); spaces around and a final dot dropped. A label is first normalised
    (NFKC, lower case: fullwidth letters are letters) as IDNA 2008 / UTS #46 does, keeping "ß"
    and final sigma ("straße.de" is xn--strae-oqa.de, as registries and mail programs write it;
    Python's "idna" codec, IDNA 2003, would make it strasse.de, another domain). ValueError
    naming the label when one cannot be written so: an "xn--" label that is not the ASCII form
    of a label not in ASCII (its punycode does not decode, decodes to ASCII or to another
    form of the label), or a label longer than 63 characters in ASCII form. Nothing else is checked (empty labels and
    characters a domain cannot hold pass through, for the caller's own check)."""
    d = unicodedata.normalize("NFKC", domain.strip().translate(_DOTS))
    d = unicodedata.normalize("NFKC", d.lower()).translate(_DOTS).rstrip(".")
    if d.isascii() and "xn--" not in d:
        return d
    out = []
    for label in d.split("."):
        if label.startswith("xn--"):
            try:
                decoded = label[4:].encode("ascii").decode("punycode")
            except (UnicodeError, ValueError):
                decoded = ""
            again = unicodedata.normalize("NFKC", decoded.lower())
            # (an A-label stands for a label not in ASCII, and is its one ASCII form)
            if decoded.isascii() or "." in again or "xn--" + again.encode("punycode").decode("ascii") != label:
                raise ValueError(f"{label!r} is not a valid IDNA label (its punycode does not decode "
                                 "to a name with letters beyond ASCII)")
            label = again
        if not label.isascii():
            try:
                label = "xn--" + label.encode("punycode").decode("ascii")
            except UnicodeError as exc:  # (punycode encodes any text: kept for safety)
                raise ValueError(f"{label!r} cannot be written in ASCII ({exc})") from None
        if len(label) > 63:
            raise ValueError(f"the label {label[:20]!r}... is {len(label)} characters long in ASCII form, "
                             "more than a domain's 63")
        out.append(label)
    return ".".join(out)


@lru_cache(maxsize=100_000)
def _header_domain(domain: str) -> str:
    """:func:`ascii_domain` of a domain read from mail, or the domain lower-cased as it is when
    it cannot be written so (a broken header: it then matches only itself)."""
    try:
        return ascii_domain(domain)
    except ValueError:
        return domain.strip().lower()


def is_internal(address: str, internal_domains: Sequence[str]) -> bool:
    """Whether ``address`` is at one of ``internal_domains`` or a subdomain of one, both compared
    in the form mail headers carry (:func:`ascii_domain`): a domain given in Unicode
    ("münchen.de") matches the punycode mail carries (a@xn--mnchen-3ya.de), and an SMTPUTF8
    address in Unicode matches a domain given in punycode."""
    dom = _header_domain(address.rpartition("@")[2])
    return any(dom == d or dom.endswith("." + d) for d in map(_header_domain, internal_domains))


def _is_internal_as_text(address: str, internal_domains: Sequence[str]) -> bool:
    """is_internal before FEATURE_VERSION 11: domains compared as written (a feature space a
    saved model was fitted with keeps computing its features so)."""
    dom = address.rpartition("@")[2].lower()
    return any(dom == d or dom.endswith("." + d) for d in internal_domains)


# Public webmail and ISP mail domains: many people's, never an organisation's own.
PUBLIC_MAIL_DOMAINS = frozenset({
    "gmail.com", "googlemail.com", "yahoo.com", "ymail.com", "rocketmail.com", "hotmail.com", "outlook.com",
    "live.com", "msn.com", "passport.com", "aol.com", "aim.com", "icloud.com", "me.com", "mac.com", "mail.com",
    "email.com", "usa.net", "gmx.com", "gmx.net", "gmx.de", "web.de", "t-online.de", "freenet.de", "yandex.ru",
    "yandex.com", "mail.ru", "inbox.ru", "list.ru", "bk.ru", "rambler.ru", "protonmail.com", "proton.me", "pm.me",
    "tutanota.com", "zoho.com", "fastmail.com", "fastmail.fm", "hushmail.com", "lycos.com", "excite.com",
    "juno.com", "netzero.net", "netzero.com", "earthlink.net", "mindspring.com", "compuserve.com", "prodigy.net",
    "comcast.net", "verizon.net", "att.net", "sbcglobal.net", "bellsouth.net", "cox.net", "charter.net",
    "optonline.net", "btinternet.com", "btopenworld.com", "virgin.net", "ntlworld.com", "blueyonder.co.uk",
    "talktalk.net", "sky.com", "orange.fr", "wanadoo.fr", "free.fr", "laposte.net", "sfr.fr", "libero.it",
    "tiscali.it", "virgilio.it", "alice.it", "terra.com.br", "uol.com.br", "bol.com.br", "qq.com", "163.com",
    "126.com", "sina.com", "sohu.com", "naver.com", "hanmail.net", "daum.net", "rediffmail.com", "eircom.net",
    "shaw.ca", "rogers.com", "sympatico.ca", "bigpond.com", "optusnet.com.au", "xtra.co.nz",
})
# Brands with a domain per country ("yahoo.co.uk", "hotmail.fr", "gmx.at", "orange.fr"): the
# brand label followed by a country-code top-level domain, directly or under a generic second
# level ("co.uk", "com.br"). A brand under a generic top-level domain ("orange.com",
# "mail.orange.com") is a company's own domain unless PUBLIC_MAIL_DOMAINS names it ("live.com").
_PUBLIC_MAIL_BRANDS = frozenset({"yahoo", "hotmail", "outlook", "live", "msn", "aol", "gmail", "gmx", "yandex",
                                 "libero", "orange", "wanadoo", "tiscali", "btinternet"})
# Second-level labels under which a country-code top-level domain registers names ("corp.co.uk",
# "corp.com.au", "corp.co.jp", "corp.com.br", "uni.ac.uk", "charity.org.uk"), and other common
# multi-part public suffixes: a small built-in stand-in for the Public Suffix List.
_GENERIC_SECOND_LEVEL = frozenset({"co", "com", "net", "org", "ac", "edu", "gov", "govt", "mil", "or", "ne", "go",
                                   "ltd", "plc", "sch", "nhs", "gob", "nic"})
_MULTI_PART_SUFFIXES = frozenset({"me.uk", "id.au", "asn.au", "ad.jp", "ed.jp", "gr.jp", "lg.jp", "gv.at",
                                  "priv.at", "qc.ca", "on.ca", "bc.ca", "ab.ca"})


def _public_suffix_labels(labels: list[str]) -> int:
    """How many of the last labels of a domain form its public suffix (1 or 2). The
    documentation domains ("example.com", RFC 2606, and "example" under any top-level domain,
    as demo and test mail uses them) count as suffixes: "arclight.example.com" is an
    organisation's domain, "stonebridge.example.edu" another's."""
    if len(labels) >= 2 and (labels[-2] == "example" or ".".join(labels[-2:]) in _MULTI_PART_SUFFIXES
                             or (len(labels[-1]) == 2 and labels[-1].isalpha()
                                 and labels[-2] in _GENERIC_SECOND_LEVEL)):
        return 2
    return 1


def registrable_domain(domain: str) -> str:
    """The domain an organisation registers, its public suffix and one label more (eTLD+1):
    "mail.corp.com" -> "corp.com", "us.ibm.com" -> "ibm.com", "sales.corp.co.uk" -> "corp.co.uk",
    "corp.com.au" -> "corp.com.au". A bare suffix or an address literal is returned as given."""
    d = domain.strip().lower().rstrip(".")
    labels = d.split(".")
    if d.startswith("[") or all(x.isdigit() for x in labels):
        return d
    n = _public_suffix_labels(labels) + 1
    return ".".join(labels[-n:]) if len(labels) >= n else d


def is_public_mail_domain(domain: str) -> bool:
    """Whether ``domain`` (or the domain it is a subdomain of) is a public webmail or ISP domain."""
    d = domain.strip().lower().rstrip(".")
    labels = d.split(".")
    for i in range(len(labels) - 1):  # the domain itself and every parent with two labels or more
        parent = ".".join(labels[i:])
        if parent in PUBLIC_MAIL_DOMAINS:
            return True
        rest = labels[i + 1:]
        if labels[i] in _PUBLIC_MAIL_BRANDS and len(rest) == _public_suffix_labels(rest) \
                and len(rest[-1]) == 2 and rest[-1].isalpha():
            return True
    return False


INTERNAL_MIN_SHARE = 0.3     # the organisation's least share of all messages with a sender
INTERNAL_MIN_LEAD = 2.0      # ... and how many times the next organisation's count it must have


def infer_internal_domains(sender_domain_counts: dict[str, int]) -> list[str]:
    """The organisation's own domains, from how many messages each sender domain sent.

    Sender domains are grouped by registrable domain (:func:`registrable_domain`: "us.ibm.com"
    and "uk.ibm.com" count for "ibm.com", "sales.corp.co.uk" for "corp.co.uk"), and registrable
    domains by their name label, one organisation under several suffixes ("corp.co.uk",
    "corp.com"). Public webmail and ISP domains (:func:`is_public_mail_domain`) are never
    inferred, but count in the total. The most common organisation has a clear share when it
    sent at least INTERNAL_MIN_SHARE (30%) of all the messages with a sender and at least
    INTERNAL_MIN_LEAD (2) times as many as the next; its registrable domains are then the
    internal ones (their subdomains are internal through them). Another organisation is never
    internal by its count alone, however many messages it sent: a counterparty the archive
    corresponds with a lot ("partner.com") stays external. Without a clear share (a spam
    folder, a mailing-list archive, a few messages from as many domains) nothing is inferred:
    [], and every address counts as external until the project's ``internal_domains`` setting
    names the domains."""
    total = 0
    by_org: dict[str, dict[str, int]] = {}
    for d, c in sender_domain_counts.items():
        d = _header_domain((d or "").strip().lower().rstrip("."))  # (one form: "münchen.de" is xn--mnchen-3ya.de)
        if not d or not c:
            continue
        total += c
        if is_public_mail_domain(d):
            continue
        reg = registrable_domain(d)
        org = by_org.setdefault(reg.split(".")[0], {})
        org[reg] = org.get(reg, 0) + c
    if not by_org or not total:
        return []
    ranked = sorted(((sum(regs.values()), name) for name, regs in by_org.items()), key=lambda x: (-x[0], x[1]))
    top, name = ranked[0]
    runner_up = ranked[1][0] if len(ranked) > 1 else 0
    if top < INTERNAL_MIN_SHARE * total or top < INTERNAL_MIN_LEAD * runner_up:
        return []
    return sorted(by_org[name])


META_NAMES: tuple[str, ...] = (
    "weekday_mon", "weekday_tue", "weekday_wed", "weekday_thu", "weekday_fri", "weekday_sat", "weekday_sun",
    "hour_night", "hour_morning", "hour_afternoon", "hour_evening", "weekend", "no_date",
    "sender_internal", "sender_external",
    "n_recipients", "n_internal_recipients", "n_external_recipients", "any_external_recipient",
    "all_recipients_internal", "n_cc", "has_bcc",
    "subject_length", "body_length", "attachment_length", "has_attachments", "n_attachments",
    "is_reply", "is_forward", "has_quoted_original",
    "importance_high", "importance_low", "priority_high", "sensitivity_header_private",
    "sensitivity_header_confidential",
)


def metadata_features(doc: DocFields, internal_domains: Sequence[str]) -> dict[str, float]:
    """Message metadata as numbers (counts and lengths as log(1 + x)). Time features use the
    sender's local time as written in the Date header. (One message through the batch builder
    :func:`_meta_net_rows`, which holds the logic.)"""
    return dict(zip(META_NAMES, _meta_net_rows([doc], internal_domains, {})[0][:len(META_NAMES)]))


PII_NAMES: tuple[str, ...] = tuple(f"{k}_count" for k in PII_KINDS) + ("any_pii",)


def pii_features(text: str) -> dict[str, float]:
    """log(1 + hits) per PII kind over the text, and whether there is any hit."""
    counts = dict.fromkeys(PII_KINDS, 0)
    for h in detect_pii(text):
        counts[h.kind] += 1
    out = {f"{k}_count": math.log1p(v) for k, v in counts.items()}
    out["any_pii"] = float(any(counts.values()))
    return out


NET_MEASURES = ("in_degree", "out_degree", "pagerank", "betweenness")
NET_NAMES: tuple[str, ...] = tuple(f"sender_{m}" for m in NET_MEASURES) + tuple(
    f"recipients_{agg}_{m}" for agg in ("min", "max", "mean") for m in NET_MEASURES)


def network_centralities(edges: Iterable[tuple[str, str, Any, int]], exact_limit: int = 1000,
                         k: int = 200, seed: int = 0) -> dict[str, tuple[float, float, float, float]]:
    """address -> (in-degree centrality, out-degree centrality, PageRank, betweenness) on the
    weighted sender -> recipient graph. Betweenness is approximated with ``k`` sampled sources
    when the graph has more than ``exact_limit`` nodes."""
    import networkx as nx

    g = nx.DiGraph()
    for s, r, _kind, count in edges:
        if s == r:
            continue
        w = g[s][r]["weight"] + count if g.has_edge(s, r) else count
        g.add_edge(s, r, weight=w)
    if g.number_of_nodes() == 0:
        return {}
    ind, outd = nx.in_degree_centrality(g), nx.out_degree_centrality(g)
    try:
        pr = nx.pagerank(g, weight="weight", max_iter=200)
    except nx.PowerIterationFailedConvergence:
        pr = {n: 1.0 / g.number_of_nodes() for n in g}
    n = g.number_of_nodes()
    btw = nx.betweenness_centrality(g, k=None if n <= exact_limit else min(k, n), seed=seed)
    return {a: (ind[a], outd[a], pr[a] * n, btw[a]) for a in g}


def network_features(doc: DocFields, central: dict[str, tuple[float, float, float, float]]) -> dict[str, float]:
    """The sender's centralities and the min/max/mean of the recipients' (NET_NAMES order); one
    message through :func:`_meta_net_rows`."""
    return dict(zip(NET_NAMES, _meta_net_rows([doc], (), central)[0][len(META_NAMES):]))


# The dense block's columns, in order: metadata, PII, network, cues.
DENSE_NAMES: tuple[str, ...] = (tuple(f"meta:{n}" for n in META_NAMES) + tuple(f"pii:{n}" for n in PII_NAMES)
                                + tuple(f"net:{n}" for n in NET_NAMES) + tuple(f"cue:{n}" for n in CUE_NAMES))


# ------------------------------------------------------------------------------ the feature space
@dataclass
class FeatureOptions:
    ngram_range: tuple[int, int] = (1, 1)
    char_ngram_range: tuple[int, int] = (2, 5)
    min_df: int = 2
    max_df: float = 0.95
    max_features: int = 150_000
    weights: dict[str, float] = field(default_factory=lambda: {
        "subject": 0.5, "body": 0.7, "attach": 0.5, "chars": 1.0, "meta": 0.03, "pii": 0.03, "net": 0.03,
        "cue": 0.1})


def _text_vectorizer(opts: FeatureOptions, max_features: int, chars: bool = False):
    from sklearn.feature_extraction.text import TfidfVectorizer
    if chars:
        from .charhash import HashedCharTfidf
        return HashedCharTfidf(ngram_range=opts.char_ngram_range, min_df=opts.min_df, max_df=opts.max_df,
                               max_features=max_features)
    return TfidfVectorizer(ngram_range=opts.ngram_range, min_df=opts.min_df, max_df=opts.max_df,
                           max_features=max_features, sublinear_tf=True, lowercase=True,
                           token_pattern=r"(?u)\b[^\W\d_][\w'-]*[^\W_]\b|\b[^\W\d_]\b", dtype=np.float32)


TEXT_BLOCKS = ("subject", "body", "attach", "chars")
TEXT_OF = {"subject": lambda d: d.subject, "body": lambda d: d.body[:MAX_TEXT],
           "attach": lambda d: d.attachments[:MAX_TEXT],
           "chars": lambda d: d.subject + "\n" + d.body[:20_000]}


def _with_body(doc: DocFields, body: str) -> DocFields:
    """``doc`` with another body (dataclasses.replace without its checks: a hot path)."""
    new = object.__new__(DocFields)
    new.__dict__.update(doc.__dict__)
    new.__dict__["body"] = body
    return new


def _text_size(doc: DocFields) -> int:
    """How much text of a message feature extraction reads: its weight when shares are cut."""
    return len(doc.subject) + min(len(doc.body), MAX_TEXT)


class FeatureSpace:
    """Fitted on a list of messages; ``transform`` maps messages to the model's columns."""

    def __init__(self, options: Optional[FeatureOptions] = None):
        self.options = options or FeatureOptions()

    # A fitted space never changes, so it is pickled once and the bytes reused: saving a model
    # after each review decision then costs a memory copy, not a re-serialisation.
    def __getstate__(self):
        blob = self.__dict__.get("_blob")
        if blob is None:
            import pickle
            blob = pickle.dumps({k: v for k, v in self.__dict__.items() if k != "_blob"}, protocol=5)
            if hasattr(self, "names_"):  # fitted: cache
                self.__dict__["_blob"] = blob
        return {"_blob": blob}

    def __setstate__(self, state):
        if "_blob" in state:
            import pickle
            self.__dict__.update(pickle.loads(state["_blob"]))
            self.__dict__["_blob"] = state["_blob"]
        else:
            self.__dict__.update(state)

    def fit_transform(self, docs: Sequence[DocFields], internal_domains: Sequence[str],
                      central: dict[str, tuple[float, float, float, float]],
                      progress: Optional[Progress] = None) -> sp.csr_matrix:
        progress = ensure(progress)
        o = self.options
        self.__dict__.pop("names_", None)  # the dense columns are this version's (see _dense_names)
        # In the form mail headers carry (ascii_domain); a space fitted before FEATURE_VERSION
        # 11 has no domain_form_ and keeps comparing domains as written (_rows_args).
        self.internal_domains_ = list(dict.fromkeys(_header_domain(d) for d in internal_domains))
        self.domain_form_ = "ascii"
        # Bodies read without the header blocks of quoted and forwarded mail (embedded_headers); a
        # space fitted before FEATURE_VERSION 12 has no body_form_ and reads them as they are (_read).
        self.body_form_ = "stripped"
        raw, docs = docs, self._read(docs)
        self.central_ = central
        self.vectorizers_ = {}
        blocks = []
        share = {"subject": 0.15, "body": 0.6, "attach": 0.25, "chars": 1.0}
        if len(_chunks(docs, _text_size)) > 1:
            # workers start (importing this module) while the vocabularies are fitted, ready for the dense block
            _warm_pool([__name__])
        for name in TEXT_BLOCKS:
            progress.update(0, None, f"vectorising {name}")
            texts = [TEXT_OF[name](d) for d in docs]
            vec = _text_vectorizer(o, max(1000, int(o.max_features * share[name])), chars=name == "chars")
            try:
                m = vec.fit_transform(texts)
                if name != "chars":
                    from .charhash import WordTfidf
                    vec = WordTfidf(vec)  # the same transform without scikit-learn
            except ValueError:  # empty vocabulary (e.g. no attachments at all)
                vec = None
                m = sp.csr_matrix((len(docs), 0), dtype=np.float32)
            self.vectorizers_[name] = vec
            blocks.append(m * o.weights[name])
        progress.update(0, None, "metadata, PII and network features")
        dense = self._dense_raw(raw, docs)
        self.mean_ = dense.mean(axis=0)
        std = dense.std(axis=0)
        self.std_ = np.where(std > 1e-9, std, 1.0)
        blocks.append(self._dense_scaled(dense))
        self.names_ = self._names()
        return sp.hstack(blocks, format="csr", dtype=np.float32)

    def _names(self) -> list[str]:
        names = []
        for name in TEXT_BLOCKS:
            vec = self.vectorizers_[name]
            if vec is not None:
                names += [f"{name}:{t}" for t in vec.get_feature_names_out()]
        return names + list(DENSE_NAMES)

    def _dense_raw(self, docs: Sequence[DocFields], read: Optional[Sequence[DocFields]] = None) -> np.ndarray:
        """The dense columns (DENSE_NAMES, before scaling) of these messages as received;
        ``read``: them as :meth:`_read` gives them, when already at hand."""
        read = self._read(docs) if read is None else read
        shares = _shares(np.fromiter(map(_text_size, docs), dtype=np.int64, count=len(docs)))
        if len(shares) > 1:
            args = [self._rows_args(docs[a:b], read[a:b]) for a, b in shares]
            parts = _parallel(_dense_rows, args[:-1], lambda: _dense_rows(args[-1]))
            if parts is not None:
                return np.vstack(parts)
        return _dense_rows(self._rows_args(docs, read))

    def _read(self, docs: Sequence[DocFields]) -> Sequence[DocFields]:
        """The messages as this space reads them: a space fitted from FEATURE_VERSION 12
        (body_form_ "stripped") reads bodies without the header blocks of the mail they quote or
        forward and without addresses (:func:`.embedded_headers.strip_embedded_headers`, on the
        first MAX_TEXT characters, all that features read); one fitted before reads them as they
        are, as when it was fitted, so a saved model's features do not change under it."""
        if self.__dict__.get("body_form_") != "stripped":
            return docs
        out = []
        for d in docs:
            body = d.body if len(d.body) <= MAX_TEXT else d.body[:MAX_TEXT]
            stripped = strip_embedded_headers(body)
            out.append(d if stripped is d.body else _with_body(d, stripped))
        return out

    def _rows_args(self, docs: Sequence[DocFields], read: Optional[Sequence[DocFields]] = None) -> tuple:
        """:func:`_dense_rows`'s arguments for these messages (as received; ``read``: as
        :meth:`_read` gives them, when at hand): a space fitted before FEATURE_VERSION 11 (no
        domain_form_) compares internal domains as written, and one fitted before 12 reads
        bodies as they are, as when it was fitted, so a saved model's features do not change
        under it. A space that strips embedded headers passes the messages as received too:
        the forward and quoted-original markers are looked for in them."""
        read = self._read(docs) if read is None else read
        if self.__dict__.get("domain_form_") != "ascii":
            return self.internal_domains_, self.central_, read, True
        if read is docs:
            return self.internal_domains_, self.central_, docs
        return self.internal_domains_, self.central_, read, False, docs

    def _dense_names(self) -> list[str]:
        """The dense columns this space was fitted on: DENSE_NAMES of the version that fitted it
        (a space saved in a model keeps its columns when a later version adds features)."""
        names = self.__dict__.get("names_")
        return list(DENSE_NAMES) if names is None else names[len(names) - len(self.mean_):]

    def _dense_scaled(self, dense: np.ndarray) -> sp.csr_matrix:
        """Scaled and weighted dense columns from ``dense`` (the DENSE_NAMES columns)."""
        fitted = self._dense_names()
        if fitted != list(DENSE_NAMES):
            col = {n: j for j, n in enumerate(DENSE_NAMES)}
            gone = [n for n in fitted if n not in col]
            if gone:
                raise ProjectError(f"this model uses features this version no longer computes ({', '.join(gone[:5])}); "
                                   "retrain it")
            dense = dense[:, [col[n] for n in fitted]]
        z = np.clip((dense - self.mean_) / self.std_, -5, 5)
        w = self.options.weights
        scale = np.array([w.get("cue", 0.0) if n.startswith("cue:") else w[n.partition(":")[0]] for n in fitted])
        return sp.csr_matrix((z * scale).astype(np.float32))

    def transform(self, docs: Sequence[DocFields]) -> sp.csr_matrix:
        """Feature rows for these messages; large batches are split over worker processes (this
        process working on the last share meanwhile)."""
        chunks = _chunks(docs, _text_size)
        if len(chunks) > 1:
            payload = self._payload()
            parts = _parallel(_transform_chunk, [(payload, c) for c in chunks[:-1]],
                              lambda: self._transform(chunks[-1]))
            if parts is not None:
                return sp.vstack(parts, format="csr", dtype=np.float32)
        return self._transform(docs)

    def transform_store(self, store, ids: Optional[Sequence[int]] = None) -> tuple[np.ndarray, sp.csr_matrix]:
        """(message row ids, feature rows) of the project's messages (all, by id, or these row
        ids in this order), read from the store and transformed. Large sets are split into
        shares of about equal text; worker processes read and transform their own shares from
        the database file (no message text is pickled) while this process does the last."""
        con = store.con
        if ids is None:
            sizes = con.execute("SELECT id, length(subject) + length(body) FROM messages ORDER BY id").fetchall()
            row_ids = np.array([r[0] for r in sizes], dtype=np.int64)
            shares = _shares(np.array([r[1] or 0 for r in sizes], dtype=np.int64))
            if len(shares) > 1:
                payload, path = self._payload(), str(store.path)
                ranges = [(int(row_ids[a]), int(row_ids[b - 1])) for a, b in shares]
                ranges[-1] = (ranges[-1][0], None)  # the last share takes any message added since
                parts = _parallel(_transform_range, [(payload, path, lo, hi) for lo, hi in ranges[:-1]],
                                  lambda: _transform_range((self, con, *ranges[-1])))
                if parts is not None:
                    return (np.concatenate([i for i, _ in parts]),
                            sp.vstack([x for _, x in parts], format="csr", dtype=np.float32))
            return _transform_range((self, con, None, None))
        ids = list(ids)
        return np.array(ids, dtype=np.int64), self.transform([d for _, d in load_docs(store, ids)])

    def _payload(self) -> tuple[str, bytes]:
        """(key, pickled bytes) of this fitted space, for workers: each unpickles a space once
        and keeps it under its key."""
        got = self.__dict__.get("_payload_cache")
        if got is None:
            blob = self.__getstate__()["_blob"]
            got = (hashlib.sha1(blob).hexdigest(), blob)
            if hasattr(self, "names_"):
                self.__dict__["_payload_cache"] = got
        return got

    def _transform(self, docs: Sequence[DocFields]) -> sp.csr_matrix:
        w = self.options.weights
        blocks = []
        read = self._read(docs)
        for name in TEXT_BLOCKS:
            vec = self.vectorizers_[name]
            if vec is None:
                blocks.append(sp.csr_matrix((len(docs), 0), dtype=np.float32))
            else:
                blocks.append(vec.transform([TEXT_OF[name](d) for d in read]) * w[name])
        blocks.append(self._dense_scaled(_dense_rows(self._rows_args(docs, read))))
        return sp.hstack(blocks, format="csr", dtype=np.float32)


# ------------------------------------------------------------------------------ worker processes
_SPACES: dict[str, "FeatureSpace"] = {}   # in a worker: fitted spaces by payload key


def _space_of(payload: tuple[str, bytes]) -> "FeatureSpace":
    workers._IN_WORKER = True  # a worker never starts workers of its own
    key, blob = payload
    space = _SPACES.get(key)
    if space is None:
        space = FeatureSpace.__new__(FeatureSpace)
        space.__setstate__({"_blob": blob})  # the bytes __getstate__ gave
        if len(_SPACES) >= 4:
            _SPACES.clear()
        _SPACES[key] = space
    return space


_LOG1P = np.array([math.log1p(i) for i in range(4096)])  # math.log1p, as the extractors use


def _log1p_counts(counts: np.ndarray) -> np.ndarray:
    """math.log1p of non-negative integer counts, value for value (numpy's own log1p may differ
    from the C library's in the last bit)."""
    counts = np.asarray(counts, dtype=np.int64)
    if counts.size and counts.max() >= len(_LOG1P):
        return np.array([math.log1p(v) for v in counts.ravel().tolist()]).reshape(counts.shape)
    return _LOG1P[counts]


class _CueCounter:
    """:func:`.cues.cue_counts` for a batch of texts, equal to it text for text, without running
    the combined cue regex over most texts.

    The cue regex is ``\\b(?P<family>alternatives)\\b`` per family. An alternative written with
    letters, ``\\w``, letter classes, ``(?:letters|...)`` and quantifiers only (a "word"
    alternative) matches exactly one whole run of word characters, decided by that run alone.
    Every other alternative (a "phrase": "do not forward") is searched for first (in ASCII text,
    where matching case-insensitively is lower-casing, only when the lower-cased text contains
    the phrase's literal beginning); a text where one may match is counted by ``cue_counts``
    itself. In every other text each cue match is one word-character run that a word
    alternative matches in full, the first family in order winning: a lookup per distinct run,
    memoised."""

    _WORD_ALT = re.compile(r"[^\W\d_](?:[^\W\d_]|\\w|\[(?:[^\W\d_]|\\u[0-9a-fA-F]{4})+\]"
                           r"|\(\?:[^\W\d_]+(?:\|[^\W\d_]+)*\)|[?*+])*")
    _RUN = re.compile(r"\w+")

    def __init__(self):
        from . import cues
        self.kinds = cues.CUE_KINDS
        self._cue_counts = cues.cue_counts
        words, phrases = {}, []
        for kind, pattern in cues.CUE_PATTERNS.items():
            for alt in _split_alternatives(pattern):
                escaped = [chr(int(h, 16)) for h in re.findall(r"\\u([0-9a-fA-F]{4})", alt)]
                if self._WORD_ALT.fullmatch(alt) and all(c.isalpha() for c in escaped):
                    words.setdefault(kind, []).append(alt)
                else:
                    phrases.append(alt)
        self._word = re.compile("|".join(f"(?P<{k}>{'|'.join(a)})" for k, a in words.items()), re.I)
        self._phrase = re.compile(r"\b(?:" + "|".join(phrases) + ")", re.I) if phrases else None
        starts = [_literal_start(a) for a in phrases]
        self._starts = tuple(starts) if all(starts) else None  # None: always search
        self._index = {k: i for i, k in enumerate(self.kinds)}
        self._memo: dict[str, int] = {}

    def _family(self, run: str) -> int:
        m = self._word.fullmatch(run)
        i = self._index[m.lastgroup] if m else len(self.kinds)
        if len(self._memo) > 500_000:
            self._memo.clear()
        self._memo[run] = i
        return i

    def counts(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), families) counts, as ``cue_counts`` gives them."""
        k = len(self.kinds)
        out = np.zeros((len(texts), k), dtype=np.int64)
        get, family, runs_of, phrase = self._memo.get, self._family, self._RUN.findall, self._phrase
        fams: list[int] = []
        lens = []
        starts = self._starts
        for i, t in enumerate(texts):
            if phrase is not None and (starts is None or not t.isascii() or any(map(t.lower().__contains__, starts))) \
                    and phrase.search(t):
                c = self._cue_counts(t)
                out[i] = [c[kind] for kind in self.kinds]
                lens.append(0)
                continue
            runs = runs_of(t)
            f = list(map(get, runs))
            if None in f:
                f = [family(r) if v is None else v for r, v in zip(runs, f)]
            fams += f
            lens.append(len(f))
        rows = np.repeat(np.arange(len(texts), dtype=np.int64), lens)
        flat = np.bincount(rows * (k + 1) + np.asarray(fams, dtype=np.int64), minlength=len(texts) * (k + 1))
        out += flat.reshape(len(texts), k + 1)[:, :k]
        return out


def _literal_start(alternative: str) -> str:
    """The lower-cased plain ASCII characters an alternative must begin with ("" if none)."""
    m = re.match(r"[A-Za-z0-9 ]*", alternative)
    lit = m.group(0)
    rest = alternative[len(lit):]
    if rest[:1] in ("?", "*", "{"):  # the last character is optional
        lit = lit[:-1]
    return lit.lower()


def _split_alternatives(pattern: str) -> list[str]:
    """The top-level alternatives of a regular expression (outside groups and classes)."""
    out, depth, in_class, i, start = [], 0, False, 0, 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "|" and depth == 0:
            out.append(pattern[start:i])
            start = i + 1
        i += 1
    out.append(pattern[start:])
    return out


_CUE_COUNTER: Optional[_CueCounter] = None


def _cue_block(docs: Sequence[DocFields]) -> np.ndarray:
    """The ``cue:`` columns of :func:`.cues.cue_features` for a batch, in CUE_NAMES order."""
    global _CUE_COUNTER
    from .cues import _EXCLAIM
    if _CUE_COUNTER is None:
        _CUE_COUNTER = _CueCounter()
    cc = _CUE_COUNTER
    bodies = [d.body[:MAX_TEXT] for d in docs]
    body = _log1p_counts(cc.counts(bodies))
    subject = (cc.counts([d.subject for d in docs]) > 0).astype(np.float64)
    exclaim = _log1p_counts([len(_EXCLAIM.findall(b)) for b in bodies])
    cols = {f"{k}_body": body[:, i] for i, k in enumerate(cc.kinds)}
    cols.update({f"{k}_subject": subject[:, i] for i, k in enumerate(cc.kinds)})
    cols["exclaim"] = exclaim
    return np.column_stack([cols[n] for n in CUE_NAMES]) if len(docs) else np.zeros((0, len(CUE_NAMES)))


def _pii_block(docs: Sequence[DocFields]) -> np.ndarray:
    """The ``pii:`` columns of :func:`pii_features` for a batch, in PII_NAMES order."""
    from .pii import pii_count_rows
    counts = pii_count_rows(["\n".join((d.subject, d.body[:MAX_TEXT], d.attachments[:MAX_TEXT])) for d in docs])
    return np.column_stack([_log1p_counts(counts), (counts.sum(axis=1) > 0).astype(np.float64)])


def _dense_rows(args) -> np.ndarray:
    """The dense block (DENSE_NAMES: meta, pii, net, cue) of these messages, PII and cue counts
    found batch-wise; tests/engine/test_classify_scoring_speed.py holds an independent
    per-message reference it must equal."""
    internal_domains, central, docs = args[:3]
    as_text = len(args) > 3 and args[3]   # (a space fitted before FEATURE_VERSION 11: FeatureSpace._rows_args)
    raw = args[4] if len(args) > 4 else None  # (docs as received, when docs are read without embedded headers)
    nm = len(META_NAMES)
    mn = np.asarray(_meta_net_rows(docs, internal_domains, central, as_text, raw), dtype=np.float64).reshape(len(docs), nm + len(NET_NAMES))
    return np.hstack([mn[:, :nm], _pii_block(docs), mn[:, nm:], _cue_block(docs)])


_M = {n: i for i, n in enumerate(META_NAMES)}
_HOUR_COL = [_M["hour_night"]] * 6 + [_M["hour_morning"]] * 6 + [_M["hour_afternoon"]] * 6 + [_M["hour_evening"]] * 6
# A forward: the subject begins "Fw:", "Fwd:" (German "WG:"), or the body carries a mail
# program's forward marker: Lotus Notes' "----- Forwarded by", Gmail's "---------- Forwarded
# message", Thunderbird's "-------- Forwarded Message", Apple Mail's "Begin forwarded message:".
# Outlook's "-----Original Message-----" heads the quoted original of replies and forwards alike
# (its forwards have an "FW:" subject): it is the separate has_quoted_original feature.
_FORWARD_SUBJECT = re.compile(r"\s*(?:fw|fwd|wg)\s*:", re.I)
_FORWARD_BODY = re.compile(r"-+ *forward(?:ed by\b|ed message\b)|begin forwarded message\s*:", re.I)
_QUOTED_ORIGINAL = re.compile(r"-{3,} *original message\b", re.I)


def _is_forward(subject: str, body: str) -> bool:
    """Whether the message is a forward: an "Fw:"/"Fwd:" subject or a forward marker in the body."""
    return _FORWARD_SUBJECT.match(subject) is not None or _FORWARD_BODY.search(body) is not None


_HEADER_TOKEN = re.compile(r"""[\s"'(]*([^\s"'()]*)""")


def _header_token(value: str) -> str:
    """The first word of a header value, lower case, quotes and brackets aside:
    "High" -> "high", '"1 (Highest)"' -> "1", "non-urgent" -> "non-urgent"."""
    return _HEADER_TOKEN.match(value).group(1).lower()


def _meta_net_rows(docs: Sequence[DocFields], internal_domains: Sequence[str],
                   central: dict[str, tuple[float, float, float, float]], as_text: bool = False,
                   raw: Optional[Sequence[DocFields]] = None) -> list[list[float]]:
    """Per message: the metadata columns (META_NAMES order) then the network columns (NET_NAMES
    order), built as lists (no dict per message) with whether an address is internal memoised
    for the batch. :func:`metadata_features` and :func:`network_features` are views of this.
    ``raw``: the same messages as received when ``docs`` are read without embedded headers
    (:meth:`FeatureSpace._read`): the forward and quoted-original markers are looked for there."""
    # (domains compared in the form mail headers carry, or as written for an older space)
    matches = _is_internal_as_text if as_text else is_internal
    if not as_text:
        internal_domains = [_header_domain(d) for d in internal_domains]
    log1p = math.log1p
    internal: dict[str, bool] = {}
    zero = (0.0, 0.0, 0.0, 0.0)
    get_c = central.get
    i = _M
    rows = []
    for k, doc in enumerate(docs):
        f = [0.0] * len(META_NAMES)
        when = None
        if doc.date:
            try:
                when = datetime.fromisoformat(doc.date)
            except ValueError:
                when = None
        if when is None:
            f[i["no_date"]] = 1.0
        else:
            wd = when.weekday()
            f[wd] = 1.0
            f[i["weekend"]] = float(wd >= 5)
            f[_HOUR_COL[when.hour]] = 1.0
        sender = doc.from_addr.lower()
        if sender:
            s_int = internal.get(sender)
            if s_int is None:
                s_int = internal[sender] = matches(sender, internal_domains)
            f[i["sender_internal"]], f[i["sender_external"]] = float(s_int), float(not s_int)
        to, cc, bcc = addresses(doc.to), addresses(doc.cc), addresses(doc.bcc)
        rcpts = list(dict.fromkeys(to + cc + bcc))
        n_int = 0
        for a in rcpts:
            v = internal.get(a)
            if v is None:
                v = internal[a] = matches(a, internal_domains)
            n_int += v
        f[i["n_recipients"]] = log1p(len(rcpts))
        f[i["n_internal_recipients"]] = log1p(n_int)
        f[i["n_external_recipients"]] = log1p(len(rcpts) - n_int)
        f[i["any_external_recipient"]] = float(len(rcpts) > n_int)
        f[i["all_recipients_internal"]] = float(bool(rcpts) and n_int == len(rcpts))
        f[i["n_cc"]] = log1p(len(cc))
        f[i["has_bcc"]] = float(bool(bcc))
        f[i["subject_length"]] = log1p(len(doc.subject))
        f[i["body_length"]] = log1p(len(doc.body))
        f[i["attachment_length"]] = log1p(len(doc.attachments))
        f[i["has_attachments"]] = float(doc.n_attachments > 0)
        f[i["n_attachments"]] = log1p(doc.n_attachments)
        f[i["is_reply"]] = float(bool(doc.in_reply_to) or bool(_REPLY.match(doc.subject)))
        head = (doc if raw is None else raw[k]).body[:20000]
        f[i["is_forward"]] = float(_is_forward(doc.subject, head))
        f[i["has_quoted_original"]] = float(_QUOTED_ORIGINAL.search(head) is not None)
        # Importance: high | normal | low; X-Priority: 1 (Highest) .. 5 (Lowest); Priority:
        # urgent | normal | non-urgent. The first word decides ("not high", "non-urgent" do not).
        imp, pri, sens = _header_token(doc.importance), _header_token(doc.priority), doc.sensitivity_header.lower()
        f[i["importance_high"]] = float(imp == "high")
        f[i["importance_low"]] = float(imp == "low")
        f[i["priority_high"]] = float(pri in ("urgent", "high", "highest", "1", "2"))
        f[i["sensitivity_header_private"]] = float("private" in sens or "personal" in sens)
        f[i["sensitivity_header_confidential"]] = float("confidential" in sens)
        # network_features
        for v in get_c(sender, zero):
            f.append(float(v))
        if rcpts:
            cols = list(zip(*[get_c(a, zero) for a in rcpts]))
            mins = [float(min(c)) for c in cols]
            maxs = [float(max(c)) for c in cols]
            means = [float(sum(c) / len(c)) for c in cols]
        else:
            mins = maxs = means = [0.0] * 4
        f += mins + maxs + means
        rows.append(f)
    return rows


def _transform_chunk(args) -> sp.csr_matrix:
    space, docs = args
    if isinstance(space, tuple):
        space = _space_of(space)
    return space._transform(docs)


def _transform_range(args) -> tuple[np.ndarray, sp.csr_matrix]:
    """(row ids, feature rows) of the messages with row ids lo..hi (None: unbounded), read from
    an open connection or (in a worker) the project database file."""
    space, con, lo, hi = args
    if isinstance(con, str):
        import sqlite3
        con = sqlite3.connect(f"file:{con}?mode=ro", uri=True, timeout=30.0)
        try:
            ids, docs = _docs_in_range(con, lo, hi)
        finally:
            con.close()
    else:
        ids, docs = _docs_in_range(con, lo, hi)
    space = _space_of(space) if isinstance(space, tuple) else space
    return ids, space._transform(docs)


# ------------------------------------------------------------------------------ project access
_DOC_SQL = ("SELECT id, doc_id, subject, body, n_attachments, date, from_addr, recipients, cc, bcc, "
            "in_reply_to, importance, priority, sensitivity_header FROM messages")


def _docs_in_range(con, lo: Optional[int], hi: Optional[int]) -> tuple[np.ndarray, list[DocFields]]:
    """(row ids, DocFields) of the messages with row ids from lo to hi (None: unbounded), ordered
    by id: the same records as :func:`load_docs`."""
    conds, params = [], []
    for op, v in ((">=", lo), ("<=", hi)):
        if v is not None:
            conds.append(f" {{col}} {op} ?")
            params.append(v)
    where = (" WHERE" + " AND".join(conds)).format(col="id") if conds else ""
    rows = con.execute(_DOC_SQL + where + " ORDER BY id", params).fetchall()
    att_where = "".join(" AND" + c for c in conds).format(col="message")
    atts: dict[int, list[str]] = {}
    for mid, text in con.execute("SELECT message, text FROM attachments WHERE text IS NOT NULL" + att_where
                                 + " ORDER BY message, ord", params):
        atts.setdefault(mid, []).append(text)
    return np.array([r[0] for r in rows], dtype=np.int64), [_doc_of(r, atts) for r in rows]


def _doc_of(r, atts: dict[int, list[str]]) -> DocFields:
    return DocFields(doc_id=r[1], subject=r[2] or "", body=r[3] or "", attachments="\n\n".join(atts.get(r[0], ())),
                     n_attachments=r[4] or 0, date=r[5], from_addr=r[6] or "", to=r[7] or "", cc=r[8] or "",
                     bcc=r[9] or "", in_reply_to=r[10] or "", importance=r[11] or "", priority=r[12] or "",
                     sensitivity_header=r[13] or "")


def load_docs(store, ids: Optional[Sequence[int]] = None) -> list[tuple[int, DocFields]]:
    """(row id, DocFields) for the project's messages (all, ordered by id, or the given ids)."""
    con = store.con
    if ids is None:
        rows = con.execute(_DOC_SQL + " ORDER BY id").fetchall()
        att_rows = con.execute("SELECT message, text FROM attachments WHERE text IS NOT NULL ORDER BY message, ord")
    else:
        ids = list(ids)
        rows, att_rows = [], []
        for i in range(0, len(ids), 900):
            chunk = ids[i:i + 900]
            marks = ",".join("?" * len(chunk))
            rows += con.execute(f"{_DOC_SQL} WHERE id IN ({marks})", chunk).fetchall()
            att_rows += con.execute(f"SELECT message, text FROM attachments WHERE text IS NOT NULL AND message IN ({marks}) "
                                    "ORDER BY message, ord", chunk).fetchall()
        order = {v: k for k, v in enumerate(ids)}
        rows.sort(key=lambda r: order[r[0]])
    atts: dict[int, list[str]] = {}
    for mid, text in att_rows:
        atts.setdefault(mid, []).append(text)
    return [(r[0], _doc_of(r, atts)) for r in rows]


def project_internal_domains(session) -> list[str]:
    """The configured internal domains (in the form mail headers carry them, :func:`ascii_domain`:
    lower case, IDNA's ASCII form, no "@" or spaces; a bare string, which settings written
    before validation may hold, is split at commas and spaces), else those inferred from the
    sender domains (:func:`infer_internal_domains`, in the same form)."""
    configured = session.settings().get("internal_domains")
    if isinstance(configured, str):
        configured = re.split(r"[\s,;]+", configured)
    domains = sorted({_header_domain(d.strip().lstrip("@")) for d in configured or ()
                      if isinstance(d, str) and d.strip().lstrip("@").strip()})
    if domains:
        return domains
    return infer_internal_domains(dict(session.sender_domains()))


@dataclass
class FeatureMatrix:
    key: str
    ids: np.ndarray          # message row ids, ascending
    doc_ids: list[str]
    X: sp.csr_matrix
    space: FeatureSpace

    def __post_init__(self):
        self.row_of = {d: i for i, d in enumerate(self.doc_ids)}

    @property
    def names(self) -> list[str]:
        return self.space.names_

    def rows(self, doc_ids: Sequence[str]) -> np.ndarray:
        try:
            return np.fromiter((self.row_of[d] for d in doc_ids), dtype=np.int64, count=len(doc_ids))
        except KeyError as exc:
            from ..errors import InputError
            raise InputError(f"no document {exc.args[0]!r} in this project") from None


_KEYS: dict[tuple, tuple[str, list[str]]] = {}


def message_set_key(session, options: Optional[FeatureOptions] = None) -> tuple[str, list[str]]:
    """A key of the project's message set (ids and content hashes), feature version, options and
    internal domains. Hashing every row costs ~0.1 s at 5,000 messages, so the key is reused
    while a cheap fingerprint holds: count, largest id and its hash, id sum, configured domains,
    and the count and largest id of ``copies``. The importer adds a copies row for every copy of
    a message it sees, also when a sender's copy replaces the kept copy of an existing row (new
    body, Bcc and hash, new edges: no message row is added), so that change is seen too."""
    con = session.store.con
    n, top, total = con.execute("SELECT COUNT(*), MAX(id), TOTAL(id) FROM messages").fetchone()
    top_sha = con.execute("SELECT raw_sha256 FROM messages WHERE id = ?", (top,)).fetchone() if top is not None else None
    copies = tuple(con.execute("SELECT COUNT(*), MAX(id) FROM copies").fetchone())
    fp = (str(session.paths.root), n, top, total, top_sha, copies, repr(session.settings().get("internal_domains")),
          repr(options or FeatureOptions()))
    hit = _KEYS.get(fp)
    if hit is not None:
        return hit[0], list(hit[1])
    out = _message_set_key(session, options)
    if len(_KEYS) > 64:
        _KEYS.clear()
    _KEYS[fp] = (out[0], list(out[1]))
    return out


def _message_set_key(session, options: Optional[FeatureOptions] = None) -> tuple[str, list[str]]:
    h = hashlib.sha1()
    h.update(f"v{FEATURE_VERSION};{options or FeatureOptions()!r};".encode())
    domains = project_internal_domains(session)
    h.update(("domains:" + ",".join(domains) + ";").encode())
    for rid, sha in session.store.con.execute("SELECT id, raw_sha256 FROM messages ORDER BY id"):
        h.update(f"{rid}:{sha};".encode())
    return h.hexdigest()[:20], domains


_MEMO: dict[tuple[str, str], FeatureMatrix] = {}
_MEMO_LOCK = threading.Lock()


def _write_cache(session, path: Path, fm: FeatureMatrix) -> None:
    """Save the matrix as the on-disk cache. Only a cache: where the models folder cannot be
    written (read-only medium, no permission, disk full) the work goes on without it."""
    import joblib

    if session.store.read_only:  # a project opened for reading changes nothing on disk
        return
    # A name of its own per writer: two processes building the same cache must not rename each
    # other's half-written file.
    tmp = path.with_name(f"{path.name}.{os.getpid()}-{threading.get_ident()}.tmp")
    try:
        Path(session.paths.models).mkdir(parents=True, exist_ok=True)
        for old in Path(session.paths.models).glob("features-*.joblib"):
            old.unlink(missing_ok=True)
        joblib.dump({"format": CACHE_FORMAT, "version": FEATURE_VERSION, "ids": fm.ids, "doc_ids": fm.doc_ids,
                     "X": fm.X, "space": fm.space}, tmp)
        tmp.replace(path)
    except OSError as exc:
        log.warning("feature cache not saved in %s: %s", session.paths.models, exc)
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass


def project_features(session, progress: Optional[Progress] = None,
                     options: Optional[FeatureOptions] = None) -> FeatureMatrix:
    """The feature matrix of every message in the project, from memory, the on-disk cache
    (``models/features-<key>.joblib``) or built now."""
    import joblib

    key, domains = message_set_key(session, options)
    memo_key = (str(session.paths.root), key)
    with _MEMO_LOCK:
        if memo_key in _MEMO:
            return _MEMO[memo_key]
    path = Path(session.paths.models) / f"features-{key}.joblib"
    fm = None
    if path.exists():
        try:
            payload = joblib.load(path)
            if payload.get("format") == CACHE_FORMAT and payload.get("version") == FEATURE_VERSION:
                fm = FeatureMatrix(key, payload["ids"], payload["doc_ids"], payload["X"], payload["space"])
        except Exception:  # a damaged cache is rebuilt, never trusted
            fm = None
    if fm is None:
        progress = ensure(progress)
        progress.update(0, None, "reading messages")
        docs = load_docs(session.store)
        if not docs:
            raise ProjectError("this project has no messages yet: ingest mail first")
        central = network_centralities(session.network())
        space = FeatureSpace(options)
        X = space.fit_transform([d for _, d in docs], domains, central, progress)
        fm = FeatureMatrix(key, np.array([i for i, _ in docs], dtype=np.int64), [d.doc_id for _, d in docs], X, space)
        _write_cache(session, path, fm)
    with _MEMO_LOCK:
        for k in [k for k in _MEMO if k[0] == memo_key[0]]:
            del _MEMO[k]
        _MEMO[memo_key] = fm
    return fm
