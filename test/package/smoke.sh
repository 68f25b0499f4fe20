#!/usr/bin/env bash
# The package as an operator meets it: builds the .deb for this machine's
# architecture (deploy/package/build.sh), installs it with dpkg, runs
# `ostium serve` from the installed paths as the ostium user with the
# configuration and node key handed over as systemd would
# (CREDENTIALS_DIRECTORY), makes a bucket and puts and gets an object
# with the aws cli and the printed root credentials, then checks that an
# upgrade keeps a changed configuration, that removing keeps the
# configuration, key and data, and that purging deletes them (as
# deploy/README.md says). The .rpm is checked with rpm -qlp where rpm is
# installed. Needs root (it installs a package); skips without.
set -euo pipefail
cd "$(dirname "$0")/../.."

say() { printf 'package smoke: %s\n' "$*"; }
fail() { say "FAIL: $*" >&2; exit 1; }

if [ "$(id -u)" != 0 ]; then
  say "skipped: installing a package needs root (run as root, as CI does)"
  exit 0
fi
if ! command -v dpkg >/dev/null; then
  say "skipped: no dpkg on this machine (the .deb is checked on Debian and Ubuntu)"
  exit 0
fi
if dpkg-query -W -f='${Status}' ostium 2>/dev/null | grep -q installed; then
  # Never purge a package someone installed on purpose: only CI's own
  # machine, where a run cut short may have left one.
  [ -n "${CI:-}" ] || fail "an ostium package is installed here; purge it first (dpkg --purge ostium) or run in CI"
  say "purging an ostium package left by an earlier run"
  dpkg --purge ostium >/dev/null
fi
aws=$(command -v aws || echo "${XDG_CACHE_HOME:-$HOME/.cache}/ostium-ci/venv/bin/aws")
[ -x "$aws" ] || fail "no aws cli (.ci/run installs it in its venv)"

