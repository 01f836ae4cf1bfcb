#!/usr/bin/env python3
"""dmlslice slice and grad with --device vulkan give the CPU's bytes, for
element sizes 1, 2, 4 and 8, reversed, strided and empty windows; so do
split and crops (one batch on the device); bench --device vulkan --quick
runs a case and its batch rows with right outputs, printing its warm-up
bursts only with -v (issue 35 item 9); info
--devices lists the Vulkan device; a device that does not exist is a clean
DMLS_ERROR_NO_DEVICE with no output file left; a malformed vulkan:N is a
usage error; with EXAMPLES_DIR (builds with `dmlslice dispatch`), DirectML's
DxDispatch examples print their documented outputs with --device vulkan and
vulkan:0 (tests/dispatch/check_examples.sh). Usage: check_cli_vulkan.py
DMLSLICE [EXAMPLES_DIR]. Exit 77 (skipped) when the tool sees no Vulkan
device."""
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

tool = sys.argv[1]
failures = []


def npy(path, descr, shape, data):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        descr, "".join("%d," % s for s in shape) if len(shape) == 1 else ", ".join(map(str, shape)))
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + data)


def run(*args):
    return subprocess.run([tool, *args], capture_output=True, text=True)


devices = run("info", "--devices")
if devices.returncode != 0 or "vulkan:0" not in devices.stdout:
    print("no Vulkan device: skipped\n" + devices.stdout + devices.stderr)
    sys.exit(77)
print(devices.stdout.strip())

