/* dmlslice: the command-line tool. Uses the public API only. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "dmlslice/dmlslice.h"

static const char usage[] =
    "usage: dmlslice COMMAND [ARGS]\n"
    "\n"
    "DirectML's slice operators (SLICE, SLICE1, SLICE_GRAD) on any machine, on .npy files of any size.\n"
    "\n"
    "commands:\n"
    "  slice IN.npy -o OUT.npy PARAMS [--feature-level L] [--device D] [--threads N] [-f] [-q]\n"
    "              slice IN into OUT ('-' for stdin or stdout); OUT is written atomically\n"
    "              and an existing OUT is kept unless -f is given\n"
    "  check --dtype T --input-sizes L [--input-strides L] [--output-strides L]\n"
    "        [--feature-level L] PARAMS [-q]\n"
    "              validate PARAMS for a tensor without data: print the output shape,\n"
    "              or the error and its rule ID (exit 0 valid, 1 invalid, 2 usage)\n"
    "  grad IN.npy -o OUT.npy --window-offsets L --window-sizes L --window-strides L\n"
    "       --output-gradient-sizes L [--feature-level L] [--device D] [-f]\n"
    "              DML_SLICE_GRAD: scatter the input gradient IN into a zero output\n"
    "              gradient of the given sizes, where SLICE1 with that window reads\n"
    "  dispatch MODEL.json [--feature-level L] [--device D]\n"
    "              run a DxDispatch model (DirectML's JSON format) of slice operators\n"
    "              and print what its print commands print (docs/dispatch.md)\n"
    "  info IN.npy  dtype, shape, memory order and size of a .npy file\n"
    "  demo        run the four worked examples of DirectML's documentation\n"
    "  bench [--device cpu|cuda]\n"
    "              time the canonical cases beside a plain copy of the same bytes\n"
    "              ('dmlslice bench --help' for its options)\n"
    "\n"
    "PARAMS, one of (L is a comma-separated list of integers, one per axis):\n"
    "  --offsets L --sizes L --strides L\n"
    "              DML_SLICE, validated exactly as DirectML does at --feature-level\n"
    "              (default 6_4): 32-bit sizes, at most 2^32-1 elements, its data types\n"
    "  --window-offsets L --window-sizes L --window-strides L [--output-sizes L]\n"
    "              DML_SLICE1 (negative strides walk backwards); output sizes default\n"
    "              to every element the window holds\n"
    "  --index EXPR\n"
    "              NumPy basic indexing: integers, start:stop:step, ..., None/newaxis\n"
    "  --onnx-starts L --onnx-ends L [--onnx-axes L] [--onnx-steps L]\n"
    "              ONNX Slice, clamped as the ONNX specification says\n"
    "  --webnn-starts L --webnn-sizes L [--webnn-strides L]\n"
    "              WebNN slice(): unsigned starts, window sizes and strides\n"
    "  --webnn-reverse L|all\n"
    "              WebNN reverse(): the listed axes ('' none, 'all' every axis)\n"
    "The front ends (--index, --onnx-*, --webnn-*) use the native 64-bit API: no\n"
    "DirectML size limits, and empty results are valid.\n"
    "\n"
    "examples:\n"
    "  dmlslice slice x.npy -o y.npy --index '[1:3, ::-2, ..., None, 0]'\n"
    "  dmlslice slice x.npy -o y.npy --onnx-starts 0,-1 --onnx-ends 3,-9223372036854775808 \\\n"
    "                                --onnx-axes 0,2 --onnx-steps 1,-1\n"
    "  dmlslice slice x.npy -o y.npy --webnn-starts 0,1 --webnn-sizes 2,3 --webnn-strides 1,2\n"
    "  dmlslice slice x.npy -o y.npy --webnn-reverse 1\n"
    "  dmlslice slice x.npy -o y.npy --offsets 0,0,1,2 --sizes 1,1,3,2 --strides 1,1,1,1\n"
    "  dmlslice slice x.npy -o - --window-offsets 0,0,0,1 --window-sizes 1,1,4,3 \\\n"
    "                            --window-strides 1,1,-2,2 --feature-level 4_1 | ...\n"
    "  dmlslice check --dtype float32 --input-sizes 1,1,4,4 --window-offsets 0,0,2,0 \\\n"
    "                 --window-sizes 1,1,3,4 --window-strides 1,1,1,1\n"
    "  dmlslice info x.npy\n"
    "\n"
    "options:\n"
    "  --device D     cpu (default) or cuda: copy to GPU 0, slice there, copy back\n"
    "  --threads N    threads for the copy, 1 to 1024 (default: $DMLSLICE_THREADS,\n"
    "                 else every CPU)\n"
    "  -f, --force    replace an existing output file\n"
    "  -q, --quiet    no progress (slice) and no report (check: exit status only)\n"
    "  -h, --help     show this help\n"
    "  -V, --version  show the version\n"
    "\n"
    "Exit status: 0 success, 1 failure (invalid parameters, bad file, I/O), 2 usage error.\n"
    "See dmlslice(1) for details.\n";

int main(int argc, char **argv) {
    if (argc < 2) {
        fputs(usage, stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
        fputs(usage, stdout);
        return 0;
    }
    if (strcmp(cmd, "-V") == 0 || strcmp(cmd, "--version") == 0) {
        printf("dmlslice %s\n", dmls_version());
        return 0;
    }
    /* "dmlslice slice --help" and friends show the same page; bench has its
     * own options (devices, reps), which this page does not list. */
    for (int i = 2; i < argc && strcmp(cmd, "bench") != 0; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            fputs(usage, stdout);
            return 0;
        }
    }
    if (strcmp(cmd, "slice") == 0) return cmd_slice(argc - 1, argv + 1);
    if (strcmp(cmd, "check") == 0) return cmd_check(argc - 1, argv + 1);
    if (strcmp(cmd, "info") == 0) return cmd_info(argc - 1, argv + 1);
    if (strcmp(cmd, "demo") == 0) return cmd_demo(argc - 1, argv + 1);
    if (strcmp(cmd, "bench") == 0) return cmd_bench(argc - 1, argv + 1);
    if (strcmp(cmd, "dispatch") == 0) return cmd_dispatch(argc - 1, argv + 1);
    if (strcmp(cmd, "grad") == 0) return cmd_grad(argc - 1, argv + 1);
    fprintf(stderr, "dmlslice: unknown command '%s' (try 'dmlslice --help')\n", cmd);
    return 2;
}
