"""What a smaller IME artifact costs: one trained run's weights exported under several quantization policies, each
artifact's bytes by part and its accuracy with the phrase table on VAL and MOE, from the artifact's own round trip.

    python tools/ime_shrink.py runs/ime [--policies int8,rtn6,rtn4] [--min-freq 2,20] [--val 0] [--moe 2000] [--out
    FILE]

The run folder must hold the run's `ckpt.pt` (its trained weights) and `model.ptz` (its artifact: vocabulary, legal set,
phrase table, n-gram). A policy is a name of 11d_ime_serve's IME_POLICIES: the per-category specs (attn, mlp, embed,
other) of a MixedPolicy (06a_mixed_quant); `int8` is the plain IME_POLICY. Round to nearest with the clip search
only (GPTQ would need the encoder's Hessians). `--min-freq` also rebuilds libchewing's phrase table without its
phrases rarer than each value (the job's `lex_min_freq`; the artifact's own table by default). The data are those the
run's metrics.json names; MOE needs py-chinese-pronounce. Each artifact is scored as served: its model and its table
read back from the file. Prints one JSON object.
"""
import argparse, json, sys, tempfile, time
from pathlib import Path

def policy(name:str):
    "The MixedPolicy of an IME_POLICIES name (11d_ime_serve; int8: the plain IME_POLICY)."
    from smolqat.ime_serve import IME_POLICIES
    if name not in IME_POLICIES: raise SystemExit(f"--policies: unknown {name!r}; known: {sorted(IME_POLICIES)}")
    return IME_POLICIES[name]

def parts(path)->dict: # part -> compressed bytes (artifact_report's per-tensor share of the model) plus the whole file
    "Bytes of the artifact by part: the embedding, the head, the blocks by kind, the rest; and the file."
    from smolqat.sizes import artifact_report
    rep, total = artifact_report(path), Path(path).stat().st_size
    kind = (lambda n: "tok_emb" if "tok_emb" in n else "lm_head" if "lm_head" in n else "blocks" if ".blocks." in n
            else "other")
    model = rep.assign(part=rep.name.map(kind)).groupby("part").compressed_bytes.sum().round().astype(int).to_dict()
    return {**model, "model_sum": int(sum(model.values())), "file": total}

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run_dir", type=Path)
    ap.add_argument("--policies", default="int8,rtn6,rtn6e5,rtn5,rtn6e4", help="comma-separated IME_POLICIES names")
    ap.add_argument("--min-freq", default="",
                    help="comma-separated lex_min_freq values to rebuild the phrase table at (default: the artifact's "
                    "own table)")
    ap.add_argument("--val", type=int, default=0, help="VAL lines scored (0: all)")
    ap.add_argument("--moe", type=int, default=2000, help="MOE sentences scored, spread over the set (0: all)")
    ap.add_argument("--weight", type=float, default=0.6, help="the phrase table's weight in the decode")
    ap.add_argument("--out", type=Path, default=None, help="also write the JSON here")
    a = ap.parse_args()
    import torch
    torch.set_num_threads(1)
    from smolqat.ime import load_ime_model
    from smolqat.ime_prepare import prepare_ime
    from smolqat.ime_baselines import all_pairs, spread
    from smolqat.ime_lexicon import lexicon_scores, chewing_table
    from smolqat.ime_serve import read_ime_artifact, ime_artifact
    art = read_ime_artifact(a.run_dir / "model.ptz")
    run_data = json.loads((a.run_dir / "metrics.json").read_text())["data"]   # the run's prepare_ime arguments
    data = prepare_ime(**{k: run_data[k] for k in ("lexicon", "readings", "phrase_lines", "phrase_lists", "extra",
                                                   "extra_lines") if k in run_data})
    if (list(data.vocab.inputs), list(data.vocab.chars)) != (list(art["vocab"].inputs), list(art["vocab"].chars)):
        raise SystemExit(f"{a.run_dir / 'model.ptz'}: its vocabulary is not that of the data its metrics.json names")
    sets = {"val": spread(all_pairs(data.split("val")), a.val)}
    if "moe" in data.meta["lines"]: sets["moe"] = spread(all_pairs(data.split("moe")), a.moe)
    trained = load_ime_model(a.run_dir, art["model"].legal)
    out = dict(run=str(a.run_dir), weight=a.weight, lines={k: len(v) for k, v in sets.items()}, policies={})
    tables = {"": art["lexicon"],
              **{f"/min_freq{m}": chewing_table(data, int(m)) for m in filter(None, a.min_freq.split(","))}}
    for name in a.policies.split(","):
        for tag, table in tables.items():
            t0 = time.time(); path = Path(tempfile.mkdtemp()) / f"{name}.ptz"
            ime_artifact(trained, art["vocab"], path, tone_drop=art["tone_drop"], lm=art["lm"], lexicon=table,
                         policy=policy(name))
            back = read_ime_artifact(path)
            acc = {k: lexicon_scores(back["model"], ps, back["lexicon"], (a.weight,),
                                     back["model"].cfg.block_size)[a.weight]["char_acc"] for k, ps in sets.items()}
            out["policies"][name + tag] = dict(bytes=parts(path), phrases=len(back["lexicon"]), char_acc=acc,
                                               seconds=round(time.time() - t0, 1))
            print(name + tag, out["policies"][name + tag], file=sys.stderr, flush=True)
    text = json.dumps(out, indent=1)
    if a.out: a.out.write_text(text)
    print(text)

if __name__ == "__main__": main()
