"""Answers with its arguments (after the script's name), as a JSON list."""
import json
import sys

print(json.dumps(sys.argv[1:]))
