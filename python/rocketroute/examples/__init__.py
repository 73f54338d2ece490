"""Runnable examples and the sample data they, the demo and the benchmarks use: :mod:`.walkthrough` (``python -m
rocketroute.examples.walkthrough``: a producer's routing step by step, no Spark) and :mod:`.sample_route` (a
``TopicRouteData`` in the name server's JSON shape). Not imported by :mod:`rocketroute`."""
