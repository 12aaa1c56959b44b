"""Control plane of the P4 reference: alphad YAML + deployment YAML -> table entries.

:func:`build_plan` is a pure function; ``bfrt_setup.py`` only pushes its result to the
switch. The ``priorities`` section is read from alphad's own configuration file (all
other top-level keys of that file are ignored); what only the data plane needs (scheme,
ports, routes, cell size, SYNC period) lives in a separate deployment file, see
``deployment.example.yaml``. Runs on the switch's bfrt-python (needs PyYAML only to read
YAML; ``--json`` output lets a machine without PyYAML install a precomputed plan).
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import math
import os
import sys
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

_HERE = os.path.dirname(os.path.abspath(__file__))
_MODEL = os.path.join(os.path.dirname(_HERE), "model")
if _MODEL not in sys.path:
    sys.path.insert(0, _MODEL)

from p4ref import arith  # noqa: E402
from p4ref.entries import (  # noqa: E402
    Exact,
    Lpm,
    T,
    TableEntry,
    Ternary,
    exp_entries,
    log_act_entries,
    log_np_entries,
    log_rem_entries,
)
from p4ref.schema import MAX_NIDX, MAX_PORTS, MAX_QUEUES, check_entry  # noqa: E402

__all__ = [
    "ConfigError",
    "Deployment",
    "Plan",
    "Port",
    "Priority",
    "build_plan",
    "load_deployment",
    "load_priorities",
    "main",
    "parse_deployment",
    "parse_priorities",
]

SCHEMES = ("abm", "fb", "dt")
DEFAULT_CONG_FRACTION = {"abm": Fraction(9, 10), "fb": Fraction(0), "dt": Fraction(9, 10)}
"""ABM 3.1: congested iff q >= 0.9 T. FB 4.1: congested iff non-empty."""


class ConfigError(ValueError):
    """Invalid configuration; the message names the offending field."""


@dataclass(frozen=True)
class Priority:
    name: str
    queues: tuple[int, ...]
    alpha: Fraction
    group: str


@dataclass(frozen=True)
class Port:
    dev_port: int
    routes: tuple[str, ...] = ()
    ghost_qid_base: int | None = None
    """Tofino 2: TM queue id of queue 0 of this port as the ghost thread reports it."""


@dataclass(frozen=True)
class Deployment:
    scheme: str
    ports: tuple[Port, ...]
    pool_bytes: int
    cell_bytes: int = 80
    queues_per_port: int = 8
    alpha_unsched: Fraction | None = None
    congestion_fraction: Fraction | None = None
    log_mantissa_bits: int = 6
    frame_overhead_bytes: int = 18
    max_frame_bytes: int = 9216
    unsched_tag: tuple[int, int] = (0x04, 0x04)
    """(value, mask) over the IPv4 diffserv byte marking first-RTT packets."""
    recirc_port: int = 69
    pktgen_port: int = 68
    pktgen_app_id: int = 1
    sync_period_ns: int = 10_000
    admit_rule: str = "fit"
    """"fit": q + size <= T (packet size from pkt_units); "below": q < T (size 1 unit)."""

    @property
    def pool_units(self) -> int:
        return self.pool_bytes // self.cell_bytes

    @property
    def cong_fraction(self) -> Fraction:
        if self.congestion_fraction is not None:
            return self.congestion_fraction
        return DEFAULT_CONG_FRACTION[self.scheme]


@dataclass
class Plan:
    """Everything the control plane installs."""

    entries: list[TableEntry]
    registers: dict[str, dict[int, dict[str, int]]]
    """register -> index -> field values (bfrt data field names)."""
    pktgen: dict[str, int]
    queues: list[dict[str, Any]] = field(default_factory=list)
    """One record per managed queue: port, queue, qidx, priority, nidx (for reports)."""

    def to_json(self) -> dict[str, Any]:
        return {"entries": [e.to_json() for e in self.entries],
                "registers": {k: {str(i): v for i, v in r.items()}
                              for k, r in self.registers.items()},
                "pktgen": self.pktgen, "queues": self.queues}


# -- parsing ---------------------------------------------------------------------------
def _num(value: Any, where: str) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, (int, float, str, Fraction)):
        raise ConfigError(f"{where}: expected a number, got {value!r}")
    try:
        out = Fraction(str(value))
    except (ValueError, ZeroDivisionError):
        raise ConfigError(f"{where}: expected a number, got {value!r}") from None
    return out


def _int(value: Any, where: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{where}: expected an integer, got {value!r}")
    if not lo <= value <= hi:
        raise ConfigError(f"{where}: {value} outside {lo}..{hi}")
    return value


def _mapping(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: expected a mapping, got {type(value).__name__}")
    return value


def _alpha(value: Any, where: str) -> Fraction:
    alpha = _num(value, where)
    if alpha <= 0:
        raise ConfigError(f"{where}: must be > 0, got {value}")
    try:
        arith.alpha_log_fixed(alpha)
    except ValueError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    return alpha


def parse_priorities(doc: Any, queues_per_port: int = 32,
                     default_alpha: Fraction | None = None) -> list[Priority]:
    """Validate the ``priorities`` section of an alphad configuration document.

    alphad keeps the switch's own alpha for a priority without ``alpha``; the P4 program has
    no profile to keep one from, so such a priority takes ``default_alpha`` (the alpha the
    deployment configures), and is refused when none is given."""
    doc = _mapping(doc, "configuration")
    if "priorities" not in doc:
        raise ConfigError("priorities: missing (the P4 reference needs alpha_p per priority)")
    items = doc["priorities"]
    if not isinstance(items, list) or not items:
        raise ConfigError("priorities: expected a non-empty list")
    out: list[Priority] = []
    seen_queue: dict[int, str] = {}
    for i, raw in enumerate(items):
        where = f"priorities[{i}]"
        item = _mapping(raw, where)
        unknown = sorted(set(item) - {"name", "queues", "alpha", "group", "allow_lower"})
        if unknown:
            raise ConfigError(f"{where}: unknown field(s) {', '.join(unknown)}")
        name = item.get("name")
        if not isinstance(name, str) or not name:
            raise ConfigError(f"{where}.name: expected a non-empty string")
        if any(p.name == name for p in out):
            raise ConfigError(f"{where}.name: duplicate priority name {name!r}")
        queues = item.get("queues")
        if not isinstance(queues, list) or not queues:
            raise ConfigError(f"{where}.queues: expected a non-empty list of queue indices")
        qs = []
        for j, q in enumerate(queues):
            q = _int(q, f"{where}.queues[{j}]", 0, queues_per_port - 1)
            if q in seen_queue:
                raise ConfigError(f"{where}.queues[{j}]: queue {q} already belongs to "
                                  f"priority {seen_queue[q]!r}")
            seen_queue[q] = name
            qs.append(q)
        if not isinstance(item.get("allow_lower", False), bool):
            raise ConfigError(f"{where}.allow_lower: expected true or false")
        if "alpha" in item:
            alpha = _alpha(item["alpha"], f"{where}.alpha")
        elif default_alpha is not None:
            alpha = _alpha(default_alpha, f"{where}.alpha (default)")
        else:
            raise ConfigError(f"{where}.alpha: missing (the P4 program has no switch profile "
                              "to keep an alpha from: give alpha or a default alpha)")
        group = item.get("group", name)
        if not isinstance(group, str) or not group:
            raise ConfigError(f"{where}.group: expected a non-empty string")
        out.append(Priority(name, tuple(qs), alpha, group))
    return out


_DEPLOY_KEYS = {
    "scheme", "ports", "pool_bytes", "cell_bytes", "queues_per_port", "alpha_unsched",
    "congestion_fraction", "log_mantissa_bits", "frame_overhead_bytes", "max_frame_bytes",
    "unsched_tag", "recirc_port", "sync", "admit_rule",
}


def parse_deployment(doc: Any) -> Deployment:
    """Validate a deployment document (see ``deployment.example.yaml``)."""
    doc = _mapping(doc, "deployment")
    unknown = sorted(set(doc) - _DEPLOY_KEYS)
    if unknown:
        raise ConfigError(f"deployment: unknown field(s) {', '.join(unknown)}")
    scheme = doc.get("scheme")
    if scheme not in SCHEMES:
        raise ConfigError(f"scheme: expected one of {', '.join(SCHEMES)}, got {scheme!r}")
    for req in ("ports", "pool_bytes"):
        if req not in doc:
            raise ConfigError(f"{req}: missing")
    qpp = _int(doc.get("queues_per_port", 8), "queues_per_port", 1, 32)
    raw_ports = doc["ports"]
    if not isinstance(raw_ports, list) or not raw_ports:
        raise ConfigError("ports: expected a non-empty list")
    if len(raw_ports) * qpp > MAX_QUEUES or len(raw_ports) > MAX_PORTS:
        raise ConfigError(f"ports: {len(raw_ports)} ports x {qpp} queues exceed the "
                          f"{MAX_QUEUES} per-queue registers")
    ports: list[Port] = []
    for i, raw in enumerate(raw_ports):
        where = f"ports[{i}]"
        p = _mapping(raw, where)
        unknown = sorted(set(p) - {"dev_port", "routes", "ghost_qid_base"})
        if unknown:
            raise ConfigError(f"{where}: unknown field(s) {', '.join(unknown)}")
        if "dev_port" not in p:
            raise ConfigError(f"{where}.dev_port: missing")
        dev = _int(p["dev_port"], f"{where}.dev_port", 0, 511)
        if any(q.dev_port == dev for q in ports):
            raise ConfigError(f"{where}.dev_port: duplicate port {dev}")
        routes = p.get("routes", [])
        if not isinstance(routes, list):
            raise ConfigError(f"{where}.routes: expected a list of IPv4 prefixes")
        for j, r in enumerate(routes):
            try:
                ipaddress.IPv4Network(str(r))
            except ValueError as exc:
                raise ConfigError(f"{where}.routes[{j}]: {exc}") from None
        base = p.get("ghost_qid_base")
        if base is not None:
            base = _int(base, f"{where}.ghost_qid_base", 0, 2047 - qpp)
        ports.append(Port(dev, tuple(str(r) for r in routes), base))
    cell = _int(doc.get("cell_bytes", 80), "cell_bytes", 1, 4096)
    pool = _int(doc["pool_bytes"], "pool_bytes", 1, (1 << 31) - 1)
    if pool // cell < 1:
        raise ConfigError("pool_bytes: smaller than one cell")
    unsched = doc.get("alpha_unsched")
    alpha_unsched = None if unsched is None else _alpha(unsched, "alpha_unsched")
    cf = doc.get("congestion_fraction")
    cong = None if cf is None else _num(cf, "congestion_fraction")
    if cong is not None and not 0 <= cong <= 1:
        raise ConfigError(f"congestion_fraction: {cf} outside [0, 1]")
    tag = _mapping(doc.get("unsched_tag", {"value": 4, "mask": 4}), "unsched_tag")
    tag_v = _int(tag.get("value"), "unsched_tag.value", 0, 255)
    tag_m = _int(tag.get("mask"), "unsched_tag.mask", 0, 255)
    if tag_m & 0xE0 or tag_v & ~tag_m:
        raise ConfigError("unsched_tag: mask must avoid the class-selector bits 0xE0 and "
                          "value must lie inside the mask")
    rule = doc.get("admit_rule", "fit")
    if rule not in ("fit", "below"):
        raise ConfigError(f"admit_rule: expected fit or below, got {rule!r}")
    sync = _mapping(doc.get("sync", {}), "sync")
    unknown = sorted(set(sync) - {"period_ns", "pktgen_port", "app_id"})
    if unknown:
        raise ConfigError(f"sync: unknown field(s) {', '.join(unknown)}")
    rp, gp = doc.get("recirc_port", 69), sync.get("pktgen_port", 68)
    if isinstance(rp, int) and isinstance(gp, int) and (rp & 0x7F) == (gp & 0x7F):
        raise ConfigError("recirc_port: its pipe-local number must differ from "
                          "sync.pktgen_port's (the parser recognises generated SYNC "
                          "packets by that number)")
    return Deployment(
        scheme=scheme, ports=tuple(ports), pool_bytes=pool, cell_bytes=cell,
        queues_per_port=qpp, alpha_unsched=alpha_unsched, congestion_fraction=cong,
        log_mantissa_bits=_int(doc.get("log_mantissa_bits", 6), "log_mantissa_bits", 0, 12),
        frame_overhead_bytes=_int(doc.get("frame_overhead_bytes", 18), "frame_overhead_bytes",
                                  0, 256),
        max_frame_bytes=_int(doc.get("max_frame_bytes", 9216), "max_frame_bytes", 64, 16383),
        unsched_tag=(tag_v, tag_m),
        recirc_port=_int(doc.get("recirc_port", 69), "recirc_port", 0, 511),
        pktgen_port=_int(sync.get("pktgen_port", 68), "sync.pktgen_port", 0, 511),
        pktgen_app_id=_int(sync.get("app_id", 1), "sync.app_id", 0, 15),
        sync_period_ns=_int(sync.get("period_ns", 10_000), "sync.period_ns", 100, 10**9),
        admit_rule=rule,
    )


def _load_yaml(path: str) -> Any:
    try:
        import yaml
    except ImportError:  # pragma: no cover - only on a switch without PyYAML
        raise ConfigError("PyYAML is not installed; precompute the plan with --json "
                          "on another machine") from None
    try:
        with open(path, encoding="utf-8") as f:
            return yaml.safe_load(f)
    except OSError as exc:
        raise ConfigError(f"{path}: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: invalid YAML: {exc}") from None


def load_priorities(path: str, queues_per_port: int = 32,
                    default_alpha: Fraction | None = None) -> list[Priority]:
    try:
        return parse_priorities(_load_yaml(path), queues_per_port, default_alpha)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None


def load_deployment(path: str) -> Deployment:
    try:
        return parse_deployment(_load_yaml(path))
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None


# -- entries ---------------------------------------------------------------------------
def _nidx_of(prios: list[Priority], scheme: str) -> list[int]:
    if scheme == "fb":                       # FB: N_p counted over the priority group
        groups: list[str] = []
        for p in prios:
            if p.group not in groups:
                groups.append(p.group)
        return [groups.index(p.group) for p in prios]
    if scheme == "abm":                      # ABM: n_p counted per priority
        return list(range(len(prios)))
    return [0] * len(prios)                  # DT: n_p unused


def build_plan(prios: list[Priority], dep: Deployment) -> Plan:
    """All table entries, register initial values and the SYNC generator settings."""
    for i, p in enumerate(prios):
        for q in p.queues:
            if q >= dep.queues_per_port:
                raise ConfigError(f"priorities[{i}].queues: queue {q} >= queues_per_port "
                                  f"{dep.queues_per_port}")
    if len(prios) > 255 or len(prios) > MAX_NIDX:
        raise ConfigError(f"priorities: at most {min(255, MAX_NIDX)} priorities")
    nidx = _nidx_of(prios, dep.scheme)
    e: list[TableEntry] = []
    queues: list[dict[str, Any]] = []
    group_size: dict[int, int] = {}
    for pidx, port in enumerate(dep.ports):
        for aidx, p in enumerate(prios):
            for q in p.queues:
                qidx = pidx * dep.queues_per_port + q
                e.append(TableEntry(T.MAP_QUEUE, T.A_SET_QUEUE,
                                    {"egress_port": Exact(port.dev_port), "queue": Exact(q)},
                                    {"qid": q, "qidx": qidx, "pidx": pidx, "aidx": aidx,
                                     "nidx": nidx[aidx]}))
                e.append(TableEntry(T.SYNC_MAP, T.A_SET_SYNC_IDX,
                                    {"qidx": Exact(qidx), "ingress_port": Exact(dep.recirc_port)},
                                    {"pidx": pidx, "nidx": nidx[aidx]}))
                if port.ghost_qid_base is not None:
                    e.append(TableEntry(T.GHOST_MAP, T.A_SET_GHOST_IDX,
                                        {"qid": Exact(port.ghost_qid_base + q)}, {"qidx": qidx}))
                group_size[nidx[aidx]] = group_size.get(nidx[aidx], 0) + 1
                queues.append({"dev_port": port.dev_port, "queue": q, "qidx": qidx,
                               "priority": p.name, "pidx": pidx, "nidx": nidx[aidx]})
    for aidx, p in enumerate(prios):
        l_alpha = arith.alpha_log_fixed(p.alpha)                         # log2(alpha_p)
        l_first = l_alpha
        if dep.scheme == "abm" and dep.alpha_unsched is not None:
            l_first = arith.alpha_log_fixed(dep.alpha_unsched)           # ABM 3.3
        for unsched, la in ((0, l_alpha), (1, l_first)):
            e.append(TableEntry(T.ALPHA, T.A_SET_ALPHA,
                                {"aidx": Exact(aidx), "unsched": Exact(unsched)},
                                {"l": arith.to_unsigned(la)}))
    m = dep.log_mantissa_bits
    e += log_rem_entries(m)
    if dep.scheme != "dt":                   # DT: tables empty, defaults give 1/n_p = gamma = 1
        e += log_np_entries(m, max(group_size.values()))
        e += log_act_entries(m, dep.queues_per_port)
    e += exp_entries(dep.cong_fraction)
    # classification: queue = DSCP class selector (diffserv >> 5); tag bits mark first RTT
    tag_v, tag_m = dep.unsched_tag
    for q in range(min(8, dep.queues_per_port)):
        for unsched in (0, 1) if tag_m else (0,):
            e.append(TableEntry(T.CLASSIFY, T.A_SET_CLASS,
                                {"diffserv": Ternary((q << 5) | (tag_v if unsched else 0),
                                                     0xE0 | tag_m)},
                                {"queue": q, "unsched": unsched}, priority=1))
    # packet size in buffer units: ceil((IPv4 total length + L2 overhead) / cell); the
    # "below" rule (q < T, i.e. q + 1 <= T) counts every packet as one unit
    max_len = dep.max_frame_bytes - dep.frame_overhead_bytes
    for n in range(0, max_len + 1):
        units = 1 if dep.admit_rule == "below" else \
            math.ceil((n + dep.frame_overhead_bytes) / dep.cell_bytes)
        e.append(TableEntry(T.PKT_UNITS, T.A_SET_PKT_UNITS, {"total_len": Exact(n)},
                            {"units": units}))
    e.append(TableEntry(T.PKT_UNITS, T.A_SET_PKT_UNITS, default=True,
                        params={"units": 1 if dep.admit_rule == "below" else
                                math.ceil(dep.max_frame_bytes / dep.cell_bytes)}))
    for port in dep.ports:
        for r in port.routes:
            net = ipaddress.IPv4Network(r)
            e.append(TableEntry(T.FWD, T.A_SET_PORT,
                                {"dst_addr": Lpm(int(net.network_address), net.prefixlen)},
                                {"port": port.dev_port}))
    e.append(TableEntry(T.SYNC_CFG, T.A_SET_SYNC_PORT, default=True,
                        params={"port": dep.recirc_port}))
    for entry in e:
        check_entry(entry)
    n_idx = len(dep.ports) * dep.queues_per_port
    return Plan(
        entries=e,
        registers={"Ingress.occupancy": {0: {"occ": 0, "pool": dep.pool_units}}},
        pktgen={"app_id": dep.pktgen_app_id, "pktgen_port": dep.pktgen_port,
                "timer_nanosec": dep.sync_period_ns, "packets_per_batch": n_idx},
        queues=queues,
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Compute the P4 reference's table entries.")
    ap.add_argument("config", help="alphad YAML (only 'priorities' is read)")
    ap.add_argument("deployment", help="P4 deployment YAML")
    ap.add_argument("--json", metavar="OUT", help="write the plan as JSON ('-' = stdout)")
    args = ap.parse_args(argv)
    try:
        dep = load_deployment(args.deployment)
        plan = build_plan(load_priorities(args.config, dep.queues_per_port), dep)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if args.json:
        text = json.dumps(plan.to_json())
        if args.json == "-":
            print(text)
        else:
            with open(args.json, "w", encoding="utf-8") as f:
                f.write(text)
    counts: dict[str, int] = {}
    for entry in plan.entries:
        counts[entry.table] = counts.get(entry.table, 0) + 1
    for table, n in sorted(counts.items()):
        print(f"{table:24s} {n:6d}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
