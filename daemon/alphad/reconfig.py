"""Configuration changes at run time: the HTTP API's PUT /v1/config and SIGHUP.

Both go through the same parser as the configuration file (``parse_config``
and ``check_scheme``), so an error names the field exactly as
``alphad check-config`` would. A valid change is handed to the loop, which
applies it between two cycles. PUT edits the YAML text in place (the value's
own span, so comments and layout stay) and writes it back to the file only
when asked, atomically (temporary file, fsync, rename).
"""

from __future__ import annotations

import logging
import math
import os
import re
import tempfile
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from alphad.checks import check_scheme
from alphad.config import Config, ConfigError, parse_config

if TYPE_CHECKING:
    from alphad.loop import Daemon

__all__ = ["ConfigStore", "ConfigUpdateError", "Outcome", "edit_yaml", "hot_view"]

log = logging.getLogger("alphad")

# Parts of the configuration that need a restart (everything else is applied live).
_RESTART_KEYS = ("backend", "metrics", "api", "view", "log_level", "switch_name")


class ConfigUpdateError(Exception):
    """A change was refused; ``errors`` holds one ``field: message`` per problem."""

    def __init__(self, errors: list[str]) -> None:
        super().__init__("; ".join(errors))
        self.errors = errors


@dataclass(frozen=True)
class Outcome:
    config: Config
    applied: bool  # in effect when the call returned (else: at the next interval)
    persisted: bool
    restart_needed: tuple[str, ...] = ()


def hot_view(cfg: Config) -> dict[str, Any]:
    """The settings that can change at run time, as the API shows them."""
    return {
        "interval": cfg.interval,
        "scheme": cfg.scheme,
        "scheme_params": dict(cfg.scheme_params),
        "alphas": {p.name: p.alpha for p in cfg.priorities},
    }


def _flow(value: Any) -> str:
    """``value`` as a one-line YAML flow scalar/collection."""
    text = yaml.safe_dump(value, default_flow_style=True, width=1 << 30, sort_keys=False)
    text = text.strip()
    return text.removesuffix("...").strip()


_PROPS = re.compile(r"(?:[&!][^\s]*\s+)+")  # an anchor and/or tag before a value


def _span(text: str, node: yaml.Node) -> tuple[int, int]:
    """Where the value of ``node`` is written, without its anchor or tag."""
    start, end = node.start_mark.index, node.end_mark.index
    m = _PROPS.match(text, start, end)
    return (m.end() if m else start), end


def _top(root: yaml.Node, key: str) -> tuple[yaml.Node, yaml.Node] | None:
    assert isinstance(root, yaml.MappingNode)
    for k, v in root.value:
        if isinstance(k, yaml.ScalarNode) and k.value == key:
            return k, v
    return None


