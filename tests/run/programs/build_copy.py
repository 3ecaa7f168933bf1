"""A build step: copies the source argv[1] to the executable argv[2] (made executable) and
appends its whole argv, as a JSON line, to the log argv[3]."""
import json
import os
import shutil
import sys

shutil.copyfile(sys.argv[1], sys.argv[2])
os.chmod(sys.argv[2], 0o755)
with open(sys.argv[3], "a") as log:
    log.write(json.dumps(sys.argv[1:]) + "\n")
