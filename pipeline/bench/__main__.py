"""`python -m pipeline.bench` runs the benchmark suite (`make bench`)."""

import sys

from pipeline.bench.suite import main

sys.exit(main())
