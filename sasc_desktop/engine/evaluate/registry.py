"""The measure registry: names, typed parameters, parsing.

``parse_measure("nCS-DCG@10(cost=12)")`` returns a frozen :class:`~.measures.Measure`.
Grammar: ``NAME@K`` or ``NAME@K(param=value, ...)``; names and parameter names are matched
case-insensitively; K (the cutoff) is a positive integer and always required.

Parameter types (``ParamSpec.type``):
  ``int``     an integer, e.g. ``ka=5``;
  ``float``   a finite number, e.g. ``M=1``, ``gamma=0.5``;
  ``levels``  numbers separated by ``/``, one per sensitivity level starting at level 0,
              e.g. ``costs=0/6/12`` (levels past the end use the last value);
  ``choice``  one of ``ParamSpec.choices``.
The GUI builds its forms from :func:`measure_specs`; ``ParamSpec.example`` is a sensible value
to pre-fill for a required parameter (12 for costs, as in the papers at k = 10).
"""
from __future__ import annotations

import difflib
import math
import re
from dataclasses import dataclass, field
from typing import Any, Callable

from .errors import MeasureError


@dataclass(frozen=True)
class ParamSpec:
    name: str
    type: str                         # "int" | "float" | "levels" | "choice"
    description: str
    default: Any = None               # used when the parameter is omitted (None: no default)
    required: bool = False
    choices: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    example: Any = None               # a value a form may pre-fill

    def convert(self, value: Any, measure: str) -> Any:
        """Turn a string (from parsing) or a Python value into this parameter's type."""
        where = f"{measure}: parameter {self.name}"
        if self.type == "choice":
            text = str(value).strip()
            for c in self.choices:
                if c.lower() == text.lower():
                    return c
            raise MeasureError(f"{where} must be one of {', '.join(self.choices)}; got {text!r}")
        if self.type == "levels":
            if isinstance(value, str):
                parts = [p.strip() for p in value.split("/")]
            elif isinstance(value, (int, float)):
                parts = [value]
            else:
                parts = list(value)
            if not parts or any(p == "" for p in parts):
                raise MeasureError(f"{where} needs numbers separated by '/', e.g. 0/6/12; got {value!r}")
            out = tuple(self._number(p, where, float) for p in parts)
            for v in out:
                self._check_range(v, where)
            return out
        kind = int if self.type == "int" else float
        v = self._number(value, where, kind)
        self._check_range(v, where)
        return v

    @staticmethod
    def _number(value: Any, where: str, kind) -> Any:
        if isinstance(value, bool):
            raise MeasureError(f"{where} must be a number, got {value!r}")
        try:
            if kind is int:
                if isinstance(value, float) and value.is_integer():
                    return int(value)
                return int(str(value).strip())
            v = float(str(value).strip()) if isinstance(value, str) else float(value)
        except (TypeError, ValueError):
            what = "an integer" if kind is int else "a number"
            raise MeasureError(f"{where} must be {what}, got {value!r}") from None
        if not math.isfinite(v):
            raise MeasureError(f"{where} must be finite, got {value!r}")
        return v

    def _check_range(self, v: float, where: str) -> None:
        if self.minimum is not None and v < self.minimum:
            raise MeasureError(f"{where} must be >= {format_value(self.minimum)}, got {format_value(v)}")
        if self.maximum is not None and v > self.maximum:
            raise MeasureError(f"{where} must be <= {format_value(self.maximum)}, got {format_value(v)}")

    def describe(self) -> str:
        extra = "required" if self.required else (f"default {format_value(self.default)}" if self.default is not None else "optional")
        kind = f"one of {'/'.join(self.choices)}" if self.type == "choice" else self.type
        return f"{self.name} ({kind}, {extra})"


