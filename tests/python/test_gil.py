"""The GIL is released while the library solves: another Python thread
keeps running."""
import threading
import time

import numpy as np

import picard


def test_gil_released_during_solve():
    done = threading.Event()
    ticks = [0]

    def count():
        while not done.is_set():
            ticks[0] += 1

    worker = threading.Thread(target=count)
    worker.start()
    try:
        start = ticks[0]
        time.sleep(0.1)
        rate = (ticks[0] - start) / 0.1  # ticks per second with the GIL free
        x0 = np.tile([1.0, 0.0], (20000, 1))
        before = ticks[0]
        r = picard.solve("oscillator", x0, (0, 100), backend="cpu", rtol=1e-10, atol=1e-10,
                         save_at=[100.0])
        during = ticks[0] - before
    finally:
        done.set()
        worker.join()
    seconds = r.stats["solve_seconds"]
    assert r.success and seconds > 0.1, "the solve (%.3f s) was too short to tell" % seconds
    # Held, the counter would get one switch interval (5 ms) at most.
    assert during > 0.2 * rate * seconds, "%d ticks in a %.2f s solve at %.0f/s" % (
        during, seconds, rate)
