"""docs/configuration.md, generated from the configuration model.

``python -m alphad.docgen`` writes the file; ``--check`` exits 1 when the file
differs from what the model gives (the docs test runs it). Types, defaults and
ranges come from the pydantic models (:mod:`alphad.config`, each backend's
``CONFIGS``) and the schemes' ``DEFAULTS``; meanings come from :data:`MEANINGS`
here or a field's ``description``. A key without either is an error that names
it, so a new key cannot reach the file undocumented.
"""

from __future__ import annotations

import argparse
import difflib
import io
import re
import sys
import tokenize
import types
import typing
from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

import annotated_types as at
from pydantic import BaseModel, SecretStr
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from alphad._config_meanings import DEFAULT_TEXT, MEANINGS

__all__ = ["MEANINGS", "Key", "generate", "keys", "main", "missing_meanings"]

DEFAULT_OUT = Path("docs/configuration.md")

_TOP_SECTIONS = ("quantize", "estimate", "failsafe", "limits", "metrics", "api")


@dataclass(frozen=True)
class Key:
    path: str
    type: str
    default: str
    range: str
    meaning: str | None


def _is_duration(info: FieldInfo) -> bool:
    meta = list(info.metadata)
    for arg in typing.get_args(info.annotation):  # Duration | None
        meta += _unwrap(arg)[1]
    for m in meta:
        func = getattr(m, "func", None)
        if func is None:
            continue
        if getattr(func, "__name__", "") == "parse_duration":
            return True
        code = getattr(func, "__code__", None)
        if code is not None and "parse_duration" in code.co_names:
            return True
    return False


