"""How one program runs: the unit of work (`jobs`), the compiled launcher (`launcher`), the one
contained runner under limits and the sandbox (`contained`), one program on one case
(`external`), process bookkeeping (`processes`), the sandbox setting (`isolation`) and what the
containment costs per case (`overhead`). Everything above (packages, run, stress) runs programs
through here; nothing here knows a problem.
"""
