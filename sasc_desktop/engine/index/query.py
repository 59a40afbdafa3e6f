"""Reading a query: the parser (its syntax checks, dates, filters that narrow, NOT that
excludes, split words as phrases, prefixes on stem or text) and walking the parsed query."""
from __future__ import annotations

import re
from datetime import datetime, timedelta

from whoosh import query as wq
from whoosh.matching.binary import AndNotMatcher
from whoosh.matching.wrappers import InverseMatcher
from whoosh.qparser import OperatorsPlugin, OrGroup, QueryParser, syntax
from whoosh.qparser.common import attach
from whoosh.qparser.dateparse import DateParserPlugin
from whoosh.util.times import adatetime, timespan

from ..errors import QueryError
from .schema import _MAXSIZE as MAX_WORD, _TOKEN_PATTERN, SEARCH_FIELDS, fold


STEMMED_FIELDS = frozenset(SEARCH_FIELDS + ("all",))


class EitherPattern(wq.Wildcard):
    """The indexed terms of a field matching any of several globs (``patterns``), as one
    multi-term query: a prefix or wildcard in a stemmed field is its stemmed form or the text
    as typed, lower-cased (energy* is energi* or energy*, so 'EnergyOnline', indexed as
    'energyonlin', is found; the stem alone missed it). One query, so a message matched by both
    forms counts once."""

    def __init__(self, fieldname, patterns, boost=1.0, constantscore=True):
        super().__init__(fieldname, patterns[0], boost=boost, constantscore=constantscore)
        self.patterns = tuple(dict.fromkeys(patterns))

    def __eq__(self, other):
        return super().__eq__(other) and self.patterns == other.patterns

    def __hash__(self):
        return super().__hash__() ^ hash(self.patterns)

    def __repr__(self):
        return f"{self.__class__.__name__}({self.fieldname!r}, {self.patterns!r}, boost={self.boost})"

    def __unicode__(self):
        return "%s:(%s)" % (self.fieldname, " OR ".join(self.patterns))

    __str__ = __unicode__

    def normalize(self):
        return self

    def _btexts(self, ixreader):
        found: set[bytes] = set()
        for pattern in self.patterns:
            one = wq.Wildcard(self.fieldname, pattern).normalize()   # (a Prefix where it can be)
            if isinstance(one, wq.MultiTerm):
                found.update(one._btexts(ixreader))
        return sorted(found)   # (term order)


_query_tokens = re.compile(_TOKEN_PATTERN, re.UNICODE).findall


class _LongWord(Exception):
    def __init__(self, word: str):
        super().__init__(word)
        self.word = word


class _NoLongWords:
    """A text field's analyser at query time: a word longer than MAX_WORD characters (the longest
    the index keeps: a pasted SHA-256 is 64) raises _LongWord (the analyser dropped it: alone
    it was called 'only stop words or punctuation', beside other words it was left out
    silently)."""

    def __init__(self, analyzer):
        self.analyzer = analyzer

    def __call__(self, value, **kwargs):
        for word in _query_tokens(value or ""):
            if len(word) > MAX_WORD:
                raise _LongWord(word)
        return self.analyzer(value, **kwargs)

    def __getattr__(self, name):
        return getattr(self.analyzer, name)


def _glob_escape(text: str) -> str:
    return re.sub(r"([*?\[])", r"[\1]", text)


class _ImplicitOr(wq.Or):
    """An OR the user did not type: words (and filters) side by side, a group in brackets
    (:func:`_filters_restrict` makes its filters narrow the search)."""


class _ImplicitGroup(OrGroup):
    qclass = _ImplicitOr

    def __init__(self, nodes=None, **kwargs):
        kwargs.pop("scale", None)
        super().__init__(nodes=nodes, scale=0.0, **kwargs)   # (no coordination bonus, as before)


class _TypedOrGroup(OrGroup):
    """An OR the user typed: kept as typed. (Its own class, so that normalising never merges a
    group the user did not type into it, nor the other way round.)"""
    qclass = type("TypedOr", (wq.Or,), {"__doc__": "An OR the user typed."})


class _ReadOnce:
    """BinaryGroup.query reading each side once: Whoosh's read both twice (once to see whether
    it is nothing, once to build), so a chain of n ANDNOTs read its first word 2^n times (16:
    9 s to parse; 20: minutes)."""

    def query(self, parser):
        qa = self.nodes[0].query(parser)
        qb = self.nodes[1].query(parser)
        if qa is None and qb is None:
            q = wq.NullQuery
        elif qa is None or qb is None:
            q = qb if qa is None else qa
        else:
            q = self.qclass(qa, qb)
        return attach(q, self)


class _AndNotGroup(_ReadOnce, syntax.AndNotGroup):
    pass


class _AndMaybeGroup(_ReadOnce, syntax.AndMaybeGroup):
    pass


class _RequireGroup(_ReadOnce, syntax.RequireGroup):
    pass


