#!/usr/bin/env python3
"""The library and the tool stay within what MSVC compiles as C11: no GNU-only
construct without a fallback (docs/platforms.md, "What proves MSVC
compatibility").

    check_portable.py SOURCE_DIR BUILD_DIR [--require-all]

1. What other compilers see. Every C file of src/ (but src/cuda), tools/ and
   the public headers is preprocessed by gcc with -fdirectives-only, which
   evaluates every #if without expanding macros, against empty stand-ins for
   the system headers (so a test of a system header's macro takes its
   "absent" side), with and without DMLS_HAVE_CUDA, as:
     - MSVC on x64 and on ARM64, and a C11 compiler of no family on Linux
       x86-64 and AArch64: -undef drops gcc's own macros (__GNUC__,
       __x86_64__, ...) for the ones that compiler defines;
     - gcc building with DMLS_PORTABLE_FALLBACKS, gcc's macros and all: the
       build that compiles and tests the fallbacks.
   The project's own text left must hold no GNU-only token (__attribute__,
   __builtin_*, __asm__, __typeof__, __int128, __extension__, ...;
   `#pragma GCC`), and no __declspec outside a Windows branch; the MSVC views
   must include only headers MSVC has and call no POSIX-only function.
   GNU syntax (statement expressions, case ranges, zero-length arrays,
   binary literals, VLAs, ?:) is the build's part: with
   -DDMLS_PORTABLE_FALLBACKS=ON src/ and tools/ compile with
   -pedantic-errors (CI: clang, then the whole suite).
2. The Windows sources, which that Linux build never compiles, and the files
   with a Windows branch get the same strict compile where MinGW-w64 is
   installed: x86_64-w64-mingw32-gcc -fsyntax-only -std=c11
   -pedantic-errors -Werror -DDMLS_PORTABLE_FALLBACKS.

Exit 0 when clean, 1 with every finding listed, 77 (CTest: skipped) without
gcc. Without MinGW-w64 part 2 is reported as not run; --require-all (CI)
makes either gap a failure.

gcc's __has_builtin, __has_attribute and __has_include are operators, not
macros, so no view hides them: test DMLS_GNU_C first."""
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile

# Tokens only GNU C compilers (gcc, clang) accept. MSVC has its own __asm and
# __declspec; neither may appear outside an MSVC branch anyway, and the
# non-MSVC views below flag __declspec through DECLSPEC.
GNU_TOKENS = re.compile(
    r"\b(__attribute__|__attribute|__builtin_\w+|__sync_\w+|__atomic_\w+|__typeof__|__typeof|typeof|"
    r"__asm__|asm|__volatile__|__inline__|__restrict__|__alignof__|__extension__|__label__|__auto_type|"
    r"__thread|__int128|__int128_t|__uint128_t|__PRETTY_FUNCTION__|__has_builtin|__has_attribute)\b")
GNU_PRAGMA = re.compile(r"^\s*#\s*pragma\s+(GCC|clang)\b|_Pragma\s*\(\s*\"(GCC|clang)\b")
DECLSPEC = re.compile(r"\b(__declspec|__stdcall|__cdecl|__forceinline)\b")
# Headers a program built by MSVC can include: C11's (less <threads.h>,
# which MSVC has only since 17.8), the CRT's and the Windows SDK's that
# src/platform/win32.c and tools/platform/win32*.c use, the x86 and ARM intrinsics, and the optional
# dependencies (CUDA, Jansson, the Vulkan SDK).
MSVC_HEADERS = set(
    "assert.h complex.h ctype.h errno.h fenv.h float.h inttypes.h iso646.h limits.h locale.h math.h setjmp.h "
    "signal.h stdalign.h stdarg.h stdatomic.h stdbool.h stddef.h stdint.h stdio.h stdlib.h stdnoreturn.h string.h "
    "tgmath.h time.h uchar.h wchar.h wctype.h "
    "windows.h shellapi.h io.h process.h fcntl.h sys/stat.h sys/types.h direct.h share.h malloc.h "
    "intrin.h immintrin.h emmintrin.h arm_neon.h arm64_neon.h "
    "cuda_runtime_api.h cuda_runtime.h jansson.h vulkan/vulkan.h".split())
