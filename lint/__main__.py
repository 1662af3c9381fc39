import sys

from lint.cli import main

sys.exit(main())
