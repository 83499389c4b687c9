"""Minified bytes of each top-level definition of the demo's bundled train_gpt.py (challenge shards, bf16 baked in).

    python tools/bundle_sizes.py                       # the 30 largest definitions of this checkout's bundle
    git worktree add /tmp/old ed6d029 && python tools/bundle_sizes.py --against /tmp/old   # what grew since ed6d029

Each definition is minified on its own (locals renamed, annotations and docstrings dropped), so the sum is close to,
not equal to, the whole bundle's minified size that 07d_main_job prints. `--against` runs this script on another
checkout
(its package first on the path) and prints the definitions whose size changed, largest growth first.
"""
import argparse, ast, json, os, subprocess, sys, tempfile
from pathlib import Path

DEMO = dict(model=dict(vocab_size=1024, n_layer=4, n_embd=256, n_head=4, n_kv_head=2, block_size=256),
            train=dict(seq_len=256, batch_size=16, steps=100000, max_seconds=525.0, warmup_steps=10, warmdown_frac=0.8,
                       matrix_lr=0.04,
                       scalar_lr=0.04, embed_lr=0.05, muon_momentum_warmup=300, log_every=10, val_every=250,
                           val_max_tokens=32768,
                       checkpoint_every=500, autocast="bf16"),
            data=dict(data_dir="data/datasets/fineweb10B_sp1024", tokenizer="data/tokenizers/fineweb_1024_bpe.model"),
            export=dict(quantization="gptq6", compressor="auto", calib_batches=16), eval=dict(stride=64),
                run_dir="runs/demo")

def sizes()->dict: # definition name -> minified bytes
    "Bundle the demo unminified, then minify each top-level statement alone."
    import python_minifier
    from smolqat.main_job import job_bundle
    with tempfile.TemporaryDirectory() as d:
        job_bundle(DEMO, Path(d) / "plain.py", compress=False, minify=False)
        src = (Path(d) / "plain.py").read_text()
    out = {}
    for n in ast.parse(src).body:
        seg = ast.get_source_segment(src, n) or ""
        name = getattr(n, "name",
                       None) or (ast.unparse(n.targets[0]) if isinstance(n,
                           ast.Assign) else f"{type(n).__name__}@{n.lineno}")
        out[name] = out.get(name,
                            0) + len(python_minifier.minify(seg, rename_locals=True, remove_annotations=True,
                                                            remove_literal_statements=True))
    return out

def main(argv=None)->int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--against", type=Path, help="another checkout's root: print what changed from it to this one")
    ap.add_argument("--json", action="store_true", help=argparse.SUPPRESS)   # used by --against on the other checkout
    ap.add_argument("--top", type=int, default=30)
    a = ap.parse_args(argv)
    new = sizes()
    if a.json: print(json.dumps(new)); return 0
    if a.against is None:
        print(f"{sum(new.values()):,} bytes in {len(new)} definitions")
        for k, v in sorted(new.items(), key=lambda kv: -kv[1])[:a.top]: print(f"{v:7,}  {k}")
        return 0
    env = {**os.environ, "PYTHONPATH": str(a.against.resolve())}
    p = subprocess.run([sys.executable, __file__, "--json"], env=env, capture_output=True, text=True, cwd=a.against)
    if p.returncode: sys.exit(f"{a.against}: the bundle could not be built there:\n{p.stderr[-2000:]}")
    old = json.loads(p.stdout.strip().splitlines()[-1])
    print(f"{sum(old.values()):,} -> {sum(new.values()):,} bytes")
    diff = sorted(((new.get(k, 0) - old.get(k, 0), k) for k in new.keys() | old.keys()), reverse=True)
    for d, k in [x for x in diff if x[0]][:a.top]: print(f"{d:+7,}  {k}  ({old.get(k, 0):,} -> {new.get(k, 0):,})")
    return 0

if __name__ == "__main__":
    sys.exit(main())
