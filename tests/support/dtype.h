/* A data type for each element size the tests draw: slicing moves bits, so
 * only the size matters, and one type per size keeps cases comparable. */
#ifndef DMLS_SUPPORT_DTYPE_H
#define DMLS_SUPPORT_DTYPE_H

#include "dmlslice/dmlslice.h"

/* 1 -> UINT8, 2 -> FLOAT16, 4 -> FLOAT32, 8 -> FLOAT64; 0 for other sizes. */
static inline dmls_dtype test_dtype_of_size(int esize) {
    switch (esize) {
    case 1: return DMLS_UINT8;
    case 2: return DMLS_FLOAT16;
    case 4: return DMLS_FLOAT32;
    case 8: return DMLS_FLOAT64;
    }
    return (dmls_dtype)0;
}

#endif
