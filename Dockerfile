# syntax=docker/dockerfile:1
# Multi-stage: build a wheel with its dependencies, then run as an unprivileged user.
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
USER app
WORKDIR /home/app
# Compile and cache the numba kernels once, at build time of the image layer owned by the user.
ENV NUMBA_CACHE_DIR=/home/app/.numba-cache
RUN bullscows next --game mastermind >/dev/null
ENTRYPOINT ["bullscows"]
CMD ["tree", "--game", "mastermind", "--strategy", "minimax"]
