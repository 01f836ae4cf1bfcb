/* Data types: element sizes and names. Execution only ever sees sizes. */
#include "dmlslice/dmlslice.h"

size_t dmls_dtype_size(dmls_dtype dtype) {
    switch (dtype) {
    case DMLS_UINT8: case DMLS_INT8: return 1;
    case DMLS_FLOAT16: case DMLS_UINT16: case DMLS_INT16: return 2;
    case DMLS_FLOAT32: case DMLS_UINT32: case DMLS_INT32: return 4;
    case DMLS_FLOAT64: case DMLS_UINT64: case DMLS_INT64: return 8;
    }
    return 0;
}

const char *dmls_dtype_name(dmls_dtype dtype) {
    switch (dtype) {
    case DMLS_FLOAT32: return "float32";
    case DMLS_FLOAT16: return "float16";
    case DMLS_UINT32: return "uint32";
    case DMLS_UINT16: return "uint16";
    case DMLS_UINT8: return "uint8";
    case DMLS_INT32: return "int32";
    case DMLS_INT16: return "int16";
    case DMLS_INT8: return "int8";
    case DMLS_FLOAT64: return "float64";
    case DMLS_UINT64: return "uint64";
    case DMLS_INT64: return "int64";
    }
    return NULL;
}
