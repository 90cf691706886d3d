"""Sweeps, Monte Carlo and sensitivity runs over a scenario, as chunked background jobs.

HOW A RUN WORKS
1. ``services.sweep_run_start()`` parses and validates the spec against the scenario's engine
   inputs (nothing is queued when it is refused), snapshots those inputs into the run row, and
   creates the SweepRun (PENDING) with its first chunks (a chunk's row is created when it is
   queued). On commit it queues those chunk tasks on the sweeps queue.
2. ``sweep_chunk_task`` -> ``services.sweep_chunk_compute()``: returns at once when the run is
   no longer active or the chunk is already DONE (a redelivery). Otherwise it rebuilds the
   chunk's points from flat indices (grids; seeded RNG blocks for Monte Carlo), evaluates them
   in the engine's blocks, and as the rows come encodes them into the chunk's part (an Arrow
   file that goes to storage once, ``results.py``) and counts a sweep's tally (the summary's
   counts, ``summaries.SweepTally``). A conditional UPDATE marks the chunk DONE with its part's
   name and tally; only the winner of that UPDATE counts it on the run, so a redelivered chunk
   is counted once (the loser deletes its copy).
3. Each finished chunk tops its team's chunks back up to ``TEAM_CHUNKS_IN_FLIGHT``, at most
   ``CHUNKS_IN_FLIGHT`` a run, round-robin over the team's runs (so a cancelled run stops
   queuing chunks, a team's runs take turns, and teams share the workers fairly). While
   nothing but the run's own chunks waits on its worker's queues, the task that stored a chunk claims
   the run's next one in the same transaction and computes it at once, with no message in
   between; a task whose message is handed out again takes up the chunk it went on with. The
   chunk that brings chunks_done to chunks_total moves the run RUNNING -> FINISHING with a
   conditional UPDATE, and that chunk's task summarises it (``sweep_run_finish``): a sweep's
   summary adds up the tallies, a Monte Carlo's reads the columns it needs from the parts.
   Nothing is assembled; the parts are the result. A finisher that is lost (its worker died)
   is sent again as ``sweep_run_finish_task``.
4. ``sweep_runs_reap_task`` (periodic) re-queues the chunks of a pending or running run that
   has stopped progressing (a worker died holding them, or a Redis restart emptied the queue)
   and fails runs past their deadline.
"""