with tempfile.TemporaryDirectory() as d:
    shape = (3, 5, 7)
    count = 3 * 5 * 7
    for descr, size in (("|u1", 1), ("<f2", 2), ("<i4", 4), ("<f8", 8)):
        x = os.path.join(d, "x%d.npy" % size)
        npy(x, descr, shape, bytes((i * 37 + 11) & 0xFF for i in range(count * size)))
        for k, index in enumerate(("[1:, ::-2, 1::3]", "[:, ::-1, ::2]", "[::-1]", "[2:2]", "[..., 3]")):
            outs = {}
            # vulkan:0 names the same device: once per element size is
            # enough (each run pays the driver's start, ~0.5 s on lavapipe).
            for dev in ("cpu", "vulkan", "vulkan:0") if k == 0 else ("cpu", "vulkan"):
                out = os.path.join(d, "y_%s.npy" % dev.replace(":", "_"))
                r = run("slice", x, "-o", out, "-f", "-q", "--index", index, "--device", dev)
                if r.returncode != 0:
                    failures.append("slice %s %s --device %s: %s" % (descr, index, dev, r.stderr.strip()))
                    continue
                outs[dev] = open(out, "rb").read()
            if len(set(outs.values())) != 1:
                failures.append("slice %s %s: the devices' outputs differ" % (descr, index))
        outs = {}
        for dev in ("cpu", "vulkan"):
            out = os.path.join(d, "g_%s.npy" % dev)
            r = run("grad", x, "-o", out, "-f", "--window-offsets", "0,1,2", "--window-sizes", "3,10,14",
                    "--window-strides", "1,-2,2", "--output-gradient-sizes", "4,12,17", "--device", dev)
            if r.returncode != 0:
                failures.append("grad %s --device %s: %s" % (descr, dev, r.stderr.strip()))
                continue
            outs[dev] = open(out, "rb").read()
        if len(set(outs.values())) != 1:
            failures.append("grad %s: the devices' outputs differ" % descr)
    # split and crops: one batch on the device, the CPU's bytes; 1-byte
    # parts of odd lengths meet inside words of the device's buffer.
    for descr, size in (("|u1", 1), ("<f2", 2), ("<f8", 8)):
        x = os.path.join(d, "x%d.npy" % size)
        starts = os.path.join(d, "starts.npy")
        npy(starts, "<i4", (4, 3), struct.pack("<12i", 0, 0, 0, 2, 4, 4, 1, 1, 3, 2, 0, 1))
        jobs = (("split", ["--axis", "2", "--sizes", "3,1,3"], 3), ("split", ["--axis", "0", "--num-outputs", "2"], 2),
                ("crops", ["--starts", starts, "--size", "1,1,3"], 1))
        for command, args, parts in jobs:
            outs = {}
            for dev in ("cpu", "vulkan"):
                files = [os.path.join(d, "%s_%s_%d.npy" % (command, dev, k)) for k in range(parts)]
                r = run(command, x, *args, *sum((["-o", f] for f in files), []), "-f", "--device", dev)
                if r.returncode != 0:
                    failures.append("%s %s %s --device %s: %s" % (command, descr, args, dev, r.stderr.strip()))
                    continue
                outs[dev] = b"".join(open(f, "rb").read() for f in files)
            if len(set(outs.values())) != 1:
                failures.append("%s %s %s: the devices' outputs differ" % (command, descr, args))
    # bench --device vulkan --quick: one small case and the batch rows (the
    # crops twice, the KV gather with page numbers on the device, the
    # split), every output right (a wrong one fails the run), the rows in
    # the JSON.
    cases = os.path.join(d, "cases.json")
    with open(cases, "w") as f:
        json.dump([{"name": "small_rev", "dtype": "float32", "input_shape": [8, 64], "window_offsets": [0, 0],
                    "window_sizes": [8, 64], "window_strides": [1, -2], "output_sizes": [8, 32]}], f)
    report = os.path.join(d, "bench.json")
    r = run("bench", "--device", "vulkan", "--quick", "--cases", cases, "--reps", "1", "--json", report)
    if r.returncode != 0:
        failures.append("bench --device vulkan: exit %d: %s" % (r.returncode, (r.stdout + r.stderr)[-600:]))
    elif "burst" in r.stderr:
        failures.append("bench --device vulkan printed burst lines without -v: %s" % r.stderr[-600:])
    else:
        got = json.load(open(report))
        batches = [b["timing"] for b in got["batches"] if b["correct"] and b["us"] > 0]
        if got["device"] != "vulkan" or len(got["cases"]) != 1 or len(batches) != 4:
            failures.append("bench --device vulkan: unexpected report %s" % json.dumps(got)[:600])
    # -v: each warm-up burst's median, on stderr.
    r = run("bench", "--device", "vulkan", "--quick", "--cases", cases, "--reps", "1", "-v")
    if r.returncode != 0 or not re.search(r"^dmlslice bench: burst 1: [0-9.]+ ms", r.stderr, re.M):
        failures.append("bench --device vulkan -v: exit %d, no burst lines: %s" % (r.returncode, r.stderr[-600:]))
    x = os.path.join(d, "x1.npy")
    out = os.path.join(d, "none.npy")
    r = run("slice", x, "-o", out, "--index", "[1:]", "--device", "vulkan:99")
    if r.returncode != 1 or "DMLS_ERROR_NO_DEVICE" not in r.stderr or os.path.exists(out):
        failures.append("--device vulkan:99: exit %d, %s" % (r.returncode, r.stderr.strip()))
    for bad in ("vulkan:", "vulkan:x", "vulkan:-1", "vulkanx"):
        r = run("slice", x, "-o", out, "--index", "[1:]", "--device", bad)
        if r.returncode != 2 or os.path.exists(out):
            failures.append("--device %s: exit %d, expected 2" % (bad, r.returncode))

if len(sys.argv) > 2:
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "dispatch", "check_examples.sh")
    for dev in ("vulkan", "vulkan:0"):
        r = subprocess.run(["sh", script, tool, sys.argv[2], dev], capture_output=True, text=True)
        print(r.stdout.strip())
        if r.returncode != 0:
            failures.append("dispatch examples --device %s: %s" % (dev, r.stdout + r.stderr))

for f in failures:
    print("FAIL: " + f)
print("%d failures" % len(failures))
sys.exit(1 if failures else 0)
