"""``python -m roborally.server [--host --port --data]``: the same as ``roborally serve``."""

from __future__ import annotations

import argparse

from roborally.server.app import serve


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m roborally.server", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--data", default=None, help="data directory (default: ~/.local/share)")
    parser.add_argument("--log-level", default="info")
    args = parser.parse_args()
    serve(args.host, args.port, args.data, args.log_level)


if __name__ == "__main__":
    main()
