"""HTTP API (FastAPI): health, state, configuration, /metrics and the live page.

Handlers only read what the loop published (an immutable snapshot swapped in
atomically) or hand a validated configuration to it; nothing here blocks the
loop. Writes need ``Authorization: Bearer <api.token>`` (constant-time
compare). The server runs in a thread (uvicorn) and binds 127.0.0.1 unless
``api.listen`` says otherwise.
"""

from __future__ import annotations

import hmac
import logging
import math
import socket
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import numpy as np
from fastapi import Depends, FastAPI, HTTPException, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field

from alphad import __version__
from alphad.reconfig import ConfigStore, ConfigUpdateError, hot_view

if TYPE_CHECKING:
    import uvicorn

    from alphad.history import History
    from alphad.loop import Daemon
    from alphad.metrics import Metrics, QueueSnapshot

__all__ = ["ApiServer", "ConfigUpdate", "create_app", "state_json"]

log = logging.getLogger("alphad")

WEB = Path(__file__).resolve().parent / "web"
_bearer = HTTPBearer(auto_error=False, description="api.token of the configuration")


class ConfigUpdate(BaseModel):
    """Settings that PUT /v1/config may change; omitted ones stay as they are."""

    model_config = ConfigDict(extra="forbid")
    interval: Annotated[str | float | None, Field(
        description="control interval: '100ms', '1s' or seconds", examples=["50ms"])] = None
    scheme: Annotated[str | None, Field(
        description="dt | abm | fb | auto18 | auto-reference",
        examples=["auto18"])] = None
    scheme_params: Annotated[dict[str, Any] | None, Field(
        description="replaces the scheme's parameters")] = None
    alphas: Annotated[dict[str, float] | None, Field(
        description="alpha_p per priority name", examples=[{"query": 2.0}])] = None