def _operators() -> OperatorsPlugin:
    """Whoosh's operators (the same patterns), OR making a :class:`_TypedOrGroup`, ANDNOT,
    ANDMAYBE and REQUIRE groups reading each side once (:class:`_ReadOnce`)."""
    ot = OperatorsPlugin.OpTagger
    return OperatorsPlugin(clean=True, ops=[
        (ot(r"(^|(?<=(\s|[()])))NOT(?=\s)", syntax.NotGroup, syntax.PrefixOperator, memo="not"), 0),
        (ot(r"(?<=\s)AND(?=\s)", syntax.AndGroup, memo="and"), 0),
        (ot(r"(?<=\s)OR(?=\s)", _TypedOrGroup, memo="or"), 0),
        (ot(r"(?<=\s)ANDNOT(?=\s)", _AndNotGroup, memo="anot"), -5),
        (ot(r"(?<=\s)ANDMAYBE(?=\s)", _AndMaybeGroup, memo="amaybe"), -5),
        (ot(r"(^|(?<=\s))REQUIRE(?=\s)", _RequireGroup, memo="req"), 0)])


class _Parser(QueryParser):
    """Whoosh's parser, but:

    - a word the analyser splits into several (an address, a hyphenated word, a number with
      slashes: steven.kean@enron.com, year-end, 11/22/99, 2001-03) is searched as those words
      in that order, a phrase, in the fields with word positions (subject, body, attachments),
      and as all of them in 'all' (Whoosh's default OR-ed them: year-end found every message
      with 'year' or 'end'). At parse time: the index is not changed.
    - a prefix or wildcard in a stemmed field is its stem or the text as typed (:class:`EitherPattern`).
    - an OR typed is told from words side by side (:func:`_operators`, :class:`_ImplicitGroup`).
    """

    def default_set(self):
        return [_operators() if isinstance(p, OperatorsPlugin) else p for p in super().default_set()]

    def term_query(self, fieldname, text, termclass, boost=1.0, tokenize=True, removestops=True):
        q = super().term_query(fieldname, text, termclass, boost=boost, tokenize=tokenize, removestops=removestops)
        if type(q) is not termclass or termclass not in (wq.Prefix, wq.Wildcard) or fieldname not in STEMMED_FIELDS:
            return q
        raw, stem = fold(text.lower()), q.text
        if raw == stem:
            return q
        if termclass is wq.Prefix:
            if raw.startswith(stem):     # (every term raw* matches, stem* matches)
                return q
            if stem.startswith(raw):
                return wq.Prefix(fieldname, raw, boost=q.boost)
            raw, stem = _glob_escape(raw) + "*", _glob_escape(stem) + "*"
        return EitherPattern(fieldname, (stem, raw), boost=q.boost)

    def multitoken_query(self, spec, texts, fieldname, termclass, boost):
        if fieldname in SEARCH_FIELDS:
            spec = "phrase"
        elif fieldname == "all":
            spec = "and"
        return super().multitoken_query(spec, texts, fieldname, termclass, boost)


def _without_angle_brackets(text: str) -> str:
    """A thread id as the index keeps it: '<id@example.com>' (a Message-ID as its header writes
    it) is 'id@example.com'; anything else as it is."""
    stripped = text.strip()
    if len(stripped) > 2 and stripped[0] == "<" and stripped[-1] == ">":
        return stripped[1:-1].strip()
    return text


MAX_EXPANSIONS = 1000  # indexed terms a query's prefixes and wildcards are highlighted by


def wanted_leaves(q, negated: bool = False):
    """The leaves of a parsed query that a match looks for: not those it leaves out (NOT x,
    -x, the right side of ANDNOT). Each NOT (and ANDNOT's right side) turns the sense round: a
    leaf under an even number of them is wanted (NOT (NOT power NOT gas) is power or gas).
    (rank.features.positive_terms walks the tree the same way.)"""
    if isinstance(q, wq.Not):
        yield from wanted_leaves(q.query, not negated)
        return
    if isinstance(q, wq.AndNot):      # AndNot(wanted, left out)
        yield from wanted_leaves(q.a, negated)
        yield from wanted_leaves(q.b, not negated)
        return
    if q.is_leaf():
        if not negated:
            yield q
        return
    for child in q.children():
        yield from wanted_leaves(child, negated)


def expansions(reader, patterns, limit: int = MAX_EXPANSIONS) -> set[str]:
    """The indexed terms the multi-term queries ``patterns`` (Prefix, Wildcard, TermRange...)
    match in their fields: the first ``limit`` of them in term order. Each pattern is read for
    at most ``limit`` terms (its first in term order), so the whole is the first ``limit``."""
    found: set[str] = set()
    for leaf in patterns:
        field = leaf.field()
        if field not in reader.schema:
            continue
        decode = reader.schema[field].from_bytes
        n = 0
        for btext in leaf._btexts(reader):  # (term order: Whoosh reads its term index in order)
            if n >= limit:
                break
            found.add(decode(btext))
            n += 1
    return set(sorted(found)[:limit])


