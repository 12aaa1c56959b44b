"""YAML configuration -> validated, frozen settings.

Every error names the field (``priorities[1].alpha: ...``) and, for YAML syntax
errors, the line. ``alphad check-config`` and the daemon use this same parser.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

__all__ = ["ApiConfig", "Config", "ConfigError", "load_config", "parse_config",
           "parse_duration"]

_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_DURATION_RE = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*(ns|us|µs|ms|s|m|h)?\s*$")


class ConfigError(Exception):
    """Invalid configuration; ``errors`` holds one ``field: message`` per problem."""

    def __init__(self, source: str, errors: list[str]) -> None:
        self.source = source
        self.errors = errors
        super().__init__(f"{source}: " + "; ".join(errors))

    def render(self) -> str:
        lines = [f"invalid configuration {self.source}:"]
        lines += [f"  {e}" for e in self.errors]
        return "\n".join(lines)


def parse_duration(v: Any) -> float:
    """'100ms', '1s', '80us', 0.5 -> seconds."""
    if isinstance(v, bool):
        raise ValueError("must be a duration such as '100ms', '1s' or a number of seconds")
    if isinstance(v, int | float):
        f = float(v)
    elif isinstance(v, str):
        m = _DURATION_RE.match(v)
        if not m:
            raise ValueError(f"{v!r} is not a duration (examples: '100ms', '1s', '80us', 0.5)")
        f = float(m.group(1)) * _UNITS[m.group(2) or "s"]
    else:
        raise ValueError("must be a duration such as '100ms', '1s' or a number of seconds")
    if not math.isfinite(f) or f <= 0:
        raise ValueError("must be a positive duration")
    return f


Duration = Annotated[float, BeforeValidator(parse_duration)]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=False)


class PriorityConfig(Strict):
    """One traffic class (ABM's priority p): its queues and its alpha_p.

    alpha_p is by default each queue's own alpha on the switch (2^dynamic_th of its
    profile before alphad). ``alpha`` overrides it for the class; an override below a
    queue's own alpha lowers its threshold and needs ``allow_lower: true``."""

    name: Annotated[str, Field(min_length=1, pattern=r"^[A-Za-z0-9_.-]+$")]
    queues: Annotated[list[Annotated[int, Field(ge=0, le=63)]], Field(min_length=1)]
    alpha: Annotated[float | None, Field(gt=0, allow_inf_nan=False)] = None
    allow_lower: bool = False
    group: Annotated[str | None, Field(pattern=r"^[A-Za-z0-9_.-]+$")] = None
    # strict-priority rank of the class's queues in the port scheduler: served before the
    # classes of a larger rank and before every class without one; None: not strict
    strict: Annotated[int | None, Field(ge=0, le=63)] = None

    @field_validator("queues")
    @classmethod
    def _unique(cls, v: list[int]) -> list[int]:
        dup = sorted({q for q in v if v.count(q) > 1})
        if dup:
            raise ValueError(f"queue {dup[0]} listed twice")
        return v


class QuantizeConfig(Strict):
    mode: Literal["pow2", "continuous"] = "pow2"
    kmin: Annotated[int, Field(ge=-8, le=7)] = -8
    kmax: Annotated[int, Field(ge=-8, le=7)] = 7
    hysteresis: Annotated[float, Field(ge=0, lt=1)] = 0.25

    @model_validator(mode="after")
    def _order(self) -> QuantizeConfig:
        if self.kmin > self.kmax:
            raise ValueError(f"kmin ({self.kmin}) must be <= kmax ({self.kmax})")
        return self


class EstimateConfig(Strict):
    congested_fraction: Annotated[float, Field(gt=0, le=1)] = 0.9
    min_bytes: Annotated[float, Field(ge=0)] = 1500.0
    gamma_ewma: Annotated[float, Field(gt=0, le=1)] = 1.0
    gamma_clamp: bool = True


class FailsafeConfig(Strict):
    """When the switch goes back to its baseline alpha (see alphad.failsafe)."""

    stale_intervals: Annotated[float, Field(ge=1, le=1e6)] = 5.0
    min_stale: Annotated[float, BeforeValidator(
        lambda v: 0.0 if v in (0, "0") else parse_duration(v)), Field(ge=0, le=3600)] = 0.1
    error_intervals: Annotated[int, Field(ge=1, le=1_000_000)] = 3
    recover_intervals: Annotated[int, Field(ge=1, le=1_000_000)] = 3
    max_line_rate: Annotated[float, Field(gt=1, le=1e6)] = 2.0
    max_fill: Annotated[float, Field(ge=1, le=1e6)] = 2.0


