"""Running a test's work on several threads at once."""
import threading


def on_threads(n, work):
    """Calls work(i) for i in range(n), each on its own thread, all at once,
    and fails on the caller's thread with what any of them raised: an
    exception on another thread would only be printed, never fail the test."""
    errors = []

    def run(i):
        try:
            work(i)
        except Exception as e:  # reported on the main thread
            errors.append(e)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
