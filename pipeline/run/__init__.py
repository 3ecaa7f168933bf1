"""Running solver stages: solving files, and (later) runs over stored corpora."""
