"""``python -m bench.container``: see :mod:`bench.container.run`."""

import sys

from bench.container.run import main

sys.exit(main())