def edit_yaml(text: str, updates: Mapping[str, Any]) -> str:
    """Set top-level keys (``interval``, ``scheme``, ``scheme_params``) and
    ``alphas`` (priority name -> alpha) in YAML ``text``, replacing only the
    values' own text. ConfigUpdateError names an alpha for an unknown priority."""
    root = yaml.compose(text, Loader=yaml.SafeLoader)
    if not isinstance(root, yaml.MappingNode):
        raise ConfigUpdateError(["the configuration's top level is not a mapping"])
    spans: list[tuple[int, int, str]] = []
    append: list[str] = []
    for key in ("interval", "scheme", "scheme_params"):
        if key not in updates or updates[key] is None:
            continue
        hit = _top(root, key)
        if hit is None:
            append.append(f"{key}: {_flow(updates[key])}\n")
        else:
            spans.append((*_span(text, hit[1]), _flow(updates[key])))
    alphas = updates.get("alphas") or {}
    if alphas:
        hit = _top(root, "priorities")
        entries: dict[str, yaml.Node] = {}
        no_alpha: dict[str, tuple[yaml.Node, yaml.Node, bool]] = {}  # name -> (key, value, flow)
        if hit is not None and isinstance(hit[1], yaml.SequenceNode):
            for item in hit[1].value:
                if isinstance(item, yaml.MappingNode):
                    name = _top(item, "name")
                    a = _top(item, "alpha")
                    if name is not None and a is not None:
                        entries[str(name[1].value)] = a[1]
                    elif name is not None:  # on the switch's own alphas: add the key
                        no_alpha[str(name[1].value)] = (*name, bool(item.flow_style))
        for n in [n for n in alphas if n in no_alpha]:
            key, value, flow = no_alpha[n]
            end = value.end_mark.index
            sep = ", " if flow else "\n" + " " * key.start_mark.column
            spans.append((end, end, f"{sep}alpha: {_flow(alphas[n])}"))
        alphas = {n: v for n, v in alphas.items() if n not in no_alpha}
        unknown = [n for n in alphas if n not in entries]
        if unknown:
            raise ConfigUpdateError([f"alphas.{n}: no priority named {n!r} "
                                     f"(known: {', '.join(entries) or 'none'})"
                                     for n in unknown])
        for name, value in alphas.items():
            spans.append((*_span(text, entries[name]), _flow(value)))
    seen: set[tuple[int, int]] = set()
    for start, end, _ in spans:
        if (start, end) in seen:
            raise ConfigUpdateError(["alphas: two priorities share one value through a YAML "
                                     "alias; edit the file and send SIGHUP instead"])
        seen.add((start, end))
    out = text
    for start, end, new in sorted(spans, reverse=True):
        out = out[:start] + new + out[end:]
    if append:
        out = out + ("" if out.endswith("\n") else "\n") + "".join(append)
    return out


def _by_name(msg: str, names: list[str]) -> str:
    """'priorities[1].alpha: ...' -> 'alphas.query: ...' (the API's own field)."""
    m = re.match(r"^priorities\[(\d+)\]\.alpha: ", msg)
    if m and int(m.group(1)) < len(names):
        return f"alphas.{names[int(m.group(1))]}: " + msg[m.end():]
    return msg


def write_atomic(path: Path, text: str) -> None:
    """Replace ``path`` by ``text`` so that a reader sees the old or the new file."""
    mode = path.stat().st_mode & 0o7777 if path.exists() else 0o644
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    dfd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)


