/*
 * ext.h: what the extension's C files share, file by file. A file calls
 * only files listed above it (and the library's public headers), so no
 * two files call each other:
 *
 *   errors.c      the package's exceptions, raised with the library's status
 *   numpy_abi.c   NumPy's array fields and C API table: NumPy arrays read
 *                 and made without a Python-level call
 *   frameworks.c  PyTorch and CuPy arrays read through their own
 *                 attributes; their streams; dtype objects of any library
 *   exchange.c    DLPack's tensors read; DLPack's C exchange API
 *                 (__dlpack_c_exchange_api__)
 *   arrays.c      any array taken in as an array_view: NumPy, PyTorch,
 *                 CuPy, the exchange API, the buffer protocol, __dlpack__
 *   lowering.c    the front ends' parameters lowered to a lowered slice
 *   dml.c         DirectML descriptors validated, feature levels
 *   keys.c        NumPy index keys (text, tuples, booleans) lowered
 *   layout.c      byte strides and element splitting: native operators for
 *                 two array views
 *   devices.c     the devices copies run on, through the library's device
 *                 interface (devices.h): the CPU's shared threads, GPUs
 *   run.c         a copy run where its arrays live
 *   prepared.c    a lowered slice compiled once and shared (Operators, the key cache)
 *   key_cache.c   one-shot NumPy keys' prepared plans, by key
 *   params.c      each vocabulary's Python parameters read and lowered
 *   results.c     the result array made by the input's library, handed back
 *   call.c        one call's straight path: array in, lowering, result, run
 *   operator.c    the Operator type
 *   batch_run.c   many slices in one call, the library's side: arrays as
 *                 the batch library takes them, batches made and run
 *   batch_cache.c, batch_arrays.c, split.c, crops.c, batch_plan.c,
 *   batch_call.c  many slices in one call, the Python surface: split,
 *                 crops, the Batch type (batch_run.h lists them)
 *   module.c      the Python surface: argument parsing, the functions
 */
#ifndef DMLSLICE_PY_EXT_H
#define DMLSLICE_PY_EXT_H

#include <Python.h>
#include <stddef.h>
#include <stdint.h>

#define EXT_MAX_RANK 8 /* DMLS_MAX_RANK; layout.c asserts they agree */
/* The most axes an array may have (DMLS_NUMPY_MAX_RANK, NumPy's own limit):
 * NumPy keys take them as the command line does, the axes that vanish in
 * the lowered slice not counting against EXT_MAX_RANK. */
#define EXT_ARRAY_MAX_RANK 64

/* How an element's bits are read, for the DirectML data type of a
 * descriptor: slicing copies bits, so only DirectML validation cares. */
enum { CLS_OTHER = 0, CLS_INT = 1, CLS_UINT = 2, CLS_FLOAT = 3 };

/* Where an array_view came from: what releasing it means, and which
 * library makes a result of its kind. */
enum {
    SRC_NUMPY = 1,  /* numpy.ndarray: its fields */
    SRC_TORCH,      /* torch.Tensor: data_ptr(), shape, stride() */
    SRC_CUPY,       /* cupy.ndarray: data.ptr, shape, strides */
    SRC_EXCHANGE,   /* a producer of DLPack's C exchange API */
    SRC_BUFFER,     /* the buffer protocol */
    SRC_DLPACK,     /* __dlpack__'s capsule */
    SRC_FRESH_NUMPY /* a C-contiguous NumPy array the extension just made */
};

/* An array taken in without copying: element (c_0, ...) lives at
 * data + sum c_i * strides[i] (byte strides, any sign). */
