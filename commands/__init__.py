"""The ``belot`` command (:mod:`commands.cli`) and its subcommands: the operator's and
the verifier's tools, which start, set up and check the services (``belot run``,
``belot serve``, ``belot db``, ``belot verify``, ...). ``services/`` holds the services
alone; nothing there imports from here."""
