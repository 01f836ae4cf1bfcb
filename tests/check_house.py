#!/usr/bin/env python3
"""The house's rules, checked on the sources and on the build's objects:

  calls     no cycle of calls between files: in each linked unit (the
            library, the tool, the Python extension), file A calls file B
            when an object of A leaves undefined a function that B's object
            defines (nm); calls through a table of function pointers (the
            backends) are no calls here, which is the point of the table.
            The tool and the extension compile none of src/ themselves but
            the platform layer (src/platform: the operating system's
            threads, clock and memory, which the library keeps hidden).
  core      no core file (src/**.c, src/**.h, outside the backend folders and
            src/platform, src/frontends) includes a backend's header or names
            a backend's type: those the backend folders' headers and the
            backends' public headers declare, and the device APIs' own
            (CUDA's cuda*/CU*, Vulkan's Vk*, the x86 and NEON vector types).
  lengths   no function of src/, tools/ or python/src/ is longer than 100
            lines, from the line its declaration starts on to its closing
            brace.
  includes  tools/ and python/src/ include the public headers
            (include/dmlslice/*) and their own, nothing of src/ but
            src/platform/platform.h (a header of examples/ too, when it
            includes only public headers).

Usage: check_house.py SOURCE_DIR BUILD_DIR NM [UNIT=OBJECT;OBJECT;...]...
Exit 0 when all hold, 1 with every violation listed, 77 (skipped) when no
unit has objects to read.
"""
import os
import re
import subprocess
import sys

BACKENDS = ("src/cpu", "src/cuda", "src/vulkan")
NOT_CORE = BACKENDS + ("src/platform", "src/frontends")
SHARED = "src/platform/"  # the one folder of src/ the tool compiles in too
BACKEND_PUBLIC = ("include/dmlslice/dmlslice_cuda.h", "include/dmlslice/batch_cuda.h",
                  "include/dmlslice/dmlslice_vulkan.h", "include/dmlslice/batch_vulkan.h")
DEVICE_API_TYPES = re.compile(
    r"\b(cuda[A-Z]\w*|CU[a-z]\w*|Vk[A-Z]\w*|__m(?:64|128|256|512)\w*|"
    r"(?:u?int|float|poly)(?:8|16|32|64)x\d+(?:x\d+)?_t)\b")
FUNCTION_TYPES = set("TWi")  # defined text: a function, weak or not, or an ifunc


def rel(path, root):
    return os.path.relpath(path, root).replace(os.sep, "/")


def files_under(root, folder, exts):
    out = []
    for d, _, names in os.walk(os.path.join(root, folder)):
        out += [os.path.join(d, n) for n in names if n.endswith(exts)]
    return sorted(out)


def strip_c(text):
    """The code alone: comments and string and character literals blanked,
    line breaks kept (so line numbers hold)."""
    pattern = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
    return pattern.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)) if m.group(0)[0] == "/" else '""', text)


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


# ------------------------------------------------------------------ calls

def source_of(obj, source_dir, build_dir):
    """The source file an object of the CMake build was compiled from:
    BUILD/REL/CMakeFiles/TARGET.dir/PATH.o comes from SOURCE/REL/PATH, with
    CMake's "__" standing for "..". None for another layout."""
    obj = os.path.abspath(obj)
    parts = obj.replace(os.sep, "/").split("/CMakeFiles/", 1)
    if len(parts) != 2 or "/" not in parts[1]:
        return None
    within = parts[1].split("/", 1)[1]
    within = "/".join(".." if p == "__" else p for p in within.split("/"))
    within = re.sub(r"\.(o|obj)$", "", within)
    return os.path.normpath(os.path.join(source_dir, os.path.relpath(parts[0], build_dir), within))


def symbols(nm, obj):
    """(functions defined, symbols used but not defined) of one object, by
    nm's portable output (GNU nm and llvm-nm alike)."""
    out = subprocess.run([nm, "-P", "-g", obj], capture_output=True, text=True, check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) < 2:
            continue
        if f[1] == "U":
            undefined.add(f[0])
        elif f[1] in FUNCTION_TYPES:
            defined.add(f[0])
    return defined, undefined


def call_graph(nm, objects, source_dir, build_dir):
    """{file: {callee file: [functions]}} for one linked unit."""
    defs, uses = {}, {}
    for obj in objects:
        src = source_of(obj, source_dir, build_dir)
        name = rel(src, source_dir) if src else obj
        d, u = symbols(nm, obj)
        defs.setdefault(name, set()).update(d)
        uses.setdefault(name, set()).update(u)
    definer = {}
    for name, d in defs.items():
        for s in d:
            definer.setdefault(s, set()).add(name)
    graph = {}
    for name, u in uses.items():
        edges = graph.setdefault(name, {})
        for s in u:
            for callee in definer.get(s, ()):
                if callee != name:
                    edges.setdefault(callee, []).append(s)
    return graph


