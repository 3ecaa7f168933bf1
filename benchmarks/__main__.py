"""`python -m benchmarks` runs the benchmark suite (`make bench`)."""

import sys

from benchmarks.suite import main

sys.exit(main())
