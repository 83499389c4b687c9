"""The bundled job (job_bundle: its features only, minified, compressed) in a NEW virtual environment holding only
torch, numpy and sentencepiece (no smolqat, no tqdm,
pandas, fastcore, brotli or zstandard): 20 training steps on a local replica of the challenge's layout, on CPU, against
`smolqat.main_job.run_job` with the same spec in this environment. The replica lies where the reference expects the data
(`./data/` beside the bundle), so the bundle runs with its baked-in defaults, prints its log lines and copies them into
`logs/<RUN_ID>.txt`. Two jobs: the plain token stream, and its documents packed with the objectives' mixer (pt, nat
and fim summed each step). Prints one JSON line per job; exits 1 unless, for each, the 20 losses, the scores and the
artifact's bytes are identical and the log was printed and copied.

    python tools/bundle_parity.py [--work DIR] [--keep-venv] [--venv DIR]
"""
import argparse, json, shutil, subprocess, sys, tempfile, time
from pathlib import Path
from smolqat.main_job import run_job, job_bundle
from smolqat.replica import embedded_replica
from fresh_venv import fresh_venv, bare_env, visible_packages

# job name -> what it adds to the spec
JOBS = {"stream": {}, "docs": dict(packing="docs", objectives="pt:1,nat:1.5,fim:1")}

def spec_for(rep:dict, run_dir:str, extra:dict)->dict:
    "The tiny job: 2 layers, 20 steps, GPTQ int6 with lzma (installed everywhere), a sliding eval; `extra` on top."
    return dict(**extra, model=dict(vocab_size=1024, n_layer=2, n_head=2, n_kv_head=1, n_embd=32, block_size=32),
                train=dict(steps=20, batch_size=8, seq_len=32, warmup_steps=2, autocast="fp32", device="cpu",
                           val_every=10, val_max_tokens=2048),
                data=dict(data_dir=rep["data_dir"], tokenizer=rep["tokenizer"]),
                export=dict(quantization="gptq6", compressor="lzma", calib_batches=2),
                    eval=dict(max_tokens=4096, stride=16),
                run_dir=run_dir, resume=False)

def log_printed(p:subprocess.CompletedProcess, folder:Path)->bool:
    "The bundle's stdout is its log copy's path, then the copy itself, which holds train.log's lines."
    copies = list((folder / "logs").glob("*.txt"))
    if len(copies) != 1: return False
    text = copies[0].read_text()
    return text == (folder / "runs/job/train.log").read_text() and p.stdout == f"logs/{copies[0].name}\n{text}"

def parity(name:str, work:Path, py:Path)->dict:
    "Job `name` bundled and run in the venv `py`, against run_job here: the report of one job."
    code = work / f"submission_{name}" / "train_gpt.py"
    # ./data/datasets/fineweb10B_sp1024, ./data/tokenizers/fineweb_1024_bpe.model
    rep = embedded_replica(code.parent / "data", 1024, n_works=6)
    # only the features this job uses, minified, compressed
    b = job_bundle(spec_for(rep, "runs/job", JOBS[name]), code)
    pkg = run_job({**spec_for(rep, str(work / f"package_run_{name}"), JOBS[name]), "code": str(code)})
    visible = visible_packages(py, code.parent)
    p = subprocess.run([str(py), str(code)], cwd=code.parent, capture_output=True, text=True, env=bare_env())
    if p.returncode: print(p.stderr[-3000:], file=sys.stderr); sys.exit(1)
    bun = json.loads((code.parent / "runs/job/job_result.json").read_text())
    art = lambda folder: (folder / "model.gptq6.ptz").read_bytes()
    same_art = art(code.parent / "runs/job") == art(work / f"package_run_{name}")
    n_same = sum(x == y for x, y in zip(bun["train"]["losses"], pkg["train"]["losses"]))
    scores = {k: e["bpb"] for k, e in bun["evals"].items()} == {k: e["bpb"] for k, e in pkg["evals"].items()}
    printed = log_printed(p, code.parent)
    ok = n_same == 20 == len(pkg["train"]["losses"]) and same_art and scores and printed and visible == []
    return dict(job=name, ok=ok, losses_identical=f"{n_same}/{len(pkg['train']['losses'])}",
                artifact_identical=same_art, scores_identical=scores,
                log_printed_and_copied=printed, artifact_bytes=bun["size"], bundle_source_bytes=b["source_bytes"],
                    bundle_minified_bytes=b["plain_bytes"],
                bundle_compressed_bytes=b["compressed_bytes"], bundle_cut=b["cut"], visible_in_venv=visible)

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", default=None, help="working folder (default: a new temp folder)")
    ap.add_argument("--keep-venv", action="store_true", help="leave the venv in the working folder")
    ap.add_argument("--venv", default=None,
                    help="a venv made by an earlier run of this check (or tools/rerun_check.py) to reuse")
    ap.add_argument("--jobs", default=",".join(JOBS),
                    help=f"which jobs, comma-separated (default: all of {list(JOBS)})")
    a = ap.parse_args()
    work = Path(a.work or tempfile.mkdtemp(prefix="bundle_parity_")); work.mkdir(parents=True, exist_ok=True)
    t0 = time.time(); py = fresh_venv(Path(a.venv) if a.venv else work / "venv"); venv_s = time.time() - t0
    reports = [parity(name, work, py) for name in a.jobs.split(",")]
    for r in reports: print(json.dumps({**r, "venv_seconds": round(venv_s, 1)}))
    if not (a.keep_venv or a.venv): shutil.rmtree(work / "venv", ignore_errors=True)
    sys.exit(0 if all(r["ok"] for r in reports) else 1)

if __name__ == "__main__": main()
