#!/bin/sh
# Dump the svoi-kozyri database into FOLDER (pg_dump's custom format, one file a
# run), keeping the newest $SVOI_KOZYRI_BACKUPS_KEEP (default 14).  The database
# is $SVOI_KOZYRI_DATABASE (the units' environment file); the dump is consistent
# while the game runs (one snapshot).  Restore: deploy/restore.sh.
#   deploy/backup.sh /var/lib/svoi-kozyri/backups
set -eu
folder=${1:?usage: backup.sh FOLDER}
url=${SVOI_KOZYRI_DATABASE:?SVOI_KOZYRI_DATABASE is not set}
keep=${SVOI_KOZYRI_BACKUPS_KEEP:-14}
# libpq takes postgresql://, not SQLAlchemy's postgresql+psycopg://
url=$(printf '%s' "$url" | sed 's|^postgresql+[a-z0-9]*://|postgresql://|')
mkdir -p "$folder"
umask 077
name="svoi-kozyri-$(date -u +%Y%m%dT%H%M%SZ).dump"
pg_dump --format=custom --no-owner --file="$folder/$name.part" --dbname="$url"
mv "$folder/$name.part" "$folder/$name"
echo "backup: $folder/$name"
# the newest $keep dumps stay (their names sort by time)
ls -1 "$folder" | grep '^svoi-kozyri-.*\.dump$' | sort -r | tail -n +"$((keep + 1))" |
    while read -r old; do rm -f "$folder/$old"; done
