"""Long calls release the GIL: another Python thread keeps running while the C++ library
works. A call holding the GIL would let the counting thread run not once during it."""

from __future__ import annotations

import threading

from rapidllm import _core


def test_other_threads_run_during_a_call():
    count = 0
    stop = threading.Event()

    def counter() -> None:
        nonlocal count
        while not stop.is_set():
            count += 1

    t = threading.Thread(target=counter)
    t.start()
    try:
        before = count
        _core.validate("", "", "")  # about a second of C++ work, no Python inside
        during = count - before
    finally:
        stop.set()
        t.join()
    assert during > 1000
