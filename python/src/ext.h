/*
 * ext.h: what the extension's C files share. Each depends only on those
 * above it (and on the library's public headers):
 *
 *   errors.c   the package's exceptions, raised with the library's status
 *   arrays.c   takes arrays in (NumPy's fields, torch's attributes, the
 *              buffer protocol, DLPack) as array_view
 *   library.c  every call into the dmlslice library: lowering, planning,
 *              the copy's byte strides and element splitting, executing
 *              (CPU pool, CUDA), threads
 *   module.c   the Python surface: arguments, keys, one call's straight
 *              path (arrays in, plan, result, run), the Operator type
 */
#ifndef DMLSLICE_PY_EXT_H
#define DMLSLICE_PY_EXT_H

#include <Python.h>
#include <stdint.h>

#define EXT_MAX_RANK 8 /* DMLS_MAX_RANK; library.c asserts they agree */
/* The most axes an array may have (DMLS_NUMPY_MAX_RANK, NumPy's own limit):
 * NumPy keys take them as the command line does, the axes that vanish in
 * the plan not counting against EXT_MAX_RANK. */
#define EXT_ARRAY_MAX_RANK 64

/* How an element's bits are read, for the DirectML data type of a
 * descriptor: slicing copies bits, so only DirectML validation cares. */
enum { CLS_OTHER = 0, CLS_INT = 1, CLS_UINT = 2, CLS_FLOAT = 3 };

/* An array taken in without copying: element (c_0, ...) lives at
 * data + sum c_i * strides[i] (byte strides, any sign). */
typedef struct array_view {
    char *data;
    int ndim;
    int64_t itemsize;
    int dtype_class;
    int dl_code;     /* DLPack's type code (lanes 1), or -1 */
    int device_type; /* DLPack's: 1 CPU, 2 CUDA */
    int device_id;
    int readonly;
    int has_buffer;
    Py_buffer buffer;
    void *managed; /* DLManagedTensor(Versioned) to delete at release */
    int versioned;
    /* Last: only the first ndim are set (a tiny slice skips zeroing them). */
    int64_t shape[EXT_ARRAY_MAX_RANK];
    int64_t strides[EXT_ARRAY_MAX_RANK];
} array_view;

/* Errors: the classes of dmlslice/_errors.py, by role. */
enum {
    ERR_BASE,
    ERR_ARGUMENT,      /* ValueError */
    ERR_OUT_OF_BOUNDS, /* ValueError and IndexError */
    ERR_DTYPE,         /* TypeError */
    ERR_INDEX_TYPE,    /* IndexError and TypeError */
    ERR_DEVICE,        /* RuntimeError */
    ERR_MEMORY,        /* MemoryError */
    ERR_INDEX_KEY,     /* ValueError and IndexError: a NumPy key NumPy refuses */
    ERR_FOREIGN,       /* RuntimeError: the array's own library failed */
    ERR_COUNT
};

/* ---- errors.c */

/* Takes the classes of dmlslice/_errors.py's BY_ROLE. 0, or -1. */
int ext_set_errors(PyObject *classes);

/* Raise error class `role` with .status and .rule; returns NULL. */
PyObject *ext_raise(int role, const char *status, const char *rule, const char *fmt, ...);

/* Where a call failed with an exception that is not the package's own
 * (Python's TypeError for arguments, NumPy's MemoryError, an exporter's
 * RuntimeError): replaces it with the package's class of the same built-in
 * base, the original as __cause__. Returns NULL. */
PyObject *ext_own_error(void);

/* The name of obj's type, written to buf. */
const char *ext_type_name(PyObject *obj, char *buf, size_t size);

/* ---- arrays.c */

/* Takes numpy.ndarray and dmlslice._kinds (device_of, dtype_info). 0, or -1. */
int view_set_kinds(PyObject *ndarray_type, PyObject *kinds);
/* (itemsize, class) of a dtype-like object (NumPy's, torch's), through
 * dmlslice._kinds.dtype_info. 0, or -1 with an exception. */
int view_dtype_info(PyObject *dtype, int64_t *itemsize, int *cls);
int view_is_numpy(PyObject *obj);
/* A NumPy array's dtype (borrowed), without an attribute lookup. */
PyObject *view_numpy_descr(PyObject *obj);
/* True for an exporter of the buffer protocol that is not a NumPy array and
 * does not speak DLPack (bytes, memoryview, array.array, ...). */
int view_is_buffer(PyObject *obj);
/* Take obj in. stream: the consumer's stream for a CUDA producer, or NULL.
 * Returns 0, or -1 with an exception set. */
int view_import(PyObject *obj, int writable, PyObject *stream, array_view *v);
void view_release(array_view *v);
/* True for a torch.Tensor or a subclass of it, once torch is imported. */
int view_is_torch(PyObject *obj);
/* PyTorch's current stream of CUDA device `device` as an integer, without
 * making a Stream object: 0, 1 where this torch cannot say (no CUDA build),
 * or -1 with an exception. Call only after view_is_torch said yes. */
int view_torch_stream(int device, uintptr_t *stream);
/* x.new_empty(shape): a tensor of x's dtype and device, from x's library. */
PyObject *view_torch_empty(PyObject *x, PyObject *shape);
/* (device_type, device_id) without taking the array in: its __dlpack_device__,
 * or CPU for the buffer protocol. -1 with an exception when neither. */
