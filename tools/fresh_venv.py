"""What the bundle checks share: a new virtual environment with only torch, numpy and sentencepiece, the bare
environment
a bundle runs in there, and which of the package's own dependencies that python can still see.

    from fresh_venv import fresh_venv, bare_env, visible_packages   # from a script in tools/
"""
import os, subprocess, sys
from pathlib import Path

# all a records folder's train_gpt.py may count on (torch pinned: the local CPU wheel)
SHIPPED = ("torch==2.13.0", "numpy", "sentencepiece")
HIDDEN = ("smolqat", "tqdm", "pandas", "fastcore", "brotli", "zstandard")   # installed here, absent there

def fresh_venv(path:Path)->Path:
    "The python of a venv at `path` holding only SHIPPED (made when `path` holds none yet)."
    py = Path(path) / "bin" / "python"
    if py.is_file(): return py
    subprocess.run([sys.executable, "-m", "venv", str(path)], check=True)
    subprocess.run([str(py), "-m", "pip", "install", "-q", *SHIPPED], check=True)
    return py

def bare_env(py:Path=None, **extra)->dict:
    """PATH (the venv's bin first when `py` is given), HOME, OMP_NUM_THREADS (1 unless set) and `extra`: nothing else of
    this shell."""
    path = os.environ["PATH"] if py is None else f"{Path(py).parent}{os.pathsep}{os.environ['PATH']}"
    return {"PATH": path, "HOME": os.environ["HOME"], "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1"),
            **extra}

def visible_packages(py:Path, cwd)->list:
    "The HIDDEN packages `py` can import from `cwd` (the answer should be [])."
    code = f"import importlib.util as u; print(','.join(m for m in {HIDDEN!r} if u.find_spec(m)))"
    out = subprocess.run([str(py), "-c", code], capture_output=True, text=True, env=bare_env(), cwd=cwd,
                         check=True).stdout.strip()
    return [m for m in out.split(",") if m]
