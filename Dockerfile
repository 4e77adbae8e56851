# syntax=docker/dockerfile:1
# Build wheels in one stage, run the service as an unprivileged user in the next.
FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY solver ./solver
COPY service ./service
RUN pip install --no-cache-dir --upgrade pip && pip wheel --no-cache-dir --wheel-dir /wheels .

FROM python:3.11-slim
RUN useradd --create-home --uid 10001 app
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir /wheels/* && rm -rf /wheels
WORKDIR /app
COPY alembic.ini ./
COPY migrations ./migrations
COPY scripts/boot.sh ./boot.sh
ENV BULLSCOWS_MIGRATIONS_DIR=/app \
    BULLSCOWS_INSTANCE_PATH=/home/app/instance \
    NUMBA_CACHE_DIR=/home/app/.numba-cache \
    PYTHONUNBUFFERED=1
USER app
# Compile the numba kernels once, into the image, so that the first request is not slow (a solve that a
# shipped tree answers would compile no search kernel: warm_up runs every kernel a request can).
RUN python -c "from service.engine import warm_up; warm_up()"
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s \
    CMD python -c "import urllib.request,sys; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/readyz').status != 200)"
ENTRYPOINT ["sh", "/app/boot.sh"]
