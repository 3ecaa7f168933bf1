"""Reports what it can reach, as JSON on stdout. Its input is JSON: {"paths": [...], "port": N,
"litter": true or false}. For each path: whether it exists and whether it can be read; then its
user id, whether it can connect to 127.0.0.1:N, and the contents of /tmp, where it then leaves
a file if "litter" is true."""
import json
import os
import socket
import sys

request = json.load(sys.stdin)
report = {"paths": {}, "uid": os.getuid(), "tmp": sorted(os.listdir("/tmp"))}
for path in request["paths"]:
    report["paths"][path] = {"exists": os.path.exists(path),
                             "readable": os.access(path, os.R_OK)}
try:
    with socket.create_connection(("127.0.0.1", request["port"]), timeout=2):
        report["connect"] = "connected"
except OSError as error:
    report["connect"] = type(error).__name__
if request.get("litter"):
    with open("/tmp/left-behind", "w") as out:
        out.write("from an earlier case\n")
print(json.dumps(report))
