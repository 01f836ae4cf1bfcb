/* The four worked examples of DirectML's SLICE and SLICE1 documentation
 * pages: their descriptors' values, the one input they share, and the
 * outputs the pages print. One home for them: the demo (tools/commands/demo.c) prints
 * them and the tests (tests/dml/test_worked_examples.c) check the library
 * against them byte for byte. */
#ifndef DMLSLICE_WORKED_EXAMPLES_H
#define DMLSLICE_WORKED_EXAMPLES_H

#include "dmlslice/dml.h"

/* The shared input: a 1x1x4x4 FLOAT32 tensor holding 1 to 16, row-major. */
static const UINT dmls_worked_input_sizes[4] = {1, 1, 4, 4};
/* Aligned as DirectML binds buffers (R-X-ALIGN), so it can be bound as it is. */
static _Alignas(DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT) const float dmls_worked_input[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

typedef struct dmls_worked_example {
    const char *name;  /* "SLICE example 1" */
    const char *title; /* what the page calls it: "contiguous slice" */
    DML_OPERATOR_TYPE type;
    UINT offsets[4]; /* Offsets, or InputWindowOffsets */
    UINT sizes[4];   /* Sizes (the output's), or InputWindowSizes */
    INT strides[4];  /* Strides (all >= 1 for SLICE), or InputWindowStrides */
    UINT out_sizes[4];
    float expected[6]; /* the documented output, row-major: product(out_sizes) values */
} dmls_worked_example;

#define DMLS_WORKED_EXAMPLE_COUNT 4

static const dmls_worked_example dmls_worked_examples[DMLS_WORKED_EXAMPLE_COUNT] = {
    {"SLICE example 1", "contiguous slice", DML_OPERATOR_SLICE, {0, 0, 1, 2}, {1, 1, 3, 2}, {1, 1, 1, 1},
     {1, 1, 3, 2}, {7, 8, 11, 12, 15, 16}},
    {"SLICE example 2", "strided slice", DML_OPERATOR_SLICE, {0, 0, 1, 0}, {1, 1, 2, 2}, {1, 1, 2, 3},
     {1, 1, 2, 2}, {5, 8, 13, 16}},
    {"SLICE1 example 1", "strided slice with positive strides", DML_OPERATOR_SLICE1, {0, 0, 0, 1}, {1, 1, 4, 3},
     {1, 1, 2, 2}, {1, 1, 2, 2}, {2, 4, 10, 12}},
    {"SLICE1 example 2", "strided slice with negative strides", DML_OPERATOR_SLICE1, {0, 0, 0, 1},
     {1, 1, 4, 3}, {1, 1, -2, 2}, {1, 1, 2, 2}, {14, 16, 6, 8}},
};

#endif
