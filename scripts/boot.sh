#!/bin/sh
# Container entry: apply migrations (retrying while the database comes up), then exec gunicorn.
# `boot.sh worker [options]` runs a job worker instead (same image, e.g. a second container).
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
if [ "${1:-}" = "worker" ]; then
    shift
    exec bullscows worker --no-migrate "$@"
fi
export PROMETHEUS_MULTIPROC_DIR="${PROMETHEUS_MULTIPROC_DIR:-$(mktemp -d)}"
exec gunicorn --config "$(python -c "import service, os; print(os.path.join(os.path.dirname(service.__file__), 'gunicorn_conf.py'))")" \
    --bind "0.0.0.0:${PORT:-8000}" --workers "${WEB_CONCURRENCY:-2}" \
    service.wsgi:app
