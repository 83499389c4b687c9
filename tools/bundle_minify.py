"""Measure python-minifier on the training bundle: sizes plain and lzma+base85, with and without it, and whether a
tiny training run of the minified bundle gives the same per-step losses as the unminified one.

    pip download python-minifier --no-deps -d /tmp/pm && unzip -q /tmp/pm/*.whl -d /tmp/pm/x
    python tools/bundle_minify.py /tmp/pm/x

python-minifier is not a smolqat dependency; the folder argument is where it can be imported from."""
import json, subprocess, sys, tempfile
from pathlib import Path
from smolqat.bundle import bundle, compress_source

SPEC = dict(model=dict(vocab_size=1024, n_layer=2, n_head=2, n_kv_head=1, n_embd=32, block_size=32),
            train=dict(steps=10, batch_size=8, seq_len=32, warmup_steps=2, autocast="fp32", device="cpu"), data={})

def losses(path:Path, run_dir:Path)->list:
    "Train the tiny spec with the bundle at `path`; its per-step losses."
    cfg = run_dir.with_suffix(".json"); cfg.write_text(json.dumps({**SPEC, "run_dir": str(run_dir)}))
    subprocess.run([sys.executable, str(path), "--config", str(cfg)], check=True, capture_output=True)
    return json.loads((run_dir / "train_result.json").read_text())["losses"]

def main(minifier_dir:str):
    "Print the four sizes and the parity of the minified bundle's losses."
    sys.path.insert(0, minifier_dir); import python_minifier
    tmp = Path(tempfile.mkdtemp(prefix="bundle_minify_"))
    res = bundle(["train:main"], tmp / "plain.py", SPEC)
    mini = python_minifier.minify(Path(res["path"]).read_text())   # defaults: locals renamed, globals and class annotations kept
    (tmp / "mini.py").write_text(mini)
    print(f"plain {res['plain_bytes']} compressed {len(compress_source(Path(res['path']).read_text()))}")
    print(f"minified {len(mini.encode())} compressed {len(compress_source(mini))}")
    print("same losses:", losses(tmp / "plain.py", tmp / "run_plain") == losses(tmp / "mini.py", tmp / "run_mini"))

if __name__ == "__main__": main(sys.argv[1])
