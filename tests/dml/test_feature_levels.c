/* docs/spec.md section 4, cell by cell: every operator at every feature level (the
 * listed rows and the levels between them), every rank 1-8 and every data
 * type, accepted or rejected as the table says. The expected table is
 * written out here independently of the library's own. Covers R-OP-RANK
 * and R-OP-TYPE at every level. Then the levels' names, list and parsing
 * (dmls_feature_level_name, _count, _at, _parse), hostile text included. */
#include "support/dml_fixture.h"
#include "support/guarded.h"
#include "support/test.h"

static const DML_FEATURE_LEVEL levels[] = {
    DML_FEATURE_LEVEL_1_0, DML_FEATURE_LEVEL_2_0, DML_FEATURE_LEVEL_2_1, DML_FEATURE_LEVEL_3_0,
    DML_FEATURE_LEVEL_3_1, DML_FEATURE_LEVEL_4_0, DML_FEATURE_LEVEL_4_1, DML_FEATURE_LEVEL_5_0,
    DML_FEATURE_LEVEL_5_1, DML_FEATURE_LEVEL_5_2, DML_FEATURE_LEVEL_6_0, DML_FEATURE_LEVEL_6_1,
    DML_FEATURE_LEVEL_6_2, DML_FEATURE_LEVEL_6_3, DML_FEATURE_LEVEL_6_4};

enum { F32 = 1, F16, U32, U16, U8, I32, I16, I8, F64, U64, I64, U4, I4 };

static bool in_list(int t, const int *list) {
    for (; *list; list++)
        if (*list == t) return true;
    return false;
}

static const int fl10_types[] = {F32, F16, I32, I16, U32, U16, 0};
static const int eight_types[] = {F32, F16, I32, I16, I8, U32, U16, U8, 0};
static const int all_types[] = {F32, F16, I32, I16, I8, U32, U16, U8, F64, I64, U64, 0};

/* Expected: is (op, level, rank, type) accepted? */
static bool expected(DML_OPERATOR_TYPE op, unsigned lv, unsigned rank, int type) {
    const bool r45 = rank == 4 || rank == 5;
    if (op == DML_OPERATOR_SLICE) {
        if (lv >= 0x4100) return in_list(type, all_types);
        if (lv >= 0x3000) return in_list(type, eight_types);
        if (lv >= 0x2100) return r45 && in_list(type, eight_types);
        return r45 && in_list(type, fl10_types);
    }
    if (op == DML_OPERATOR_SLICE1) {
        if (lv >= 0x4100) return in_list(type, all_types);
        if (lv >= 0x3000) return in_list(type, eight_types);
        if (lv >= 0x2100) return r45 && in_list(type, eight_types);
        return false;
    }
    if (lv >= 0x4100) return in_list(type, all_types);
    /* SLICE_GRAD: 3_1 raised its rank limit from 4 to 8 (docs/spec.md
     * section 2, recorded decisions). */
    if (lv >= 0x3100) return in_list(type, eight_types);
    if (lv >= 0x3000) return rank <= 4 && in_list(type, eight_types);
    return false;
}

/* A valid descriptor of rank n: every dim 2 wide, a window of the last element
 * pair reversed (stride -1) for SLICE1/GRAD, offset 1 for SLICE. */
static void build(fixture *f, DML_OPERATOR_TYPE op, unsigned n, int type) {
    fixture_init(f, op);
    fixture_rank(f, n);
    for (unsigned i = 0; i < n; i++) {
        f->in_sizes[i] = op == DML_OPERATOR_SLICE_GRAD ? 1 : 2;
        f->out_sizes[i] = op == DML_OPERATOR_SLICE_GRAD ? 2 : 1;
        f->offsets[i] = 1;
        f->sizes[i] = 1;
        f->slice_strides[i] = 1;
        f->strides[i] = -1;
    }
    f->in_buf.DataType = f->out_buf.DataType = (DML_TENSOR_DATA_TYPE)type;
    fixture_sizes(f);
}

/* The list and the names, against this file's own list and a name built
 * from each value's digits. */
