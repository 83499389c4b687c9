"""Per-key latency of the keystroke front end (11g_ime_keys' KeySession) against the whole-line conversion, on one
thread.

    python tools/bench_ime_keys.py                          # runs/ime/model.ptz (the served student), else an untrained
    encoder of its shape
    python tools/bench_ime_keys.py --artifact runs/X/model.ptz --sentences 50 --per-key keys.csv

Types whole MOE sentences (the dictionary's test set; VAL when it was not prepared) key by key on the Dachen layout,
with
their punctuation on libchewing's symbol keys, and times each `press`; the reference for a key is `Converter.convert` of
the same prefix (the pieces the pre-edit shows converted), timed on the same machine in the same run. Keys that complete
a syllable (a tone key, the space bar, a symbol, Enter) and keys that do not (an initial, medial or final still being
typed) are reported apart, each as the median over --repeats typings. libchewing types the same keys when it is
installed
(11f_chewing's Chewing). Without runs/ime, the encoder is untrained but of the job's shape with the job's phrase table
(tools/ime_latency.py's untrained_artifacts): the time of a conversion depends on the shapes, not the weights.
Prints one JSON object."""
import argparse, json, sys, tempfile, time
from pathlib import Path
import numpy as np, torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ime_latency import job_data, untrained_artifacts   # the job's data and its untrained encoder: one home
from smolqat.chewing import Chewing
from smolqat.ime_baselines import all_pairs, spread
from smolqat.ime_prepare import prepare_ime
from smolqat.ime_keys import KeySession, SYMBOLS, keys_text, key_char
from smolqat.ime_serve import Converter
from smolqat.bopomofo import LETTERS, UNK, bopomofo_text, bopomofo_to_keys

FULL = {v: k for k, v in SYMBOLS.items()}   # a full-width symbol -> the key that types it

def typed_keys(inputs:list)->str:
    "The keys a user presses for a line of vocabulary inputs: Bopomofo keys, punctuation on the symbol keys."
    return "".join(FULL.get(c, c) for c in bopomofo_to_keys(bopomofo_text(inputs)))

def artifact_and_data(path):
    """The converter and the data of its vocabulary: a run's own data options beside its artifact, else the job's
    untrained encoder."""
    if path.is_file():
        meta = path.parent / "metrics.json"
        d = json.loads(meta.read_text()).get("data", {}) if meta.exists() else {}
        data = prepare_ime(lexicon=d.get("lexicon", False), readings=d.get("readings", "pypinyin"),
                           phrase_lines=d.get("phrase_lines") or 0,
                           phrase_lists=d.get("phrase_lists", "chewing"))
        root = Path(__file__).resolve().parents[1]                      # shown relative to the checkout when inside it
        return (Converter.from_artifact(path), data,
                str(path.resolve().relative_to(root) if path.resolve().is_relative_to(root) else path))
    data = job_data()
    art = untrained_artifacts(data, Path(tempfile.mkdtemp()))["ternary"]
    return (Converter.from_artifact(art), data,
            "untrained ternary encoder of the served student's shape (4x192, int8 activations) with the job's phrase "
            f"table ({path} not found)")

def sentences(conv, data, n:int)->tuple: # (split name, [keys])
    "n typable sentences spread over MOE (VAL when MOE was not prepared), as keys."
    split = "moe" if "moe" in data.meta["lines"] else "val"
    V, out = conv.vocab, []
    for s, _ in all_pairs(data.split(split)):
        inp = [V.inputs[i] for i in s]
        keys = typed_keys(inp)
        if UNK not in inp and keys_text(keys) == bopomofo_text(inp): out.append(keys)
    return split, spread(out, n)

def type_timed(conv, keys:str)->tuple: # ([(seconds, converted, shown prefix)], committed)
    "Press each key then Enter in a fresh session, timing each press; the prefix each state shows converted."
    sess, rows = KeySession(conv), []
    for k in keys + "\n":
        p = sess.preedit
        done = p.text if k == "\n" else None
        t = time.perf_counter(); st = sess.press(k); dt = time.perf_counter() - t
        q = sess.preedit
        rows.append((dt, st.converted, done if done is not None else q.text[:len(q.text) - len(q.pending)], k))
    return rows, st.committed

def whole_line_ms(conv, text:str, repeats:int)->float:
    "Median milliseconds of Converter.convert of one line."
    ts = []
    for _ in range(repeats): t = time.perf_counter(); conv.convert(text); ts.append(time.perf_counter() - t)
    return 1000 * float(np.median(ts))

