#!/usr/bin/env python3
"""Mutation testing of the library, the front ends and the .npy code.

    scripts/mutate.py [--sample N --seed S] [--jobs N] [--files GLOB ...]
    scripts/mutate.py --ci            (the short seeded sample CI runs)
    scripts/mutate.py --list          (print the mutants, run nothing)

Each mutant is ONE small change to one source file (an operator flipped, a
constant nudged by one, a guard forced, a sign dropped, a loop bound moved by
one; see OPERATORS below). For each, a worker writes the change into its own
copy of the tree, rebuilds incrementally in that copy's build folder, and runs
the CTest tests that can see the file. A test failure (or a run past the
per-mutant timeout) kills the mutant; a mutant that every test passes
survives; one that does not build is "not compiled". A mutant whose object
file comes out byte-identical to the original's is the same program and is
counted as equivalent without running the tests.

The checkout is never written: workers copy it (git's tracked and untracked,
not ignored, files) into WORK/wN/tree, and every mutated file in a copy is
written back from memory after its mutant, on a signal, or on the next start.

Known equivalent mutants live in scripts/mutate-equivalents.txt with the
reason each cannot change behaviour. They run like every mutant, so that a
label never hides a kill: one that survives is not reported as a survivor,
one that a test (or a sanitizer, or a time limit) kills is reported as a
wrong label, and fails --ci, unless its entry's "killed-on:" names the
builds where it dies. Entries that match no mutant any more are reported as
stale.

Which tests see a file is derived, not kept by hand: CMake's file API gives
each target's sources, artifacts and dependencies, the build tool's
dependency records give the headers each object includes, and a test sees a
file when a target whose artifact appears in the test's command line (its
executable, or a program it is given, like the CLI) depends on an object
built from that file.

Python 3 standard library only. Full description: docs/mutation.md.
"""
import argparse
import copy
import glob
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

# Files mutated by default, relative to the repository root. The .npy code is
# a glob so that it follows any split of tools/npy/ into more files.
DEFAULT_FILES = [
    "src/*.c", "src/plan/*.c", "src/dml/*.c", "src/batch/*.c", "src/checked.h", "src/cpu/*.c", "src/cpu/split.h", "src/cpu/move_pair.h", "src/frontends/*.c",
    "tools/npy/*.c", "tools/npy/npy_text.h",
]
DEFAULT_EQUIVALENTS = "scripts/mutate-equivalents.txt"
DEFAULT_WORK = "build-mutation"
# --ci: a sample that runs in a few minutes on 2 cores. A fixed seed keeps
# CI's verdict a function of the code alone.
CI_SAMPLE, CI_SEED, CI_JOBS = 12, 16, 2
# Verdicts a later run can take over (--resume); "error" and "not-run" are run again.
# The first FIRST tests of a mutant's ranking run one at a time.
FIRST = 4
JUDGED = ("killed", "timeout", "killed-san", "survived", "not-compiled", "same-object")

# --------------------------------------------------------------------- lexer
PUNCT = sorted(""">>= <<= ... -> ++ -- << >> <= >= == != && || += -= *= /= %= &= ^= |= ##
               [ ] ( ) { } . & * + - ~ ! / % < > ^ | ? : ; = , #""".split(), key=len, reverse=True)
TOKEN_RE = re.compile(r"""
    (?P<ws>[ \t\r\f\v]+|\\\n) | (?P<nl>\n)
  | (?P<comment>/\*.*?\*/|//[^\n]*)
  | (?P<str>(?:u8|[uUL])?"(?:\\.|[^"\\\n])*")
  | (?P<chr>(?:[uUL])?'(?:\\.|[^'\\\n])*')
  | (?P<num>\.?[0-9](?:[eEpP][+-]|[0-9a-zA-Z_.])*)
  | (?P<id>[A-Za-z_][A-Za-z_0-9]*)
  | (?P<punct>""" + "|".join(re.escape(p) for p in PUNCT) + r""")
""", re.S | re.X)


class Tok:
    __slots__ = ("kind", "text", "start", "end", "line", "pp")

    def __init__(self, kind, text, start, end, line, pp):
        self.kind, self.text, self.start, self.end, self.line, self.pp = kind, text, start, end, line, pp


def lex(src):
    """Tokens of C source, without comments, whitespace and preprocessor
    directives other than the body of a #define (whose constants and
    operators are code too). String and character literals are kept as
    single tokens so that nothing inside them is ever mutated."""
    toks, pos, line = [], 0, 1
    at_line_start, directive = True, None  # directive: None, "skip" or "define"
    define_name_seen = False
    while pos < len(src):
        m = TOKEN_RE.match(src, pos)
        if not m:
            raise ValueError("cannot lex at line %d: %r" % (line, src[pos:pos + 20]))
        kind, text = m.lastgroup, m.group()
        if kind == "nl":
            at_line_start, directive = True, None
        elif kind in ("ws", "comment"):
            pass
        elif at_line_start and text == "#":
            # A directive: only a #define's body is lexed as code.
            m2 = re.compile(r"#[ \t]*(\w+)").match(src, pos)
            directive = "define" if m2 and m2.group(1) == "define" else "skip"
            define_name_seen = False
            at_line_start = False
            if directive == "define":
                pos = m2.end()
                line += text.count("\n")
                continue
        else:
            at_line_start = False
            if directive == "skip":
                pass
            elif directive == "define" and not define_name_seen:
                define_name_seen = True  # the macro's name is not code
            else:
                toks.append(Tok(kind, text, m.start(), m.end(), line, directive == "define"))
        line += text.count("\n")
        pos = m.end()
    return toks


