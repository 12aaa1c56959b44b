"""``python -m bench.observability``: see :mod:`bench.observability.run`."""

import sys

from bench.observability.run import main

sys.exit(main())
