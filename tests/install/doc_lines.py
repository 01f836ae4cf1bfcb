#!/usr/bin/env python3
"""Prints the consumer lines of a Markdown page's section "## Use it from
your project" (README.md, docs/install.md), so that tests/install/run.sh
builds them as the page shows them and fails when the page drifts from what
works.

    doc_lines.py PAGE sh           the sh lines (continuations joined), one a line
    doc_lines.py PAGE cmake        the CMake blocks, each a NUL-ended record,
                                   with the alternatives their comments offer

A CMake block runs as written, and once for each alternative its comments
show: commented-out commands ("# find_package(...)") in place of the ones of
the same name, and "# or dmlslice::NAME" in place of the line's target. A
placeholder <...> is an error (a line a reader cannot run as written).
"""
import re
import sys


def section(text):
    m = re.search(r"^## Use it from your project\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    if not m:
        sys.exit("doc_lines.py: no section '## Use it from your project'")
    return m.group(1)


def blocks(text, lang):
    # A fence may carry markers after the language (```sh install: tests/docs/run_blocks.py).
    return re.findall(r"^```%s(?:[ \t][^\n]*)?\n(.*?)^```" % lang, section(text), re.S | re.M)


def variants(block):
    lines = block.splitlines()
    out = [block]
    commented = [re.match(r"# (\w+)\(", l) for l in lines]
    names = {m.group(1) for m in commented if m}
    if names:  # the commented commands instead of the written ones
        alt = [l[2:] if m else l for l, m in zip(lines, commented)
               if m or not any(l.startswith(n + "(") for n in names)]
        out.append("\n".join(alt) + "\n")
    for i, l in enumerate(lines):
        m = re.search(r"(dmlslice::\w+)\)\s*#\s*or (dmlslice::\w+)", l)
        if m:
            out.append("\n".join(lines[:i] + [l.replace(m.group(1) + ")", m.group(2) + ")")] + lines[i + 1:]) + "\n")
    return out


def main():
    page, kind = sys.argv[1], sys.argv[2]
    with open(page, encoding="utf-8") as f:
        text = f.read()
    found = blocks(text, kind)
    if not found:
        sys.exit("doc_lines.py: %s shows no %s block" % (page, kind))
    if kind == "cmake":
        for b in found:
            if re.search(r"<[^>]*>", b):
                sys.exit("doc_lines.py: %s: a placeholder in\n%s" % (page, b))
            for v in variants(b):
                sys.stdout.write(v + "\0")
    else:
        for b in found:
            for line in b.replace("\\\n", " ").splitlines():
                if line.strip():
                    print(line)


if __name__ == "__main__":
    main()
