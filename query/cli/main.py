"""`spider`, the root command: every command of the indexer and of the query side, added here by name."""

from __future__ import annotations

import click
from spider.cli.ask import query_command
from spider.cli.cypher import run_cypher
from spider.cli.error_handler import debug_option
from spider.cli.eval import eval_command, train_selector_command
from spider.cli.index import index
from spider.cli.jobs import jobs_command
from spider.cli.mcp import mcp_command
from spider.cli.models import models
from spider.cli.neo4j import neo4j
from spider.cli.org import org
from spider.cli.snapshots import snapshots
from spider.cli.worker import worker


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="spider-code", prog_name="spider")
@debug_option
def main() -> None:
    """spider: index git repositories into a Neo4j code graph (Directory, File, Class, Function nodes;
    CONTAINS, IMPORTS, INVOKES, INHERITS relationships) for issue localisation with `spider query`.

    Neo4j: NEO4J_URI / NEO4J_USER / NEO4J_PASSWORD if set; otherwise a local Neo4j Community server on
    127.0.0.1 that spider builds and starts itself. Local state lives under SPIDER_HOME (default ~/.spider).
    """


# in the order `spider --help` lists them
main.add_command(run_cypher)
main.add_command(eval_command)
main.add_command(index)
main.add_command(jobs_command)
main.add_command(mcp_command)
main.add_command(models)
main.add_command(neo4j)
main.add_command(org)
main.add_command(query_command)
main.add_command(snapshots)
main.add_command(train_selector_command)
main.add_command(worker)
