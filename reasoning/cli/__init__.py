"""The ``kgground`` command line: a thin layer over the library.

Every command calls library functions and turns kgground's errors into clear messages
(exit code 1) instead of tracebacks; Ctrl-C ends any command with exit code 130
(``console``). One module per command group; ``common`` holds what they share (settings
from the environment, the options, opening the KB), ``console`` what happens around every
command (warnings and first-use notices on stderr, Ctrl-C). A new command group is a
module here with its click commands, added to ``cli`` below.
"""

from __future__ import annotations

from typing import Any

import click

from kb.errors import KGGroundError
from reasoning.cli import ask, chain, console, gate, link, mirror, query, read, serve, sparql
from reasoning.cli import eval as eval_cli
from reasoning.cli import querygen as querygen_cli
from reasoning.cli import validate as validate_cli


class _Commands(click.Group):
    """The command group: every command runs with the library's warnings and notices on
    stderr, ends on a kgground error with its message (exit code 1) and on Ctrl-C with
    exit code 130 (``console``)."""

    def invoke(self, ctx: click.Context) -> Any:
        with console.reporting():
            try:
                return super().invoke(ctx)
            except KeyboardInterrupt:
                console.interrupted()
            except KGGroundError as exc:      # raised outside a command's fail_clearly
                raise click.ClickException(console.error_text(exc)) from exc
            except OSError as exc:            # a file given that cannot be read or written
                raise click.ClickException(console.os_error_text(exc)) from exc


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="kgground")
def cli() -> None:
    """kgground: ground LLM answers in Wikidata or your own knowledge graph."""


for command in (mirror.mirror, read.entity_cmd, read.search_cmd, read.triples_cmd,
                sparql.sparql_cmd, link.link_cmd, serve.serve, chain.chain_cmd,
                gate.gate_cmd, query.query_cmd, ask.ask_cmd):
    cli.add_command(command)
cli.add_command(validate_cli.validate_cmd)
cli.add_command(querygen_cli.querygen_group)
cli.add_command(eval_cli.eval_cmd)


def main() -> None:
    """The ``kgground`` console script (and ``python -m reasoning``)."""
    try:
        cli(prog_name="kgground")
    except SystemExit as exc:
        if exc.code == console.INTERRUPTED:
            console.leave(console.INTERRUPTED)
        raise
    except KeyboardInterrupt:        # between commands: while click reads the arguments
        console.leave(console.INTERRUPTED)
