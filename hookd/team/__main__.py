import sys

from hookd.team.admin import main

sys.exit(main())