class ConfigStore:
    """The running configuration's YAML text and the file it came from."""

    def __init__(self, daemon: Daemon, path: Path, text: str | None = None) -> None:
        self.daemon = daemon
        self.path = path
        self.text = text if text is not None else path.read_text(encoding="utf-8")
        self._lock = threading.Lock()  # one change at a time
        self._cfg = daemon.cfg  # what ``text`` says (the loop may not have applied it yet)

    @property
    def config(self) -> Config:
        """The latest accepted configuration."""
        return self._cfg

    def _parse(self, text: str, source: str) -> Config:
        try:
            cfg = parse_config(text, source, self.path.resolve().parent)
        except ConfigError as e:
            raise ConfigUpdateError(e.errors) from None
        problem = check_scheme(cfg)
        if problem:
            raise ConfigUpdateError([problem])
        lowered = self.daemon.check_baseline(cfg)
        if lowered:
            raise ConfigUpdateError(lowered)
        return cfg

    def _check_took(self, cfg: Config, updates: Mapping[str, Any]) -> list[str]:
        """The edited text says what was asked (YAML aliases or merge keys could hide it)."""
        want = {k: v for k, v in updates.items() if v not in (None, {}) or k == "scheme_params"}
        got = hot_view(cfg)
        bad = []
        if "interval" in want:
            from alphad.config import parse_duration

            if abs(parse_duration(want["interval"]) - got["interval"]) > 1e-12:
                bad.append("interval")
        for k in ("scheme", "scheme_params"):
            if k in want and want[k] != got[k]:
                bad.append(k)
        alphas = {**hot_view(self._cfg)["alphas"], **(want.get("alphas") or {})}
        bad += [f"alphas.{n}" for n, a in alphas.items() if got["alphas"].get(n) != a]
        return [f"{k}: cannot be changed in place in this file (YAML alias or merge key); "
                "edit the file and send SIGHUP instead" for k in bad]

    def _restart_needed(self, new: Config) -> tuple[str, ...]:
        old = self.daemon.cfg
        return tuple(k for k in _RESTART_KEYS if getattr(old, k) != getattr(new, k))

    def _hand_over(self, cfg: Config, wait: float) -> bool:
        # Keep what cannot change without a restart, so the running state stays one Config.
        keep = {k: getattr(self.daemon.cfg, k) for k in _RESTART_KEYS}
        done = self.daemon.request_config(cfg.model_copy(update=keep))
        return done.wait(wait) if wait > 0 else False

    def update(self, updates: Mapping[str, Any], persist: bool = False,
               wait: float = 0.0) -> Outcome:
        """Validate and apply a change of interval, scheme, scheme_params or alphas."""
        try:
            return self._update(updates, persist, wait)
        except ConfigUpdateError:
            self._count("api", False)
            raise

    def _update(self, updates: Mapping[str, Any], persist: bool, wait: float) -> Outcome:
        with self._lock:
            errors: list[str] = []
            updates = dict(updates)
            v = updates.get("interval")
            if isinstance(v, float) and not math.isfinite(v):
                errors.append("interval: must be a finite number")
                updates.pop("interval")
            names = [p.name for p in self._cfg.priorities]
            alphas = dict(updates.get("alphas") or {})
            for n in [n for n in alphas if n not in names]:
                errors.append(f"alphas.{n}: no priority named {n!r} (known: {', '.join(names)})")
                alphas.pop(n)
            updates["alphas"] = alphas
            try:
                text = edit_yaml(self.text, updates)
                cfg = self._parse(text, "PUT /v1/config")
            except yaml.YAMLError as e:  # the stored text was valid: should not happen
                raise ConfigUpdateError([*errors, f"cannot edit the configuration: {e}"]) \
                    from None
            except ConfigUpdateError as e:
                raise ConfigUpdateError([*errors, *(_by_name(m, names) for m in e.errors)]) \
                    from None
            errors += self._check_took(cfg, updates)
            if errors:
                raise ConfigUpdateError(errors)
            log.info("configuration change from the API: %s",
                     ", ".join(f"{k}={v}" for k, v in updates.items() if v))
            persisted = False
            if persist:
                try:
                    write_atomic(self.path, text)
                except OSError as e:
                    raise ConfigUpdateError(
                        [f"cannot write {self.path}: {e.strerror or e}"]) from None
                persisted = True
                log.info("configuration written to %s", self.path)
            self.text, self._cfg = text, cfg
            applied = self._hand_over(cfg, wait)
            self._count("api", True)
            return Outcome(cfg, applied, persisted)

    def reload(self) -> Outcome | None:
        """Re-read the file (SIGHUP). A bad file is logged and the running
        configuration kept; returns None then."""
        with self._lock:
            try:
                text = self.path.read_text(encoding="utf-8")
                cfg = self._parse(text, str(self.path))
            except (OSError, UnicodeDecodeError) as e:
                log.error("SIGHUP: cannot read %s: %s; keeping the running configuration",
                          self.path, e)
                self._count("sighup", False)
                return None
            except ConfigUpdateError as e:
                log.error("SIGHUP: invalid configuration %s; keeping the running "
                          "configuration:\n  %s", self.path, "\n  ".join(e.errors))
                self._count("sighup", False)
                return None
            restart = self._restart_needed(cfg)
            if restart:
                log.warning("SIGHUP: changes to %s take effect only after a restart",
                            ", ".join(restart))
            self.text, self._cfg = text, cfg
            self._hand_over(cfg, 0.0)
            self._count("sighup", True)
            log.info("SIGHUP: %s re-read; applying at the next interval", self.path)
            return Outcome(cfg, False, False, restart)

    def _count(self, source: str, ok: bool) -> None:
        m = self.daemon.metrics
        if m is not None and m.switch is not None:
            m.count_reload(source, ok)
