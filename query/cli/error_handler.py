"""The one error handler of `spider`, `spider-query` and the tools of `spider mcp`, and the --debug option that
widens it. It is also the CLI's door to the environment: every command runs inside `fail_cleanly`, which reads the
settings once (`Settings.from_env()`) and hands them to the command (`command_settings`); nothing under a
command reads the environment again."""

from __future__ import annotations

import functools
import logging
import os
import sys
import traceback
from typing import Any, Callable

import click
from spider.core.errors import SpiderError
from spider.core.redact import mask_secrets_of, redact, redacted_output
from spider.core.settings import Settings
from spider.core.terminal import one_line
from spider.indexer.failures import foreseen, unexpected

DEBUG = "debug"  # the key of `--debug` in the click context's meta, shared by every command under the root
SETTINGS = "spider.settings"  # the key of the command's settings in the click context's meta
EXIT_CODES = {SpiderError: 2}  # a foreseen failure's exit code, by class: the first the error is an instance of
UNEXPECTED_EXIT = 70  # EX_SOFTWARE: a failure spider did not foresee (a bug), unlike a user-facing one (2)
BROKEN_PIPE_EXIT = 141  # what a shell reports for a writer SIGPIPE ends: `spider ... | head` stopped reading


def _remember_debug(context: click.Context, _option: click.Parameter, value: bool) -> None:
    context.meta[DEBUG] = value


debug_option = click.option(
    "--debug", is_flag=True, expose_value=False, is_eager=True, callback=_remember_debug,
    help="On an error, also print its traceback (secrets masked). SPIDER_DEBUG=1 does the same.",
)


def command_settings() -> Settings:
    """The settings of the command running now, which `fail_cleanly` read from the environment as it started."""
    return click.get_current_context().meta[SETTINGS]


def _print_traceback(debug: bool) -> None:
    if debug:
        click.echo(redact(traceback.format_exc()).rstrip(), err=True)


def fail_cleanly(command: Callable) -> Callable:
    """The one error handler: a failure becomes one line on stderr and a non-zero exit, never a traceback (but
    with --debug or SPIDER_DEBUG=1, after a traceback); a user-facing SpiderError exits 2, an unexpected exception
    70 (so does a BaseException such as pyo3's PanicException, a Rust panic), a reader that closed the pipe 141
    in silence. Everything the command prints or logs has its secrets masked (`indexer.redact`). The settings are
    read here, once per command (`command_settings`)."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        context = click.get_current_context()
        prog = context.find_root().info_name or "spider"
        settings = context.meta[SETTINGS] = Settings.from_env()
        mask_secrets_of(settings)
        debug = context.meta.get(DEBUG) or settings.debug
        # The driver logs every retried transient error (a deadlock between concurrent write batches, which it
        # retries) as a warning with a multi-line lock dump, and a lost connection as an error; only what it gives
        # up on matters to a user, and that reaches this handler as an exception (`foreseen`).
        logging.getLogger("neo4j").setLevel(logging.CRITICAL)
        try:
            with redacted_output():
                return command(*args, **kwargs)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise  # click's own: it prints them as usage errors
        except BrokenPipeError:
            # The reader left (`| head`): nothing more can be said to it, and Python's flush at exit must not try.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(BROKEN_PIPE_EXIT)
        except KeyboardInterrupt:
            click.echo(f"{prog}: interrupted (nothing half-written is visible: the snapshot stays incomplete)", err=True)
            sys.exit(130)
        except SystemExit:
            raise
        except BaseException as exc:
            _print_traceback(debug)
            known = foreseen(exc, settings)
            if known is not None:
                click.echo(f"{prog}: error: {one_line(str(known))}", err=True)
                sys.exit(next(code for kind, code in EXIT_CODES.items() if isinstance(known, kind)))
            hint = "" if debug else f" (run `{prog} --debug ...` or set SPIDER_DEBUG=1 for the traceback)"
            click.echo(f"{prog}: error: {unexpected(exc)}{hint}", err=True)
            sys.exit(UNEXPECTED_EXIT)

    return wrapper
