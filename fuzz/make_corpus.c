/* Writes each fuzz target's seed corpus: inputs that decode, through the
 * targets' own readers, into the worked examples of DirectML's pages and a
 * spread of valid and invalid cases, so fuzzing starts deep in the code.
 * Usage: fuzz_corpus OUT_DIR (writes OUT_DIR/<target>/seed-N). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct seed {
    unsigned char b[512];
    size_t n;
} seed;

static void put(seed *s, unsigned v) {
    if (s->n < sizeof s->b) s->b[s->n++] = (unsigned char)v;
}

static int write_seed(const char *dir, const char *target, int index, const seed *s) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, target);
    if (mkdir(path, 0777) != 0 && errno != EEXIST) return -1;
    snprintf(path, sizeof path, "%s/%s/seed-%d", dir, target, index);
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t w = fwrite(s->b, 1, s->n, f);
    return fclose(f) == 0 && w == s->n ? 0 : -1;
}

/* fuzz_descriptor's layout: kind, level index, rank-1, dtype-1, two tensors
 * (dtype, flags, rank selectors; 8 sizes-1; strides flag; total and
 * alignment selectors), then 8 x (offset, size, stride+4). */
static seed descriptor_seed(unsigned kind, unsigned level, unsigned n, unsigned dtype, const unsigned *in_sizes,
                            const unsigned *out_sizes, const unsigned *off, const unsigned *size, const int *stride) {
    seed s = {{0}, 0};
    put(&s, kind), put(&s, level), put(&s, n - 1), put(&s, dtype - 1);
    for (int t = 0; t < 2; t++) {
        const unsigned *sz = t ? out_sizes : in_sizes;
        put(&s, 0), put(&s, 0), put(&s, 0);
        for (unsigned i = 0; i < 8; i++) put(&s, i < n ? sz[i] - 1 : 0);
        put(&s, 0), put(&s, 0), put(&s, 0);
    }
    for (unsigned i = 0; i < 8; i++) put(&s, i < n ? off[i] : 0), put(&s, i < n ? size[i] : 1), put(&s, i < n ? (unsigned)(stride[i] + 4) : 5);
    return s;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: fuzz_corpus OUT_DIR\n");
        return 2;
    }
    const char *dir = argv[1];
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        perror(dir);
        return 1;
    }
    int bad = 0, k = 0;
    const unsigned in4[4] = {1, 1, 4, 4};
    /* DirectML's four worked examples (SLICE: kind 0; SLICE1: kind 1) and SLICE_GRAD. */
    const unsigned o1[4] = {1, 1, 3, 2}, off1[4] = {0, 0, 1, 2}, sz1[4] = {1, 1, 3, 2};
    const int st1[4] = {1, 1, 1, 1};
    const unsigned o2[4] = {1, 1, 2, 2}, off2[4] = {0, 0, 1, 0}, sz2[4] = {1, 1, 2, 2};
    const int st2[4] = {1, 1, 2, 3};
    const unsigned off3[4] = {0, 0, 0, 1}, sz3[4] = {1, 1, 4, 3};
    const int st3[4] = {1, 1, 2, 2}, st4[4] = {1, 1, -2, 2};
    seed s;
    s = descriptor_seed(0, 0, 4, 1, in4, o1, off1, sz1, st1), bad |= write_seed(dir, "fuzz_descriptor", k++, &s);
    s = descriptor_seed(0, 6, 4, 1, in4, o2, off2, sz2, st2), bad |= write_seed(dir, "fuzz_descriptor", k++, &s);
    s = descriptor_seed(1, 2, 4, 1, in4, o2, off3, sz3, st3), bad |= write_seed(dir, "fuzz_descriptor", k++, &s);
    s = descriptor_seed(1, 6, 4, 1, in4, o2, off3, sz3, st4), bad |= write_seed(dir, "fuzz_descriptor", k++, &s);
    s = descriptor_seed(2, 4, 4, 1, o2, in4, off3, sz3, st4), bad |= write_seed(dir, "fuzz_descriptor", k++, &s);
    /* Rank 8 and 1, 64-bit and 8-bit types. */
    const unsigned in8[8] = {2, 3, 2, 3, 2, 3, 2, 3}, out8[8] = {1, 2, 1, 2, 1, 2, 1, 2}, off8[8] = {1, 0, 1, 0, 1, 0, 1, 0},
                   sz8[8] = {1, 3, 1, 3, 1, 3, 1, 3};
    const int st8[8] = {1, 2, -1, -2, 1, 2, -1, -2};
    s = descriptor_seed(1, 7, 8, 9, in8, out8, off8, sz8, st8), bad |= write_seed(dir, "fuzz_descriptor", k++, &s);
    s = descriptor_seed(2, 7, 8, 5, out8, in8, off8, sz8, st8), bad |= write_seed(dir, "fuzz_descriptor", k++, &s);

    /* fuzz_differential: grad, rank, dtype index, 7 values per dim, layout,
     * two byte offsets, two misalignments. Spread over ranks and layouts. */
    for (int i = 0; i < 16; i++) {
        seed d = {{0}, 0};
        const unsigned n = (unsigned)(i % 8) + 1;
        put(&d, (unsigned)i & 1), put(&d, n), put(&d, (unsigned)i % 4);
        for (unsigned j = 0; j < n; j++) {
            const unsigned dim = 3 + (j + (unsigned)i) % 6;
            put(&d, dim + 9);          /* big shape */
            put(&d, 4 + (j % 2));      /* offset 0 or 1 */
            put(&d, dim - (j % 2) + 9); /* window size */
            put(&d, (j + (unsigned)i) % 3 == 0 ? 3 : 6); /* stride -1 or 2 */
            put(&d, 9 + 1);            /* output size 1 */
            put(&d, 100 + dim);        /* big strides (used when layout says) */
            put(&d, 100 + 1);
        }
        put(&d, (unsigned)i % 4), put(&d, 0), put(&d, 0), put(&d, (unsigned)i % 8), put(&d, (unsigned)(i * 3) % 8);
        bad |= write_seed(dir, "fuzz_differential", i, &d);
    }

    /* fuzz_batch: a path byte (even: items, odd: split and crops), then
     * small values for the operators, items, slots and offsets. */
    for (int i = 0; i < 8; i++) {
        seed b = {{0}, 0};
        put(&b, (unsigned)i);
        for (int j = 0; j < 200; j++) put(&b, (unsigned)(i * 37 + j * 11) % 160);
        bad |= write_seed(dir, "fuzz_batch", i, &b);
    }
    /* An empty item at output offset 2^64 - 1, which the library accepts
     * (it writes nothing): the harness must not form a pointer there. Four
     * rank-1 operators taking a window of size 0 from 4 elements, one item
     * of operator 0 into slots 0, its output offset drawn in full. */
    {
        seed b = {{0}, 0};
        put(&b, 0);
        for (int k = 0; k < 4; k++) {
            put(&b, 1), put(&b, 0);                             /* rank 1, 1-byte elements */
            put(&b, 10), put(&b, 3), put(&b, 6), put(&b, 4), put(&b, 6); /* 4, offset 0, size 0, step 1, out 0 */
            put(&b, 0);                                         /* packed */
        }
        put(&b, 1), put(&b, 0), put(&b, 0);                     /* 1 item, 1 input and 1 output slot */
        put(&b, 0), put(&b, 0), put(&b, 0), put(&b, 0);         /* operator 0, slots 0, input offset 0 */
        put(&b, 250);                                           /* an output offset drawn in full: */
        for (int j = 0; j < 8; j++) put(&b, 0xff);
        bad |= write_seed(dir, "fuzz_batch", 8, &b);
    }

    /* fuzz_npy: whole .npy files of several versions, types and orders. */
    static const char *const headers[] = {
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
        "{'descr': '>i2', 'fortran_order': True, 'shape': (3, 2, 2), }",
        "{'descr': '|b1', 'fortran_order': False, 'shape': (5,), }",
        "{'descr': '<u8', 'fortran_order': False, 'shape': (), }",
        "{'descr': '|u1', 'fortran_order': False, 'shape': (0, 4), }",
        "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 1, 2, 1, 2, 1, 2, 1), }",
    };
    static const size_t data_bytes[] = {24, 24, 5, 8, 0, 128};
    for (int i = 0; i < 6; i++) {
        seed f = {{0}, 0};
        const int major = 1 + i % 3;
        const char *h = headers[i];
        const size_t pre = major == 1 ? 10 : 12, hl = strlen(h);
        const size_t total = (pre + hl + 1 + 63) / 64 * 64, len = total - pre;
        const char magic[] = "\x93NUMPY";
        for (int j = 0; j < 6; j++) put(&f, (unsigned char)magic[j]);
        put(&f, (unsigned)major), put(&f, 0);
        put(&f, len & 0xff), put(&f, (len >> 8) & 0xff);
        if (major > 1) put(&f, 0), put(&f, 0);
        for (size_t j = 0; j < hl; j++) put(&f, (unsigned char)h[j]);
        while (f.n < total - 1) put(&f, ' ');
        put(&f, '\n');
        for (size_t j = 0; j < data_bytes[i]; j++) put(&f, (unsigned)(j * 37));
        bad |= write_seed(dir, "fuzz_npy", i, &f);
    }

    /* fuzz_numpy_index: rank, sizes, then the expression text. */
    static const char *const exprs[] = {"[1:3, ::-2, ..., None, 0]", "[..., -1]", "[::2, None, 1:-1]",
                                        "(0, newaxis, np.newaxis, -3:)", "[-9223372036854775808::-1]", "[]",
                                        "[:, :, 0, ...,]", "[2::-3, 5:1:-1]"};
    for (int i = 0; i < 8; i++) {
        seed e = {{0}, 0};
        put(&e, 4), put(&e, 4), put(&e, 5), put(&e, 6), put(&e, 3);
        for (const char *c = exprs[i]; *c; c++) put(&e, (unsigned char)*c);
        bad |= write_seed(dir, "fuzz_numpy_index", i, &e);
    }

    /* fuzz_onnx_webnn: rank, sizes, which, count, 8 x 4 values, options. */
    for (int i = 0; i < 12; i++) {
        seed o = {{0}, 0};
        put(&o, 3), put(&o, 5), put(&o, 6), put(&o, 7);
        put(&o, (unsigned)i % 3), put(&o, 1 + (unsigned)i % 3);
        for (int j = 0; j < 8; j++) {
            put(&o, 12 + (unsigned)(j + i) % 5); /* start */
            put(&o, i % 4 == 3 ? 255 : 12 + 4 + (unsigned)j); /* end (255: an extreme value follows) */
            if (i % 4 == 3) for (int b = 0; b < 8; b++) put(&o, b == 7 ? 0x7f : 0xff);
            put(&o, 8 + (unsigned)j % 3); /* axis */
            put(&o, (unsigned)(j % 2 ? 1 : 5)); /* step -2 or 2 */
        }
        put(&o, (unsigned)i);
        bad |= write_seed(dir, "fuzz_onnx_webnn", i, &o);
    }
    if (bad) fprintf(stderr, "fuzz_corpus: could not write every seed under %s\n", dir);
    return bad ? 1 : 0;
}