def _seconds(v: float) -> str:
    if v == 0:
        return "0"
    for unit, scale in (("h", 3600.0), ("m", 60.0), ("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if v >= scale and abs(round(v / scale) * scale - v) < 1e-12 * max(v, 1):
            return f"{round(v / scale)}{unit}"
    return f"{v:g}s"


def _unwrap(ann: Any) -> tuple[Any, list[Any]]:
    """(type, metadata) of an ``Annotated[...]``; other annotations unchanged."""
    meta: list[Any] = []
    while typing.get_origin(ann) is typing.Annotated:
        args = typing.get_args(ann)
        ann = args[0]
        for m in args[1:]:
            meta.extend(m.metadata if isinstance(m, FieldInfo) else [m])
    return ann, meta


def _type_name(ann: Any, duration: bool = False) -> str:
    ann, _ = _unwrap(ann)
    origin = typing.get_origin(ann)
    args = typing.get_args(ann)
    if origin in (typing.Union, types.UnionType):
        names = [_type_name(a, duration) for a in args if a is not type(None)]
        return " \\| ".join(names) + (" \\| null" if type(None) in args else "")
    if origin is typing.Literal:
        return " \\| ".join(f"`{a}`" for a in args)
    if origin is list:
        return f"list of {_type_name(args[0])}"
    if origin is dict:
        return "mapping"
    if duration and ann is float:
        return "duration"
    if isinstance(ann, type):
        if issubclass(ann, Enum):
            return " \\| ".join(f"`{m.value}`" for m in ann)
        if issubclass(ann, SecretStr):
            return "string (secret)"
        if issubclass(ann, Path):
            return "path"
        return {bool: "boolean", int: "integer", float: "number", str: "string"}.get(
            ann, ann.__name__)
    return "any"


def _num(v: float) -> str:
    if float(v).is_integer() and abs(v) < 1e12:
        return f"{int(v):,}"
    return f"{v:g}"


def _bounds(meta: list[Any], duration: bool, text: bool = False) -> list[str]:
    fmt = _seconds if duration else _num
    unit = "characters" if text else "items"
    lo = hi = ""
    out: list[str] = []
    for m in meta:
        if isinstance(m, at.Ge):
            lo = f"≥ {fmt(m.ge)}"
        elif isinstance(m, at.Gt):
            lo = f"> {fmt(m.gt)}"
        elif isinstance(m, at.Le):
            hi = f"≤ {fmt(m.le)}"
        elif isinstance(m, at.Lt):
            hi = f"< {fmt(m.lt)}"
        elif isinstance(m, at.MinLen) and m.min_length:
            out.append(f"at least {m.min_length} {unit[:-1] if m.min_length == 1 else unit}")
        elif isinstance(m, at.MaxLen):
            out.append(f"at most {m.max_length} {unit}")
        elif getattr(m, "pattern", None):
            out.append(f"`{m.pattern}`")
    if lo and hi:
        out.insert(0, f"{lo.split(' ', 1)[1]} .. {hi.split(' ', 1)[1]}"
                   if lo.startswith("≥") and hi.startswith("≤") else f"{lo}, {hi}")
    elif lo or hi:
        out.insert(0, lo or hi)
    return out


def _range(info: FieldInfo) -> str:
    duration = _is_duration(info)
    ann, _ = _unwrap(info.annotation)
    text = str in (ann, *typing.get_args(ann))
    parts = _bounds(list(info.metadata), duration, text)
    if typing.get_origin(ann) is list:
        inner = _bounds(_unwrap(typing.get_args(ann)[0])[1], False)
        if inner:
            parts.append("each " + ", ".join(inner))
    return ", ".join(parts)


def _default(path: str, info: FieldInfo) -> str:
    if path in DEFAULT_TEXT:
        return DEFAULT_TEXT[path]
    if info.default_factory is not None:
        v = info.default_factory()  # type: ignore[call-arg]
    elif info.default is PydanticUndefined:
        return "required"
    else:
        v = info.default
    if v is None:
        return "none"
    if isinstance(v, BaseModel):
        return ""
    if _is_duration(info) and isinstance(v, int | float) and not isinstance(v, bool):
        return f"`{_seconds(float(v))}`"
    if isinstance(v, bool):
        return f"`{str(v).lower()}`"
    if isinstance(v, float):
        return f"`{v:g}`"
    if isinstance(v, Enum):
        v = v.value
    if isinstance(v, dict | list) and not v:
        return "`{}`" if isinstance(v, dict) else "`[]`"
    return f"`{v}`"


def _model_of(ann: Any) -> type[BaseModel] | None:
    ann, _ = _unwrap(ann)
    if typing.get_origin(ann) in (typing.Union, types.UnionType):
        models = [a for a in typing.get_args(ann) if isinstance(a, type)
                  and issubclass(a, BaseModel)]
        return models[0] if len(models) == 1 else None
    return ann if isinstance(ann, type) and issubclass(ann, BaseModel) else None


def _walk(model: type[BaseModel], prefix: str, shown: str) -> Iterator[tuple[str, str, Key]]:
    """(meaning path, shown path, key) of every leaf of ``model``."""
    fields = sorted(model.model_fields.items(), key=lambda kv: kv[0] != "type")
    for name, info in fields:
        path, show = f"{prefix}{name}", f"{shown}{name}"
        ann, _ = _unwrap(info.annotation)
        sub = _model_of(ann)
        if typing.get_origin(ann) is list:
            item = _model_of(typing.get_args(ann)[0])
            if item is not None:
                yield path, show, _key(show, path, info, f"list of mappings ({name}[])")
                yield from _walk(item, f"{path}[].", f"{show}[].")
                continue
        if sub is not None:
            yield from _walk(sub, f"{path}.", f"{show}.")
            continue
        yield path, show, _key(show, path, info)


def _key(show: str, path: str, info: FieldInfo, type_text: str | None = None) -> Key:
    return Key(show, type_text or _type_name(info.annotation, _is_duration(info)),
               _default(path, info), _range(info), MEANINGS.get(path) or info.description)


def _backends() -> list[tuple[str, type[BaseModel]]]:
    from alphad.backends import backend_config_class, known_backends

    return [(t, backend_config_class(t)) for t in known_backends()]


def keys() -> dict[str, list[Key]]:
    """Every key, grouped as the file shows them: ``""`` for the top level, then each
    section, then ``backend <type>`` per backend."""
    from alphad.config import Config

    groups: dict[str, list[Key]] = {}
    for path, _show, key in _walk(Config, "", ""):
        if path == "backend":
            continue
        top = path.split(".", 1)[0].split("[", 1)[0]
        groups.setdefault(top if top in (*_TOP_SECTIONS, "priorities") else "", []).append(key)
    for t, cls in _backends():
        groups[f"backend {t}"] = [k for _p, _s, k in _walk(cls, f"backend.{t}.", "backend.")]
    return groups


def missing_meanings() -> list[str]:
    """Keys of the model with no meaning (neither in MEANINGS nor a description)."""
    return [k.path for ks in keys().values() for k in ks if not k.meaning]


def stale_meanings() -> list[str]:
    """MEANINGS entries that name no key of the model any more."""
    from alphad.config import Config

    paths = {p for p, _s, _k in _walk(Config, "", "")}
    for t, cls in _backends():
        paths |= {p for p, _s, _k in _walk(cls, f"backend.{t}.", "backend.")}
    return sorted(set(MEANINGS) - paths)


def _scheme_params() -> dict[str, dict[str, tuple[float, str]]]:
    """scheme -> parameter -> (default, the comment beside it in the scheme's source)."""
    from alphad import schemes

    out: dict[str, dict[str, tuple[float, str]]] = {}
    for name in schemes.known():
        module = schemes.get(name).__module__
        if not module.startswith("alphad.schemes."):
            continue  # registered by a harness in this process, not one of the daemon's
        mod = sys.modules.get(module)
        defaults = getattr(mod, "DEFAULTS", None)
        if not isinstance(defaults, dict):
            out[name] = {}
            continue
        # a scheme built on another's class may derive its DEFAULTS from that one's: each
        # comment is read where its key is written, the scheme's own module first
        srcs = [mod] + [sys.modules[b.__module__] for v in vars(mod).values()
                        if isinstance(v, type) for b in v.__mro__
                        if b.__module__ != mod.__name__
                        and b.__module__.startswith("alphad.schemes.")]
        comments: dict[str, str] = {}
        for m in reversed(srcs):
            comments |= _dict_comments(Path(getattr(m, "__file__", "") or ""), "DEFAULTS")
        out[name] = {k: (v, comments.get(k, "")) for k, v in defaults.items()}
    return out


def _default_scheme() -> str:
    """The scheme a configuration that names none runs."""
    from alphad.config import Config

    return str(Config.model_fields["scheme"].default)


def _scheme_summary(name: str) -> str:
    """The first sentence of the scheme module's docstring, without a leading "`name`: " or
    "`name`, the default: " (which scheme is the default is the configuration's to say)."""
    from alphad import schemes

    mod = sys.modules.get(schemes.get(name).__module__)
    para = ((mod.__doc__ if mod else None) or "").strip().split("\n\n", 1)[0]
    text = " ".join(para.split()).removeprefix(f"`{name}`: ")
    text = text.removeprefix(f"`{name}`, the default: ")
    text = text[:1].upper() + text[1:]
    return re.split(r"\.\s+(?=[A-Z`])", text, maxsplit=1)[0].rstrip(".")


def _dict_comments(src: Path, name: str) -> dict[str, str]:
    """The comments after each ``"key": value,`` of the dict literal assigned to ``name``
    (continuation comment lines joined)."""
    try:
        text = src.read_text(encoding="utf-8")
    except OSError:
        return {}
    out: dict[str, str] = {}
    found, inside, depth, key, last = False, False, 0, None, None
    toks = list(tokenize.generate_tokens(io.StringIO(text).readline))
    for i, tok in enumerate(toks):
        if not inside:
            if tok.type == tokenize.NAME and tok.string == name and tok.start[1] == 0:
                found = True
            elif found and tok.type == tokenize.OP and tok.string == "=":
                inside = True
            continue
        if tok.type == tokenize.OP and tok.string in "{[(":
            depth += 1
        elif tok.type == tokenize.OP and tok.string in "}])":
            depth -= 1
            if depth == 0:
                break
        elif tok.type == tokenize.STRING and depth == 1 and i + 1 < len(toks) \
                and toks[i + 1].string == ":":
            key = tok.string.strip("\"'")
        elif tok.type == tokenize.COMMENT and depth == 1:
            c = tok.string.lstrip("#").strip()
            if key is not None and key != last:
                out[key], last = c, key
            elif last is not None:
                out[last] += " " + c
    return out


def _cell(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def _table(ks: list[Key]) -> list[str]:
    rows = ["| key | type | default | range | meaning |", "|---|---|---|---|---|"]
    for k in ks:
        rows.append(f"| `{k.path}` | {k.type} | {k.default} | {_cell(k.range)} | "
                    f"{_cell(k.meaning or '')} |")
    return rows


_TITLES = {
    "priorities": "Traffic classes (`priorities`)",
    "quantize": "Rounding to the hardware (`quantize`)",
    "estimate": "Estimates (`estimate`)",
    "failsafe": "Fail-safe (`failsafe`)",
    "limits": "Write limits (`limits`)",
    "metrics": "Prometheus endpoint (`metrics`)",
    "api": "HTTP API (`api`)",
}


def generate() -> str:
    """The whole of docs/configuration.md."""
    missing = missing_meanings()
    if missing:
        raise ValueError("configuration keys without a meaning (add them to "
                         "alphad/_config_meanings.py or give the field a description): "
                         + ", ".join(missing))
    groups = keys()
    out = [
        "# Configuration reference",
        "",
        "<!-- Generated by `python -m alphad.docgen` from the configuration model "
        "(daemon/alphad/config.py, the backends' CONFIGS, the schemes' DEFAULTS). "
        "Do not edit: a test fails when this file and the model disagree. -->",
        "",
        "alphad reads one YAML file. `alphad check-config -c FILE` validates it with the "
        "daemon's own parser and names every bad key; unknown keys are refused. "
        "Durations are written `80us`, `10ms`, `1s`, `2m`, or as a number of seconds. "
        "Relative paths are relative to the configuration file. `SIGHUP` and "
        "`PUT /v1/config` change `interval`, `scheme`, `scheme_params` and the classes' "
        "alphas at run time; every other key needs a restart "
        "([operator's guide](operators-guide.md)).",
        "",
        "Examples: [`configs/alphad.yaml`](../configs/alphad.yaml) (the virtual ASIC), "
        "[`configs/sonic/alphad-sonic.yaml`](../configs/sonic/alphad-sonic.yaml) (a SONiC "
        "switch), [`configs/gnmi/alphad-gnmi.yaml`](../configs/gnmi/alphad-gnmi.yaml) "
        "(gNMI).",
        "",
        "## Top level",
        "",
        *_table(groups.pop("")),
    ]
    for sec in ("priorities", *_TOP_SECTIONS):
        if sec in groups:
            out += ["", f"## {_TITLES.get(sec, sec)}", "", *_table(groups.pop(sec))]
    out += ["", "## Backends", "",
            "`backend.type` selects one; each takes only its own keys."]
    for name in sorted(groups):
        out += ["", f"### `{name.split(' ', 1)[1]}`", "", *_table(groups[name])]
    out += ["", "## Schemes", "",
            "`scheme` names one of these; `scheme_params` sets the parameters of the "
            f"scheme in use (numbers, at least 0). How the default controller, "
            f"`{_default_scheme()}`, uses its parameters: [how auto works](how-auto-works.md).",
            ""]
    params = _scheme_params()
    out += ["| scheme | what it does | parameters |", "|---|---|---|"]
    for s, p in params.items():
        n = f"{len(p)}, [below](#{s}-parameters)" if p else "none"
        mark = " (the default)" if s == _default_scheme() else ""
        out.append(f"| `{s}`{mark} | {_cell(_scheme_summary(s))} | {n} |")
    for s, p in params.items():
        if not p:
            continue
        out += ["", f"### `{s}` parameters", "", "| parameter | default | meaning |",
                "|---|---|---|"]
        out += [f"| `{k}` | `{v:g}` | {_cell(c)} |" for k, (v, c) in p.items()]
        fixed = _scheme_fixed(s)
        if fixed:
            out += ["", "Fixed, and refused under `scheme_params`: " + ", ".join(
                f"`{k}` {v:g}" for k, v in fixed.items()) + "."]
    return "\n".join(out) + "\n"


def _scheme_fixed(name: str) -> dict[str, float]:
    """The values a scheme fixes of the parameters of the scheme it is built on (its
    module's ``FIXED``)."""
    from alphad import schemes

    fixed = getattr(sys.modules.get(schemes.get(name).__module__), "FIXED", None)
    return dict(fixed) if isinstance(fixed, dict) else {}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m alphad.docgen", description=__doc__.split(
        "\n\n")[0])
    ap.add_argument("-o", "--out", type=Path, default=DEFAULT_OUT,
                    help=f"file to write (default: {DEFAULT_OUT})")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 (with a diff) when the file differs from the model")
    args = ap.parse_args(argv)
    try:
        text = generate()
    except ValueError as e:
        print(f"alphad.docgen: {e}", file=sys.stderr)
        return 2
    if args.check:
        try:
            current = args.out.read_text(encoding="utf-8")
        except OSError as e:
            print(f"alphad.docgen: {args.out}: {e.strerror or e}", file=sys.stderr)
            return 1
        if current != text:
            sys.stdout.writelines(difflib.unified_diff(
                current.splitlines(True), text.splitlines(True), str(args.out), "generated"))
            print(f"alphad.docgen: {args.out} is out of date: run python -m alphad.docgen "
                  f"-o {args.out}", file=sys.stderr)
            return 1
        return 0
    try:
        args.out.write_text(text, encoding="utf-8")
    except OSError as e:
        print(f"alphad.docgen: {args.out}: {e.strerror or e} (run it from the repository "
              "root, or give -o)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