typedef struct array_view {
    char *data;
    int ndim;
    int source; /* SRC_* */
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

/* The part of array_view that view_import zeroes before filling it. */
#define VIEW_HEAD_BYTES offsetof(array_view, shape)

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
/* Raise the library's last error for status `st` (a dmls_status) in the
 * class of its kind; returns NULL. */
PyObject *ext_raise_status(int st);
/* Where a call failed with an exception that is not the package's own
 * (Python's TypeError for arguments, NumPy's MemoryError, an exporter's
 * RuntimeError): replaces it with the package's class of the same built-in
 * base, the original as __cause__. Returns NULL. */
PyObject *ext_own_error(void);
/* The name of obj's type, written to buf. */
const char *ext_type_name(PyObject *obj, char *buf, size_t size);
/* A tuple of n integers. */
PyObject *ext_shape_tuple(int n, const int64_t *shape);
/* "(2, 3)" into buf. */
void ext_shape_text(char *buf, size_t size, int n, const int64_t *s);

/* ---- numpy_abi.c */

/* Takes the numpy module: ndarray, bool_, empty, and the C API table. 0 or -1. */
int numpy_init(PyObject *np);
int numpy_is_array(PyObject *obj);
/* Exactly numpy.ndarray (no subclass). */
int numpy_is_exact(PyObject *obj);
int numpy_is_bool(PyObject *obj); /* numpy.bool_ */
/* A NumPy array's dtype (borrowed), without an attribute lookup. */
PyObject *numpy_descr(PyObject *arr);
/* What the slice needs of a NumPy dtype; cls -1: it holds Python objects.
 * Asked once per dtype object. 0, or -1 with an exception. */
int numpy_dtype(PyObject *descr, int64_t *itemsize, int *cls);
/* Reads a NumPy array's fields into v (source SRC_NUMPY). 0 or -1. */
int numpy_view(PyObject *arr, int writable, array_view *v);
/* A new C-contiguous array of dtype descr and this shape, through NumPy's
 * C API where it is reachable (numpy.empty otherwise); v describes it
 * (source SRC_FRESH_NUMPY). A new reference, or NULL. */
PyObject *numpy_new(PyObject *descr, int ndim, const int64_t *shape, array_view *v);
/* A writable C-contiguous view of this shape at data, inside base (a
 * C-contiguous NumPy array of the same dtype, kept alive by the view),
 * made through the C API where numpy_can_view() says it is reachable. A new
 * reference, or NULL. */
int numpy_can_view(void);
PyObject *numpy_view_of(PyObject *base, int ndim, const int64_t *shape, char *data);
/* v's shape, and the strides of a C-contiguous array (NumPy's default
 * order, every library's fresh array) of v->itemsize elements. */
void numpy_c_order(array_view *v, int ndim, const int64_t *shape);
/* numpy.asarray(obj): a NumPy view of a buffer exporter. */
PyObject *numpy_asarray(PyObject *obj);

/* ---- frameworks.c */

/* Takes dmlslice._kinds (dtype_info, device_of, stream_of, cupy_empty). 0 or -1. */
int frameworks_init(PyObject *kinds);
/* (itemsize, class) of a dtype-like object (NumPy's, torch's), through
 * dmlslice._kinds.dtype_info. 0, or -1 with an exception. */
int frameworks_dtype_info(PyObject *dtype, int64_t *itemsize, int *cls);
/* True for a torch.Tensor (or subclass) / cupy.ndarray, once that library
 * is imported (never imported here). */
int frameworks_is_torch(PyObject *obj);
int frameworks_is_cupy(PyObject *obj);
/* Reads a tensor / CuPy array into v: 0, 1 when it must go through DLPack
 * instead (another layout or device), or -1 with an exception. */
int frameworks_torch_view(PyObject *obj, array_view *v);
int frameworks_cupy_view(PyObject *obj, array_view *v);
/* (device_type, device_id) of a tensor: 0, 1 when torch cannot say, -1. */
int frameworks_torch_device(PyObject *obj, int *type, int *id);
/* The library's current stream of CUDA device `device` as an integer: 0,
 * or -1 with an exception. */
int frameworks_torch_stream(int device, uintptr_t *stream);
int frameworks_cupy_stream(int device, uintptr_t *stream);
/* An uninitialized array like x of this shape on x's device. */
PyObject *frameworks_torch_empty(PyObject *x, PyObject *shape);
PyObject *frameworks_cupy_empty(PyObject *x, PyObject *shape, int device);
/* The view of such an array, made for input `in` with this shape: the
 * input's dtype and device, C-contiguous; only its address is asked. 0 or -1. */
int frameworks_fresh_view(PyObject *made, const array_view *in, int ndim, const int64_t *shape, array_view *v);
/* _kinds.device_of / stream_of / empty_like / finish, for other producers. */
int frameworks_device_of(PyObject *obj, int *type, int *id);
int frameworks_stream_of(PyObject *obj, int device, uintptr_t *stream, PyObject **stream_arg, int *sync);
PyObject *frameworks_empty_like(PyObject *x, PyObject *shape, const char *dtype_hint);
PyObject *frameworks_finish(PyObject *x, PyObject *target);

/* ---- exchange.c */

/* A DLTensor (and the flags of a versioned one) read into v: 0, or -1
 * with an exception (a rank, element size or read-only out= refused). */
int dlpack_read(const void *dltensor, uint64_t flags, int writable, array_view *v);

/* The producer's DLPack C exchange API table for obj's type, or NULL where
 * its type offers none (asked once per type). Never raises. */
const void *exchange_api(PyObject *obj);
/* Reads obj through the table (to write into it: the writable form, which
 * asks for the tensor's read-only flag): 0, or -1 with an exception. */
int exchange_view(const void *api, PyObject *obj, array_view *v);
int exchange_writable_view(const void *api, PyObject *obj, array_view *v);
/* The producer's current stream of the device: 0, or -1. */
int exchange_stream(const void *api, int device_type, int device_id, uintptr_t *stream);
/* A new array of the producer's kind, like proto (its dtype and device)
 * with this shape, made by the producer's allocator: a new reference, or
 * NULL with an exception. */
PyObject *exchange_empty(const void *api, const array_view *proto, int ndim, const int64_t *shape);

/* ---- arrays.c */

/* Take obj in. stream: the consumer's stream for a CUDA producer, or NULL.
 * Returns 0, or -1 with an exception set. */
int view_import(PyObject *obj, int writable, PyObject *stream, array_view *v);
void view_release(array_view *v);
/* Take obj in where it is an array of a library read without DLPack's
 * stream handshake (NumPy, PyTorch, CuPy, a producer of the C exchange
 * API): 0, 1 where it is none of them (v then holds nothing), or -1. */
int view_import_known(PyObject *obj, int writable, array_view *v);
/* True for an exporter of the buffer protocol that is not a NumPy array and
 * does not speak DLPack (bytes, memoryview, array.array, ...). */
int view_is_buffer(PyObject *obj);
/* (device_type, device_id) without taking the array in. -1 with an
 * exception when obj is no array. */
int view_device(PyObject *obj, int *type, int *id);

/* ---- lowering.c */

/* A slice as every vocabulary ends up: a SLICE1 window over the forward
 * input, the SLICE1 output sizes, and the shape of the result array. */
typedef struct lowered {
    int grad;                             /* SLICE_GRAD: scatter into zeros */
    int ndim;                             /* rank of the input, and (up to EXT_MAX_RANK) of the window */
    int64_t in_shape[EXT_ARRAY_MAX_RANK]; /* the shape the input array must have */
    /* A NumPy key over more than EXT_MAX_RANK input axes: its text, for the
     * library's view of each array (which depends on its strides); the
     * window fields are then unused. Borrowed from whoever lowered it until
     * layout_compile copies it. */
    const char *expr;
    int64_t offsets[EXT_MAX_RANK];
    int64_t wsizes[EXT_MAX_RANK];
    int64_t wstrides[EXT_MAX_RANK];
    int64_t out_sizes[EXT_MAX_RANK]; /* the SLICE1 output (grad: the input gradient) */
    int final_ndim;                  /* rank and shape of the result */
    int64_t final_shape[EXT_ARRAY_MAX_RANK];
    /* A transpose (R-PERM): the window is over the input's view whose axis
     * i is input axis perm[i] (lowered_view permutes an array's view);
     * in_shape stays the input's own. */
    int transposed;
    int perm[EXT_MAX_RANK];
} lowered;

int lowering_numpy(int ndim, const int64_t *shape, const char *expr, lowered *p);
/* Adds an axis of length len (1, or 0: the result is then empty) to the
 * result's shape at pos: NumPy's axis of boolean scalars. */
int lowering_add_axis(lowered *p, int pos, int64_t len);
int lowering_onnx(int ndim, const int64_t *shape, const int64_t *starts, const int64_t *ends, int n,
                  const int64_t *axes, int n_axes, const int64_t *steps, int n_steps, lowered *p);
int lowering_webnn_slice(int ndim, const int64_t *shape, const uint64_t *starts, int n_starts, const uint64_t *sizes,
                         int n_sizes, const uint64_t *strides, int n_strides, lowered *p);
int lowering_webnn_reverse(int ndim, const int64_t *shape, const uint64_t *axes, int n_axes, lowered *p);
/* np.transpose(x, axes) (axes NULL: reversed; negatives from the back)
 * for an input of at most EXT_MAX_RANK axes: the whole transposed array. */
int lowering_transpose(int ndim, const int64_t *shape, const int64_t *axes, int n_axes, lowered *p);
/* An array's view as the window reads it: its axes permuted for a
 * transpose, unchanged otherwise. */
void lowered_view(const lowered *p, array_view *v);
/* True where the result has no element. */
int lowered_empty(const lowered *p);
/* The library's message for a NumPy key it refused, as NumPy's class. */
int lowering_numpy_failed(int st);

/* ---- dml.c */

enum { DML_SLICE = 0, DML_SLICE1 = 1, DML_SLICE_GRAD = 2 };

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
int dml_lower(int ndim, const int64_t *shape, const dml_params *d, lowered *p);

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
int dml_check(const dml_params *d, const dml_tensor_args *in, const dml_tensor_args *out, int *rank, int64_t *shape);

/* ---- keys.c */

/* A NumPy key (text, an index tuple or one item, boolean scalars included)
 * for an input of `shape`. Where the lowered slice keeps the key's text (p->expr:
 * more than EXT_MAX_RANK input axes), the caller frees it with PyMem_Free
 * once compiled. */
int keys_lower(int ndim, const int64_t *shape, PyObject *key, lowered *p);
/* A key string's UTF-8, refused where it holds a NUL. */
const char *keys_string(PyObject *key, Py_ssize_t *n);
/* The key as the library's text; PyMem_Free it. */
char *keys_text(PyObject *key);
#define KEY_BYTES_MAX 512
/* An index tuple (or one item) in binary, for the key cache: 1 with *len
 * set, or 0 for a key the text path must take (booleans among them). */
int keys_binary(PyObject *key, char *buf, size_t *len);
/* True where every part of the key is an exact int, None, ... or a slice
 * of those: the key cannot index differently while it lives. */
int keys_plain(PyObject *key);
/* True where the key holds a boolean scalar. */
int keys_have_bool(PyObject *key);

/* ---- layout.c */

/* A lowered slice made ready to run: the native operator for packed arrays of the
 * lowered slice's shapes, made once, and what a call needs to see that its arrays
 * are those packed arrays. */
typedef struct compiled {
    lowered p;
    int64_t itemsize;
    void *packed_op;                  /* dmls_operator for packed in and out, or NULL */
    char *expr;                       /* the lowered slice's expr, owned */
    int64_t in_strides[EXT_MAX_RANK]; /* the packed input's byte strides */
    uint64_t in_bytes, out_bytes;     /* the packed arrays' sizes */
} compiled;
int layout_compile(compiled *c, const lowered *p, int64_t itemsize);
/* The largest of 8, 4, 2, 1 that divides the item size and every stride of
 * either array (n axes, then m) that moves an address: the element size the
 * copy runs at. */
int64_t layout_copy_unit(int64_t itemsize, int n, const int64_t *shape, const int64_t *strides, int m,
                         const int64_t *shape2, const int64_t *strides2);
/* The unsigned dmls_dtype of a copy unit of 1, 2, 4 or 8 bytes. */
int layout_unit_dtype(int64_t unit);
void layout_compiled_free(compiled *c);
/* True where in is the packed input c's operator was made for; where out
 * (of the lowered slice's result shape) is C-contiguous, as that operator writes. */
int layout_is_packed_input(const compiled *c, const array_view *in);
int layout_is_packed_output(const compiled *c, const array_view *out);

/* The native operator for these two arrays (shapes p->in_shape and
 * p->final_shape), and the byte ranges it reads and writes. */
typedef struct bound_copy {
    void *op;  /* dmls_operator: c's packed one, or one made for these arrays */
    int owned; /* made here: layout_unbind destroys it */
    char *in_base, *out_base;
    uint64_t in_bytes, out_bytes; /* 0 out_bytes: nothing to copy */
} bound_copy;
/* c (may be NULL): a compiled slice whose packed operator serves packed arrays. */
int layout_bind(const lowered *p, const compiled *c, const array_view *in, const array_view *out, bound_copy *b);
void layout_unbind(bound_copy *b);

/* ---- run.c */

/* Copy in (shape p->in_shape) to out (shape p->final_shape), where they
 * live (devices.c). stream: cudaStream_t as an integer, for CUDA views. c may be
 * NULL (a lowered slice lowered for this call). 0, or -1 with an exception. */
int run_copy(const lowered *p, const compiled *c, const array_view *in, const array_view *out, uintptr_t stream,
             int sync);
const char *run_library_version(void);

/* ---- prepared.c */

enum { K_INDEX, K_SLICE, K_SLICE1, K_SLICE_GRAD, K_ONNX, K_WEBNN_SLICE, K_WEBNN_REVERSE, K_TRANSPOSE, K_COUNT };
extern const char *const kind_names[K_COUNT];

/* A compiled slice with its result shape as a tuple, shared by reference
 * count (under the GIL) between Operators, the key cache and calls in
 * flight. */
typedef struct prepared {
    Py_ssize_t refs;
    int kind;
    compiled c;
    PyObject *shape; /* the result's shape */
} prepared;
/* Compiles p (its expr copied): a prepared with one reference, or NULL. */
prepared *prepared_new(int kind, const lowered *p, int64_t itemsize);
void prepared_ref(prepared *pr);
void prepared_unref(prepared *pr);

/* ---- key_cache.c */

/* The prepared slice of NumPy key `key` for arrays like in (a reference the
 * caller unrefs), or NULL with an exception. */
prepared *key_cache_get(const array_view *in, PyObject *key);

/* ---- params.c */

/* An integer as NumPy's operator.index reads it (an int or __index__), a
 * bool or numpy.bool_ refused: 0, 1 when obj is no integer, 2 when it is
 * outside the 64-bit integers (no exception is left set). */
int params_index(PyObject *obj, int64_t *v);
/* seq as a tuple (a new reference), or NULL with the package's error of
 * `rule` naming `what`. */
PyObject *params_sequence(PyObject *seq, const char *what, const char *rule);
/* Item i of a params_sequence tuple into v: 0, or -1 with the error of
 * `rule` naming what[i], the value's type or why it cannot be taken. */
int params_item(PyObject *fast, Py_ssize_t i, const char *what, const char *rule, int is_unsigned, int64_t *v);
/* A sequence of at most `max` integers into out; errors carry `rule`. The
 * count, or -1. */
int params_int_list(PyObject *seq, const char *what, const char *rule, int64_t *out, int max, int is_unsigned);
/* The rule a DirectML list (field 0 offsets, 1 sizes, 2 strides) of
 * operator op is checked by: its errors' rule. */
const char *params_dml_rule(int op, int field);
/* feature_level= (None: the latest). 0 or -1. */
int params_feature_level(PyObject *obj, int *level);
/* The parameters a[0..na) of vocabulary `kind` lowered for an input of
 * `shape`; p->expr as keys_lower leaves it. 0 or -1. */
int params_lower(int kind, int ndim, const int64_t *shape, int64_t itemsize, int cls, PyObject *const *a, int na,
                 PyObject *level, lowered *p);

/* ---- results.c */

/* Takes numpy and dmlslice._kinds. 0 or -1. */
int results_init(PyObject *np, PyObject *kinds);
/* A new array of in's kind, dtype and device with the lowered slice's result shape
 * (shape: that shape as a tuple, or NULL), described in out. x is the
 * array in came from. A new reference, or NULL. */
PyObject *results_new(PyObject *x, const array_view *in, const lowered *p, PyObject *shape, PyObject *stream_arg,
                      array_view *out);
/* What the caller gets for input x written into target. */
PyObject *results_finish(PyObject *x, const array_view *in, PyObject *target);

/* ---- call.c */

/* One call of any entry point. */
typedef struct call {
    int kind;
    PyObject *x, *out, *level; /* out, level: NULL or None where not given */
    PyObject *const *params;
    int nparams;
    prepared *pr; /* an Operator's slice, or NULL */
} call;
PyObject *call_run(call *k);

/* ---- operator.c */

/* Makes the Operator type; NULL with an exception. */
PyObject *operator_type_new(void);
/* A new Operator for lowered slice p. */
PyObject *operator_new(int kind, const lowered *p, int64_t itemsize, PyObject *dtype);
/* An Operator's prepared slice (borrowed: the Operator holds it), or NULL
 * where obj is no Operator. */
prepared *operator_prepared(PyObject *obj);

#endif /* DMLSLICE_PY_EXT_H */