def cycles(graph):
    """The strongly connected components of more than one file (Tarjan's
    algorithm, iterative: a unit may have hundreds of files)."""
    index, low, on_stack, stack, found, counter = {}, {}, set(), [], [], [0]
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, {}))))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, {})))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    n = stack.pop()
                    on_stack.discard(n)
                    comp.append(n)
                    if n == node:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return found


def check_calls(nm, units, source_dir, build_dir):
    problems, read_any = [], False
    for unit, objects in units:
        objects = [o for o in objects if o and os.path.exists(o)]
        if not objects:
            continue
        read_any = True
        if unit != "library":
            for obj in objects:
                src = source_of(obj, source_dir, build_dir)
                if src and rel(src, source_dir).startswith("src/") and not rel(src, source_dir).startswith(SHARED):
                    problems.append("calls: %s compiles the library's %s itself instead of linking the library" %
                                    (unit, rel(src, source_dir)))
        graph = call_graph(nm, objects, source_dir, build_dir)
        for comp in cycles(graph):
            lines = []
            for a in comp:
                for b in comp:
                    if b in graph.get(a, {}):
                        lines.append("    %s -> %s (%s)" % (a, b, ", ".join(sorted(graph[a][b])[:4])))
            problems.append("calls: a cycle between %d files of %s:\n%s" % (len(comp), unit, "\n".join(lines)))
    return problems, read_any


# ------------------------------------------------------------------- core

TYPE_DECL = re.compile(r"\btypedef\b[^;{]*(?:\{(?:[^{}]|\{[^{}]*\})*\})?[^;]*?\b(\w+)\s*(?:\[[^\]]*\])?\s*;|"
                       r"\b(?:struct|union|enum)\s+(\w+)\s*\{", re.S)
FN_PTR_TYPEDEF = re.compile(r"\btypedef\b[^;]*\(\s*\*\s*(\w+)\s*\)")


def declared_types(paths):
    names = set()
    for p in paths:
        code = strip_c(read(p))
        for m in TYPE_DECL.finditer(code):
            names.add(m.group(1) or m.group(2))
        names.update(FN_PTR_TYPEDEF.findall(code))
        names.update(re.findall(r"\b(?:struct|union|enum)\s+(\w+)\s*;", code))
    names.discard(None)
    return names


def core_files(source_dir):
    """src/ and its folders but the backends', the platform layer's and the front ends'."""
    return [p for p in files_under(source_dir, "src", (".c", ".h"))
            if not any(rel(p, source_dir).startswith(f + "/") for f in NOT_CORE)]


