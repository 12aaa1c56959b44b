"""Bit-exact executable model of ``p4src/alphad_ref.p4``.

Every step below mirrors one statement of the P4 program, with the same field widths
and the same wrap-around / saturating arithmetic; tables are executed from the same
:class:`~p4ref.entries.TableEntry` list the control plane installs. Registers count
their accesses per packet and refuse a second one, which is the Tofino rule that one
packet may execute at most one RegisterAction per register array.

Paths (see README "Pipeline"):

* data packet, ingress: classify -> map_queue -> alpha_tbl, register reads (qlen, B - Q,
  n_p, active) -> log tables -> two adds -> exp table -> compare -> admit/drop;
* data packet, egress: record the queue depth and its state bits (active, congested);
* SYNC packet (packet generator, Tofino 1 and 2): egress read of depth/state of one queue,
  recirculation, ingress update of the ingress copy and of Q / n_p / active;
* ghost thread (Tofino 2 only): writes the instantaneous queue depth into ingress.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .entries import T, TableEntry
from .match import TableImage
from .schema import MAX_NIDX, MAX_PORTS, MAX_QUEUES, SCHEMA

__all__ = ["Admission", "Pipeline", "RegisterConflict", "state_transition"]

M16 = 0xFFFF
M32 = 0xFFFFFFFF
ST_ACTIVE = 0b10
ST_CONGESTED = 0b01


class RegisterConflict(RuntimeError):
    """A packet accessed one register array twice (impossible on Tofino)."""


class Register:
    """A register array with per-packet access accounting."""

    def __init__(self, name: str, size: int, width: int, init: int = 0) -> None:
        self.name, self.width = name, width
        self.data = np.full(size, init, dtype=np.uint64)
        self._mask = (1 << width) - 1
        self._touched = False
        self.accesses = 0

    def _access(self) -> None:
        if self._touched:
            raise RegisterConflict(f"register {self.name} accessed twice by one packet")
        self._touched = True
        self.accesses += 1

    def end_packet(self) -> None:
        self._touched = False

    def read(self, idx: int) -> int:
        self._access()
        return int(self.data[idx])

    def swap(self, idx: int, value: int) -> int:
        """RegisterAction: rv = value; value = new (one read-modify-write)."""
        self._access()
        old = int(self.data[idx])
        self.data[idx] = value & self._mask
        return old

    def add(self, idx: int, delta: int) -> None:
        """RegisterAction: value = value + delta (wrapping), one read-modify-write."""
        self._access()
        self.data[idx] = (int(self.data[idx]) + delta) & self._mask

    def write(self, idx: int, value: int) -> None:
        self._access()
        self.data[idx] = value & self._mask


def sat_sub(a: int, b: int) -> int:
    """P4 ``a |-| b`` on unsigned values."""
    return a - b if a > b else 0


def state_transition(old: int, new: int) -> tuple[int, int]:
    """(d_act, d_cong) of the const ``state_delta`` table, as bit<16> two's complement."""
    d_act = ((new & ST_ACTIVE) >> 1) - ((old & ST_ACTIVE) >> 1)
    d_cong = (new & ST_CONGESTED) - (old & ST_CONGESTED)
    return d_act & M16, d_cong & M16


@dataclass(frozen=True)
class Admission:
    admit: bool
    managed: bool
    qidx: int
    qid: int
    thr: int
    thr_cong: int
    need: int
    rem: int


