"""``python -m roborally.server.worker NICE BOT_SECONDS``: one engine worker process (the
server starts these itself; see :mod:`roborally.server.workers`)."""

from __future__ import annotations

import sys

from roborally.server.workers import worker_main

if __name__ == "__main__":
    worker_main(sys.argv[1:])