# POSIX (or glibc) functions the MSVC runtime lacks or names otherwise
# (_stricmp, _strdup, ...): only the platform layers' posix*.c may call them.
POSIX_CALLS = re.compile(
    r"\b(strcasecmp|strncasecmp|strdup|strndup|getline|getdelim|strtok_r|strerror_r|realpath|posix_memalign|"
    r"aligned_alloc|mmap|munmap|fileno|isatty|popen|pclose|usleep|nanosleep|clock_gettime|gettimeofday|"
    r"gmtime_r|localtime_r|sysconf|getpid|unlink|ssize_t|off_t)\s*\(?")

# What is preprocessed: a name; whether gcc's own macros go (-undef) for
# those of the compiler named; its macros; whether it is MSVC. The last view
# is the DMLS_PORTABLE_FALLBACKS build itself, gcc's macros and all: there a
# GNU token may stand under a bare __GNUC__ test only in the public headers
# (DMLS_API's ELF visibility), since elsewhere that branch would hide its
# fallback from the build that compiles and tests the fallbacks.
VIEWS = [
    ("MSVC x64", True, ["_WIN32", "_WIN64", "_MSC_VER=1938", "_MSC_FULL_VER=193833130", "_M_X64=100", "_M_AMD64=100"], True),
    ("MSVC ARM64", True, ["_WIN32", "_WIN64", "_MSC_VER=1938", "_MSC_FULL_VER=193833130", "_M_ARM64=1"], True),
    ("C11 on Linux x86-64", True, ["__linux__", "__unix__", "__x86_64__", "__ELF__"], False),
    ("C11 on Linux AArch64", True, ["__linux__", "__unix__", "__aarch64__", "__ELF__"], False),
    ("gcc with DMLS_PORTABLE_FALLBACKS", False, ["DMLS_PORTABLE_FALLBACKS"], False),
]
# The build switches that change which code is compiled.
VARIANTS = [("", []), (" with CUDA", ["DMLS_HAVE_CUDA"])]
# The library's DLL build and a program importing from it differ only in
# __declspec, which the MSVC views allow.
LIBRARY_DEFINES = ["DMLS_BUILDING_DLL"]




def sources(root):
    out = []
    for top in ("src", "include", "tools"):
        for d, dirs, files in os.walk(os.path.join(root, top)):
            rel = os.path.relpath(d, root).replace(os.sep, "/")
            if rel == "src/cuda" or rel.startswith("src/cuda/"):
                continue
            dirs.sort()
            for f in sorted(files):
                if f.endswith(".c") or (top == "include" and f.endswith(".h")):
                    out.append(rel + "/" + f)
    return out


def compiled_on(path, windows):
    """Whether a file is compiled for that system (src/platform/CMakeLists.txt,
    tools/platform/CMakeLists.txt)."""
    name = os.path.basename(path)
    if name.startswith("posix"):
        return not windows
    if name.startswith("win32"):
        return windows
    return True


INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)


def walk_includes(root, files, include_dirs):
    """For each file, the text of it and of every header of the tree it
    includes, however deeply; and the names it includes that the tree does
    not hold: <system> headers, and "generated" ones of the build."""
    direct, system, generated = {}, set(), set()
    todo = list(files)
    while todo:
        rel = todo.pop()
        if rel in direct:
            continue
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            text = f.read()
        deps = []
        for kind, name in INCLUDE.findall(text):
            if kind == '"':
                cands = [os.path.join(os.path.dirname(rel), name)] + [os.path.join(d, name) for d in include_dirs(rel)]
                hit = next((c for c in cands if os.path.isfile(os.path.join(root, c))), None)
                if hit:
                    deps.append(os.path.normpath(hit).replace(os.sep, "/"))
                    continue
                generated.add(name)
            else:
                system.add(name)
        direct[rel] = (text, deps)
        todo.extend(deps)
    closure = {}
    for rel in files:
        seen, stack = set(), [rel]
        while stack:
            r = stack.pop()
            if r not in seen:
                seen.add(r)
                stack.extend(direct[r][1])
        closure[rel] = "\n".join(direct[r][0] for r in sorted(seen))
    return closure, system, generated


def make_stubs(stub_dir, names):
    """Empty stand-ins: -fdirectives-only needs a file, never its contents."""
    for name in names:
        p = os.path.join(stub_dir, name)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        open(p, "w").close()