def _f(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


def _fl(a: np.ndarray | None) -> list[float | None] | None:
    if a is None:
        return None
    if np.isfinite(a).all():  # the common case: no per-value check
        return a.tolist()  # type: ignore[no-any-return]
    return [_f(v) for v in a.tolist()]


def state_json(d: Daemon) -> dict[str, Any]:
    """The current snapshot as JSON-able data (also the live page's feed)."""
    s = d.snapshot
    st = d.stats
    out: dict[str, Any] = {
        "version": __version__,
        "switch": d.topo.switch,
        "scheme": d.controller.scheme_name,
        "interval": d.interval,
        "failsafe": {"active": d.failsafe, "reason": d.failsafe_reason},
        "stats": {"intervals": st.intervals, "overruns": st.overruns, "writes": st.writes,
                  "write_errors": st.write_errors, "read_errors": st.read_errors,
                  "reconfigs": st.reconfigs},
        "config": hot_view(d.cfg),
        "t": None,
        "pool": {"size_bytes": d.topo.buffer_bytes, "occupancy_bytes": None,
                 "watermark_bytes": None},
        "priorities": [],
        "ports": [],
        "queues": [],
    }
    if s is None:
        return out
    topo, sm, cl = s.topo, s.sample, s.classes
    out["t"] = sm.t
    out["pool"].update(occupancy_bytes=_f(sm.pool_occupancy),
                       watermark_bytes=_f(sm.pool_watermark))
    n_p = s.n_p.tolist() if s.n_p is not None else [None] * cl.n_prio
    out["priorities"] = [{"name": n, "alpha": a, "n_p": v} for n, a, v in
                         zip(cl.names, cl.alpha_p.tolist(), n_p, strict=True)]
    drops_port = [0.0] * topo.n_ports
    for p, v in zip(topo.queue_port.tolist(), s.drops_total.tolist(), strict=True):
        drops_port[p] += v
    out["ports"] = [{"name": n, "speed_bps": sp, "dropped_bytes": dr} for n, sp, dr in
                    zip(topo.ports, topo.port_speed_bps.tolist(), drops_port, strict=True)]
    out["queues"] = _queues(s)
    return out


def _queues(s: QueueSnapshot, i: int | None = None) -> list[dict[str, Any]]:
    """Every queue's row, or only that of queue position ``i``."""
    topo, sm, cl = s.topo, s.sample, s.classes
    sel = slice(None) if i is None else slice(i, i + 1)

    def col(a: np.ndarray | None) -> list[float | None] | None:
        return None if a is None else _fl(a[sel])

    cols = {
        "occupancy_bytes": col(sm.occupancy),
        "watermark_bytes": col(sm.watermark),
        "threshold_bytes": col(s.threshold),
        "alpha": col(sm.alpha),
        "log2_alpha": col(s.log2_alpha),
        "target_alpha": col(s.target),
        "gamma": col(s.gamma),
        "dropped_bytes": col(s.drops_total),
    }
    qp = topo.queue_port[sel].tolist()
    none = [None] * len(qp)
    keys = ("port", "queue", "priority", *cols)
    columns = (
        [topo.ports[p] for p in qp],
        topo.queue_index[sel].tolist(),
        [cl.names[p] if p >= 0 else None for p in cl.prio[sel].tolist()],
        *(v if v is not None else none for v in cols.values()),
    )
    return [dict(zip(keys, row, strict=True)) for row in zip(*columns, strict=True)]


def _error_lines(exc: RequestValidationError) -> list[str]:
    lines = []
    for e in exc.errors():
        loc = [str(p) for p in e.get("loc", ()) if p not in ("body", "query", "path")]
        msg = "unknown key" if e.get("type") == "extra_forbidden" else e.get("msg", "")
        lines.append(f"{'.'.join(loc)}: {msg}" if loc else msg)
    return lines


def create_app(daemon: Daemon, store: ConfigStore | None = None,
               metrics: Metrics | None = None, history: History | None = None,
               token: str | None = None) -> FastAPI:
    app = FastAPI(
        title="alphad", version=__version__,
        description="Adaptive buffer management for Dynamic-Threshold switches: state, "
                    "configuration and metrics of one switch's daemon.",
        docs_url=None, redoc_url=None,  # their pages load scripts from a CDN
    )
    secret = token.encode() if token else None

    def require_token(cred: Annotated[HTTPAuthorizationCredentials | None,
                                      Depends(_bearer)]) -> None:
        if secret is None:
            raise HTTPException(403, "writes are disabled: set api.token or api.token_file")
        given = cred.credentials.encode() if cred is not None else b""
        if cred is None or not hmac.compare_digest(given, secret):
            raise HTTPException(401, "missing or wrong bearer token",
                                headers={"WWW-Authenticate": "Bearer"})

    @app.exception_handler(RequestValidationError)
    async def _invalid(_req: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"detail": "invalid request", "errors": _error_lines(exc)}, 422)

    @app.get("/healthz", tags=["health"], summary="The control loop is alive",
             responses={503: {"description": "the loop is stalled or stopping"}})
    def healthz() -> JSONResponse:
        now = time.monotonic()
        limit = max(5.0, 10 * daemon.interval)
        last = daemon.last_cycle
        age = None if last is None else now - last
        ok = not daemon.stopping and (
            (age is None and now - daemon.started < max(30.0, limit)) or
            (age is not None and age < limit))
        body = {"status": "ok" if ok else "stalled" if not daemon.stopping else "stopping",
                "intervals": daemon.stats.intervals, "last_cycle_age_seconds": age}
        return JSONResponse(body, 200 if ok else 503)

    @app.get("/readyz", tags=["health"],
             summary="Managing the switch: fresh telemetry, decisions made, not fail-safe",
             responses={503: {"description": "not ready; ``reasons`` says why"}})
    def readyz() -> JSONResponse:
        reasons = []
        last = daemon.last_cycle
        c = daemon.controller.last
        if daemon.stopping:
            reasons.append("stopping")
        if last is None or c is None or c.est is None:
            reasons.append("no decision yet")
        elif time.monotonic() - last > max(2.0, 3 * daemon.interval):
            reasons.append("telemetry is stale")
        if daemon.failsafe:
            reasons.append(f"fail-safe: {daemon.failsafe_reason or 'active'}")
        return JSONResponse({"ready": not reasons, "reasons": reasons},
                            503 if reasons else 200)

    @app.get("/v1/state", tags=["state"], summary="The current snapshot of every queue")
    def state() -> dict[str, Any]:
        out = state_json(daemon)
        if history is not None:
            out["history"] = history.switch()
        return out

    @app.get("/v1/queues/{port:path}/{queue}", tags=["state"],
             summary="One queue: current state and recent history",
             responses={404: {"description": "no such port or queue"},
                        503: {"description": "no sample yet"}})
    def queue(port: str, queue: int) -> dict[str, Any]:
        s = daemon.snapshot
        if s is None:
            raise HTTPException(503, "no sample yet")
        try:
            i = s.topo.find(port, queue)
        except KeyError as e:
            raise HTTPException(404, str(e.args[0])) from None
        one = _queues(s, i)[0]
        one["switch"] = s.topo.switch
        one["t"] = s.sample.t
        one["history"] = history.queue(i) if history is not None else None
        return one  # type: ignore[no-any-return]

    @app.get("/v1/config", tags=["config"], summary="Settings that can change at run time")
    def get_config() -> dict[str, Any]:
        return {"config": hot_view(daemon.cfg), "source": str(store.path) if store else None,
                "writable": secret is not None and store is not None}

    @app.put("/v1/config", tags=["config"], dependencies=[Depends(require_token)],
             summary="Change interval, scheme, scheme_params or alphas",
             description="Validated with the configuration file's parser; applied at the "
                         "next interval; written back to the YAML file with persist=true.",
             responses={202: {"description": "accepted; applied at the next interval"},
                        401: {"description": "missing or wrong token"},
                        403: {"description": "writes disabled (no token configured)"},
                        409: {"description": "no configuration file to change"},
                        422: {"description": "invalid configuration; errors name the field"}})
    def put_config(update: ConfigUpdate, persist: Annotated[bool, Query(
            description="also write the change to the configuration file")] = False,
            ) -> JSONResponse:
        if store is None:
            raise HTTPException(409, "this daemon has no configuration file to change")
        changes = update.model_dump(exclude_none=True)
        if not changes:
            return JSONResponse({"detail": "invalid request", "errors": ["nothing to change"]},
                                422)
        try:
            out = store.update(changes, persist=persist,
                               wait=min(2.0, 2 * daemon.interval + 0.2))
        except ConfigUpdateError as e:
            return JSONResponse({"detail": "invalid configuration", "errors": e.errors}, 422)
        return JSONResponse({"applied": out.applied, "persisted": out.persisted,
                             "config": hot_view(out.config)}, 200 if out.applied else 202)

    @app.get("/metrics", tags=["metrics"], summary="Prometheus metrics",
             response_class=Response,
             responses={200: {"content": {"text/plain": {}}},
                        404: {"description": "metrics are disabled"}})
    def prometheus() -> Response:
        from prometheus_client import CONTENT_TYPE_LATEST

        if metrics is None:
            raise HTTPException(404, "metrics are disabled")
        return Response(metrics.exposition(), media_type=CONTENT_TYPE_LATEST)

    @app.get("/", include_in_schema=False)
    def page() -> FileResponse:
        return FileResponse(WEB / "index.html", media_type="text/html")

    app.mount("/static", StaticFiles(directory=WEB), name="static")
    return app


class ApiServer:
    """uvicorn in a thread, on a socket bound at construction (errors surface here)."""

    def __init__(self, app: FastAPI, host: str, port: int) -> None:
        import uvicorn

        family, kind, proto, _, addr = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM)[0]
        self._sock = socket.socket(family, kind, proto)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            self._sock.bind(addr)
        except OSError:
            self._sock.close()
            raise
        self.host, self.port = self._sock.getsockname()[:2]
        self._server: uvicorn.Server = uvicorn.Server(uvicorn.Config(
            app, log_level="warning", access_log=False, lifespan="off",
            timeout_graceful_shutdown=1))
        self._thread = threading.Thread(target=self._server.run,
                                        kwargs={"sockets": [self._sock]},
                                        name="alphad-api", daemon=True)

    @property
    def url(self) -> str:
        h = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{h}:{self.port}"

    def start(self, timeout: float = 10.0) -> None:
        self._thread.start()
        t0 = time.monotonic()
        while not self._server.started and self._thread.is_alive():
            if time.monotonic() - t0 > timeout:
                raise OSError(f"the API server did not start within {timeout:g} s")
            time.sleep(0.01)

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=5)
        self._sock.close()
