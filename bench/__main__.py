"""``python -m bench <subcommand>`` (from the repository root; ``--help`` lists the subcommands)."""

from bench.cli import main

main()
