"""Scenarios of the ns-3 harness: validated parameters -> the program's command line.

A :class:`Scenario` is the traffic and fabric; a :class:`RunSpec` adds who manages
the buffers: an exact scheme inside the switches (``dt``, ``abm``, ...) or the
alphad daemon through the co-simulation (``alphad``: its YAML settings without the
backend). ``RunSpec.key()`` identifies a run by its parameters (the sweep's cache).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = ["DATA_DIR", "EXACT_SCHEMES", "WEBSEARCH_CDF", "RunSpec", "Scenario", "alphad_config"]

DATA_DIR = Path(__file__).resolve().parents[2] / "data"
WEBSEARCH_CDF = DATA_DIR / "websearch.cdf"
EXACT_SCHEMES = ("dt", "cs", "abm", "abm-core", "fb", "protean")

Pos = Annotated[float, Field(gt=0, allow_inf_nan=False)]
NonNeg = Annotated[float, Field(ge=0, allow_inf_nan=False)]
Classes = Annotated[str, Field(pattern=r"^\d+(-\d+)?(,\d+(-\d+)?)*$")]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Scenario(_Model):
    """Fabric and workload (names follow the program's options)."""

    leaves: Annotated[int, Field(ge=2, le=64)] = 2
    spines: Annotated[int, Field(ge=1, le=64)] = 2
    servers: Annotated[int, Field(ge=2, le=250)] = 8
    link_rate: Annotated[str, Field(pattern=r"^\d+(\.\d+)?[kMG]?bps$")] = "10Gbps"
    link_delay_us: Pos = 10.0
    buffer_per_port_per_gbps: Pos = 9.6 * 1024  # Trident II (ABM §4.1)
    queues: Annotated[int, Field(ge=1, le=64)] = 8
    sched: Literal["rr", "sp"] = "rr"
    tcp: Literal["cubic", "dctcp"] = "cubic"
    ecn_k: Annotated[int, Field(ge=1)] = 65
    load: Annotated[float, Field(ge=0, le=1)] = 0.4
    cdf: str = str(WEBSEARCH_CDF)
    ws_classes: Classes = "0-7"
    ws_init_cwnd: Annotated[int, Field(ge=1)] = 10
    qps: NonNeg = 0.0  # incast queries per second per server
    request_frac: Annotated[float, Field(gt=0, le=10)] = 0.75  # of the leaf buffer
    fanin: Annotated[int, Field(ge=0)] = 0  # 0: all servers of another leaf
    incast_classes: Classes = "0-7"
    size_classes: Annotated[str, Field(pattern=r"^(\d+,\d+)?$")] = ""  # "S,L": by flow size
    ws_hosts: Annotated[str, Field(pattern=r"^(\d+(-\d+)?(,\d+(-\d+)?)*)?$")] = ""  # "": all servers
    incast_hosts: Annotated[str, Field(pattern=r"^(\d+(-\d+)?(,\d+(-\d+)?)*)?$")] = ""
    phases: str = ""  # dur_ms,load,ws,qps,request_frac,incast;... (see the program's --help)
    start: NonNeg = 0.002
    gen: Pos = 0.05
    drain: NonNeg = 0.05
    seed: Annotated[int, Field(ge=1)] = 1
    min_rto_ms: Pos = 10.0
    snd_buf: Annotated[int, Field(ge=0)] = 0  # TCP send buffer per socket, bytes (0: unbounded)
    sample_us: Pos = 10.0
    trace_switch: str = ""
    trace_packets: Annotated[int, Field(ge=0)] = 0
    trace_start: NonNeg = 0.0
    queue_switch: str = ""
    queue_sample_us: Pos = 10.0

    @model_validator(mode="after")
    def _check(self) -> Scenario:
        if self.fanin > self.servers:
            raise ValueError(f"fanin ({self.fanin}) cannot exceed servers ({self.servers})")
        if 0 < self.snd_buf < 4096:
            raise ValueError(f"snd_buf ({self.snd_buf}) must be 0 (unbounded) or >= 4096 bytes")
        for name in ("ws_classes", "incast_classes"):
            for part in getattr(self, name).split(","):
                for c in part.split("-"):
                    if int(c) >= self.queues:
                        raise ValueError(f"{name}: class {c} >= queues ({self.queues})")
        return self

    @property
    def base_rtt(self) -> float:
        """Seconds: host-leaf-spine-leaf-host and back."""
        return 8 * self.link_delay_us * 1e-6


class RunSpec(_Model):
    """One run: a scenario and what manages the switch buffers."""

    scenario: Scenario = Scenario()
    scheme: Literal["dt", "cs", "abm", "abm-core", "fb", "protean", "alphad"] = "dt"
    alphas: tuple[Pos, ...] = (0.5,)  # alpha_p per class (one value: every class)
    alpha_unsched: Pos = 64.0
    update_rtts: Pos = 1.0  # abm/abm-core: n_p and gamma refresh, in base RTTs
    groups: str = ""
    protean_short: Annotated[int, Field(ge=-1)] = -1
    protean_long: Annotated[int, Field(ge=-1)] = -1
    # alphad: the daemon's settings (interval, scheme, priorities, quantize, estimate)
    alphad: dict[str, Any] | None = None
    cosim_delay_us: NonNeg = 0.0

    @model_validator(mode="after")
    def _check(self) -> RunSpec:
        q = self.scenario.queues
        if len(self.alphas) not in (1, q):
            raise ValueError(f"alphas: {len(self.alphas)} values for {q} classes")
        if (self.scheme == "alphad") != (self.alphad is not None):
            raise ValueError("alphad settings go with scheme 'alphad' (and only with it)")
        if self.alphad is not None:
            alphad_config(self.alphad)  # validated by the daemon's own parser
        return self

    def key(self) -> str:
        """Stable identity of the run (hash of every parameter). The flow-size CDF counts
        by its content, not its path, so the same run has the same key in any checkout."""
        d = self.model_dump(mode="json")
        cdf = Path(self.scenario.cdf)
        if cdf.is_file():
            d["scenario"]["cdf"] = hashlib.sha256(cdf.read_bytes()).hexdigest()
        blob = json.dumps(d, sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    def argv(self, program: str | Path, out: str | Path) -> list[str]:
        """The program's command line."""
        s = self.scenario
        a = [
            str(program),
            f"--scheme={'external' if self.scheme == 'alphad' else self.scheme}",
            f"--alphas={','.join(repr(float(x)) for x in self.alphas)}",
            f"--alphaUnsched={self.alpha_unsched!r}",
            f"--updateRtts={self.update_rtts!r}",
            f"--leaves={s.leaves}", f"--spines={s.spines}", f"--servers={s.servers}",
            f"--linkRate={s.link_rate}", f"--linkDelay={s.link_delay_us!r}",
            f"--bufferPerPortPerGbps={s.buffer_per_port_per_gbps!r}",
            f"--queues={s.queues}", f"--sched={s.sched}", f"--tcp={s.tcp}", f"--ecnK={s.ecn_k}",
            f"--load={s.load!r}", f"--cdf={s.cdf}", f"--wsClasses={s.ws_classes}",
            f"--wsInitCwnd={s.ws_init_cwnd}", f"--qps={s.qps!r}",
            f"--requestFrac={s.request_frac!r}", f"--fanin={s.fanin}",
            f"--incastClasses={s.incast_classes}", f"--start={s.start!r}", f"--gen={s.gen!r}",
            f"--drain={s.drain!r}", f"--seed={s.seed}", f"--minRto={s.min_rto_ms!r}",
            f"--sample={s.sample_us!r}", f"--out={out}",
            f"--proteanShort={self.protean_short}", f"--proteanLong={self.protean_long}",
        ]
        if s.phases:
            a.append(f"--phases={s.phases}")
        if s.snd_buf:
            a.append(f"--sndBuf={s.snd_buf}")
        if s.size_classes:
            a.append(f"--sizeClasses={s.size_classes}")
        if s.ws_hosts:
            a.append(f"--wsHosts={s.ws_hosts}")
        if s.incast_hosts:
            a.append(f"--incastHosts={s.incast_hosts}")
        if self.groups:
            a.append(f"--groups={self.groups}")
        if s.trace_switch and s.trace_packets:
            a += [f"--traceSwitch={s.trace_switch}", f"--tracePackets={s.trace_packets}",
                  f"--traceStart={s.trace_start!r}"]
        if s.queue_switch:
            a += [f"--queueSwitch={s.queue_switch}", f"--queueSample={s.queue_sample_us!r}"]
        if self.scheme == "alphad":
            cfg = alphad_config(self.alphad or {})
            a += ["--cosim=1", f"--cosimInterval={cfg.interval * 1e6!r}",
                  f"--cosimDelay={self.cosim_delay_us!r}"]
            if reads_shadow_dt(cfg.scheme):
                a.append("--shadowDt=1")
        return a


def reads_shadow_dt(scheme: str) -> bool:
    """Whether ``scheme`` (a registered name) is told DT's loss from the program's count of
    the drops DT would have admitted (a harness probe's factory sets ``reads_shadow_dt``)."""
    from alphad.schemes import _base

    return bool(getattr(_base.get(scheme), "reads_shadow_dt", False))


def alphad_config(settings: dict[str, Any]) -> Any:
    """The daemon's Config for ``settings`` (its YAML keys, without ``backend``).

    Validated by ``alphad.config.parse_config``: errors name the field.
    """
    import alphad.schemes.superseded  # noqa: F401  (their evaluation rows are reproduced)
    import yaml
    from alphad.config import parse_config

    doc = {**settings, "backend": {"type": "sim"}}
    return parse_config(yaml.safe_dump(doc), source="<alphad settings>")
