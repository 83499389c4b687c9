"""The notebooks read in the order they build on each other: no notebook's exported code imports a module exported by a
notebook that sorts after it, no two notebooks share a number, and no export cell follows another export cell directly
(something that uses the first comes between, or the two are one cell), and `index.ipynb`'s tracks name every notebook,
the numbered ones in file order within each track's table. Prints each problem and exits 1 when there is one;
`--graph` prints every library notebook with the notebooks its exported code imports.

    python tools/check_order.py [--graph]
"""
import argparse, json, re, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NUMBER = re.compile(r"^(\d+[a-z]?)_")   # "04b_objectives" -> "04b"
IMPORT = re.compile(r"^\s*from\s+smolqat\.(\w+)\s+import\b", re.M)   # notebooks import absolutely

def cells(nb:Path)->list: return json.loads(nb.read_text())["cells"]

def exported_code(nb:Path)->str:
    "The source of the notebook's `#| export` / `#| exporti` cells."
    code = ["".join(c["source"]) for c in cells(nb) if c["cell_type"] == "code"]
    return "\n".join(s for s in code if re.match(r"\s*#\|\s*export", s))

def default_exp(nb:Path)->str: # the module a notebook exports to ("" for none)
    for c in cells(nb):
        m = re.search(r"#\|\s*default_exp\s+(\S+)", "".join(c["source"]))
        if m: return m.group(1)
    return ""

def graph(nbs:list)->dict: # notebook stem -> sorted notebook stems its exported code imports
    owner = {default_exp(nb): nb.stem for nb in nbs if default_exp(nb)}
    out = {}
    for nb in nbs:
        mods = {m for m in IMPORT.findall(exported_code(nb)) if m in owner and owner[m] != nb.stem}
        if default_exp(nb): out[nb.stem] = sorted(owner[m] for m in mods)
    return out

def _is_export(c:dict)->bool:
    return c["cell_type"] == "code" and bool(re.match(r"\s*#\|\s*export", "".join(c["source"])))

def adjacent_exports(nb:Path)->list: # indices of export cells that directly follow another export cell
    cs = cells(nb)
    return [i for i in range(1, len(cs)) if _is_export(cs[i - 1]) and _is_export(cs[i])]

ROW = re.compile(r"^\| ((?:`[\w]+`(?:, )?)+) \|", re.M)   # a table row's first column: `name`, `name`, ...

def index_tables(index:Path)->list: # [[notebook names of one table, in row order], ...] from the markdown cells
    tables = []
    for c in cells(index):
        if c["cell_type"] != "markdown": continue
        for block in re.split(r"\n\s*\n", "".join(c["source"])):
            names = [n for row in ROW.findall(block) for n in re.findall(r"`(\w+)`", row)]
            if names: tables.append(names)
    return tables

def index_problems(nbs:list, index:Path)->list:
    "Notebooks the index's tracks leave out or name twice, and numbered notebooks out of file order in a track."
    tables = index_tables(index)
    named = [n for t in tables for n in t]
    stems = [nb.stem for nb in nbs if nb.stem != index.stem]
    bad = [f"index: {s} is in no track" for s in stems if s not in named]
    bad += [f"index: {n} names no notebook" for n in dict.fromkeys(named) if n not in stems]
    bad += [f"index: {n} is listed {named.count(n)} times" for n in dict.fromkeys(named) if named.count(n) > 1]
    for t in tables:
        numbered = [n for n in t if NUMBER.match(n)]
        bad += [f"index: {a} is listed before {b}, which sorts first" for a, b in zip(numbered, numbered[1:]) if a > b]
    return bad

def problems(nbs:list)->list:
    "Back-imports (an import of a notebook sorting after the importer), shared numbers, and export cells back to back."
    g = graph(nbs)
    bad = [f"{a} imports {b}, which sorts after it" for a, deps in g.items() for b in deps if b > a]
    by_num = {}
    for nb in nbs:
        if m := NUMBER.match(nb.stem): by_num.setdefault(m.group(1), []).append(nb.stem)
    bad += [f"notebooks share the number {n}: {', '.join(sorted(v))}" for n, v in sorted(by_num.items()) if len(v) > 1]
    bad += [f"{nb.stem}: export cell {i} follows export cell {i - 1} directly" for nb in nbs
            for i in adjacent_exports(nb)]
    return bad

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graph", action="store_true",
                    help="print each library notebook and what its exported code imports")
    a = ap.parse_args()
    nbs = sorted(p for p in (ROOT / "nbs").glob("*.ipynb") if not p.name.startswith("_"))
    if a.graph:
        for k, v in graph(nbs).items(): print(f"{k}: {', '.join(v)}")
    bad = problems(nbs) + index_problems(nbs, ROOT / "nbs" / "index.ipynb")
    for b in bad: print(b)
    print(f"{len(nbs)} notebooks, {len(bad)} problem(s)")
    sys.exit(1 if bad else 0)

if __name__ == "__main__": main()
