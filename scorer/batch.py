"""Score the inputs of one command line: a pile of photos on every core, in order.

:func:`score_inputs` scores each input with the function it is given. From
:data:`PARALLEL_MIN` photos on, it hands them to a pool of processes, one per core
(or ``jobs``): the results come back in the order of the inputs and are the same
as one after another, because each input is scored on its own. The workers are
new interpreters (``spawn``), not forks: OpenCV keeps a pool of threads that a
forked child inherits half-made (a forked worker hung in ``cv2.setNumThreads``).
Each worker turns OpenCV's own threads and the square features' threads off, as
every core has a worker, and imports what a photo needs and loads the model before
its first photo. A progress bar goes to stderr when it is a terminal and there are
several photos.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import Any, Final, TypeVar

PARALLEL_MIN: Final = 20
"""Photos in one call from which they are scored by a pool of processes, one per core."""

TEXT_SUFFIX: Final = ".txt"
"""Inputs that are text grids, scored in no time: they do not count as photos."""

Result = TypeVar("Result")


def score_inputs(
    paths: Sequence[str], score: Callable[[str], Result], jobs: int | None = None
) -> list[Result]:
    """``score`` of every path, in order, on several cores when there are many photos.

    Parameters
    ----------
    paths : sequence of str
        The inputs.
    score : callable
        Scores one input; it must be picklable (a module-level function, or a
        ``functools.partial`` of one) and must not raise for a bad input.
    jobs : int, optional
        Processes to use; by default one per core from :data:`PARALLEL_MIN` photos
        on, else 1 (no pool).

    Returns
    -------
    list
        One result per path, in the order of ``paths``.
    """
    photos = sum(not p.lower().endswith(TEXT_SUFFIX) for p in paths)
    workers = worker_count(jobs, photos)
    with _progress(len(paths), show=photos > 1 and _is_terminal(sys.stderr)) as advance:
        if workers <= 1:
            results = []
            for path in paths:
                results.append(score(path))
                advance()
            return results
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(workers, mp_context=context, initializer=_start_worker) as pool:
            results = []
            for result in pool.map(score, paths):
                results.append(result)
                advance()
            return results


def worker_count(jobs: int | None, photos: int) -> int:
    """Processes for ``photos`` photos: ``jobs`` if given (at most one per photo), else one
    per core from :data:`PARALLEL_MIN` photos on, else 1.

    >>> worker_count(None, 3), worker_count(4, 2), worker_count(0, 50)
    (1, 2, 1)
    """
    if jobs is not None:
        return max(1, min(jobs, photos))
    return cores() if photos >= PARALLEL_MIN else 1


def cores() -> int:
    """Cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on every platform
        return os.cpu_count() or 1


def _start_worker() -> None:
    """In a new worker: OpenCV's and the features' threads off, what a photo needs, the model.

    A model that does not load is left for each photo to report, as one after another.
    """
    import cv2

    from scorer.rules.errors import ScorerError

    cv2.setNumThreads(1)
    importlib.import_module("scorer.photo.imageio")
    importlib.import_module("scorer.pipeline")
    cells: Any = importlib.import_module("scorer.read.cells")
    cells.limit_threads(1)
    classify: Any = importlib.import_module("scorer.read.classify")
    with suppress(ScorerError):
        classify.default_model()


def _is_terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


@contextmanager
def _progress(total: int, show: bool) -> Iterator[Callable[[], None]]:
    """A function to call after each input: it moves a bar on stderr when ``show``."""
    if not show:
        yield lambda: None
        return
    from tqdm import tqdm  # type: ignore[import-untyped]

    with tqdm(total=total, unit="photo", file=sys.stderr, leave=False) as bar:
        yield lambda: bar.update()
