# The API image: the project installed into python:3.11-slim, served by gunicorn.
# The same image runs the projector (`bohnanza projections follow`, see docker-compose.yml).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
COPY pyproject.toml README.md LICENSE ./
COPY domain ./domain
COPY projections ./projections
COPY replays ./replays
COPY api ./api
COPY docs/rules.md ./docs/rules.md
RUN pip install . \
    && useradd --create-home --uid 10001 bohnanza

USER bohnanza
ENV BOHNANZA_DATA_DIR=/home/bohnanza/data
EXPOSE 8000

# Several worker processes, a few threads each (gunicorn's gthread worker, keeping a busy
# connection on its thread: api/worker.py). No --preload: every worker imports the app and
# builds its application and store connections after the fork (ARCHITECTURE §7, §11).
CMD ["gunicorn", "--workers", "4", "--worker-class", "api.worker.KeepAliveThreadWorker", \
     "--threads", "4", \
     "--bind", "0.0.0.0:8000", "--access-logfile", "-", "api.app:create_app()"]