class Pipeline:
    """One pipe of the switch: ingress and egress registers and installed tables."""

    def __init__(self, entries: Iterable[TableEntry], *, pool_units: int, ghost: bool = False,
                 recirc_port: int = 69, max_queues: int = MAX_QUEUES, max_nidx: int = MAX_NIDX,
                 max_ports: int = MAX_PORTS) -> None:
        self.tables = {name: TableImage(name) for name in SCHEMA}
        for e in entries:
            self.tables[e.table].add(e)
        self.ghost = ghost
        self.recirc_port = recirc_port
        # ingress
        self.qlen_ig = Register("qlen_ig", max_queues, 32)
        self.qstate = Register("qstate", max_queues, 8)
        self.occupancy = Register("occupancy", 1, 32)           # .occ = Q (sum of copies)
        self.pool_units = pool_units                            # .pool = B
        self.np_reg = Register("np_reg", max_nidx, 16)
        self.active_reg = Register("active_reg", max_ports, 16)
        self.qlen_gh = Register("qlen_gh", max_queues, 32)
        # egress
        self.qlen_eg = Register("qlen_eg", max_queues, 32)
        self.state_eg = Register("state_eg", max_queues, 8)
        self.registers = [self.qlen_ig, self.qstate, self.occupancy, self.np_reg,
                          self.active_reg, self.qlen_gh, self.qlen_eg, self.state_eg]
        self.admitted = np.zeros(max_queues, dtype=np.int64)
        self.dropped = np.zeros(max_queues, dtype=np.int64)

    def fork(self) -> Pipeline:
        """A pipeline with the same installed tables and fresh (initial) registers."""
        new = Pipeline((), pool_units=self.pool_units, ghost=self.ghost,
                       recirc_port=self.recirc_port, max_queues=len(self.qlen_ig.data),
                       max_nidx=len(self.np_reg.data), max_ports=len(self.active_reg.data))
        new.tables = self.tables
        return new

    def _end_packet(self) -> None:
        for r in self.registers:
            r.end_packet()

    # -- arithmetic core (stages 5-8), scalar and vectorised -----------------------
    def _log(self, table: str, **key: int) -> int:
        return self.tables[table].apply(**key)[2]["l"]

    def threshold(self, l_alpha: int, np_: int, act: int, rem: int) -> tuple[int, int, int]:
        """(thr, thr_cong, s) exactly as stages 5-8 compute them."""
        l_rem = self._log(T.LOG_REM, rem=rem)
        l_np = self._log(T.LOG_NP, np=np_)
        l_g = self._log(T.LOG_GAMMA, act=act)
        s_a = (l_alpha + l_g) & M16                   # log2(alpha_p * gamma)
        s_b = (l_rem - l_np) & M16                    # log2((B - Q) / n_p)
        s = (s_a + s_b) & M16                         # log2(T), ABM Eq. 9 in log domain
        if s >> 15:                                   # s < 0: T < 1 unit
            return 0, 1, s
        p = self.tables[T.EXP].apply(s=s)[2]
        return p["thr"], p["thr_cong"], s

    def threshold_array(self, l_alpha: npt.ArrayLike, np_: npt.ArrayLike, act: npt.ArrayLike,
                        rem: npt.ArrayLike) -> tuple[npt.NDArray[np.uint64], ...]:
        """Vectorised :meth:`threshold` (same integer semantics)."""
        la = np.asarray(l_alpha, dtype=np.uint64)
        logs = []
        for table, keys in ((T.LOG_REM, rem), (T.LOG_NP, np_), (T.LOG_GAMMA, act)):
            img = self.tables[table]
            logs.append(img.param_array(img.lookup_array(np.asarray(keys, np.uint64)), "l"))
        l_rem, l_np, l_g = logs
        m16 = np.uint64(M16)
        s_a = (la + l_g) & m16
        s_b = (l_rem + (np.uint64(1 << 16) - l_np)) & m16
        s = (s_a + s_b) & m16
        neg = (s >> np.uint64(15)).astype(bool)
        exp = self.tables[T.EXP]
        rows = exp.lookup_array(s)
        thr = np.where(neg, np.uint64(0), exp.param_array(rows, "thr"))
        cong = np.where(neg, np.uint64(1), exp.param_array(rows, "thr_cong"))
        return thr, cong, s

    # -- data packet ----------------------------------------------------------------
    def classify(self, diffserv: int) -> tuple[int, int]:
        p = self.tables[T.CLASSIFY].apply(diffserv=diffserv)[2]
        return p["queue"], p["unsched"]

    def pkt_units(self, total_len: int) -> int:
        return self.tables[T.PKT_UNITS].apply(total_len=total_len & M16)[2]["units"]

    def ingress(self, egress_port: int, queue: int, unsched: int, total_len: int) -> Admission:
        """Admission of one data packet already forwarded to ``egress_port``."""
        try:
            units = self.pkt_units(total_len)
            _, action, q = self.tables[T.MAP_QUEUE].apply(egress_port=egress_port, queue=queue)
            if action != T.A_SET_QUEUE:
                return Admission(True, False, -1, 0, 0, 0, 0, 0)
            qidx = q["qidx"]
            l_alpha = self.tables[T.ALPHA].apply(aidx=q["aidx"], unsched=unsched)[2]["l"]
            qlen = self.qlen_gh.read(qidx) if self.ghost else self.qlen_ig.read(qidx)
            need = (qlen + units) & M32
            occ = self.occupancy.read(0)
            rem = self.pool_units - occ if occ < self.pool_units else 0   # B |-| Q in the SALU
            np_ = self.np_reg.read(q["nidx"])
            act = self.active_reg.read(q["pidx"])
            nofit = sat_sub(units, rem)               # pool cannot hold the packet
            thr, thr_cong, _ = self.threshold(l_alpha, np_, act, rem)
            over = sat_sub(need, thr)                 # q + size > T
            admit = over == 0 and nofit == 0
            (self.admitted if admit else self.dropped)[qidx] += 1
            return Admission(admit, True, qidx, q["qid"], thr, thr_cong, need, rem)
        finally:
            self._end_packet()

    def egress(self, qidx: int, depth: int, thr_cong: int) -> None:
        """Egress of an admitted data packet: record depth and (active, congested)."""
        try:
            gap = sat_sub(thr_cong, depth)            # 0 iff depth >= thr_cong
            st = 0 if depth == 0 else (ST_ACTIVE | ST_CONGESTED if gap == 0 else ST_ACTIVE)
            self.qlen_eg.write(qidx, depth)
            self.state_eg.write(qidx, st)
        finally:
            self._end_packet()

    # -- SYNC packet ----------------------------------------------------------------
    def sync(self, qidx: int, ingress_port: int | None = None) -> bool:
        """One SYNC packet for ``qidx``: egress read, recirculation, ingress update.

        ``ingress_port`` is where the packet re-enters ingress (the recirculation port).
        Returns False when ``sync_map`` has no entry (the packet is dropped unused)."""
        port = self.recirc_port if ingress_port is None else ingress_port
        try:                                          # egress pass
            depth = self.qlen_eg.read(qidx)
            state = self.state_eg.read(qidx)
        finally:
            self._end_packet()
        try:                                          # ingress pass after recirculation
            _, action, p = self.tables[T.SYNC_MAP].apply(qidx=qidx, ingress_port=port)
            if action != T.A_SET_SYNC_IDX:
                return False
            old = self.qlen_ig.swap(qidx, depth)
            old_state = self.qstate.swap(qidx, state)
            delta = (depth - old) & M32
            d_act, d_cong = state_transition(old_state, state)
            self.occupancy.add(0, delta)              # Q += delta (mod 2^32)
            self.np_reg.add(p["nidx"], d_cong)
            self.active_reg.add(p["pidx"], d_act)
            return True
        finally:
            self._end_packet()

    def ghost_update(self, qidx: int, depth: int) -> None:
        """Tofino 2 ghost thread: instantaneous depth of one queue into ingress."""
        try:
            self.qlen_gh.write(qidx, depth)
        finally:
            self._end_packet()

    # -- inspection -----------------------------------------------------------------
    def occupancy_units(self) -> int:
        return int(self.occupancy.data[0])

    def remaining_units(self) -> int:
        occ = self.occupancy_units()
        return self.pool_units - occ if occ < self.pool_units else 0

    def n_p(self, nidx: int) -> int:
        return int(self.np_reg.data[nidx])

    def active(self, pidx: int) -> int:
        return int(self.active_reg.data[pidx])

