/* One operator, executed from many threads at once on distinct outputs,
 * gives every thread the reference's bytes; errors on one thread do not
 * show on another. */
#include "dmlslice/dmlslice.h"
#include "platform/platform.h"
#include "support/test.h"

enum { THREADS = 8, ROUNDS = 50 };

typedef struct job {
    const dmls_operator *op;
    const unsigned char *in;
    uint64_t in_bytes, out_bytes;
    const unsigned char *expected;
    int index, failures, bad_message;
} job;

static void worker(job *j) {
    unsigned char *out = malloc(j->out_bytes);
    for (int r = 0; r < ROUNDS; r++) {
        memset(out, j->index, j->out_bytes);
        if (dmls_execute(j->op, j->in, j->in_bytes, out, j->out_bytes) != DMLS_OK ||
            memcmp(out, j->expected, j->out_bytes) != 0)
            j->failures++;
        /* Odd threads also fail on purpose (R-X-BOUNDS); their message must stay theirs. */
        if (j->index % 2) {
            dmls_execute(j->op, j->in, 3, out, j->out_bytes);
            if (strstr(dmls_last_error(), "holds 3 bytes") == NULL) j->bad_message++;
        } else if (dmls_last_error()[0] != '\0') {
            j->bad_message++;
        }
    }
    free(out);
}

static DMLS_THREAD_MAIN(worker_main, arg) {
    worker(arg);
    DMLS_THREAD_RETURN;
}

int main(void) {
    test_seed_rng();
    int64_t in_shape[3] = {33, 65, 17}, out_shape[3] = {16, 60, 17};
    int64_t off[3] = {0, 2, 0}, size[3] = {32, 60, 17}, stride[3] = {-2, 1, -1};
    dmls_tensor in = {DMLS_INT16, 3, in_shape, NULL, 0}, out = {DMLS_INT16, 3, out_shape, NULL, 0};
    dmls_window w = {off, size, stride};
    dmls_operator *op = NULL;
    CHECK_STATUS(dmls_create(&in, &out, &w, &op), DMLS_OK);
    if (!op) TEST_MAIN_END();
    const uint64_t ib = dmls_input_bytes(op), ob = dmls_output_bytes(op);
    unsigned char *input = malloc(ib), *expected = malloc(ob);
    test_fill_random(input, ib);
    CHECK_STATUS(dmls_execute_reference(op, input, ib, expected, ob), DMLS_OK);
    dmls_thread t[THREADS];
    job jobs[THREADS];
    for (int i = 0; i < THREADS; i++) {
        jobs[i] = (job){op, input, ib, ob, expected, i, 0, 0};
        CHECK(dmls_thread_start(&t[i], worker_main, &jobs[i]) == 0, "thread %d did not start", i);
    }
    for (int i = 0; i < THREADS; i++) {
        dmls_thread_join(&t[i]);
        CHECK(jobs[i].failures == 0, "thread %d: %d wrong results", i, jobs[i].failures);
        CHECK(jobs[i].bad_message == 0, "thread %d: %d messages from another thread", i, jobs[i].bad_message);
    }
    dmls_destroy(op);
    free(input), free(expected);
    TEST_MAIN_END();
}
