"""The command consumer: :class:`services.worker.worker.Worker` (command
loops, reclaimer, sweeper)."""
