"""Evaluation over ranks against threads on the CPU: sliding eval and score-first TTT, each run 1 rank x 1 thread, 1
rank x 2 threads and 2 gloo ranks x 1 thread.

    python tools/bench_eval_ranks.py            # the demo preset's model (random weights): minutes, on a quiet machine
    python tools/bench_eval_ranks.py --quick    # the tiny preset's model and short streams: checks that it runs
    (seconds)

(a) `eval_sliding` over --sliding-targets targets of the validation stream at the preset's seq_len and eval_stride;
(b) `eval_ttt` with chunk_tokens=32768 (the record's; --quick: 2048) over two chunks, so that one chunk is trained on
(SGD with the record's lr, momentum, batch_seqs and grad clip; --ttt-epochs passes). Each way runs in its own processes
under torchrun with its OMP/MKL thread count (and torch.set_num_threads): a warm-up on a short stream, then --repeats
timed
runs; a way's time is the median of the evaluator's `seconds` (the slowest rank's). Prints one JSON object: per
evaluator
the seconds of each way, the ratios 2x1 / 1x1 and 2x1 / 1x2 next to their targets, whether each target is met, and each
way's bpb. Asserts that the ways agree: sliding to 1e-6 relative with the same token and byte counts, TTT to 1e-5.
"""
import argparse, json, os, statistics, sys, tempfile
from pathlib import Path

WAYS = {"1x1": (1, 1), "1x2": (1, 2), "2x1": (2, 1)}   # way -> (ranks, threads per rank)
# the most each ratio may be
TARGETS = {"sliding": {"2x1/1x1": 0.6, "2x1/1x2": 1.05}, "ttt": {"2x1/1x1": 0.7, "2x1/1x2": 1.1}}
AGREE = {"sliding": 1e-6, "ttt": 1e-5}                  # relative bpb difference allowed between the ways

def bench_spec(quick:bool, sliding_targets:int=None, ttt_epochs:int=1, repeats:int=None)->dict:
    "What every way runs: the preset's model, the streams' lengths, the TTT config, the repeats."
    from smolqat.presets import main_presets
    name = "tiny" if quick else "demo"
    p = main_presets()[name]
    chunk = 2048 if quick else 32768
    model = dict(vocab_size=p["vocab_size"], n_layer=p["n_layer"], n_head=p["n_head"], n_kv_head=p["n_kv_head"],
                 n_embd=p["n_embd"],
                 mlp_mult=p["mlp_mult"], block_size=p["seq_len"])
    ttt = dict(seq_len=p["seq_len"], stride=p["eval_stride"], chunk_tokens=chunk, epochs=ttt_epochs, lr=0.002,
               optimizer="sgd",
               momentum=0.9, batch_seqs=32, grad_clip=1.0, freeze_blocks=0)   # the record's TTT settings
    return dict(preset=name, model=model, seq_len=p["seq_len"], stride=p["eval_stride"], ttt=ttt, ttt_targets=2 * chunk,
                sliding_targets=sliding_targets or (4096 if quick else 16384), repeats=repeats or (1 if quick else 3))

def _setup(s:dict)->tuple: # (model, luts, stream)
    "The seeded model (random weights, perturbed off the zero init) and the validation stream of the spec's mode."
    import torch
    from smolqat.data import prepare_data, Tokenizer, build_byte_luts, load_val_tokens
    from smolqat.gptconfig import GPTConfig
    from smolqat.model import GPT
    dp = prepare_data(); luts = build_byte_luts(Tokenizer(dp.tokenizer))
    torch.manual_seed(0); model = GPT(GPTConfig(**s["model"]))
    with torch.no_grad():
        for p in model.parameters(): p.add_(0.02 * torch.randn_like(p))
    n = s["sliding_targets"] if s["mode"] == "sliding" else s["ttt_targets"]
    return model, luts, load_val_tokens(dp)[:n + 1]

def _evaluate(s:dict, model, luts, stream, rank:int, world:int)->dict:
    "The spec's evaluator over `stream`, shared over the ranks."
    from smolqat.eval import eval_sliding
    from smolqat.ttt import eval_ttt, TTTConfig
    if s["mode"] == "sliding":
        return eval_sliding(model, stream, luts, s["seq_len"], s["stride"], rank=rank, world=world)
    return eval_ttt(model, stream, luts, TTTConfig(**s["ttt"]), rank=rank, world=world)

