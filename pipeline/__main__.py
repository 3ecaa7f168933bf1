"""`python -m pipeline` runs the command-line interface."""

from pipeline.cli import main

main()
