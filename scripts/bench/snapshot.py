# SPDX-License-Identifier: MIT
"""snapshot.py - the state file of a large instance, measured (scripts/bench/snapshot.sh runs it).

    python3 snapshot.py BIN KPFLOW OBJECTS DIR [NAMESPACES]

A sandbox with --state-file DIR/state.json and --max-objects 0 is filled with OBJECTS objects by kpflow (whole Klarna
flows, 4 objects each: session, authorization, order, Order Management order, over NAMESPACES namespaces), or, with
SNAP_SEED=FILE, started on a copy of that state file instead (a file an earlier run wrote). Then:

  snapshot   POST /__sandbox/snapshot; its time, the peak RSS above the level before it (VmHWM after clear_refs 5,
             and VmRSS sampled every 2 ms), and the slowest answer of a request stream in 8 other namespaces while it
             ran (GET of a Klarna session, one keep-alive connection, one request in flight)
  again      two snapshot requests at once: their times and whether they shared one write (the answers' "write")
  sigterm    SIGTERM -> exit: the time, the exit status, and whether the file was written after the signal
  restart    a new process on the file: spawn -> "listening" line, and the objects it holds (none lost)

Prints one line of key=value pairs (times in s, memory in MiB, stalls in ms); progress on stderr.
"""
import base64, json, os, shutil, signal, socket, subprocess, sys, threading, time

BIN, KPFLOW, OBJECTS, DIR = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
NAMESPACES = int(sys.argv[5]) if len(sys.argv) > 5 else 32
STATE = os.path.join(DIR, "state.json")
SEED = os.environ.get("SNAP_SEED")
PROBE_NAMESPACES = 8
CART = (b'{"purchase_country":"GB","purchase_currency":"GBP","locale":"en-GB","order_amount":100,"order_tax_amount":0,'
        b'"order_lines":[{"name":"Probe","quantity":1,"unit_price":100,"total_amount":100}]}')


def log(message):
    sys.stderr.write("[snapshot %s] %s\n" % (time.strftime("%H:%M:%S"), message))
    sys.stderr.flush()


def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p


class Connection:
    """One keep-alive HTTP/1.1 connection; request() returns (status, body)."""

    def __init__(self, port, timeout=900):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buffer = b""

    def request(self, method, path, body=b"", user=None):
        head = "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: %d\r\n" % (method, path, len(body))
        if user:
            head += "Authorization: Basic %s\r\n" % base64.b64encode(("%s:secret" % user).encode()).decode()
        if body:
            head += "Content-Type: application/json\r\n"
        self.sock.sendall(head.encode() + b"\r\n" + body)
        while b"\r\n\r\n" not in self.buffer:
            self.read()
        head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        while len(self.buffer) < length:
            self.read()
        body, self.buffer = self.buffer[:length], self.buffer[length:]
        return int(head.split(b" ", 2)[1]), body

    def read(self):
        chunk = self.sock.recv(1 << 20)
        if not chunk:
            raise OSError("connection closed")
        self.buffer += chunk

    def close(self):
        self.sock.close()


