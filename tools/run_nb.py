"""Re-execute notebooks in place so their committed outputs come from a fresh run.

    python tools/run_nb.py nbs/03_eval.ipynb [more.ipynb ...] [--slow] [--gpu] [--only TEXT]

Each notebook runs top to bottom in a fresh `python3` kernel whose working directory is the notebook's folder (as
nbdev-test and JupyterLab run it). Cells flagged `#| slow` or `#| gpu` are skipped and keep their saved outputs unless
`--slow` / `--gpu` is given, so a benchmark's evidence is only replaced by a deliberate rerun; `--only TEXT` narrows
that rerun to the flagged cells whose source contains TEXT (the others keep their outputs too). The notebook is
written back atomically, then cleaned with nbdev-clean. A failing cell stops that notebook (it is not written) and
the script exits non-zero, naming the notebook and the cell."""
import argparse, os, re, subprocess, sys, tempfile
from pathlib import Path
import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

# each kernel's first line: saved outputs get text progress bars, not widget views (smolqat.core.set_progress)
TEXT_BARS = "--IPKernelApp.exec_lines=from smolqat.core import set_progress; set_progress('text')"
FLAG = re.compile(r"^#\|\s*(slow|gpu)\s*$", re.M)

def skipped(cell, run_flags:set, only:str=None)->bool:
    "True for a code cell carrying a flag that is not being run, or a flagged cell without `only` in its source."
    flags = FLAG.findall(cell.source) if cell.cell_type == "code" else []
    return bool(flags) and (any(f not in run_flags for f in flags) or (only is not None and only not in cell.source))

def execute(path:Path, run_flags:set, timeout:int, only:str=None):
    "Run the notebook's cells (skipping flagged ones), keep outputs of the skipped cells, write it back."
    nb = nbformat.read(path, as_version=4)
    keep = {i: (c.outputs, c.execution_count) for i, c in enumerate(nb.cells) if skipped(c, run_flags, only)}
    run = nbformat.v4.new_notebook(metadata=nb.metadata)
    run.cells = [nbformat.v4.new_raw_cell("") if i in keep else c for i, c in enumerate(nb.cells)]
    NotebookClient(run, timeout=timeout, kernel_name="python3", extra_arguments=[TEXT_BARS],
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    for i, c in enumerate(nb.cells):
        if i in keep: c.outputs, c.execution_count = keep[i]
        elif c.cell_type == "code": c.outputs, c.execution_count = run.cells[i].outputs, run.cells[i].execution_count
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".tmp")
    with os.fdopen(fd, "w") as f: nbformat.write(nb, f)
    os.replace(tmp, path)

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("notebooks", nargs="+", type=Path)
    ap.add_argument("--slow", action="store_true", help="also run #| slow cells (benchmarks: use a quiet machine)")
    ap.add_argument("--gpu", action="store_true", help="also run #| gpu cells")
    ap.add_argument("--only", metavar="TEXT", help="of the flagged cells, run only those whose source contains TEXT")
    ap.add_argument("--timeout", type=int, default=1800, help="seconds per cell")
    a = ap.parse_args()
    flags = {f for f in ("slow", "gpu") if getattr(a, f)}
    failed = []
    for p in a.notebooks:
        try: execute(p.resolve(), flags, a.timeout, a.only)
        except CellExecutionError as e: failed.append(p); print(f"{p}: {str(e)[:3000]}", file=sys.stderr); continue
        subprocess.run([str(Path(sys.executable).parent / "nbdev-clean"), "--fname", str(p)], check=True)
        print(f"{p}: executed")
    if failed: sys.exit(f"failed: {' '.join(map(str, failed))}")

if __name__ == "__main__": main()
