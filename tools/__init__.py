"""Generators of checked-in files (the deal vectors, the golden matches, the alert rules,
the vendored JavaScript) and the references they and the benchmarks share with the
tests: the plain transcription of the deck recipe, the recorded drand beacons, whole
recorded matches made without the services. Nothing in libs/ or services/ imports them;
the tests and bench/ may (tests/unit/test_import_graph.py)."""
