"""Command line: `build.py [build|check|serve|lab]`.

Maps every expected failure to a short message and an exit status, never a
traceback: 1 for content problems, 2 for bad command-line values.
"""

import argparse
import sys

from rollout_lab import DEFAULT_GROUP_SIZE, DEFAULT_SEED, DEFAULT_TEMPERATURE
from sitegen.build_command import run_build
from sitegen.lab_command import render_lab_output


def parse_arguments(argv: list[str] | None) -> argparse.Namespace:
    """Read the command line."""
    parser = argparse.ArgumentParser(prog="build.py", description="Build the Rollouts tutorial site.")
    commands = parser.add_subparsers(dest="command")

    lab = commands.add_parser("lab", help="run the toy lab once and print its record")
    # Strings on purpose: the core parses and checks them, so the CLI reports
    # exactly what the browser lab would show for the same input.
    lab.add_argument("--temperature", default=str(DEFAULT_TEMPERATURE), metavar="T")
    lab.add_argument("--group-size", default=str(DEFAULT_GROUP_SIZE), metavar="K")
    lab.add_argument("--seed", default=str(DEFAULT_SEED), metavar="S")
    lab.add_argument("--format", choices=("json", "table"), default="json", dest="output_format")

    # `build.py` alone builds content/ into dist/.
    build = commands.add_parser("build", help="build the site (the default command)")
    build.add_argument("--content", default=None, metavar="DIR", help="content folder (default: content/)")
    build.add_argument("--out", default=None, metavar="DIR", help="output folder (default: dist/)")

    return parser.parse_args(argv)


def run_lab_command(arguments: argparse.Namespace) -> int:
    """Print one lab record; a bad setting is one line on stderr and exit status 2."""
    try:
        output = render_lab_output(arguments.temperature, arguments.group_size, arguments.seed, arguments.output_format)
    except ValueError as error:
        print(f"build.py lab: {error}", file=sys.stderr)
        return 2
    print(output)
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the command named on the command line and return the exit status."""
    arguments = parse_arguments(argv)
    if arguments.command == "lab":
        return run_lab_command(arguments)
    if arguments.command in (None, "build"):
        return run_build(getattr(arguments, "content", None), getattr(arguments, "out", None))
    raise SystemExit(f"build.py: command {arguments.command!r} is not available yet")
