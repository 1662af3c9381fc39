import sys

from critics.cli import main

sys.exit(main())
