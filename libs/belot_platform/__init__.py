"""Shared plumbing of every service: settings from the environment, the embedded dev
stack, NATS helpers, the aiohttp app factory with health/readiness/metrics, structured
logging. (DESIGN.md's ``libs/platform``; renamed so as not to shadow the standard
library's ``platform``.)"""