static void check_list_and_names(void) {
    const size_t n = sizeof levels / sizeof levels[0];
    CHECK(dmls_feature_level_count() == n, "count %zu, expected %zu", dmls_feature_level_count(), n);
    for (size_t i = 0; i < n; i++) {
        CHECK(dmls_feature_level_at(i) == levels[i], "at(%zu) = 0x%x, expected 0x%x", i,
              (unsigned)dmls_feature_level_at(i), (unsigned)levels[i]);
        char want[24];
        snprintf(want, sizeof want, "%u_%u", (unsigned)levels[i] >> 12, ((unsigned)levels[i] >> 8) & 0xf);
        const char *name = dmls_feature_level_name(levels[i]);
        CHECK(name != NULL && strcmp(name, want) == 0, "name of 0x%x: %s, expected %s", (unsigned)levels[i],
              name ? name : "NULL", want);
    }
    CHECK(dmls_feature_level_at(n) == 0, "at(count) = 0x%x", (unsigned)dmls_feature_level_at(n));
    CHECK(dmls_feature_level_at(SIZE_MAX) == 0, "at(SIZE_MAX) = 0x%x", (unsigned)dmls_feature_level_at(SIZE_MAX));
    /* Every 16-bit value: named exactly when listed, and its hex text
     * parses exactly then, to itself. */
    for (unsigned v = 0; v <= 0xffff; v++) {
        bool listed = false;
        for (size_t i = 0; i < n; i++) listed |= (unsigned)levels[i] == v;
        CHECK((dmls_feature_level_name((DML_FEATURE_LEVEL)v) != NULL) == listed, "name of 0x%x", v);
        char text[16];
        snprintf(text, sizeof text, v & 1 ? "0x%X" : "0x%x", v);
        DML_FEATURE_LEVEL got = (DML_FEATURE_LEVEL)0x7777;
        const dmls_status s = dmls_feature_level_parse(text, &got);
        CHECK(listed ? s == DMLS_OK && (unsigned)got == v : s == DMLS_ERROR_INVALID_ARGUMENT && got == 0x7777,
              "parse(\"%s\"): %s, 0x%x", text, dmls_status_name(s), (unsigned)got);
    }
    CHECK(dmls_feature_level_name((DML_FEATURE_LEVEL)-1) == NULL, "name of -1");
}

/* The accepted forms: each name, the name with a dot, hex with 1 to 8
 * digits in either case. */
static void check_parse_accepts(void) {
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++) {
        const char *name = dmls_feature_level_name(levels[i]);
        char dotted[8], upper[16], padded[16];
        snprintf(dotted, sizeof dotted, "%c.%c", name[0], name[2]);
        snprintf(upper, sizeof upper, "0X%X", (unsigned)levels[i]);
        snprintf(padded, sizeof padded, "0x%08x", (unsigned)levels[i]);
        const char *forms[] = {name, dotted, upper, padded};
        for (size_t k = 0; k < 4; k++) {
            DML_FEATURE_LEVEL got = (DML_FEATURE_LEVEL)0;
            CHECK_STATUS(dmls_feature_level_parse(forms[k], &got), DMLS_OK);
            CHECK(got == levels[i], "parse(\"%s\") = 0x%x, expected 0x%x", forms[k], (unsigned)got,
                  (unsigned)levels[i]);
        }
    }
}

/* What is refused, with the level untouched and a message that quotes the
 * text safely and lists the levels. */
