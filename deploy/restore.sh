#!/bin/sh
# Restore a dump made by backup.sh into the database $SVOI_KOZYRI_DATABASE
# (or the URL given second), replacing what it holds.  Stop every host first
# (systemctl stop svoi-kozyri), restore, then start them: the processes keep the
# tables in memory and would not see the restored ones otherwise.
#   deploy/restore.sh /var/lib/svoi-kozyri/backups/svoi-kozyri-20260101T000000Z.dump
set -eu
dump=${1:?usage: restore.sh DUMP [DATABASE-URL]}
url=${2:-${SVOI_KOZYRI_DATABASE:?SVOI_KOZYRI_DATABASE is not set}}
url=$(printf '%s' "$url" | sed 's|^postgresql+[a-z0-9]*://|postgresql://|')
[ -r "$dump" ] || { echo "restore: cannot read $dump" >&2; exit 1; }
pg_restore --list "$dump" >/dev/null  # a whole, readable dump, before anything is dropped
pg_restore --clean --if-exists --no-owner --single-transaction --exit-on-error \
    --dbname="$url" "$dump"
echo "restore: $dump -> database restored"
