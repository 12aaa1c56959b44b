"""Entry point of ``python -m p4ref``."""

import sys

from .cli import main

sys.exit(main())
