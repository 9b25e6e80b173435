import sys

from bench.simdiff.harness import main

sys.exit(main())
