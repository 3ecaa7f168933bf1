"""Allocates memory without bound, one touched megabyte at a time."""
blocks = []
while True:
    blocks.append(bytearray(1 << 20))
