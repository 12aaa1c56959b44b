"""The alphad image run as SONiC runs it: against the virtual switch's Redis socket
(bind-mounted at /var/run/redis) with its journal in a volume. It manages queues,
restores the switch within the stop grace period on SIGTERM, and a new container on the
same volume reconciles a killed one's leftovers from the journal."""

from __future__ import annotations

import json
import time
from pathlib import Path

from container.harness import (
    JOURNAL,
    Alphad,
    Switch,
    container_config,
    free_port,
    podman,
    volume_path,
    wait_for,
)

GRACE = 15  # --stop-timeout, as the compose file's stop_grace_period


def alphad(switch: Switch, volume: str, tmp_path: Path, tag: str = "a") -> Alphad:
    port = free_port()
    cfg = container_config(tmp_path / f"alphad-{tag}.yaml", port, free_port())
    return Alphad(switch, volume, cfg, port)


def managing(a: Alphad, switch: Switch) -> None:
    """Cycles running, per-queue profiles on the switch, the journal in the volume."""
    wait_for(lambda: a.intervals() >= 5, 60, f"5 control cycles ({a.logs()[-2000:]})")
    try:
        wait_for(switch.clones, 30, "alphad's first per-queue profile")
    except AssertionError as e:
        raise AssertionError(f"{e}; alphad's log ends:\n{a.logs()[-3000:]}") from None
    assert (volume_path(a.volume) / JOURNAL).exists()


def restored(switch: Switch, before: tuple[str, str]) -> None:
    """CONFIG_DB byte for byte as before the moment the container has exited; APPL_DB
    (the switch's buffer manager applying it) within a few seconds."""
    assert switch.dump()[0] == before[0]
    wait_for(lambda: switch.dump() == before, 5, "APPL_DB back on the original configuration")


def test_image_check_config_and_version(image: str) -> None:
    out = podman("run", "--rm", "--network", "host", *_run_opts(), image,
                 "alphad", "check-config", "-c", "/etc/alphad/alphad-sonic.yaml")
    assert "OK" in out or "ok" in out.lower()
    ver = podman("run", "--rm", *_run_opts(), image, "alphad", "--version")
    assert ver.startswith("alphad ")
    libs = podman("run", "--rm", *_run_opts(), image, "sh", "-c", "ls $ALPHAD_SAI_LIB_DIR")
    assert "libalphad-sai.so" in libs and "libsai-vasic.so" in libs


def test_image_carries_the_sonic_manifest_and_yang_module(image: str) -> None:
    from container.engine import sonic_labels

    labels = json.loads(podman("image", "inspect", "--format", "{{json .Labels}}", image))
    for key, value in sonic_labels().items():
        assert labels.get(key) == value, key


def _run_opts() -> list[str]:
    from container.engine import run_options
    return [o for o in run_options() if o not in ("--network", "host")]


def test_container_manages_queues_and_restores_on_stop(switch: Switch, volume: str,
                                                       tmp_path: Path) -> None:
    before = switch.dump()
    a = alphad(switch, volume, tmp_path).start()
    try:
        managing(a, switch)
        assert switch.dump() != before
        t0 = time.monotonic()
        podman("stop", "-t", str(GRACE), a.name, timeout=GRACE + 30)
        took = time.monotonic() - t0
        state = a.state()
        logs = a.logs()
        # SIGTERM: restored, then the signal's exit code; 137 would mean killed at the grace
        assert state["ExitCode"] == 143, logs[-3000:]
        assert took < GRACE
        restored(switch, before)
        assert not (volume_path(volume) / JOURNAL).exists()
    finally:
        a.remove()


def test_killed_container_is_reconciled_by_the_next_on_the_same_volume(
        switch: Switch, volume: str, tmp_path: Path) -> None:
    before = switch.dump()
    a = alphad(switch, volume, tmp_path, "a").start()
    try:
        managing(a, switch)
        podman("kill", a.name)  # SIGKILL: nothing restored
        wait_for(lambda: not a.state()["Running"], 30, "the container gone")
        assert a.state()["ExitCode"] == 137
    finally:
        a.remove()
    left = switch.clones()
    assert left and switch.dump() != before
    assert (volume_path(volume) / JOURNAL).exists()
    b = alphad(switch, volume, tmp_path, "b").start()
    try:
        wait_for(lambda: "left by a previous run" in b.logs(), 60, "the journal's restore")
        managing(b, switch)
        podman("stop", "-t", str(GRACE), b.name, timeout=GRACE + 30)
        assert b.state()["ExitCode"] == 143, b.logs()[-3000:]
        restored(switch, before)
        assert not (volume_path(volume) / JOURNAL).exists()
    finally:
        b.remove()


def test_restore_command_in_a_new_container(switch: Switch, volume: str,
                                            tmp_path: Path) -> None:
    """`alphad restore` in a one-shot container puts a killed run's switch back."""
    before = switch.dump()
    a = alphad(switch, volume, tmp_path).start()
    try:
        managing(a, switch)
        podman("kill", a.name)
        wait_for(lambda: not a.state()["Running"], 30, "the container gone")
    finally:
        a.remove()
    assert switch.dump() != before
    r = Alphad(switch, volume, a.config, a.metrics_port)
    r.start("alphad", "restore", "-c", "/etc/alphad/alphad-sonic.yaml")
    try:
        wait_for(lambda: not r.state()["Running"], 60, "restore to finish")
        assert r.state()["ExitCode"] == 0, r.logs()[-3000:]
        restored(switch, before)
    finally:
        r.remove()
