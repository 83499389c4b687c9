"""Conversion latency of input-method artifacts, side by side, on one thread.

    python tools/ime_latency.py                      # fp and ternary encoders at the main job's shape, untrained
    python tools/ime_latency.py runs/ime_fp runs/ime_kd   # the artifacts (model.ptz) of finished runs
    python tools/ime_latency.py runs/ime_fp --untrained   # both, in the same rounds
    python tools/ime_latency.py runs/ime_fp_aug runs/ime --compile   # each also with its encoder compiled

Times what `train_ime` times (11d_ime_serve's block_latency: the p50 and p95 of the quietest of 5 blocks of 50 calls):
one 20-syllable VAL sentence converted from the artifact, with its phrase table and without, next to libchewing typing
the same sentence (when installed). The encoders are timed in alternating rounds, so a change in the machine's load
falls on all of them alike. Untrained encoders convert in the same time as trained ones of the same shape: nothing in
the forward pass or the lattice depends on the weights' values, only on the shapes, the syllables and the table.
"""
import argparse, json, sys, tempfile
from pathlib import Path
import numpy as np, torch

from smolqat.chewing import Chewing
from smolqat.ime import IMEModel, ime_model_config
from smolqat.ime_baselines import all_pairs
from smolqat.ime_prepare import prepare_ime
from smolqat.bopomofo import is_syllable, bopomofo_text
from smolqat.ime_lexicon import chewing_table
from smolqat.ime_serve import Converter, ime_artifact, block_latency


def job_data():
    "The main job's data (train_ime's default preset: Taiwan readings, 50,000 phrase lines from each list)."
    return prepare_ime(readings="chewing", phrase_lines=50_000, phrase_lists=("chewing", "jieba"))


def untrained_artifacts(data, out:Path, n_layer:int=4, n_embd:int=192, min_freq:int=2)->dict: # name -> artifact path
    """fp and ternary (int8 activations) encoders of the job's shape, untrained, written as artifacts with the job's
    phrase table."""
    table = chewing_table(data, min_freq)
    paths = {}
    for mode in ("fp", "ternary"):
        torch.manual_seed(0)
        cfg = ime_model_config(len(data.vocab.inputs), len(data.vocab.chars), n_layer=n_layer, n_embd=n_embd, n_head=4,
                               n_kv_head=2,
                               block_size=128, weight_mode=mode)
        paths[mode] = out / f"{mode}.ptz"
        ime_artifact(IMEModel(cfg, data.legal).eval(), data.vocab, paths[mode], lexicon=table)
    return paths


def sentence20(data)->list:
    "The syllables of the first VAL line with 20 syllables in a row at its start (as train_ime picks it)."
    return next([data.vocab.inputs[i] for i in s[:20]] for s, _ in all_pairs(data.split("val"))
                if len(s) >= 20 and all(is_syllable(data.vocab.inputs[i]) for i in s[:20]))


def main(argv=None)->int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="*",
                    help="run folders (or artifact files); none: untrained fp and ternary encoders of the job's shape")
    ap.add_argument("--untrained", action="store_true", help="also the untrained encoders when runs are given")
    ap.add_argument("--rounds", type=int, default=3,
                    help="alternating rounds; each times every converter with block_latency")
    ap.add_argument("--compile", action="store_true",
                    help="also each artifact with its encoder compiled (Converter.from_artifact(compile=True)), after "
                    "a first conversion")
    a = ap.parse_args(argv)
    data, tmp = job_data(), tempfile.TemporaryDirectory()
    arts = {Path(r).name: (Path(r) / "model.ptz" if Path(r).is_dir() else Path(r)) for r in a.runs}
    if a.untrained or not arts:
        arts |= {f"untrained {k}": v for k, v in untrained_artifacts(data, Path(tmp.name)).items()}
    for name, p in arts.items():
        if not p.is_file(): sys.exit(f"{p}: no artifact (a train_ime run folder holds model.ptz)")
    syl = sentence20(data)
    text = bopomofo_text(syl)
    torch.set_num_threads(1)
    calls = {}
    for name, p in arts.items():
        conv = Converter.from_artifact(p, lm=False)
        calls[f"{name}, with the table"] = lambda c=conv: c.convert(text)
        calls[f"{name}, alone"] = lambda c=Converter(conv.model, conv.vocab, conv.tone_drop): c.convert(text)
        if a.compile:
            fast = Converter.from_artifact(p, lm=False, compile=True)
            if fast.convert(text) != conv.convert(text):
                sys.exit(f"{p}: the compiled encoder converts the sentence otherwise than eager")
            calls[f"{name}, with the table, compiled"] = lambda c=fast: c.convert(text)
    chew = Chewing.open()
    if chew: calls["libchewing"] = lambda: chew.type_run(syl)
    got = {k: [] for k in calls}
    for _ in range(a.rounds):
        for k, f in calls.items(): got[k].append(block_latency(f))
    best = {k: min(v, key=lambda r: r["p50_ms"]) for k, v in got.items()}
    print(f"one 20-syllable sentence ({text}), one thread, the quietest block of {5 * a.rounds} blocks of 50 calls:")
    for k, r in best.items(): print(f"  {k:<36} p50 {r['p50_ms']:6.2f} ms   p95 {r['p95_ms']:6.2f} ms")
    print(json.dumps({k: dict(p50_ms=round(r["p50_ms"], 3), p95_ms=round(r["p95_ms"], 3)) for k, r in best.items()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
