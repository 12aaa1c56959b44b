"""The container engine alphad's image is built and run with: docker where an engine
answers, else podman configured for machines without a registry or a cgroup v2
hierarchy (cgroupfs, runc, chroot builds, host network; overlay storage where the
kernel mounts it, else vfs).

    python3 container/engine.py build [--tag alphad:latest]   # `make image`
    python3 container/engine.py compose-images                # docker-compose.local.yml's
    python3 container/engine.py which                         # prints the engine's command

Without a pullable ``debian:12-slim`` the base image is made from Debian packages with
mmdebstrap (``--variant=minbase --include=ca-certificates bookworm``) and imported under
that name. Environment: ``ALPHAD_CONTAINER_ENGINE`` (docker|podman) forces the engine,
``ALPHAD_PODMAN_RUNTIME`` the OCI runtime (default runc), ``ALPHAD_PODMAN_STORAGE`` the
storage driver.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
IMAGE = "alphad:latest"
BASE = "docker.io/library/debian:12-slim"
# files the build mounts read-only so that apt and pip inside it reach the registries
# the way the host does (CA bundle, pip index); each only where the host has it
BUILD_MOUNTS = ("/etc/ssl/certs", "/etc/pip.conf")


# what debian:12-slim leaves out (documentation but its copyright files, manuals, locales)
SLIM_DPKG_OPTS = tuple(f"--dpkgopt=path-{kind}=/usr/share/{path}" for kind, path in (
    ("exclude", "doc/*"), ("include", "doc/*/copyright"), ("exclude", "man/*"),
    ("exclude", "info/*"), ("exclude", "locale/*"), ("include", "locale/locale.alias")))


class EngineError(RuntimeError):
    pass


def _docker_works() -> bool:
    if not shutil.which("docker"):
        return False
    r = subprocess.run(["docker", "info"], capture_output=True, timeout=30, check=False)
    return r.returncode == 0


@functools.cache
def engine_name() -> str:
    """'docker' or 'podman'; raises EngineError when neither can run containers."""
    forced = os.environ.get("ALPHAD_CONTAINER_ENGINE", "")
    if forced in ("docker", "podman"):
        if not shutil.which(forced):
            raise EngineError(f"ALPHAD_CONTAINER_ENGINE={forced}: {forced} is not on PATH")
        return forced
    if forced:
        raise EngineError(f"ALPHAD_CONTAINER_ENGINE={forced!r}: expected docker or podman")
    if _docker_works():
        return "docker"
    if shutil.which("podman"):
        return "podman"
    raise EngineError("no container engine: no Docker engine answers and podman is not "
                      "installed (Debian: apt-get install podman mmdebstrap runc uidmap)")


def _overlay_mounts() -> bool:
    """Whether the kernel mounts overlayfs here (as root): podman's overlay driver then
    works, and a container starts in under a second where vfs copies the whole image."""
    if os.geteuid() != 0 or not shutil.which("mount"):
        return False
    with tempfile.TemporaryDirectory(prefix="alphad-ovl-") as tmp:
        d = {n: Path(tmp) / n for n in ("lower", "upper", "work", "merged")}
        for p in d.values():
            p.mkdir()
        opts = f"lowerdir={d['lower']},upperdir={d['upper']},workdir={d['work']}"
        r = subprocess.run(["mount", "-t", "overlay", "overlay", "-o", opts, str(d["merged"])],
                           capture_output=True, check=False)
        if r.returncode != 0:
            return False
        subprocess.run(["umount", str(d["merged"])], capture_output=True, check=False)
        return True


@functools.cache
def storage_driver() -> str:
    """overlay where the kernel allows it, else vfs (ALPHAD_PODMAN_STORAGE forces one)."""
    forced = os.environ.get("ALPHAD_PODMAN_STORAGE", "")
    if forced:
        return forced
    return "overlay" if _overlay_mounts() else "vfs"


def engine() -> list[str]:
    """The engine's command with its global options."""
    if engine_name() == "docker":
        return ["docker"]
    return ["podman", "--storage-driver", storage_driver(), "--cgroup-manager", "cgroupfs"]


# container rlimits: podman's defaults (nofile 1048576) exceed what a host without
# CAP_SYS_RESOURCE lets runc set; these are ample for alphad and are lowered to the
# host's hard limits where those are lower
ULIMITS = {"nofile": (resource.RLIMIT_NOFILE, 20000), "nproc": (resource.RLIMIT_NPROC, 4096)}


def ulimits() -> list[str]:
    out = []
    for name, (res, want) in ULIMITS.items():
        _, hard = resource.getrlimit(res)
        n = want if hard == resource.RLIM_INFINITY else min(hard, want)
        out += ["--ulimit", f"{name}={n}:{n}"]
    return out