_FIELD_AT = re.compile(r"([A-Za-z_]+):")
_FIELD_BEFORE = re.compile(r"(?:^|(?<=[\s(]))([A-Za-z_]+):$")
_DATE_VALUE = re.compile(r"\bdate:([\[{][^\]}]*[\]}]|[<>]=?[^\s()]+|[^\s()]+)")   # (a value ends at a bracket: (power date:<2001-06))
_RANGE = re.compile(r"([\[{])\s*(.*?)\s*\b(to)\b\s*(.*?)\s*([\]}])", re.I | re.S)   # (as Whoosh's: [a to b], "to" in any case)
_ISO = re.compile(r"(\d{4})-(\d{2})(?:-(\d{2}))?")
_BINARY_OPERATORS = ("AND", "OR", "ANDNOT", "ANDMAYBE")
DATE_HINT = ("write a date as 2001, 2001-03 or 2001-03-05, or a range as date:[2001-01 to 2001-06], "
             "date:>2001-03 or date:<2002")
_EXAMPLE = {"from": "fossum", "to": "enron.com", "date": "2001-03", "thread": "<id@example.com>",
            "folder": "inbox"}


# a web or mail address typed without quotes: http://..., https://..., ftp://..., mailto:x@y (up to
# a space, a quote or a bracket; a bracketed part inside it, as in .../wiki/Enron_(company), is
# its own: a ")" with no "(" in it ends it), where a word may start (after a space, "(", a
# field's ":" or "-"); a date: value is not one (date:http://x is not a date: an error)
_IN_URL = r'(?:[^\s"()]|\([^\s"()]*\))'
_URL = re.compile(r'(?<![^\s(:-])(?:(?:https?|ftp)://|mailto:(?=[^\s"()]*@))' + _IN_URL + '+', re.I)
# a thread id with a colon in it (PM200011:12:45, as SpamAssassin's Message-IDs are), bare or in
# angle brackets (thread:<PM200011:12:45>, up to the ">"); thread:<> is thread: with nothing after it
_THREAD = re.compile(r'(?<![^\s(-])(thread:)(<[^\s"<>]*>|[^\s"()<>]*:[^\s"()]*)', re.I)
_DATE_WORD = re.compile(r'(?<![^\s(-])date:[^\s"()]*', re.I)
_LITERAL = re.compile("|".join(f"(?P<{name}>{p.pattern})" for name, p in
                               (("date", _DATE_WORD), ("thread", _THREAD), ("url", _URL))), re.I)


def _literal(m: re.Match) -> str:
    if m.group("date") is not None:
        return m.group(0)    # (a date's value is read as a date)
    if m.group("thread") is not None:
        name, value = m.group(m.re.groupindex["thread"] + 1), m.group(m.re.groupindex["thread"] + 2)
        return name if value == "<>" else f'{name}"{value}"'   # (thread:<>: thread: followed by nothing)
    return f'"{m.group(0)}"'


def _quoted_urls(text: str) -> str:
    """``text`` with each web or mail address outside quotes quoted, a phrase as when typed
    quoted: http://www.latimes.com/news/x.html is "http://www.latimes.com/news/x.html" (the
    query failed "unknown field 'http'"); a thread: id with a colon in it, or in angle brackets,
    too (thread:PM200011:12:45 found nothing). Quoted text, a date: value (date:http://x is not
    a date), and a quote not closed (left for :func:`_check_syntax` to report), as they are."""
    pieces = re.split(r'("[^"]*"?)', text)   # (odd pieces: quoted)
    return "".join(p if k % 2 else _LITERAL.sub(_literal, p) for k, p in enumerate(pieces))


MAX_NESTING = 100   # groups in groups a query may hold (Python's recursion gave out at 300 to 500)
_CHAIN_OPERATOR = re.compile(r"(?:ANDNOT|ANDMAYBE|REQUIRE)(?=\s)")   # (each nests the one before it)


def _short(query: str) -> str:
    """A long query quoted by its start and length."""
    return query if len(query) <= 80 else query[:60] + f"\u2026 ({len(query):,} characters)"


def too_deep(query: str) -> QueryError:
    return QueryError(f"cannot understand the query {_short(query)!r}: groups are nested more than {MAX_NESTING} "
                      "deep (each bracket inside another, and each ANDNOT, ANDMAYBE or REQUIRE after another, is "
                      "one more); write it with fewer")


