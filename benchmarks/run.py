"""The benchmark of issue 6: symattn's certified evaluation against naive SymPy, python-flint
written directly (the floor) and NumPy; the command line's cold start; NumPy against
PyTorch on a paper-sized layer. One run measures everything and prints ratios.

    python benchmarks/run.py                 # the default run (a few minutes)
    python benchmarks/run.py --quick         # T = d in {2, 4, 8, 16}, 50 digits, no paper layer
    python benchmarks/run.py --json > bench.json
    python benchmarks/run.py --sizes 16,64 --digits 50 --only head,cli
    python benchmarks/run.py --real-size     # issues 16, 25: reading inputs, Transformer-base
                                             # layer, LLaMA-style block, heads to T = 4096
    python benchmarks/run.py --real-size --quick   # the same without the heads, one layer run

Times are medians over repeated runs (at least ``--repeat`` runs and ``--min-time``
seconds per figure; naive SymPy runs once past a second). ``--clock cpu`` times the
in-process figures by the process's CPU time instead of the wall clock, which is steadier
on a machine that other work shares; the command-line and NumPy/PyTorch figures are wall
times either way. Progress goes to stderr on a terminal only. See docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import resource
import signal
import statistics
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
if (ROOT / "symattn").is_dir():
    sys.path.insert(0, str(ROOT))

import cases as C  # noqa: E402
import real_size  # noqa: E402

TARGETS = {
    "head64_50_vs_floor": 2.0,
    "head64_1000_vs_floor": 2.0,
    "head16_50_vs_sympy": 200.0,
    "layer64_50_seconds": 1.0,
    "layer64_50_vs_floor": 3.0,
    "check_vs_import_sympy": 4.0,
    "help_vs_python_pass": 3.0,
    "paper_numpy_vs_torch": 1.5,
}


class OverBudget(BaseException):
    """Raised by the alarm inside naive SymPy (BaseException: SymPy catches Exception)."""


class Progress:
    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.width = 0

    def __call__(self, text: str):
        if self.enabled:
            text = text[:100]
            sys.stderr.write("\r" + text.ljust(self.width))
            sys.stderr.flush()
            self.width = len(text)

    def done(self):
        if self.enabled and self.width:
            sys.stderr.write("\r" + " " * self.width + "\r")
            sys.stderr.flush()


# -- timing --------------------------------------------------------------------------------

def clock_fn(kind: str):
    return time.process_time if kind == "cpu" else time.perf_counter


def measure(fn, clock, repeat: int, min_time: float, max_runs: int = 200, slow: float = 1.0):
    """Median seconds of ``fn()`` over repeated runs, and the runs' count."""
    times = []
    total = 0.0
    while True:
        gc.collect()
        t0 = clock()
        fn()
        t = clock() - t0
        times.append(t)
        total += t
        n = len(times)
        if t > slow and n >= max(1, min(repeat, 3)):
            break
        if n >= repeat and total >= min_time:
            break
        if n >= max_runs:
            break
    return statistics.median(times), len(times)


def budgeted(fn, budget: float, clock):
    """Seconds of one run of ``fn()``, or None when it passed ``budget`` seconds (wall)."""
    def on_alarm(signum, frame):
        raise OverBudget()
    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, budget)
    try:
        t0 = clock()
        fn()
        return clock() - t0
    except OverBudget:
        return None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def peak_mib(fn) -> float | None:
    """Peak resident memory of one run of ``fn()`` above the process's resident memory
    before it, in MiB (measured in a forked child; None where fork is missing)."""
    if not hasattr(os, "fork"):
        return None
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:                                           # the child
        os.close(r)
        try:
            with open("/proc/self/statm") as f:
                base = int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1024
            fn()
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            os.write(w, f"{(peak - base) / 1024:.3f}".encode())
        except BaseException:
            os.write(w, b"nan")
        finally:
            os._exit(0)
    os.close(w)
    with os.fdopen(r) as f:
        text = f.read()
    os.waitpid(pid, 0)
    try:
        v = float(text)
        return None if v != v else max(v, 0.0)
    except ValueError:
        return None


