"""The gateway: players' HTTP and WebSocket API in front of the table service, and the
web client's files.

Files: ``app`` (composition and ``main``), ``handlers`` (the HTTP routes and the
WebSocket endpoint), ``live`` (WebSocket fan-out of the events each seat may see),
``domain`` (tokens, rate limits, visibility, pure), ``store`` (accounts), ``web`` (the
web client's files from ``web/``, its configuration and the rulesets).
"""
