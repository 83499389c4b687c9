"""No line of the package wider than the house width (120 columns, wide characters counting two, as ruff counts):
`ruff check` holds the notebooks' code and the tools to it, and this checks what nbdev writes from them into smolqat/.
Two things nbdev generates are left out: `_modidx.py`, and the `__all__ = [...]` lists, which nbdev wraps at 120
columns before it puts its 10-character `__all__ = ` in front (no setting changes that). Exits 1 naming each line.

    python tools/check_width.py
"""
import sys, unicodedata
from pathlib import Path

ROOT, WIDTH = Path(__file__).resolve().parents[1], 120

def width(line:str)->int: return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)

def all_lines(lines:list)->set: # indices of the lines of nbdev's `__all__ = [...]` list
    out = set()
    for i, l in enumerate(lines):
        if l.startswith("__all__ = ["):
            j = i
            while not lines[j].rstrip().endswith("]"): j += 1
            out |= set(range(i, j + 1))
    return out

def wide(path:Path)->list: # [(line number, width)]
    lines = path.read_text(encoding="utf-8").splitlines()
    skip = all_lines(lines)
    return [(i + 1, width(l)) for i, l in enumerate(lines) if i not in skip and width(l) > WIDTH]

def main():
    bad = [(p, n, w) for p in sorted((ROOT / "smolqat").glob("*.py")) if p.name != "_modidx.py" for n, w in wide(p)]
    for p, n, w in bad: print(f"{p.relative_to(ROOT)}:{n}: {w} columns (over {WIDTH})")
    print(f"smolqat/: {len(bad)} line(s) over {WIDTH} columns")
    sys.exit(1 if bad else 0)

if __name__ == "__main__": main()
