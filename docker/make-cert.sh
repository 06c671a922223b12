#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Creates the certificates of the TLS front (the `tls` service of docker/compose.yaml) in docker/certs/:
#   ca.pem, ca.key    a local CA (kept between runs unless --new-ca); install/trust it on simulators and devices
#   ca.crt, ca.der    the same CA certificate, PEM and DER, for Android's "Install a certificate › CA certificate"
#   server.pem, server.key
#                     the server certificate, signed by the CA, for localhost, 127.0.0.1, 10.0.2.2 (the Android
#                     emulator's address of the host), host.docker.internal and the extra names given
# Usage:
#   docker/make-cert.sh                              # the default names
#   docker/make-cert.sh 192.168.1.20 mybox.local     # plus a LAN IP / host name for physical devices
#   docker/make-cert.sh --new-ca ...                 # also replace the CA (devices must trust the new one)
# The server certificate meets Apple's rules for TLS server certificates: RSA 2048, SHA-256, the names in
# subjectAltName, extendedKeyUsage serverAuth, 824 days (at most 825). The CA is valid 825 days.
# Needs openssl (OpenSSL or LibreSSL). CERTS_DIR overrides the output directory.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
dir=${CERTS_DIR:-$here/certs}
ca_days=825
# Apple allows at most 825 days; one less keeps notAfter (inclusive, RFC 5280) safely inside.
days=824
new_ca=false
names=()

usage() { sed -n '3,15s/^# \{0,1\}//p' "$0"; }

for arg in "$@"; do
  case $arg in
    --new-ca) new_ca=true ;;
    -h | --help) usage; exit 0 ;;
    -*) echo "make-cert.sh: unknown option $arg" >&2; usage >&2; exit 2 ;;
    *) names+=("$arg") ;;
  esac
done

# subjectAltName entries: IPv4 / IPv6 addresses as IP:, everything else as DNS:.
san="DNS:localhost,IP:127.0.0.1,IP:10.0.2.2,DNS:host.docker.internal"
for name in ${names[@]+"${names[@]}"}; do
  if [[ $name =~ ^[0-9]{1,3}(\.[0-9]{1,3}){3}$ || ( $name == *:* && $name =~ ^[0-9A-Fa-f:.]+$ ) ]]; then
    entry="IP:$name"
  elif [[ $name =~ ^[A-Za-z0-9*]([A-Za-z0-9.-]*[A-Za-z0-9])?$ ]]; then
    entry="DNS:$name"
  else
    echo "make-cert.sh: '$name' is neither an IP address nor a DNS name" >&2
    exit 2
  fi
  [[ ",$san," == *",$entry,"* ]] || san="$san,$entry"
done

mkdir -p "$dir"
[ -f "$dir/.gitignore" ] || printf '*\n!.gitignore\n' >"$dir/.gitignore"
umask 077
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Own config files, so neither the system openssl.cnf nor -addext (missing in older LibreSSL) matter.
cat >"$work/openssl.cnf" <<EOF
[req]
distinguished_name = dn
prompt = no
[dn]
CN = placeholder
[v3_ca]
basicConstraints = critical, CA:TRUE, pathlen:0
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[v3_server]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = $san
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
EOF

if ! $new_ca && [ -f "$dir/ca.pem" ] && [ -f "$dir/ca.key" ]; then
  if openssl x509 -in "$dir/ca.pem" -noout -checkend $((30 * 86400)) >/dev/null; then
    echo "keeping the CA in $dir/ca.pem (--new-ca replaces it)"
  else
    echo "the CA in $dir/ca.pem expires within 30 days: making a new one"
    new_ca=true
  fi
else
  new_ca=true
fi

if $new_ca; then
  subject="/O=payment-sandbox/CN=payment-sandbox local CA ($(hostname 2>/dev/null || echo host) $(date +%Y-%m-%d))"
  openssl req -x509 -new -newkey rsa:2048 -nodes -sha256 -days "$ca_days" \
    -config "$work/openssl.cnf" -extensions v3_ca -subj "$subject" \
    -keyout "$work/ca.key" -out "$work/ca.pem" 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
  mv "$work/ca.key" "$dir/ca.key"
  mv "$work/ca.pem" "$dir/ca.pem"
  echo "new CA: $dir/ca.pem"
fi

openssl req -new -newkey rsa:2048 -nodes -sha256 -config "$work/openssl.cnf" -subj "/O=payment-sandbox/CN=localhost" \
  -keyout "$work/server.key" -out "$work/server.csr" 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
openssl x509 -req -in "$work/server.csr" -sha256 -days "$days" \
  -CA "$dir/ca.pem" -CAkey "$dir/ca.key" -set_serial "0x$(openssl rand -hex 15)" \
  -extfile "$work/openssl.cnf" -extensions v3_server -out "$work/server.pem" 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
openssl verify -CAfile "$dir/ca.pem" "$work/server.pem" >/dev/null

mv "$work/server.key" "$dir/server.key"
mv "$work/server.pem" "$dir/server.pem"
# Certificates are public: readable by anyone (e.g. the container's nginx); the keys stay 0600.
chmod 0644 "$dir/ca.pem" "$dir/server.pem"
cp "$dir/ca.pem" "$dir/ca.crt"
openssl x509 -in "$dir/ca.pem" -outform DER -out "$dir/ca.der"
chmod 0644 "$dir/ca.crt" "$dir/ca.der"

echo "server certificate: $dir/server.pem (valid $days days) for ${san//,/, }"
echo "trust $dir/ca.pem (iOS Simulator: xcrun simctl keychain booted add-root-cert $dir/ca.pem;"
echo "Android: install $dir/ca.crt as a CA certificate), then: docker compose -f docker/compose.yaml up --build"
