"""What the `pipeline` command does, apart from declaring its commands and options.

`pipeline.cli` declares each command and makes one call into this package (or the layers
below). Here: `helptext` (how `--help` shows things), `options` (shared options and their
checks), `common` (the steps every command takes alike), `running`, `reporting` and
`searching` (the commands that do more than print one function's answer), `streams` (standard
streams kept from failing a command) and `exits` (every ending as one line and an exit status).
"""
