"""Reports what it sees: its working directory, that directory's listing before it writes a
file there, its environment variable names and its stdin; then leaves a file behind."""
import json
import os
import sys

report = {"cwd": os.getcwd(), "listing": sorted(os.listdir(".")),
          "env": sorted(os.environ), "stdin": sys.stdin.read()}
with open("litter.txt", "w") as out:
    out.write("left behind\n")
print(json.dumps(report))
