"""The live page in headless Chromium (Debian's), against a running alphad.

Saves a screenshot to test-output/web-live-page.png.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlparse

import pytest
from _obs_support import OUTPUT, free_port, start_alphad, stop_alphad, wait_http, write_config
from playwright.sync_api import Page, sync_playwright

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture
def alphad_url(tmp_path: Path) -> Iterator[str]:
    port = free_port()
    cfg = write_config(tmp_path, clock="realtime", interval="10ms",
                       api=f'listen: "127.0.0.1:{port}"')
    proc = start_alphad(cfg)
    try:
        wait_http(f"http://127.0.0.1:{port}/readyz", proc)
        yield f"http://127.0.0.1:{port}"
    finally:
        stop_alphad(proc)


def _cells(page: Page, queue: int) -> dict[str, tuple[str, str]]:
    """(peak bytes, alpha) shown for ``queue`` of every port."""
    return page.eval_on_selector_all(  # type: ignore[no-any-return]
        f".cell[data-queue='{queue}']",
        "els => Object.fromEntries(els.map("
        "e => [e.dataset.port, [e.dataset.wm, e.dataset.alpha]]))")


def _ink(page: Page, canvas: str) -> int:
    """Non-blank pixels drawn on a canvas."""
    return page.evaluate(  # type: ignore[no-any-return]
        """id => { const c = document.getElementById(id);
                   const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
                   let n = 0; for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n++;
                   return n; }""", canvas)


def test_live_page_shows_changing_data(alphad_url: str) -> None:
    assert shutil.which(CHROMIUM), "chromium is missing: apt-get install chromium (see .ci/run)"
    OUTPUT.mkdir(exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1500, "height": 1300})
            hosts, errors = set(), []
            page.on("request", lambda r: hosts.add(urlparse(r.url).netloc))
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.goto(f"{alphad_url}/#Ethernet32/3")
            page.wait_for_selector(".cell[data-port='Ethernet60'][data-wm]", timeout=15000)
            page.wait_for_function("document.getElementById('status').textContent === 'live'",
                                   timeout=15000)
            assert page.inner_text("#scheme") == "abm"
            assert page.inner_text("#interval") == "10 ms"
            assert page.locator(".cell").count() == 128
            assert "queue 3" in page.inner_text("#qtitle") and "query" in page.inner_text(
                "#qtitle")
            # Live: the model time advances, and the query queues' peak and alpha move.
            # Watched for up to 10 s: ABM lowers the query alpha when incasts overlap
            # (n_p > 1), which the random incasts may leave out of any few seconds.
            t0 = page.inner_text("#t")
            seen: dict[str, set[tuple[str, str]]] = {}
            incast: list[str] = []
            alphas: set[str] = set()
            for _ in range(25):
                for port, v in _cells(page, 3).items():
                    seen.setdefault(port, set()).add(tuple(v))  # type: ignore[arg-type]
                incast = [p for p in seen if int(p.removeprefix("Ethernet")) >= 32]
                alphas = {a for p in incast for _, a in seen[p]}
                if len(alphas) > 1 and sum(len(seen[p]) > 1 for p in incast) >= 4:
                    break
                time.sleep(0.4)
            assert page.inner_text("#t") != t0
            assert sum(len(seen[p]) > 1 for p in incast) >= 4, seen
            assert len(alphas) > 1, alphas  # ABM moves the query queues' alpha
            # Greedy queue 0 of port 0 is congested and shown so.
            cls = page.get_attribute(".cell[data-port='Ethernet0'][data-queue='0'] .fill",
                                     "class")
            assert cls is not None and "hot" in cls
            for canvas in ("occChart", "alphaChart", "dropChart", "poolChart", "npChart"):
                assert _ink(page, canvas) > 2000, canvas
            # Clicking a queue follows it.
            page.click(".cell[data-port='Ethernet4'][data-queue='1']")
            page.wait_for_function(
                "document.getElementById('qtitle').textContent.startsWith('Ethernet4 · queue 1')",
                timeout=5000)
            assert page.evaluate("location.hash") == "#Ethernet4/1"
            time.sleep(1.0)  # a full poll of the new queue's history before the picture
            page.screenshot(path=str(OUTPUT / "web-live-page.png"), full_page=True)
        finally:
            browser.close()
    assert hosts == {urlparse(alphad_url).netloc}, hosts  # nothing from a CDN or elsewhere
    assert not errors, errors
    assert (OUTPUT / "web-live-page.png").stat().st_size > 50_000
