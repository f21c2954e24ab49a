"""Shared plumbing of every service: settings from the environment, the embedded dev
stack, NATS helpers, the aiohttp app factory with health/readiness/metrics, structured
logging. (The design's ``libs/platform``, docs/architecture.md; renamed so as not to
shadow the standard library's ``platform``.)"""
