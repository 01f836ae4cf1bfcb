#!/usr/bin/env python3
"""Runs every code block of README.md, python/README.md and docs/*.md, so
that an example that no longer works fails the suite (issue 35).

A block's fence names its language, then optional markers:

    ```python        executed, the file's blocks in order in one namespace
                     (PYTHONPATH: the built package), from a scratch folder
    ```python gpu    the same where a CUDA GPU is (torch.cuda), else skipped
    ```c             compiled as a complete program against the built
                     library and run; it must exit 0
    ```sh            run by sh -e in a scratch folder that holds the sample
                     files the pages name (x.npy, dy.npy, qkv.npy,
                     image.npy, boxes.npy, model.json), the built dmlslice
                     first on PATH; it must exit 0
    ```sh lines      each line (continuations joined) run on its own in a
                     fresh copy of that folder: a list of alternatives, not
                     a script. A line exits 0, or 1 naming a rule ID
                     (a refusal the page shows on purpose)
    ```sh install    a consumer's lines, built and run against an installed
                     prefix by tests/install/run.sh (as are ```cmake blocks)
    ```sh build      builds the project or runs one of CI's long checks
                     (.ci/run does those): only sh -n here
    ```text          output or a file's text, shown, not run
    ```LANG no-run: WHY   not meant to run, and why (few)

A block without a language, or with one or a marker not listed, fails.
Usage: run_blocks.py SOURCE_DIR BUILD_DIR TOOL LIBRARY SCRATCH_DIR
"""
import os
import re
import shutil
import struct
import subprocess
import sys

PAGES = ["README.md", "python/README.md"]
FENCE = re.compile(r"^```([^\n]*)\n(.*?)^```[ \t]*$", re.S | re.M)
KNOWN = {"python": {"", "gpu"}, "c": {""}, "sh": {"", "lines", "install", "build"}, "cmake": {""}, "text": {""}}
TIMEOUT = 60


def blocks(path):
    """(line, language, marker, body) of each fenced block of the page."""
    text = open(path, encoding="utf-8").read()
    for m in FENCE.finditer(text):
        info = m.group(1).strip()
        lang, _, marker = info.partition(" ")
        yield text.count("\n", 0, m.start()) + 1, lang, marker.strip(), m.group(2)


def npy(path, descr, shape, data):
    """A version-1 .npy file, written by hand so the test needs no NumPy."""
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        descr, "".join("%d, " % n for n in shape) if len(shape) != 1 else "%d," % shape[0])
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + data)


def floats(n):
    return struct.pack("<%df" % n, *range(n))


def samples(src, folder):
    """The files the pages' command lines name, made here (nothing generated is committed)."""
    os.makedirs(folder)
    npy(os.path.join(folder, "x.npy"), "<f4", (4, 5, 6), floats(120))
    npy(os.path.join(folder, "dy.npy"), "<f4", (2, 4), floats(8))  # grad's window of the README
    npy(os.path.join(folder, "qkv.npy"), "<f4", (2, 6), floats(12))
    npy(os.path.join(folder, "image.npy"), "<f4", (3, 64, 64), floats(3 * 64 * 64))
    npy(os.path.join(folder, "boxes.npy"), "<i8", (2, 3), struct.pack("<6q", 0, 0, 0, 0, 0, 0))
    shutil.copy(os.path.join(src, "examples/dispatch/dml_slice.json"), os.path.join(folder, "model.json"))


