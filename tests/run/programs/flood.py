"""Writes to stdout without end."""
import sys

line = "9" * 1023 + "\n"
while True:
    sys.stdout.write(line)