class LimitsConfig(Strict):
    """Bounds on alpha writes (see alphad.limits)."""

    max_step: Annotated[int, Field(ge=1, le=15)] = 15
    queue_min_interval: Annotated[float, BeforeValidator(
        lambda v: 0.0 if v in (0, "0") else parse_duration(v)), Field(ge=0, le=3600)] = 0.0
    write_budget: Annotated[float, Field(gt=0, le=1e9, allow_inf_nan=False)] = 10000.0


class MetricsConfig(Strict):
    enabled: bool = True
    listen: Annotated[str, Field(pattern=r"^[^\s:]*:\d{1,5}$")] = "127.0.0.1:9464"

    @property
    def host_port(self) -> tuple[str, int]:
        host, _, port = self.listen.rpartition(":")
        return host or "127.0.0.1", int(port)


class ApiConfig(Strict):
    """HTTP API, /metrics and the live page. Writes need ``Authorization: Bearer``
    with the token (from ``token`` or the first line of ``token_file``)."""

    enabled: bool = True
    listen: Annotated[str, Field(pattern=r"^[^\s:]*:\d{1,5}$")] = "127.0.0.1:9465"
    token: SecretStr | None = None
    token_file: Path | None = None

    @field_validator("token_file", mode="before")
    @classmethod
    def _relative_to_config(cls, v: Any, info: ValidationInfo) -> Any:
        base = (info.context or {}).get("base_dir")
        if v is None or base is None:
            return v
        p = Path(str(v)).expanduser()
        return p if p.is_absolute() else Path(base) / p

    @model_validator(mode="after")
    def _one_token(self) -> ApiConfig:
        if self.token is not None and self.token_file is not None:
            raise ValueError("api: set either token or token_file, not both")
        if self.token is not None and len(self.token.get_secret_value()) < 16:
            raise ValueError("api.token: must be at least 16 characters")
        return self

    @property
    def host_port(self) -> tuple[str, int]:
        host, _, port = self.listen.rpartition(":")
        return host or "127.0.0.1", int(port)

    def read_token(self) -> str | None:
        """The bearer token; ValueError naming the key if the file is unusable."""
        if self.token is not None:
            return self.token.get_secret_value()
        if self.token_file is None:
            return None
        try:
            lines = self.token_file.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as e:
            raise ValueError(f"api.token_file: cannot read {self.token_file}: "
                             f"{getattr(e, 'strerror', None) or e}") from None
        tok = lines[0].strip() if lines else ""
        if len(tok) < 16:
            raise ValueError(f"api.token_file: {self.token_file}: the token (first line) "
                             "must be at least 16 characters")
        return tok


class Config(Strict):
    interval: Annotated[Duration, Field(ge=1e-5, le=3600)] = 0.1
    scheme: str = "auto18"
    scheme_params: dict[str, Any] = Field(default_factory=dict)
    priorities: Annotated[list[PriorityConfig], Field(min_length=1)]
    quantize: QuantizeConfig = QuantizeConfig()
    estimate: EstimateConfig = EstimateConfig()
    failsafe: FailsafeConfig = FailsafeConfig()
    limits: LimitsConfig = LimitsConfig()
    # where the per-switch lock files live; default $ALPHAD_LOCK_DIR, /run/lock/alphad
    lock_dir: Path | None = None
    backend: Any  # validated against the backend type's own model, see _validate_backend
    ports: list[str] | None = None  # managed ports; None = all
    # the switch's name in metrics (label `switch`) and the API; None = the backend's
    switch_name: Annotated[str | None, Field(min_length=1, max_length=128,
                                             pattern=r"^[A-Za-z0-9_.:-]+$")] = None
    metrics: MetricsConfig = MetricsConfig()
    api: ApiConfig = ApiConfig()
    view: bool = False
    log_level: Literal["debug", "info", "warning", "error"] = "info"

    @field_validator("lock_dir", mode="before")
    @classmethod
    def _lock_dir_relative(cls, v: Any, info: ValidationInfo) -> Any:
        base = (info.context or {}).get("base_dir")
        if v is None or base is None:
            return v
        p = Path(str(v)).expanduser()
        return p if p.is_absolute() else Path(base) / p

    @field_validator("scheme")
    @classmethod
    def _known_scheme(cls, v: str) -> str:
        from alphad import schemes

        if not schemes.registered(v):
            raise ValueError(f"unknown scheme {v!r} (known: {', '.join(schemes.known())})")
        return v

    @model_validator(mode="after")
    def _check_priorities(self) -> Config:
        names = [p.name for p in self.priorities]
        for n in names:
            if names.count(n) > 1:
                raise ValueError(f"priorities: name {n!r} used twice")
        owner: dict[int, str] = {}
        for i, p in enumerate(self.priorities):
            for q in p.queues:
                if q in owner:
                    raise ValueError(
                        f"priorities[{i}].queues: queue {q} already belongs to {owner[q]!r}"
                    )
                owner[q] = p.name
        lo, hi = 2.0**self.quantize.kmin, 2.0**self.quantize.kmax
        for i, p in enumerate(self.priorities):
            if p.alpha is not None and not lo <= p.alpha <= hi:
                raise ValueError(
                    f"priorities[{i}].alpha: {p.alpha:g} is outside the hardware range "
                    f"[2^{self.quantize.kmin}, 2^{self.quantize.kmax}] = [{lo:g}, {hi:g}]"
                )
        return self

    @property
    def backend_type(self) -> str:
        return str(getattr(self.backend, "type", ""))


