"""``python -m bench.loop``: see :mod:`bench.loop.run`."""

import sys

from bench.loop.run import main

sys.exit(main())
