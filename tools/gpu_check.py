"""The GPU checks of the workbench in one run, one JSON out (see tools/gpu_check.sh).

    python tools/gpu_check.py [--cpu] [--out FILE]

On a machine with a CUDA GPU: every notebook's `#| gpu` cells (nbdev-test --flags gpu), the baseline preset of
nbs/train_gpt.ipynb for 200 steps on a local replica of the challenge's data layout built from the embedded corpus
(flash-attn when importable, SDPA otherwise; torch.compile on), the record preset at its size for its priming (20 steps
before the clock) and its first 50 timed steps, the record's post-training on its artifact (calibration, the sliding
eval and TTT, each timed on a slice and projected to the challenge's full validation set on 8 GPUs), and flash-attn
against SDPA logits on the same weights. The JSON holds tokens/s, MFU against the GPU's dense bf16 peak, peak memory,
priming and compile seconds, the post-training rates and projections, the agreement, and what activation offload
(`TrainConfig.offload_activations`) saves in peak memory and costs in time on one forward and backward.
`--cpu` runs the same steps at tiny shapes on the CPU (what CI runs): the #| gpu cells and the flash comparison are
reported as skipped there."""
import argparse, json, os, re, statistics, subprocess, sys, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# dense bf16 FLOP/s from NVIDIA's datasheets (SXM parts)
BF16_PEAK = {"H100": 989e12, "H200": 989e12, "A100": 312e12, "L40S": 362e12}
TINY = dict(n_layer=2, n_embd=64, n_head=2, n_kv_head=1, seq_len=64, batch_size=16, grad_accum=2, steps=6,
            torch_compile="off")
# the record's block indices fitted to 2 blocks
TINY_RECORD = dict(TINY, eval_seq_len=64, ve_layers=[0, 1], xsa_last=1, prime_steps=2)
RUNS = {  # preset -> (steps, what else the check sets: a short scored tail, no TTT, 2 calibration batches)
    "baseline": (200, {}),
    "record": (50,
               dict(eval_max_tokens=65536, eval_stride=0, ttt_epochs=0, calib_batches=2, calib_reserve_seconds=0.0))}

def gpu_notebooks()->list:
    "The notebooks that carry a `#| gpu` cell."
    return sorted(p for p in (ROOT / "nbs").glob("*.ipynb") if "#| gpu" in p.read_text())

def run_gpu_cells(cuda:bool)->dict:
    "nbdev-test with the gpu flag on each notebook that has #| gpu cells: {notebook: passed/failed/skipped}."
    out = {}
    for nb in gpu_notebooks():
        if not cuda: out[nb.name] = "skipped (no CUDA)"; continue
        r = subprocess.run([str(Path(sys.executable).parent / "nbdev-test"), "--flags", "gpu", str(nb)], cwd=ROOT,
                           capture_output=True, text=True)
        out[nb.name] = "passed" if r.returncode == 0 else f"failed: {(r.stdout + r.stderr)[-800:]}"
    return out

def papermill_preset(preset:str, run_name:str, replica:dict, backend:str, cpu:bool)->Path:
    """A preset of train_gpt for RUNS' step count (tiny shapes with --cpu) on the replica, one record per step,
    compiled; returns the run folder."""
    steps, extra = RUNS[preset]
    params = dict(preset=preset, run_name=run_name, resume=False, steps=steps, max_seconds=0.0, val_every=0,
                  log_every=1,
                  checkpoint_every=0, data_dir=replica["data_dir"], tokenizer=replica["tokenizer"],
                      attn_backend=backend,
                  torch_compile="on", **extra)
    params.update({**(TINY_RECORD if preset == "record" else TINY), "device": "cpu"} if cpu else {})
    # a list as YAML
    args = [a for k, v in params.items() for a in (("-y", f"{k}: {v}") if isinstance(v, list) else ("-p", k, str(v)))]
    run_dir = ROOT / "runs" / run_name; run_dir.mkdir(parents=True, exist_ok=True)
    r = subprocess.run([sys.executable, "-m", "papermill", str(ROOT / "nbs/train_gpt.ipynb"),
                        str(run_dir / "train_gpt.ipynb"),
                        *args, "--cwd", str(ROOT / "nbs")], capture_output=True, text=True)
    if r.returncode: raise RuntimeError(f"the {preset} run failed:\n{r.stderr[-3000:]}")
    return run_dir

