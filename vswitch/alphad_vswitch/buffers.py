"""CONFIG_DB buffer tables -> APPL_DB -> the virtual ASIC, as buffermgrd and orchagent do.

buffermgrd (traditional model) copies BUFFER_POOL/BUFFER_PROFILE/BUFFER_QUEUE
from CONFIG_DB to APPL_DB (``|`` becomes ``:``); its dynamic model
(:mod:`alphad_vswitch.dynamic`, chosen by ``DEVICE_METADATA|localhost
buffer_model``) computes pool sizes, generates lossless PG profiles and zero
profiles and mirrors pools and profiles in STATE_DB; it refuses a profile whose
threshold mode differs from its pool's mode, which is checked here for every
profile. orchagent's BufferOrch then resolves each queue's
profile and sets ``SAI_BUFFER_PROFILE_ATTR_SHARED_DYNAMIC_TH``; on the virtual
ASIC that is the queue's log2 alpha. An entry whose profile is missing or was
refused stays pending (the queue keeps what it had), as orchagent retries; a
queue no entry covers goes back to the ASIC default.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import redis

from alphad.sonic.discover import read_table
from alphad.sonic.keys import (
    SonicSyntaxError,
    parse_dynamic_th,
    parse_ports,
    parse_profile_ref,
    parse_queue_range,
)
from alphad_vswitch.asic import VirtualAsic
from alphad_vswitch.dynamic import (
    EGRESS_ZERO_PROFILE,
    generated_pg_profiles,
    is_dynamic,
    pool_sizes,
)

__all__ = ["BufferManager", "ReconcileResult"]

log = logging.getLogger("alphad.vswitch")

TABLES = ("BUFFER_POOL", "BUFFER_PROFILE", "BUFFER_QUEUE")
DYNAMIC_TABLES = ("DEVICE_METADATA", "PORT", "BUFFER_PG", "CABLE_LENGTH",
                  "DEFAULT_LOSSLESS_BUFFER_PARAMETER")


@dataclass
class ReconcileResult:
    applied: dict[tuple[str, int], int] = field(default_factory=dict)  # (port, q) -> new k
    rejected: list[str] = field(default_factory=list)  # messages (profiles, queues)
    appl_writes: int = 0


def _appl_value(v: str) -> str:
    # [BUFFER_PROFILE|x] -> [BUFFER_PROFILE_TABLE:x], as buffermgrd rewrites references
    if v.startswith("[") and v.endswith("]") and "|" in v:
        t, _, name = v[1:-1].partition("|")
        return f"[{t}_TABLE:{name}]"
    return v


class BufferManager:
    def __init__(self, asic: VirtualAsic, ports: tuple[str, ...], pool: str,
                 cfg_sep: str = "|", appl_sep: str = ":", th_min: int = -8,
                 th_max: int = 7) -> None:
        self.asic = asic
        self.ports = ports
        self.port_index = {p: i for i, p in enumerate(ports)}
        self.pool = pool
        self.cfg_sep = cfg_sep
        self.appl_sep = appl_sep
        self.th_min, self.th_max = th_min, th_max
        self.k = asic.default_k.copy()  # effective log2 alpha per ASIC queue
        self._reported: set[str] = set()

    def _report(self, res: ReconcileResult, msg: str) -> None:
        res.rejected.append(msg)
        if msg not in self._reported:
            self._reported.add(msg)
            log.error("%s", msg)

    def _profiles(self, res: ReconcileResult, pools: dict[str, dict[str, str]],
                  profiles: dict[str, dict[str, str]]) -> dict[str, int | None]:
        """Accepted profiles -> dynamic_th (None for static ones)."""
        ok: dict[str, int | None] = {}
        for name, f in profiles.items():
            where = f"BUFFER_PROFILE|{name}"
            pool_ref = f.get("pool", "")
            pname = pool_ref[1:-1].split("|", 1)[-1] if pool_ref.startswith("[") else pool_ref
            pool = pools.get(pname)
            if pool is None:
                self._report(res, f"{where}: pool {pool_ref!r} does not exist; profile pending")
                continue
            mode = "dynamic_th" if "dynamic_th" in f else "static_th" if "static_th" in f else None
            if mode is None:
                self._report(res, f"{where}: neither dynamic_th nor static_th; rejected")
                continue
            pool_mode = pool.get("mode", "dynamic")
            if mode != f"{pool_mode}_th":
                self._report(res, f"{where}: threshold mode {mode} does not match mode "
                                  f"{pool_mode} of pool {pname}; rejected")
                continue
            if mode == "static_th":
                ok[name] = None
                continue
            try:
                th = parse_dynamic_th(f["dynamic_th"])
            except SonicSyntaxError as e:
                self._report(res, f"{where}: {e}; rejected")
                continue
            if not self.th_min <= th <= self.th_max:
                self._report(res, f"{where}: dynamic_th {th} outside the ASIC's range "
                                  f"{self.th_min}..{self.th_max}; rejected")
                continue
            ok[name] = th if pname == self.pool else None
        return ok

    def reconcile(self, config_db: redis.Redis, appl_db: redis.Redis,
                  state_db: redis.Redis | None = None) -> ReconcileResult:
        """Bring APPL_DB (and, in the dynamic buffer model, STATE_DB) and the ASIC in
        line with CONFIG_DB's buffer tables."""
        res = ReconcileResult()
        cfg = {t: read_table(config_db, t, self.cfg_sep) for t in (*TABLES, *DYNAMIC_TABLES)}
        dyn = is_dynamic(cfg)
        sizes: dict[str, int] = {}
        if dyn:
            try:
                sizes = pool_sizes(cfg)
            except ValueError as e:
                self._report(res, str(e))
        pools = {n: ({**f, "size": str(sizes[n])} if n in sizes else f)
                 for n, f in cfg["BUFFER_POOL"].items() if "size" in f or n in sizes}
        accepted = self._profiles(res, cfg["BUFFER_POOL"], cfg["BUFFER_PROFILE"])
        want: dict[str, dict[str, str]] = {}
        for name, f in pools.items():
            want[f"BUFFER_POOL_TABLE{self.appl_sep}{name}"] = dict(f)
        for name in accepted:
            f = cfg["BUFFER_PROFILE"][name]
            want[f"BUFFER_PROFILE_TABLE{self.appl_sep}{name}"] = {
                k: _appl_value(v) for k, v in f.items()}
        down: set[str] = set()
        if dyn:
            generated, _ = generated_pg_profiles(cfg)
            down = {p for p, f in cfg["PORT"].items() if f.get("admin_status") == "down"}
            if down:
                generated[EGRESS_ZERO_PROFILE] = {"pool": self.pool, "size": "0",
                                                  "dynamic_th": "-8"}
            for name, f in generated.items():
                want[f"BUFFER_PROFILE_TABLE{self.appl_sep}{name}"] = f
        target: dict[int, int] = {}
        covered: set[int] = set()
        for key, f in cfg["BUFFER_QUEUE"].items():
            where = f"BUFFER_QUEUE|{key}"
            plist, _, rng = key.rpartition("|")
            try:
                ports = parse_ports(plist)
                queues = parse_queue_range(rng)
                prof, _ = parse_profile_ref(f.get("profile", ""))
            except SonicSyntaxError as e:
                self._report(res, f"{where}: {e}; ignored")
                continue
            idx = [self.asic.index[(self.port_index[p], q)] for p in ports for q in queues
                   if p in self.port_index and (self.port_index[p], q) in self.asic.index]
            covered.update(idx)
            if prof not in accepted:
                self._report(res, f"{where}: profile {prof!r} not available; pending")
                continue
            fields = {k: _appl_value(v) for k, v in f.items()}
            th = accepted[prof]
            if dyn:  # one key per port; admin-down ports on the zero profile
                for p in ports:
                    pf = {**fields, "profile": EGRESS_ZERO_PROFILE} if p in down else fields
                    want[f"BUFFER_QUEUE_TABLE{self.appl_sep}{p}{self.appl_sep}{rng}"] = pf
            else:
                want[f"BUFFER_QUEUE_TABLE{self.appl_sep}{plist}{self.appl_sep}{rng}"] = fields
            for p in ports:
                for q in queues:
                    if p not in self.port_index or (self.port_index[p], q) not in self.asic.index:
                        continue
                    i = self.asic.index[(self.port_index[p], q)]
                    if p in down:
                        target[i] = -8
                    else:
                        target[i] = th if th is not None else int(self.asic.default_k[i])
        for i in range(self.asic.n):
            if i not in covered:
                target[i] = int(self.asic.default_k[i])
        res.appl_writes = self._write_appl(appl_db, want)
        if dyn and state_db is not None:  # buffermgrd mirrors pools and profiles in STATE_DB
            self._write_state(state_db, {
                k.replace(f"_TABLE{self.appl_sep}", "_TABLE|", 1): v for k, v in want.items()
                if k.startswith(("BUFFER_POOL_TABLE", "BUFFER_PROFILE_TABLE"))})
        changes = {i: k for i, k in target.items() if int(self.k[i]) != k}
        if changes:
            refused = self.asic.set_k(changes)
            for i, why in refused.items():
                q = self.asic.queues[i]
                self._report(res, f"ASIC refused dynamic_th {changes[i]} on queue "
                                  f"{int(q.port_index)}:{int(q.queue_index)}: {why}")
            for i, k in changes.items():
                if i not in refused:
                    self.k[i] = k
                    q = self.asic.queues[i]
                    res.applied[(self.ports[int(q.port_index)], int(q.queue_index))] = k
        return res

    def _write_state(self, state_db: redis.Redis, want: dict[str, dict[str, str]]) -> None:
        have: dict[str, dict[str, str]] = {}
        for t in ("BUFFER_POOL_TABLE", "BUFFER_PROFILE_TABLE"):
            have.update({f"{t}|{k}": v for k, v in read_table(state_db, t, "|").items()})
        pipe = state_db.pipeline(transaction=True)
        for k in have.keys() - want.keys():
            pipe.delete(k)
        for k, f in want.items():
            if have.get(k) != f:
                pipe.delete(k)
                pipe.hset(k, mapping=f)
        pipe.execute()

    def _write_appl(self, appl_db: redis.Redis, want: dict[str, dict[str, str]]) -> int:
        have: dict[str, dict[str, str]] = {}
        for t in TABLES:
            have.update({f"{t}_TABLE{self.appl_sep}{k}": v
                         for k, v in read_table(appl_db, f"{t}_TABLE", self.appl_sep).items()})
        pipe = appl_db.pipeline(transaction=True)
        n = 0
        for k in have:
            if k not in want:
                pipe.delete(k)
                n += 1
        for k, f in want.items():
            if have.get(k) != f:
                pipe.delete(k)
                pipe.hset(k, mapping=f)
                n += 1
        if n:
            pipe.execute()
        return n