static void check_parse_refuses(void) {
    static char long_text[10001];
    memset(long_text, 'A', sizeof long_text - 1);
    static const char *const bad[] = {
        "", "6", "6_", "_4", "6_4 ", " 6_4", "+6_4", "6__4", "6,4", "6-4", "06_4", "6_40", "6_04", "6_5", "7_0",
        "1_1", "6..4", "6_4\n", "6.4.", "0x", "0X", "x6400", "0x6400z", "0xg", "0x-6400", "-0x6400", "0x+6400",
        "0x 6400", "0x1100", "0x000006400", "0x0000000000006400", "6400", "25600", "0b110010000000000",
        "\x01\xff" "6_4", "\xe2\x80\x8b" "6_4", "6\xef\xbc\xbf" "4", "0xg000", "0x6z00",
        "1x6400", "0y6400", "00x6400", "0x6400\x01", "6_4_", "6.4.0", "0x 1000", "0x1000 ",
        "0x+1000", "0x-1000", long_text};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        DML_FEATURE_LEVEL got = (DML_FEATURE_LEVEL)0x7777;
        CHECK_STATUS(dmls_feature_level_parse(bad[k], &got), DMLS_ERROR_INVALID_ARGUMENT);
        CHECK(got == 0x7777, "case %zu: level written on failure (0x%x)", k, (unsigned)got);
        const char *msg = dmls_last_error();
        CHECK(strstr(msg, "is not a DirectML feature level (1_0, 2_0, 2_1, 3_0, 3_1, 4_0, 4_1, 5_0, 5_1, 5_2, 6_0, "
                          "6_1, 6_2, 6_3, 6_4; also written 6.4 or 0x6400)") != NULL,
              "case %zu: %s", k, msg);
        for (const char *c = msg; *c; c++)
            CHECK(*c >= 0x20 && *c <= 0x7e, "case %zu: byte 0x%02x in the message", k, (unsigned)(unsigned char)*c);
        CHECK(strlen(msg) < 200, "case %zu: a %zu-byte message", k, strlen(msg));
    }
    CHECK(strstr(dmls_last_error(), "'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA...'") != NULL, "long text: %s", dmls_last_error());
    /* Exactly 32 bytes are shown whole; 33 are cut. */
    long_text[32] = '\0';
    dmls_feature_level_parse(long_text, &(DML_FEATURE_LEVEL){0});
    CHECK(strstr(dmls_last_error(), "'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'") != NULL, "32 bytes: %s", dmls_last_error());
    long_text[32] = 'B';
    long_text[33] = '\0';
    dmls_feature_level_parse(long_text, &(DML_FEATURE_LEVEL){0});
    CHECK(strstr(dmls_last_error(), "'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA...'") != NULL, "33 bytes: %s", dmls_last_error());
    dmls_feature_level_parse("\x01\xff" "6_4", &(DML_FEATURE_LEVEL){0});
    CHECK(strstr(dmls_last_error(), "'??6_4'") != NULL, "control bytes: %s", dmls_last_error());
    dmls_feature_level_parse(" 6_4\t", &(DML_FEATURE_LEVEL){0});
    CHECK(strstr(dmls_last_error(), "' 6_4?'") != NULL, "space and tab: %s", dmls_last_error());
    dmls_feature_level_parse("\x1f\x20", &(DML_FEATURE_LEVEL){0});
    CHECK(strstr(dmls_last_error(), "'? '") != NULL, "unit separator and space: %s", dmls_last_error());
    dmls_feature_level_parse("\x7f\x7e", &(DML_FEATURE_LEVEL){0});
    CHECK(strstr(dmls_last_error(), "'?~'") != NULL, "DEL and tilde: %s", dmls_last_error());
    dmls_feature_level_parse("7_0", &(DML_FEATURE_LEVEL){0});
    CHECK(strncmp(dmls_last_error(), "'7_0' is not", 12) == 0, "quoted: %s", dmls_last_error());
    DML_FEATURE_LEVEL got = (DML_FEATURE_LEVEL)0x7777;
    CHECK_STATUS(dmls_feature_level_parse(NULL, &got), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK(got == 0x7777 && strstr(dmls_last_error(), "text is NULL") != NULL, "NULL text: %s", dmls_last_error());
    CHECK_STATUS(dmls_feature_level_parse("6_4", NULL), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(dmls_last_error(), "level is NULL") != NULL, "NULL level: %s", dmls_last_error());
    /* A success clears the message a failure left. */
    CHECK_STATUS(dmls_feature_level_parse("6.4", &got), DMLS_OK);
    CHECK(dmls_last_error()[0] == '\0', "stale message: %s", dmls_last_error());
}

