import sys

from .admin import main

sys.exit(main())
