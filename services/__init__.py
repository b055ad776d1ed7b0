"""Tapis services: event store, workers, HTTP gateway, bots, CLI.

Everything here does I/O; the games in :mod:`shared` never do.
"""