def worker(spec_path:str, out_path:str):
    "Under torchrun: a warm-up, then the timed runs; rank 0 writes their seconds and the last result."
    import torch, torch.distributed as dist
    from smolqat.core import init_distributed, rank_world, under_torchrun
    s = json.loads(Path(spec_path).read_text())
    # torchrun's contract: WORLD_SIZE names the ranks
    if under_torchrun(): init_distributed("gloo")
    rank, world = rank_world()
    torch.set_num_threads(s["threads"])
    model, luts, stream = _setup(s)
    _evaluate(s, model, luts, stream[:4 * s["seq_len"] + 1], rank, world)                  # warm-up
    runs = [_evaluate(s, model, luts, stream, rank, world) for _ in range(s["repeats"])]
    if rank == 0: Path(out_path).write_text(json.dumps(dict(seconds=[r["seconds"] for r in runs], result=runs[-1])))
    if world > 1: dist.destroy_process_group()

def run_way(spec:dict, mode:str, way:str, tmp:Path)->dict:
    "One way of one evaluator, in its own torchrun processes: its seconds and result."
    from smolqat.core import launch_torchrun
    ranks, threads = WAYS[way]
    sp, out = tmp / f"{mode}_{way}.spec.json", tmp / f"{mode}_{way}.out.json"
    sp.write_text(json.dumps({**spec, "mode": mode, "threads": threads}))
    launch_torchrun([Path(__file__).resolve(), "--worker", sp, out], ranks, cpu_threads=threads)
    return json.loads(out.read_text())

def check_agree(mode:str, res:dict):
    """AssertionError unless every way's bpb is the 1x1 one within AGREE[mode] (relative), with the same token and byte
    counts."""
    base = res["1x1"]["result"]
    for way, r in res.items():
        got = r["result"]
        assert (got["tokens"], got["bytes"]) == (base["tokens"], base["bytes"]), (mode, way, got["tokens"],
            got["bytes"], base["tokens"], base["bytes"])
        assert abs(got["bpb"] - base["bpb"]) <= AGREE[mode] * base["bpb"], (mode, way, got["bpb"], base["bpb"])

def summarize(mode:str, res:dict)->dict:
    "Median seconds per way, the ratios against their targets, and each way's bpb."
    sec = {w: statistics.median(r["seconds"]) for w, r in res.items()}
    ratios = {"2x1/1x1": sec["2x1"] / sec["1x1"], "2x1/1x2": sec["2x1"] / sec["1x2"]}
    return dict(seconds={w: round(v, 3) for w, v in sec.items()}, ratios={k: round(v, 3) for k, v in ratios.items()},
                targets=TARGETS[mode], met={k: ratios[k] <= t for k, t in TARGETS[mode].items()},
                bpb={w: r["result"]["bpb"] for w, r in res.items()})

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true",
                    help="the tiny preset's model and short streams (checks that it runs)")
    ap.add_argument("--sliding-targets", type=int, help="targets of the sliding eval (default 16384; --quick 4096)")
    ap.add_argument("--ttt-epochs", type=int, default=1, help="TTT passes over each trained chunk")
    ap.add_argument("--repeats", type=int, help="timed runs per way (default 3; --quick 1)")
    ap.add_argument("--worker", nargs=2, metavar=("SPEC", "OUT"), help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.worker: return worker(*a.worker)
    spec = bench_spec(a.quick, a.sliding_targets, a.ttt_epochs, a.repeats)
    out = dict(preset=spec["preset"], model=spec["model"], sliding_targets=spec["sliding_targets"],
               ttt_targets=spec["ttt_targets"],
               ttt_config=spec["ttt"], repeats=spec["repeats"], cpus=os.cpu_count())
    with tempfile.TemporaryDirectory() as d:
        for mode in ("sliding", "ttt"):
            res = {way: run_way(spec, mode, way, Path(d)) for way in WAYS}
            check_agree(mode, res)
            out[mode] = summarize(mode, res)
    print(json.dumps(out, indent=1))

if __name__ == "__main__": sys.exit(main())
