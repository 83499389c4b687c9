"""Wrap the code lines longer than the house width (120) in notebooks' code cells and .py files, without changing what
the code does: a trailing comment moves onto its own lines above; a one-line docstring becomes a wrapped triple-quoted
one; a line inside brackets breaks after a comma (aligned under its bracket) or inside a string at a space (implicit
concatenation). Each changed cell or file must parse to the same code (docstrings compared without their line breaks);
what cannot be wrapped that way is listed, untouched.

    python tools/wrap_lines.py [--check] PATH...
"""
import argparse, ast, io, re, textwrap, tokenize, unicodedata
from pathlib import Path

WIDTH = 120

# columns, as ruff counts them
def width(line:str)->int: return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)

def _norm_doc(tree:ast.AST)->ast.AST:
    "Docstrings with their whitespace runs collapsed, so a wrapped docstring compares equal to its one-line form."
    for n in ast.walk(tree):
        if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.body:
            d = n.body[0]
            if isinstance(d, ast.Expr) and isinstance(d.value, ast.Constant) and isinstance(d.value.value, str):
                d.value.value = " ".join(d.value.value.split())
    return tree

def same_code(a:str, b:str)->bool:
    """Two sources that parse to the same program (docstrings up to whitespace; adjacent strings joined, as the parser
    joins them)."""
    try: return ast.unparse(_norm_doc(ast.parse(a))) == ast.unparse(_norm_doc(ast.parse(b)))
    except SyntaxError: return False

