"""The rating service (issue 9): rates finished matches from the event log exactly once,
keeps its tables as a projection of its own ``rating-*`` streams, and serves leaderboards,
histories and ratings over HTTP and the look-up on NATS. docs/ratings.md, "The rating service"."""