@dataclass(frozen=True)
class MeasureSpec:
    name: str                          # canonical family name, e.g. "nCS-DCG"
    description: str
    params: tuple[ParamSpec, ...] = ()
    normalised: bool = False           # True: values in [0, 1] by construction (see docstrings)
    needs_pool: bool = False           # True: depends on unshown judged documents (bounds/ideals)
    cost_params: bool = False          # True: exactly one of cost= / costs= must be given
    factory: Callable | None = field(default=None, compare=False, repr=False)

    @property
    def higher_is_better(self) -> bool:
        """False for the families where a lower value is better (:data:`LOWER_IS_BETTER`: the
        filtering figures F-docs, Withheld, Empty): fine to report, wrong to maximise. See also
        :func:`higher_is_better` for a measure whose parameters decide it."""
        return self.name.lower() not in {n.lower() for n in LOWER_IS_BETTER}

    def param(self, name: str) -> ParamSpec:
        for p in self.params:
            if p.name.lower() == name.lower():
                return p
        raise KeyError(name)

    def describe_params(self) -> str:
        parts = []
        for p in self.params:
            if self.cost_params and p.name in ("cost", "costs"):
                other = "costs" if p.name == "cost" else "cost"
                parts.append(f"{p.name} ({p.type}; give this or {other})")
            else:
                parts.append(p.describe())
        return ", ".join(parts) or "no parameters"

    def signature(self) -> str:
        if not self.params:
            return f"{self.name}@k"
        return f"{self.name}@k({self.describe_params()})"


# The direction of a measure: higher is better except for these families (the share of shown
# documents that are sensitive, of non-sensitive relevant ones withheld, of empty lists) and for
# a measure whose parameter picks a figure to keep low (O-CS-DCG's part=effort: the archivist's
# effort, reported as a positive number). A learner maximises its objective, so these are
# evaluation measures only.
LOWER_IS_BETTER = frozenset({"F-docs", "Withheld", "Empty"})
LOWER_IS_BETTER_PARAMS = {"O-CS-DCG": ("part", "effort")}


def higher_is_better(measure) -> bool:
    """Whether a higher value of ``measure`` (a Measure) is better: its family's
    ``MeasureSpec.higher_is_better``, and False for O-CS-DCG with part=effort."""
    spec = measure.SPEC
    if not spec.higher_is_better:
        return False
    param = LOWER_IS_BETTER_PARAMS.get(spec.name)
    return not (param is not None and measure.get(param[0]) == param[1])


def format_value(v: Any) -> str:
    """Canonical text of a parameter value: 12.0 -> '12', (0, 6, 12) -> '0/6/12'."""
    if isinstance(v, tuple):
        return "/".join(format_value(x) for x in v)
    if isinstance(v, float):
        return str(int(v)) if v.is_integer() and abs(v) < 1e15 else repr(v)
    return str(v)


_REGISTRY: dict[str, MeasureSpec] = {}

# The largest cutoff accepted. Work and memory follow the lists and pools, not k (a cutoff past
# every list is the same as the longest list), but k must stay an exact machine integer.
MAX_K = 10**15


def register(spec: MeasureSpec) -> None:
    if spec.name.lower() in {n.lower() for n in _REGISTRY}:
        raise ValueError(f"measure {spec.name} registered twice")
    _REGISTRY[spec.name] = spec


def _ensure_loaded() -> None:
    if not _REGISTRY:
        from . import measures  # noqa: F401  (registers every measure)


def measure_names() -> list[str]:
    """Canonical names of every registered measure family, in registration order."""
    _ensure_loaded()
    return list(_REGISTRY)


def measure_specs() -> dict[str, MeasureSpec]:
    """Every measure family with its parameter specs (what a form needs)."""
    _ensure_loaded()
    return dict(_REGISTRY)


def get_spec(name: str) -> MeasureSpec:
    _ensure_loaded()
    for key, spec in _REGISTRY.items():
        if key.lower() == name.lower():
            return spec
    close = difflib.get_close_matches(name, list(_REGISTRY), n=3, cutoff=0.6)
    hint = f" (did you mean {' or '.join(close)}?)" if close else ""
    raise MeasureError(f"unknown measure {name!r}{hint}; known measures: " + ", ".join(_REGISTRY))


