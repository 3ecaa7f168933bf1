"""`python -m pipeline` runs the command-line interface."""

from pipeline.entry import main

main()
