"""`bounded_numbers.py N BOUND SEED`: N, then N random integers in [-BOUND, BOUND]."""
import random
import sys

n, bound, seed = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(seed)
print(n)
print(*(rng.randint(-bound, bound) for _ in range(n)))
