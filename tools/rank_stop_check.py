"""Every torchrun rank stops at the same step under a wallclock budget.

Trains a tiny GPT under torchrun (2 gloo processes on CPU) with a budget of a couple of seconds and a checkpoint after
every step (rank 0's checkpoint time is what can put the ranks' clocks apart), N times in a row, each under coreutils
`timeout`, and checks that every rank exited and reported the same final step. Each rank writes rank{k}.json itself
(this script is the torchrun target), so the check runs against any copy of the package: `--package DIR` puts DIR
(a folder holding smolqat/) first on PYTHONPATH, e.g. the code before ranks shared one stop (8afa092):

    mkdir -p /tmp/head && git archive 8afa092 smolqat | tar -x -C /tmp/head
    python tools/rank_stop_check.py 3 --package /tmp/head

    python tools/rank_stop_check.py [N=10] [--package DIR] [--seconds 2] [--timeout 120]

Prints one line per run and "k/N passed"; exits non-zero unless all passed. About 15 s a run on 2 CPU cores.
"""
import argparse, json, os, subprocess, sys, tempfile, time
from pathlib import Path

def spec(run_dir:Path, seconds:float)->dict:
    "The run: a tiny model, a step cap it never reaches, a budget of `seconds`, a checkpoint every step."
    return dict(model=dict(vocab_size=1024, n_layer=2, n_head=2, n_kv_head=1, n_embd=32, block_size=32),
                train=dict(steps=10**6, max_seconds=seconds, batch_size=8, seq_len=32, warmup_steps=2, log_every=1,
                           checkpoint_every=1, device="cpu", autocast="fp32"),
                data=dict(), run_dir=str(run_dir))

def worker(config:str):
    "Under torchrun: train the spec in `config`, then write this rank's final step to run_dir/rank{k}.json."
    from smolqat.core import init_distributed
    from smolqat.launch import run_from_config
    import smolqat, torch.distributed as dist
    s = json.loads(Path(config).read_text())
    rank, _ = init_distributed("gloo")
    try: res = run_from_config(s)
    finally: dist.destroy_process_group()
    out = dict(rank=rank, steps=res["steps"], train_seconds=res["train_seconds"], package=smolqat.__file__)
    (Path(s["run_dir"]) / f"rank{rank}.json").write_text(json.dumps(out))

def reports(run_dir:Path)->dict: # {rank: final step} of the ranks that finished
    "The final steps the ranks wrote."
    return {k: json.loads(p.read_text())["steps"] for k in (0, 1) if (p := run_dir / f"rank{k}.json").exists()}

def first_error(out:str)->str:
    "The first exception line a rank printed (torchrun prefixes them with [rankN])."
    return next((l.strip()[:300] for l in out.splitlines() if l.startswith("[rank") and "Error:" in l), "")

def verdict(r:subprocess.CompletedProcess, run_dir:Path, timeout:float)->str: # "" when the run passed
    "What went wrong with one run: a hang, a crash, a missing report, or ranks that stopped at different steps."
    done = f"ranks that finished, with their final step: {reports(run_dir)}"
    if r.returncode in (124, 137): return f"hung: killed by timeout after {timeout:g} s; {done}"
    if r.returncode: return f"failed (exit {r.returncode}); {done}; {first_error(r.stdout + r.stderr)}"
    steps = reports(run_dir)
    if len(steps) < 2: return f"only ranks {sorted(steps)} reported a result"
    return "" if len(set(steps.values())) == 1 else f"ranks disagree on the final step: {steps}"

def one_run(package:str, seconds:float, timeout:float)->tuple: # (verdict, final steps of rank 0 or None, wall seconds)
    "Launch the 2-rank run once under `timeout`; judge it."
    run_dir = Path(tempfile.mkdtemp(prefix="rank_stop_")) / "run"; run_dir.mkdir()
    (run_dir / "run.json").write_text(json.dumps(spec(run_dir, seconds)))
    env = {**os.environ, "OMP_NUM_THREADS": "1",
           "PYTHONPATH": os.pathsep.join(p for p in (package, os.environ.get("PYTHONPATH")) if p)}
    cmd = ["timeout", "-k", "5", str(timeout), sys.executable, "-m", "torch.distributed.run", "--standalone",
           "--nproc_per_node=2", __file__, "--worker", str(run_dir / "run.json")]
    t0 = time.time(); r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    return verdict(r, run_dir, timeout), reports(run_dir).get(0), time.time() - t0

def main():
    ap = argparse.ArgumentParser(description="Check that 2 torchrun ranks stop at the same step under a wallclock "
                                 "budget.")
    ap.add_argument("n", nargs="?", type=int, default=10, help="runs in a row")
    ap.add_argument("--package", default="",
                    help="folder holding the smolqat package to test (default: the installed one)")
    ap.add_argument("--seconds", type=float, default=2.0, help="the runs' wallclock budget")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds before a run counts as hung")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.worker: return worker(a.worker)
    passed = 0
    for i in range(a.n):
        why, steps, wall = one_run(a.package, a.seconds, a.timeout)
        passed += not why
        print(f"run {i + 1}: {'ok' if not why else 'FAIL'} ({wall:.0f} s, rank 0 stopped at step "
              f"{steps}){': ' + why if why else ''}", flush=True)
    print(f"{passed}/{a.n} passed")
    sys.exit(0 if passed == a.n else 1)

if __name__ == "__main__": main()
