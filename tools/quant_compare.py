"""The late records' export choices side by side on one trained model: clip search, SDClip, GPTQ on the embedding, LQER.

    python tools/quant_compare.py runs/demo                # the demo's checkpoint, its own data and calibration
    python tools/quant_compare.py runs/demo --json out.json

Reads the run's `ckpt.pt` (the trained weights) and `metrics.json` (its data, model and export settings), captures the
GPTQ Hessians once on the run's calibration batches (training windows, as the main job does, the head's input included),
then exports the same weights under each policy below and reports, per policy: the mean relative output error of the
int-quantized matrices (06_gptq.output_error, from each matrix's Hessian), the artifact's compressed model bytes
(brotli, the demo's compressor) and the plain val_bpb of the model rebuilt from that artifact, on the whole val stream.
Every policy sees the same weights, Hessians and val tokens, so the rows differ only by the export.
"""
import argparse, json, sys, tempfile, time
from dataclasses import replace
from pathlib import Path
import torch

from smolqat.data import open_data, load_val_tokens, build_byte_luts, Tokenizer, TokenLoader
from smolqat.eval import eval_bpb
from smolqat.export import quantize_model, save_artifact, roundtrip_model, dequantize_state_dict
from smolqat.gptq import capture_hessians, loader_calibration, output_error
from smolqat.mixed_quant import named_policy
from smolqat.model import GPT
from smolqat.gptconfig import GPTConfig
from smolqat.checkpoint import load_checkpoint

POLICIES = {  # name -> MixedPolicy changes on top of the run's own quantization (gptq6 for the demo)
    "clip search (today)": {},
    "SDClip 12.85 / 20": dict(sdclip=12.85, embed_sdclip=20.0),
    "clip search + LQER r4 x3": dict(lqer_rank=4),
    "SDClip + LQER r4 x3": dict(sdclip=12.85, embed_sdclip=20.0, lqer_rank=4),
    "SDClip + GPTQ int7 embedding": dict(sdclip=12.85, embed_sdclip=20.0, embed="gptq7"),
    "all (SDClip, int7 embedding, LQER)": dict(sdclip=12.85, embed_sdclip=20.0, embed="gptq7", lqer_rank=4),
}


def run_setup(run:Path):
    "The run's trained model, data, val tokens and byte tables, read back from its folder."
    rec = json.loads((run / "metrics.json").read_text())
    cfg = GPTConfig(**rec["model_config"])
    model = GPT(cfg); model.load_state_dict(load_checkpoint(run / "ckpt.pt")["model"]); model.eval()
    docs = rec.get("corpus_docs", "stream")
    dp = open_data(rec["corpus"], cfg.vocab_size, docs=docs, case=rec.get("case_markers", False))
    return rec, model, dp, load_val_tokens(dp), build_byte_luts(Tokenizer(dp.tokenizer))


def main(argv=None)->int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run", type=Path, help="a finished train_gpt run folder (ckpt.pt, metrics.json)")
    ap.add_argument("--json", type=Path, default=None, help="also write the rows here")
    a = ap.parse_args(argv)
    for f in ("ckpt.pt", "metrics.json"):
        if not (a.run / f).is_file(): sys.exit(f"{a.run}: no {f} (a finished train_gpt run folder)")
    rec, model, dp, val, luts = run_setup(a.run)
    tc = rec["train_config"]
    calib = loader_calibration(TokenLoader(dp.train_shards, tc["seq_len"], tc["batch_size"], seed=tc["seed"] + 1), 16)
    hs = capture_hessians(model, calib, tied_head=model.cfg.tie_embeddings)
    base, sd, rows = named_policy(rec["quantization"]), model.state_dict(), []
    print(f"{a.run}: {rec['quantization']}, {model.cfg.n_layer}x{model.cfg.n_embd}, git {rec.get('git_sha')}, steps "
          f"{rec['results'].get('steps')}", flush=True)
    for name, kw in POLICIES.items():
        t0 = time.time()
        obj, stats = quantize_model(model, hs, replace(base, **kw))
        back = dequantize_state_dict(obj)
        ints = [n for n, e in obj["entries"].items() if e["scheme"].startswith(("gptq", "rtn", "int8_row"))]
        err = sum(output_error(sd[n], back[n], hs[n].H) for n in ints if n in hs) / sum(n in hs for n in ints)
        with tempfile.TemporaryDirectory() as d:
            size = save_artifact(obj, Path(d) / "m.ptz", config=model.cfg, compressor="brotli")
            rt = roundtrip_model(Path(d) / "m.ptz").eval()
        ev = eval_bpb(rt, val, luts, tc["seq_len"])
        rows.append(dict(policy=name, mean_output_error=round(err, 6), model_bytes=size["bytes"],
                         val_bpb_roundtrip=round(ev["bpb"], 5), lqer=stats.get("lqer", []),
                             seconds=round(time.time() - t0, 1)))
        print(json.dumps(rows[-1]), flush=True)
    ref = rows[0]
    print("\n| policy | mean output error | model bytes | val_bpb after the round trip |\n|---|---|---|---|")
    for r in rows:
        print(f"| {r['policy']} | {r['mean_output_error']:.5f} | {r['model_bytes']:,} "
              f"({r['model_bytes'] / ref['model_bytes']:.3f}x) | {r['val_bpb_roundtrip']:.4f} "
              f"({r['val_bpb_roundtrip'] - ref['val_bpb_roundtrip']:+.4f}) |")
    if a.json: a.json.write_text(json.dumps(dict(run=str(a.run), git_sha=rec.get("git_sha"), rows=rows), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
