"""``python -m roborally.server [--host --port --data ...]``: the same as ``roborally serve``."""

from __future__ import annotations

import argparse
import sys

from roborally.server.command import add_arguments, run


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m roborally.server", description=__doc__)
    add_arguments(parser)
    return run(parser.parse_args())


if __name__ == "__main__":
    sys.exit(main())
