"""Running solvers: solving judge files (`solve`), and runs over the stored cases (`runner`)
through an executor (`executors`, `worker`), with external programs (`external`, `solvers`)."""
