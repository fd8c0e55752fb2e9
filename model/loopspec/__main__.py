"""``python -m loopspec`` runs the command line."""

import sys

from loopspec.cli import main

sys.exit(main())
