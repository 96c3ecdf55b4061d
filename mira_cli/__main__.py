import sys

from mira_cli.main import main

sys.exit(main())
