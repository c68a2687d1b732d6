"""A stand-in for PyFlink's table API (the part the benchmark's flink worker calls), for the harness's tests
without Java or Flink: put the folder ``fake_pyflink`` first on ``PYTHONPATH``. See :mod:`pyflink.table`."""