def check_core(source_dir):
    headers = [p for b in BACKENDS for p in files_under(source_dir, b, (".h",))]  # .cuh: C++ for .cu files alone
    backend = declared_types(headers + [os.path.join(source_dir, p) for p in BACKEND_PUBLIC
                                        if os.path.exists(os.path.join(source_dir, p))])
    # What the core or the public API declares is theirs, wherever a backend
    # also declares it (a forward declaration, the opaque context a backend
    # defines).
    shared = [p for p in core_files(source_dir) if p.endswith(".h")]
    shared += [p for p in files_under(source_dir, "include/dmlslice", (".h",))
               if rel(p, source_dir) not in BACKEND_PUBLIC]
    backend -= declared_types(shared)
    names = re.compile(r"\b(" + "|".join(sorted(map(re.escape, backend))) + r")\b") if backend else None
    problems = []
    for path in core_files(source_dir):
        text = read(path)
        code = strip_c(text)
        where = rel(path, source_dir)
        for m in re.finditer(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', text, re.M):
            if re.match(r"(\.\.?/)*(cpu|cuda|vulkan)/", m.group(1)):
                problems.append("core: %s:%d includes the backend's %s" %
                                (where, text.count("\n", 0, m.start()) + 1, m.group(1)))
        for rx in filter(None, (names, DEVICE_API_TYPES)):
            for m in rx.finditer(code):
                problems.append("core: %s:%d names the backend type %s" %
                                (where, code.count("\n", 0, m.start()) + 1, m.group(1)))
    return problems


# --------------------------------------------------------------- includes

def examples_public(path, source_dir):
    """examples/ is code a user reads, written against the public API alone:
    its headers may be shared (the worked examples' one home) as long as
    they include nothing but include/dmlslice/ and the system's."""
    if not rel(path, source_dir).startswith("examples/"):
        return False
    names = re.findall(r'^\s*#\s*include\s*"([^"]+)"', read(path), re.M)
    return all(n.startswith("dmlslice/") for n in names)


def check_includes(source_dir):
    problems = []
    public = os.path.join(source_dir, "include")
    for tree in ("tools", "python/src"):
        top = os.path.join(source_dir, tree)
        if not os.path.isdir(top):
            continue
        folders = sorted({os.path.dirname(p) for p in files_under(source_dir, tree, (".c", ".h", ".cuh", ".inc"))})
        for path in files_under(source_dir, tree, (".c", ".h", ".cu", ".cuh")):
            text = read(path)
            for m in re.finditer(r'^\s*#\s*include\s*(["<])([^">]+)[">]', text, re.M):
                quote, name = m.group(1), m.group(2)
                line = text.count("\n", 0, m.start()) + 1
                if name.startswith("dmlslice/"):
                    if not os.path.exists(os.path.join(public, name)):
                        problems.append("includes: %s:%d includes %s, which include/ lacks" %
                                        (rel(path, source_dir), line, name))
                    continue
                if quote == "<":
                    continue  # the system's and the libraries' own
                candidates = [os.path.normpath(os.path.join(os.path.dirname(path), name))]
                candidates += [os.path.normpath(os.path.join(d, name)) for d in folders]
                found = [c for c in candidates if os.path.isfile(c)]
                if any(not os.path.relpath(c, top).startswith("..") for c in found):
                    continue
                if found and all(examples_public(c, source_dir) for c in found):
                    continue
                if found:
                    problems.append("includes: %s:%d includes %s (%s), outside %s/ and include/dmlslice/" %
                                    (rel(path, source_dir), line, name, rel(found[0], source_dir), tree))
                    continue
                # Not in the tree: a file the build makes (tools' cases_json.inc),
                # unless the library's sources hold one of that name.
                tail = re.sub(r"^(\.\.?/)+", "", name)  # an include path may make "../x/y.h" any x/y.h
                elsewhere = [p for p in files_under(source_dir, "src", (".h", ".c", ".cuh"))
                             if p.replace(os.sep, "/").endswith("/" + tail)]
                if tree == "tools" and elsewhere and all(rel(e, source_dir).startswith(SHARED) for e in elsewhere):
                    continue  # the platform layer the tool compiles in (tools/CMakeLists.txt)
                if elsewhere:
                    problems.append("includes: %s:%d includes %s, found only as %s" %
                                    (rel(path, source_dir), line, name, rel(elsewhere[0], source_dir)))
    return problems


# ---------------------------------------------------------------- lengths

MAX_FUNCTION_LINES = 100


def function_lengths(code):
    """(first line, lines, name) of each function body in comment-free code:
    a brace at file level whose declaration (the text since the last `;`,
    `}` or directive there) has a parameter list and is no type, array or
    initializer."""
    found, depth, decl_start, i = [], 0, 0, 0
    body_start = name = None
    line_starts = [0] + [m.end() for m in re.finditer(r"\n", code)]

    def line_of(pos):
        lo, hi = 0, len(line_starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            lo, hi = (mid, hi) if line_starts[mid] <= pos else (lo, mid - 1)
        return lo + 1

    while i < len(code):
        c = code[i]
        if depth == 0 and c == "#":  # a directive ends where its line does (continuations kept)
            while i < len(code) and code[i] != "\n":
                i += 2 if code[i] == "\\" else 1
            decl_start = i
        elif c == "{":
            if depth == 0:
                decl = code[decl_start:i]
                m = re.search(r"(\w+)\s*\([^;]*\)\s*$", decl)
                if m and not re.search(r"\b(struct|union|enum|typedef)\b[^(]*$|=\s*$", decl.split("(")[0] + " "):
                    body_start, name = decl_start + len(decl) - len(decl.lstrip()), m.group(1)
                else:
                    body_start = None
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                if body_start is not None:
                    first, last = line_of(body_start), line_of(i)
                    found.append((first, last - first + 1, name))
                    body_start = None
                decl_start = i + 1
        elif c == ";" and depth == 0:
            decl_start = i + 1
        i += 1
    return found


def check_lengths(source_dir):
    problems = []
    for tree in ("src", "tools", "python/src"):
        for path in files_under(source_dir, tree, (".c", ".h", ".cu", ".cuh")):
            for first, lines, name in function_lengths(strip_c(read(path))):
                if lines > MAX_FUNCTION_LINES:
                    problems.append("lengths: %s:%d: %s is %d lines, more than %d" %
                                    (rel(path, source_dir), first, name, lines, MAX_FUNCTION_LINES))
    return problems


def main(argv):
    if len(argv) < 4:
        print(__doc__)
        return 2
    source_dir, build_dir, nm = os.path.abspath(argv[1]), os.path.abspath(argv[2]), argv[3]
    units = []
    for spec in argv[4:]:
        name, _, objs = spec.partition("=")
        units.append((name, objs.split(";")))
    problems, read_any = check_calls(nm, units, source_dir, build_dir)
    problems += check_core(source_dir)
    problems += check_includes(source_dir)
    problems += check_lengths(source_dir)
    for p in problems:
        print("FAIL " + p)
    if problems:
        return 1
    if not read_any:
        print("no objects to read: the call check was not run")
        return 77
    print("house: no cycle of calls in %s; the core names no backend type; tools/ and python/src/ use "
          "include/dmlslice/ and their own headers; no function over %d lines" %
          (", ".join(u for u, o in units if any(o)), MAX_FUNCTION_LINES))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