def sympy_fresh(fn):
    """Run naive SymPy with an empty cache, as a first run would."""
    def run():
        from sympy.core.cache import clear_cache
        clear_cache()
        fn()
    return run


# -- the cases -----------------------------------------------------------------------------

def bench_case(kind: str, T: int, digits: int, args, prog: Progress, sympy_over: dict) -> dict:
    clock = clock_fn(args.clock)
    inp = C.head_inputs(T) if kind == "head" else C.layer_inputs(T)
    sym_f = getattr(C, f"symattn_{kind}")
    flint_f = getattr(C, f"flint_{kind}")
    label = f"{kind} T=d={T} {digits} digits"
    row = {"case": kind, "T": T, "d": T, "digits": digits}

    prog(f"{label}: symattn")
    sym_f(inp, digits)                                     # warm: imports, caches of flint
    row["symattn_s"], row["symattn_runs"] = measure(lambda: sym_f(inp, digits), clock,
                                                    args.repeat, args.min_time)
    prog(f"{label}: flint floor")
    flint_f(inp, digits)
    row["flint_s"], row["flint_runs"] = measure(lambda: flint_f(inp, digits), clock,
                                                args.repeat, args.min_time)
    row["vs_flint"] = row["symattn_s"] / row["flint_s"]

    if "sympy" not in args.skip:
        key = (kind, digits)
        if key in sympy_over:                              # a smaller T already overran
            row["sympy_s"] = None
        else:
            prog(f"{label}: naive SymPy (budget {args.budget:g} s)")
            f = sympy_fresh(lambda: getattr(C, f"sympy_{kind}")(inp, digits))
            t = budgeted(f, args.budget, clock)
            if t is not None and t < 1.0:
                t, _ = measure(f, clock, 3, 0.0, max_runs=3)
            if t is None:
                sympy_over[key] = T
            row["sympy_s"] = t
        row["sympy_budget_s"] = args.budget
        row["speedup_vs_sympy"] = (row["sympy_s"] / row["symattn_s"]) if row["sympy_s"] else None

    if "numpy" not in args.skip:
        prog(f"{label}: NumPy float64")
        arr = C.numpy_arrays(inp)
        np_f = getattr(C, f"numpy_{kind}")
        # wall clock: OpenBLAS threads that spin would count as CPU time
        row["numpy_s"], row["numpy_runs"] = measure(lambda: np_f(arr), time.perf_counter,
                                                    args.repeat, min(args.min_time, 0.2))
        row["vs_numpy"] = row["symattn_s"] / row["numpy_s"]

    if "memory" not in args.skip:
        prog(f"{label}: peak memory")
        row["symattn_peak_mib"] = peak_mib(lambda: sym_f(inp, digits))
        row["flint_peak_mib"] = peak_mib(lambda: flint_f(inp, digits))
    return row


# -- the command line ------------------------------------------------------------------------

def symattn_command() -> list[str]:
    script = Path(sysconfig.get_path("scripts")) / "symattn"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "symattn"]


def command_env() -> dict:
    """The environment of the timed commands: this tree's symattn first on the path (an
    editable install may point at another checkout), the same for every command."""
    env = dict(os.environ)
    if (ROOT / "symattn").is_dir():
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in
                                            env.get("PYTHONPATH", "").split(os.pathsep) if p])
    return env


