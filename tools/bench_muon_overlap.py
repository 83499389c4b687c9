"""Time a training step with Muon's parallel form against the current one, on CPU gloo ranks under torchrun.

    python tools/bench_muon_overlap.py [--model demo|record] [--layers N] [--nproc 2] [--steps 8] [--quick]

The current form: DDP all-reduces every gradient, every rank keeps all momentum, orthogonalizes its share of each
same-shape bucket and all-gathers (`Muon`). The parallel form (`TrainConfig.muon_parallel`, `ParallelMuon`): DDP leaves
the matrices out; Muon reduce-scatters their gradients, keeps the momentum of its shard, orthogonalizes it and
all-gathers, with NS overlapping the previous bucket's all-gather and AdamW the last one. Both train the same model on
the
same batches, in one torchrun launch, steps interleaved (current, parallel, current, ...) after `--warmup` steps of
each, a barrier before every step. Timed per step on each rank: the whole step, and its optimizer part (from the end
of backward: norm, clip, every optimizer step); the slowest rank's time counts.

Models: `demo` is the demo preset's shapes (smolqat.presets, 4 x 256, seq 256, batch 16); `record` the parameter-golf
record's matrix shapes (width 512, 8 heads, 4 KV heads, MLP x3) with fewer layers (`--layers`, default 2) and
shorter rows. `--quick` only checks that the script runs (two layers, 4 rows of 64 tokens, 2 steps). Prints one JSON
object:
median ms per step of each form, and ratios current / parallel (> 1: the parallel form is faster).
CPU timings on a shared machine are indicative only; gloo's collectives run on helper threads that compete with the
ranks' compute for the same cores.
"""
import argparse, json, os, statistics, sys, tempfile, time
from pathlib import Path

MODELS = {  # GPTConfig shapes and batch of each --model
    "demo": None,   # read from smolqat.presets.main_presets()["demo"]
    "record": dict(n_layer=2, n_embd=512, n_head=8, n_kv_head=4, mlp_mult=3, seq_len=128, batch_size=8),
}

def model_shape(name:str, layers:int=0, seq_len:int=0, batch_size:int=0)->dict:
    """n_layer, n_embd, n_head, n_kv_head, mlp_mult, seq_len, batch_size of a --model (a value > 0 of layers, seq_len,
    batch_size overrides it)."""
    if name == "demo":
        from smolqat.presets import main_presets
        p = main_presets()["demo"]
        shape = {k: p[k] for k in ("n_layer", "n_embd", "n_head", "n_kv_head", "mlp_mult", "seq_len", "batch_size")}
    else: shape = dict(MODELS[name])
    over = dict(n_layer=layers, seq_len=seq_len, batch_size=batch_size)
    return {**shape, **{k: v for k, v in over.items() if v > 0}}

def setup(shape:dict, parallel:bool, rank:int, world:int):
    "A RunState training the model of `shape` with muon_parallel=`parallel`, and its loader."
    import numpy as np, torch
    from smolqat.data import TokenLoader
    from smolqat.gptconfig import GPTConfig
    from smolqat.model import GPT
    from smolqat.trainconfig import TrainConfig
    from smolqat.train import setup_run
    cfg = TrainConfig(steps=10**6, batch_size=shape["batch_size"], seq_len=shape["seq_len"], warmup_steps=0,
                      autocast="fp32",
                      device="cpu", muon_parallel=parallel)
    torch.manual_seed(0)
    model = GPT(GPTConfig(vocab_size=1024, block_size=shape["seq_len"],
                          **{k: shape[k] for k in ("n_layer", "n_embd", "n_head", "n_kv_head", "mlp_mult")}))
    stream = np.random.default_rng(0).integers(0, 1024, 200_000)
    loader = TokenLoader([stream], shape["seq_len"], shape["batch_size"], seed=0, rank=rank, world_size=world)
    return setup_run(cfg, model, loader), cfg, loader

