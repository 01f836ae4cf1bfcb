/* dmlslice demo: the four worked examples of DirectML's SLICE and SLICE1
 * pages, run through the DirectML-compatible API and printed. */
#include <stdio.h>

#include "../examples/worked_examples.h"
#include "commands.h"
#include "dmlslice/dml.h"

static void print_list(const char *name, const void *values, int is_signed) {
    printf("  %-18s = {", name);
    for (int i = 0; i < 4; i++) {
        if (is_signed) printf("%s%d", i ? ", " : "", ((const INT *)values)[i]);
        else printf("%s%u", i ? ", " : "", ((const UINT *)values)[i]);
    }
    printf("}\n");
}

/* A 1x1xHxW float tensor, printed as DirectML's pages print it. */
static void print_tensor(const char *label, const UINT *sizes, const float *v) {
    printf("  %s (Sizes:{%u, %u, %u, %u}, DataType:FLOAT32)\n", label, sizes[0], sizes[1], sizes[2], sizes[3]);
    for (UINT r = 0; r < sizes[2]; r++) {
        printf("  %s", r == 0 ? "[[[[" : "   [");
        for (UINT c = 0; c < sizes[3]; c++) printf("%s%2g", c ? ", " : "", v[r * sizes[3] + c]);
        printf("]%s\n", r + 1 == sizes[2] ? "]]]" : ",");
    }
}

int cmd_demo(int argc, char **argv) {
    (void)argv;
    if (argc > 1) {
        fprintf(stderr, "dmlslice demo: takes no arguments\n");
        return 2;
    }
    const UINT *in_sizes = dmls_worked_input_sizes;
    const float *input = dmls_worked_input;
    DML_BUFFER_TENSOR_DESC in_buf = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 4, in_sizes, NULL,
                                     sizeof dmls_worked_input, 0};
    DML_TENSOR_DESC in_desc = {DML_TENSOR_TYPE_BUFFER, &in_buf};

    for (size_t e = 0; e < DMLS_WORKED_EXAMPLE_COUNT; e++) {
        const dmls_worked_example *x = &dmls_worked_examples[e];
        _Alignas(DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT) float output[16];
        DML_BUFFER_TENSOR_DESC out_buf = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 4, x->out_sizes,
                                          NULL, 0, 0};
        uint64_t out_bytes;
        if (dmls_calc_buffer_tensor_size(out_buf.DataType, 4, x->out_sizes, NULL, &out_bytes) != DMLS_OK) {
            fprintf(stderr, "dmlslice demo: %s\n", dmls_last_error());
            return 1;
        }
        out_buf.TotalTensorSizeInBytes = out_bytes;
        DML_TENSOR_DESC out_desc = {DML_TENSOR_TYPE_BUFFER, &out_buf};

        DML_SLICE_OPERATOR_DESC slice = {&in_desc, &out_desc, 4, x->offsets, x->sizes, (const UINT *)x->strides};
        DML_SLICE1_OPERATOR_DESC slice1 = {&in_desc, &out_desc, 4, x->offsets, x->sizes, x->strides};
        DML_OPERATOR_DESC op = {x->type, x->type == DML_OPERATOR_SLICE ? (const void *)&slice : (const void *)&slice1};

        printf("%s%s: %s\n", e ? "\n" : "", x->name, x->title);
        print_tensor("InputTensor:", in_sizes, input);
        const int slice1_fields = x->type == DML_OPERATOR_SLICE1;
        print_list(slice1_fields ? "InputWindowOffsets" : "Offsets", x->offsets, 0);
        print_list(slice1_fields ? "InputWindowSizes" : "Sizes", x->sizes, 0);
        print_list(slice1_fields ? "InputWindowStrides" : "Strides", x->strides, slice1_fields);
        dmls_status s = dmls_slice_dml(&op, DML_FEATURE_LEVEL_4_1, input, sizeof dmls_worked_input, output, sizeof output);
        if (s != DMLS_OK) {
            fprintf(stderr, "dmlslice demo: %s: %s\n", dmls_status_name(s), dmls_last_error());
            return 1;
        }
        print_tensor("OutputTensor:", x->out_sizes, output);
    }
    return 0;
}
