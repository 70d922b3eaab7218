"""The `approxlab` subcommands, one module per command group."""
