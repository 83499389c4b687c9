"""The main job's run folder does not depend on the working directory.

JupyterLab starts a kernel in the notebook's folder (nbs/), papermill in the folder it is started from. This runs the
main job's `tiny` preset with papermill twice, once from nbs/ and once from the project root, and checks that both write
to runs/<run_name>/ under the project root (the second run resumes the first's checkpoint instead of training again),
that nothing lands under nbs/, and that the executed notebooks carry no widget views (papermill gets text progress bars)
and no warnings.
About 40 s on 2 CPU cores. Called by .ci/run after the tests.

    python tools/check_run_dirs.py
"""
import json, shutil, subprocess, sys, tempfile, time
from pathlib import Path
from smolqat.core import project_root
from smolqat.lab import output_problems

RUN = "cwd-check"

def papermill(cwd:Path, out:Path, resume:bool):
    "Execute train_gpt.ipynb (tiny preset) with the kernel's working directory `cwd`."
    root = project_root()
    cmd = [sys.executable, "-m", "papermill", str(root / "nbs" / "train_gpt.ipynb"), str(out), "--cwd", str(cwd),
           "-p", "preset", "tiny", "-p", "run_name", RUN, "-p", "resume", str(resume), "--log-level", "WARNING"]
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if r.returncode: sys.exit(f"check_run_dirs: papermill from {cwd} failed:\n{r.stderr[-3000:]}")

def main():
    t0, root = time.time(), project_root()
    run_dir, stray = root / "runs" / RUN, root / "nbs" / "runs"
    shutil.rmtree(run_dir, ignore_errors=True)
    had_stray = stray.exists()
    tmp = Path(tempfile.mkdtemp(prefix="run_dirs_"))
    papermill(root / "nbs", tmp / "from_nbs.ipynb", resume=False)           # as JupyterLab would run it
    first = json.loads((run_dir / "metrics.json").read_text())["results"]
    papermill(root, tmp / "from_root.ipynb", resume=True)                   # as the README runs it
    second = json.loads((run_dir / "metrics.json").read_text())["results"]
    problems = []
    if first["train_seconds"] != second["train_seconds"] or first["steps"] != second["steps"]:
        problems.append(f"the run from the root did not resume the run from nbs/ ({first['steps']} steps in "
                        f"{first['train_seconds']:.3f} s, then {second['steps']} in {second['train_seconds']:.3f} s)")
    if stray.exists() and not had_stray: problems.append(f"{stray} was created")
    for nb in ("from_nbs.ipynb", "from_root.ipynb"):
        problems += [f"{nb} cell {i}: {what}" for i, what in output_problems(tmp / nb)]
    if problems: sys.exit("check_run_dirs: FAILED\n  " + "\n  ".join(problems))
    shutil.rmtree(tmp)
    print(f"check_run_dirs: ok in {time.time() - t0:.0f} s: papermill from nbs/ and from the root both wrote "
          f"{run_dir.relative_to(root)}/ "
          f"(the second resumed at step {second['steps']}); no widget views, no warnings in the executed notebooks")

if __name__ == "__main__": main()
