"""The ``kgground`` command line: a thin layer over the library.

Every command calls library functions and turns kgground's errors into clear messages
(exit code 1) instead of tracebacks. One module per command group; ``common`` holds what
they share (settings from the environment, the options, opening the KB). A new command
group is a module here with its click commands, added to ``cli`` below.
"""

from __future__ import annotations

import click

from reasoning.cli import ask, chain, gate, link, mirror, query, read, serve, sparql
from reasoning.cli import eval as eval_cli
from reasoning.cli import querygen as querygen_cli
from reasoning.cli import validate as validate_cli


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
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
    cli(prog_name="kgground")
