# SPDX-License-Identifier: MIT
"""The start-up, checks and teardown the browser tests (test_*.py beside this file) share; the browser itself is
browser.py. Importing this module exits with how to install selenium when it is missing.

    arguments(doc, timeout, update_docs)  argparse: --binary | --base-url, --artifacts, --update-docs, --timeout
    artifacts_dir(path)                   make it; delete an earlier run's failed-* files
    run(args, artifacts, start, docs)     start(session) returns the test's Run; its CHECKS run under the time
                                          limit and SIGTERM/SIGHUP; --update-docs copies; teardown; the exit code
    Session.start_sandbox(log_name, ...)  payment-sandbox on a free port (or --base-url), healthy
    Session.start_merchant(Merchant)      a merchant server on 127.0.0.1
    Session.start_browser(w, h, ...)      headless Chromium (browser.start_browser)
    Session.finish(results)               "N passed, N failed", the sandbox log's tail on a failure; the exit code
    Checks                                base of each test's Run: CHECKS, each printed as one line; a failed
                                          check leaves ARTIFACTS/failed-NAME.png and .html
    http(method, url, ...)                one HTTP call, redirects not followed: (status, headers, JSON or text)
"""
from __future__ import annotations

import argparse
import ctypes
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import traceback
import urllib.error
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable, Iterable

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
try:
    from selenium.common.exceptions import NoAlertPresentException

    import browser as bk
except ImportError:
    sys.exit("selenium is not installed: run scripts/browser/install-browser.sh, then use .build/browser-venv/bin/python")

WAIT = 10  # seconds for any one thing to happen in the browser

KLARNA_CART = {
    "purchase_country": "GB", "purchase_currency": "GBP", "locale": "en-GB",
    "order_amount": 62400, "order_tax_amount": 10400,
    "order_lines": [
        {"type": "physical", "name": "Battery Power Pack", "quantity": 1, "unit_price": 59500, "tax_rate": 2000,
         "total_amount": 59500, "total_tax_amount": 9917},
        {"type": "shipping_fee", "name": "Shipping", "quantity": 1, "unit_price": 2900, "tax_rate": 2000,
         "total_amount": 2900, "total_tax_amount": 483},
    ],
}


class Abort(BaseException):
    """The run's time limit or a signal: stop every check, clean up, exit 1."""


class CheckFailed(AssertionError):
    pass


def expect(condition, message: str) -> None:
    if not condition:
        raise CheckFailed(message)


# --- HTTP ------------------------------------------------------------------------------------------------

class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None  # a 3xx comes back as the answer


_OPENERS = {False: urllib.request.build_opener(_NoRedirects), True: urllib.request.build_opener()}


def http(method: str, url: str, body=None, headers: dict | None = None, *, form: dict | list | None = None,
         json_type: str = "application/json", follow_redirects: bool = False) -> tuple[int, dict, object]:
    """One request: body as JSON (Content-Type json_type) or form urlencoded, unless headers name a Content-Type.
    Returns (status, response headers, JSON or text); an HTTP error status is an answer, not an exception."""
    hdrs = dict(headers or {})
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        hdrs.setdefault("Content-Type", json_type)
    elif form is not None:
        data = urllib.parse.urlencode(form).encode()
        hdrs.setdefault("Content-Type", "application/x-www-form-urlencoded")
    req = urllib.request.Request(url, data=data, method=method, headers=hdrs)
    try:
        with _OPENERS[follow_redirects].open(req, timeout=WAIT) as r:
            status, rh, raw = r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        status, rh, raw = e.code, dict(e.headers), e.read()
    try:
        return status, rh, json.loads(raw) if raw else None
    except ValueError:
        return status, rh, raw.decode(errors="replace")


def wait_healthy(base: str, headers: dict | None = None, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            if http("GET", base + "/__sandbox/health", headers=headers)[0] == 200:
                return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"GET {base}/__sandbox/health did not answer 200 in {timeout} s")
        time.sleep(0.1)


# --- the sandbox -----------------------------------------------------------------------------------------

def _die_with_parent() -> None:
    # Linux: SIGTERM the sandbox if the test dies without cleaning up (e.g. SIGKILL).
    try:
        ctypes.CDLL(None).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


