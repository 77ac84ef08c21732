# One image for every Arena process: the referee service, Celery workers, bot servers, the CLI.
FROM python:3.11-slim
WORKDIR /app
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
COPY pyproject.toml README.md ./
COPY arena ./arena
COPY referee ./referee
COPY workers ./workers
COPY bots ./bots
RUN pip install --no-cache-dir . && useradd --create-home arena
USER arena
# Runs are written where the process starts (./arena-runs): the user's own directory, which the
# compose file's cli service mounts as a volume so results outlive the container.
WORKDIR /home/arena
ENTRYPOINT ["arena"]
CMD ["--help"]