def _loc(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


def _errors(exc: ValidationError, prefix: str = "") -> list[str]:
    msgs = []
    for e in exc.errors():
        loc = [p for p in e["loc"] if not (isinstance(p, str) and p.startswith("function-"))]
        where = _loc(tuple(loc))
        if prefix:
            where = f"{prefix}.{where}" if where else prefix
        msg = e["msg"].removeprefix("Value error, ")
        if e["type"] == "extra_forbidden":
            msg = "unknown key"
        elif e["type"] == "missing":
            msg = "required key is missing"
        # A model-level error already names its field at the start of the message.
        if not where or re.match(r"^[a-z_]+(\[\d+\])?(\.[a-z_]+)*: ", msg):
            msgs.append(msg)
        else:
            msgs.append(f"{where}: {msg}")
    return msgs


class _UniqueKeyLoader(yaml.SafeLoader):
    pass


def _construct_mapping(loader: yaml.SafeLoader, node: yaml.MappingNode, deep: bool = False):
    seen: set[Any] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r}", key_node.start_mark
            )
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def parse_config(text: str, source: str = "<config>", base_dir: Path | None = None) -> Config:
    """Parse YAML text; relative paths in the backend resolve against base_dir."""
    try:
        raw = yaml.load(text, Loader=_UniqueKeyLoader)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        raise ConfigError(source, [f"{where}{e.problem or e}"]) from None
    except yaml.YAMLError as e:
        raise ConfigError(source, [f"not valid YAML: {e}"]) from None
    if raw is None:
        raise ConfigError(source, ["the file is empty"])
    if not isinstance(raw, dict):
        raise ConfigError(source, ["the top level must be a mapping of keys to values"])
    errors: list[str] = []
    backend_raw = raw.get("backend")
    try:
        cfg = Config.model_validate({**raw, "backend": backend_raw or {}},
                                    context={"base_dir": base_dir or Path.cwd()})
    except ValidationError as e:
        errors += _errors(e)
        cfg = None
    backend, berrs = _validate_backend(backend_raw, base_dir or Path.cwd())
    errors += berrs
    if errors or cfg is None:
        raise ConfigError(source, errors)
    return cfg.model_copy(update={"backend": backend})


def _validate_backend(raw: Any, base_dir: Path) -> tuple[Any, list[str]]:
    from alphad.backends import backend_config_class, known_backends

    if raw is None:
        return None, ["backend: required key is missing"]
    if not isinstance(raw, dict):
        return None, ["backend: must be a mapping with a 'type' key"]
    t = raw.get("type")
    if t is None:
        known = ", ".join(known_backends())
        return None, [f"backend.type: required key is missing (known: {known})"]
    try:
        cls = backend_config_class(str(t))
    except KeyError as e:
        return None, [f"backend.type: {e.args[0]}"]
    try:
        return cls.model_validate(raw, context={"base_dir": base_dir}), []
    except ValidationError as e:
        return None, _errors(e, "backend")


def load_config(path: str | Path) -> Config:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(str(p), ["file not found"]) from None
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(str(p), [f"cannot read: {e}"]) from None
    return parse_config(text, str(p), p.resolve().parent)
