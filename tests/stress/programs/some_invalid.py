"""A generator for Polygon Sum: `some_invalid.py SEED` writes a count of 2 and two distinct
numbers on even seeds (valid), and a third number on odd ones (invalid: one number too many,
which a submission reading to the end of the input would add)."""
import random
import sys

seed = int(sys.argv[1])
rng = random.Random(seed)
numbers = [rng.randint(-100, 100)]
numbers.append(numbers[0] + rng.randint(1, 100))
if seed % 2:
    numbers.append(rng.randint(1, 100))
print(2)
print(*numbers)