def cpu_seconds(pid):
    """utime + stime of pid, in seconds."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def status_kib(pid, field):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


class Sandbox:
    def __init__(self):
        self.port = free_port()
        self.t0 = time.monotonic()
        self.proc = subprocess.Popen([BIN, "--port", str(self.port), "--quiet", "--state-file", STATE, "--max-objects", "0"],
                                     stdout=subprocess.PIPE, stderr=open(os.path.join(DIR, "sandbox.log"), "a"))
        line = self.proc.stdout.readline()
        self.listening = time.monotonic() - self.t0
        if b"listening" not in line:
            raise SystemExit("the sandbox did not start: %r (see %s/sandbox.log)" % (line, DIR))

    def health(self):
        c = Connection(self.port)
        try:
            return json.loads(c.request("GET", "/__sandbox/health")[1])
        finally:
            c.close()

    def snapshot(self):
        """POST /__sandbox/snapshot: its answer, with "status" added (a 503 after --handler-timeout is no write)."""
        c = Connection(self.port)
        try:
            status, body = c.request("POST", "/__sandbox/snapshot")
        finally:
            c.close()
        answer = json.loads(body) if status == 200 else {"bytes": 0}
        answer["status"] = status
        return answer

    def rss(self, field="VmRSS"):
        return status_kib(self.proc.pid, field) / 1024


def fill(sandbox):
    flows = (OBJECTS + 3) // 4
    log("filling: %d Klarna flows over %d namespaces" % (flows, NAMESPACES))
    started = time.monotonic()
    out = subprocess.run([KPFLOW, "--port", str(sandbox.port), "--connections", "32", "--namespaces", str(NAMESPACES),
                          "--prefix", "snap-", "--duration", "3600", "--flows", str(flows), "--threads", "1"],
                         capture_output=True, text=True)
    if out.returncode > 1:
        raise SystemExit("kpflow failed: %s %s" % (out.stdout, out.stderr))
    log("filled in %.0f s: %s" % (time.monotonic() - started, out.stdout.strip().splitlines()[-1]))


class Probe(threading.Thread):
    """Reads a Klarna session of one of 8 other namespaces every 2 ms (one request in flight: a slow answer delays
    the next); keeps each request's (start, end)."""

    def __init__(self, port, sessions):
        super().__init__(daemon=True)
        self.port, self.sessions, self.samples, self.stopping, self.errors = port, sessions, [], False, 0

    def run(self):
        c = Connection(self.port)
        i = 0
        while not self.stopping:
            user, session = self.sessions[i % len(self.sessions)]
            i += 1
            start = time.monotonic()
            status, _ = c.request("GET", "/payments/v1/sessions/" + session, user=user)
            end = time.monotonic()
            self.samples.append((start, end))
            if status != 200:
                self.errors += 1
            time.sleep(max(0.0, 0.002 - (end - start)))
        c.close()

    def max_stall_ms(self, start, end):
        """The slowest request that overlapped [start, end], in ms, and how many did."""
        overlapping = [b - a for a, b in self.samples if b >= start and a <= end]
        return (max(overlapping) * 1000 if overlapping else float("nan")), len(overlapping)


class RSSSampler(threading.Thread):
    def __init__(self, sandbox):
        super().__init__(daemon=True)
        self.sandbox, self.peak, self.stopping = sandbox, 0.0, False

    def run(self):
        while not self.stopping:
            self.peak = max(self.peak, self.sandbox.rss())
            time.sleep(0.002)


def measured_snapshot(sandbox, probe):
    """One snapshot request with the RSS watched: (seconds, peak MiB above the level, stall ms, answer)."""
    time.sleep(1)
    level = sandbox.rss()
    with open("/proc/%d/clear_refs" % sandbox.proc.pid, "w") as f:
        f.write("5")  # resets VmHWM to the current RSS
    sampler = RSSSampler(sandbox)
    sampler.start()
    time.sleep(0.2)
    cpu = cpu_seconds(sandbox.proc.pid)
    start = time.monotonic()
    answer = sandbox.snapshot()
    end = time.monotonic()
    answer["cpu"] = cpu_seconds(sandbox.proc.pid) - cpu
    time.sleep(0.05)
    sampler.stopping = True
    sampler.join()
    peak = max(sampler.peak, sandbox.rss("VmHWM"))
    stall, count = probe.max_stall_ms(start, end)
    return end - start, peak - level, level, stall, count, answer


