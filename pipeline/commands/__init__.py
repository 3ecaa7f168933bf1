"""What the `pipeline` command does, apart from declaring its commands (`pipeline.cli`)."""
