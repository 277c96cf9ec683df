"""Time whole commands in fresh processes: the cold start, and a pile of photos.

``python -m scorer.bench --startup [PHOTO]`` runs, each in a new interpreter and
``--repeat`` times in turn, ``python -c pass`` (the interpreter), ``import cv2,
numpy`` (the baseline: what any program reading photos loads), a script that
times the imports, the model load, a first and a second photo, and the command
itself, ``python -m scorer PHOTO``; it prints the median of each, in seconds of the
clock and in CPU seconds (the processor time of the process and its threads, which
other work on a shared machine hardly changes). The target is a cold command that
costs at most the baseline plus 1.5 times a warm photo.

``python -m scorer.bench --batch N`` writes ``N`` generated table photos
(:func:`scorer.lab.synth.make_scene`) as JPEG files into a temporary folder and
times ``python -m scorer --json`` on all of them one after another (``--jobs 1``)
and as it runs by default (a pool of processes, one per core), checks that both
print the same, and prints both times and their ratio. It also prints the CPU
seconds each spent a photo and the least ratio the pool could reach with every core
busy all the time (its CPU seconds over the cores, against the serial run's clock):
a serial run that already keeps more than one core busy with OpenCV's and the
feature extraction's threads leaves a pool less to gain.

With ``--against DIR`` (another checkout, e.g. ``git archive 3e303ed | tar -x -C
DIR``), both also time that code, in the same run, the same way.

The processes run as an installed program does: with its bytecode cached (an
untimed run first writes it) and the files in the system's cache.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, Final, NamedTuple

SAMPLE: Final = Path(__file__).resolve().parents[2] / "sample_images" / "sample_board.jpg"
"""The photo the cold start is timed on by default."""

WARM_FACTOR: Final = 1.5
"""A cold command may cost the baseline import plus this many warm photos."""

BREAKDOWN: Final = """
import json, sys, time
c0, t0 = time.process_time(), time.perf_counter()
from scorer.photo.imageio import load_image
from scorer.pipeline import score_photo
from scorer.read.classify import default_model
c1, t1 = time.process_time(), time.perf_counter()
default_model()
c2, t2 = time.process_time(), time.perf_counter()
score_photo(load_image(sys.argv[1]))
c3, t3 = time.process_time(), time.perf_counter()
score_photo(load_image(sys.argv[1]))
c4, t4 = time.process_time(), time.perf_counter()
steps = {"imports": (t0, t1, c0, c1), "model": (t1, t2, c1, c2),
         "first": (t2, t3, c2, c3), "second": (t3, t4, c3, c4)}
