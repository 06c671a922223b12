# SPDX-License-Identifier: MIT
"""Debian's headless Chromium driven by Python Selenium, offline.

Needs the Debian packages chromium and chromium-driver, and selenium (scripts/browser/requirements.txt);
scripts/browser/install-browser.sh installs whichever is missing.

Selenium Manager (which looks up and downloads drivers) never runs: a Service with an explicit
executable_path makes Selenium skip it, and SE_OFFLINE=true keeps it off the network regardless.

    start_browser(width, height, ...)   headless Chromium with exactly that viewport (CDP device metrics)
    screenshot_full_page(driver, path)  PNG of the whole document, not only the viewport; returns (w, h)
    follow_until(driver, predicate)     poll until predicate(driver) is truthy, return it
    clear_events(driver)                forget the DevTools events read so far (call before an action)
    navigation_attempts(driver)         top-level navigations the network layer saw, custom schemes included
    wait_for_url(driver, prefix)        URL starting with prefix the tab went to, or only attempted (myapp://)
    document_status(driver, url)        HTTP status of the last top-level response for url
    reset_tab(driver)                   replace the tab by a fresh one
"""
from __future__ import annotations

import base64
import json
import os
import time
from typing import Any, Callable, Iterable

from selenium import webdriver
from selenium.common.exceptions import (
    JavascriptException,
    NoSuchElementException,
    StaleElementReferenceException,
    WebDriverException,
)
from selenium.webdriver.chrome.service import Service

CHROMEDRIVER = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")

os.environ.setdefault("SE_OFFLINE", "true")

HEADLESS_ARGS = [
    "--headless=new",
    "--no-sandbox",  # required as root: "Running as root without --no-sandbox is not supported"
    "--disable-dev-shm-usage",  # /tmp instead of /dev/shm, which is 64 MB in Docker-like containers
    "--disable-gpu",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-extensions",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-features=Translate,MediaRouter,OptimizationHints",
    "--password-store=basic",
    "--hide-scrollbars",
    "--force-color-profile=srgb",
    "--mute-audio",
    "--lang=en-US",
]


def start_browser(
    width: int = 390,
    height: int = 844,
    *,
    mobile: bool = True,
    scale: float = 1,
    external_schemes: Iterable[str] = ("myapp",),
    page_load_timeout: float = 30,
    driver_log: str | None = None,
) -> webdriver.Chrome:
    """Headless Chromium with a width x height CSS-pixel viewport and the performance log on.

    external_schemes: custom schemes Chromium may hand to the OS without asking. Without this the
        first redirect to such a scheme opens an invisible "Open xdg-open?" dialog that silently
        swallows every later native click in that tab. ($BROWSER=true makes xdg-open a no-op.)
    mobile: emulate a phone (the page's meta viewport is honoured, overlay scrollbars).
    """
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for a in HEADLESS_ARGS:
        opts.add_argument(a)
    # Headless Chromium clamps the window to >= 500 px wide; the viewport is set with CDP below.
    opts.add_argument(f"--window-size={max(width, 500)},{height}")
    schemes = [s.rstrip(":/") for s in external_schemes]
    if schemes:
        opts.add_experimental_option(
            "prefs",
            {"protocol_handler": {"policy": {"auto_launch_protocols_from_origins": [
                {"protocol": s, "allowed_origins": ["*"]} for s in schemes
            ]}}},
        )
    opts.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    opts.add_experimental_option("perfLoggingPrefs", {"enableNetwork": True, "enablePage": True})

    env = dict(os.environ, BROWSER="true")
    service_kw: dict[str, Any] = {"env": env}
    if driver_log:
        service_kw.update(log_output=driver_log, service_args=["--verbose"])
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER, **service_kw), options=opts)
    driver._bk_events = []  # type: ignore[attr-defined]
    driver._bk_metrics = dict(width=width, height=height, deviceScaleFactor=scale, mobile=mobile)  # type: ignore[attr-defined]
    driver.set_page_load_timeout(page_load_timeout)
    _apply_metrics(driver)
    return driver


def _apply_metrics(driver) -> None:
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", driver._bk_metrics)


def screenshot_full_page(driver, path: str, fit_content: bool = True) -> tuple[int, int]:
    """Write a PNG of the whole document (save_screenshot only captures the viewport). Returns (w, h).
    fit_content: a page shorter than the viewport is cut below <body> instead of padded to the viewport."""
    m = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})
    size = m.get("cssContentSize") or m["contentSize"]
    w = int(max(driver._bk_metrics["width"], size["width"]))
    h = int(max(1, size["height"]))
    if fit_content:
        body = driver.execute_script("var b = document.body; return b && Math.ceil(b.getBoundingClientRect().bottom"
                                     " + scrollY + parseFloat(getComputedStyle(b).marginBottom))")
        h = min(h, body) if body else h
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {
        "format": "png", "captureBeyondViewport": True, "fromSurface": True,
        "clip": {"x": 0, "y": 0, "width": w, "height": h, "scale": 1},
    })
    data = base64.b64decode(shot["data"])
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def is_stale(element) -> bool:
    """True once `element`'s document has been replaced (a navigation happened). Chrome reports that as a stale
    element, or mid-navigation as "Node with given id does not belong to the document"."""
    try:
        element.is_enabled()
        return False
    except WebDriverException:
        return True


