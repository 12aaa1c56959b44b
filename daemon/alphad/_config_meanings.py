"""What each configuration key means, for docs/configuration.md (:mod:`alphad.docgen`).

Keys are dotted paths: ``priorities[].alpha``, ``backend.<type>.<key>``. A key of the
model that is neither here nor given a ``description`` in its pydantic field makes the
docs test fail, naming it.
"""

from __future__ import annotations

__all__ = ["DEFAULT_TEXT", "MEANINGS"]

# What each key means, by dotted path (``priorities[].alpha``, ``backend.sonic.pool``).
MEANINGS: dict[str, str] = {
    # top level
    "interval": "control interval: alphad reads the switch, computes and writes once per "
                "interval. Choose it against the switch's telemetry ([operator's guide]"
                "(operators-guide.md#choosing-the-interval))",
    "scheme": "the controller that computes each queue's alpha (see [Schemes](#schemes))",
    "scheme_params": "parameters of the scheme; unknown keys are refused by name "
                     "(see [Schemes](#schemes))",
    "priorities": "the traffic classes (ABM's priorities p): which queue indices belong to "
                  "which class, the same on every port",
    "lock_dir": "directory of the per-switch lock file (one alphad per switch)",
    "backend": "how alphad reaches the switch; `backend.type` picks one of the "
               "[backends](#backends)",
    "ports": "names of the ports to manage",
    "switch_name": "the switch's name in metrics (label `switch`) and the API",
    "view": "live terminal view when stdout is a terminal (`--view`/`--no-view` override)",
    "log_level": "log level on stderr (`--log-level` overrides)",
    # priorities
    "priorities[].name": "name of the class, in metrics (label `priority`) and the API",
    "priorities[].queues": "queue indices of the class (each index in one class only)",
    "priorities[].alpha": "alpha_p of the class, overriding each queue's own alpha on the "
                          "switch; within [2^kmin, 2^kmax]",
    "priorities[].allow_lower": "allow an `alpha` below a queue's own alpha on the switch "
                                "(it lowers that queue's threshold)",
    "priorities[].group": "FB priority group over which N_p is counted (default: the class)",
    "priorities[].strict": "strict-priority rank of the class's queues in the port scheduler: "
                           "served before classes of a larger rank and every class without one. "
                           "No scheme a switch runs reads it yet (only the `auto4` candidate's "
                           "burst test in the evaluation). Where no class sets one, the `sonic` "
                           "and `gnmi` backends read CONFIG_DB's QUEUE and SCHEDULER tables: a "
                           "class whose queues are all on STRICT schedulers is strict, the "
                           "higher queue index first",
    # quantize
    "quantize.mode": "`pow2`: alpha = 2^k, as SAI and SONiC take it; `continuous`: any alpha "
                     "(simulation only)",
    "quantize.kmin": "lowest k written (SONiC's YANG range of `dynamic_th` is -8..7; check "
                     "the ASIC's)",
    "quantize.kmax": "highest k written",
    "quantize.hysteresis": "k changes only when log2(target) moves more than 0.5 + this "
                           "from the current k",
    # estimate
    "estimate.congested_fraction": "a queue is congested (counts in n_p) when its peak "
                                   "reaches this fraction of its threshold (ABM §3.1)",
    "estimate.min_bytes": "below this peak a queue counts as empty",
    "estimate.gamma_ewma": "weight of the newest drain-rate sample (1: no smoothing, as ABM)",
    "estimate.gamma_clamp": "a gamma below 1/(queues per port) or above 1 is taken as 1",
    # failsafe
    "failsafe.stale_intervals": "telemetry older than this many telemetry periods engages "
                                "the fail-safe",
    "failsafe.min_stale": "... and at least this old (`0`: no floor)",
    "failsafe.error_intervals": "failed cycles in a row (reads or writes) that engage the "
                                "fail-safe",
    "failsafe.recover_intervals": "healthy intervals in a row before the scheme resumes",
    "failsafe.max_line_rate": "a queue sending more than this times its port's speed is "
                              "implausible (fail-safe)",
    "failsafe.max_fill": "a watermark above this times the pool is implausible (fail-safe)",
    # limits
    "limits.max_step": "log2 units one write may move a queue's alpha (15: no limit)",
    "limits.queue_min_interval": "a queue is rewritten at most once per this duration "
                                 "(`0`: every interval)",
    "limits.write_budget": "alpha writes per second, switch-wide; over budget the largest "
                           "moves go first and the rest wait",
    # metrics, api
    "metrics.enabled": "serve Prometheus `/metrics` on `metrics.listen` (`--no-metrics` "
                       "turns it off for one run)",
    "metrics.listen": "host:port of the read-only `/metrics` endpoint",
    "api.enabled": "serve the HTTP API, `/metrics` and the live page (`--no-api` turns it "
                   "off for one run)",
    "api.listen": "host:port of the HTTP API and the live page",
    "api.token": "bearer token for `PUT /v1/config` (at least 16 characters); without a "
                 "token writes are off",
    "api.token_file": "file whose first line is the token (relative to the configuration "
                      "file); exclusive with `api.token`",
    # backend sai / vasic
    "backend.sai.type": "`sai`: a vendor libsai loaded in-process (a switch without SONiC's "
                        "syncd)",
    "backend.sai.libsai": "path of the vendor libsai",
    "backend.sai.profile": "SAI profile key/value pairs handed to the libsai at init",
    "backend.sai.shim": "path of libalphad-sai (default: `$ALPHAD_SAI_LIB_DIR`, else the "
                        "system's)",
    "backend.vasic.type": "`vasic`: the virtual ASIC, a shared-buffer DT switch model "
                          "behind the SAI API",
    "backend.vasic.scenario": "traffic scenario file ([format](../sai-shim/vasic/SCENARIO.md)),"
                              " relative to the configuration file",
    "backend.vasic.clock": "`realtime`, or `manual`: model time advances one interval per "
                           "cycle (deterministic)",
    "backend.vasic.libsai": "path of libsai-vasic (default: next to the shim)",
    "backend.vasic.shim": "path of libalphad-sai (default: `$ALPHAD_SAI_LIB_DIR`, else the "
                          "system's)",
    "backend.vasic.compare_dt": "at exit, replay the traffic under static DT for the summary",
    # backend sonic
    "backend.sonic.type": "`sonic`: SONiC's Redis databases, from a container on the switch "
                          "([SONiC](sonic.md))",
    "backend.sonic.redis": "Redis address (`unix:///path`, `/path`, `tcp://host:port`); "
                           "default: the CONFIG_DB instance of `database_config`, else "
                           "`/var/run/redis/redis.sock`",
    "backend.sonic.database_config": "SONiC's `database_config.json` (database ids, "
                                     "separators, socket), used when the file exists",
    "backend.sonic.poll_interval": "flex counter POLL_INTERVAL of QUEUE, QUEUE_WATERMARK "
                                   "and BUFFER_POOL_WATERMARK (clamped to SONiC's 100 ms "
                                   "minimum; restored on exit)",
    "backend.sonic.manage_flex_counters": "set (and restore) the flex counter poll intervals",
    "backend.sonic.pool": "the shared pool to manage (default: the busiest lossy egress "
                          "pool)",
    "backend.sonic.pool_watermark": "also read the pool's peak (BUFFER_POOL_WATERMARK)",
    "backend.sonic.journal": "file of the restore journal (also kept in STATE_DB)",
    "backend.sonic.timeout": "Redis socket timeout",
    "backend.sonic.reader": "`lua`: one EVALSHA reads every queue; `pipeline`: a pipelined "
                            "HMGET per queue (slower)",
    # backend gnmi
    "backend.gnmi.type": "`gnmi`: a switch behind a gNMI server (sonic-gnmi) "
                         "([gNMI](gnmi.md))",
    "backend.gnmi.address": "host:port of the gNMI server (sonic-gnmi: 8080)",
    "backend.gnmi.insecure": "plain TCP without TLS (loopback tests only)",
    "backend.gnmi.tls.ca": "CA bundle that signs the switch's certificate",
    "backend.gnmi.tls.cert": "client certificate (mutual TLS), with `key`",
    "backend.gnmi.tls.key": "client key",
    "backend.gnmi.tls.server_name": "name in the server's certificate, if not the address",
    "backend.gnmi.username": "user name (needs `password_file` or `password`)",
    "backend.gnmi.password_file": "file holding the password, re-read at every reconnection",
    "backend.gnmi.password": "the password in the file (prefer `password_file`)",
    "backend.gnmi.telemetry": "paths subscribed to: SONiC's COUNTERS_DB or OpenConfig's",
    "backend.gnmi.actuation": "where alphas are written: SONiC's CONFIG_DB or OpenConfig's "
                              "buffer model",
    "backend.gnmi.sample_interval": "SAMPLE interval asked of the switch (sonic-gnmi refuses "
                                    "less than 1 s)",
    "backend.gnmi.stall_intervals": "sample intervals of silence after which the stream "
                                    "counts as stalled",
    "backend.gnmi.timeout": "connect and Get timeout",
    "backend.gnmi.set_timeout": "Set timeout (validated Sets take seconds)",
    "backend.gnmi.backoff_initial": "first reconnection delay (doubles up to `backoff_max`)",
    "backend.gnmi.backoff_max": "longest reconnection delay",
    "backend.gnmi.manage_flex_counters": "set the flex counter poll interval (journaled)",
    "backend.gnmi.poll_interval": "flex counter POLL_INTERVAL (default: `sample_interval`)",
    "backend.gnmi.pool": "the shared pool to manage (default: the busiest lossy egress pool)",
    "backend.gnmi.pool_watermark": "also read the pool's peak",
    "backend.gnmi.journal": "file of the restore journal",
    # backend sim
    "backend.sim.type": "`sim`: a switch of the ns-3 simulation, in lock step "
                        "([co-simulation](../ns3-harness/doc/cosim.md))",
    "backend.sim.program": "the `alphad-ns3-sim` program (default: `$ALPHAD_NS3_BIN`, then "
                           "`PATH`)",
    "backend.sim.args": "scenario options, e.g. `[\"--load=0.4\"]`",
    "backend.sim.switch": "the simulated switch to control",
    "backend.sim.expose_occupancy": "also hand over current queue lengths (SONiC does not "
                                    "poll them)",
    "backend.sim.log": "file for the program's stderr (default: discarded)",
}

# Defaults whose ``None`` means something specific.
DEFAULT_TEXT: dict[str, str] = {
    "lock_dir": "`$ALPHAD_LOCK_DIR`, else `/run/lock/alphad`",
    "ports": "all",
    "switch_name": "the backend's",
    "api.token": "none",
    "api.token_file": "none",
    "priorities[].group": "the class",
    "priorities[].alpha": "each queue's own alpha on the switch",
    "priorities[].strict": "not strict (`sonic`, `gnmi`: the switch's schedulers)",
}
