"""Live terminal view (rich): per-queue occupancy against threshold, and alpha."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import numpy as np
from rich.console import Group
from rich.live import Live
from rich.table import Table
from rich.text import Text

if TYPE_CHECKING:
    from alphad.loop import Daemon

__all__ = ["LiveView", "render"]

_BAR = " ▁▂▃▄▅▆▇█"


def _kb(x: float) -> str:
    return f"{x / 1000:.0f}k" if x < 1e6 else f"{x / 1e6:.1f}M"


def _alpha(a: float) -> str:
    k = int(np.rint(np.log2(max(a, 1e-300))))
    return f"2^{k}" if abs(2.0**k - a) < 1e-9 * a else f"{a:.3g}"


def render(d: Daemon, max_ports: int = 32) -> Group:
    s = d.snapshot
    head = Text(f"alphad · scheme {d.controller.scheme_name} · interval {d.interval * 1e3:g} ms")
    if s is None:
        return Group(head, Text("waiting for the first sample…"))
    topo, sm = s.topo, s.sample
    nq = int(topo.queue_index.max()) + 1 if topo.n else 0
    pool = sm.pool_watermark if sm.pool_watermark is not None else float("nan")
    head.append(f" · t={sm.t:.2f}s · pool peak {_kb(pool)}/{_kb(topo.buffer_bytes)}"
                f" · intervals {d.stats.intervals} · overruns {d.stats.overruns}"
                f" · writes {d.stats.writes}")
    if s.n_p is not None:
        head.append(" · n_p " + " ".join(f"{n}={v:g}" for n, v in
                                          zip(s.classes.names, s.n_p, strict=True)))
    t = Table(box=None, pad_edge=False, header_style="bold")
    t.add_column("port")
    for q in range(nq):
        t.add_column(f"q{q} wm/T alpha", justify="right")
    t.add_column("drops", justify="right")
    occ = sm.watermark
    for p in range(min(topo.n_ports, max_ports)):
        idx = np.flatnonzero(topo.queue_port == p)
        cells = ["" for _ in range(nq)]
        for i in idx:
            thr = max(float(s.threshold[i]), 1.0)
            frac = min(float(occ[i]) / thr, 1.0)
            bar = _BAR[round(frac * (len(_BAR) - 1))]
            style = "red" if frac >= 0.9 else ("yellow" if frac >= 0.5 else "green")
            if s.classes.prio[i] < 0:
                style = "dim"
            cells[int(topo.queue_index[i])] = (
                f"[{style}]{bar} {_kb(float(occ[i]))}/{_kb(thr)}[/] {_alpha(float(sm.alpha[i]))}"
            )
        t.add_row(topo.ports[p], *cells, _kb(float(s.drops_total[idx].sum())))
    return Group(head, t)


class LiveView:
    """Refreshes the view after each cycle, at most ``hz`` times a second."""

    def __init__(self, hz: float = 4.0) -> None:
        self._live = Live(auto_refresh=False, transient=False)
        self._min_dt = 1.0 / hz
        self._last = 0.0

    def __enter__(self) -> LiveView:
        self._live.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._live.__exit__(None, None, None)

    def __call__(self, d: Daemon) -> None:
        now = time.monotonic()
        if now - self._last >= self._min_dt:
            self._last = now
            self._live.update(render(d), refresh=True)
