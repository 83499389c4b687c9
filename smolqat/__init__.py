__version__ = "0.1.0"

import os as _os, sys as _sys
if _os.environ.get("IN_TEST") and "OMP_NUM_THREADS" not in _os.environ:
    # nbdev-test runs one notebook per core: one BLAS/OpenMP thread each (two per notebook on two cores oversubscribe
    # them, ~2.5x slower), here and in the subprocesses a test starts; a thread count set by the caller is kept
    _os.environ["OMP_NUM_THREADS"] = "1"
    if "torch" in _sys.modules: _sys.modules["torch"].set_num_threads(1)
