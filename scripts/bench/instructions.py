# SPDX-License-Identifier: MIT
"""instructions.py - instructions the sandbox executes per request, counted by callgrind (scripts/bench/instructions.sh
runs it).

    python3 instructions.py measure BIN DIR KIND N1 N2    one line of key=value pairs (below)
    python3 instructions.py client PORT KIND N            the requests of KIND, N times, against a running sandbox
    python3 instructions.py measure-inprocess BIN DIR KIND N1 N2
                                                          the same figure in-process: BIN is scripts/bench/inprocess's
                                                          inprocess-instructions (SandboxClient, no socket; see there)

For each of N1 and N2: BIN runs under `valgrind --tool=callgrind` (--collect-atstart=yes, the default: every user-space
instruction of the whole process, all threads) on a free port with --quiet; once GET /__sandbox/health answers (polled
every 0.2 s, up to INSTR_START_SECONDS, default 300: valgrind slows start-up a lot), ONE keep-alive connection sends
KIND's requests N times, each answer read whole before the next request; then SIGTERM, and the total `Ir` is read from
the callgrind output file (its "summary:" line, else "totals:"). (Ir(N2) - Ir(N1)) / (N2 - N1) is the figure: start-up,
the health poll and the stop cancel out.

Less what runs by the clock: the scenario watcher scans the scenario directories once a second of wall time (~3.5 M
instructions a scan), and under callgrind the N2 run lasts many seconds longer than the N1 run (more on a busy
machine), which put 5-12 % of noise into the figures. So each run's total is taken less the inclusive Ir of
ScenarioWatcher.fingerprint (the scan, read from the callgrind file's call graph; a warning, and nothing subtracted,
when it is not there); the raw figure is printed too (raw_per_unit). What is left of the clock (the event loop's 100 ms
poll timeout, the watcher's sleep and compare) moved the figures by up to 0.6 % between runs (health; the others
by 0.2 %).

KINDs (the unit the figure is per):
  health             GET /__sandbox/health                                                          per request
  klarna-session     POST /payments/v1/sessions (README's cart, Basic auth as kpflow)                per request
  klarna-flow        POST /payments/v1/sessions, POST /__sandbox/klarna/payments/sessions/{id}/authorize,
                     POST /payments/v1/authorizations/{token}/order,
                     POST /ordermanagement/v1/orders/{order_id}/captures                             per flow (4 requests)
  swedbankpay-order  POST /psp/paymentorders (v3.1 Purchase), POST /checkout/{token}/card (what the checkout page's
                     card form posts, frictionless test card)                                        per order (2 requests)

measure-inprocess runs BIN KIND N under callgrind for N1 and N2 (a copy of BIN without its debug sections, made in DIR
with `strip -g`: valgrind 3.19 cannot read the DWARF 5 of a dependent package's release build) and differences the
totals the same way. That process is client and sandbox at once: SandboxClient's URLRequest and SandboxResponse per
request are in the figure, which is therefore not comparable with the socket figure, only with another build's.

Every flow uses the ids of its own answers. Every answer must be 2xx, except the card form's, which must be the 303 to
the order's completeUrl (what a browser gets); anything else ends the run (exit 1). At the end of a run the last order
is read back and must be Paid (one request, the same in both runs, so it cancels out).

Prints: kind=... unit=... requests_per_unit=... n1=... ir1=... watcher1=... n2=... ir2=... watcher2=... per_unit=...
        per_request=... raw_per_unit=... seconds=...   (ir: the run's total, watcher: its scans, per_*: without them)
Progress goes to stderr; the callgrind files and the sandbox's output stay in DIR.
"""
import base64, json, os, re, signal, socket, subprocess, sys, time, uuid

START_SECONDS = float(os.environ.get("INSTR_START_SECONDS", "300"))
STOP_SECONDS = float(os.environ.get("INSTR_STOP_SECONDS", "300"))
HEALTH = "/__sandbox/health"

