/* The slice parameters every command takes (PARAMS in the help): one of the
 * DirectML forms (SLICE, SLICE1) or one of the front ends (NumPy, ONNX,
 * WebNN), and the setup made from them for a tensor: the operator (the
 * library plans it), the result's shape and what running it in pieces
 * needs (parsed in params.c, set up in params_setup.c). (A "setup" is the
 * tool's; a "plan" is the library's copy plan.) */
#ifndef DMLSLICE_TOOLS_PARAMS_H
#define DMLSLICE_TOOLS_PARAMS_H

#include <stdbool.h>
#include <stdint.h>

#include "args.h"
#include "dmlslice/dml.h"
#include "dmlslice/frontends.h"
#include "options.h"

/* The PARAMS options and --feature-level, for a command's option groups. */
extern const option_def params_options[];
extern const char params_note[];

typedef enum param_form {
    FORM_NONE,
    FORM_DML_SLICE,     /* --offsets --sizes --strides */
    FORM_DML_SLICE1,    /* --window-offsets --window-sizes --window-strides [--output-sizes] */
    FORM_NUMPY,         /* --index */
    FORM_ONNX,          /* --onnx-starts --onnx-ends [--onnx-axes] [--onnx-steps] */
    FORM_WEBNN_SLICE,   /* --webnn-starts --webnn-sizes [--webnn-strides] */
    FORM_WEBNN_REVERSE  /* --webnn-reverse */
} param_form;

typedef struct param_list {
    bool given;
    int32_t n;
    int64_t v[ARGS_MAX_LIST];
} param_list;

typedef struct params {
    param_form form;
    const char *form_option; /* the first option of the form, for messages */
    param_list offsets, sizes, strides;
    param_list win_offsets, win_sizes, win_strides, out_sizes;
    const char *index;
    param_list onnx_starts, onnx_ends, onnx_axes, onnx_steps;
    param_list webnn_starts, webnn_sizes, webnn_strides, webnn_axes;
    bool webnn_reverse_all;
    /* --perm: the slice applies to np.transpose(x, perm) (docs/spec.md, R-PERM) */
    bool perm_given, perm_reverse; /* perm_reverse: 'reverse', NumPy's axes=None */
    int32_t n_perm;
    int64_t perm[DMLS_NUMPY_MAX_RANK];
    DML_FEATURE_LEVEL level;
    bool level_given; /* --feature-level: front ends are then also checked as DirectML's SLICE1 */
} params;

/* Defaults (the latest feature level, no form). */
void params_init(params *p);

/* If opt is one of params_options, takes value and returns 1; returns 0
 * for any other option; -1 after printing an error. */
int params_option(params *p, const option_def *opt, const char *value);

/* Exactly one form with all its required lists (or none, with --perm: the
 * whole transposed array); prints what is missing. */
bool params_complete(const params *p);

/* The tensor a setup is made for. */
typedef struct param_tensor {
    dmls_dtype dtype;
    int32_t ndim;
    const int64_t *shape;
    const int64_t *strides;     /* element strides, NULL for packed */
    const int64_t *out_strides; /* output element strides, NULL for packed */
    int32_t n_out_strides;      /* how many out_strides holds */
    int64_t parts;              /* an element is parts dtype-sized parts (npy_header.parts; 0 means 1):
                                 * the copy runs them as one more, innermost axis, taken whole; with
                                 * parts > 1, out_strides must be NULL */
} param_tensor;

/* A setup's operator as dmls_create's arguments, with a packed output, so
 * that it can also run in pieces (params_piece). One rank: SLICE1's input,
 * output and window have the same. */
typedef struct param_native {
    bool set; /* false for SLICE_GRAD and an output with strides */
    dmls_dtype dtype;
    int32_t ndim;
    int64_t in_shape[DMLS_MAX_RANK], in_strides[DMLS_MAX_RANK], out_shape[DMLS_MAX_RANK];
    bool in_packed;
    uint64_t in_offset; /* bytes */
    int64_t offsets[DMLS_MAX_RANK], sizes[DMLS_MAX_RANK], strides[DMLS_MAX_RANK];
} param_native;

/* What a command runs: made by params_setup or params_setup_grad. */
typedef struct param_setup {
    dmls_operator *op;
    param_native native;
    int32_t final_ndim;
    int64_t final_shape[DMLS_NUMPY_MAX_RANK]; /* NumPy results may have up to 64 axes */
    bool dml;                   /* made through dmls_create_dml(_lists) */
    char error[600];            /* on failure: the message */
    const char *rule;           /* on failure: the SPEC rule ID, or "" */
} param_setup;

/* Validates and sets up. An element of several parts (t->parts) is set up
 * with the parts' type: the DirectML forms validate as DirectML would for
 * that type, then run natively with the parts' axis. The DirectML forms build real DirectML descriptors
 * (dmls_create_dml_lists: TotalTensorSizeInBytes the least DirectML
 * accepts) and go through dmls_create_dml at p->level, so they accept exactly what DirectML would;
 * the front ends lower and go through dmls_create (64-bit, no DirectML
 * limits), and with --feature-level their lowered SLICE1 must also pass
 * dmls_create_dml at that level. t->out_strides, when given, holds one
 * value per axis of the SLICE1 output: the window's count for the DirectML
 * forms, the input's rank for the front ends (they lower onto SLICE1 over
 * the input's axes). With --perm every form applies to the transposed
 * input, a view of t with its axes permuted (DirectML's idiom: a tensor desc
 * whose Strides are permuted). Returns false with setup->error set. */
bool params_setup(const params *p, const param_tensor *t, param_setup *setup);

/* SLICE_GRAD from the SLICE1 window lists (p->form must be FORM_DML_SLICE1,
 * without --output-sizes): t is the input gradient (t->out_strides the
 * output gradient's, or NULL), out_grad_sizes the output gradient's sizes
 * (the forward input's shape). Made through dmls_create_dml_lists at p->level;
 * setup->final_shape is the output gradient's. Returns false with
 * setup->error set. */
bool params_setup_grad(const params *p, const param_tensor *t, const param_list *out_grad_sizes, param_setup *setup);

/* The output's outermost axis of more than one element, for running a setup
 * in pieces of its rows: its length (0 when the setup cannot be split: no
 * such axis, an empty output, or setup->native not set), and the bytes one
 * row holds. */
int64_t params_piece_rows(const param_setup *setup, uint64_t *row_bytes);

/* Rows [first, first + count) of that axis as an operator of their own
 * (native, on the input as setup->op binds it): *op writes exactly the
 * output's bytes from first * row_bytes on. dmls_create's status. */
dmls_status params_piece(const param_setup *setup, int64_t first, int64_t count, dmls_operator **op);

/* Where to bind the input of a CPU run: data itself, or, for a DirectML setup
 * when data is not at a multiple of DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT
 * (R-X-ALIGN; a .npy writer that pads its header less than NumPy's does), a
 * copy of its first bytes bytes at an aligned address, returned in *copy for
 * the caller to free. NULL when that copy cannot be allocated. */
const void *params_bind_input(const param_setup *setup, const void *data, uint64_t bytes, void **copy);

#endif