def chewing_ms(chew, keys:str)->list:
    """Milliseconds of each key libchewing takes (11f_chewing's Chewing._key), the pre-edit cleared after, not committed
    (no learning)."""
    out = []
    for k in keys:
        t = time.perf_counter(); chew._key(k); out.append(1000 * (time.perf_counter() - t))
    chew.lib.chewing_clean_preedit_buf(chew.ctx)
    return out

def pct(a)->dict:
    a = np.asarray(a, float)
    return dict(n=int(len(a)), p50_ms=round(float(np.median(a)), 4),
                p95_ms=round(float(np.percentile(a, 95)), 4)) if len(a) else dict(n=0)

def bench(conv, all_keys:list, repeats:int)->tuple: # (rows, equal)
    "Per key: its median time over repeats, whether it converted, the prefix, the whole-line time of that prefix."
    rows, equal, ref = [], 0, {}
    for si, keys in enumerate(all_keys):
        runs = [type_timed(conv, keys) for _ in range(repeats)]
        equal += runs[0][1] == conv.convert(keys_text(keys))
        for j, per in enumerate(zip(*[r[0] for r in runs])):
            prefix = per[0][2]
            if prefix not in ref: ref[prefix] = whole_line_ms(conv, prefix, repeats) if prefix else 0.0
            n_syl = len(conv.read(prefix)[0]) if prefix else 0
            rows.append(dict(sentence=si, key=j, kind="enter" if per[0][3] == "\n" else "letter"
                             if key_char(per[0][3]) in LETTERS else "other",
                             ms=1000 * float(np.median([p[0] for p in per])), converted=bool(per[0][1]),
                                 prefix_pieces=n_syl, whole_line_ms=ref[prefix]))
    return rows, equal

def summary(rows:list, chew_ms:list)->dict:
    "p50/p95 per class of key, against the whole-line conversion of the same prefixes, and the aims."
    done = [r for r in rows if r["kind"] != "letter"]; typing = [r for r in rows if r["kind"] == "letter"]
    ms, ref = [r["ms"] for r in rows], [r["whole_line_ms"] for r in rows if r["prefix_pieces"]]
    out = {"all keys": pct(ms), "keys completing a syllable (tone, space, symbol, Enter)": pct([r["ms"] for r in done]),
           "keys completing none (letters)": pct([r["ms"] for r in typing]),
           "whole-line conversion of the same prefix": pct(ref),
           "letters that ran the encoder": sum(r["converted"] for r in typing)}
    out["ratio p95 per key / p95 whole line"] = round(out["all keys"]["p95_ms"] / out["whole-line conversion of the "
        "same prefix"]["p95_ms"], 3)
    letters, whole = out["keys completing none (letters)"], out["whole-line conversion of the same prefix"]
    out["ratio p95 letters / p50 whole line"] = round(letters["p95_ms"] / whole["p50_ms"], 4)
    out["aims met"] = dict(p95_le_whole_line=out["ratio p95 per key / p95 whole line"] <= 1,
                           letters_le_tenth=out["ratio p95 letters / p50 whole line"] <= 0.1)
    out["libchewing per key"] = pct(chew_ms) if chew_ms is not None else "libchewing is not installed"
    return out

def main(argv=None)->int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--artifact", default="runs/ime/model.ptz",
                    help="an IME artifact (default: the README's served student)")
    ap.add_argument("--sentences", type=int, default=50, help="sentences typed, spread over the split")
    ap.add_argument("--repeats", type=int, default=3,
                    help="typings of each sentence (and whole-line conversions of each prefix); the median counts")
    ap.add_argument("--per-key", metavar="CSV", help="also write one row per key here")
    a = ap.parse_args(argv)
    if a.sentences < 1 or a.repeats < 1:
        sys.exit(f"--sentences={a.sentences} --repeats={a.repeats}: expected at least 1 each")
    torch.set_num_threads(1)
    conv, data, what = artifact_and_data(Path(a.artifact))
    split, all_keys = sentences(conv, data, a.sentences)
    for k in all_keys[:2]: type_timed(conv, k)                          # warm-up
    rows, equal = bench(conv, all_keys, a.repeats)
    chew = Chewing.open()
    chew_ms = None if chew is None else [m for k in all_keys for m in chewing_ms(chew, k)]
    if a.per_key:
        import pandas as pd; pd.DataFrame(rows).to_csv(a.per_key, index=False)
    res = dict(artifact=what, split=split, sentences=len(all_keys), keys=len(rows), threads=torch.get_num_threads(),
               committed_equals_whole_line=f"{equal}/{len(all_keys)}", **summary(rows, chew_ms))
    print(json.dumps(res, ensure_ascii=False, indent=1))
    return 0

if __name__ == "__main__": sys.exit(main())