CART = (b'{"purchase_country":"GB","purchase_currency":"GBP","locale":"en-GB","order_amount":62400,"order_tax_amount":10400,'
        b'"order_lines":[{"type":"physical","name":"Battery Power Pack","quantity":1,"unit_price":59500,"tax_rate":2000,'
        b'"total_amount":59500,"total_tax_amount":9917},{"type":"shipping_fee","name":"Shipping","quantity":1,"unit_price":2900,'
        b'"tax_rate":2000,"total_amount":2900,"total_tax_amount":483}]}')
BILLING = b'{"postal_code":"W1S 3BE"}'
AUTHORIZE = b'{"jsonData":{"billing_address":' + BILLING + b'}}'
ORDER = CART[:-1] + b',"billing_address":' + BILLING + b'}'
CAPTURE = b'{"captured_amount":62400,"description":"Shipped"}'
KLARNA_AUTH = "Authorization: Basic " + base64.b64encode(b"kp-instr-0:secret").decode()
JSON = "Content-Type: application/json"

SPAY_AUTH = "Authorization: Bearer spay-instr-0"
SPAY_JSON = "Content-Type: application/json;version=3.1"
SPAY_COMPLETE = "https://example.com/done"
SPAY_CARD = b"pan=4925000000000004&expiry=12/33&cvc=123"
FORM = "Content-Type: application/x-www-form-urlencoded"


def spay_create(n):
    return json.dumps({"paymentorder": {
        "operation": "Purchase", "currency": "SEK", "amount": 1500, "vatAmount": 375, "description": "Test Purchase",
        "userAgent": "instructions.py", "language": "sv-SE",
        "urls": {"hostUrls": ["https://example.com"], "completeUrl": SPAY_COMPLETE, "cancelUrl": "https://example.com/cancel"},
        "payeeInfo": {"payeeId": "5cabf558-5283-482f-b252-4d58e06f6f3b", "payeeReference": "PO%d" % n}}}).encode()


def log(message):
    sys.stderr.write("[instructions %s] %s\n" % (time.strftime("%H:%M:%S"), message))
    sys.stderr.flush()


class Failure(Exception):
    pass


def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p


class Connection:
    """One keep-alive HTTP/1.1 connection; request() sends one request and reads its whole answer."""

    def __init__(self, port, timeout=600):
        self.port = port
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buffer = b""
        self.requests = 0

    def request(self, method, path, headers=(), body=None):
        """(status, headers dict with lower-case names, body bytes)."""
        lines = ["%s %s HTTP/1.1" % (method, path), "Host: 127.0.0.1:%d" % self.port, *headers]
        if body is not None:
            lines.append("Content-Length: %d" % len(body))
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode() + (body or b""))
        while b"\r\n\r\n" not in self.buffer:
            self.read()
        head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        status = int(status_line.split(" ", 2)[1])
        fields = {}
        for line in header_lines:
            name, _, value = line.partition(":")
            fields[name.strip().lower()] = value.strip()
        if "chunked" in fields.get("transfer-encoding", "").lower():
            raise Failure("%s %s: chunked answer (the sandbox always sends Content-Length)" % (method, path))
        length = 0 if status in (204, 304) else int(fields.get("content-length", "0"))
        while len(self.buffer) < length:
            self.read()
        answer, self.buffer = self.buffer[:length], self.buffer[length:]
        if self.buffer:
            raise Failure("%s %s: bytes after the answer" % (method, path))
        if fields.get("connection", "").lower() == "close":
            raise Failure("%s %s: the sandbox closed the keep-alive connection (%d)" % (method, path, status))
        self.requests += 1
        return status, fields, answer

    def expect(self, method, path, headers=(), body=None):
        """request(), and its JSON body; anything but 2xx is a failure."""
        status, _, answer = self.request(method, path, headers, body)
        if not 200 <= status < 300:
            raise Failure("%s %s -> %d: %s" % (method, path, status, answer[:500].decode("utf-8", "replace")))
        return json.loads(answer) if answer else {}

    def read(self):
        chunk = self.sock.recv(1 << 20)
        if not chunk:
            raise Failure("the sandbox closed the connection")
        self.buffer += chunk

    def close(self):
        self.sock.close()


