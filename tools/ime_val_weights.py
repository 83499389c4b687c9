"""VAL decoded at several weights of the phrase table and of the trigram, on the even and the odd lines separately.

    python tools/ime_val_weights.py runs/ime_fp_e4
    python tools/ime_val_weights.py runs/ime_fp_e4 --table 0 0.05 0.1 0.2 --trigram 0.3 0.5 0.7 1.0
    python tools/ime_val_weights.py runs/ime_fp_e6 --table --order 4      # the n-gram of order 4 in the trigram's place
    python tools/ime_val_weights.py runs/ime_fp_e8 --table --order 4 --trigram 0.5 --ensemble runs/ime_fp_e6   # two
    encoders as one

A weight picked on one half of VAL is then scored on the other half, so the choice is not fitted to the lines it is
reported on. The run's data options are read from its metrics.json; the trigram is built over TRAIN as train_ime
builds it (11a_ime ngram_baseline), the table as train_ime does (libchewing's phrases, lex_min_freq of the run).
"""
import argparse, json, sys
from pathlib import Path
from smolqat.ime_prepare import prepare_ime
from smolqat.ime import load_ime_model, load_ensemble, fused_decode, predict_topk
from smolqat.ime_baselines import all_pairs, ngram_baseline, ime_scores
from smolqat.ime_lexicon import chewing_table, lexicon_scores


def run_data(run:Path):
    "The run's IME data, prepared with the options its metrics.json records, and the record."
    rec = json.loads((run / "metrics.json").read_text())
    d = rec["data"]
    data = prepare_ime(lexicon=d.get("lexicon", False), readings=d["readings"], phrase_lines=d["phrase_lines"],
                       phrase_lists=d["phrase_lists"],
                       extra=d.get("extra", ""), extra_lines=d.get("extra_lines", 0))
    return data, rec


def main(argv=None)->int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run", type=Path, help="a train_ime run folder (ckpt.pt, metrics.json)")
    ap.add_argument("--table", type=float, nargs="*", default=[0.0, 0.05, 0.1, 0.2],
                    help="phrase-table weights (0: the model alone)")
    ap.add_argument("--trigram", type=float, nargs="*", default=[0.3, 0.5, 0.7, 1.0],
                    help="weights of the character n-gram (the trigram by default)")
    ap.add_argument("--order", type=int, default=3, help="the character n-gram's order (train_ime's lm_order)")
    ap.add_argument("--ensemble", type=Path, nargs="*", default=[],
                    help="other train_ime run folders scored with this one as one encoder (train_ime's ensemble)")
    a = ap.parse_args(argv)
    if not (a.run / "metrics.json").is_file(): sys.exit(f"{a.run}: no metrics.json (a finished train_ime run folder)")
    data, rec = run_data(a.run)
    model = load_ime_model(a.run, data.legal)
    if a.ensemble: model = load_ensemble(model, a.ensemble)
    val = all_pairs(data.split("val"))
    halves = dict(even=val[0::2], odd=val[1::2])
    pct = lambda r: round(100 * r["char_acc"], 2)
    if a.table:
        table = chewing_table(data, rec.get("lex_min_freq", 2))
        for h, ps in halves.items():
            print(f"table   {h:>4} lines:",
                  {w: pct(r) for w,
                   r in lexicon_scores(model, ps, table, a.table, rec["options"]["seq_len"]).items()}, flush=True)
    if a.trigram:
        lm, _ = ngram_baseline(all_pairs(data.split("train")), data, a.order)
        legal = model.legal.cpu().numpy()
        for h, ps in halves.items():
            top = predict_topk(model, ps, 4, rec["options"]["seq_len"])
            print(f"{a.order}-gram  {h:>4} lines:",
                  {w: pct(ime_scores([fused_decode(s, t, lm, legal, w, 8) for (s, _), t in zip(ps, top)],
                                     ps)) for w in a.trigram}, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