class Runner:
    def __init__(self, src, build, tool, library, scratch):
        self.src, self.build, self.tool, self.library, self.scratch = src, build, tool, library, scratch
        self.failures, self.counts, self.n = [], {}, 0
        self.env = dict(os.environ, PATH=os.path.dirname(tool) + os.pathsep + os.environ.get("PATH", ""),
                        PYTHONPATH=os.path.join(build, "python"), PYTHONDONTWRITEBYTECODE="1")
        self.gpu = subprocess.run([sys.executable, "-c", "import torch, sys; sys.exit(not torch.cuda.is_available())"],
                                  capture_output=True).returncode == 0
        self.python = subprocess.run([sys.executable, "-c", "import dmlslice, numpy"], env=self.env,
                                     capture_output=True).returncode == 0
        self.samples = os.path.join(scratch, "samples")
        samples(src, self.samples)

    def folder(self):
        self.n += 1
        d = os.path.join(self.scratch, "run%d" % self.n)
        shutil.copytree(self.samples, d)
        return d

    def count(self, what):
        self.counts[what] = self.counts.get(what, 0) + 1

    def fail(self, where, why):
        self.failures.append("%s: %s" % (where, why.rstrip()))

    def run(self, where, argv, cwd, ok=lambda p: p.returncode == 0, stdin=None):
        try:
            p = subprocess.run(argv, cwd=cwd, env=self.env, capture_output=True, text=True, timeout=TIMEOUT,
                               input=stdin)
        except subprocess.TimeoutExpired:
            self.fail(where, "ran past %d s" % TIMEOUT)
            return
        if not ok(p):
            self.fail(where, "exit %d\n%s%s" % (p.returncode, p.stdout[-2000:], p.stderr[-2000:]))

    def sh(self, where, marker, body):
        if marker in ("build", "install"):
            self.run(where, ["sh", "-n", "-c", body], self.scratch)
            self.count("sh " + marker + " (sh -n only)")
            return
        if marker == "lines":
            for line in body.replace("\\\n", " ").splitlines():
                if line.strip() and not line.lstrip().startswith("#"):
                    refusal = lambda p: p.returncode == 0 or (p.returncode == 1 and "(R-" in p.stdout + p.stderr)
                    self.run("%s: %s" % (where, line.strip()), ["sh", "-e", "-c", line], self.folder(), refusal,
                             stdin="")
            self.count("sh lines")
            return
        self.run(where, ["sh", "-e", "-c", body], self.folder(), stdin="")
        self.count("sh")

    def c(self, where, body):
        d = self.folder()
        with open(os.path.join(d, "block.c"), "w") as f:
            f.write(body)
        cc = os.environ.get("CC", "cc")
        libdir = os.path.dirname(self.library)
        compile_ = [cc, "-std=c11", "-Wall", "-Werror", "-o", "block", "block.c",
                    "-I", os.path.join(self.src, "include"), "-I", os.path.join(self.build, "include"),
                    self.library, "-Wl,-rpath," + libdir]
        p = subprocess.run(compile_, cwd=d, capture_output=True, text=True)
        if p.returncode != 0:
            self.fail(where, "does not compile as a program:\n" + p.stderr[-3000:])
            return
        self.run(where, [os.path.join(d, "block")], d)
        self.count("c")

    def python_page(self, page, found):
        """The page's Python blocks in order, in one interpreter and namespace."""
        runnable = [(line, body) for line, marker, body in found if marker != "gpu" or self.gpu]
        skipped = len(found) - len(runnable)
        for _ in range(skipped):
            self.count("python gpu (skipped: no CUDA GPU)")
        if not runnable:
            return
        if not self.python:
            self.counts["python (skipped: no built package)"] = len(runnable)
            return
        script = "ns = {}\n" + "".join(
            "exec(compile(%r, %r, 'exec'), ns)\n" % ("\n" * (line) + body, page) for line, body in runnable)
        self.run(page + " (its Python blocks, in order)", [sys.executable, "-c", script], self.folder())
        self.counts["python"] = self.counts.get("python", 0) + len(runnable)

    def page(self, page):
        python = []
        for line, lang, marker, body in blocks(os.path.join(self.src, page)):
            where = "%s:%d" % (page, line)
            if marker.startswith("no-run:") and marker[7:].strip():
                self.count("no-run")
                continue
            if lang not in KNOWN or marker not in KNOWN[lang]:
                self.fail(where, "fence '```%s %s': no language or marker run_blocks.py knows" % (lang, marker))
            elif lang == "python":
                python.append((line, marker, body))
            elif lang == "sh":
                self.sh(where, marker, body)
            elif lang == "c":
                self.c(where, body)
            else:  # cmake: tests/install/run.sh builds it; text: shown, not run
                self.count(lang)
        self.python_page(page, python)


def main():
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    src, build, tool, library, scratch = (os.path.abspath(a) for a in sys.argv[1:])
    shutil.rmtree(scratch, ignore_errors=True)
    r = Runner(src, build, tool, library, scratch)
    pages = PAGES + sorted("docs/" + f for f in os.listdir(os.path.join(src, "docs")) if f.endswith(".md"))
    for page in pages:
        r.page(page)
    print("blocks: " + ", ".join("%s %d" % kv for kv in sorted(r.counts.items())))
    for f in r.failures:
        print("FAIL: " + f)
    sys.exit(1 if r.failures else 0)


if __name__ == "__main__":
    main()
