import sys

from mira_math.cli.main import main

sys.exit(main())
