"""Print the prefix of the ns-3 C++ SDK shipped in the `ns3` wheel of this Python.

Used by the Makefile: cmake -DNS3_PREFIX="$(python ns3-harness/scripts/ns3_prefix.py)".
"""

from __future__ import annotations

import sys
import sysconfig
from pathlib import Path


def main() -> int:
    for key in ("purelib", "platlib"):
        p = Path(sysconfig.get_paths()[key]) / "ns3"
        if (p / "include" / "ns3" / "core-module.h").is_file():
            print(p)
            return 0
    print("ns3-harness: the ns3 wheel is not installed in this Python "
          "(pip install --no-deps ns3==3.44.post0, or `make ns3`)", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
