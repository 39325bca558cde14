#!/usr/bin/env bash
# Restore drill (docs/runbooks/backups.md): a custom-format dump of the shop's database restored into a
# NEW database, then what the restored books hold. Run it monthly against production (source: a
# replica or the primary — pg_dump reads one consistent snapshot and blocks no writer), and in the fault
# suite (tests/faults/restore.test.ts), which then starts the shop on the copy.
#
#   scripts/restore-drill.sh SOURCE_URL TARGET_URL [DUMP_FILE]
#   scripts/restore-drill.sh postgres://shop@10.0.0.31/shop postgres://postgres@10.0.0.40/shop_drill_$(date +%Y%m%d)
#
# TARGET_URL's database must not exist yet (it is created; nothing is ever restored over a database).
# The dump is kept in DUMP_FILE (default: a temporary file, removed at the end).
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,12p' "$0" >&2; exit 2; }
source_url=$1
target_url=$2
dump=${3:-}
keep=1
if [ -z "$dump" ]; then dump=$(mktemp --suffix=.dump); keep=0; fi
cleanup() { [ "$keep" = 1 ] || rm -f "$dump"; }
trap cleanup EXIT

target_db=${target_url##*/}
target_db=${target_db%%\?*}
maintenance_url=${target_url%/*}/postgres
[[ "$target_db" =~ ^[a-z_][a-z0-9_]*$ ]] || { echo "restore-drill: target database name '$target_db' must be [a-z0-9_]" >&2; exit 2; }

started=$(date +%s)
echo "restore-drill: dumping (pg_dump -Fc) to $dump"
pg_dump --format=custom --no-owner --no-privileges --file="$dump" "$source_url"
echo "restore-drill: $(du -h "$dump" | cut -f1) in $(( $(date +%s) - started )) s; creating database $target_db"
psql "$maintenance_url" -v ON_ERROR_STOP=1 -qc "create database $target_db"
echo "restore-drill: restoring (pg_restore)"
pg_restore --no-owner --no-privileges --exit-on-error --jobs=2 --dbname="$target_url" "$dump"

# What the restored books hold: the shop started on them re-drives what was pending (the sweeper,
# decision 0019); the duplicate checks must all be 0.
psql "$target_url" -v ON_ERROR_STOP=1 -At -F ' ' <<'SQL'
select 'members', count(*) from users;
select 'sales', count(*) from sales;
select 'latest_sale_at', coalesce(max(created_at)::text, '-') from sales;
select 'latest_migration', coalesce(max(name), '-') from mikro_orm_migrations;
select 'outbox_unpublished', count(*) from outbox_events where published_at is null;
select 'mail_unsent', count(*) from mail_deliveries where status <> 'sent';
select 'payments_inbox_unprocessed', count(*) from stripe_events where processed_at is null;
select 'duplicate_sales', count(*) from (select stripe_session_id from sales group by 1 having count(*) > 1) d;
select 'sales_without_member', count(*) from sales s left join users u on u.id = s.user_id where s.user_id is not null and u.id is null;
SQL
echo "restore-drill: done in $(( $(date +%s) - started )) s. Start the shop on $target_url (a fresh Redis is fine) and check it (docs/runbooks/backups.md)."
