#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CI step: Swedbank Pay native payments over https, through the TLS front that docker/compose.yaml ships.
#   scripts/tls/run.sh [path/to/payment-sandbox]     (default .build/release/payment-sandbox)
# Uses the shipped files themselves, everything written under .build/tls/:
#   - the certificates from docker/make-cert.sh (CERTS_DIR=.build/tls/certs): a local CA and a server certificate
#     it signed, the chain docs/tls.md tells simulator/emulator users to trust; the clients here trust ca.pem only;
#   - docker/nginx.conf, with only what must differ outside the container replaced (user, pid and log paths,
#     listen address and port, certificate directory, the sandbox's address; temp paths added), and `nginx -t`.
# Installs nginx from Debian if missing, starts the sandbox and nginx (as this user, in the foreground), and runs
# scripts/tls/https-native-payment.py against https://localhost:<port>. Both processes are stopped on exit; on
# failure nginx's error log is printed.
set -euo pipefail
cd "$(dirname "$0")/../.."

bin=${1:-.build/release/payment-sandbox}
[ -x "$bin" ] || { echo "run.sh: no sandbox binary at $bin" >&2; exit 1; }
work=$PWD/.build/tls
mkdir -p "$work"
rm -f "$work"/*.log "$work/nginx.pid" "$work/nginx.conf"

# --- nginx (Debian package) -----------------------------------------------------------------------------
find_nginx() { command -v nginx || { [ -x /usr/sbin/nginx ] && echo /usr/sbin/nginx; } || true; }
nginx=$(find_nginx)
if [ -z "$nginx" ]; then
  sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "run.sh: nginx is missing and there is no sudo to install it" >&2; exit 1; }
    sudo=(sudo)
  fi
  export DEBIAN_FRONTEND=noninteractive
  # The package would start a system nginx on port 80: policy-rc.d forbids service starts during the install
  # (only when the machine has no policy of its own).
  policy=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    policy=/usr/sbin/policy-rc.d
    printf '#!/bin/sh\nexit 101\n' | "${sudo[@]}" tee "$policy" >/dev/null
    "${sudo[@]}" chmod 0755 "$policy"
  fi
  "${sudo[@]}" apt-get update -qq
  # nginx-light up to Debian 12; later releases only have nginx.
  "${sudo[@]}" apt-get install -y -qq nginx-light >/dev/null 2>&1 \
    || "${sudo[@]}" apt-get install -y -qq nginx >/dev/null
  [ -z "$policy" ] || "${sudo[@]}" rm -f "$policy"
  nginx=$(find_nginx)
  [ -n "$nginx" ] || { echo "run.sh: installing nginx failed" >&2; exit 1; }
fi
"$nginx" -v

# --- the certificates, made by docker/make-cert.sh (a new CA each run) ------------------------------------------
certs=$work/certs
rm -rf "$certs"
CERTS_DIR=$certs bash docker/make-cert.sh >"$work/make-cert.log" \
  || { cat "$work/make-cert.log"; echo "run.sh: docker/make-cert.sh failed" >&2; exit 1; }
for file in ca.pem ca.key ca.crt ca.der server.pem server.key; do
  [ -s "$certs/$file" ] || { echo "run.sh: docker/make-cert.sh wrote no $certs/$file" >&2; exit 1; }
done
# The clients below trust the CA only: server.pem must be a leaf that ca.pem signed, not a self-signed certificate.
openssl verify -CAfile "$certs/ca.pem" "$certs/server.pem" >/dev/null
if openssl verify -CAfile "$certs/server.pem" "$certs/server.pem" >/dev/null 2>&1; then
  echo "run.sh: $certs/server.pem verifies against itself: expected a leaf signed by ca.pem" >&2; exit 1
fi
echo "docker/make-cert.sh: CA $certs/ca.pem, server certificate $certs/server.pem signed by it"

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

sandbox_pid=""
nginx_pid=""
stop() {
  [ -z "$nginx_pid" ] || { kill -TERM "$nginx_pid" 2>/dev/null || true; wait "$nginx_pid" 2>/dev/null || true; }
  [ -z "$sandbox_pid" ] || { kill -TERM "$sandbox_pid" 2>/dev/null || true; wait "$sandbox_pid" 2>/dev/null || true; }
}
failed() {
  echo "--- nginx error log ($work/error.log) ---"
  cat "$work/error.log" 2>/dev/null || true
  echo "--- sandbox output ($work/sandbox.log, last 40 lines) ---"
  tail -n 40 "$work/sandbox.log" 2>/dev/null || true
}
on_exit() {
  local status=$?
  [ "$status" -eq 0 ] || failed
  stop
  exit "$status"
}
trap on_exit EXIT
trap 'exit 1' INT TERM HUP

# --- the sandbox ----------------------------------------------------------------------------------------------
port=$(free_port)
# Trusting the proxy's X-Forwarded-Proto/-Host, as docker/compose.yaml does (PAYMENT_SANDBOX_TRUST_PROXY=x-forwarded).
PAYMENT_SANDBOX_BUNDLED_SCENARIOS=$PWD/scenarios "$bin" --port "$port" --quiet --trust-proxy=x-forwarded >"$work/sandbox.log" 2>&1 &
sandbox_pid=$!
for _ in $(seq 1 100); do
  "$bin" healthcheck --port "$port" >/dev/null 2>&1 && break
  kill -0 "$sandbox_pid" 2>/dev/null || { echo "run.sh: the sandbox exited" >&2; exit 1; }
  sleep 0.1
done
"$bin" healthcheck --port "$port" >/dev/null 2>&1 || { echo "run.sh: the sandbox is not healthy on port $port" >&2; exit 1; }
echo "sandbox on http://127.0.0.1:$port"

# --- docker/nginx.conf, as this user, every file under .build/tls ---------------------------------------------
tls_port=$(free_port)
mkdir -p "$work/temp"
# As root the workers would switch to docker/nginx.conf's user "nginx" (missing on Debian), and "nobody" may not
# reach .build/tls: keep them as this user. Unprivileged, nginx ignores the directive: it is dropped.
user_line=""
[ "$(id -u)" -ne 0 ] || user_line="user $(id -un) $(id -gn);"
# Temporary files under .build/tls, for the modules this nginx has (older nginx-light lacks uwsgi and scgi).
temp_dirs=""
for module in client_body proxy fastcgi uwsgi scgi; do
  "$nginx" -V 2>&1 | grep -q -- "--without-http_${module}_module" || temp_dirs="$temp_dirs $module"
done
python3 - docker/nginx.conf "$work/nginx.conf" "$work" "$certs" "127.0.0.1:$port" "127.0.0.1:$tls_port" \
  "$user_line" "$temp_dirs" <<'ADAPT'
"""docker/nginx.conf -> .build/tls/nginx.conf. Each rule must match exactly once and nothing else changes, so the
proxy behaviour CI exercises is the shipped one; a docker/nginx.conf the rules no longer fit stops the run."""
import re
import sys

source, target, work, certs, upstream, listen, user, temp_dirs = sys.argv[1:9]
text = open(source).read()
# Placeholders first, so the leftover check below sees only what docker/nginx.conf itself still says.
values = {"@WORK@": work, "@CERTS@": certs, "@UPSTREAM@": upstream, "@LISTEN@": listen}
rules = [
    # (directive, pattern (multi-line mode), replacement)
    ("user", r"^([ \t]*)user[ \t]+[^;\n]*;", r"\g<1>" + (user or "# user: this user (run.sh)")),
    ("error_log", r"^([ \t]*error_log[ \t]+)[^\s;]+", r"\g<1>@WORK@/error.log"),
    ("pid", r"^([ \t]*pid[ \t]+)[^\s;]+", r"\g<1>@WORK@/nginx.pid"),
    ("access_log", r"^([ \t]*access_log[ \t]+)[^\s;]+", r"\g<1>@WORK@/access.log"),
    ("listen ... ssl", r"^([ \t]*listen[ \t]+)[^\s;]+(?=[^;\n]*[ \t]ssl\b)", r"\g<1>@LISTEN@"),
    ("ssl_certificate", r"^([ \t]*ssl_certificate[ \t]+)/etc/nginx/certs/(?=[^/\s;]+;)", r"\g<1>@CERTS@/"),
    ("ssl_certificate_key", r"^([ \t]*ssl_certificate_key[ \t]+)/etc/nginx/certs/(?=[^/\s;]+;)", r"\g<1>@CERTS@/"),
    ("proxy_pass", r"^([ \t]*proxy_pass[ \t]+)http://[^/\s;]+", r"\g<1>http://@UPSTREAM@"),
    ("http {", r"^http[ \t]*\{[^\n]*\n", lambda m: m.group(0) + "".join(
        f"    {name}_temp_path @WORK@/temp/{name};\n" for name in temp_dirs.split())),
]
errors = []
for name, pattern, replacement in rules:
    text, count = re.subn(pattern, replacement, text, flags=re.M)
    if count != 1:
        errors.append(f"`{name}` matched {count} times, expected once")
for leftover in ("/etc/nginx", "/var/log", "/var/run", "/run/", "payment-sandbox:"):
    if re.search(r"^[ \t]*[a-z_]+[^#\n]*" + re.escape(leftover), text, flags=re.M):
        errors.append(f"a directive still refers to {leftover}")
if errors:
    sys.exit(f"run.sh: cannot adapt {source} for CI: " + "; ".join(errors) + " (update the rules in scripts/tls/run.sh)")
for placeholder, value in values.items():
    text = text.replace(placeholder, value)
open(target, "w").write(f"# Generated by scripts/tls/run.sh from {source} (diff them to see the changes).\n" + text)
ADAPT
echo "nginx config $work/nginx.conf: docker/nginx.conf with"
diff -U0 docker/nginx.conf "$work/nginx.conf" | grep -E '^[-+]([^-+]|$)' | sed 's/^/  /' || true
nginx_args=(-p "$work/" -c "$work/nginx.conf" -g "daemon off;")
# -e (nginx 1.19.5+) keeps the start-up log away from /var/log/nginx/error.log.
if "$nginx" -h 2>&1 | grep -qE '^ *-e '; then nginx_args+=(-e "$work/error.log"); fi
"$nginx" -t -q "${nginx_args[@]}" || { echo "run.sh: nginx -t rejects $work/nginx.conf" >&2; exit 1; }
echo "nginx -t: ok"
"$nginx" "${nginx_args[@]}" &
nginx_pid=$!
base="https://localhost:$tls_port"
health() {
  python3 -c 'import ssl, sys, urllib.request
urllib.request.urlopen(sys.argv[1] + "/__sandbox/health", context=ssl.create_default_context(cafile=sys.argv[2]), timeout=2)' \
    "$base" "$certs/ca.pem" >/dev/null 2>&1
}
up=false
for _ in $(seq 1 100); do
  if health; then up=true; break; fi
  kill -0 "$nginx_pid" 2>/dev/null || { echo "run.sh: nginx exited" >&2; exit 1; }
  sleep 0.1
done
$up || { echo "run.sh: no answer from $base/__sandbox/health" >&2; exit 1; }
echo "nginx TLS front on $base"

python3 scripts/tls/https-native-payment.py --base "$base" --cacert "$certs/ca.pem"