def make_measure(name: str, k: int, **params: Any):
    """Build a measure from its family name, cutoff and parameters (strings or values)."""
    spec = get_spec(name)
    label = f"{spec.name}@{k}"
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise MeasureError(f"{spec.name}: the cutoff k must be a positive integer, got {k!r}")
    if k > MAX_K:
        raise MeasureError(f"{spec.name}: the cutoff k must be at most {MAX_K:,} (10^15), got {_short(str(k))}")
    given: dict[str, Any] = {}
    for raw_name, value in params.items():
        try:
            p = spec.param(raw_name)
        except KeyError:
            takes = spec.describe_params()
            raise MeasureError(f"{label}: unknown parameter {raw_name!r}; {spec.name} takes {takes}") from None
        if p.name in given:
            raise MeasureError(f"{label}: parameter {p.name} given twice")
        given[p.name] = p.convert(value, label)
    for p in spec.params:
        if p.required and p.name not in given:
            ex = f", e.g. {p.name}={format_value(p.example)}" if p.example is not None else ""
            raise MeasureError(f"{label}: parameter {p.name} is required{ex}; {spec.signature()}")
    if spec.cost_params:
        n_cost = ("cost" in given) + ("costs" in given)
        if n_cost != 1:
            raise MeasureError(f"{label}: give exactly one of cost= (one cost for every sensitive level, e.g. cost=12) "
                               "or costs= (a cost per level starting at level 0, e.g. costs=0/6/12)")
        if "costs" in given and given["costs"][0] != 0:
            raise MeasureError(f"{label}: costs= starts with level 0 (not sensitive), whose cost must be 0; got {format_value(given['costs'])}")
    resolved = tuple((p.name, given.get(p.name, p.default)) for p in spec.params)
    explicit = tuple(p.name for p in spec.params if p.name in given and (p.required or p.default is None or given[p.name] != p.default))
    return spec.factory(k=k, params=resolved, explicit=explicit)


_SYNTAX = re.compile(r"^\s*(?P<name>[A-Za-z][\w\-]*?)\s*@\s*(?P<k>[^\s(]+)\s*(?:\((?P<params>[^()]*)\))?\s*$")


def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def parse_measure(text: str):
    """Parse ``NAME@K`` / ``NAME@K(p=v,...)`` into a frozen Measure (MeasureError if invalid)."""
    _ensure_loaded()
    if not isinstance(text, str):
        raise MeasureError(f"a measure is written as text like nCS-DCG@10(cost=12), got {text!r}")
    m = _SYNTAX.match(text)
    if not m:
        if "@" not in text:
            name = text.split("(")[0].strip()
            if name:
                get_spec(name)  # unknown names are reported first
            raise MeasureError(f"measure {text!r} needs a cutoff, e.g. {name or 'nDCG'}@10; known measures: " + ", ".join(_REGISTRY))
        raise MeasureError(f"cannot parse measure {text!r}; write NAME@K or NAME@K(param=value,...), "
                           "e.g. nCS-DCG@10(cost=12); known measures: " + ", ".join(_REGISTRY))
    spec = get_spec(m.group("name"))
    k_text = m.group("k")
    digits = k_text.lstrip("0")
    if not (k_text.isascii() and k_text.isdigit()) or not digits:
        raise MeasureError(f"{_short(text)!r}: the cutoff after @ must be a positive integer, got {_short(k_text)!r}")
    if len(digits) > len(str(MAX_K)):     # past MAX_K (int() of thousands of digits would fail)
        raise MeasureError(f"{spec.name}: the cutoff k must be at most {MAX_K:,} (10^15), got {_short(k_text)}")
    params: dict[str, str] = {}
    body = (m.group("params") or "").strip()
    if body:
        for item in body.split(","):
            key, eq, value = item.partition("=")
            key, value = key.strip(), value.strip()
            if not eq or not key or not value:
                raise MeasureError(f"{text!r}: parameters are written name=value, got {item.strip()!r}; {spec.signature()}")
            if key in params:
                raise MeasureError(f"{text!r}: parameter {key} given twice")
            params[key] = value
    return make_measure(spec.name, int(digits), **params)


__all__ = ["MAX_K", "ParamSpec", "MeasureSpec", "parse_measure", "make_measure", "measure_names",
           "measure_specs", "get_spec", "format_value", "register", "higher_is_better", "LOWER_IS_BETTER"]
