"""``python -m bench.sonic``: see :mod:`bench.sonic.run`."""

import sys

from bench.sonic.run import main

sys.exit(main())
