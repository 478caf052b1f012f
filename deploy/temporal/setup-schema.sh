#!/bin/sh
# Creates Temporal's two databases on PostgreSQL and brings their schemas to the version the server
# needs; run again, it changes nothing. The one-shot `temporal-schema` job of docker-compose.yml
# (temporalio/admin-tools) and the cluster test both run exactly this.
# Needs: temporal-sql-tool on PATH; POSTGRES_SEEDS, DB_PORT, POSTGRES_USER, POSTGRES_PWD; SCHEMA_DIR
# (the server's schema/postgresql/v12, /etc/temporal/schema/postgresql/v12 in admin-tools).
set -eu
for db in "${DBNAME:-temporal}:temporal" "${VISIBILITY_DBNAME:-temporal_visibility}:visibility"; do
  name=${db%%:*}
  schema=${db#*:}
  sql() { temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_SEEDS" -p "${DB_PORT:-5432}" -u "$POSTGRES_USER" --pw "$POSTGRES_PWD" --db "$name" "$@"; }
  sql create-database 2>/dev/null || true
  sql setup-schema -v 0.0
  sql update-schema -d "$SCHEMA_DIR/$schema/versioned"
  echo "temporal schema: $name up to date"
done
