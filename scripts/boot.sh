#!/bin/sh
# Container entry: apply migrations (retrying while the database comes up), then exec gunicorn.
set -e
tries=0
until bullscows db upgrade; do
    tries=$((tries + 1))
    if [ "$tries" -ge 20 ]; then
        echo "boot: database still unavailable after $tries tries" >&2
        exit 1
    fi
    echo "boot: database not ready, retrying in 3 s" >&2
    sleep 3
done
exec gunicorn --bind 0.0.0.0:8000 --workers "${WEB_CONCURRENCY:-2}" --timeout 120 \
    --access-logfile - service.wsgi:app