def _check_syntax(text: str, fields: list[str], shown: str | None = None) -> str:
    """The query's mistakes Whoosh would pass over silently (searching for a field's name, or
    dropping a bracket or a quote), as a QueryError quoting the query and saying how to write it:
    a quote or a bracket not closed, a ")" without its "(", a field name followed by nothing, a
    field Whoosh does not know, AND/OR/NOT with nothing on one side, groups nested more than
    MAX_NESTING deep (brackets in brackets; ANDNOT, ANDMAYBE and REQUIRE, each nesting the one
    before it: the parser and every walk of the query recurse). Returns the text with field
    names lower-cased (From:ann is from:ann) and a "-" before a word made NOT (budget -draft is
    budget NOT draft; Whoosh searched for draft too; e-mail and 2001-03 are words). Quoted text is
    a phrase, never checked. Messages quote ``shown`` (the query as typed), if given, else ``text``."""
    shown = text if shown is None else shown

    def fail(problem: str) -> QueryError:
        return QueryError(f"cannot understand the query {shown!r}: {problem}")

    out: list[str] = []
    opened: list[tuple[int, str]] = []   # (position of "(", the field before it or "")
    chains = [0]                         # ANDNOT, ANDMAYBE and REQUIRE in each open group
    quote = negated = -1
    i, n = 0, len(text)

    def nested() -> None:
        if len(opened) + sum(chains) > MAX_NESTING:
            raise too_deep(shown)

    def starts(i: int) -> bool:  # a word starts at i
        return i == 0 or text[i - 1].isspace() or text[i - 1] == "(" or negated == i - 1
    while i < n:
        c = text[i]
        if quote >= 0:
            if c == '"':
                quote = -1
        elif c == '"':
            quote = i
        elif c == "(":
            m = _FIELD_BEFORE.search(text, 0, i)
            opened.append((i, m.group(1).lower() if m and m.group(1).lower() in fields else ""))
            chains.append(0)
            nested()
        elif c == ")":
            if not opened:
                raise fail('a ")" has no "(" before it; remove it, or add the "(" where the group starts')
            opened.pop()
            chains.pop()
        elif c in "AR" and starts(i) and _CHAIN_OPERATOR.match(text, i):
            chains[-1] += 1
            nested()
        elif c == "-" and starts(i) and i + 1 < n and not text[i + 1].isspace() and text[i + 1] != "-":
            out.append("NOT ")   # -draft leaves out draft (Whoosh searched for it)
            negated = i
            i += 1
            continue
        elif starts(i):
            m = _FIELD_AT.match(text, i)
            if m:
                name, rest = m.group(1), text[m.end():m.end() + 1]
                if name.lower() in fields:
                    if rest == "" or rest.isspace() or rest == ")":
                        example = _EXAMPLE.get(name.lower(), "budget")
                        raise fail(f"'{name}:' is not followed by anything to search for; write it right after "
                                   f"the colon, e.g. {name.lower()}:{example}")
                    out.append(name.lower() + ":")
                    i = m.end()
                    continue
                if rest and not rest.isspace():
                    url = (" (to search for a web address, put it in quotes: \"http://www.example.com/page\")"
                           if name.lower() in ("http", "https", "ftp", "mailto") else "")
                    raise QueryError(f"unknown field {name!r} in the query {shown!r}; fields are: "
                                     + ", ".join(fields) + url)
        out.append(c)
        i += 1
    if quote >= 0:
        raise fail('a \'"\' is not closed; put a phrase between two quotes, e.g. "budget meeting"')
    if opened:
        field = opened[-1][1]
        examples = {"date": "2001-03 2001-05", "from": "ann bob", "to": "ann bob", "folder": "inbox sent"}
        example = f"{field}:({examples.get(field, 'budget meeting')})" if field else "(budget OR lunch) AND meeting"
        raise fail(f'a "(" is not closed; close the group with ")", e.g. {example}')
    words = "".join(out).replace("(", " ( ").replace(")", " ) ").split()
    for k, word in enumerate(words):
        before = words[k - 1] if k else "("
        after = words[k + 1] if k + 1 < len(words) else ")"
        if word in _BINARY_OPERATORS and (before == "(" or after == ")" or after in _BINARY_OPERATORS):
            raise fail(f"{word} needs something to search for on both sides, e.g. budget {word} meeting")
        if word == "NOT" and (after == ")" or after in _BINARY_OPERATORS or after == "NOT"):
            raise fail("NOT needs something to search for after it, e.g. budget NOT draft")
    return "".join(out)


_GROUP_TOKEN = re.compile(r'[\[{][^\]}]*[\]}]|"[^"]*"|[()]|[^\s()]+')
_DATE_GROUP = re.compile(r"\bdate:\(")


