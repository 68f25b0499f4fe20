#!/bin/sh
# Before ostium's files are unpacked: the service's system user and
# group, which own /var/lib/ostium. Made once; an existing one is kept.
set -e
if ! getent group ostium >/dev/null; then
  groupadd --system ostium
fi
if ! getent passwd ostium >/dev/null; then
  useradd --system --gid ostium --home-dir /var/lib/ostium --no-create-home \
    --shell /usr/sbin/nologin --comment "Ostium S3 gateway" ostium
fi
exit 0
