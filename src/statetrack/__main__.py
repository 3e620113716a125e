"""``python -m statetrack`` is the ``statetrack`` command."""

from statetrack.cli import main

raise SystemExit(main())
