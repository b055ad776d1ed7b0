"""Bots: the turn function, the Celery app, and the schedulers workers use."""
