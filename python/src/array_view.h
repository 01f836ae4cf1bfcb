/* array_view.h: an array taken in without copying: its fields, where it came from. */
#ifndef DMLSLICE_PY_ARRAY_VIEW_H
#define DMLSLICE_PY_ARRAY_VIEW_H

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

#endif /* DMLSLICE_PY_ARRAY_VIEW_H */