def _date_groups(text: str, query: str | None = None) -> str:
    """date:(2001-03 2001-05) -> (date:2001-03 date:2001-05): each value of a date: group gets
    its own date: (Whoosh reads a group's values as words of the date field: no date matched),
    operators, brackets and NOT/- kept. Then, as anywhere, values side by side are either
    (filters of one field are OR-ed) and one-sided bounds narrow: date:(>2001-03 <2001-06) is
    the time between. An unclosed group is left as written (the syntax check names it)."""
    while True:
        m = _DATE_GROUP.search(text)
        if m is None:
            return text
        depth, out, end = 1, ["("], None
        for tok in _GROUP_TOKEN.finditer(text, m.end()):
            word = tok.group(0)
            if word == "(":
                depth += 1
            elif word == ")":
                depth -= 1
                if depth == 0:
                    end = tok.end()
                    out.append(")")
                    break
            elif word in ("AND", "OR", "NOT") or word in _BINARY_OPERATORS:
                pass
            elif re.match(r"-?\w+:(?!\d)", word):   # (a field, not a time as in [2001-03-05T10:00 to ...])
                raise QueryError(f"cannot understand the query {query or text!r}: {word.lstrip('-')!r} is inside "
                                 f"a date group; only dates go between date:( and ), e.g. date:(2001-03 2001-05) "
                                 f"{word.lstrip('-')}")
            elif word.startswith("-") and len(word) > 1:
                word = "-date:" + word[1:]
            else:
                word = "date:" + word
            out.append(word)
        if end is None:
            return text
        text = text[:m.start()] + " ".join(out).replace("( ", "(").replace(" )", ")") + text[end:]


def _normalise_dates(text: str, query: str | None = None) -> tuple[str, dict[str, str]]:
    """date:2001-03-05, date:>2001-03, date:<=2001 and ISO ranges -> Whoosh's compact forms;
    with each compact value's text as the user wrote it (for messages), and under "" every
    date: part as written. ``>X`` and ``<X`` leave X out (date:>2001 is from 2002 on,
    date:<2001-05 up to the end of April 2001: :func:`_beyond`); ``>=X`` and ``<=X`` take it in.
    Another sign (date:<>2001, date:=2001) or none of them followed by a date (date:>, date:> 2001,
    a space after it) is a QueryError with the date hint (they matched every message)."""
    written: dict[str, str] = {}
    parts: list[str] = []
    shown = query or text

    def fix(m: re.Match) -> str:
        value = _ISO.sub(lambda d: d.group(1) + d.group(2) + (d.group(3) or ""), m.group(1))
        sign = re.match(r"[<>=]*", value).group(0)
        if sign:
            if sign not in (">", "<", ">=", "<="):
                raise QueryError(f"cannot understand the query {shown!r}: {m.group(0)!r}: {sign!r} is not one of "
                                 f">, <, >= and <=; {DATE_HINT}")
            bound = value[len(sign):]
            if not bound:
                raise QueryError(f"cannot understand the query {shown!r}: {m.group(0)!r} has no date right after "
                                 f"{sign!r}; {DATE_HINT}")
            if sign in (">", "<"):
                bound = _beyond(bound, sign, shown)
            value = f"[{bound} to]" if sign[0] == ">" else f"[to {bound}]"
        elif value[:1] in "[{":
            value = _range(value, shown) or value
        for compact, original in zip(_date_parts(value), _date_parts(m.group(1))):
            written.setdefault(compact, original)
        written.setdefault(value, m.group(1))
        parts.append(repr(m.group(0)))
        if value.startswith("("):     # (a range with nothing between its bounds: two bounds, AND-ed)
            return value
        return "date:" + value
    text = _DATE_VALUE.sub(fix, text)
    if parts:
        written[""] = " or ".join(dict.fromkeys(parts))
    return text, written


_DATES = DateParserPlugin(free=False).dateparser.get_parser()   # (as Whoosh reads a range's bounds)


_COMPACT = re.compile(r"\d{4}(?:\d\d){0,5}")   # (2001, 200105, ... 20010531235959: as _ISO writes dates)
_UNIT_AFTER = {4: None, 6: None, 8: timedelta(days=1), 10: timedelta(hours=1), 12: timedelta(minutes=1),
               14: timedelta(seconds=1)}


