/* The DxDispatch model reader (tools/dispatch/) on arbitrary bytes: it must
 * accept or refuse with a message, never crash or leak. Models that read
 * small and write no files also run, so the runner sees what the reader
 * lets through. Seeds: the shipped models under examples/dispatch/. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "execute.h"
#include "model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    model m;
    char err[MODEL_ERR_LEN];
    /* No base folder: file initializers are refused, so no input reads the
     * disk. */
    if (model_read(text, size, "fuzz", NULL, NULL, &m, err)) {
        uint64_t total = 0;
        bool writes = false;
        for (size_t i = 0; i < m.resource_count; i++) total += m.resources[i].size;
        for (size_t i = 0; i < m.command_count; i++) writes |= m.commands[i].kind == CMD_WRITE_FILE;
        if (total <= (1u << 20) && !writes) {
            FILE *sink = fopen("/dev/null", "w");
            if (sink) {
                const execute_options o = {DML_FEATURE_LEVEL_6_4, false, sink, "fuzz"};
                model_execute(&m, &o, err);
                fclose(sink);
            }
        }
        model_free(&m);
    } else if (err[0] == '\0') {
        abort(); /* a refusal always says why */
    }
    free(text);
    return 0;
}
