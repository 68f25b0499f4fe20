#!/bin/sh
# After ostium's files are unpacked, on install and on upgrade
# (dpkg: configure [old version]; rpm: 1 on install, 2 on upgrade).
set -e

case "$1" in
  configure|1|2) ;;
  *) exit 0 ;;
esac

# The data directory: the service user's alone. Only its top is set:
# what lies beneath is the node's, made 0600 by it.
install -d -m 0700 -o ostium -g ostium /var/lib/ostium
chown ostium:ostium /var/lib/ostium
chmod 0700 /var/lib/ostium

# The node key, which seals the catalog's secrets, apart from the data
# and from the configuration: root's alone, handed to the service by
# systemd (LoadCredential=node-key). Made once; a key already there
# (the one a cluster's nodes share) is never replaced.
if [ ! -e /etc/ostium/node.key ]; then
  umask 077
  head -c 32 /dev/urandom | base64 >/etc/ostium/node.key.new
  mv /etc/ostium/node.key.new /etc/ostium/node.key
  echo "ostium: made a node key in /etc/ostium/node.key; back it up apart from /var/lib/ostium (nodes sharing a catalog need the same key)"
fi

upgrade=
case "$1" in
  configure) [ -z "$2" ] || upgrade=yes ;;
  2) upgrade=yes ;;
esac

if [ -d /run/systemd/system ]; then
  systemctl daemon-reload >/dev/null 2>&1 || true
  # An upgrade restarts a running node on the new binary; an install
  # starts nothing: the operator first reads the configuration.
  if [ -n "$upgrade" ]; then
    systemctl try-restart ostium.service >/dev/null 2>&1 || true
  fi
fi
if [ -z "$upgrade" ]; then
  echo "ostium: installed, not started. Review /etc/ostium/ostium.yaml, then: systemctl enable --now ostium"
  echo "ostium: the first start prints the root credentials once: journalctl -u ostium | grep OSTIUM_ROOT"
fi
exit 0