out = {name: b - a for name, (a, b, _, _) in steps.items()}
out.update({f"{name} cpu": d - c for name, (_, _, c, d) in steps.items()})
print(json.dumps(out))
"""
"""Times, inside one process, what a photo needs; the same for any checkout of the program."""


def startup_main(argv: Sequence[str]) -> int:
    """``--startup``: the cold-start breakdown of one photo."""
    p = argparse.ArgumentParser(prog="python -m scorer.bench --startup", description=__doc__)
    p.add_argument("photo", nargs="?", default=str(SAMPLE), help="photo (default: the sample)")
    p.add_argument("--repeat", type=int, default=5, help="fresh processes per step")
    p.add_argument("--against", metavar="DIR", help="also time another checkout")
    args = p.parse_args(argv)
    photo = str(Path(args.photo).resolve())
    sides = {"": None} if not args.against else {"": None, "against": Path(args.against)}
    figures = {name: startup(photo, args.repeat, root) for name, root in sides.items()}
    print(f"cold start on {Path(photo).name}: median of {args.repeat} fresh processes each")
    print_startup(figures[""])
    if args.against:
        print(f"the same for {args.against}:")
        print_startup(figures["against"])
    return 0


def startup(photo: str, repeat: int, root: Path | None = None) -> dict[str, float]:
    """Median seconds of each step of a cold start (see the module's description)."""
    runs: dict[str, list[float]] = {}
    commands = {
        "interpreter": ["-c", "pass"],
        "baseline": ["-c", "import cv2, numpy"],
        "command": ["-m", "scorer", photo],
    }
    for k in range(repeat + 1):  # the first round writes the bytecode and is not counted
        for name, command in commands.items():
            seconds, cpu, _ = timed(command, root)
            if k:
                runs.setdefault(name, []).append(seconds)
                runs.setdefault(f"{name} cpu", []).append(cpu)
        _, _, out = timed(["-c", BREAKDOWN, photo], root)
        if k:
            for name, seconds in json.loads(out.splitlines()[-1]).items():
                runs.setdefault(name, []).append(seconds)
    return {name: statistics.median(seconds) for name, seconds in runs.items()}


def print_startup(f: dict[str, float]) -> None:
    """Print one cold start's steps, in seconds and CPU seconds, and how the command
    compares with the target, by the clock and by CPU time."""
    rows = [
        ("interpreter", "python -c pass"),
        ("baseline", "python -c 'import cv2, numpy'"),
        ("imports", "scorer.photo.imageio, scorer.pipeline, scorer.read.classify"),
        ("model", "default_model()"),
        ("first", "first photo: load_image + score_photo"),
        ("second", "second photo, the same again: the warm time"),
        ("command", "python -m scorer PHOTO, from start to exit"),
    ]
    print(f"  {'step':<12} {'clock':>6}   {'CPU':>6}")
    for name, what in rows:
        cpu = f.get(f"{name} cpu")
        cpu_text = "      " if cpu is None else f"{cpu:6.2f}"
        print(f"  {name:<12} {f[name]:6.2f} s {cpu_text} s   {what}")
    for label, suffix in (("clock", ""), ("CPU", " cpu")):
        keys = [f"{name}{suffix}" for name in ("command", "baseline", "second")]
        if not all(key in f for key in keys):
            continue
        command, baseline, warm = (f[key] for key in keys)
        allowed = baseline + WARM_FACTOR * warm
        factor = (command - baseline) / warm
        verdict = "meets" if command <= allowed else "misses"
        print(
            f"  the command by the {label}: {command / baseline:.1f} × the baseline; "
            f"baseline + {factor:.2f} × a warm photo "
            f"({verdict} the target {WARM_FACTOR} ×: {allowed:.2f} s)"
        )


def batch_main(count: int, argv: Sequence[str]) -> int:
    """``--batch N``: one process against a pool on ``N`` generated photos."""
    p = argparse.ArgumentParser(prog="python -m scorer.bench --batch N", description=__doc__)
    p.add_argument("--jobs", type=int, help="processes of the pool (default: the command's)")
    p.add_argument("--long-side", type=int, default=0, help="resize the photos to it (pixels)")
    p.add_argument("--data", help="labelled data folder (else generated boards)")
    p.add_argument("--seed", type=int, default=300_000, help="first scene seed")
    p.add_argument("--against", metavar="DIR", help="also time another checkout, one by one")
    p.add_argument("--keep", metavar="DIR", help="write the photos here and keep them")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.keep or tmp).resolve()
        folder.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        files = write_scenes(folder, count, args.seed, args.long_side, args.data)
        made = time.perf_counter() - started
        figures = batch(files, args.jobs, Path(args.against) if args.against else None)
    print(f"{count} generated photos ({figures['pixels']}), written in {made:.0f} s to {folder}:")
    serial, parallel = figures["serial"], figures["parallel"]
    serial_cpu, parallel_cpu = figures["serial cpu"], figures["parallel cpu"]
    print(
        f"  one by one (--jobs 1)      {serial:7.1f} s   {serial / count:.2f} s a photo; "
        f"CPU {serial_cpu / count:.2f} s a photo, {serial_cpu / serial:.2f} cores busy"
    )
    print(
        f"  pool of {figures['workers']} processes        {parallel:7.1f} s   "
        f"{parallel / count:.2f} s a photo; CPU {parallel_cpu / count:.2f} s a photo, "
        f"{parallel_cpu / parallel:.2f} cores busy"
    )
    print(f"  pool / one by one          {parallel / serial:7.2f}")
    print(f"  pool CPU / one by one CPU  {parallel_cpu / serial_cpu:7.2f}")
    print(
        f"  least reachable on {figures['cores']} cores {figures['bound']:7.2f}   "
        "(the pool's CPU seconds over the cores, against one by one; "
        "on an otherwise idle machine)"
    )
    print(f"  the same output            {'yes' if figures['same'] else 'NO'}")
    if "against" in figures:
        print(f"  {args.against}, one by one {figures['against']:7.1f} s")
        print(f"  pool / that                {parallel / figures['against']:7.2f}")
    return 0 if figures["same"] else 1


