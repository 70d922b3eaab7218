"""`python -m approxlab` runs the CLI."""

from approxlab.cli import main

main()
