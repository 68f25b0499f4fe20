#!/bin/sh
# Before ostium's files go (dpkg: remove, or upgrade; rpm: 0 when the
# package is erased, 1 on upgrade): an erase stops and disables the
# service; an upgrade leaves it to postinstall's restart.
set -e
case "$1" in
  remove|0)
    if [ -d /run/systemd/system ]; then
      systemctl disable --now ostium.service >/dev/null 2>&1 || true
    fi
    ;;
esac
exit 0
