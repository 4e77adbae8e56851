# The service's image: the package and its dependencies in a virtual environment built in one stage, and
# run by an unprivileged user in the next, with numba's kernels compiled into the image.
#
#   docker build -t bullscows .
#   docker run -p 8000:8000 bullscows                       # SQLite in the container's instance folder
#   docker run -e DATABASE_URL=postgresql+psycopg://user@db:5432/bullscows -p 8000:8000 bullscows
#
# BASE is any image with Python 3.11+ as `python3` and its venv module (the official image by default;
# tests/container builds on one made from Debian's packages).  Where the package index is reached through a
# proxy with its own certificate authority, hand the bundle in as a build secret (it never enters a layer):
#   docker build --secret id=pip-cert,src=/etc/ssl/certs/ca-certificates.crt -t bullscows .
ARG BASE=python:3.11-slim

FROM ${BASE} AS build
RUN python3 -m venv /opt/bullscows
ENV PATH=/opt/bullscows/bin:$PATH \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
COPY pyproject.toml README.md ./
COPY solver ./solver
COPY service ./service
RUN --mount=type=secret,id=pip-cert \
    if [ -s /run/secrets/pip-cert ]; then export PIP_CERT=/run/secrets/pip-cert; fi; \
    pip install . && pip uninstall -y pip

FROM ${BASE}
RUN useradd --create-home --uid 10001 app
COPY --from=build /opt/bullscows /opt/bullscows
WORKDIR /app
COPY alembic.ini ./
COPY migrations ./migrations
COPY scripts/boot.sh ./boot.sh
ENV PATH=/opt/bullscows/bin:$PATH \
    BULLSCOWS_MIGRATIONS_DIR=/app \
    BULLSCOWS_INSTANCE_PATH=/home/app/instance \
    NUMBA_CACHE_DIR=/home/app/.numba-cache \
    PORT=8000 \
    PYTHONUNBUFFERED=1
USER app
# Compile every kernel a request can run into numba's cache inside the image, so that the container's first
# search loads them rather than compiling them for half a minute (a solve that a shipped tree answers would
# compile nothing: warm_up runs each kernel on a tiny game).
RUN python3 -c "from service.engine import warm_up; warm_up()"
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s \
    CMD python3 -c "import os, sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:%s/readyz' % os.environ.get('PORT', '8000'), timeout=4).status != 200)"
ENTRYPOINT ["sh", "/app/boot.sh"]