def timed_step(run, cfg, batch)->tuple: # (step seconds, optimizer seconds), the slowest rank's
    "One training step (forward/backward, global norm, optimizer steps), timed after a barrier."
    import torch, torch.distributed as dist
    from smolqat.train import forward_backward, grad_norm, parallel_grad_norm, _optimizer_step
    dist.barrier(); t0 = time.perf_counter()
    forward_backward(run, batch, cfg); t1 = time.perf_counter()
    norm = grad_norm(run.model) if run.parallel_muon is None else parallel_grad_norm(run)
    _optimizer_step(run, cfg, norm)
    for o in run.optimizers: o.zero_grad(set_to_none=True)
    t = torch.tensor([time.perf_counter() - t0, time.perf_counter() - t1], dtype=torch.float64)
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return tuple(t.tolist())

def measure(a, shape:dict, rank:int, world:int)->tuple: # ({form: [(step s, optimizer s), ...]}, Muon parameters)
    "Both forms set up, then their steps interleaved; the timed ones' seconds."
    forms = {name: setup(shape, name == "parallel", rank, world) for name in ("current", "parallel")}
    times = {name: [] for name in forms}
    for i in range(a.warmup + a.steps):
        for name, (run, cfg, loader) in forms.items():
            t = timed_step(run, cfg, loader.batch(i))
            if i >= a.warmup: times[name].append(t)
    return times, sum(p.numel() for g in forms["parallel"][0].parallel_muon.param_groups for p in g["params"])

def worker(a):
    "Under torchrun: both forms measured; rank 0 writes the medians to a.out."
    import torch, torch.distributed as dist
    from smolqat.core import init_distributed
    rank, world = init_distributed("gloo")
    shape = model_shape(a.model, a.layers, a.seq_len, a.batch_size)
    # the runs (DDP modules) are gone before the process group: freed after it, they can hang the exit
    times, matrices = measure(a, shape, rank, world)
    if rank == 0:
        med = {name: [1000 * statistics.median(t[j] for t in ts) for j in (0, 1)] for name, ts in times.items()}
        out = dict(model=a.model, shape=shape, nproc=world, threads_per_rank=torch.get_num_threads(), steps=a.steps,
                   warmup=a.warmup,
                   muon_params=matrices, step_ms={k: round(v[0], 1) for k, v in med.items()},
                       optimizer_ms={k: round(v[1], 1) for k, v in med.items()},
                   step_ratio=round(med["current"][0] / med["parallel"][0], 3),
                       optimizer_ratio=round(med["current"][1] / med["parallel"][1], 3))
        Path(a.out).write_text(json.dumps(out))
    dist.destroy_process_group()

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", choices=sorted(MODELS), default="demo",
                    help="demo preset's shapes, or the record's with fewer layers")
    ap.add_argument("--layers", type=int, default=0, help="transformer blocks (0: the model's own)")
    ap.add_argument("--seq-len", type=int, default=0, help="tokens per row (0: the model's own)")
    ap.add_argument("--batch-size", type=int, default=0, help="rows per step, all ranks (0: the model's own)")
    ap.add_argument("--nproc", type=int, default=2, help="gloo ranks")
    ap.add_argument("--steps", type=int, default=8, help="timed steps of each form")
    ap.add_argument("--warmup", type=int, default=2, help="untimed steps of each form first")
    ap.add_argument("--threads", type=int, default=1, help="torch threads per rank")
    ap.add_argument("--quick", action="store_true",
                    help="only check that it runs: two layers, 4 rows of 64 tokens, 2 steps")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.worker: return worker(a)
    from smolqat.core import launch_torchrun
    out = Path(tempfile.mkdtemp(prefix="bench_muon_")) / "result.json"
    if a.quick: a.layers, a.seq_len, a.batch_size, a.steps, a.warmup = 2, 64, 4, 2, 1
    args = ["--model", a.model, "--layers", a.layers, "--seq-len", a.seq_len, "--batch-size", a.batch_size, "--steps",
            a.steps,
            "--warmup", a.warmup, "--out", out, "--worker"]
    launch_torchrun([__file__, *args], a.nproc, cpu_threads=a.threads)
    res = json.loads(out.read_text())
    if a.quick: res["quick"] = True   # shapes cut down: a check that it runs, not a measurement
    print(json.dumps(res))

if __name__ == "__main__": main()