def run_options() -> list[str]:
    """Options every `run` takes (runtime, limits; host network: no CNI needed)."""
    if engine_name() == "docker":
        return ["--network", "host"]
    runtime = os.environ.get("ALPHAD_PODMAN_RUNTIME", "runc")
    return ["--runtime", runtime, *ulimits(), "--network", "host"]


def sonic_labels() -> dict[str, str]:
    """The SONiC Application Extension labels, from the files they are kept in: the
    manifest (compact JSON) and the YANG module its CLI is generated from."""
    manifest = json.loads((ROOT / "sonic" / "manifest.json").read_text())
    return {"com.azure.sonic.manifest": json.dumps(manifest, separators=(",", ":")),
            "com.azure.sonic.yang-module": (ROOT / "sonic" / "yang" / "sonic-alphad.yang")
            .read_text()}


def build_options() -> list[str]:
    if engine_name() == "docker":
        return ["--network", "host"]
    mounts = [a for m in BUILD_MOUNTS if os.path.exists(m) for a in ("-v", f"{m}:{m}:ro")]
    return ["--isolation", "chroot", "--network", "host", *mounts]


def image_exists(ref: str) -> bool:
    r = subprocess.run([*engine(), "image", "inspect", ref], capture_output=True, check=False)
    return r.returncode == 0


def ensure_base(log=sys.stderr) -> None:  # type: ignore[no-untyped-def]
    """debian:12-slim from the registry, else made with mmdebstrap and imported."""
    if image_exists(BASE):
        return
    r = subprocess.run([*engine(), "pull", "-q", BASE], capture_output=True, text=True,
                       timeout=300, check=False)
    if r.returncode == 0:
        return
    print(f"image: cannot pull {BASE} ({r.stderr.strip().splitlines()[-1:]}); making it "
          "from Debian packages with mmdebstrap", file=log)
    if not shutil.which("mmdebstrap"):
        raise EngineError(f"cannot pull {BASE} and mmdebstrap is not installed "
                          "(Debian: apt-get install mmdebstrap)")
    with tempfile.TemporaryDirectory(prefix="alphad-base-") as tmp:
        tar = Path(tmp) / "rootfs.tar"
        subprocess.run(["mmdebstrap", "--quiet", "--variant=minbase",
                        "--include=ca-certificates", *SLIM_DPKG_OPTS, "bookworm", str(tar)],
                       check=True)
        subprocess.run([*engine(), "import", "-q", str(tar), BASE], check=True,
                       stdout=subprocess.DEVNULL)


def build(tag: str = IMAGE, context: Path = ROOT, dockerfile: str | None = None,
          log=sys.stderr) -> float:  # type: ignore[no-untyped-def]
    """Build ``tag`` from ``context``; returns the seconds it took."""
    ensure_base(log)
    t0 = time.monotonic()
    cmd = [*engine(), "build", *build_options(), "-t", tag]
    if dockerfile:
        cmd += ["-f", dockerfile]
    else:  # the alphad image: SONiC's package manager reads these
        cmd += [a for k, v in sonic_labels().items() for a in ("--label", f"{k}={v}")]
    subprocess.run([*cmd, str(context)], check=True)
    return time.monotonic() - t0


# the compose demo's images built from Debian packages (docker-compose.local.yml)
COMPOSE_IMAGES = {"localhost/alphad-redis:local": "redis.Dockerfile",
                  "localhost/alphad-prometheus:local": "prometheus.Dockerfile"}


def build_compose_images(log=sys.stderr) -> float:  # type: ignore[no-untyped-def]
    ctx = ROOT / "container" / "compose"
    return sum(build(tag, ctx, str(ctx / f), log) for tag, f in COMPOSE_IMAGES.items())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="build the alphad image")
    b.add_argument("--tag", default=IMAGE)
    sub.add_parser("compose-images", help="build the compose demo's redis and Prometheus "
                   "images from Debian packages (docker-compose.local.yml)")
    sub.add_parser("which", help="print the engine command with its global options")
    a = ap.parse_args(argv)
    try:
        if a.cmd == "which":
            print(" ".join(engine()))
            return 0
        if a.cmd == "compose-images":
            secs = build_compose_images()
            print(f"image: built {', '.join(COMPOSE_IMAGES)} in {secs:.0f} s")
            return 0
        secs = build(a.tag)
    except EngineError as e:
        print(f"image: {e}", file=sys.stderr)
        return 1
    except subprocess.CalledProcessError as e:
        print(f"image: {' '.join(map(str, e.cmd[:3]))} ... exited {e.returncode}",
              file=sys.stderr)
        return 1
    print(f"image: built {a.tag} with {engine_name()} in {secs:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