def _span(bound: str):
    """(first moment, last moment) of a date as Whoosh's date parser reads it (2001-05: its first
    and last microsecond; a date without a year: this year's, as date:june is); None when it
    cannot read it. A compact date (digits: 2001, 200105, 20010531...) is read here, a quarter of
    Whoosh's time (test_review11_date_braces checks both read alike)."""
    if _COMPACT.fullmatch(bound):
        digits = [int(bound[:4])] + [int(bound[k:k + 2]) for k in range(4, len(bound), 2)]
        try:
            first = datetime(*digits, *([1] * (3 - len(digits))))
            if len(bound) == 4:
                after = first.replace(year=first.year + 1) if first.year < 9999 else None
            elif len(bound) == 6:
                after = first.replace(year=first.year + first.month // 12, month=first.month % 12 + 1)
            else:
                after = first + _UNIT_AFTER[len(bound)]
        except (ValueError, OverflowError):   # (not a date, or the last: Whoosh's reading)
            return _whoosh_span(bound)
        return first, (after - timedelta(microseconds=1)) if after else datetime.max
    return _whoosh_span(bound)


def _whoosh_span(bound: str):
    """:func:`_span` by Whoosh's date parser."""
    try:
        d = _DATES.date_from(bound, datetime.utcnow())
    except Exception:
        return None
    if d is None:
        return None
    d = d.disambiguated(datetime.utcnow()) if hasattr(d, "disambiguated") else d
    if isinstance(d, timespan):
        first, last = d.start, d.end
    elif isinstance(d, adatetime):
        first, last = d.floor(), d.ceil()
    else:
        first = last = d
    return first, last


def _edge(span, side: str, bound: str, query: str) -> datetime:
    """The first moment after the date ``span`` (``side`` ">") or the last before it ("<"), to
    the whole second (Whoosh reads a compact bound to the second: as its first microsecond at a
    range's start, its last at the end)."""
    first, last = span[0], span[1]
    try:
        edge = last + timedelta(microseconds=1) if side == ">" else first - timedelta(microseconds=1)
    except OverflowError:
        raise QueryError(f"cannot understand the query {query!r}: no date comes "
                         f"{'after' if side == '>' else 'before'} {bound!r}") from None
    if side == ">" and edge.microsecond:     # (a bound to the microsecond: the next whole second)
        edge = edge.replace(microsecond=0) + timedelta(seconds=1)
    return edge


def _compact(moment: datetime) -> str:
    return f"{moment.year:04d}{moment:%m%d%H%M%S}"


def _beyond(bound: str, side: str, query: str) -> str:
    """The bound of date:>X (``side`` ">") or date:<X ("<") that leaves the whole of X out, in
    Whoosh's compact form: the second after X's last (date:>2001 is date:>=20020101000000), the
    second before X's first (date:<2001-05 is date:<=20010430235959). ``bound`` as it is when
    Whoosh cannot read it (its error then says so)."""
    span = _span(bound)
    if span is None:
        return bound
    return _compact(_edge(span, side, bound, query))


def _range(value: str, query: str) -> str | None:
    """A date range as Whoosh is to read it, its bounds computed here: ``[a to b]`` takes in the
    whole of a and of b, a brace leaves its bound out, the whole period it names
    (date:{2019-06 to 2019-08} is July 2019; Whoosh read braces as brackets, and the value ended
    at the brace: date:{2019-12 to 2020-02} was 2019-12-01 to 2020-12-31). The bounds are given
    to the second, so Whoosh's reading of a pair (a month without a day beside a day took the
    day's month, or today's: date:[2019 to 2019-06] was June, date:[2019-06 to 2019] an error)
    is not used. Bounds the wrong way round are swapped, each with its bracket (as Whoosh swaps
    them: date:[2020 to 2019] is 2019 and 2020). Nothing between the bounds (date:{2019-06 to
    2019-07}): two one-sided bounds, AND-ed, that nothing matches (a range the wrong way round
    Whoosh would swap). A date without a year is this year's (date:[june to august]: Whoosh's
    reading of such a pair failed, "'NoneType' object has no attribute 'year'"). None (the value
    left as written) when it is not a range or a bound cannot be read (Whoosh's error says so)."""
    m = _RANGE.fullmatch(value)
    if m is None:
        return None
    open_, start, to, end, close = m.groups()
    if not start and not end:
        raise QueryError(f"cannot understand the query {query!r}: 'date:{value}' has no date on either side of "
                         f"{to!r}; {DATE_HINT}")
    a = _span(start) if start else None
    b = _span(end) if end else None
    if (start and a is None) or (end and b is None):
        return None
    start_out, end_out = open_ == "{", close == "}"
    if a and b and a[0] > b[1]:
        a, b, start, end, start_out, end_out = b, a, end, start, end_out, start_out
    lo = hi = None
    if a:
        lo = _edge(a, ">", start, query) if start_out else a[0]
    if b:
        hi = _edge(b, "<", end, query) if end_out else b[1]
    if lo and hi and lo > hi:
        return f"(date:[{_compact(lo)} to] date:[to {_compact(hi)}])"
    return f"[{_compact(lo) + ' ' if lo else ''}to{' ' + _compact(hi) if hi else ''}]"


def _date_parts(value: str) -> list[str]:
    """A date value's pieces as Whoosh's date parser reports a bad one: the value, and a range's
    bounds with and without its brackets."""
    parts = [value]
    inner = value.strip("[]{}<>=")
    parts += [p.strip() for p in re.split(r"\s+to\s+", inner, flags=re.I)]
    return parts


def _phrases_without_positions(q, schema):
    """A phrase in a field that keeps no word positions (from, to, all), e.g. from:"Patricia
    Nolan", is all of its words in that field (Whoosh cannot search it as a phrase and raised
    its own error when searching): And([from:patricia, from:nolan])."""
    if isinstance(q, wq.Phrase):
        field = schema[q.fieldname] if q.fieldname in schema else None
        if field is not None and not field.format.supports("positions"):
            words = [wq.Term(q.fieldname, w, boost=q.boost) for w in q.words]
            return words[0] if len(words) == 1 else wq.And(words)
        return q
    if isinstance(q, wq.Not):
        return wq.Not(_phrases_without_positions(q.query, schema))
    if isinstance(q, wq.CompoundQuery):
        return _rebuild(q, [_phrases_without_positions(k, schema) for k in q.children()])
    if isinstance(q, wq.WrappingQuery):  # (e.g. ConstantScoreQuery)
        return q.__class__(_phrases_without_positions(q.child, schema))
    return q


def _bare_thread_ids(q):
    """A thread id is searched with or without the angle brackets of a Message-ID header:
    thread:<id@example.com> (quoted or not, in a group or not) is thread:id@example.com, as
    the index keeps it (with them it found nothing)."""
    if isinstance(q, wq.Term):
        if q.fieldname == "thread" and isinstance(q.text, str):
            bare = _without_angle_brackets(q.text)
            if bare != q.text:
                return wq.Term("thread", bare, boost=q.boost)
        return q
    if isinstance(q, wq.Not):
        return wq.Not(_bare_thread_ids(q.query), boost=q.boost)
    if isinstance(q, wq.CompoundQuery):
        return _rebuild(q, [_bare_thread_ids(k) for k in q.children()])
    if isinstance(q, wq.WrappingQuery):  # (e.g. ConstantScoreQuery)
        return q.__class__(_bare_thread_ids(q.child))
    return q


class _AndNotMatcher(AndNotMatcher):
    """Whoosh's AndNotMatcher skipped the excluded list only when both lists began on the same
    document: with the excluded list's first document before the wanted list's first, that
    first wanted one was matched even when excluded ('power NOT california' listed a message
    holding both). Here the excluded list is first moved on to the wanted list's document.
    And its skip_to moved the wanted list past its end and then asked it for its document (an
    AND skipping a (date:2019-06 -from:priya) group past June's last message: the date list's
    id() raised IndexError, reported as a damaged index): with the wanted list at its end there
    is nothing to move on to."""

    def _find_first(self):
        if self.a.is_active() and self.b.is_active():
            self._find_next()

    def _find_next(self):
        if not self.a.is_active():
            return False
        return super()._find_next()


class AndNot(wq.AndNot):
    """wq.AndNot (the same tree shape: rank.features.positive_terms reads it) matched by
    :class:`_AndNotMatcher`."""

    def matcher(self, searcher, context=None):
        return _AndNotMatcher(self.a.matcher(searcher, context), self.b.matcher(searcher, searcher.boolean_context()))


class _InverseMatcher(InverseMatcher):
    """Whoosh's InverseMatcher skipped deleted documents but one: when the NOT-ed part's last
    match in a segment was followed by a deleted document, that one was matched (-report -"zz yy"
    listed a message indexed again after an import re-threaded it twice: its deleted old document
    and its new one). Here deleted documents after the NOT-ed part's end are skipped too."""

    def _find_next(self):
        super()._find_next()
        if not self.child.is_active():
            while self._id < self.limit and self.missing(self._id):
                self._id += 1


class Not(wq.Not):
    """wq.Not (the same tree shape) matched by :class:`_InverseMatcher` (as wq.Not.matcher, but
    for the class)."""

    def matcher(self, searcher, context=None):
        reader = searcher.reader()
        child = self.query.matcher(searcher, searcher.boolean_context())
        return _InverseMatcher(child, reader.doc_count_all(), missing=reader.is_deleted)


def _fixed_and_not(q):
    """``q`` with every wq.AndNot (ANDNOT typed, or made by :func:`_filters_restrict`) an
    :class:`AndNot`, every wq.Not a :class:`Not`."""
    if isinstance(q, wq.AndNot):
        return AndNot(_fixed_and_not(q.a), _fixed_and_not(q.b))
    if isinstance(q, wq.Not):
        return Not(_fixed_and_not(q.query), boost=q.boost)
    if isinstance(q, wq.CompoundQuery):
        return _rebuild(q, [_fixed_and_not(k) for k in q.children()])
    if isinstance(q, wq.WrappingQuery):
        return q.__class__(_fixed_and_not(q.child))
    return q


FILTER_FIELDS = {"date", "from", "to", "thread", "folder"}


def _filters_restrict(q):
    """Filters (date:, from:, to:, thread:, folder:) narrow a search, as in a mail program, and
    words are OR-ed for ranking. In a group the user did not join with OR or AND themselves
    (words side by side, :class:`_ImplicitOr`): filters of one field are OR-ed (from:ann
    from:bob, either sender; date:2000 date:2002, either year), filters of different fields are
    AND-ed, and the words, if any, must match too: Or([w1, w2, from:ann, from:bob, date:2001])
    -> And([Or([w1, w2]), Or([from:ann, from:bob]), date:2001]). A one-sided date bound
    (date:>X, date:<Y, with or without =) is a filter of its own, so date:>2001-03 date:<2001-06
    is the time between. A NOT beside them leaves its matches out: AndNot(..., x). What the user
    joined with OR or AND is kept as typed (budget OR from:ann: either), but for a NOT beside
    it (a OR NOT b: AndNot(a, b)). A group of NOTs alone (NOT a NOT b, -a -b, NOT a OR NOT b)
    is the messages matching none of them: Not(Or([a, b])) (it was Or of the NOTs, every
    message matching any one's complement). Applied to every group of the tree, innermost first; the
    result is built of plain wq.Or, And and AndNot (the fast scorer reads plain Or)."""
    if isinstance(q, wq.Not):
        return wq.Not(_filters_restrict(q.query), boost=q.boost)
    if not isinstance(q, wq.CompoundQuery):
        if isinstance(q, wq.WrappingQuery):
            return q.__class__(_filters_restrict(q.child))
        return q
    kids = [_filters_restrict(k) for k in q.children()]
    if isinstance(q, wq.BinaryQuery):
        return q.__class__(*kids)
    kids = [k.normalize() if not isinstance(k, wq.Not) else k for k in kids]
    kids = [k for k in kids if k is not wq.NullQuery]
    if not isinstance(q, wq.Or):
        return _rebuild(q, kids) if kids else wq.NullQuery
    nots = [k.query for k in kids if isinstance(k, wq.Not)]
    rest = [k for k in kids if not isinstance(k, wq.Not)]
    if not rest:   # (only NOTs: every message matching none of them, as with AND between them)
        if not nots:
            return wq.NullQuery
        return kids[0] if len(kids) == 1 else wq.Not(wq.Or(nots), boost=q.boost)
    if isinstance(q, _ImplicitOr):
        words = [k for k in rest if not _is_filter(k)]
        groups: dict = {}
        for k in rest:
            if _is_filter(k):
                groups.setdefault(_filter_key(k), []).append(k)
        parts = [wq.Or(words, boost=q.boost, scale=q.scale)] if words else []
        parts += [g[0] if len(g) == 1 else wq.Or(g) for g in groups.values()]
        out = parts[0] if len(parts) == 1 else wq.And(parts)
    else:
        out = wq.Or(rest, boost=q.boost, minmatch=q.minmatch, scale=q.scale) if len(rest) > 1 else rest[0]
    if nots:
        out = wq.AndNot(out, wq.Or(nots) if len(nots) > 1 else nots[0])
    return out


def _filter_key(q):
    """Filters with the same key are OR-ed: the field they filter on; a one-sided date bound, or
    a group mixing fields, has a key of its own."""
    if isinstance(q, wq.NumericRange) and (q.start is None or q.end is None):
        return ("bound", id(q))
    fields = {getattr(leaf, "fieldname", None) for leaf in ([q] if q.is_leaf() else q.leaves())}
    return fields.pop() if len(fields) == 1 else ("mixed", id(q))


def _is_filter(q) -> bool:
    """A query on filter fields only: from:ann, from:"Ann Lee" (an And), from:(ann OR bob),
    (date:2001 NOT date:2001-05) (an AndNot: a filter too, so budget beside it must match)."""
    if isinstance(q, wq.AndNot):
        return _is_filter(q.a) and _is_filter(q.b)
    if isinstance(q, wq.Not):
        return _is_filter(q.query)
    if isinstance(q, (wq.And, wq.Or)):
        kids = list(q.children())
        return bool(kids) and all(_is_filter(k) for k in kids)
    return getattr(q, "fieldname", None) in FILTER_FIELDS


def _rebuild(q, kids):
    """``q`` with other children (ANDNOT and ANDMAYBE are binary queries: they take two)."""
    if isinstance(q, wq.BinaryQuery):
        return q.__class__(*kids)
    if isinstance(q, wq.Or):
        return q.__class__(kids, boost=q.boost, minmatch=q.minmatch, scale=q.scale)
    if isinstance(q, wq.DisjunctionMax):
        return wq.DisjunctionMax(kids, boost=q.boost, tiebreak=q.tiebreak)
    return q.__class__(kids, boost=q.boost)


def _query_problem(q, dates: dict[str, str] | None = None) -> str:
    """What is wrong in a parsed query (a bad date, said as the user wrote it), or ""."""
    dates = dates or {}
    for node in _walk(q):
        if isinstance(node, wq.Term) and node.fieldname == "date":
            if node.text in ("", None):
                return f"that is not a date; {DATE_HINT}"
            if isinstance(node.text, str):   # (a quoted value that is not a date: date:"foo")
                return f"{node.text!r} is not a date; {DATE_HINT}"
        boost = getattr(node, "boost", 1.0)
        if isinstance(boost, (int, float)) and boost <= 0:
            # (word^0: Whoosh itself then answers by how the index is split into segments --
            # the first match of each segment and block, or every match -- so it is refused)
            return "a boost (word^N) must be above 0, as in budget^2 (^0 would neither find nor rank)"
        name = type(node).__name__
        if name == "ErrorQuery" or getattr(node, "error", None):
            error = str(getattr(node, "error", "syntax error"))
            if error in dates or error.strip() in dates:
                return f"{dates.get(error, dates.get(error.strip()))!r} is not a date; {DATE_HINT}"
            return error
    return ""


def _walk(q):
    yield q
    if hasattr(q, "children"):
        for child in q.children():
            yield from _walk(child)
