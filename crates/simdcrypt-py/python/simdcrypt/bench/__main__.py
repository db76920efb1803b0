"""``python -m simdcrypt.bench``."""

import os
import sys

from . import main

try:
    status = main()
    sys.stdout.flush()
except BrokenPipeError:
    # The reader went away (`... | head`): stop quietly, like other command-line tools.
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    status = 1
sys.exit(status)
