"""The house's size limits on the package: modules under 450 lines, functions at most 30 lines, and the spread of
function lengths (median and 90th percentile) printed beside their targets (6 and 13). A function's length is its span
from `def` to its last line, the signature and docstring included (the limit applies to it); its body is that span
without the signature and the docstring, which the house writes long (one line and one comment per parameter), and its
spread is printed too. The generated `_modidx.py` is left out. Prints each module or function over its limit and exits
1 when there is one; `--top N` lists the N longest functions.

    python tools/check_sizes.py [--top N]
"""
import argparse, ast, statistics, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_MODULE, MAX_FUNCTION = 450, 30   # lines a module stays under; lines a function stays within
TARGETS = dict(median=6, p90=13)     # what the spread of function lengths aims at (reported, not enforced)

def modules(pkg:Path)->list: return sorted(p for p in pkg.glob("*.py") if not p.name.startswith("_"))

def functions(path:Path)->list:
    "(length, 'module.function', line, body length) for every function and method in `path`, nested ones included."
    tree = ast.parse(path.read_text(), str(path))
    return [(n.end_lineno - n.lineno + 1, f"{path.stem}.{n.name}", n.lineno, body_length(n)) for n in ast.walk(tree)
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]

def body_length(fn:ast.FunctionDef)->int:
    "Lines of `fn`'s body after its docstring (0 for a docstring alone)."
    body = fn.body[1:] if isinstance(fn.body[0], ast.Expr) and isinstance(fn.body[0].value, ast.Constant) \
        and isinstance(fn.body[0].value.value, str) else fn.body
    return body[-1].end_lineno - body[0].lineno + 1 if body else 0

def spread(lengths:list)->dict:
    "Median (the lower middle) and 90th percentile (nearest rank) of `lengths`."
    v = sorted(lengths)
    return dict(median=statistics.median_low(v), p90=v[min(len(v) - 1, int(0.9 * len(v)))])

def problems(pkg:Path)->list:
    "One line for each module of `pkg` at or over MAX_MODULE lines and each function over MAX_FUNCTION."
    out = [f"{p.name}: {n} lines (limit {MAX_MODULE - 1})" for p in modules(pkg)
           if (n := len(p.read_text().splitlines())) >= MAX_MODULE]
    return out + [f"{name} (line {line}): {n} lines (limit {MAX_FUNCTION})" for p in modules(pkg)
                  for n, name, line, _ in functions(p) if n > MAX_FUNCTION]

def main(argv=None)->int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--top", type=int, default=0, help="list the N longest functions")
    args = ap.parse_args(argv)
    pkg = ROOT / "smolqat"
    found = [f for p in modules(pkg) for f in functions(p)]
    for n, name, line, _ in sorted(found, reverse=True)[:args.top]: print(f"{n:4d}  {name} (line {line})")
    s, b = spread([f[0] for f in found]), spread([f[3] for f in found])
    print(f"{len(found)} functions: median {s['median']} (target {TARGETS['median']}), p90 {s['p90']} (target "
          f"{TARGETS['p90']}); bodies: median {b['median']}, p90 {b['p90']}, max {max(f[3] for f in found)}")
    bad = problems(pkg)
    for b in bad: print(b)
    print(f"{len(modules(pkg))} modules, {len(bad)} over the limits")
    return 1 if bad else 0

if __name__ == "__main__": sys.exit(main())
