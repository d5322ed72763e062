"""``python -m roborally``: the same as the ``roborally`` command."""

import sys

from roborally.cli import main

sys.exit(main())