def follow_until(
    driver,
    predicate: Callable[[Any], Any],
    timeout: float = 10,
    poll: float = 0.1,
    ignore: tuple = (NoSuchElementException, StaleElementReferenceException, JavascriptException),
):
    """Call predicate(driver) every `poll` s until it returns something truthy; return it.
    Exceptions in `ignore` count as "not yet" (the page may be mid-navigation)."""
    deadline = time.monotonic() + timeout
    last_exc = None
    while True:
        try:
            value = predicate(driver)
            if value:
                return value
        except ignore as e:
            last_exc = e
        if time.monotonic() >= deadline:
            try:
                url = driver.current_url
            except WebDriverException:
                url = "?"
            tried = [a["url"] for a in navigation_attempts(driver)][-5:]
            raise TimeoutError(
                f"not met in {timeout}s; current_url={url}; recent navigations={tried}"
                + (f"; last exception={last_exc!r}" if last_exc else "")
            )
        time.sleep(poll)


def _drain_events(driver) -> None:
    # get_log empties Chromium's buffer, so everything read is kept in driver._bk_events.
    for entry in driver.get_log("performance"):
        driver._bk_events.append(json.loads(entry["message"])["message"])


def clear_events(driver) -> None:
    _drain_events(driver)
    driver._bk_events.clear()


def navigation_attempts(driver) -> list[dict]:
    """The current tab's top-level (Document) requests in order, including redirect hops and
    custom-scheme URLs that never load: [{"url", "method", "status_of_previous", "location",
    "status", "failed"}]. status_of_previous is e.g. 303 when this hop came from a redirect;
    status is this hop's own response status (None until answered, or when it failed)."""
    _drain_events(driver)
    top = driver.current_window_handle  # chromedriver's handle is the tab's main frame id
    out: list[dict] = []
    current: dict[str, dict] = {}  # requestId -> latest hop (redirects reuse the requestId)
    for m in driver._bk_events:
        meth, p = m.get("method"), m.get("params", {})
        if meth == "Network.requestWillBeSent" and p.get("type") == "Document" and p.get("frameId") == top:
            rr = p.get("redirectResponse") or {}
            if rr and p.get("requestId") in current:
                current[p["requestId"]]["status"] = rr.get("status")
            headers = {k.lower(): v for k, v in (rr.get("headers") or {}).items()}
            hop = {
                "url": p["request"]["url"],
                "method": p["request"]["method"],
                "status_of_previous": rr.get("status"),
                "location": headers.get("location"),
                "status": None,
                "failed": None,
            }
            out.append(hop)
            current[p.get("requestId")] = hop
        elif meth == "Network.responseReceived" and p.get("requestId") in current:
            current[p["requestId"]]["status"] = p["response"]["status"]
        elif meth == "Network.loadingFailed" and p.get("requestId") in current:
            current[p["requestId"]]["failed"] = p.get("errorText")
    return out


def wait_for_url(driver, prefix: str, timeout: float = 10) -> str:
    """Wait until the tab is at, or Chromium attempted to navigate to, a URL starting with prefix;
    return that URL. Works for custom schemes, where current_url never changes. Attempts recorded
    earlier match too: call clear_events(driver) before the action."""

    def pred(d):
        if d.current_url.startswith(prefix):
            return d.current_url
        for a in reversed(navigation_attempts(d)):
            if a["url"].startswith(prefix):
                return a["url"]
        return None

    return follow_until(driver, pred, timeout)


def document_status(driver, url: str | None = None, timeout: float = 5) -> int:
    """HTTP status of the last top-level response for url (default: the current URL)."""
    url = url or driver.current_url

    def pred(d):
        for a in reversed(navigation_attempts(d)):
            if a["url"] == url and a["status"] is not None:
                return a["status"]
        return None

    return follow_until(driver, pred, timeout)


def reset_tab(driver) -> None:
    """Replace the current tab by a fresh one (with the same device metrics)."""
    old = driver.current_window_handle
    driver.switch_to.new_window("tab")
    new = driver.current_window_handle
    driver.switch_to.window(old)
    driver.close()
    driver.switch_to.window(new)
    _apply_metrics(driver)