def step_times(run_dir:Path)->list:
    "Training seconds at the end of each step, from the run's metrics.jsonl (log_every 1)."
    from smolqat.checkpoint import read_metrics
    return [r["elapsed"] for r in read_metrics(run_dir / "metrics.jsonl") if "train_loss" in r]

def peak_memory(run_dir:Path)->dict:
    "The 'peak memory allocated: X MiB reserved: Y MiB' line of the run's train.log."
    m = re.search(r"peak memory allocated: (\d+) MiB reserved: (\d+) MiB", (run_dir / "train.log").read_text())
    return dict(allocated_mib=int(m[1]), reserved_mib=int(m[2])) if m else {}

def speed(run_dir:Path, device_name:str)->dict:
    """tokens/s after the first step, compile seconds left in the first timed step (it minus the median step), the
    priming's steps and seconds, MFU against the datasheet's bf16 peak and the run's own against the measured matmul
    peak (05d_throughput)."""
    rec = json.loads((run_dir / "metrics.json").read_text())
    tcfg = rec["train_config"]
    t = step_times(run_dir); dts = [b - a for a, b in zip(t, t[1:])]
    tok_step = tcfg["batch_size"] * tcfg["seq_len"]
    tok_s = tok_step * len(dts) / (t[-1] - t[0])
    peak, res = next((v for k, v in BF16_PEAK.items() if k in device_name), None), rec["results"]
    # the run's FLOPs per token, counted from its model (05d_throughput flops_per_token)
    fpt = res.get("flops_per_token")
    return dict(steps=len(t), tokens_per_step=tok_step, grad_accum=tcfg["grad_accum"], tokens_per_s=round(tok_s),
                median_step_ms=round(1000 * statistics.median(dts), 2),
                    compile_seconds=round(t[0] - statistics.median(dts), 2),
                flops_per_token=fpt, mfu=round(tok_s * fpt / peak, 4) if peak and fpt else None, bf16_peak_flops=peak,
                mfu_measured_peak=res.get("mfu"), measured_peak_flops=res.get("peak_flops"),
                    measured_peak_dtype=res.get("peak_dtype"),
                peak_memory=peak_memory(run_dir), val_bpb_roundtrip=rec["results"]["val_bpb_roundtrip"],
                autocast=rec["results"]["autocast"], compile=rec["results"].get("compile"),
                **{k: rec["results"][k] for k in ("prime_steps", "prime_seconds",
                                                  "prime_charged") if k in rec["results"]})

# the challenge's validation targets (the baseline's log: val_loader ... tokens:62021632)
CHALLENGE_VAL_TOKENS = 62_021_632
# what is timed: calibration batches, val tokens
POST_TOKENS = dict(gpu=dict(calib=2, sliding=262_144, ttt=131_072), cpu=dict(calib=1, sliding=4096, ttt=4096))

def _timed(f, cuda:bool)->tuple: # (result, seconds)
    import torch
    if cuda: torch.cuda.synchronize()
    t0 = time.perf_counter(); r = f()
    if cuda: torch.cuda.synchronize()
    return r, time.perf_counter() - t0

def export_on_both(model, hessians:dict, dev, cuda:bool)->dict:
    """The record's GPTQ export of the same weights and Hessians on the CPU and on `dev` (ExportConfig.gptq_on 'cpu' /
    'train'): seconds each, and how far the dequantized tensors differ."""
    from smolqat.mixed_quant import named_policy
    from smolqat.export import quantize_model, dequantize_model_state
    from dataclasses import asdict
    (cpu_obj, _), cpu_s = _timed(lambda: quantize_model(model, hessians, named_policy("gptq6")), cuda)
    (dev_obj, _), dev_s = _timed(lambda: quantize_model(model, hessians, named_policy("gptq6"), device=dev), cuda)
    a, b = (dequantize_model_state(o, asdict(model.cfg)) for o in (cpu_obj, dev_obj))
    rel = max(((a[n].float() - b[n].float()).norm() / a[n].float().norm().clamp_min(1e-12)).item() for n in a)
    codes_differ = sum(int((cpu_obj["entries"][n]["q"] != dev_obj["entries"][n]["q"]).sum()) for n in a
                       if "q" in cpu_obj["entries"][n])
    return dict(cpu_s=round(cpu_s, 2), device_s=round(dev_s, 2), max_rel_diff=rel, codes_differ=codes_differ)