int view_device(PyObject *obj, int *type, int *id);

/* ---- library.c */

/* A slice as every vocabulary ends up: a SLICE1 window over the forward
 * input, the SLICE1 output sizes, and the shape of the result array. */
typedef struct plan {
    int grad;                             /* SLICE_GRAD: scatter into zeros */
    int ndim;                             /* rank of the input, and (up to EXT_MAX_RANK) of the window */
    int64_t in_shape[EXT_ARRAY_MAX_RANK]; /* the shape the input array must have */
    /* A NumPy key over more than EXT_MAX_RANK input axes: its text, for the
     * library's view of each array (which depends on its strides); the
     * window fields are then unused. Borrowed from whoever lowered it until
     * lib_compile copies it. */
    const char *expr;
    int64_t offsets[EXT_MAX_RANK];
    int64_t wsizes[EXT_MAX_RANK];
    int64_t wstrides[EXT_MAX_RANK];
    int64_t out_sizes[EXT_MAX_RANK]; /* the SLICE1 output (grad: the input gradient) */
    int final_ndim;                  /* rank and shape of the result */
    int64_t final_shape[EXT_ARRAY_MAX_RANK];
} plan;

enum { DML_SLICE = 0, DML_SLICE1 = 1, DML_SLICE_GRAD = 2 };

int lib_lower_numpy(int ndim, const int64_t *shape, const char *expr, plan *p);
/* Adds an axis of length len (1, or 0: the result is then empty) to the
 * result's shape at pos: NumPy's axis of boolean scalars. */
int lib_plan_add_axis(plan *p, int pos, int64_t len);
int lib_lower_onnx(int ndim, const int64_t *shape, const int64_t *starts, const int64_t *ends, int n,
                   const int64_t *axes, int n_axes, const int64_t *steps, int n_steps, plan *p);
int lib_lower_webnn_slice(int ndim, const int64_t *shape, const uint64_t *starts, int n_starts, const uint64_t *sizes,
                          int n_sizes, const uint64_t *strides, int n_strides, plan *p);
int lib_lower_webnn_reverse(int ndim, const int64_t *shape, const uint64_t *axes, int n_axes, plan *p);

/* DirectML parameters, validated as DirectML does at feature level `level`
 * (a DML_FEATURE_LEVEL value) on packed descriptors of `shape`. For
 * SLICE_GRAD, shape is the forward input's (the result's). n is the number of
 * values in offsets, sizes and strides (DimensionCount). */
typedef struct dml_params {
    int op; /* DML_SLICE, DML_SLICE1, DML_SLICE_GRAD */
    int level;
    int dtype_class;
    int64_t itemsize;
    int any_itemsize; /* an array's elements: sizes DirectML lacks are checked as their parts */
    int n;
    int64_t offsets[EXT_MAX_RANK];
    int64_t sizes[EXT_MAX_RANK];
    int64_t strides[EXT_MAX_RANK];
} dml_params;
int lib_lower_dml(int ndim, const int64_t *shape, const dml_params *d, plan *p);

/* A full DirectML descriptor without data: in/out sizes, optional strides
 * (NULL: packed), total sizes (0: the least), alignment. Writes the output
 * tensor's rank and sizes. */
typedef struct dml_tensor_args {
    int ndim;
    int64_t sizes[EXT_MAX_RANK];
    int has_strides;
    int64_t strides[EXT_MAX_RANK];
    uint64_t total_bytes;
    uint64_t alignment;
} dml_tensor_args;
int lib_check_dml(const dml_params *d, const dml_tensor_args *in, const dml_tensor_args *out, int *rank,
                  int64_t *shape);

const char *lib_feature_level_name(int level);
/* The DML_FEATURE_LEVEL value of a name ("6_4", "6.4", "0x6400"), or -1. */
int lib_feature_level(const char *name);
int lib_latest_feature_level(void);

/* Plans kept by an Operator: the operator for packed arrays, made once. */
typedef struct compiled {
    plan p;
    int64_t itemsize;
    void *packed_op; /* dmls_operator for packed in and out, or NULL */
    char *expr;      /* the plan's expr, owned */
} compiled;
int lib_compile(compiled *c, const plan *p, int64_t itemsize);
void lib_compiled_free(compiled *c);

/* Copy: in (shape p->in_shape) to out (shape p->final_shape), on the CPU
 * pool or the GPU. stream: cudaStream_t as an integer, for CUDA views.
 * c may be NULL (one-shot call). Returns 0 or -1 with an exception set. */
int lib_run(const plan *p, const compiled *c, const array_view *in, const array_view *out, uintptr_t stream, int sync);

int lib_set_threads(int n);
/* In a forked child: forget the parent's pool (its workers are not here). */
void lib_after_fork_child(void);
int lib_threads(void);
const char *lib_version(void);
int lib_cuda_built(void);
int lib_cuda_available(void);
/* 0 when CUDA device `device` can run a slice, else -1 with an exception
 * that says why (no CUDA backend in this build, no GPU, no such device). */
int lib_cuda_check(int device);

#endif /* DMLSLICE_PY_EXT_H */
