"""Jobs whose tasks were lost get them sent again.

Tasks are acknowledged late, so a task whose worker dies is redelivered once the visibility timeout has passed.
One loss no redelivery mends: kombu's Redis transport pops a message before it records it as unacknowledged
(kombu#305), so a worker killed in between loses it, and its job would wait forever. So every worker sweeps: when
the queues have stayed empty, and a job has not moved, for longer than any redelivery takes (the visibility
timeout and three sweeps), nothing can still bring that job's tasks, and the worker sends them again. The claim
is made in the graph, so one worker sends each job's tasks; sending them twice would cost work, never
correctness, since every task is idempotent. A manifest repository's fetch is sent again from the entry its job
keeps; where the entry's URL holds a credential, which no job keeps, the job fails saying to run the manifest again.
"""

from __future__ import annotations

import logging
import time
from typing import ClassVar

from celery import bootsteps
from spider.core.errors import SpiderError
from spider.core.settings import QUEUES, Settings
from spider.indexer.distributed.tasks import app, send_job_tasks_again, task_settings
from spider.indexer.graph import jobs, neo4j_local

logger = logging.getLogger(__name__)


def queues_empty() -> bool:
    """Whether no index task waits in any queue (a queue never declared holds none)."""
    with app.connection_for_read() as connection:
        for queue in QUEUES:
            channel = connection.channel()
            try:
                if channel.queue_declare(queue=queue, passive=True).message_count:
                    return False
            except connection.channel_errors:
                pass
            finally:
                channel.close()
    return True


class StalledJobSweep(bootsteps.StartStopStep):
    """A worker's sweep for stalled jobs, on the worker's timer (in its main process, which never touches the
    task processes' Neo4j driver: each sweep opens its own), with the settings of the command that started the
    worker (`sweep_for`); added to a worker as it is, with the environment's, read as the worker starts it."""

    requires = {"celery.worker.components:Timer"}
    configured: ClassVar[Settings | None] = None  # set by `sweep_for`

    def __init__(self, parent, **kwargs) -> None:
        super().__init__(parent, **kwargs)
        self.settings = self.configured if self.configured is not None else task_settings()
        celery = self.settings.celery
        self.every = celery.sweep_interval
        self.idle_after = celery.visibility_timeout + 3 * celery.sweep_interval
        self.empty_since: float | None = None
        self.timer = None

    def start(self, parent) -> None:
        self.timer = parent.timer.call_repeatedly(self.every, self.sweep, priority=10)

    def stop(self, parent) -> None:
        if self.timer is not None:
            self.timer.cancel()

    def sweep(self) -> None:
        try:
            if not queues_empty():
                self.empty_since = None
                return
            now = time.monotonic()
            self.empty_since = self.empty_since or now
            if now - self.empty_since >= self.idle_after:
                self.send_stalled_jobs_again()
        except Exception:  # a broken sweep must not stop the worker; the next one tries again
            logger.exception("the sweep for stalled index jobs failed")

    def send_stalled_jobs_again(self) -> None:
        with neo4j_local.open_graph(self.settings) as store:
            for job in jobs.claim_stalled(store, self.idle_after):
                try:
                    send_job_tasks_again(store, job)
                except Exception as exc:  # its repository is gone, say: the job fails with why, once
                    why = str(exc) if isinstance(exc, SpiderError) else f"{type(exc).__name__}: {exc}"
                    jobs.fail_job(store, job["id"], f"its tasks were lost and could not be sent again: {why}")
                    continue
                logger.warning("job %s (%s @ %s) had not moved for %d s with no task queued: its tasks were "
                               "lost, and were sent again", job["id"], job["repo"], job["commit"][:12] or job["rev"],
                               self.idle_after)


def sweep_for(settings: Settings) -> type[StalledJobSweep]:
    """The sweep, as a step for `app.steps["worker"]` (Celery makes its steps itself, so their settings go with
    the class): its timings and its graph are those `settings` name."""
    return type(StalledJobSweep.__name__, (StalledJobSweep,),
                {"configured": settings, "name": StalledJobSweep.name, "__module__": __name__})
