"""``python -m bench.fidelity``: see :mod:`bench.fidelity.run`."""

import sys

from bench.fidelity.run import main

sys.exit(main())