def run_command(cmd: list[str]) -> tuple[float, float, float, int]:
    """Wall seconds, CPU seconds (user + sys), peak RSS (MiB) and exit status of one run."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         stdin=subprocess.DEVNULL, cwd=str(ROOT), env=command_env())
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024, p.returncode


def command_peak_mib(cmd: list[str]) -> float | None:
    """Peak resident memory of one run, by GNU time (a child forked from this process
    would report this process's own peak: Linux carries it across exec)."""
    gnu_time = Path("/usr/bin/time")
    if not gnu_time.exists():
        return None
    p = subprocess.run([str(gnu_time), "-f", "%M"] + cmd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
                       cwd=str(ROOT), env=command_env())
    try:
        return int(p.stderr.strip().splitlines()[-1]) / 1024
    except (ValueError, IndexError):
        return None


def bench_command(cmd: list[str], runs: int, clock: str) -> dict:
    run_command(cmd)                                       # warm the file cache and .pyc
    walls, cpus, codes = [], [], set()
    for _ in range(runs):
        w, c, _, code = run_command(cmd)
        walls.append(w)
        cpus.append(c)
        codes.add(code)
    return {"command": " ".join(Path(cmd[0]).name if i == 0 else a for i, a in enumerate(cmd)),
            "wall_s": statistics.median(walls), "cpu_s": statistics.median(cpus),
            "seconds": statistics.median(cpus if clock == "cpu" else walls),
            "peak_mib": command_peak_mib(cmd), "exit": sorted(codes), "runs": runs}


def bench_cli(args, prog: Progress) -> dict:
    py = sys.executable
    sym = symattn_command()
    out = {}
    prog("cli: python -c pass")
    out["python_pass"] = bench_command([py, "-c", "pass"], args.cli_runs, args.clock)
    prog("cli: symattn --help")
    out["help"] = bench_command(sym + ["--help"], args.cli_runs, args.clock)
    prog("cli: python -c 'import sympy'")
    out["import_sympy"] = bench_command([py, "-c", "import sympy"], args.cli_runs, args.clock)
    prog("cli: symattn check (the bundled corpus)")
    out["check"] = bench_command(sym + ["check"], max(3, args.cli_runs // 2), args.clock)
    out["help_vs_python_pass"] = out["help"]["seconds"] / out["python_pass"]["seconds"]
    out["check_vs_import_sympy"] = out["check"]["seconds"] / out["import_sympy"]["seconds"]
    return out


# -- the paper-sized layer: NumPy against PyTorch --------------------------------------------

def paper_child(args) -> dict:
    """Runs in a child process (OpenBLAS variables unset there); prints JSON."""
    import numpy as np
    import symattn.ops.primitives
    from symattn.evaluation.evaluator import Evaluator
    d, h, d_ff, T = args.paper_shape
    # W1 of a paper-sized layer has more entries than symattn takes by default
    symattn.ops.primitives.MAX_ENTRIES = max(symattn.ops.primitives.MAX_ENTRIES, d * d_ff + 1)
    out = {"d_model": d, "h": h, "d_ff": d_ff, "T": T}
    t0 = time.perf_counter()
    inp = C.layer_inputs(T, d=d, h=h, d_ff=d_ff)
    out["inputs_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    graph = C.symattn_layer_graph(inp)
    out["graph_s"] = time.perf_counter() - t0
    arr = C.numpy_arrays(inp)

    t0 = time.perf_counter()
    f = Evaluator().float(graph)                            # first run: constants converted
    out["symattn_numpy_first_s"] = time.perf_counter() - t0
    out["symattn_numpy_s"], _ = measure(lambda: Evaluator().float(graph), time.perf_counter,
                                        args.repeat, args.min_time)
    out["plain_numpy_s"], _ = measure(lambda: C.numpy_layer(arr), time.perf_counter,
                                      args.repeat, args.min_time)
    out["numpy_vs_plain_numpy"] = out["symattn_numpy_s"] / out["plain_numpy_s"]
    try:
        import torch
        if os.environ.get("OMP_NUM_THREADS") == "1":
            torch.set_num_threads(1)
        fwd = C.torch_layer(arr)
        fwd()
        out["torch_version"] = torch.__version__
        out["torch_threads"] = torch.get_num_threads()
        out["torch_s"], _ = measure(fwd, time.perf_counter, args.repeat, args.min_time)
        out["numpy_vs_torch"] = out["symattn_numpy_s"] / out["torch_s"]
        tf = fwd().numpy()
    except ImportError:
        out["torch_version"] = None
        tf = None
    try:
        from threadpoolctl import threadpool_info
        out["blas"] = [{k: i.get(k) for k in ("internal_api", "version", "architecture",
                                               "num_threads")} for i in threadpool_info()]
    except ImportError:
        out["blas"] = None

    if args.paper_no_error:
        return out
    # errors against certified values (balls at --paper-digits digits)
    prec = int(args.paper_digits * 3.33) + 40
    t0 = time.perf_counter()
    ev = Evaluator()
    ref = ev.ball(graph, prec)
    out["certified_s"] = time.perf_counter() - t0
    out["certified_digits"] = args.paper_digits
    out["numpy_error"] = _errors(ref, f, prec)
    if tf is not None:
        out["torch_error"] = _errors(ref, tf, prec)
        out["numpy_vs_torch_max_abs_diff"] = float(np.abs(f - tf).max())
    return out


def _errors(ref, values, prec: int) -> dict:
    """Upper bounds of the largest absolute and relative error of ``values`` (a float
    array) against the balls ``ref`` (which contain the exact values)."""
    import flint
    from flint import arb
    old = flint.ctx.prec
    flint.ctx.prec = prec
    try:
        worst_abs = worst_rel = arb(0)
        for i, row in enumerate(ref):
            for j, x in enumerate(row):
                err = abs(arb(float(values[i, j])) - x)
                worst_abs = worst_abs.max(err)
                if not x.contains(0):
                    worst_rel = worst_rel.max(err / abs(x))
        return {"max_abs": float(worst_abs.upper()), "max_rel": float(worst_rel.upper())}
    finally:
        flint.ctx.prec = old


def _paper_run(args, one_thread: bool) -> dict:
    env = dict(os.environ)
    unset = [k for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE") if k in env]
    for k in unset:
        env.pop(k)
    if one_thread:
        env["OPENBLAS_NUM_THREADS"] = env["OMP_NUM_THREADS"] = env["MKL_NUM_THREADS"] = "1"
    cmd = [sys.executable, str(Path(__file__).resolve()), "--_paper-child",
           "--paper-shape", ",".join(map(str, args.paper_shape)),
           "--paper-digits", str(args.paper_digits), "--repeat", str(args.repeat),
           "--min-time", str(args.min_time)] + (["--paper-no-error"] if one_thread else [])
    if (ROOT / "symattn").is_dir():
        env["PYTHONPATH"] = command_env()["PYTHONPATH"]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=str(ROOT))
    if p.returncode != 0:
        return {"error": p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "failed"}
    out = json.loads(p.stdout)
    out["openblas_variables_unset"] = unset
    return out


def bench_paper(args, prog: Progress) -> dict:
    prog("paper-sized layer: NumPy, PyTorch, certified error (tens of seconds)")
    out = _paper_run(args, one_thread=False)
    if "error" not in out:
        prog("paper-sized layer: the same on one thread")
        one = _paper_run(args, one_thread=True)
        out["one_thread"] = {k: one.get(k) for k in ("symattn_numpy_s", "plain_numpy_s",
                                                     "torch_s", "numpy_vs_torch")}
    return out


# -- report ----------------------------------------------------------------------------------

def fmt_t(s) -> str:
    if s is None:
        return "-"
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.1f} ms"
    return f"{s * 1e6:.0f} µs"


def fmt_x(r, digits=1) -> str:
    if r is None:
        return "-"
    return f"{r:.{digits}f}×" if r < 100 else f"{r:.0f}×"


def targets(res: dict) -> list[dict]:
    out = []

    def add(name, what, value, limit, le=True):
        met = None if value is None else (value <= limit if le else value >= limit)
        out.append({"name": name, "what": what, "value": value, "limit": limit,
                    "at_most" if le else "at_least": limit, "met": met})

    def row(kind, T, digits):
        return next((r for r in res.get(kind, []) if r["T"] == T and r["digits"] == digits), None)

    r = row("head", 64, 50)
    add("head64_50_vs_floor", "one head T=d=64, 50 digits: symattn / flint floor",
        r and r["vs_flint"], TARGETS["head64_50_vs_floor"])
    r = row("head", 64, 1000)
    add("head64_1000_vs_floor", "one head T=d=64, 1000 digits: symattn / flint floor",
        r and r["vs_flint"], TARGETS["head64_1000_vs_floor"])
    r = row("head", 16, 50)
    sp = r.get("speedup_vs_sympy") if r else None
    if r and r.get("sympy_s", 0) is None:                  # over budget: a lower bound
        sp = r["sympy_budget_s"] / r["symattn_s"]
    add("head16_50_vs_sympy", "one head T=d=16, 50 digits: naive SymPy / symattn",
        sp, TARGETS["head16_50_vs_sympy"], le=False)
    r = row("layer", 64, 50)
    add("layer64_50_seconds", "encoder layer T=d=64, 50 digits: seconds",
        r and r["symattn_s"], TARGETS["layer64_50_seconds"])
    add("layer64_50_vs_floor", "encoder layer T=d=64, 50 digits: symattn / flint floor",
        r and r["vs_flint"], TARGETS["layer64_50_vs_floor"])
    cli = res.get("cli") or {}
    add("check_vs_import_sympy", "symattn check (corpus, cold) / python -c 'import sympy'",
        cli.get("check_vs_import_sympy"), TARGETS["check_vs_import_sympy"])
    add("help_vs_python_pass", "symattn --help / python -c pass",
        cli.get("help_vs_python_pass"), TARGETS["help_vs_python_pass"])
    paper = res.get("paper") or {}
    add("paper_numpy_vs_torch", "paper-sized layer: symattn NumPy path / PyTorch float64",
        paper.get("numpy_vs_torch"), TARGETS["paper_numpy_vs_torch"])
    return out


def print_report(res: dict, out=sys.stdout):
    w = out.write
    s = res["settings"]
    w(f"symattn benchmark ({res['machine']['python']}, {res['machine']['cpus']} CPUs, "
      f"python-flint {res['machine']['flint']}, {s['clock']} clock, medians)\n")
    titles = {"head": "One head softmax(Q·Kᵀ/√d + M)·V, causal mask, T = d",
              "layer": "One post-norm encoder layer, h = 2, FFN d → 4d → d, T = d"}
    for kind in ("head", "layer"):
        rows = res.get(kind)
        if not rows:
            continue
        w(f"\n{titles[kind]}\n")
        w(f"{'T':>3} {'digits':>6} | {'symattn':>9} {'flint floor':>11} {'ratio':>6} | "
          f"{'naive SymPy':>11} {'speed-up':>9} | {'NumPy f64':>9} | {'peak MiB':>8} {'floor':>6}\n")
        for r in rows:
            if "sympy_s" in r:
                sp = fmt_t(r["sympy_s"]) if r["sympy_s"] is not None else f">{r['sympy_budget_s']:g} s"
                su = fmt_x(r["speedup_vs_sympy"], 0) if r["speedup_vs_sympy"] else (
                    f">{r['sympy_budget_s'] / r['symattn_s']:.0f}×")
            else:
                sp = su = "-"
            pm = r.get("symattn_peak_mib")
            fm = r.get("flint_peak_mib")
            w(f"{r['T']:>3} {r['digits']:>6} | {fmt_t(r['symattn_s']):>9} {fmt_t(r['flint_s']):>11} "
              f"{fmt_x(r['vs_flint'], 2):>6} | {sp:>11} {su:>9} | {fmt_t(r.get('numpy_s')):>9} | "
              f"{'-' if pm is None else f'{pm:.1f}':>8} {'-' if fm is None else f'{fm:.1f}':>6}\n")
    cli = res.get("cli")
    if cli:
        w("\nCommand line (cold start, fresh process each run)\n")
        for key in ("python_pass", "help", "import_sympy", "check"):
            c = cli[key]
            pk = "-" if c["peak_mib"] is None else f"{c['peak_mib']:.0f}"
            w(f"  {c['command']:<32} {fmt_t(c['seconds']):>9}   (wall {fmt_t(c['wall_s'])}, "
              f"cpu {fmt_t(c['cpu_s'])}, peak {pk} MiB, exit {c['exit']})\n")
        w(f"  --help / python -c pass: {fmt_x(cli['help_vs_python_pass'], 2)};   "
          f"check / import sympy: {fmt_x(cli['check_vs_import_sympy'], 2)}\n")
    p = res.get("paper")
    if p:
        w("\nPaper-sized encoder layer, float64 (wall clock)\n")
        if "error" in p:
            w(f"  failed: {p['error']}\n")
        else:
            w(f"  d_model {p['d_model']}, h {p['h']}, d_ff {p['d_ff']}, T {p['T']}\n")
            w(f"  symattn NumPy path {fmt_t(p['symattn_numpy_s'])} (first run with constant "
              f"conversion {fmt_t(p['symattn_numpy_first_s'])}); plain NumPy "
              f"{fmt_t(p['plain_numpy_s'])}\n")
            if p.get("torch_version"):
                w(f"  PyTorch {p['torch_version']} float64 CPU ({p['torch_threads']} threads) "
                  f"{fmt_t(p['torch_s'])}: NumPy path / PyTorch {fmt_x(p['numpy_vs_torch'], 2)}\n")
            else:
                w("  PyTorch not installed (pip install torch==2.13.0)\n")
            one = p.get("one_thread")
            if one and one.get("torch_s"):
                w(f"  on one thread (OPENBLAS/OMP/MKL_NUM_THREADS=1): NumPy path "
                  f"{fmt_t(one['symattn_numpy_s'])}, plain NumPy {fmt_t(one['plain_numpy_s'])}, "
                  f"PyTorch {fmt_t(one['torch_s'])}: {fmt_x(one['numpy_vs_torch'], 2)}\n")
            e = p["numpy_error"]
            w(f"  NumPy path error against certified values ({p['certified_digits']} digits, "
              f"{fmt_t(p['certified_s'])}): max abs {e['max_abs']:.3g}, max rel {e['max_rel']:.3g}\n")
            if p.get("torch_error"):
                e = p["torch_error"]
                w(f"  PyTorch error: max abs {e['max_abs']:.3g}, max rel {e['max_rel']:.3g}\n")
            if p.get("openblas_variables_unset"):
                w(f"  (unset for this part: {', '.join(p['openblas_variables_unset'])})\n")
    w("\nTargets\n")
    for t in res["targets"]:
        v = t["value"]
        mark = "n/a " if t["met"] is None else ("met " if t["met"] else "MISS")
        vs = "-" if v is None else (f"{v:.3g} s" if t["name"].endswith("seconds") else f"{v:.3g}×")
        rel = "≤" if "at_most" in t else "≥"
        lim = f"{t['limit']:g} s" if t["name"].endswith("seconds") else f"{t['limit']:g}×"
        w(f"  [{mark}] {t['what']}: {vs} ({rel} {lim})\n")


# -- main ------------------------------------------------------------------------------------

def ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x.strip()]


def parse(argv=None):
    p = argparse.ArgumentParser(description="symattn benchmark (issue 6)")
    p.add_argument("--sizes", type=ints, default=[2, 4, 8, 16, 32, 64], help="T = d values")
    p.add_argument("--digits", type=ints, default=[50, 1000])
    p.add_argument("--only", default="head,layer,cli,paper",
                   help="comma list of parts: head, layer, cli, paper")
    p.add_argument("--skip", default="", help="comma list: sympy, numpy, memory")
    p.add_argument("--quick", action="store_true",
                   help="T = d in {2, 4, 8, 16}, 50 digits, no paper-sized layer")
    p.add_argument("--budget", type=float, default=10.0,
                   help="seconds naive SymPy may take per figure before '>budget'")
    p.add_argument("--repeat", type=int, default=5, help="least runs per figure")
    p.add_argument("--min-time", type=float, default=0.5, help="least seconds per figure")
    p.add_argument("--cli-runs", type=int, default=7)
    p.add_argument("--clock", choices=("wall", "cpu"), default="wall")
    p.add_argument("--paper-shape", type=ints, default=[512, 8, 2048, 128],
                   help="d_model,h,d_ff,T of the paper-sized layer")
    p.add_argument("--paper-digits", type=int, default=20)
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.add_argument("--json-out", metavar="FILE", help="also write the JSON to FILE")
    p.add_argument("--real-size", action="store_true",
                   help="only the real-size figures of issues 16 and 25 (an hour here): reading "
                        "inputs, the Transformer-base layer against the floor, a LLaMA-style "
                        "block at 7B width, causal heads up to T = 4096 (--quick: no heads)")
    p.add_argument("--real-only", default="read,layer,llama,head",
                   help="comma list: read, layer, llama, head")
    p.add_argument("--real-llama", type=ints, default=[8], help="T of the LLaMA-style block")
    p.add_argument("--real-heads", type=ints, default=[1024, 2048, 4096], help="T of the heads")
    p.add_argument("--real-digits", type=int, default=30)
    p.add_argument("--real-repeat", type=int, default=2, help="interleaved runs of the layer")
    p.add_argument("--_real-head", type=int, help=argparse.SUPPRESS)
    p.add_argument("--_real-llama", type=int, help=argparse.SUPPRESS)
    p.add_argument("--_paper-child", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--paper-no-error", action="store_true", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    a.only = {x.strip() for x in a.only.split(",") if x.strip()}
    a.real_only = {x.strip() for x in a.real_only.split(",") if x.strip()}
    a.skip = {x.strip() for x in a.skip.split(",") if x.strip()}
    if a.quick and a.real_size:          # the quick real-size form: no heads, one layer run
        a.real_only.discard("head")
        a.real_repeat = 1
    if a.quick:
        a.sizes = [s for s in a.sizes if s <= 16] or [2, 4, 8, 16]
        a.digits = [50]
        a.only.discard("paper")
    return a


def main(argv=None) -> int:
    args = parse(argv)
    if args._paper_child:
        print(json.dumps(paper_child(args)))
        return 0
    if args._real_llama:
        print(json.dumps(real_size.llama_child(args._real_llama, args.real_digits, args.clock)))
        return 0
    if args._real_head:
        print(json.dumps(real_size.head_child(args._real_head, args.real_digits, args.clock)))
        return 0
    import flint
    prog = Progress(sys.stderr.isatty())
    res = {"machine": {"python": platform.python_version(), "platform": platform.platform(),
                       "cpus": os.cpu_count(), "flint": flint.__version__,
                       "openblas_env": {k: os.environ[k] for k in
                                        ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
                                        if k in os.environ}},
           "settings": {"sizes": args.sizes, "digits": args.digits, "clock": args.clock,
                        "repeat": args.repeat, "min_time_s": args.min_time,
                        "sympy_budget_s": args.budget, "command": " ".join(sys.argv)}}
    if args.real_size:
        return real_size_main(args, res, prog)
    try:
        for kind in ("head", "layer"):
            if kind not in args.only:
                continue
            over: dict = {}
            res[kind] = [bench_case(kind, T, dg, args, prog, over)
                         for dg in args.digits for T in args.sizes]
        if "cli" in args.only:
            res["cli"] = bench_cli(args, prog)
        if "paper" in args.only:
            res["paper"] = bench_paper(args, prog)
    finally:
        prog.done()
    res["targets"] = targets(res)
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(res, indent=1, ensure_ascii=False) + "\n")
    if args.json:
        sys.stdout.write(json.dumps(res, indent=1, ensure_ascii=False) + "\n")
    else:
        print_report(res)
    return 0


def real_size_main(args, res: dict, prog: Progress) -> int:
    """``--real-size``: only the figures of issue 16 (see real_size.py)."""
    res["settings"].update(real_heads=args.real_heads, real_llama=args.real_llama,
                           real_only=sorted(args.real_only), real_digits=args.real_digits,
                           real_repeat=args.real_repeat, load_average=os.getloadavg())
    try:
        res["real_size"] = real_size.run(args, prog)
    finally:
        prog.done()
    res["targets"] = real_size.targets(res["real_size"])
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(res, indent=1, ensure_ascii=False) + "\n")
    if args.json:
        sys.stdout.write(json.dumps(res, indent=1, ensure_ascii=False) + "\n")
        return 0
    s = res["settings"]
    print(f"symattn real-size benchmark ({res['machine']['python']}, {res['machine']['cpus']} "
          f"CPUs, python-flint {res['machine']['flint']}, {s['clock']} clock, load average "
          f"{s['load_average'][0]:.1f} at the start)")
    real_size.print_report(res["real_size"], sys.stdout.write)
    print("\nTargets")
    for t in res["targets"]:
        mark = "-" if t["met"] is None else "met" if t["met"] else "MISSED"
        v = "-" if t["value"] is None else f"{t['value']:.2f}"
        print(f"  [{mark}] {t['what']}: {v} (at most {t['at_most']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
