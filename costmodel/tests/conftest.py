"""The engine's tests need NumPy, SciPy, Numba and their own test tools only: no database, no
broker, no Django (``costmodel/requirements-test.txt`` is all a virtualenv needs to run them)."""
