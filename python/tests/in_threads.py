"""Runs one check in several threads at once; fails with whatever any of
them raised (an exception in a thread would otherwise only be printed)."""
import threading


def run_in_threads(work, n):
    errors = []

    def guarded():
        try:
            work()
        except Exception as e:  # reported on the main thread
            errors.append(e)

    threads = [threading.Thread(target=guarded) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
