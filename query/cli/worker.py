"""`spider worker`: a Celery worker for index jobs."""

from __future__ import annotations

import click
from spider.cli.error_handler import command_settings, fail_cleanly
from spider.core.errors import ConfigurationError, InvalidInput
from spider.core.settings import BROKER_ENV, QUEUES


@click.command()
@click.option("--queues", default=",".join(QUEUES), show_default=True,
              help="Queues to consume: parse (tree-sitter, CPU), write (resolve + Neo4j), embed (CPU/GPU).")
@click.option("--concurrency", "-c", type=click.IntRange(1, 256), help="Worker processes (default: CPU count).")
@click.option("--name", default="spider@%h", show_default=True,
              help="Celery node name (%h: host name); health checks ping it (`celery -A spider.indexer.distributed.tasks inspect ping -d NAME`).")
@click.option("--loglevel", default="INFO", show_default=True)
@fail_cleanly
def worker(queues: str, concurrency: int | None, name: str, loglevel: str) -> None:
    """Run a Celery worker for index jobs (needs SPIDER_BROKER_URL; the Neo4j and Qdrant settings must reach
    the same databases as the CLI that enqueues). Tasks are acknowledged late: a worker killed mid-task has its
    task redelivered to another; a job whose tasks were lost altogether gets them sent again once the queues
    have been empty, and it idle, for longer than SPIDER_VISIBILITY_TIMEOUT."""
    from spider.indexer.distributed import tasks
    from spider.indexer.distributed.stalled import sweep_for

    settings = command_settings()
    if not settings.celery.broker_url:
        raise ConfigurationError(f"a worker needs a broker: set {BROKER_ENV} (e.g. redis://localhost:6379/0)")
    tasks.ensure_broker()
    unknown = set(queues.split(",")) - set(QUEUES)
    if unknown:
        raise InvalidInput(f"unknown queue(s) {', '.join(sorted(unknown))} (choose from {', '.join(QUEUES)})")
    tasks.app.steps["worker"].add(sweep_for(settings))
    args = ["worker", "--queues", queues, "--loglevel", loglevel, "--hostname", name]
    tasks.app.worker_main(args + (["--concurrency", str(concurrency)] if concurrency else []))
