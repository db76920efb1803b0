"""``python -m simdcrypt.bench``."""

import sys

from . import main

sys.exit(main())
