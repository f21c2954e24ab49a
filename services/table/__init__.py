"""The table service: workers that own tables (a lease each), run their matches with the
game core, deal from the randomness service, play bots' and timed-out turns, and record
everything in the event log.

Files: ``app`` (composition and ``main``), ``handlers`` (NATS request/reply: parsing
and error codes), ``worker`` (leases, the tables a worker owns, each table's driver),
``domain`` (the table aggregate: its events, state and seat decisions, pure), ``store``
(loading a table's streams), ``views`` (a seat's view as JSON).
"""
