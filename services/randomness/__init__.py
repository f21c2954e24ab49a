"""The randomness service: server seeds and their commitments, the seats' seeds, the
drand round with its 5-second fallback, each deal's deck, and the reveal at match end.

Files: ``app`` (composition and ``main``), ``handlers`` (NATS request/reply), ``domain``
(load, decide with :mod:`fairdeal.fairness`, append; the timers), ``store`` (the private
store of server seeds).
"""