def match_paren(toks, i):
    """Index of the token closing the bracket at toks[i]."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    want, depth = pairs[toks[i].text], 0
    for j in range(i, len(toks)):
        if toks[j].text == toks[i].text:
            depth += 1
        elif toks[j].text == want:
            depth -= 1
            if depth == 0:
                return j
    return len(toks) - 1


def functions(toks):
    """Name of the function (or file-scope object) each token belongs to."""
    names, depth, current = [], 0, "(file scope)"
    for i, t in enumerate(toks):
        if t.pp:
            names.append("(macro)")
            continue
        if t.text == "{":
            if depth == 0:
                current = "(file scope)"
                j = i - 1
                while j >= 0 and toks[j].kind == "id" and toks[j].text in ("const", "volatile"):
                    j -= 1
                if j >= 0 and toks[j].text == ")":
                    # Back to the matching "(": the identifier before it.
                    d = 0
                    while j >= 0:
                        if toks[j].text == ")":
                            d += 1
                        elif toks[j].text == "(":
                            d -= 1
                            if d == 0:
                                break
                        j -= 1
                    if j > 0 and toks[j - 1].kind == "id":
                        current = toks[j - 1].text
                else:
                    k = i - 1
                    while k >= 0 and toks[k].text not in (";", "}") and not toks[k].pp:
                        if toks[k].kind == "id" and k + 1 < len(toks) and toks[k + 1].text in ("=", "[", "{"):
                            current = toks[k].text
                            break
                        k -= 1
            depth += 1
        elif t.text == "}":
            depth -= 1
        names.append(current if depth > 0 or t.text == "}" else "(file scope)")
    return names


# ----------------------------------------------------------------- operators
REL_FLIP = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "=="}
SWAP = {"&&": "||", "||": "&&", "+=": "-=", "-=": "+=", "<<": ">>", ">>": "<<"}
BINARY_SWAP = {"+": "-", "-": "+", "&": "|", "|": "&"}
# A token after which + - & are binary operators.
VALUE_END = {")", "]"}
KEYWORDS = {"return", "case", "sizeof", "if", "while", "for", "do", "else", "switch", "goto", "typedef",
            "const", "static", "int", "char", "void", "unsigned", "signed", "long", "short", "double",
            "float", "struct", "union", "enum", "volatile", "inline", "bool", "default", "break",
            "continue", "extern", "register", "restrict"}


def is_value_end(t):
    return t.text in VALUE_END or t.kind in ("num", "str", "chr") or (t.kind == "id" and t.text not in KEYWORDS)


def nudge(text):
    """Integer literal text plus and minus one, keeping base and suffix."""
    m = re.fullmatch(r"(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)([uUlL]*)", text)
    if not m:
        return []
    digits, suffix = m.groups()
    if digits[:2] in ("0x", "0X"):
        v, fmt = int(digits, 16), lambda n: "0x%x" % n
    elif digits.startswith("0") and len(digits) > 1:
        v, fmt = int(digits, 8), lambda n: "0%o" % n
    else:
        v, fmt = int(digits), str
    out = [fmt(v + 1) + suffix]
    if v > 0:
        out.append(fmt(v - 1) + suffix)
    return out


def mutations(toks):
    """(first token, last token, replacement text, operator name) of every
    mutation of one file."""
    out = []
    for i, t in enumerate(toks):
        prev = toks[i - 1] if i > 0 else None
        if t.kind == "num":
            for r in nudge(t.text):
                out.append((i, i, r, "constant"))
        elif t.kind == "punct":
            if t.text in REL_FLIP:
                out.append((i, i, REL_FLIP[t.text], "relational"))
            elif t.text in SWAP:
                out.append((i, i, SWAP[t.text], "logical" if t.text in ("&&", "||") else "arithmetic"))
            elif t.text in BINARY_SWAP and prev is not None and is_value_end(prev):
                out.append((i, i, BINARY_SWAP[t.text], "arithmetic"))
            elif t.text == "-" and prev is not None and not is_value_end(prev):
                out.append((i, i, "", "sign"))  # unary minus dropped
            elif t.text == "!" and i + 1 < len(toks):
                out.append((i, i, "", "negation"))  # logical not dropped
        elif t.kind == "id" and t.text in ("if", "while") and not t.pp and i + 1 < len(toks) \
                and toks[i + 1].text == "(":
            close = match_paren(toks, i + 1)
            if close > i + 2:
                # Guards forced: "if" both ways, "while" only false (true would
                # hang every test, and a hang is already the timeout's job).
                if t.text == "if":
                    out.append((i + 2, close - 1, "1", "guard"))
                if not (prev is not None and prev.text == "}" and t.text == "while"):  # do ... while
                    out.append((i + 2, close - 1, "0", "guard"))
        elif t.kind == "id" and t.text == "for" and i + 1 < len(toks) and toks[i + 1].text == "(":
            close = match_paren(toks, i + 1)
            semis, depth = [], 0
            for j in range(i + 2, close):
                depth += toks[j].text in ("(", "[")
                depth -= toks[j].text in (")", "]")
                if toks[j].text == ";" and depth == 0:
                    semis.append(j)
            if len(semis) == 2:
                cond = range(semis[0] + 1, semis[1])
                rel = [j for j in cond if toks[j].text in REL_FLIP and toks[j].text not in ("==", "!=")]
                if len(rel) == 1 and rel[0] + 1 < semis[1]:
                    a, b = rel[0] + 1, semis[1] - 1
                    # The loop bound off by one, both ways.
                    out.append((a, b, None, "bound+1"))
                    out.append((a, b, None, "bound-1"))
    return out


class Mutant:
    __slots__ = ("path", "line", "col", "function", "op", "orig", "new", "start", "end", "context",
                 "occurrence", "key", "status", "detail", "seconds", "resumed", "sanitized", "tree", "listed")

    def describe(self):
        return "%s:%d:%d %s [%s] %s -> %s" % (self.path, self.line, self.col, self.function, self.op,
                                              show(self.orig), show(self.new))


def collapse(s):
    return " ".join(s.split())


def spaces(s):
    return re.sub(r"\s+", " ", s)


def show(s):
    return "'" + collapse(s) + "'" if s else "(nothing)"


def generate(root, path):
    """Every mutant of one file, each with its robust key."""
    with open(os.path.join(root, path), encoding="utf-8") as f:
        src = f.read()
    toks = lex(src)
    names = functions(toks)
    seen, result = {}, []
    for first, last, new, op in mutations(toks):
        start, end = toks[first].start, toks[last].end
        orig = src[start:end]
        if op == "bound+1":
            new = "(" + orig + ") + 1"
        elif op == "bound-1":
            new = "(" + orig + ") - 1"
        m = Mutant()
        m.path, m.op, m.orig, m.new, m.start, m.end = path, op, orig, new, start, end
        m.function = names[first]
        line_start = src.rfind("\n", 0, start) + 1
        line_end = src.find("\n", end)
        line_end = len(src) if line_end < 0 else line_end
        m.line, m.col = toks[first].line, start - line_start + 1
        m.context = (spaces(src[line_start:start]) + "@" + collapse(orig) + "@" + spaces(src[end:line_end])).strip()
        k = (path, m.function, m.context, collapse(new))
        m.occurrence = seen.get(k, 0)
        seen[k] = m.occurrence + 1
        m.key = k + (m.occurrence,)
        m.status, m.detail, m.seconds, m.resumed, m.sanitized, m.tree = None, "", 0.0, False, "", ""
        m.listed = None  # its equivalents-file entry, if it has one
        result.append(m)
    return result


# ---------------------------------------------------------------- equivalents
def read_equivalents(path):
    """Entries of the equivalents file: {key: (reason, line number)}.

    Format, one block per mutant (blank lines and # comments between):
        [src/plan/plan.c] dmls_normalize #0
        at: if (@out > 0@) {
        to: out >= 0
        why: ...one or more lines...
        killed-on: the builds where a test kills it (optional: a mutant no
                   test can see on most builds, but some do)
    The key is file, function, the line with the mutated text between @s,
    the replacement, and which occurrence of that same change in that
    function (#0 is the first): line numbers are not part of it."""
    entries = {}
    if not os.path.exists(path):
        return entries
    cur = None
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            m = re.fullmatch(r"\[(.+)\] (.+) #(\d+)", line.strip())
            if m:
                cur = {"path": m.group(1), "function": m.group(2), "occ": int(m.group(3)), "line": n, "why": "",
                       "killed_on": ""}
                continue
            if cur is None or not line.strip() or line.startswith("#"):
                continue
            if line.startswith("at: "):
                cur["at"] = collapse(line[4:])
            elif line.startswith("to: "):
                cur["to"] = collapse(line[4:]) if line[4:].strip() != "(nothing)" else ""
            elif line.startswith("killed-on: "):
                cur["killed_on"] = line[len("killed-on: "):].strip()
            elif line.startswith("why: ") or line.startswith("     "):
                cur["why"] = (cur["why"] + " " + line.strip()[4 if line.startswith("why: ") else 0:]).strip()
            else:
                raise SystemExit("%s:%d: cannot read %r" % (path, n, line))
            if "at" in cur and "to" in cur and "key" not in cur:
                cur["key"] = (cur["path"], cur["function"], cur["at"], cur["to"], cur["occ"])
                entries[cur["key"]] = cur
    for e in entries.values():
        if not e["why"]:
            raise SystemExit("%s:%d: equivalent mutant without a 'why:'" % (path, e["line"]))
    return entries


def equivalent_block(m):
    return "[%s] %s #%d\nat: %s\nto: %s\nwhy: TODO\n" % (m.path, m.function, m.occurrence, m.context,
                                                         collapse(m.new) or "(nothing)")


# ------------------------------------------------------------------- workers
def run(cmd, cwd=None, timeout=None, env=None):
    """Runs cmd in its own process group; returns (rc, output, timed_out).
    On timeout, or when the script is stopped, the whole group is killed."""
    p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                         start_new_session=True)
    with RUNNING_LOCK:
        RUNNING.add(p)
    try:
        out, _ = p.communicate(timeout=timeout)
        return p.returncode, out.decode("utf-8", "replace"), False
    except subprocess.TimeoutExpired:
        kill_group(p)
        out, _ = p.communicate()
        return -1, out.decode("utf-8", "replace"), True
    finally:
        with RUNNING_LOCK:
            RUNNING.discard(p)


def kill_group(p):
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


RUNNING, RUNNING_LOCK, STOP = set(), threading.Lock(), threading.Event()


def source_files(root):
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=root,
                         check=True, stdout=subprocess.PIPE).stdout.decode()
    return [p for p in out.split("\0") if p and os.path.isfile(os.path.join(root, p))]


class Worker:
    def __init__(self, index, root, work, args):
        self.index, self.root, self.args = index, root, args
        self.dir = os.path.join(work, "w%d" % index)
        self.tree = os.path.join(self.dir, "tree")
        self.build = os.path.join(self.dir, "build")
        self.san_build = os.path.join(self.dir, "build-san")
        self.san_broken = None  # tests failing unmutated under the sanitizers; None: not built yet
        self.dirty = {}  # path -> original bytes, of files now mutated in the copy
        self.lock = threading.Lock()

    def sync(self, files):
        """Makes the copy equal to the checkout, touching only what differs
        (so the build folder stays incremental)."""
        for rel in files:
            src, dst = os.path.join(self.root, rel), os.path.join(self.tree, rel)
            with open(src, "rb") as f:
                data = f.read()
            try:
                with open(dst, "rb") as f:
                    same = f.read() == data
            except OSError:
                same = False
            if not same:
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                with open(dst, "wb") as f:
                    f.write(data)
                shutil.copymode(src, dst)
        # Tests find shared data one level above the source folder (../shared).
        shared = os.path.realpath(os.path.join(self.root, "..", "shared"))
        link = os.path.join(self.dir, "shared")
        if os.path.isdir(shared) and not os.path.lexists(link):
            os.symlink(shared, link)

    def configure(self):
        q = os.path.join(self.build, ".cmake", "api", "v1", "query", "codemodel-v2")
        os.makedirs(os.path.dirname(q), exist_ok=True)
        open(q, "w").close()
        cmd = ["cmake", "-S", self.tree, "-B", self.build, "-DDMLS_CUDA=OFF", "-DDMLS_WEB=OFF",
               "-DCMAKE_BUILD_TYPE=" + self.args.build_type] + self.args.cmake_arg
        if shutil.which("ninja") and not os.path.exists(os.path.join(self.build, "CMakeCache.txt")):
            cmd += ["-G", "Ninja"]
        rc, out, _ = run(cmd)
        if rc != 0:
            raise SystemExit("mutate: configuring %s failed:\n%s" % (self.build, out[-3000:]))

    def build_targets(self, targets, timeout=None, build=None):
        cmd = ["cmake", "--build", build or self.build, "-j1"]
        if targets:
            cmd += ["--target"] + sorted(targets)
        return run(cmd, timeout=timeout)

    def configure_san(self):
        """The sanitizer build of this copy, configured on first use."""
        if not os.path.exists(os.path.join(self.san_build, "CMakeCache.txt")):
            cmd = ["cmake", "-S", self.tree, "-B", self.san_build, "-DDMLS_CUDA=OFF", "-DDMLS_WEB=OFF", "-DCMAKE_BUILD_TYPE=Debug",
                   "-DDMLS_SANITIZE=" + self.args.sanitize] + self.args.cmake_arg
            if shutil.which("ninja"):
                cmd += ["-G", "Ninja"]
            rc, out, _ = run(cmd)
            if rc != 0:
                raise RuntimeError("configuring %s failed: %s" % (self.san_build, out[-2000:]))

    def prepare_san(self, tests):
        """Configures and builds the sanitizer build of the unmutated copy
        and notes the tests that fail there already (never counted)."""
        self.configure_san()
        rc, out, _ = self.build_targets(None, timeout=3600, build=self.san_build)
        if rc != 0:
            raise RuntimeError("building %s failed: %s" % (self.san_build, first_error(out)))
        rc, out, _ = self.ctest(tests, 1800, build=self.san_build, stop=False)
        self.san_broken = set(t.strip() for t in failed_tests(out, 1000).split(",") if t.strip())
        if self.san_broken:
            print("mutate: worker %d: unmutated, under the sanitizers, these fail and are not used: %s"
                  % (self.index, ", ".join(sorted(self.san_broken))), flush=True)

    def ctest(self, tests, timeout, build=None, stop=True, total=None):
        """timeout bounds each test; total (default: timeout) the whole call."""
        pattern = "^(" + "|".join(re.escape(t) for t in sorted(tests)) + ")$"
        cmd = ["ctest", "--test-dir", build or self.build, "-R", pattern, "--timeout", str(int(timeout)),
               "--output-on-failure"] + (["--stop-on-failure"] if stop else [])
        env = dict(os.environ)
        if self.args.test_seed is not None:
            env["DMLS_TEST_SEED"] = str(self.args.test_seed)
        return run(cmd, timeout=(total or timeout) + 30, env=env)

    def mutate(self, m):
        path = os.path.join(self.tree, m.path)
        with open(path, "rb") as f:
            original = f.read()
        text = original.decode("utf-8")
        with self.lock:
            self.dirty[m.path] = original
        write_fresh(path, (text[:m.start] + m.new + text[m.end:]).encode("utf-8"))

    def restore(self):
        with self.lock:
            for rel, data in list(self.dirty.items()):
                write_fresh(os.path.join(self.tree, rel), data)
                del self.dirty[rel]


def write_fresh(path, data):
    """Writes data and makes sure its time is later than any object built
    from the previous content, so the build tool sees the change."""
    before = os.stat(path).st_mtime_ns if os.path.exists(path) else 0
    with open(path, "wb") as f:
        f.write(data)
    now = max(time.time_ns(), before + 1_000_000)
    os.utime(path, ns=(now, now))


# ------------------------------------------------------------- test mapping
def codemodel(build):
    reply = os.path.join(build, ".cmake", "api", "v1", "reply")
    index = sorted(glob.glob(os.path.join(reply, "index-*.json")))[-1]
    with open(index) as f:
        idx = json.load(f)
    cm_file = next(o["jsonFile"] for o in idx["objects"] if o["kind"] == "codemodel")
    with open(os.path.join(reply, cm_file)) as f:
        cm = json.load(f)
    targets = {}
    for cfg in cm["configurations"][:1]:
        for ref in cfg["targets"]:
            with open(os.path.join(reply, ref["jsonFile"])) as f:
                t = json.load(f)
            targets[t["id"]] = t
    return cm["paths"]["source"], targets


def object_sources(build, tree):
    """{object path relative to build: [its source, then the headers it
    includes], paths relative to tree}
    from the build tool's records of what each object read."""
    deps = {}
    tree = os.path.realpath(tree)

    def add(obj, src):
        src = os.path.realpath(os.path.join(build, src))
        if src.startswith(tree + os.sep):
            lst = deps.setdefault(obj, [])
            rel = os.path.relpath(src, tree)
            if rel not in lst:
                lst.append(rel)

    if os.path.exists(os.path.join(build, "build.ninja")):
        out = subprocess.run(["ninja", "-C", build, "-t", "deps"], stdout=subprocess.PIPE, check=True).stdout
        obj = None
        for line in out.decode().splitlines():
            if line and not line.startswith(" "):
                obj = line.split(":")[0]
            elif line.strip() and obj:
                add(obj, line.strip())
    else:
        for d in glob.glob(os.path.join(build, "**", "*.o.d"), recursive=True):
            with open(d) as f:
                body = f.read().replace("\\\n", " ")
            obj, _, rest = body.partition(": ")
            for s in rest.split():
                add(os.path.relpath(os.path.join(build, obj.strip()), build) if not os.path.isabs(obj)
                    else os.path.relpath(obj.strip(), build), s)
    return deps


def test_map(worker):
    """({source file: set of test names}, {test: set of targets to build},
    {source file: set of object paths})."""
    build, tree = worker.build, worker.tree
    _, targets = codemodel(build)
    objs = object_sources(build, tree)
    by_name = {t["name"]: t for t in targets.values()}
    # Files each target compiles (through its own objects).
    own, obj_of = {}, {}
    for tid, t in targets.items():
        srcs = {s["path"] for s in t.get("sources", []) if "compileGroupIndex" in s}
        files = set()
        for o, deps in objs.items():
            # CMake puts a target's objects under CMakeFiles/<name>.dir/, and
            # an object's first recorded input is its own source.
            if ("/CMakeFiles/" + t["name"] + ".dir/") in "/" + o and deps[0] in srcs:
                files |= set(deps)
                for src in deps:
                    obj_of.setdefault(src, set()).add(o)
        own[tid] = files

    def closure(tid, seen):
        if tid in seen:
            return set()
        seen.add(tid)
        files = set(own.get(tid, ()))
        for d in targets[tid].get("dependencies", []):
            files |= closure(d["id"], seen)
        return files

    artifact = {}
    for tid, t in targets.items():
        for a in t.get("artifacts", []):
            p = a["path"] if os.path.isabs(a["path"]) else os.path.join(build, a["path"])
            artifact[os.path.realpath(p)] = tid
    out = subprocess.run(["ctest", "--test-dir", build, "--show-only=json-v1"], stdout=subprocess.PIPE,
                         check=True).stdout
    tests_of, targets_of = {}, {}
    for test in json.loads(out)["tests"]:
        used = set()
        for arg in test.get("command", []):
            tid = artifact.get(os.path.realpath(arg)) if os.path.isabs(arg) else None
            if tid:
                used.add(tid)
        files = set()
        for tid in used:
            files |= closure(tid, set())
        targets_of[test["name"]] = {targets[t]["name"] for t in used}
        for f in files:
            tests_of.setdefault(f, set()).add(test["name"])
    del by_name
    return tests_of, targets_of, obj_of


def tree_id(root, files):
    """A hash of what decides a verdict: every tracked file but the
    equivalents list and the Markdown pages."""
    h = hashlib.sha256()
    for rel in sorted(files):
        if rel == DEFAULT_EQUIVALENTS or rel.endswith(".md"):
            continue
        with open(os.path.join(root, rel), "rb") as f:
            h.update(rel.encode() + b"\0" + hashlib.sha256(f.read()).digest())
    return h.hexdigest()[:16]


def file_hash(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


# ---------------------------------------------------------------------- main
def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--files", nargs="+", default=None, metavar="GLOB",
                    help="files to mutate, globs relative to the repository root (default: %s)"
                         % " ".join(DEFAULT_FILES))
    ap.add_argument("--sample", type=int, default=0, metavar="N", help="run N mutants chosen at random (seeded)")
    ap.add_argument("--seed", type=int, default=1, metavar="S", help="seed of the sample (default 1)")
    ap.add_argument("--jobs", type=int, default=1, metavar="N", help="workers, each with its own tree copy")
    ap.add_argument("--timeout", type=float, default=0, metavar="SEC",
                    help="per-mutant test time limit; a mutant past it is killed by timeout "
                         "(default: 3 x its unmutated time + 10 s)")
    ap.add_argument("--filter", default=None, metavar="REGEX",
                    help="only mutants whose description (as --list prints it) matches")
    ap.add_argument("--operators", default=None, metavar="LIST",
                    help="only these operators, comma-separated: relational, logical, arithmetic, sign, "
                         "negation, constant, guard, bound+1, bound-1")
    ap.add_argument("--tests", default=None, metavar="REGEX",
                    help="run only the tests (of those that see the file) whose name matches, e.g. to show "
                         "that a new test kills a mutant on its own")
    ap.add_argument("--listed-only", action="store_true",
                    help="only the mutants the equivalents file lists: an audit of its labels")
    ap.add_argument("--list", action="store_true", help="print the mutants (after --filter/--sample), run none")
    ap.add_argument("--ci", action="store_true",
                    help="CI's sample: --sample %d --seed %d --jobs %d unless given; exit 1 on a survivor or "
                         "on a listed mutant killed; a listed mutant the plain suite leaves alive is not rerun under "
                         "--sanitize" % (CI_SAMPLE, CI_SEED, CI_JOBS))
    ap.add_argument("--work", default=DEFAULT_WORK, help="folder of the tree copies (default: %s)" % DEFAULT_WORK)
    ap.add_argument("--equivalents", default=DEFAULT_EQUIVALENTS, help="the equivalents file")
    ap.add_argument("--build-type", default="Release", help="CMAKE_BUILD_TYPE of the copies (default Release)")
    ap.add_argument("--cmake-arg", action="append", default=[], metavar="ARG",
                    help="extra cmake argument for the copies, e.g. -DDMLS_SANITIZE=address,undefined")
    ap.add_argument("--sanitize", default="address,undefined", metavar="LIST",
                    help="rerun each survivor in a Debug build of the copy with these sanitizers (CI runs the "
                         "suite so too); a failure there kills it (default: address,undefined; '' to skip)")
    ap.add_argument("--test-seed", type=int, default=None, help="DMLS_TEST_SEED for the tests")
    ap.add_argument("--report", default=None, metavar="FILE", help="also write the results as JSON")
    ap.add_argument("--resume", nargs="+", default=None, metavar="FILE",
                    help="reports (--report) of earlier runs (a later one wins): their verdicts are taken, not run "
                         "again, and appear in this run's report; a survivor runs again unless it survived this "
                         "same tree under the same sanitizers")
    ap.add_argument("--judged-only", action="store_true",
                    help="with --resume: run only mutants the reports judged (e.g. their survivors, again)")
    ap.add_argument("--summary", action="store_true",
                    help="with --resume: run nothing; report the earlier runs' verdicts joined over the code as "
                         "it is now (what they did not judge, or must judge again, as not run)")
    ap.add_argument("--time-budget", type=float, default=0, metavar="SEC",
                    help="start no mutant after SEC seconds; those left are reported as not run (exit status "
                         "3), so a full run can be cut into pieces joined with --resume")
    args = ap.parse_args()
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # --list | head
    if args.ci:
        if not any(a.startswith("--sample") for a in sys.argv):
            args.sample = CI_SAMPLE
        if not any(a.startswith("--seed") for a in sys.argv):
            args.seed = CI_SEED
        if not any(a.startswith("--jobs") for a in sys.argv):
            args.jobs = CI_JOBS
    args.jobs = max(1, args.jobs)

    root = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=os.path.dirname(os.path.abspath(__file__)),
                          stdout=subprocess.PIPE, check=True).stdout.decode().strip()
    work = args.work if os.path.isabs(args.work) else os.path.join(root, args.work)
    eq_path = args.equivalents if os.path.isabs(args.equivalents) else os.path.join(root, args.equivalents)

    patterns = args.files or DEFAULT_FILES
    tracked = source_files(root)
    files = sorted({p for p in tracked for g in patterns if glob_match(p, g)})
    if not files:
        raise SystemExit("mutate: no file matches %s" % " ".join(patterns))

    mutants = []
    for f in files:
        mutants += generate(root, f)
    equivalents = read_equivalents(eq_path)
    keys = {m.key for m in mutants}
    # Stale: an entry of a file this run mutates that matches no mutant, or
    # one of a file the repository no longer has (moved or deleted: it would
    # otherwise be dropped unseen).
    stale = [e for k, e in equivalents.items() if (k[0] in files or k[0] not in tracked) and k not in keys]
    for m in mutants:
        m.listed = equivalents.get(m.key)
    listed = [m for m in mutants if m.listed]
    todo = list(mutants)  # the listed ones too: a label must not hide a kill
    if args.listed_only:
        todo = list(listed)
    if args.operators:
        ops = set(args.operators.split(","))
        todo = [m for m in todo if m.op in ops]
    if args.filter:
        rx = re.compile(args.filter)
        todo = [m for m in todo if rx.search(m.describe())]
    if args.sample and args.sample < len(todo):
        # Each mutant's rank is a hash of the seed and its key, so a sample
        # keeps its members when code elsewhere changes.
        todo = sorted(todo, key=lambda m: hashlib.sha256(repr((args.seed,) + m.key).encode()).digest())
        todo = todo[:args.sample]
    todo.sort(key=lambda m: (m.path, m.start, m.new))
    resumed, tree = 0, tree_id(root, tracked)
    if args.resume:
        earlier = {}
        for path in args.resume:  # a later report's verdict wins
            with open(path, encoding="utf-8") as f:
                earlier.update({(r["file"], r["function"], r["at"], r["to"], r["occurrence"]): r
                                for r in json.load(f)["mutants"] if r["status"] in JUDGED})
        for m in todo:
            r = earlier.get(m.key)
            # A killed mutant stays killed while the tests only grow; a
            # survivor is judged again unless it survived this very tree
            # (code and tests) under this run's sanitizers.
            again = r is not None and r["status"] == "survived" and (
                r.get("tree") != tree or r.get("sanitized", "") != args.sanitize)
            if r and not again:
                m.status, m.detail, m.seconds, m.resumed = r["status"], r["detail"], r["seconds"], True
                m.sanitized, m.tree = r.get("sanitized", ""), r.get("tree", "")
                resumed += 1
        if args.judged_only:
            todo = [m for m in todo if m.key in earlier]
    print("mutate: %d files, %d mutants, %d listed as equivalent (run too), %d to run%s%s" % (
        len(files), len(mutants), len(listed), len(todo) - resumed,
        " (sample, seed %d)" % args.seed if args.sample else "",
        ", %d judged already (%s)" % (resumed, ", ".join(args.resume)) if args.resume else ""))
    for e in stale:
        print("mutate: stale equivalent (no such mutant now): %s:%d [%s] %s #%d" % (
            os.path.relpath(eq_path, root), e["line"], e["path"], e["function"], e["occ"]))
    if args.list:
        for m in todo:
            if not m.resumed:
                print("  " + m.describe())
        return 0
    if args.summary:  # the pieces joined, over the code as it is now
        for m in todo:
            if not m.resumed:
                m.status = "not-run"
        return report(root, files, mutants, listed, todo, stale, eq_path,
                      sum(m.seconds for m in todo if m.resumed), args)
    if not todo:
        return 0

    # -------------------------------------------------- set up the copies
    workers = [Worker(i, root, work, args) for i in range(args.jobs)]

    finished = set()  # mutants judged to the end, under qlock
    t0 = time.time()

    def on_signal(signum, frame):
        STOP.set()
        with qlock:
            judged = set(finished)
        with RUNNING_LOCK:
            for p in list(RUNNING):
                kill_group(p)
        for w in workers:
            w.restore()
        print("\nmutate: stopped by signal %d; the copies are restored, the checkout was never written" % signum)
        # Keep what was judged, so that --resume goes on from it: a mutant
        # whose tests the signal cut short is not judged, and the workers may
        # still write to the originals, so the report is made from copies.
        if args.report:
            kept = []
            for m in todo:
                c = copy.copy(m)
                if not (m.resumed or id(m) in judged):
                    c.status, c.detail = "not-run", ""
                kept.append(c)
            report(root, files, mutants, listed, kept, stale, eq_path, time.time() - t0, args)
        os._exit(128 + signum)

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)
    errors = []

    def setup(w):
        try:
            w.sync(tracked)
            w.configure()
            rc, out, _ = w.build_targets(None)
            if rc != 0:
                errors.append("building the unmutated copy %s failed:\n%s" % (w.tree, out[-3000:]))
        except BaseException as e:  # reported below, on the main thread
            errors.append("setting up %s: %s" % (w.dir, e))

    print("mutate: building %d unmutated cop%s in %s" % (len(workers), "y" if len(workers) == 1 else "ies",
                                                         os.path.relpath(work, root)))
    threads = [threading.Thread(target=setup, args=(w,)) for w in workers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise SystemExit("mutate: " + "\n".join(errors))

    tests_of, targets_of, obj_of = test_map(workers[0])
    if args.tests:
        rx_tests = re.compile(args.tests)
        tests_of = {f: {t for t in ts if rx_tests.search(t)} for f, ts in tests_of.items()}
    unbuilt = sorted({m.path for m in todo if not tests_of.get(m.path)})
    for f in unbuilt:
        print("mutate: %s: no test sees it in this build (not compiled here?); its mutants are skipped" % f)
    todo = [m for m in todo if tests_of.get(m.path)]
    needed_tests = set().union(*(tests_of[m.path] for m in todo)) if todo else set()
    tests_all = set().union(*tests_of.values()) if tests_of else set()
    base_hash = {o: file_hash(os.path.join(workers[0].build, o)) for f in obj_of for o in obj_of[f]}

    # Baseline: the unmutated code must pass every test the mutants will run,
    # each on its own, as the mutants run them; its time sets that test's
    # limit under a mutant.
    t1 = time.time()
    duration = {}
    for t in sorted(needed_tests):
        t2 = time.time()
        rc, out, _ = workers[0].ctest({t}, 600)
        duration[t] = time.time() - t2
        if rc != 0:
            raise SystemExit("mutate: the unmutated test %s fails; fix it first:\n%s" % (t, out[-4000:]))
    base = time.time() - t1
    limit = {t: args.timeout or 3 * duration[t] + 10 for t in duration}
    print("mutate: tests pass unmutated in %.0f s; each test's limit under a mutant is %s; %d mutants on %d worker%s"
          % (base, "%.0f s" % args.timeout if args.timeout else "3 x its own time + 10 s",
             sum(1 for m in todo if not m.resumed), len(workers), "" if len(workers) == 1 else "s"))

    # Tests run one at a time and stop at the first failure, so the order
    # decides the cost: first those that killed most mutants of the same
    # file so far, then those that killed any, then the quickest.
    kills_in, kills_any, qlock = {}, {}, threading.Lock()

    def ranked(path, tests):
        mine = kills_in.get(path, {})
        return sorted(tests, key=lambda t: (-mine.get(t, 0), -kills_any.get(t, 0), duration.get(t, 0), t))

    def note_kill(path, test):
        with qlock:
            kills_in.setdefault(path, {})[test] = kills_in.get(path, {}).get(test, 0) + 1
            kills_any[test] = kills_any.get(test, 0) + 1

    # -------------------------------------------------- run the mutants
    queue, done = list(reversed([m for m in todo if not m.resumed])), [0]
    n_run = len(queue)

    def work_loop(w):
        while not STOP.is_set():
            with qlock:
                if not queue:
                    return
                if args.time_budget and time.time() - t0 > args.time_budget:
                    return  # what is left stays "not-run"
                m = queue.pop()
            start = time.time()
            try:
                run_one(w, m)
            except Exception as e:  # a crash of the script itself: the mutant is not judged
                m.status, m.detail = "error", str(e)
            finally:
                w.restore()
            m.seconds = time.time() - start
            with qlock:
                if not STOP.is_set():
                    finished.add(id(m))
                done[0] += 1
                print("mutate: [%d/%d] %-12s %s%s" % (done[0], n_run, m.status, m.describe(),
                                                      "  (" + m.detail + ")" if m.detail else ""), flush=True)

    def run_one(w, m):
        tests = tests_of[m.path]
        w.mutate(m)
        objs = sorted(obj_of.get(m.path, ()))
        if objs and os.path.exists(os.path.join(w.build, "build.ninja")):
            rc, out, _ = run(["ninja", "-C", w.build, "-j1"] + objs, timeout=600)
            if rc != 0:
                m.status, m.detail = "not-compiled", first_error(out)
                return
            if all(file_hash(os.path.join(w.build, o)) == base_hash.get(o) for o in objs):
                m.status = "same-object"
                return
        # Everything: the build tool relinks only what depends on the changed
        # object, and a target name can be ambiguous (the CLI's file is called
        # like the shared library's target).
        rc, out, _ = w.build_targets(None, timeout=600)
        if rc != 0:
            m.status, m.detail = "not-compiled", first_error(out)
            return
        # The likeliest killers one by one (each ctest start costs ~0.1 s),
        # then the rest in one go.
        order = ranked(m.path, tests)
        for batch in [[t] for t in order[:FIRST]] + ([order[FIRST:]] if order[FIRST:] else []):
            # Each test under its own limit (the largest of the batch's), the
            # batch under their sum: one endless test costs its limit only.
            rc, out, timed_out = w.ctest(set(batch), max(limit[t] for t in batch),
                                         total=sum(limit[t] for t in batch))
            if timed_out or "***Timeout" in out or rc != 0:
                t = batch[0] if len(batch) == 1 else (failed_tests(out, 1) or "(%d tests)" % len(batch))
                m.status, m.detail = "timeout" if timed_out or "***Timeout" in out else "killed", t
                note_kill(m.path, t)
                return
        if True:
            m.status = "survived"
            # CI's sample judges on the plain build alone: the sanitizer
            # rerun costs a sanitized build and the whole suite twice under
            # it (15 minutes of CI's 2 cores: the run of 2026-11-28 went
            # past its hour on two survivors' reruns), and a survivor fails
            # CI whatever the rerun finds. Sanitizer verdicts are the full
            # runs' work (--listed-only audits the labels).
            san = "" if args.ci else args.sanitize
            m.sanitized, m.tree = san, tree
            if san:
                # A second chance under the sanitizers, as CI runs the suite:
                # reads past an array that a plain build cannot see.
                if w.san_broken is None:
                    w.restore()
                    w.prepare_san(tests_all)
                    w.mutate(m)
                rc, out, _ = w.build_targets(None, timeout=1800, build=w.san_build)
                if rc != 0:
                    m.detail = "sanitizer build failed: " + first_error(out)
                    return
                san_tests = tests - w.san_broken
                if not san_tests:
                    return
                rc, out, timed_out = w.ctest(san_tests, 5 * base + 60, build=w.san_build)
                if timed_out or rc != 0:
                    m.status = "killed-san"
                    m.detail = failed_tests(out) or "timeout"

    threads = [threading.Thread(target=work_loop, args=(w,)) for w in workers]
    for t in threads:
        t.start()
    for t in threads:
        while t.is_alive():
            t.join(0.5)
    for m in todo:
        if m.status is None:
            m.status = "not-run"

    return report(root, files, mutants, listed, todo, stale, eq_path, time.time() - t0, args)


def failed_tests(out, most=4):
    """The names in ctest's "The following tests FAILED:" list."""
    _, _, tail = out.partition("The following tests FAILED:")
    return ", ".join(re.findall(r"\d+ - (\S+) \(", tail)[:most])


def glob_match(path, pattern):
    """Shell-style match in which * and ? stay within one folder."""
    rx = "".join("[^/]*" if c == "*" else "[^/]" if c == "?" else re.escape(c) for c in pattern)
    return re.fullmatch(rx, path) is not None


def first_error(out):
    for line in out.splitlines():
        if "error" in line:
            return line.strip()[:200]
    return out.strip().splitlines()[-1][:200] if out.strip() else ""


def report(root, files, mutants, listed, todo, stale, eq_path, seconds, args):
    cols = ["killed", "timeout", "killed-san", "survived", "not-compiled", "same-object", "error", "not-run"]
    print("\nmutate: results (%s, %.0f s)" % ("sample of %d, seed %d" % (len(todo), args.seed) if args.sample
                                              else "all mutants", seconds))
    # The status columns count the mutants that are not listed; "listed"
    # counts the listed ones, and "lst-dies" those of them killed here.
    heads = [("mutants", "mutants"), ("killed", "killed"), ("timeout", "timeout"), ("killed-san", "by-san"),
             ("survived", "survived"), ("not-compiled", "not-comp"), ("same-object", "same-obj"),
             ("listed", "listed"), ("listed-dies", "lst-dies"), ("not-run", "not-run")]
    dead = ("killed", "timeout", "killed-san")

    def line(name, row):
        print("%-28s" % name + "".join(" %8s" % row[k] for k, _ in heads))

    line("file", {k: h for k, h in heads})
    total = {c: 0 for c in cols}
    total["mutants"] = total["listed"] = total["listed-dies"] = 0
    for f in files:
        if not any(m.path == f for m in todo + listed):
            continue
        row = {c: sum(1 for m in todo if m.path == f and m.status == c and (not m.listed or c == "not-run"))
               for c in cols}
        row["mutants"] = sum(1 for m in mutants if m.path == f)
        row["listed"] = sum(1 for m in listed if m.path == f)
        row["listed-dies"] = sum(1 for m in todo if m.path == f and m.listed and m.status in dead)
        for k in row:
            total[k] += row[k]
        line(f, row)
    total["mutants"], total["listed"] = len(mutants), len(listed)  # every file, not only the rows shown
    line("total", total)
    killed = total["killed"] + total["timeout"] + total["killed-san"]
    judged = killed + total["survived"]
    if judged:
        print("mutate: score %.1f%% (%d killed of %d that built and were not equivalent)"
              % (100.0 * killed / judged, killed, judged))
    survivors = [m for m in todo if m.status == "survived" and not m.listed]
    wrong = [m for m in todo if m.listed and m.status in dead and not m.listed["killed_on"]]
    elsewhere = [m for m in todo if m.listed and m.status in dead and m.listed["killed_on"]]
    for m in elsewhere:
        print("mutate: listed, killed as its entry (%s:%d) expects on %s: %s (%s: %s)" % (
            os.path.relpath(eq_path, root), m.listed["line"], m.listed["killed_on"], m.describe(), m.status, m.detail))
    if wrong:
        print("\nmutate: listed as equivalent but killed (the label is wrong: drop the entry, or say where it dies"
              " with killed-on:):")
        for m in wrong:
            print("  %s:%d: %s (%s: %s)" % (os.path.relpath(eq_path, root), m.listed["line"], m.describe(),
                                             m.status, m.detail))
    if survivors:
        print("\nmutate: survivors (add a test that kills each, or list it with its reason in %s):"
              % os.path.relpath(eq_path, root))
        for m in survivors:
            print("  %s:%d in %s: %s  ->  %s" % (m.path, m.line, m.function, m.context, show(m.new)))
        print("\nmutate: equivalents-file blocks for the survivors, should any be equivalent:")
        for m in survivors:
            print(equivalent_block(m))
    for m in todo:
        if m.status == "error":
            print("mutate: error on %s: %s" % (m.describe(), m.detail))
    if args.report:
        with open(args.report, "w") as f:
            json.dump({"date": time.strftime("%Y-%m-%d"), "seconds": round(seconds),
                       "sample": args.sample, "seed": args.seed, "totals": total,
                       "stale": [[e["path"], e["function"], e["at"], e["to"], e["occ"]] for e in stale],
                       "mutants": [{"file": m.path, "line": m.line, "function": m.function, "operator": m.op,
                                    "at": m.context, "to": collapse(m.new), "occurrence": m.occurrence,
                                    "status": m.status, "detail": m.detail, "seconds": round(m.seconds, 1),
                                    "sanitized": m.sanitized, "tree": m.tree, "listed": bool(m.listed)}
                                   for m in todo]}, f, indent=1)
    if STOP.is_set():
        return 130
    not_run = sum(1 for m in todo if m.status == "not-run")
    if not_run:
        print("mutate: %d mutants not run: go on with --resume %s" % (not_run, args.report or "REPORT"))
    if any(m.status == "error" for m in todo):
        return 2
    if not_run:
        return 3
    if args.ci and (survivors or wrong):
        print("mutate: CI fails: %d survivor%s not listed as equivalent, %d listed one%s killed" % (
            len(survivors), "" if len(survivors) == 1 else "s", len(wrong), "" if len(wrong) == 1 else "s"))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
