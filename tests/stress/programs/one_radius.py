"""`one_radius.py SEED`: a Circle Area input, one radius from 1 to 1000."""
import random
import sys

print(random.Random(int(sys.argv[1])).randint(1, 1000))
