"""`python -m synergai`."""

import sys

from synergai.cli.main import main

sys.exit(main())
