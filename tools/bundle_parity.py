"""The bundled job (job_bundle: its features only, minified, compressed) in a NEW virtual environment holding only torch, numpy and sentencepiece (no smolqat, no tqdm,
pandas, fastcore, brotli or zstandard): 20 training steps on a local replica of the challenge's layout, on CPU, against
`smolqat.job.run_job` with the same spec in this environment. Prints one JSON line; exits 1 unless the 20 losses, the
scores and the artifact's bytes are identical.

    python tools/bundle_parity.py [--work DIR] [--keep-venv]
"""
import argparse, json, os, shutil, subprocess, sys, tempfile, time
from pathlib import Path
from smolqat.job import run_job, job_bundle
from smolqat.replica import embedded_replica

def spec_for(rep:dict, run_dir:str)->dict:
    "The tiny job: 2 layers, 20 steps, GPTQ int6 with lzma (installed everywhere), a sliding eval."
    return dict(model=dict(vocab_size=1024, n_layer=2, n_head=2, n_kv_head=1, n_embd=32, block_size=32),
                train=dict(steps=20, batch_size=8, seq_len=32, warmup_steps=2, autocast="fp32", device="cpu", val_every=10, val_max_tokens=2048),
                data=dict(data_dir=rep["data_dir"], tokenizer=rep["tokenizer"]),
                export=dict(quantization="gptq6", compressor="lzma", calib_batches=2), eval=dict(max_tokens=4096, stride=16),
                run_dir=run_dir, resume=False)

def fresh_venv(path:Path)->Path:
    "A new venv with only torch==2.13.0, numpy and sentencepiece; its python."
    subprocess.run([sys.executable, "-m", "venv", str(path)], check=True)
    py = path / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "-q", "torch==2.13.0", "numpy", "sentencepiece"], check=True)
    return py

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", default=None, help="working folder (default: a new temp folder)")
    ap.add_argument("--keep-venv", action="store_true", help="leave the venv in the working folder")
    a = ap.parse_args()
    work = Path(a.work or tempfile.mkdtemp(prefix="bundle_parity_")); work.mkdir(parents=True, exist_ok=True)
    rep = embedded_replica(work / "replica", 1024, n_works=6)
    code = work / "submission" / "train_gpt.py"
    b = job_bundle(spec_for(rep, "runs/job"), code)   # only the features this job uses, minified, compressed
    t0 = time.time(); py = fresh_venv(work / "venv"); venv_s = time.time() - t0
    pkg = run_job({**spec_for(rep, str(work / "package_run")), "code": str(code)})
    env = {"PATH": os.environ["PATH"], "HOME": os.environ["HOME"], "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1")}
    visible = subprocess.run([str(py), "-c", "import importlib.util as u; print([m for m in ('smolqat','tqdm','pandas','fastcore','brotli','zstandard') if u.find_spec(m)])"],
                             capture_output=True, text=True, env=env, cwd=code.parent).stdout.strip()
    p = subprocess.run([str(py), str(code)], cwd=code.parent, capture_output=True, text=True, env=env)
    if p.returncode: print(p.stderr[-3000:], file=sys.stderr); sys.exit(1)
    bun = json.loads((code.parent / "runs/job/job_result.json").read_text())
    same_art = (code.parent / "runs/job/model.gptq6.ptz").read_bytes() == (work / "package_run/model.gptq6.ptz").read_bytes()
    n_same = sum(x == y for x, y in zip(bun["train"]["losses"], pkg["train"]["losses"]))
    scores = {k: e["bpb"] for k, e in bun["evals"].items()} == {k: e["bpb"] for k, e in pkg["evals"].items()}
    ok = n_same == 20 == len(pkg["train"]["losses"]) and same_art and scores and visible == "[]"
    print(json.dumps(dict(ok=ok, losses_identical=f"{n_same}/{len(pkg['train']['losses'])}", artifact_identical=same_art, scores_identical=scores,
                          artifact_bytes=bun["size"], bundle_source_bytes=b["source_bytes"], bundle_minified_bytes=b["plain_bytes"], bundle_compressed_bytes=b["compressed_bytes"], bundle_cut=b["cut"],
                          visible_in_venv=visible, venv_seconds=round(venv_s, 1))))
    if not a.keep_venv: shutil.rmtree(work / "venv", ignore_errors=True)
    sys.exit(0 if ok else 1)

if __name__ == "__main__": main()
