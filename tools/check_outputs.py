"""Check the committed notebooks' saved outputs (12_lab: output_problems); exit 1 naming each problem.

    python tools/check_outputs.py [NOTEBOOK ...]     # default: every notebook under nbs/

A cell that shows something when it runs must carry its output; no output may hold a warning, an error, a widget view
or a `+dirty` git_sha; the main jobs' notebooks must come from a fresh (not resumed) run. Rerun a notebook with
`tools/run_nb.py` (or a main job with its README command) to mend what it names.
"""
import sys
from pathlib import Path
from smolqat.core import project_root
from smolqat.lab import output_problems


def main(argv=None)->int:
    paths = [Path(a)
             for a in (argv if argv is not None else sys.argv[1:])] or sorted((project_root() / "nbs").glob("*.ipynb"))
    bad = [(p, i, what) for p in paths for i, what in output_problems(p)]
    for p, i, what in bad: print(f"{p}: cell {i}: {what}")
    print(f"{len(paths)} notebooks, {len(bad)} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
