#!/usr/bin/env bash
# kill -9 the main job mid-training (tiny preset, 60 steps, checkpoints every 10), run it again, and compare its
# metrics.json results and metrics.jsonl records with an uninterrupted run: they must be identical.
#   tools/kill_resume_check.sh                                     # the token stream
#   tools/kill_resume_check.sh -p packing docs -p objectives pt:0.8,fim:0.2   # any more papermill parameters
set -euo pipefail
cd "$(dirname "$0")/.."
P=".venv/bin/papermill -k python3 nbs/train_gpt.ipynb"
ARGS="-p preset tiny -p steps 60 -p checkpoint_every 10 -p resume True $*"
tmp=$(mktemp -d); rm -rf runs/k-full runs/k-kill
OMP_NUM_THREADS=1 $P "$tmp/full.ipynb" $ARGS -p run_name k-full > "$tmp/full.log" 2>&1
OMP_NUM_THREADS=1 setsid $P "$tmp/kill1.ipynb" $ARGS -p run_name k-kill > "$tmp/kill1.log" 2>&1 &
pid=$!
until grep -q '"step": 40' runs/k-kill/metrics.jsonl 2>/dev/null; do sleep 0.1; done
kill -9 -- -"$pid"; wait "$pid" 2>/dev/null || true
echo "killed after: $(tail -1 runs/k-kill/metrics.jsonl)"
OMP_NUM_THREADS=1 $P "$tmp/kill2.ipynb" $ARGS -p run_name k-kill > "$tmp/kill2.log" 2>&1
.venv/bin/python - <<'PY'
import json, sys
a, b = (json.load(open(f"runs/{r}/metrics.json"))["results"] for r in ("k-full", "k-kill"))
keys = [k for k in a if isinstance(a[k], float) and not any(s in k for s in ("seconds", "tokens_per_s", "peak_flops", "mfu"))]   # timings and the measured peak vary run to run
diff = {k: (a[k], b[k]) for k in keys if a[k] != b[k]}
la, lb = ([(r["step"], r.get("train_loss"), r.get("val_bpb")) for r in map(json.loads, open(f"runs/{r}/metrics.jsonl"))] for r in ("k-full", "k-kill"))
print(f"{len(keys)} float results compared, {len(diff)} differ {diff or ''}; metrics.jsonl records identical: {la == lb} ({len(la)} vs {len(lb)})")
sys.exit(0 if not diff and la == lb else 1)
PY
