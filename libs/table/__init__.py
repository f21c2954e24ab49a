"""The table's contract with those who read it (pure: the game core and the standard
library only): its events and the state they fold into (:mod:`table.state`), and a
seat's view as JSON (:mod:`table.views`). The table service writes them; the gateway
and clients read them, without importing the table service."""
