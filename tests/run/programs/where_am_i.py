"""Answers with its user id and whether it can see the folder named by its argument
`--look=FOLDER` (given that way so the sandbox does not take it for a path to show), as JSON."""
import json
import os
import sys

folder = sys.argv[1].partition("=")[2]
print(json.dumps({"uid": os.getuid(), "sees": os.path.exists(folder)}))
