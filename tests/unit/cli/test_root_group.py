"""`spider` holds every command, the query side's included: `spider query` is the command `spider-query` runs."""

from __future__ import annotations

from click.testing import CliRunner
from spider.cli.ask import query_command
from spider.cli.main import main


def test_spider_query_is_the_command_spider_query_runs():
    runner = CliRunner()
    through_spider = runner.invoke(main, ["query", "--help"], prog_name="spider")
    alone = runner.invoke(query_command, ["--help"], prog_name="spider-query")
    assert through_spider.exit_code == alone.exit_code == 0
    assert through_spider.output.replace("spider query", "spider-query") == alone.output


def test_every_command_is_listed_under_spider():
    assert {"cypher", "eval", "index", "jobs", "mcp", "models", "neo4j", "org", "query", "snapshots",
            "train-selector", "worker"} == set(main.commands)
