"""The report in a real browser: Debian's chromium, headless, driven by playwright (no browser download), loads
the full page (route with the client comparison, plan, replay) without a console error or a page error, every
image decodes, and a full-page screenshot is kept as a build artefact: ``out/report-screenshot.png`` under
the repository root (git-ignored), for a person to look at.

``make test`` installs chromium when it is missing (``make browser``); the test skips only when
``ROCKETROUTE_ALLOW_NO_BROWSER=1`` says a machine without one is fine.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from rocketroute.spark.report import write_report

from .test_report import make_plan_dir, make_replay_dir, make_route_dir

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOT = ROOT / "out" / "report-screenshot.png"


def _chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing = "the playwright package (pip install -e .[test], or make venv)"
    else:
        if path:
            return path
        missing = "Debian's chromium (apt-get install chromium, or make browser)"
    if os.environ.get("ROCKETROUTE_ALLOW_NO_BROWSER") == "1":
        pytest.skip(f"no browser: {missing} is missing (ROCKETROUTE_ALLOW_NO_BROWSER=1)")
    pytest.fail(f"the browser test needs {missing}; ROCKETROUTE_ALLOW_NO_BROWSER=1 skips it", pytrace=False)


def test_the_report_loads_in_chromium_without_errors_and_every_image_decodes(tmp_path):
    from playwright.sync_api import sync_playwright

    chromium = _chromium()
    page_path = write_report(
        tmp_path / "report.html",
        route_dir=make_route_dir(tmp_path / "route", compat=True),
        plan_dir=make_plan_dir(tmp_path / "plan"),
        replay_dir=make_replay_dir(tmp_path / "replay", wall_clock=True),
        title="rocketroute report (browser test)",
    )
    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--disable-gpu", "--disable-dev-shm-usage"])
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.on("console", lambda m: errors.append(f"console.{m.type}: {m.text}") if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(f"page error: {e}"))
            page.on("requestfailed", lambda r: errors.append(f"request failed: {r.url[:80]} {r.failure}"))
            page.goto(page_path.as_uri(), wait_until="load")
            # every <img>: loaded, decoded (decode() rejects an image that cannot be), with a real size
            images = page.evaluate(
                """async () => Promise.all([...document.images].map(async (img) => {
                    let decoded = true;
                    try { await img.decode(); } catch (e) { decoded = false; }
                    return {alt: img.alt, complete: img.complete, width: img.naturalWidth,
                            height: img.naturalHeight, decoded};
                }))"""
            )
            headings = page.eval_on_selector_all("h2", "els => els.map(e => e.textContent)")
            folded = page.eval_on_selector_all("details > summary", "els => els.map(e => e.textContent)")
            verdict = page.inner_text("#verdict")
            # nothing wider than the window: the figures shrink to the page, no sideways scrolling
            overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
            SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SCREENSHOT), full_page=True)
        finally:
            browser.close()
    assert errors == []
    assert len(images) == 6  # queue load, compat heatmap, consumer load, imbalance, churn, replay timeline
    for img in images:
        assert img["complete"] and img["decoded"] and img["width"] > 100 and img["height"] > 100, img
    assert headings == ["Verdict", "Route", "Plan", "Replay"]
    assert overflow <= 0
    assert folded == ["Hot keys per queue (16 rows)"]  # the one table over 12 rows
    assert "Pick " in verdict and "Turning fault tolerance on" in verdict and "split keys" in verdict
    assert SCREENSHOT.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
