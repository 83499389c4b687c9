"""What each export choice of an IME artifact costs: bytes (brotli) and accuracy, per run folder.

For every run given, the trained model (its ckpt.pt) is exported with the language model's baseline policy (matrices
under 65,536 weights in fp16) and with IME_POLICY (int8 per row above 4,096), each with libchewing's phrase table at
several `min_freq` cuts; it prints the artifact's bytes, the served model's VAL accuracy and the MOE accuracy decoded
with the table (lex_weight 0.6) on `--moe` sentences spread over the set.

    .venv/bin/python tools/ime_export_sizes.py runs/ime_fp runs/ime_kd
"""
import argparse, json, tempfile
from pathlib import Path
import torch
from smolqat.mixed_quant import MixedPolicy
from smolqat.export import quantize_model, save_artifact, dequantize_model_state
from smolqat.ime_baselines import all_pairs, spread, ime_scores
from smolqat.ime import load_ime_model, predict
from smolqat.ime_data import ime_corpus
from smolqat.ime_prepare import prepare_ime, word_rows
from smolqat.ime_lexicon import phrase_table, lexicon_scores, table_to_tensors
from smolqat.ime_serve import IME_POLICY, IME_FORMAT, legal_to_csr, roundtrip_ime

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+",
                    help="train_ime run folders (each with ckpt.pt and metrics.json), all on the same data")
    ap.add_argument("--min-freq", default="0,1,2", help="phrase-table cuts to try (comma-separated)")
    ap.add_argument("--moe", type=int, default=2000, help="MOE sentences scored with the table")
    a = ap.parse_args()
    d = json.loads((Path(a.runs[0]) / "metrics.json").read_text())["data"]
    data = prepare_ime(lexicon=d["lexicon"], readings=d["readings"], phrase_lines=d["phrase_lines"],
                       phrase_lists=d["phrase_lists"])
    rows = word_rows("chewing", ime_corpus(data.meta["corpus"], data.meta["every"])["words"])
    val, moe = all_pairs(data.split("val")), spread(all_pairs(data.split("moe")), a.moe)
    tables = {m: phrase_table(rows, data.vocab, data.legal, m) for m in map(int, a.min_freq.split(","))}
    policies = {"baseline (fp16 under 65,536)": MixedPolicy("int8", "int8", "int8", "int8",
                                                            keep_float_max_numel=65_536), "IME_POLICY": IME_POLICY}
    tmp = Path(tempfile.mkdtemp())
    print("run\tpolicy\tmin_freq\tphrases\tbytes\tVAL\tMOE with the table")
    for run in a.runs:
        m = load_ime_model(Path(run) / "ckpt.pt", torch.as_tensor(data.legal))
        for pname, pol in policies.items():
            q = quantize_model(m, policy=pol)[0]
            back = roundtrip_ime(m, pol)
            v = ime_scores(predict(back, val), val)["char_acc"]
            for mf, t in tables.items():
                # sizes only: tone_drop does not change them
                extra = dict(format=IME_FORMAT, inputs=list(data.vocab.inputs), chars=list(data.vocab.chars),
                             hints=m.hints, tone_drop=False, lm=None,
                             lexicon=table_to_tensors(t, m.legal.cpu().numpy()), **legal_to_csr(m.legal.cpu()))
                b = save_artifact(q, tmp / "a.ptz", m.cfg, "brotli", extra=extra)["bytes"]
                x = lexicon_scores(back, moe, t, (0.6,))[0.6]["char_acc"]
                print(f"{Path(run).name}\t{pname}\t{mf}\t{len(t):,}\t{b:,}\t{v:.2%}\t{x:.2%}", flush=True)

if __name__ == "__main__": main()