def main():
    os.makedirs(DIR, exist_ok=True)
    if os.path.exists(STATE):
        os.unlink(STATE)
    open(os.path.join(DIR, "sandbox.log"), "w").close()
    result = {"objects_target": OBJECTS, "loadavg": open("/proc/loadavg").read().split()[0]}
    if SEED:
        # A state file written before (by a run of this script): the objects come from it, not from kpflow.
        shutil.copyfile(SEED, STATE)
        sandbox = Sandbox()
        result["seed_listen_s"] = "%.2f" % sandbox.listening
        log("started on %s in %.2f s" % (SEED, sandbox.listening))
    else:
        sandbox = Sandbox()
        fill(sandbox)
    # The probe's namespaces each get a session to read.
    c = Connection(sandbox.port)
    sessions = []
    for k in range(PROBE_NAMESPACES):
        user = "probe-%d" % k
        status, body = c.request("POST", "/payments/v1/sessions", CART, user=user)
        assert status == 200, body
        sessions.append((user, json.loads(body)["session_id"]))
    c.close()
    held = sandbox.health()["objects"]["held"]
    result["objects"] = held
    probe = Probe(sandbox.port, sessions)
    probe.start()
    time.sleep(0.5)
    result["stall_quiet_ms"] = "%.1f" % probe.max_stall_ms(time.monotonic() - 0.4, time.monotonic())[0]

    log("snapshot of %d objects" % held)
    seconds, peak, level, stall, count, answer = measured_snapshot(sandbox, probe)
    result.update(snapshot_status=answer["status"], snapshot_s="%.2f" % seconds, snapshot_cpu_s="%.2f" % answer["cpu"], snapshot_mb="%.0f" % (answer["bytes"] / 1e6),
                  rss_level_mib="%.0f" % level, rss_peak_above_mib="%.0f" % peak,
                  stall_max_ms="%.1f" % stall, stall_requests=count)
    log("snapshot: %.2f s, %s bytes, peak RSS +%.0f MiB over %.0f MiB, slowest of %d requests %.1f ms"
        % (seconds, answer["bytes"], peak, level, count, stall))

    # Two requests at once: one write, or two.
    answers, times = [None, None], [0.0, 0.0]

    def one(i):
        t = time.monotonic()
        answers[i] = sandbox.snapshot()
        times[i] = time.monotonic() - t

    threads = [threading.Thread(target=one, args=(i,)) for i in range(2)]
    start = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    end = time.monotonic()
    stall, _ = probe.max_stall_ms(start, end)
    shared = answers[0].get("write") is not None and answers[0].get("write") == answers[1].get("write")
    result.update(pair_s="%.2f" % (end - start), pair_status="%d,%d" % (answers[0]["status"], answers[1]["status"]),
                  pair_shared=("yes" if shared else "no"), pair_stall_max_ms="%.1f" % stall)
    log("two snapshot requests at once: %.2f s (%.2f, %.2f), one write: %s" % (end - start, times[0], times[1], shared))
    probe.stopping = True
    probe.join()
    result["probe_errors"] = probe.errors

    # SIGTERM: the stop writes the file.
    mtime_before = os.stat(STATE).st_mtime_ns
    time.sleep(0.05)
    start = time.monotonic()
    sandbox.proc.send_signal(signal.SIGTERM)
    status = sandbox.proc.wait()
    result.update(sigterm_exit_s="%.2f" % (time.monotonic() - start), sigterm_status=status,
                  sigterm_wrote=("yes" if os.stat(STATE).st_mtime_ns > mtime_before else "no"))
    log("SIGTERM -> exit %d in %s s, file written: %s" % (status, result["sigterm_exit_s"], result["sigterm_wrote"]))
    result["file_mb"] = "%.0f" % (os.stat(STATE).st_size / 1e6)

    # Restart on the file.
    restarted = Sandbox()
    result["restart_listen_s"] = "%.2f" % restarted.listening
    result["restart_cpu_s"] = "%.2f" % cpu_seconds(restarted.proc.pid)
    result["restart_objects"] = restarted.health()["objects"]["held"]
    result["restart_rss_mib"] = "%.0f" % restarted.rss()
    result["restart_peak_mib"] = "%.0f" % restarted.rss("VmHWM")
    log("restart: listening after %.2f s with %d objects" % (restarted.listening, result["restart_objects"]))
    start = time.monotonic()
    restarted.proc.send_signal(signal.SIGTERM)
    restarted.proc.wait()
    result["restart_sigterm_exit_s"] = "%.2f" % (time.monotonic() - start)
    print(" ".join("%s=%s" % kv for kv in result.items()))


if __name__ == "__main__":
    main()
