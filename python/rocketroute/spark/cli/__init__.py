"""The Spark pipeline's commands of the ``rocketroute`` command line (:mod:`rocketroute.cli`): one module per
command (:mod:`.route`, :mod:`.plan`, :mod:`.replay`, :mod:`.report`, :mod:`.demo`, :mod:`.bench_spark`), each with
its ``cmd_*`` function and an ``add_parser``; what they share is in :mod:`.common` and :mod:`.inputs`. Importing
them imports neither pyspark nor matplotlib: a command that needs one says so in one line when it is missing.

The command line itself (``main``, ``build_parser``) and the commands that need no Spark (``bench-producer``, the
live ``plan --namesrv``) are :mod:`rocketroute.cli`'s.
"""
