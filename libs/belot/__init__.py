"""The game of belot: cards, rulesets, deals, bidding, play, scoring and bots.

Pure: standard library only, no I/O, no clock, no randomness.
"""