work=$(mktemp -d)
pid=
cleanup() {
  status=$?
  [ -z "$pid" ] || kill "$pid" 2>/dev/null || true
  if [ $status != 0 ]; then
    [ ! -f "$work/serve.log" ] || { say "the node's output:"; tail -40 "$work/serve.log"; }
    dpkg --purge ostium >/dev/null 2>&1 || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

arch=$(dpkg --print-architecture)
formats=deb
command -v rpm >/dev/null && formats="deb rpm"
say "building $formats for $arch"
ARCHES=$arch FORMATS=$formats DIST="$work/dist" deploy/package/build.sh >"$work/build.log" 2>&1 ||
  { tail -30 "$work/build.log"; fail "deploy/package/build.sh"; }
version=$(cat "$work/dist/VERSION")
deb=$(ls "$work"/dist/*.deb)

if command -v rpm >/dev/null; then
  rpmfile=$(ls "$work"/dist/*.rpm)
  files=$(rpm -qlp "$rpmfile" 2>/dev/null)
  for f in /usr/bin/ostium /usr/lib/systemd/system/ostium.service /etc/ostium/ostium.yaml /var/lib/ostium; do
    grep -qx "$f" <<<"$files" || fail "the .rpm lacks $f"
  done
  [ "$(rpm -qcp "$rpmfile" 2>/dev/null)" = /etc/ostium/ostium.yaml ] || fail "the .rpm's config files are not just /etc/ostium/ostium.yaml"
  rpm -qp --scripts "$rpmfile" 2>/dev/null | grep -q 'useradd --system' || fail "the .rpm's scripts make no ostium user"
  rpm -qlvp "$rpmfile" 2>/dev/null | grep -q '^drwx------ .* ostium *ostium .* /var/lib/ostium$' || fail "the .rpm's /var/lib/ostium is not 0700 ostium:ostium"
  say "rpm: files, config file and scripts as expected"
else
  say "rpm is not installed: the .rpm is not checked"
fi

say "dpkg -i $(basename "$deb")"
dpkg -i "$deb" >"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; fail "dpkg -i"; }
getent passwd ostium >/dev/null || fail "no ostium user"
[ "$(stat -c '%a %U:%G' /var/lib/ostium)" = "700 ostium:ostium" ] || fail "/var/lib/ostium is $(stat -c '%a %U:%G' /var/lib/ostium)"
[ "$(stat -c '%a %U' /etc/ostium/node.key)" = "600 root" ] || fail "/etc/ostium/node.key is $(stat -c '%a %U' /etc/ostium/node.key)"
[ "$(stat -c '%a %U' /etc/ostium/ostium.yaml)" = "600 root" ] || fail "/etc/ostium/ostium.yaml is $(stat -c '%a %U' /etc/ostium/ostium.yaml)"
grep -qx 'ExecStart=/usr/bin/ostium serve --config %d/ostium.yaml' /usr/lib/systemd/system/ostium.service || fail "the unit does not run /usr/bin/ostium"
grep -qx /etc/ostium/ostium.yaml /var/lib/dpkg/info/ostium.conffiles || fail "/etc/ostium/ostium.yaml is not a conffile"
/usr/bin/ostium version | grep -qF "ostium $version (commit $(git rev-parse --short=12 HEAD)" ||
  fail "ostium version says '$(/usr/bin/ostium version)', not $version at $(git rev-parse --short=12 HEAD)"
/usr/bin/ostium config validate /etc/ostium/ostium.yaml >/dev/null || fail "the packaged configuration does not validate"

# What LoadCredential= does: private copies, the service user's, in a
# directory named by CREDENTIALS_DIRECTORY.
cred="$work/credentials"
install -d -m 0700 -o ostium -g ostium "$cred"
install -m 0600 -o ostium -g ostium /etc/ostium/ostium.yaml "$cred/ostium.yaml"
install -m 0600 -o ostium -g ostium /etc/ostium/node.key "$cred/node-key"
chmod 0711 "$work"
read -r s3port consoleport < <(python3 -c 'import socket
s=[socket.socket() for _ in range(2)]
[x.bind(("127.0.0.1",0)) for x in s]
print(*[x.getsockname()[1] for x in s])')
say "ostium serve as the ostium user on 127.0.0.1:$s3port"
setpriv --reuid=ostium --regid=ostium --init-groups --reset-env \
  env CREDENTIALS_DIRECTORY="$cred" /usr/bin/ostium serve --config "$cred/ostium.yaml" \
  --listen "127.0.0.1:$s3port" --console-listen "127.0.0.1:$consoleport" >"$work/serve.log" 2>&1 &
pid=$!
for _ in $(seq 1 300); do
  curl -fsS "http://127.0.0.1:$s3port/health/ready" >/dev/null 2>&1 && break
  kill -0 "$pid" 2>/dev/null || fail "ostium serve exited"
  sleep 0.1
done
curl -fsS "http://127.0.0.1:$s3port/health/ready" >/dev/null || fail "not ready within 30 s"
AWS_ACCESS_KEY_ID=$(sed -n 's/^ *OSTIUM_ROOT_ACCESS_KEY=//p' "$work/serve.log")
AWS_SECRET_ACCESS_KEY=$(sed -n 's/^ *OSTIUM_ROOT_SECRET_KEY=//p' "$work/serve.log")
[ -n "$AWS_ACCESS_KEY_ID" ] && [ -n "$AWS_SECRET_ACCESS_KEY" ] || fail "the first start printed no root credentials"
export AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_DEFAULT_REGION=us-east-1 AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null
s3() { "$aws" --endpoint-url "http://127.0.0.1:$s3port" s3 "$@"; }
head -c 1048577 /dev/urandom >"$work/object"
s3 mb s3://smoke >/dev/null || fail "make a bucket"
s3 cp "$work/object" s3://smoke/dir/object >/dev/null || fail "put an object"
s3 cp s3://smoke/dir/object "$work/back" >/dev/null || fail "get the object"
cmp -s "$work/object" "$work/back" || fail "the object came back different"
[ -z "$(find /var/lib/ostium ! -user ostium)" ] || fail "files in /var/lib/ostium not the ostium user's: $(find /var/lib/ostium ! -user ostium | head -3)"
[ ! -e /var/lib/ostium/node.key ] || fail "a node key in the data directory"
say "S3: bucket made, 1 MiB object put and read back"
kill -TERM "$pid"
wait "$pid" || fail "ostium serve did not stop cleanly on SIGTERM"
pid=

# An upgrade (here the same package again) keeps a changed configuration
# and the node key.
echo "# changed by the operator" >>/etc/ostium/ostium.yaml
keysum=$(sha256sum </etc/ostium/node.key)
dpkg -i "$deb" >"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; fail "dpkg -i again"; }
grep -qx "# changed by the operator" /etc/ostium/ostium.yaml || fail "an upgrade replaced the changed configuration"
[ "$(sha256sum </etc/ostium/node.key)" = "$keysum" ] || fail "an upgrade replaced the node key"

dpkg -r ostium >"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; fail "dpkg -r"; }
[ ! -e /usr/bin/ostium ] && [ ! -e /usr/lib/systemd/system/ostium.service ] || fail "dpkg -r left the binary or the unit"
[ -f /etc/ostium/ostium.yaml ] && [ -f /etc/ostium/node.key ] || fail "dpkg -r removed the configuration or the node key"
[ -n "$(ls -A /var/lib/ostium)" ] || fail "dpkg -r removed the data"
say "dpkg -r: binary and unit gone; configuration, node key and data kept"

dpkg --purge ostium >"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; fail "dpkg --purge"; }
[ ! -e /etc/ostium ] || fail "dpkg --purge left /etc/ostium: $(ls -A /etc/ostium)"
[ ! -e /var/lib/ostium ] || fail "dpkg --purge left /var/lib/ostium"
getent passwd ostium >/dev/null || fail "dpkg --purge removed the ostium user (it is kept: files elsewhere may be its)"
say "dpkg --purge: /etc/ostium and /var/lib/ostium gone, the ostium user kept"
say "passed ($version)"