def path_of(href):
    """The path of an absolute href (the sandbox answers with absolute URLs)."""
    return re.sub(r"^[a-z]+://[^/]+", "", href)


def health(conn, _n):
    conn.expect("GET", HEALTH)


def klarna_session(conn, _n):
    session = conn.expect("POST", "/payments/v1/sessions", (KLARNA_AUTH, JSON), CART)
    if not session.get("session_id"):
        raise Failure("no session_id in %s" % session)
    return session["session_id"]


def klarna_flow(conn, n):
    session_id = klarna_session(conn, n)
    authorized = conn.expect("POST", "/__sandbox/klarna/payments/sessions/%s/authorize" % session_id,
                             (KLARNA_AUTH, JSON), AUTHORIZE)
    token = authorized.get("authorization_token") or fail("no authorization_token in %s" % authorized)
    order = conn.expect("POST", "/payments/v1/authorizations/%s/order" % token, (KLARNA_AUTH, JSON), ORDER)
    order_id = order.get("order_id") or fail("no order_id in %s" % order)
    conn.expect("POST", "/ordermanagement/v1/orders/%s/captures" % order_id,
                (KLARNA_AUTH, JSON, "Klarna-Idempotency-Key: %s" % uuid.uuid4()), CAPTURE)
    return order_id


def swedbankpay_order(conn, n):
    created = conn.expect("POST", "/psp/paymentorders", (SPAY_AUTH, SPAY_JSON), spay_create(n))
    order_id = (created.get("paymentOrder") or {}).get("id") or fail("no paymentOrder.id in %s" % created)
    checkout = next((op["href"] for op in created.get("operations", []) if op.get("rel") == "redirect-checkout"), None)
    checkout or fail("no redirect-checkout operation in %s" % created)
    status, fields, answer = conn.request("POST", path_of(checkout) + "/card", (FORM,), SPAY_CARD)
    if status != 303 or fields.get("location") != SPAY_COMPLETE:
        raise Failure("card form -> %d (Location %s), not the 303 to completeUrl: %s"
                      % (status, fields.get("location"), answer[:500].decode("utf-8", "replace")))
    return order_id


def fail(message):
    raise Failure(message)


# kind -> (function, unit, requests per unit, check of the last unit's result or None)
KINDS = {
    "health": (health, "request", 1, None),
    "klarna-session": (klarna_session, "request", 1, None),
    "klarna-flow": (klarna_flow, "flow", 4, None),
    "swedbankpay-order": (swedbankpay_order, "order", 2, "paid"),
}


def run_client(conn, kind, n):
    """KIND's requests n times on conn; then the one closing check (the same in every run)."""
    function, _, per_unit, check = KINDS[kind]
    result = None
    for i in range(n):
        result = function(conn, i)
    if check == "paid" and result is not None:
        order = conn.expect("GET", path_of(result), (SPAY_AUTH, SPAY_JSON))
        status = (order.get("paymentOrder") or {}).get("status")
        if status != "Paid":
            raise Failure("the last payment order is %r, not Paid" % status)
    if conn.requests != n * per_unit + (1 if check and n else 0):
        raise Failure("sent %d requests, expected %d" % (conn.requests, n * per_unit + (1 if check and n else 0)))


def wait_health(port, proc, deadline_s):
    """Poll GET /__sandbox/health (one connection per poll, 0.2 s apart) until it answers 200."""
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise Failure("the sandbox exited with %s before listening" % proc.returncode)
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=deadline_s) as s:
                s.sendall(b"GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n" % HEALTH.encode())
                data = b""
                while True:
                    chunk = s.recv(65536)
                    if not chunk:
                        break
                    data += chunk
            if data.startswith(b"HTTP/1.1 200"):
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise Failure("no 200 from %s within %.0f s" % (HEALTH, deadline_s))


