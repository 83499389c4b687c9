#!/usr/bin/env bash
# The GPU checks in one command, no arguments needed: on a machine with a CUDA GPU, every #| gpu cell, the baseline
# preset for 200 steps on a replica of the challenge's layout built from the embedded corpus, flash-attn against SDPA
# logits; one JSON (runs/gpu_check/gpu_check.json, and on stdout). `--cpu`: the same at tiny shapes (CI runs it).
#   tools/gpu_check.sh [--cpu]
# Python: .venv's when there is one, else python3 (which must have the project's dependencies: torch, papermill,
# nbdev, sentencepiece, ...; on a machine without a registry, carry them as wheels in .whl/ and they are installed
# into /tmp/site first).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python; [ -x "$PY" ] || PY=python3
if [ -d .whl ] && ls .whl/*.whl >/dev/null 2>&1; then
  "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
  export PYTHONPATH="/tmp/site:$PWD${PYTHONPATH:+:$PYTHONPATH}"
else
  export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
fi
export PATH="$(dirname "$PY"):$PATH" PYTHONUNBUFFERED=1
exec "$PY" tools/gpu_check.py "$@"
