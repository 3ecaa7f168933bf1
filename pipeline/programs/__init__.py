"""How one program runs: jobs, the launcher, the one contained runner (`contained`), one program
on one case (`external`), builds (`languages`) and checkers; nothing here knows a problem.
"""
