"""What the `pipeline` command does, apart from declaring its commands and options.

`pipeline.cli` is the Typer application: each command's options, help and examples, and one
call into this package (or into the layers below) that does the work. Here:

- `helptext`: how `--help` shows arguments, options and examples;
- `options`: the options several commands share, their checks, and the settings of the
  top-level options (`--data-dir`, `--problems-dir`);
- `common`: the steps every command takes alike: failing with one line and an exit status,
  settling runs left by dead processes, finding the problem, starting the executor, choosing
  the runs a report looks at;
- `running`: `pipeline run` and `pipeline nightly`, and how their outcome becomes an exit
  status;
- `reporting`: `pipeline query`, `compare` and `strength`;
- `searching`: `pipeline stress`, `harden` and `hunt`;
- `streams`: the standard streams held and kept from failing a command (a closed or full
  standard output is said once, at the end);
- `exits`: the command line's one way of ending: every error a user can cause as one line and
  exit status 1 (2 for usage errors, 128 + N for signal N), a bug as `internal error` (70).
"""