def total_ir(path):
    """The total Ir of a callgrind output file: its summary: line, else totals:."""
    totals = None
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("summary:"):
                return int(line.split()[1])
            if line.startswith("totals:"):
                totals = int(line.split()[1])
    if totals is None:
        raise Failure("no summary: or totals: line in %s" % path)
    return totals


WATCHER = "ScenarioWatcherO11fingerprint"  # in the mangled name of ScenarioWatcher.fingerprint(_:)


def inclusive_ir(path, needle):
    """The inclusive Ir of the functions whose (mangled) name holds needle, from the callgrind file itself: their own
    cost lines plus the cost of every call they make to a function that does not match (callgrind may list a function
    under more than one source file, e.g. //<compiler-generated>; all are counted once). None when none is called."""
    names = {}       # compressed id -> name, for fn= and cfn= ("(12) name" the first time, "(12)" after)
    current = callee = None
    matches = False
    in_call = found = False
    total = 0

    def name_of(value):
        value = value.strip()
        if value.startswith("("):
            ident, _, rest = value.partition(")")
            if rest.strip():
                names[ident] = rest.strip()
            return names.get(ident, value)
        return value

    with open(path, errors="replace") as f:
        for line in f:
            first = line[:1]
            if first.isdigit() or first in "+-*":
                if in_call:
                    in_call = False
                    if matches and not (needle in callee):
                        total += int(line.split()[-1])
                elif matches:
                    total += int(line.split()[-1])
            elif line.startswith("fn="):
                current = name_of(line[3:])
                matches = needle in current
                found = found or matches
                in_call = False
            elif line.startswith("cfn="):
                callee = name_of(line[4:])
            elif line.startswith("calls="):
                in_call = True
    return total if found else None


CURRENT = None


def on_signal(signo, _frame):
    """Stop the sandbox being measured and leave (instructions.sh's trap sends SIGTERM)."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN); signal.signal(signal.SIGINT, signal.SIG_IGN)
    if CURRENT is not None and CURRENT.poll() is None:
        CURRENT.kill(); CURRENT.wait()
    os._exit(128 + signo)


def one_run(binary, directory, kind, n):
    """Ir of one callgrind run of the sandbox that served KIND n times."""
    global CURRENT
    port = free_port()
    out = os.path.join(directory, "callgrind.%s.%d.out" % (kind, n))
    if os.path.exists(out):
        os.remove(out)
    output = open(os.path.join(directory, "sandbox.%s.%d.log" % (kind, n)), "w")
    command = ["valgrind", "--tool=callgrind", "--quiet", "--collect-atstart=yes", "--callgrind-out-file=" + out,
               binary, "--port", str(port), "--quiet"]
    started = time.monotonic()
    CURRENT = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        wait_health(port, CURRENT, START_SECONDS)
        listening = time.monotonic()
        conn = Connection(port)
        run_client(conn, kind, n)
        conn.close()
        served = time.monotonic()
        CURRENT.send_signal(signal.SIGTERM)
        try:
            rc = CURRENT.wait(STOP_SECONDS)
        except subprocess.TimeoutExpired:
            raise Failure("the sandbox did not exit within %.0f s of SIGTERM" % STOP_SECONDS)
        if rc != 0:
            raise Failure("the sandbox exited with %d after SIGTERM (see %s)" % (rc, output.name))
    finally:
        if CURRENT.poll() is None:
            CURRENT.kill(); CURRENT.wait()
        CURRENT = None
        output.close()
    ir, watcher = total_ir(out), inclusive_ir(out, WATCHER)
    log("%s n=%d: Ir %d, scenario watcher %s (start %.1f s, requests %.1f s, stop %.1f s)"
        % (kind, n, ir, watcher, listening - started, served - listening, time.monotonic() - served))
    return ir, watcher


def two_runs(run, binary, directory, kind, n1, n2):
    """Checks the arguments, then (Ir, watcher Ir) of RUN at N1 and at N2, the kind's unit, and when it started."""
    if kind not in KINDS:
        raise Failure("unknown kind %s (known: %s)" % (kind, " ".join(KINDS)))
    if not 0 <= n1 < n2:
        raise Failure("need 0 <= N1 < N2")
    os.makedirs(directory, exist_ok=True)
    started = time.monotonic()
    first, second = run(binary, directory, kind, n1), run(binary, directory, kind, n2)
    _, unit, per_unit, _ = KINDS[kind]
    return first, second, unit, per_unit, started