def post_training(run_dir:Path, replica:dict, cuda:bool)->dict:
    """The record run's artifact on the device: calibration batches, a sliding eval and TTT over a slice of the val
    stream, timed; rates and the projection to 8 GPUs."""
    import torch
    from dataclasses import asdict
    from smolqat.export import roundtrip_model
    from smolqat.job_parts import ExportConfig, calibrate, job_data
    from smolqat.eval import eval_sliding, sliding_windows
    from smolqat.ttt import eval_ttt, TTTConfig
    rec, n = json.loads((run_dir / "metrics.json").read_text()), POST_TOKENS["gpu" if cuda else "cpu"]
    tc, dev = rec["train_config"], torch.device("cuda" if cuda else "cpu")
    model = roundtrip_model(next(run_dir.glob("model.*.ptz"))).to(dev)
    seq, stride = rec["model_config"]["block_size"], 64 if cuda else 32
    d = job_data(dict(data_dir=replica["data_dir"], tokenizer=replica["tokenizer"]), model.cfg)
    dtype = torch.bfloat16 if cuda else None
    calib_cfg = ExportConfig(quantization="gptq6", calib_batches=n["calib"])
    hs, calib_s = _timed(lambda: calibrate(model, calib_cfg, d.dp.train_shards, tc["seq_len"], tc["batch_size"], 1337),
                         cuda)
    export = export_on_both(model, hs, dev, cuda)
    calib_tokens = n["calib"] * tc["batch_size"] * tc["seq_len"]
    sl_val = d.val_tokens[:n["sliding"] + 1]
    sl, sl_s = _timed(lambda: eval_sliding(model, sl_val, d.luts, seq, stride, device=dev, autocast=dtype), cuda)
    ttt_cfg = TTTConfig(seq_len=seq, stride=stride, chunk_tokens=32768 if cuda else 1024, epochs=3, lr=0.002,
                        optimizer="sgd", freeze_blocks=0)
    ttt_val = d.val_tokens[:n["ttt"] + 1]
    tt, ttt_s = _timed(lambda: eval_ttt(model, ttt_val, d.luts, ttt_cfg, device=dev, autocast=dtype), cuda)
    # the full val set, its windows spread over 8 ranks
    full = lambda seconds, tokens: round(seconds * CHALLENGE_VAL_TOKENS / tokens / 8, 1)
    return dict(device=str(dev), seq_len=seq, stride=stride, export=export,
                calibration=dict(batches=n["calib"], tokens=calib_tokens, seconds=round(calib_s, 3),
                                 tokens_per_s=round(calib_tokens / calib_s)),
                sliding=dict(val_tokens=n["sliding"],
                             forward_tokens=int(sliding_windows(len(sl_val), seq, stride).length.sum()),
                             seconds=round(sl_s, 3),
                             val_tokens_per_s=round(n["sliding"] / sl_s),
                                 projected_8gpu_full_val_s=full(sl_s, n["sliding"]), bpb=sl["bpb"]),
                ttt=dict(val_tokens=n["ttt"], chunk_tokens=ttt_cfg.chunk_tokens, epochs=ttt_cfg.epochs,
                         seconds=round(ttt_s, 3), updates=tt["updates"],
                         val_tokens_per_s=round(n["ttt"] / ttt_s), projected_8gpu_full_val_s=full(ttt_s, n["ttt"]),
                             bpb=tt["bpb"]))

def flash_vs_sdpa(cuda:bool, flash:bool)->dict:
    "Logits of one baseline-shaped GPT with flash-attn and with SDPA on the same weights, bf16 on the GPU."
    if not (cuda and flash): return dict(skipped="no CUDA" if not cuda else "flash-attn not importable")
    import torch
    from smolqat.model import GPT
    from smolqat.gptconfig import GPTConfig
    torch.manual_seed(0)
    cfg = dict(vocab_size=1024, n_layer=9, n_embd=512, n_head=8, n_kv_head=4, block_size=1024)
    a, b = GPT(GPTConfig(**cfg, attn_backend="sdpa")).cuda(), GPT(GPTConfig(**cfg, attn_backend="flash")).cuda()
    b.load_state_dict(a.state_dict())
    x = torch.randint(0, 1024, (4, 1024), device="cuda")
    with torch.no_grad(), torch.autocast("cuda", dtype=torch.bfloat16): la, lb = a(x).float(), b(x).float()
    diff = (la - lb).abs()
    return dict(max_abs_diff=diff.max().item(), mean_abs_diff=diff.mean().item(), logit_std=la.std().item(),
                argmax_agree=(la.argmax(-1) == lb.argmax(-1)).float().mean().item(),
                    ok=bool(diff.max().item() < 0.1 * la.std().item() + 0.05))

