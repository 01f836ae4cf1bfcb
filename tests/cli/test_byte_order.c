/* Byte order through the dmlslice tool, on whatever host runs it (CI runs
 * this under qemu-s390x too, a big-endian host): a slice copies bits, so
 * '<', '>', '|' and '=' data comes out byte for byte, NaN payloads included;
 * '=' is read as this host's order and written as the explicit order it
 * stands for; `info` names the order; the header's little-endian length
 * fields are read and written the same on every host.
 * Usage: test_byte_order DMLSLICE SCRATCH_PARENT_DIR */
#define _DEFAULT_SOURCE
#include <stdbool.h>

#include "support/tool.h"
#include "support/test.h"

static bool host_big_endian(void) {
    const uint16_t probe = 0x0102;
    unsigned char first;
    memcpy(&first, &probe, 1);
    return first == 0x01;
}

/* Writes a .npy file: the preamble for `version` (1, 2 or 3) with its
 * little-endian header length, the dict padded with spaces to `hlen` bytes
 * (a newline last), then the data. */
static void write_file(const char *name, int version, const char *dict, size_t hlen, const void *data, size_t n) {
    char p[4200];
    path_of(p, sizeof p, name);
    FILE *f = fopen(p, "wb");
    CHECK(f != NULL, "cannot write %s", p);
    if (f == NULL) return;
    unsigned char pre[12] = {0x93, 'N', 'U', 'M', 'P', 'Y', (unsigned char)version, 0};
    size_t plen = version == 1 ? 10 : 12;
    for (size_t i = 8; i < plen; i++) pre[i] = (unsigned char)(hlen >> (8 * (i - 8)));
    fwrite(pre, 1, plen, f);
    const size_t dl = strlen(dict);
    fwrite(dict, 1, dl, f);
    for (size_t i = dl; i + 1 < hlen; i++) fputc(' ', f);
    fputc('\n', f);
    if (n > 0) fwrite(data, 1, n, f);
    fclose(f);
}

/* A standard file of that descr: version 1.0, the header padded so the
 * data starts on a multiple of 64 bytes. */
static void write_vector(const char *name, const char *descr, int64_t n_items, const void *data, size_t n) {
    write_npy(name, descr, false, 1, &n_items, data, n);
}

/* Stores v's low `size` bytes in the given order. */
static void put(unsigned char *p, uint64_t v, size_t size, bool big) {
    for (size_t i = 0; i < size; i++) p[big ? size - 1 - i : i] = (unsigned char)(v >> (8 * i));
}

/* The output file: its little-endian header length puts the data where the
 * file's length says, its dict names descr, and its data equals want. */
static void check_output(const char *what, const char *descr, const unsigned char *want, size_t n) {
    size_t len;
    unsigned char *b = slurp("o.npy", &len);
    CHECK(b != NULL, "%s: o.npy was not written", what);
    if (b == NULL) return;
    const bool v1 = len >= 10 && memcmp(b, "\x93NUMPY\x01\x00", 8) == 0;
    const size_t start = v1 ? 10 + ((size_t)b[8] | (size_t)b[9] << 8) : 0;
    CHECK(v1 && start + n == len, "%s: header length %zu (bytes 8-9 little-endian) and file length %zu disagree "
          "for %zu data bytes", what, start - 10, len, n);
    char frag[64];
    snprintf(frag, sizeof frag, "'descr': '%s'", descr);
    CHECK(v1 && strstr((const char *)b + 10, frag) != NULL, "%s: header lacks %s: %.*s", what, frag,
          (int)(start < len ? start : len), (const char *)b);
    CHECK(v1 && start + n == len && memcmp(b + start, want, n) == 0, "%s: output bytes differ from the input's",
          what);
    free(b);
}

typedef struct order_case {
    const char *descr;
    size_t esize;
    uint64_t values[4]; /* the first four elements; floats: NaNs with payloads */
} order_case;

/* Each type and order, its values stored in the order the descr names:
 * sliced by a reversal (the NumPy front end) and by a SLICE1 window of step
 * -2; the output bytes are the input's items, untouched, and the output's
 * descr names an explicit order. */
