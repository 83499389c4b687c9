"""The reviewers' rerun of a records folder (issue 47): three `tiny`-preset seeds of nbs/train_gpt.ipynb on a replica of
the challenge's data, `smolqat-submit`'s records folder from them copied into a NEW parameter-golf-style checkout (the
data under `./data/`, the folder under `records/track_10min_16mb/<name>/`) after the author's folder is moved away, and
a
venv holding only torch, numpy and sentencepiece. Then the README's own command, with `RUN_ID=x SEED=7
MAX_WALLCLOCK_SECONDS=60` and 2 processes for 8, from the checkout's root and from inside the folder (there the README
adds `DATA_PATH` and `TOKENIZER_PATH`), each under the venv's torchrun on 2 CPU ranks (gloo) with a fresh HOME. Each
must succeed, print its log lines, and write `logs/x.txt` holding `seed:7` and `world_size:2`; the two must score the
same; the records folder must hold no path of the author's machine. Prints one JSON line; exits 1 unless all hold.

    python tools/rerun_check.py [--work DIR] [--venv DIR] [--keep]
"""
import argparse, json, os, re, shutil, subprocess, sys, tempfile, time
from pathlib import Path
from smolqat.core import project_path
from smolqat.replica import embedded_replica
from smolqat.submit import main as submit, bundle_body
from fresh_venv import fresh_venv, bare_env

NAME = "2026-12-06_TinyRerun"            # the records folder's name
TRACK = "records/track_10min_16mb"       # where a parameter-golf checkout keeps it
SEEDS = (1, 2, 3)

def papermill_seed(seed:int, runs:Path, rep:dict)->subprocess.Popen:
    """Start the tiny preset of train_gpt.ipynb as run `rr_s<seed>` in `runs`, on the replica, in fp32, GPTQ calibrated
    on sampled text."""
    params = dict(preset="tiny", run_name=f"rr_s{seed}", seed=seed, out_dir=runs, data_dir=rep["data_dir"],
                  tokenizer=rep["tokenizer"], autocast="fp32", calibration="self")
    args = [a for k, v in params.items() for a in ("-p", k, str(v))]
    return subprocess.Popen([sys.executable, "-m", "papermill", str(project_path("nbs/train_gpt.ipynb")),
                             str(runs / f"rr_s{seed}.ipynb"), *args,
                             "--cwd", str(project_path("nbs"))], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True, env={**os.environ, "OMP_NUM_THREADS": "1"})

def train_seeds(author:Path)->list:
    "The three seeds' run folders, trained two at a time beside nothing else (2 cores)."
    rep, runs = embedded_replica(author / "replica", 1024, n_works=8), author / "runs"
    runs.mkdir(parents=True, exist_ok=True)
    for group in (SEEDS[:2], SEEDS[2:]):
        procs = [(s, papermill_seed(s, runs, rep)) for s in group]
        for s, p in procs:
            _, err = p.communicate()
            if p.returncode: raise RuntimeError(f"papermill seed {s} failed:\n{err[-3000:]}")
    return [runs / f"rr_s{s}" for s in SEEDS]

def checkout(work:Path, author:Path, record:Path)->Path:
    "A new parameter-golf-style checkout: the replica as ./data, the records folder under records/track_10min_16mb/."
    root = work / "parameter-golf"
    shutil.copytree(author / "replica", root / "data", ignore=shutil.ignore_patterns("manifest.json"))
    shutil.copytree(record, root / TRACK / NAME)
    return root

def readme_command(record:Path, inside:bool)->str:
    """The README's first command from the root (or from inside the folder), as a reviewer reruns it: RUN_ID=x SEED=7, a
    60 s cap, 2 processes."""
    lines = [l for l in (record / "README.md").read_text().splitlines() if l.startswith("RUN_ID=seed")]
    line = next(l for l in lines if l.endswith(" train_gpt.py") == inside)
    line = re.sub(r"^RUN_ID=seed\d+ SEED=\d+ ", "RUN_ID=x SEED=7 MAX_WALLCLOCK_SECONDS=60 ", line)
    return line.replace("--nproc_per_node=8", "--nproc_per_node=2")

def rerun(cmd:str, cwd:Path, py:Path, home:Path)->dict:
    "Run the command with the venv's torchrun first on PATH and a fresh HOME; what it printed and wrote."
    t0 = time.time()
    p = subprocess.run(["bash", "-c", cmd], cwd=cwd, capture_output=True, text=True, env=bare_env(py, HOME=str(home)))
    log = cwd / "logs" / "x.txt"
    text = log.read_text() if log.is_file() else ""
    finals = [l for l in text.splitlines() if l.startswith("final_") and "_exact " in l]
    ok = (p.returncode == 0 and {"seed:7", "world_size:2 grad_accum_steps:1"} <= set(text.splitlines())
          and bool(finals) and all(l in p.stdout for l in text.splitlines()))
    return dict(ok=ok, command=cmd, cwd=str(cwd), rc=p.returncode, seconds=round(time.time() - t0, 1), finals=finals,
                stderr_tail=p.stderr[-1500:] if p.returncode else "")

def author_paths_in(record:Path, paths:list)->list:
    "[(file, path)] for each author path a file of the records folder names (train_gpt.py decompressed)."
    files = {f.name: (bundle_body(f) if f.name == "train_gpt.py" else f.read_text()) for f in record.iterdir()
             if f.is_file()}
    return [(n, s) for n, t in files.items() for s in paths if s in t]

def main()->int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", default=None, help="working folder (default: a new temp folder)")
    ap.add_argument("--venv", default=None,
                    help="a venv made by an earlier run of this check or of bundle_parity.py to reuse (default: a new "
                    "one)")
    ap.add_argument("--keep", action="store_true", help="leave the working folder")
    a = ap.parse_args()
    t0, work = time.time(), Path(a.work or tempfile.mkdtemp(prefix="rerun_check_")); work.mkdir(parents=True,
                                                                                                exist_ok=True)
    author = work / "author"
    venv = subprocess.Popen([sys.executable, "-c",
                             f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); from fresh_venv import "
                             f"fresh_venv; fresh_venv({str(Path(a.venv) if a.venv else work / 'venv')!r})"])
    runs = train_seeds(author)
    if submit([*map(str, runs), "--out", str(work / "out" / NAME), "--author", "A. Reviewer", "--github-id",
               "areviewer", "--blurb", "three tiny seeds"]):
        return 1
    root = checkout(work, author, work / "out" / NAME)
    author.rename(work / "author_moved_away")            # the author's paths no longer exist
    if venv.wait(): return 1
    py, home = fresh_venv(Path(a.venv) if a.venv else work / "venv"), work / "home"; home.mkdir()
    record = root / TRACK / NAME
    leaks = author_paths_in(record, [str(author), str(project_path(".")), str(Path.home())])
    runs_ = dict(root=rerun(readme_command(record, False), root, py, home),
                 inside=rerun(readme_command(record, True), record, py, home))
    same = runs_["root"]["finals"] == runs_["inside"]["finals"]
    ok = all(r["ok"] for r in runs_.values()) and same and not leaks
    print(json.dumps(dict(ok=ok, same_scores_both_ways=same, author_paths_in_record=leaks,
                          seconds=round(time.time() - t0, 1), **runs_), indent=None))
    if not a.keep: shutil.rmtree(work, ignore_errors=True)
    return 0 if ok else 1

if __name__ == "__main__": sys.exit(main())