def strip_code(lines):
    """Removes comments, string and character literals, keeping one output
    line per input line (a comment may span lines)."""
    out, in_comment = [], False
    for line in lines:
        res, i, n = [], 0, len(line)
        while i < n:
            if in_comment:
                j = line.find("*/", i)
                if j < 0:
                    i = n
                else:
                    in_comment, i = False, j + 2
                continue
            c = line[i]
            if line.startswith("/*", i):
                in_comment, i = True, i + 2
            elif line.startswith("//", i):
                break
            elif c in "\"'":
                j = i + 1
                while j < n and line[j] != c:
                    j += 2 if line[j] == "\\" else 1
                res.append(c + c)
                i = j + 1
            else:
                res.append(c)
                i += 1
        out.append("".join(res))
    return out


def own_lines(pp_text, root, stub_dir):
    """(file, line, text) of the preprocessed lines from the source tree, and
    (file, header) for each stand-in header a file of the tree includes."""
    marker = re.compile(r'^# (\d+) "([^"]*)"((?: \d)*)$')
    cur, lineno, rows, headers = None, 0, [], set()
    for raw in pp_text.split("\n"):
        m = marker.match(raw)
        if m:
            path, flags = m.group(2), m.group(3).split()
            if "1" in flags and path.startswith(stub_dir) and cur is not None:
                headers.add((cur, os.path.relpath(path, stub_dir).replace(os.sep, "/")))
            cur, lineno = path_rel(path, root, stub_dir), int(m.group(1))
            continue
        if cur is not None:
            rows.append((cur, lineno, raw))
        lineno += 1
    return rows, headers


def path_rel(path, root, stub_dir):
    if path.startswith(stub_dir) or path.startswith("<"):
        return None
    full = os.path.normpath(os.path.join(root, path))
    return os.path.relpath(full, root).replace(os.sep, "/")


def include_dirs(rel):
    """The folders a file's build searches, as CMake gives them: the tool's
    files find its own platform layer (tools/platform) and the library's
    (src/platform), the library's files the latter."""
    platform = ["tools/platform", "src/platform"] if rel.startswith("tools/") else ["src/platform"]
    return ["include"] + platform + ["tools", "tools/dispatch", "tools/npy", "tools/commands", "tools/devices",
                                     "tools/bench"]


def preprocess(job):
    gcc, root, stub_dir, rel, undef, defines = job
    cmd = [gcc, "-E", "-fdirectives-only", "-nostdinc", "-std=c11", "-pedantic-errors", "-Werror", "-x", "c"]
    if undef:
        cmd.append("-undef")
    cmd += ["-D" + d for d in defines]
    cmd += ["-I" + os.path.join(root, d) for d in include_dirs(rel)] + ["-I" + stub_dir, rel]
    return subprocess.run(cmd, cwd=root, capture_output=True, text=True)


def scan_views(root, gcc, findings):
    files = sources(root)
    closure, system, generated = walk_includes(root, files, include_dirs)
    stub_dir = tempfile.mkdtemp(prefix="dmls_stubs_")
    try:
        make_stubs(stub_dir, system | generated)
        jobs = []
        for view, undef, macros, msvc in VIEWS:
            for variant, vmacros in VARIANTS:
                for rel in files:
                    # A build switch needs its own pass only where the file
                    # or a header it includes tests it.
                    if not compiled_on(rel, msvc) or any(m not in closure[rel] for m in vmacros):
                        continue
                    defines = macros + vmacros + (LIBRARY_DEFINES if rel.startswith("src/") else [])
                    jobs.append((view + variant, undef, msvc, rel, (gcc, root, stub_dir, rel, undef, defines)))
        with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            results = list(pool.map(preprocess, [j[4] for j in jobs]))
        for (view, undef, msvc, rel, _), r in zip(jobs, results):
            if r.returncode != 0:
                findings.append("%s: %s: the preprocessor failed:\n%s" % (view, rel, r.stderr.strip()))
                continue
            rows, headers = own_lines(r.stdout, root, stub_dir)
            code = strip_code([t for _, _, t in rows])
            for (f, n, raw), text in zip(rows, code):
                where = "%s: %s:%d" % (view, f, n)
                for m in GNU_TOKENS.finditer(text):
                    if not undef and f.startswith("include/"):
                        continue
                    findings.append("%s: GNU-only '%s' outside a DMLS_GNU_C branch: %s" % (where, m.group(1), raw.strip()))
                if GNU_PRAGMA.search(raw):
                    findings.append("%s: a GCC/clang pragma: %s" % (where, raw.strip()))
                if not msvc:
                    for m in DECLSPEC.finditer(text):
                        findings.append("%s: MSVC-only '%s' outside a Windows branch: %s" % (where, m.group(1), raw.strip()))
                if msvc:
                    for m in POSIX_CALLS.finditer(text):
                        if m.group(0).endswith("(") or m.group(1) in ("ssize_t", "off_t"):
                            findings.append("%s: POSIX-only '%s', which MSVC's runtime lacks or has only under another name: %s" %
                                            (where, m.group(1), raw.strip()))
            if msvc:
                for f, h in sorted(headers):
                    if h in system and h not in MSVC_HEADERS:
                        findings.append("%s: %s includes <%s>, which MSVC does not have" % (view, f, h))
        return len(jobs)
    finally:
        shutil.rmtree(stub_dir, ignore_errors=True)