def write_scenes(
    folder: Path, count: int, seed: int, long_side: int = 0, data: str | None = None
) -> list[str]:
    """Write ``count`` generated photos as JPEG files; return their paths, in order."""
    jobs = [(folder / f"scene-{k:04d}.jpg", seed + k, long_side, data) for k in range(count)]
    # New interpreters, as scorer.batch starts them: a forked worker can inherit a lock
    # another thread held at the fork (one such worker hung for 20 minutes).
    with ProcessPoolExecutor(mp_context=multiprocessing.get_context("spawn")) as pool:
        return list(pool.map(_write_scene, jobs, chunksize=4))


_BOARDS: dict[str | None, Any] = {}


def _write_scene(job: tuple[Path, int, int, str | None]) -> str:
    import cv2

    from scorer.lab import datasets
    from scorer.lab.synth import demo_board, make_scene

    path, seed, long_side, data = job
    if data not in _BOARDS:
        try:
            _BOARDS[data] = datasets.load_aau_boards(datasets.data_dir(data))
        except FileNotFoundError:
            _BOARDS[data] = [demo_board(k) for k in range(8)]
    image = make_scene(seed, _BOARDS[data]).image
    if long_side:
        scale = long_side / max(image.shape[:2])
        image = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
    cv2.imwrite(str(path), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    return str(path)


def batch(files: Sequence[str], jobs: int | None, against: Path | None = None) -> dict[str, Any]:
    """Seconds of the command on ``files`` one by one and in its pool, and whether both
    printed the same."""
    from scorer.batch import cores, worker_count

    parallel_args = [] if jobs is None else ["--jobs", str(jobs)]
    serial, serial_cpu, one_by_one = timed(["-m", "scorer", "--json", "--jobs", "1", *files])
    parallel, parallel_cpu, pooled = timed(["-m", "scorer", "--json", *parallel_args, *files])
    available = cores()
    figures: dict[str, Any] = {
        "serial": serial,
        "parallel": parallel,
        "serial cpu": serial_cpu,
        "parallel cpu": parallel_cpu,
        "cores": available,
        "bound": least_ratio(parallel_cpu, serial, available),
        "same": one_by_one == pooled,
        "workers": worker_count(jobs, len(files)) if jobs else available,
        "pixels": _sizes(files),
    }
    if against is not None:
        figures["against"] = timed(["-m", "scorer", "--json", *files], against)[0]
    return figures


def least_ratio(pool_cpu: float, serial_seconds: float, cores: int) -> float:
    """The least time a pool could take over a serial run: its CPU seconds spread over
    every core without a moment idle, against the serial run's clock.

    >>> least_ratio(pool_cpu=140.0, serial_seconds=100.0, cores=2)
    0.7
    """
    return pool_cpu / cores / serial_seconds


class Run(NamedTuple):
    """One fresh process: its clock seconds, its CPU seconds and what it printed."""

    seconds: float
    cpu: float
    out: str


def timed(arguments: Sequence[str], root: Path | None = None) -> Run:
    """Seconds a fresh ``python ARGUMENTS`` takes, by the clock and in CPU (user and
    system, its threads and the processes it waited for included), and what it printed;
    run from ``root`` (another checkout) when given. A crash or a usage error raises
    ``RuntimeError``."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as installed: the bytecode is cached
    if root is not None:
        env["PYTHONPATH"] = str(root)
    before = _children_cpu()
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, *arguments],
        capture_output=True,
        text=True,
        env=env,
        cwd=root,
        check=False,
    )
    seconds = time.perf_counter() - started
    cpu = _children_cpu() - before
    if done.returncode not in (0, 1):
        raise RuntimeError(f"python {' '.join(arguments[:3])}… failed:\n{done.stderr[-2000:]}")
    return Run(seconds, cpu, done.stdout)


def _children_cpu() -> float:
    """CPU seconds of every child process this one has waited for, so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _sizes(files: Sequence[str]) -> str:
    from PIL import Image

    sides = []
    for path in files:
        with Image.open(path) as image:
            sides.append(max(image.size))
    return f"long side {min(sides)}–{max(sides)} px"
