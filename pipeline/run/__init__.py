"""Running solvers over cases: solving judge files (`solve`), and runs over the stored cases
(`runner`) through an executor (`executors` local, `dask_executor`), whose workers (`worker`)
run each job through `pipeline.programs`; external programs are configured in `solvers`."""
