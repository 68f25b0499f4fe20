#!/bin/sh
# After ostium's files went. Removing the package (dpkg -r, rpm -e)
# keeps the configuration, the node key and the data in
# /var/lib/ostium. Only `dpkg --purge` deletes them: the configuration
# and node key in /etc/ostium and the data directory /var/lib/ostium
# (its catalog and objects when it holds them). The ostium user and
# group stay, as files elsewhere may still be theirs.
set -e
case "$1" in
  purge)
    rm -f /etc/ostium/ostium.yaml /etc/ostium/node.key /etc/ostium/node.key.new
    rmdir /etc/ostium 2>/dev/null || echo "ostium: /etc/ostium holds other files; left in place"
    if [ -d /var/lib/ostium ]; then
      echo "ostium: purge: deleting the data directory /var/lib/ostium"
      rm -rf /var/lib/ostium
    fi
    ;;
esac
if [ -d /run/systemd/system ]; then
  systemctl daemon-reload >/dev/null 2>&1 || true
fi
exit 0
