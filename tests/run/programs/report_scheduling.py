"""Answers with its niceness and the CPUs it may run on, as JSON."""
import json
import os

print(json.dumps({"nice": os.nice(0), "cpus": sorted(os.sched_getaffinity(0))}))
