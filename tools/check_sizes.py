"""The house's size limits on the package: modules under 450 lines, functions at most 30 lines, and the spread of
function lengths (median and 90th percentile) printed beside their targets (6 and 13). A function's length is its span
from `def` to its last line, the signature and docstring included; the generated `_modidx.py` is left out. Prints each
module or function over its limit and exits 1 when there is one; `--top N` lists the N longest functions.

    python tools/check_sizes.py [--top N]
"""
import argparse, ast, statistics, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_MODULE, MAX_FUNCTION = 450, 30   # lines a module stays under; lines a function stays within
TARGETS = dict(median=6, p90=13)     # what the spread of function lengths aims at (reported, not enforced)

def modules(pkg:Path)->list: return sorted(p for p in pkg.glob("*.py") if not p.name.startswith("_"))

def functions(path:Path)->list:
    "(length, 'module.function', line) for every function and method in `path`, nested ones included."
    tree = ast.parse(path.read_text(), str(path))
    return [(n.end_lineno - n.lineno + 1, f"{path.stem}.{n.name}", n.lineno) for n in ast.walk(tree)
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]

def spread(lengths:list)->dict:
    "Median and 90th percentile (nearest rank) of `lengths`."
    v = sorted(lengths)
    return dict(median=statistics.median(v), p90=v[min(len(v) - 1, int(0.9 * len(v)))])

def problems(pkg:Path)->list:
    "One line for each module of `pkg` at or over MAX_MODULE lines and each function over MAX_FUNCTION."
    out = [f"{p.name}: {n} lines (limit {MAX_MODULE - 1})" for p in modules(pkg)
           if (n := len(p.read_text().splitlines())) >= MAX_MODULE]
    return out + [f"{name} (line {line}): {n} lines (limit {MAX_FUNCTION})" for p in modules(pkg)
                  for n, name, line in functions(p) if n > MAX_FUNCTION]

def main(argv=None)->int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--top", type=int, default=0, help="list the N longest functions")
    args = ap.parse_args(argv)
    pkg = ROOT / "smolqat"
    found = [f for p in modules(pkg) for f in functions(p)]
    for n, name, line in sorted(found, reverse=True)[:args.top]: print(f"{n:4d}  {name} (line {line})")
    s = spread([n for n, *_ in found])
    print(f"{len(found)} functions: median {s['median']} (target {TARGETS['median']}), "
          f"p90 {s['p90']} (target {TARGETS['p90']})")
    bad = problems(pkg)
    for b in bad: print(b)
    print(f"{len(modules(pkg))} modules, {len(bad)} over the limits")
    return 1 if bad else 0

if __name__ == "__main__": sys.exit(main())