def measure(binary, directory, kind, n1, n2):
    (ir1, watcher1), (ir2, watcher2), unit, per_unit, started = two_runs(one_run, binary, directory, kind, n1, n2)
    raw = (ir2 - ir1) / (n2 - n1)
    if watcher1 is None or watcher2 is None:
        log("warning: ScenarioWatcher.fingerprint not found in the callgrind output: the figure includes the scenario"
            " watcher's scans (one per second of wall time, so it depends on the machine's speed)")
        watcher1 = watcher2 = 0
    per = (ir2 - watcher2 - ir1 + watcher1) / (n2 - n1)
    print("kind=%s unit=%s requests_per_unit=%d n1=%d ir1=%d watcher1=%d n2=%d ir2=%d watcher2=%d per_unit=%.0f"
          " per_request=%.0f raw_per_unit=%.0f seconds=%.0f"
          % (kind, unit, per_unit, n1, ir1, watcher1, n2, ir2, watcher2, per, per / per_unit, raw,
             time.monotonic() - started))


def inprocess_run(binary, directory, kind, n):
    """Ir (and the scenario watcher's, normally none: the binary turns it off) of one in-process run of KIND n times."""
    out = os.path.join(directory, "callgrind.inprocess.%s.%d.out" % (kind, n))
    if os.path.exists(out):
        os.remove(out)
    command = ["valgrind", "--tool=callgrind", "--quiet", "--collect-atstart=yes", "--callgrind-out-file=" + out,
               binary, kind, str(n)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=STOP_SECONDS + START_SECONDS)
    if done.returncode != 0:
        raise Failure("%s %s %d exited with %d: %s" % (binary, kind, n, done.returncode, done.stderr[-2000:]))
    ir, watcher = total_ir(out), inclusive_ir(out, WATCHER)
    log("in-process %s n=%d: Ir %d, scenario watcher %s" % (kind, n, ir, watcher))
    return ir, watcher


def measure_inprocess(binary, directory, kind, n1, n2):
    os.makedirs(directory, exist_ok=True)
    stripped = os.path.join(directory, "inprocess-instructions")
    subprocess.run(["strip", "-g", "-o", stripped, binary], check=True)
    (ir1, watcher1), (ir2, watcher2), unit, per_unit, started = two_runs(inprocess_run, stripped, directory, kind, n1, n2)
    per = (ir2 - (watcher2 or 0) - ir1 + (watcher1 or 0)) / (n2 - n1)
    print("kind=%s mode=inprocess unit=%s requests_per_unit=%d n1=%d ir1=%d n2=%d ir2=%d per_unit=%.0f per_request=%.0f"
          " seconds=%.0f" % (kind, unit, per_unit, n1, ir1, n2, ir2, per, per / per_unit, time.monotonic() - started))


def main(argv):
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    try:
        if len(argv) == 6 and argv[0] == "measure":
            measure(argv[1], argv[2], argv[3], int(argv[4]), int(argv[5]))
        elif len(argv) == 6 and argv[0] == "measure-inprocess":
            measure_inprocess(argv[1], argv[2], argv[3], int(argv[4]), int(argv[5]))
        elif len(argv) == 4 and argv[0] == "client":
            conn = Connection(int(argv[1]))
            run_client(conn, argv[2], int(argv[3]))
            print("%d requests" % conn.requests)
        else:
            sys.stderr.write(__doc__)
            return 2
    except Failure as failure:
        log("error: %s" % failure)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