class Sandbox:
    """payment-sandbox on a free port, run from the repository (where the bundled scenarios are, ./scenarios) with
    env added to the environment; the URL is read from its start-up line."""

    def __init__(self, binary: str, log_path: pathlib.Path, env: dict | None = None):
        self.binary, self.log_path, self.env = binary, log_path, env or {}
        self.proc: subprocess.Popen | None = None

    def start(self, timeout: float = 20) -> str:
        binary = pathlib.Path(self.binary).resolve()
        if not binary.is_file():
            raise RuntimeError(f"no sandbox binary at {binary}: swift build -c release, or pass --binary or --base-url")
        log = open(self.log_path, "wb")
        self.proc = subprocess.Popen([str(binary), "--port", "0"], cwd=ROOT, env=dict(os.environ, **self.env),
                                     stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                     preexec_fn=_die_with_parent)
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            m = re.search(r"listening on (http://\S+)", self.log_path.read_text(errors="replace"))
            if m:
                return m.group(1).rstrip("/")
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        raise RuntimeError(f"sandbox did not start: {self.log_path.read_text(errors='replace')[-2000:]}")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(3)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


# --- the merchant ----------------------------------------------------------------------------------------

class Merchant:
    """A server on 127.0.0.1 where the merchant's URLs point. Records each GET and POST as (method, path, query) in
    hits; answers page(path) as a 200 HTML page with extra_headers, or 404 when page returns None."""

    extra_headers: dict = {}

    def __init__(self):
        hits = self.hits = []
        merchant = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                u = urllib.parse.urlsplit(self.path)
                hits.append((self.command, u.path, dict(urllib.parse.parse_qsl(u.query))))
                page = merchant.page(u.path)
                if page is None:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(page)))
                for name, value in merchant.extra_headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(page)

            do_POST = do_GET

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def page(self, path: str) -> bytes | None:
        raise NotImplementedError

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


# --- the checks ------------------------------------------------------------------------------------------

class Checks:
    """Base of a test's Run. check(name, fn) runs fn, prints "ok NAME info" or "FAIL NAME why" and goes on; a failed
    check leaves ARTIFACTS/failed-NAME.png and .html. With fresh_tab, each check is followed by a new tab."""

    CHECKS: list[tuple[str, str]] = []  # (name, method), in the order they run
    name_width = 18
    fresh_tab = True

    def __init__(self, driver, artifacts: pathlib.Path):
        self.d, self.artifacts = driver, artifacts
        self.results: list[tuple[str, bool]] = []

    def run_checks(self, only: list[str] | None = None) -> None:
        for name, method in self.CHECKS:
            if not only or name in only:
                self.check(name, getattr(self, method))

    def check(self, name: str, fn) -> None:
        t0 = time.monotonic()
        try:
            info = fn()
            self.results.append((name, True))
            print(f"ok    {name:<{self.name_width}} {info}  ({time.monotonic() - t0:.1f} s)", flush=True)
        except Exception as e:  # one check failing must not stop the others
            self.results.append((name, False))
            where = self._save_failure(name)
            print(f"FAIL  {name:<{self.name_width}} {type(e).__name__}: {e}  ({time.monotonic() - t0:.1f} s; {where})",
                  flush=True)
            if not isinstance(e, CheckFailed):
                traceback.print_exc(limit=4)
        if self.fresh_tab:
            try:  # the next check starts in a fresh tab (an external-scheme launch can leave state behind)
                self.d.switch_to.default_content()
                bk.reset_tab(self.d)
            except Exception:
                pass

    def _save_failure(self, name: str) -> str:
        try:
            slug = re.sub(r"\W+", "-", name)
            png = self.artifacts / f"failed-{slug}.png"
            try:
                self.d.switch_to.alert.dismiss()
            except Exception:
                pass
            self.d.save_screenshot(str(png))
            (self.artifacts / f"failed-{slug}.html").write_text(self.d.page_source)
            return f"see {png}"
        except Exception as e:
            return f"no screenshot: {type(e).__name__}"

    def js(self, script: str, *args):
        return self.d.execute_script(script, *args)

    def no_alert(self, what: str) -> None:
        """Fails (dismissing it) when the page opened an alert: what ran as script."""
        try:
            alert = self.d.switch_to.alert
            text = alert.text
            alert.dismiss()
        except NoAlertPresentException:
            return
        raise CheckFailed(f"{what} ran as script: alert({text!r})")


# --- one run ---------------------------------------------------------------------------------------------

def arguments(doc: str, *, timeout: float, update_docs: str,
              base_url_help: str = "use this running sandbox instead of starting one") -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    source = ap.add_mutually_exclusive_group()
    source.add_argument("--binary", default=str(ROOT / ".build/release/payment-sandbox"),
                        help="payment-sandbox to start (default: .build/release/payment-sandbox)")
    source.add_argument("--base-url", help=base_url_help)
    ap.add_argument("--artifacts", default=str(ROOT / ".build/artifacts"),
                    help="screenshots, logs (default: .build/artifacts)")
    ap.add_argument("--update-docs", action="store_true", help=update_docs)
    ap.add_argument("--timeout", type=float, default=timeout,
                    help=f"for the whole run, seconds (default {timeout:.0f})")
    return ap


