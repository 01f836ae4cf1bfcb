/* docs/spec.md section 4, cell by cell: every operator at every feature level (the
 * listed rows and the levels between them), every rank 1-8 and every data
 * type, accepted or rejected as the table says. The expected table is
 * written out here independently of the library's own. Covers R-OP-RANK
 * and R-OP-TYPE at every level. */
#include "dml_fixture.h"
#include "test.h"

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
    TEST_MAIN_END();
}
