/* The program every consumer project builds, as a user of dmlslice would
 * write it: DirectML's SLICE1 example 2 (negative strides) through the
 * DirectML path, the same slice through the native path, and in a CUDA
 * build the CUDA path's device check (a clean "no device" answer on a
 * machine without a GPU). Prints one line per path; exits 0 only when every
 * output is the one DirectML's documentation gives. */
#include <stdio.h>
#include <string.h>

#include <dmlslice/dmlslice.h>
#if defined(__has_include)
#if __has_include(<dmlslice/dml.h>)
#include <dmlslice/dml.h> /* the DirectML surface has its own header from 0.2.0 on */
#endif
#endif
#ifdef DMLS_HAVE_CUDA
#include <dmlslice/dmlslice_cuda.h>
#endif

static const float expected[4] = {14, 16, 6, 8};

static int check(const char *path, dmls_status s, const float *out) {
    if (s != DMLS_OK) {
        printf("%s: %s: %s\n", path, dmls_status_name(s), dmls_last_error());
        return 1;
    }
    int ok = memcmp(out, expected, sizeof expected) == 0;
    printf("%s: %g %g %g %g%s\n", path, out[0], out[1], out[2], out[3], ok ? "" : " (wrong)");
    return !ok;
}

int main(void) {
    _Alignas(16) float input[16], out[4]; /* DirectML binds buffers at multiples of 16 (R-X-ALIGN) */
    for (int i = 0; i < 16; i++) input[i] = (float)(i + 1);
    int fail = 0;
    printf("dmlslice %s\n", dmls_version());

    static const UINT in_sizes[4] = {1, 1, 4, 4}, out_sizes[4] = {1, 1, 2, 2};
    static const UINT offsets[4] = {0, 0, 0, 1}, sizes[4] = {1, 1, 4, 3};
    static const INT strides[4] = {1, 1, -2, 2};
    DML_BUFFER_TENSOR_DESC in_buf = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 4, in_sizes, NULL,
                                     sizeof input, 0};
    DML_BUFFER_TENSOR_DESC out_buf = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 4, out_sizes, NULL,
                                      sizeof out, 0};
    DML_TENSOR_DESC in_desc = {DML_TENSOR_TYPE_BUFFER, &in_buf}, out_desc = {DML_TENSOR_TYPE_BUFFER, &out_buf};
    DML_SLICE1_OPERATOR_DESC slice1 = {&in_desc, &out_desc, 4, offsets, sizes, strides};
    DML_OPERATOR_DESC desc = {DML_OPERATOR_SLICE1, &slice1};
    memset(out, 0, sizeof out);
    fail |= check("directml", dmls_slice_dml(&desc, DML_FEATURE_LEVEL_4_1, input, sizeof input, out, sizeof out), out);

    static const int64_t n_in[2] = {4, 4}, n_out[2] = {2, 2};
    static const int64_t n_off[2] = {0, 1}, n_size[2] = {4, 3}, n_stride[2] = {-2, 2};
    dmls_tensor tin = {DMLS_FLOAT32, 2, n_in, NULL, 0}, tout = {DMLS_FLOAT32, 2, n_out, NULL, 0};
    dmls_window window = {n_off, n_size, n_stride};
    memset(out, 0, sizeof out);
    fail |= check("native", dmls_slice(&tin, input, sizeof input, &tout, out, sizeof out, &window), out);

#ifdef DMLS_HAVE_CUDA
    int count = -1;
    dmls_status s = dmls_cuda_device_count(&count);
    if (s == DMLS_OK && count >= 1) {
        printf("cuda: %d device(s)\n", count);
    } else if (s == DMLS_ERROR_NO_DEVICE && count == 0 && dmls_last_error()[0] != '\0') {
        printf("cuda: no device (%s)\n", dmls_last_error());
    } else {
        printf("cuda: unexpected %s, count %d\n", dmls_status_name(s), count);
        fail = 1;
    }
#endif
    return fail;
}