def artifacts_dir(path: str) -> pathlib.Path:
    artifacts = pathlib.Path(path).resolve()
    artifacts.mkdir(parents=True, exist_ok=True)
    for old in artifacts.glob("failed-*"):
        old.unlink(missing_ok=True)
    return artifacts


class Session:
    """What one run started (sandbox, merchant server, browser); stop() ends them, the last started first."""

    def __init__(self, args, artifacts: pathlib.Path):
        self.args, self.artifacts = args, artifacts
        self.sandbox: Sandbox | None = None
        self._stops: list[Callable[[], None]] = []

    def start_sandbox(self, log_name: str, *, env: dict | None = None, health_headers: dict | None = None,
                      note: str = "") -> str:
        """--base-url, or the --binary started with its log in ARTIFACTS/log_name; either healthy. Returns the URL."""
        t0 = time.monotonic()
        if self.args.base_url:
            base = self.args.base_url.rstrip("/")
        else:
            self.sandbox = Sandbox(self.args.binary, self.artifacts / log_name, env)
            self._stops.append(self.sandbox.stop)
            base = self.sandbox.start()
        wait_healthy(base, health_headers)
        print(f"sandbox  {base} healthy in {time.monotonic() - t0:.1f} s ({note})", flush=True)
        return base

    def start_merchant(self, merchant_class: type[Merchant]) -> Merchant:
        merchant = merchant_class()
        self._stops.append(merchant.stop)
        return merchant

    def start_browser(self, width: int, height: int, *, driver_log: str, note: str = "", **options):
        """browser.start_browser(width, height, **options), chromedriver's log in ARTIFACTS/driver_log."""
        t0 = time.monotonic()
        driver = bk.start_browser(width, height, driver_log=str(self.artifacts / driver_log), **options)
        self._stops.append(driver.quit)
        print(f"browser  Chromium {driver.capabilities.get('browserVersion')}, {width}x{height}, "
              f"started in {time.monotonic() - t0:.1f} s{note}", flush=True)
        return driver

    def copy_to_docs(self, source: pathlib.Path, target: pathlib.Path) -> None:
        if source.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
            print(f"copied   {source} -> {target} ({target.stat().st_size // 1024} KB)")

    def finish(self, results: list[tuple[str, bool]]) -> int:
        failed = sum(1 for _, ok in results if not ok)
        if failed and self.sandbox:
            print(f"--- last lines of {self.sandbox.log_path} ---")
            print("\n".join(self.sandbox.log_path.read_text(errors="replace").splitlines()[-20:]))
        print(f"{len(results) - failed} passed, {failed} failed")
        return 1 if failed else 0

    def stop(self) -> None:
        while self._stops:
            try:
                self._stops.pop()()
            except Exception:
                pass


def run(args, artifacts: pathlib.Path, start: Callable[[Session], Checks],
        docs: Iterable[tuple[pathlib.Path, pathlib.Path]] = ()) -> int:
    """start(session) starts what the test needs and returns its Run, whose CHECKS then run (with --only, those
    named); with --update-docs each (artifact, copy) in docs is copied. All within args.timeout: SIGTERM, SIGHUP and
    the time limit abort it. Whatever was started is stopped at the end, whatever happened. Returns the exit code."""

    def abort(signum, _frame):
        raise Abort(f"signal {signum}" if signum != signal.SIGALRM else f"time limit of {args.timeout:.0f} s")

    for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGALRM):
        signal.signal(s, abort)
    signal.setitimer(signal.ITIMER_REAL, args.timeout)
    session = Session(args, artifacts)
    try:
        checks = start(session)
        checks.run_checks(getattr(args, "only", None))
        if args.update_docs:
            for source, target in docs:
                session.copy_to_docs(source, target)
        return session.finish(checks.results)
    except (Abort, KeyboardInterrupt) as e:
        print(f"aborted: {e or type(e).__name__}", flush=True)
        return 1
    except Exception as e:
        print(f"FAIL  setup: {type(e).__name__}: {e}", flush=True)
        traceback.print_exc(limit=4)
        return 1
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        for s in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(s, signal.SIG_IGN)  # cleanup runs to the end
        session.stop()