/* An unterminated buffer that ends at an inaccessible page: the parser
 * reads at most 40 bytes (dml.h), so one of 40 bytes must not fault. */
static void check_parse_bounded(void) {
    guarded g;
    if (guarded_alloc(&g, 40, 1) != 0) {
        printf("note: no guard pages here; the bounded-read case is not run\n");
        return;
    }
    memcpy(g.data, "6_4", 3);
    memset(g.data + 3, 'x', 37);
    DML_FEATURE_LEVEL got = (DML_FEATURE_LEVEL)0x7777;
    CHECK_STATUS(dmls_feature_level_parse((const char *)g.data, &got), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(dmls_last_error(), "'6_4xxxxxxxxxxxxxxxxxxxxxxxxxxxxx...'") != NULL, "%s", dmls_last_error());
    guarded_free(&g);
}

int main(void) {
    static const DML_OPERATOR_TYPE ops[] = {DML_OPERATOR_SLICE, DML_OPERATOR_SLICE1, DML_OPERATOR_SLICE_GRAD};
    int cells = 0, accepted = 0;
    for (size_t o = 0; o < 3; o++)
        for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++)
            for (unsigned n = 1; n <= 8; n++)
                for (int t = F32; t <= I4; t++) {
                    fixture f;
                    build(&f, ops[o], n, t);
                    const bool want = expected(ops[o], (unsigned)levels[l], n, t);
                    dmls_status s = fixture_create(&f, levels[l]);
                    CHECK(want ? s == DMLS_OK : s == DMLS_ERROR_UNSUPPORTED,
                          "op %d at FL %s rank %u type %d: got %s (%s), expected %s", (int)ops[o],
                          dmls_feature_level_name(levels[l]), n, t, dmls_status_name(s), dmls_last_error(),
                          want ? "accept" : "reject");
                    if (!want && s == DMLS_ERROR_UNSUPPORTED)
                        CHECK(strstr(dmls_last_error(), dmls_feature_level_name(levels[l])) != NULL,
                              "message names the level: %s", dmls_last_error());
                    cells++;
                    accepted += s == DMLS_OK;
                }
    /* Ranks 0 and 9 exist at no level; where the operator exists, the rank
     * check refuses them and states the level's range (R-OP-RANK). */
    for (size_t o = 0; o < 3; o++)
        for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++) {
            const unsigned lv = (unsigned)levels[l];
            int lo = 1, hi = 8;
            if (ops[o] == DML_OPERATOR_SLICE_GRAD) {
                if (lv < 0x3000) lo = 0;
                else if (lv < 0x3100) hi = 4;
            } else if (lv < 0x3000) {
                lo = ops[o] == DML_OPERATOR_SLICE1 && lv < 0x2100 ? 0 : 4;
                hi = 5;
            }
            for (unsigned n = 0; n <= 9; n += 9) {
                fixture f;
                build(&f, ops[o], 4, F32);
                fixture_rank(&f, n);
                CHECK_STATUS(fixture_create(&f, levels[l]), DMLS_ERROR_UNSUPPORTED);
                if (lo == 0) continue; /* not available at this level */
                char want[128];
                snprintf(want, sizeof want, "DimensionCount = %u is not supported at feature level %s (allowed: %d to %d)",
                         n, dmls_feature_level_name(levels[l]), lo, hi);
                CHECK(strstr(dmls_last_error(), want) != NULL && strcmp(dmls_last_error_rule(), "R-OP-RANK") == 0,
                      "op %d rank %u at FL %s: \"%s\" (%s), want \"%s\"", (int)ops[o], n,
                      dmls_feature_level_name(levels[l]), dmls_last_error(), dmls_last_error_rule(), want);
            }
        }
    printf("%d cells, %d accepted\n", cells, accepted);
    CHECK(cells == 3 * 15 * 8 * 13, "cells %d", cells);
    check_list_and_names();
    check_parse_accepts();
    check_parse_refuses();
    check_parse_bounded();
    TEST_MAIN_END();
}
