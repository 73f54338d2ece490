"""The pipeline's jobs, one module each: :mod:`.route`, :mod:`.plan` and :mod:`.replay`.

Their entry points are re-exported by :mod:`rocketroute.spark` (``rocketroute.spark.route`` is the function);
the modules live here so that no function shadows the module it is defined in (``import
rocketroute.spark.jobs.plan`` is always the module).
"""