def _tokens(src:str)->list:
    try: return list(tokenize.generate_tokens(io.StringIO(src).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError): return []

def _comment_above(line:str, tok)->list:
    "A code line with a trailing comment: the comment on its own lines above, at the line's indentation."
    code, indent = line[:tok.start[1]].rstrip(), re.match(r"\s*", line).group()
    if not code.strip(): return None
    text = tok.string.lstrip("#").strip()
    return textwrap.wrap(text, WIDTH - len(indent) - 2, initial_indent=indent + "# ",
                         subsequent_indent=indent + "# ") + [code]

def _docstring(line:str)->list:
    "A one-line docstring (a plain \"...\" statement alone on its line) as a wrapped triple-quoted one."
    m = re.fullmatch(r'(\s*)"((?:[^"\\]|\\.)*)"', line)
    if not m or '"""' in m.group(2): return None
    indent, text = m.groups()
    lines = textwrap.wrap(text, WIDTH - len(indent) - 3, break_long_words=False, break_on_hyphens=False)
    if len(lines) < 2: return None
    out = [indent + '"""' + lines[0]] + [indent + l for l in lines[1:]]
    out[-1] += '"""'
    if out[-1].rstrip('"').endswith("\\") or out[-1].endswith('""""'): return None
    return out

def _break_points(line:str, toks:list, stack:list)->list: # [(kind, where, alignment stack at that point)]
    """Commas inside brackets and string literals inside brackets, each with the alignment columns of the brackets open
    there."""
    opens, out = list(stack), []
    for t in toks:
        s, e = t.start[1], t.end[1]
        if t.type == tokenize.OP and t.string in "([{": opens.append(e)
        elif t.type == tokenize.OP and t.string in ")]}":
            if opens: opens.pop()
        elif t.type == tokenize.OP and t.string == "," and opens: out.append(("comma", e, list(opens)))
        elif opens and s > 0 and (t.type == tokenize.NAME and t.string in ("and", "or", "if", "else", "for")
                                  or t.type == tokenize.OP and t.string == "+"):
            out.append(("comma", s, list(opens)))   # a break before an operator or a comprehension's clause
        elif t.type == tokenize.STRING and opens and not t.string.lstrip("rbfuRBFU").startswith(('"""', "'''")):
            out.append(("string", (s, e), list(opens)))
    return out

def _split_string(line:str, s:int, e:int, limit:int)->tuple:
    "Cut the literal line[s:e] at its last space before `limit`, outside any {} of an f-string."
    lit = line[s:e]; m = re.match(r"[rbfuRBFU]*", lit); pre = m.group(); q = lit[len(pre)]
    body_start, depth = s + len(pre) + 1, 0
    best = None
    for i in range(body_start, e - 1):
        c = line[i]
        if "f" in pre.lower() and c == "{": depth += 1
        elif "f" in pre.lower() and c == "}": depth -= 1
        elif c == " " and depth == 0 and i + 1 < limit and line[i - 1] != "\\": best = i + 1
    if best is None or best <= body_start + 8: return None
    head, tail = line[:best] + q, pre + q + line[best:]
    return _plain(head, s), _plain(tail, 0)

def _plain(text:str, at:int)->str:
    """The literal starting at `at` without its f prefix when it has no braces left (an f-string without fields is a
    lint error)."""
    m = re.match(r"[rbuRBU]*[fF][rbuRBU]*", text[at:])
    if not m or not m.group(): return text
    body = text[at + m.end():]

    return text if "{" in body or "}" in body else text[:at] + m.group().replace("f", "").replace("F", "") + body

def _wrap_code(line:str, depth0:int)->list:
    """A long line broken inside its brackets: after the shallowest comma that fits, else inside a string at a space;
    each piece indented under its bracket."""
    out, rest = [], line
    stack = [len(line) - len(line.lstrip()) + 4] * depth0   # brackets opened on earlier lines: a hanging indent
    while width(rest) > WIDTH:
        toks = _line_tokens(rest)
        if toks is None: return None
        pts = _break_points(rest, toks, stack)
        commas = [(len(op), col, op) for kind, col,
                  op in pts if kind == "comma" and col <= WIDTH and rest[col:].strip()]
        cut = None
        if commas:   # the shallowest bracket's last comma that fits
            _, col, op = max(commas, key=lambda c: (-c[0], c[1]))
            al = (op[-1] if op[-1] + len(rest[col:].strip()) <= WIDTH or op[-1] < 60
                  else len(rest) - len(rest.lstrip()) + 4)
            cut, stack = (rest[:col].rstrip(), " " * al + rest[col:].strip()), op[:-1] + [al]
        else:
            for kind, (s, e), op in (p for p in pts if p[0] == "string"):
                if s < WIDTH < e and (r := _split_string(rest, s, e, WIDTH)):
                    al = op[-1] if op[-1] < 60 else len(rest) - len(rest.lstrip()) + 4
                    cut, stack = (r[0].rstrip(), " " * al + r[1].lstrip()), op[:-1] + [al]
                    break
        # each piece shorter, so it ends
        if cut is None or len(cut[0]) >= len(rest) or len(cut[1]) >= len(rest): return None
        out.append(cut[0]); rest = cut[1]
    return out + [rest]

def _line_tokens(line:str):
    """The tokens of one physical line (an unclosed bracket or a closing one from earlier lines is fine); None when it
    does not tokenize."""
    toks, skip = [], (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER, tokenize.INDENT, tokenize.DEDENT)
    try:
        for t in tokenize.generate_tokens(io.StringIO(line.lstrip() + "\n").readline):
            if t.start[0] != 1: break
            if t.type not in skip: toks.append(t)
    except (tokenize.TokenError, IndentationError, SyntaxError): pass
    shift = len(line) - len(line.lstrip())
    toks = [t._replace(start=(1, t.start[1] + shift), end=(1, t.end[1] + shift)) for t in toks]
    return toks or None

COMPOUND = {"def", "if", "elif", "else", "for", "while", "with", "try", "except", "finally", "class", "async"}

def _split_compound(line:str)->list:
    "A one-line compound statement (`if x: return y`, `def f(): return g`) as its header and its body on the next line."
    toks = _line_tokens(line)
    if not toks or toks[0].type != tokenize.NAME or toks[0].string not in COMPOUND: return None
    depth = 0
    for t in toks:
        if t.type == tokenize.OP and t.string in "([{": depth += 1
        elif t.type == tokenize.OP and t.string in ")]}": depth -= 1
        elif t.type == tokenize.OP and t.string == ":" and depth == 0:
            body = line[t.end[1]:].strip()
            if not body or body.startswith("#"): return None
            indent = re.match(r"\s*", line).group()
            return [line[:t.end[1]], indent + "    " + body]
    return None

def _top_level(line:str, what:str)->list: # columns of the OP tokens `what` outside any bracket
    depth, out = 0, []
    for t in _line_tokens(line) or []:
        if t.type == tokenize.OP and t.string in "([{": depth += 1
        elif t.type == tokenize.OP and t.string in ")]}": depth -= 1
        elif t.type == tokenize.OP and t.string == what and depth == 0: out.append(t.start[1])
    return out

def _split_statements(line:str)->list:
    "`a; b; c` as one statement per line at the same indentation."
    cols, indent = _top_level(line, ";"), re.match(r"\s*", line).group()
    if not cols: return None
    cuts = [0] + [c + 1 for c in cols] + [len(line)]
    return [indent + line[a:b].strip().rstrip(";").strip() for a,
            b in zip(cuts, cuts[1:]) if line[a:b].strip().rstrip(";").strip()]

def _parenthesize(line:str)->str:
    """A statement whose long part has no brackets to break in, with parentheses around it: an import's names, a return,
    an assignment's value, an assert's test."""
    m = re.match(r"(\s*from\s+\S+\s+import\s+)(.+)$", line)
    if m and not m.group(2).startswith("("): return f"{m.group(1)}({m.group(2)})"
    m = re.match(r"(\s*(?:return|yield)\s+)(.+)$", line)
    if m: return f"{m.group(1)}({m.group(2)})"
    if line.lstrip().startswith("assert "):
        commas = _top_level(line, ",")
        head = line.index("assert ") + 7
        end = commas[0] if commas else len(line)
        return f"{line[:head]}({line[head:end].strip()}){line[end:]}"
    eq = _top_level(line, "=")
    if eq: return f"{line[:eq[-1] + 1]} ({line[eq[-1] + 1:].strip()})"
    return None

def _wrap_comment(line:str)->list:
    "A comment line wrapped into comment lines at the same indentation."
    indent, text = re.match(r"(\s*)#\s?(.*)$", line).groups()
    return textwrap.wrap(text, WIDTH - len(indent) - 2, initial_indent=indent + "# ", subsequent_indent=indent + "# ")

def _fit_one(stmt:str, depth:int)->list:
    "One statement made to fit: broken in its brackets, else with parentheses added to break in."
    if width(stmt) <= WIDTH: return [stmt]
    if depth == 0 and stmt.lstrip().startswith("#"): return _wrap_comment(stmt)
    r = _wrap_code(stmt, depth)
    if r is None and depth == 0 and (q := _parenthesize(stmt)): r = _wrap_code(q, 0)
    return r

def _fit(line:str, depth:int)->list:
    "One line made to fit: a compound one-liner split, then its statements one per line, each wrapped."
    parts = (_split_compound(line) if depth == 0 else None) or [line]
    out = []
    for part in parts:
        stmts = (_split_statements(part) if depth == 0 and width(part) > WIDTH else None) or [part]
        for st in stmts:
            r = _fit_one(st, depth)
            if r is None: return None
            out += r
    return out

def _depths(src:str)->dict: # line number (1-based) -> bracket depth at its start, for lines not inside a string
    depth, out, line = 0, {}, 1
    for t in _tokens(src):
        while line <= t.start[0]: out.setdefault(line, depth); line += 1
        if t.type == tokenize.OP and t.string in "([{": depth += 1
        elif t.type == tokenize.OP and t.string in ")]}": depth -= 1
    return out

def _docstring_line(line:str)->list:
    """A long line inside a multi-line string cut at its last space that fits, the rest on the next line at the same
    indentation (kept only for docstrings, whose whitespace same_code ignores)."""
    indent = re.match(r"\s*", line).group()
    cut = max((i for i, c in enumerate(line) if c == " " and i > len(indent) and width(line[:i]) <= WIDTH),
              default=None)
    return None if cut is None else [line[:cut], indent + line[cut + 1:]]

def _candidate(line:str, n:int, comments:dict, depths:dict)->list: # the line's replacement, or None
    if n in comments and comments[n].start[1] > 0 and line[:comments[n].start[1]].strip():
        new = _comment_above(line, comments[n])
        return new[:-1] + (_fit(new[-1], depths.get(n, 0)) or [new[-1]]) if new and width(new[-1]) > WIDTH else new
    if n in comments and line.lstrip().startswith("#"): return _wrap_comment(line)
    return None if n in comments else _docstring(line) or _fit(line, depths.get(n, 0))

def wrap_source(src:str)->tuple: # (new source, [long lines left])
    """Every line over WIDTH wrapped where a rule applies, one line at a time, each change kept only when the code stays
    the same."""
    lines, toks, depths = src.split("\n"), _tokens(src), _depths(src)
    if not toks: return src, [l for l in lines if width(l) > WIDTH]
    comments = {t.start[0]: t for t in toks if t.type == tokenize.COMMENT}
    in_string = {l for t in toks if t.type == tokenize.STRING and t.end[0] > t.start[0] for l in range(t.start[0],
                                                                                                       t.end[0] + 1)}
    out = list(lines)   # out[i] holds the replacement of line i + 1 (a list once changed)
    for n, line in enumerate(lines, 1):
        if width(line) <= WIDTH: continue
        if n in in_string:
            new = _docstring_line(line)
            if new is None: continue
        else: new = None
        new = new or _candidate(line, n, comments, depths)
        if new is None: continue
        trial = out[:n - 1] + [new] + out[n:]
        if same_code(src, "\n".join(l if isinstance(l, str) else "\n".join(l) for l in trial)): out[n - 1] = new
    flat = [x for l in out for x in ([l] if isinstance(l, str) else l)]
    return "\n".join(flat), [l for l in flat if width(l) > WIDTH]

def _strip_magics(src:str)->tuple: # (python source, {placeholder line: the magic line})
    "Cell magics and shell lines (%, !) replaced by placeholder statements so the cell parses; put back after wrapping."
    lines, keep = src.split("\n"), {}
    for i, l in enumerate(lines):
        if l.lstrip().startswith(("%", "!")):
            ph = f"{l[:len(l) - len(l.lstrip())]}_magic_{i} = 0"; keep[ph] = l; lines[i] = ph
    return "\n".join(lines), keep

def wrap_notebook(path:Path, write:bool)->list:
    import nbformat
    nb = nbformat.read(path, as_version=4); left, changed = [], False
    for c in nb["cells"]:
        if c["cell_type"] != "code": continue
        src = c["source"]; py, magics = _strip_magics(src)
        if not any(width(l) > WIDTH for l in py.split("\n")): continue
        new, l = wrap_source(py); left += [f"{path.name}: {x.strip()[:80]}" for x in l]
        if new != py:
            changed = True; c["source"] = "\n".join(magics.get(l, l) for l in new.split("\n"))
    if changed and write: nbformat.write(nb, path)
    return left

def wrap_file(path:Path, write:bool)->list:
    src = path.read_text(); new, left = wrap_source(src)
    if new != src and write: path.write_text(new)
    return [f"{path.name}: {x.strip()[:80]}" for x in left]

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="+", type=Path)
    ap.add_argument("--check", action="store_true", help="only list the long lines that would be left")
    a = ap.parse_args()
    left = []
    for p in a.paths:
        for f in (sorted(p.glob("*.ipynb")) + sorted(p.glob("*.py")) if p.is_dir() else [p]):
            left += wrap_notebook(f, not a.check) if f.suffix == ".ipynb" else wrap_file(f, not a.check)
    for l in left: print(l)
    print(f"{len(left)} line(s) over {WIDTH} left")

if __name__ == "__main__": main()