static void test_orders(void) {
    const bool be = host_big_endian();
    static const order_case cases[] = {
        /* quiet and signalling NaNs, payloads, both signs */
        {"<f2", 2, {0x7c01, 0x7d55, 0xfe01, 0x7e00}},
        {">f2", 2, {0x7c01, 0x7d55, 0xfe01, 0x7e00}},
        {"=f2", 2, {0x7c01, 0x7d55, 0xfe01, 0x7e00}},
        {"<f4", 4, {0x7f800001, 0x7fa5a5a5, 0xffc12345, 0x7fc00001}},
        {">f4", 4, {0x7f800001, 0x7fa5a5a5, 0xffc12345, 0x7fc00001}},
        {"=f4", 4, {0x7f800001, 0x7fa5a5a5, 0xffc12345, 0x7fc00001}},
        {"<f8", 8, {0x7ff0000000000001, 0x7ff8dead00000001, 0xfff4000000000bad, 0x7ff7ffffffffffff}},
        {">f8", 8, {0x7ff0000000000001, 0x7ff8dead00000001, 0xfff4000000000bad, 0x7ff7ffffffffffff}},
        {"=f8", 8, {0x7ff0000000000001, 0x7ff8dead00000001, 0xfff4000000000bad, 0x7ff7ffffffffffff}},
        {"<i2", 2, {0x0102, 0x8000, 0xfffe, 0x7f01}},
        {">u2", 2, {0x0102, 0x8000, 0xfffe, 0x7f01}},
        {"=i4", 4, {0x01020304, 0x80000000, 0xfffffffe, 0x7f000001}},
        {">i8", 8, {0x0102030405060708, 0x8000000000000000, 0xfffffffffffffffe, 1}},
        {"<u8", 8, {0x0102030405060708, 0x8000000000000000, 0xfffffffffffffffe, 1}},
        {"|u1", 1, {0x01, 0x80, 0xfe, 0x7f}},
        {"=u1", 1, {0x01, 0x80, 0xfe, 0x7f}},
        {"|b1", 1, {1, 0, 1, 1}},
    };
    enum { N = 8 }; /* elements: the four values, then their complements */
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const order_case *c = &cases[k];
        const char o = c->descr[0];
        const bool big = o == '>' || (o == '=' && be);
        unsigned char in[N * 8], want[N * 8];
        for (int i = 0; i < N; i++) {
            uint64_t v = c->values[i % 4];
            if (i >= 4 && c->descr[1] != 'b') v = ~v;
            put(in + (size_t)i * c->esize, v, c->esize, big);
        }
        char descr[8];
        snprintf(descr, sizeof descr, "%s", c->descr);
        if (o == '=') descr[0] = c->esize == 1 ? '|' : be ? '>' : '<';
        write_vector("t.npy", c->descr, N, in, N * c->esize);

        char what[64];
        snprintf(what, sizeof what, "%s reversed", c->descr);
        for (int i = 0; i < N; i++) memcpy(want + (size_t)i * c->esize, in + (size_t)(N - 1 - i) * c->esize, c->esize);
        CHECK(run("slice t.npy -o o.npy --index '[::-1]'") == 0, "%s: slice failed", what);
        check_output(what, descr, want, N * c->esize);
        rm("o.npy");

        snprintf(what, sizeof what, "%s SLICE1 step -2", c->descr);
        for (int i = 0; i < N / 2; i++)
            memcpy(want + (size_t)i * c->esize, in + (size_t)(N - 1 - 2 * i) * c->esize, c->esize);
        CHECK(run("slice t.npy -o o.npy --window-offsets 0 --window-sizes 8 --window-strides -2") == 0,
              "%s: slice failed", what);
        check_output(what, descr, want, N / 2 * c->esize);

        /* The written file reads back as the same order. */
        if (c->esize > 1) {
            const char *order = big ? "big-endian" : "little-endian";
            CHECK(run("info t.npy") == 0 && out_has(order), "info %s: expected %s", c->descr, order);
            CHECK(run("info o.npy") == 0 && out_has(order), "info on the output of %s: expected %s", c->descr, order);
        }
        rm("o.npy");
    }
}

/* Header lengths of two and four little-endian bytes whose every byte
 * matters (a host reading them in its own order gets another length), and
 * shape numbers past 32 bits: `info` must report them as written. */
static void test_header_numbers(void) {
    const char *dict = "{'descr': '>u2', 'fortran_order': False, 'shape': (0, 4294967297, 3), }";
    for (int version = 1; version <= 3; version++) {
        /* 0x0136 + preamble = 320 (v1) or 0x0134 + 12 = 320 (v2, v3): the data starts at 320 */
        const size_t hlen = version == 1 ? 0x0136 : 0x0134;
        write_file("h.npy", version, dict, hlen, NULL, 0);
        CHECK(run("info h.npy") == 0, "info on a version %d.0 header of %zu bytes failed", version, hlen);
        char format[32];
        snprintf(format, sizeof format, "format:  .npy %d.0", version);
        CHECK(out_has(format) && out_has("(0, 4294967297, 3)") && out_has("big-endian") &&
                  out_has("elements: 0") && out_has("after a 320-byte header"),
              "info on a version %d.0 header read its numbers wrongly", version);
    }
    /* Data after a header whose length has a high byte: sliced from the right place. */
    unsigned char in[6] = {1, 2, 3, 4, 5, 6}, want[6] = {5, 6, 3, 4, 1, 2};
    write_file("h.npy", 2, "{'descr': '>u2', 'fortran_order': False, 'shape': (3,), }", 0x0134, in, sizeof in);
    CHECK(run("slice h.npy -o o.npy --index '[::-1]'") == 0, "slice of a version 2.0 file failed");
    check_output("version 2.0 reversed", ">u2", want, sizeof want);
    rm("o.npy");
    rm("h.npy");
}

int main(int argc, char **argv) {
    const int setup = tool_setup(argc, argv, "byte_order_scratch");
    if (setup != 0) return setup;
    printf("host byte order: %s\n", host_big_endian() ? "big-endian" : "little-endian");
    test_orders();
    test_header_numbers();
    tool_finish();
    TEST_MAIN_END();
}