WINDOWS_MACROS = re.compile(r"\b(_WIN32|_WIN64|_MSC_VER|_M_X64|_M_IX86|_M_ARM64|_M_ARM|__MINGW32__|__MINGW64__)\b")


def strict_windows(root, build, mingw, findings):
    """The Windows sources and the files with a Windows branch of their own
    (the headers' branches come with them), compiled strictly with the
    fallbacks; the rest is the same code the Linux fallback build compiles."""
    files = []
    for rel in sources(root):
        if not rel.endswith(".c") or not compiled_on(rel, True):
            continue
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            if os.path.basename(rel).startswith("win32") or WINDOWS_MACROS.search(f.read()):
                files.append(rel)
    base = [mingw, "-fsyntax-only", "-std=c11", "-pedantic-errors", "-Werror=vla", "-Wall", "-Wextra", "-Werror",
            "-DDMLS_PORTABLE_FALLBACKS", "-D__USE_MINGW_ANSI_STDIO=1",
            "-I" + os.path.join(root, "include"), "-I" + os.path.join(build, "include")]

    def one(rel):
        extra = ["-DDMLS_BUILDING_DLL"] if rel.startswith("src/") else []
        if rel.startswith("tools/"):  # of src/, the tool sees the platform layer alone (tools/CMakeLists.txt)
            extra += ["-I" + os.path.join(root, d) for d in ("tools/platform", "src/platform", "tools", "tools/npy",
                                                              "tools/commands", "tools/devices", "tools/bench")]
            extra += ["-I" + os.path.join(build, "tools")]
        else:
            extra += ["-I" + os.path.join(root, "src"), "-I" + os.path.join(root, "src/platform")]
        if rel.endswith("kernels_avx2.c"):
            extra.append("-mavx2")  # as src/CMakeLists.txt compiles it without the GNU attribute
        return subprocess.run(base + extra + [rel], cwd=root, capture_output=True, text=True)

    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for rel, r in zip(files, pool.map(one, files)):
            if r.returncode != 0:
                findings.append("MinGW-w64, strict: %s:\n%s" % (rel, r.stderr.strip()))
    return files


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    require_all = "--require-all" in argv
    if len(args) != 2:
        print(__doc__)
        return 2
    root, build = os.path.abspath(args[0]), os.path.abspath(args[1])
    findings, missing = [], []
    gcc = shutil.which("gcc")
    if gcc:
        n = scan_views(root, gcc, findings)
        print("views: %d translation units preprocessed as %s would see them" % (n, "; ".join(v[0] for v in VIEWS)))
    else:
        print("skipped: no gcc, whose -fdirectives-only shows what other compilers see")
        return 1 if require_all else 77
    mingw = shutil.which("x86_64-w64-mingw32-gcc")
    if not mingw:
        missing.append("x86_64-w64-mingw32-gcc: the Windows sources compiled strictly")
    elif not os.path.isfile(os.path.join(build, "include", "dmlslice", "dmlslice_version.h")):
        missing.append("the Windows sources compiled strictly: %s has no generated headers" % build)
    else:
        files = strict_windows(root, build, mingw, findings)
        print("MinGW-w64: %s compiled with -pedantic-errors and the fallbacks" % " ".join(files))
    for m in missing:
        print("not checked: " + m)
    findings = list(dict.fromkeys(findings))  # one finding per line, however many views share it
    for f in findings:
        print(f)
    if findings:
        print("%d finding(s): a GNU-only construct needs a DMLS_GNU_C branch with a plain-C11 fallback "
              "(src/compiler.h); a POSIX call belongs in src/platform or tools/platform" % len(findings))
        return 1
    if missing and require_all:
        print("--require-all: a check could not run")
        return 1
    print("portable: no GNU-only construct outside a DMLS_GNU_C branch")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