def activation_offload(cuda:bool)->dict:
    """Forward and backward of a baseline-shaped GPT (a tiny one on the CPU) with and without offload_activations: peak
    memory, seconds, and the loss both ways."""
    import torch
    from smolqat.model import GPT
    from smolqat.gptconfig import GPTConfig
    from smolqat.trainconfig import TrainConfig
    from smolqat.train import _offload
    dev = torch.device("cuda" if cuda else "cpu")
    shape = dict(n_layer=9, n_embd=512, n_head=8, n_kv_head=4, block_size=1024) if cuda else dict(n_layer=2, n_embd=64,
        n_head=2, n_kv_head=1, block_size=64)
    torch.manual_seed(0)
    model, rows = GPT(GPTConfig(vocab_size=1024, **shape)).to(dev), 16 if cuda else 4
    x = torch.randint(0, 1024, (rows, shape["block_size"] + 1), device=dev)
    out = {}
    for on in (False, True):
        cfg = TrainConfig(offload_activations=on)
        if cuda: torch.cuda.empty_cache(); torch.cuda.reset_peak_memory_stats()
        def step():
            with _offload(cfg, dev), torch.autocast(dev.type, torch.bfloat16, enabled=cuda):
                loss = model(x[:, :-1], x[:, 1:])
                loss.backward()
            model.zero_grad(set_to_none=True)
            return loss.item()
        step()   # warm
        loss, s = _timed(step, cuda)
        out["on" if on else "off"] = dict(loss=loss, seconds=round(s, 4),
                                          peak_mib=round(torch.cuda.max_memory_allocated() / 2**20,
                                                         1) if cuda else None)
    saved = out["off"]["peak_mib"] - out["on"]["peak_mib"] if cuda else None
    return dict(device=str(dev), rows=rows, seq_len=shape["block_size"], **out, saved_mib=saved,
                time_ratio=round(out["on"]["seconds"] / out["off"]["seconds"], 2),
                    same_loss=out["on"]["loss"] == out["off"]["loss"])

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cpu", action="store_true", help="tiny shapes on the CPU (no GPU needed): what CI runs")
    ap.add_argument("--out", type=Path, default=None,
                    help="also write the JSON here (default runs/gpu_check/gpu_check.json)")
    a = ap.parse_args()
    import torch
    cuda = torch.cuda.is_available() and not a.cpu
    if not a.cpu and not cuda: sys.exit("gpu_check: no CUDA device found; run with --cpu for the tiny CPU version")
    try: import flash_attn; flash = True
    except ImportError: flash = False
    name = torch.cuda.get_device_name(0) if cuda else "cpu"
    t0 = time.time()
    report = dict(device=name, torch=torch.__version__, flash_attn=flash, mode="cpu-tiny" if a.cpu else "gpu")
    report["gpu_cells"] = run_gpu_cells(cuda)
    from smolqat.replica import embedded_replica
    replica = embedded_replica(ROOT / "runs" / "gpu_check" / ("replica_8plays" if a.cpu else "replica"),
                               n_works=8 if a.cpu else None)
    backend = "flash" if cuda and flash else "sdpa"
    report["baseline_200"] = dict(attn_backend=backend,
                                  **speed(papermill_preset("baseline", "gpu_check_baseline", replica, backend, a.cpu),
                                          name))
    record_run = papermill_preset("record", "gpu_check_record", replica, backend, a.cpu)
    report["record_50"] = dict(attn_backend=backend, **speed(record_run, name))
    report["record_post_training"] = post_training(record_run, replica, cuda)
    report["flash_vs_sdpa"] = flash_vs_sdpa(cuda, flash)
    report["activation_offload"] = activation_offload(cuda)
    report["seconds"] = round(time.time() - t0, 1)
    out = a.out or ROOT / "runs" / "gpu_check" / "gpu_check.json"
    out.parent.mkdir(parents=True, exist_ok=True); out.write_text(json.dumps(report, indent=1))
    print(json.dumps(report, indent=1))
    failed = [k for k, v in report["gpu_cells"].items() if v.startswith("failed")] + (["flash_vs_sdpa"]
        if report["flash_vs_sdpa"].get("ok") is False else [])
    if failed: sys.exit(f"gpu_check: failed: {failed}")

if __name__ == "__main__": main()
