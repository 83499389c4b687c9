"""The runs that 09d_seed_checks and 09e_submit test on: three real tiny runs of the main job (made once and kept
under runs/sub_s<seed>, a lock letting two notebooks that run at once share them) and copies of a run as further
seeds, their scores moved and fields edited, made in milliseconds."""
import json, os, subprocess, sys, tempfile
from pathlib import Path
from filelock import FileLock
from smolqat.core import project_path
from smolqat.seed_checks import FINAL_RE

def tiny_seed(seed:int)->Path:
    "runs/sub_s<seed>: the main job's tiny preset in fp32 (made once; kept when it is already there)."
    d = project_path(f"runs/sub_s{seed}")
    with FileLock(f"{d}.lock"):
        if all((d / f).is_file() for f in ("metrics.json", "train.log", "train_gpt.py")): return d
        params = dict(preset="tiny", run_name=d.name, seed=seed, autocast="fp32")
        r = subprocess.run([sys.executable, "-m", "papermill", str(project_path("nbs/train_gpt.ipynb")),
                            str(Path(tempfile.mkdtemp()) / "run.ipynb"), "--cwd", str(project_path("nbs")),
                            *[a for k, v in params.items() for a in ("-p", k, str(v))]],
                           capture_output=True, text=True, env={**os.environ, "OMP_NUM_THREADS": "1"})
    assert r.returncode == 0, r.stderr[-3000:]
    return d

def _set(d:dict, key:str, v):
    "Set dotted `key` in nested `d`."
    *path, last = key.split(".")
    for k in path: d = d[k]
    d[last] = v

def _shift_final(line:str, shift:float)->str:
    "A final_<tag>_exact line with val_loss moved by `shift` nats (val_bpb in proportion)."
    m = FINAL_RE.match(line)
    if not m: return line
    loss, bpb = float(m[2]), float(m[3])
    return f"final_{m[1]}_exact val_loss:{loss + shift:.8f} val_bpb:{bpb * (loss + shift) / loss:.8f}"

def fake_seed(dst, seed:int, shift:float=0.0, src=None, **edits)->Path:
    """Copy run `src` (default: the real seed 1) to `dst` as seed `seed`, its final scores moved by `shift` nats;
    `edits` set dotted fields (a__b for a.b)."""
    src, dst = Path(src or tiny_seed(1)), Path(dst)
    dst.mkdir(parents=True)
    m = json.loads((src / "metrics.json").read_text())
    m["run_name"] = dst.name; _set(m, "train_config.seed", seed)
    for k, v in edits.items(): _set(m, k.replace("__", "."), v)
    (dst / "metrics.json").write_text(json.dumps(m))
    log = [_shift_final(l, shift) for l in (src / "train.log").read_text().splitlines()]
    (dst / "train.log").write_text("\n".join(f"seed:{seed}" if l.startswith("seed:") else l for l in log) + "\n")
    return dst

def seed_sets(tmp:Path)->tuple:
    "Three new seeds 0.020 nats better on average than three reference seeds, copies of the real seed 1."
    new = [fake_seed(tmp / f"new_s{s}", s, d) for s, d in [(1, -0.020), (2, -0.022), (3, -0.018)]]
    old = [fake_seed(tmp / f"old_s{s}", s, d) for s, d in [(1, 0.000), (2, 0.003), (3, -0.003)]]
    return new, old
