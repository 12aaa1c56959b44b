"""``python -m bench.gnmi``: see :mod:`bench.gnmi.run`."""

import sys

from bench.gnmi.run import main

sys.exit(main())
