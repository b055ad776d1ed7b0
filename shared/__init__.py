"""Tapis domain code: cards, the game contract, events and the games.

Pure Python, no I/O: nothing here touches Redis, HTTP, Celery or the clock.
"""
