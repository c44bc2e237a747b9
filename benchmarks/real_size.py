"""Real size (issue 16), run by ``python benchmarks/run.py --real-size``:

- the original Transformer-base encoder layer (d = 512, 8 heads, d_ff = 2048, T = 128) to
  30 certified digits: symattn (construction included, decimal strings out) against the
  python-flint floor of ``cases.flint_layer`` (one pass, 16 guard bits so that every string
  it prints is certified), interleaved runs in this process, and the float64 NumPy time;
- one causal head (d = 128) at T = 1024, 2048, 4096 to 30 digits, each in a child process:
  the time, the peak resident memory and how much of it the evaluation added (row by row,
  so it grows linearly with T), beside the float64 NumPy time; and the digits PyTorch's
  ``scaled_dot_product_attention`` gets right in float32 and bfloat16 (and NumPy float64),
  measured by the float oracle ``sa.compare`` against those certified values.
"""

from __future__ import annotations

import gc
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import cases as C

LAYER = (512, 8, 2048, 128)          # d_model, h, d_ff, T
HEAD_D = 128
TARGET_LAYER_VS_FLOOR = 1.5
TARGET_MEMORY_GROWTH = 2.5           # evaluation memory at 2T / at T: linear gives <= 2, T² 4


def rss_mib() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2 ** 20


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def layer_part(args, prog) -> dict:
    d, h, d_ff, T = LAYER
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    inp = C.layer_inputs(T, d=d, h=h, d_ff=d_ff)
    out = {"d_model": d, "h": h, "d_ff": d_ff, "T": T, "digits": args.real_digits,
           "floor_guard_bits": 16}
    sym, flo = [], []
    for k in range(args.real_repeat):
        prog(f"real size: Transformer-base layer, run {k + 1}: symattn")
        gc.collect()
        t0 = clock()
        mine = C.symattn_layer(inp, args.real_digits)
        sym.append(clock() - t0)
        prog(f"real size: Transformer-base layer, run {k + 1}: python-flint floor")
        gc.collect()
        t0 = clock()
        floor = C.flint_layer(inp, args.real_digits, guard_bits=16)
        flo.append(clock() - t0)
        del mine, floor
    out["symattn_s"], out["floor_s"] = statistics.median(sym), statistics.median(flo)
    out["runs"] = args.real_repeat
    out["vs_floor"] = out["symattn_s"] / out["floor_s"]
    arr = C.numpy_arrays(inp)
    prog("real size: Transformer-base layer, NumPy float64")
    ts = []
    for _ in range(7):
        t0 = clock()
        C.numpy_layer(arr)
        ts.append(clock() - t0)
    out["numpy_s"] = statistics.median(ts)
    out["vs_numpy"] = out["symattn_s"] / out["numpy_s"]
    return out


def head_child(T: int, digits: int, clock_kind: str) -> dict:
    """One causal head at T tokens, in this (child) process: prints nothing, returns figures."""
    from symattn.evaluation.evaluator import Evaluator
    from symattn.oracle import compare
    clock = time.process_time if clock_kind == "cpu" else time.perf_counter
    out = {"T": T, "d": HEAD_D, "digits": digits}
    inp = C.real_head_inputs(T, HEAD_D)
    t0 = clock()
    Z = C.symattn_head_graph(inp)
    out["graph_s"] = clock() - t0
    gc.collect()
    out["rss_before_mib"] = rss_mib()
    ev = Evaluator()
    t0 = clock()
    ev.rounded_matrix(Z, digits=digits)
    out["certified_s"] = clock() - t0
    out["peak_rss_mib"] = peak_mib()
    out["evaluation_mib"] = out["peak_rss_mib"] - out["rss_before_mib"]
    out["weights_as_balls_mib"] = T * T * 112 / 2 ** 20      # what the whole T×T would hold
    arr = C.numpy_arrays(inp)
    ts = []
    for _ in range(5):
        t0 = clock()
        ref64 = C.numpy_head(arr)
        ts.append(clock() - t0)
    out["numpy_s"] = statistics.median(ts)
    out["vs_numpy"] = out["certified_s"] / out["numpy_s"]
    refs = {"numpy_float64": ref64}
    try:
        import torch
        out["torch_version"] = torch.__version__
        for dt in ("float32", "bfloat16"):
            ts = []
            for _ in range(3):
                t0 = clock()
                refs[f"torch_{dt}"] = C.torch_head(arr, dt)
                ts.append(clock() - t0)
            out[f"torch_{dt}_s"] = statistics.median(ts)
    except ImportError:
        out["torch_version"] = None
    for name, ref in refs.items():
        s = compare(Z, ref, digits=digits, evaluator=ev).summary()
        out[name] = {k: s[k] for k in ("dtype", "max_abs_err", "mean_abs_err", "max_eps",
                                       "mean_eps", "min_digits", "median_digits", "nonfinite")}
    return out


def head_part(args, prog) -> list[dict]:
    rows = []
    for T in args.real_heads:
        prog(f"real size: causal head T = {T}, d = {HEAD_D} (child process)")
        cmd = [sys.executable, str(Path(__file__).resolve().parent / "run.py"), "--_real-head",
               str(T), "--real-digits", str(args.real_digits), "--clock", args.clock]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode:
            rows.append({"T": T, "error": (r.stderr.strip().splitlines() or ["?"])[-1]})
        else:
            rows.append(json.loads(r.stdout))
    ok = [r for r in rows if "evaluation_mib" in r]
    for a, b in zip(ok, ok[1:]):
        if b["T"] == 2 * a["T"]:
            b["memory_growth_vs_half_T"] = b["evaluation_mib"] / a["evaluation_mib"]
    return rows


def run(args, prog) -> dict:
    res = {}
    if "layer" in args.real_only:
        res["layer"] = layer_part(args, prog)
    if "head" in args.real_only:
        res["heads"] = head_part(args, prog)
    return res


def targets(res: dict) -> list[dict]:
    out = []
    lay = res.get("layer") or {}
    v = lay.get("vs_floor")
    out.append({"name": "real_layer_vs_floor", "value": v, "at_most": TARGET_LAYER_VS_FLOOR,
                "what": "Transformer-base layer T=128, 30 digits: symattn / python-flint floor",
                "met": None if v is None else v <= TARGET_LAYER_VS_FLOOR})
    growth = [h["memory_growth_vs_half_T"] for h in res.get("heads", []) if "memory_growth_vs_half_T" in h]
    g = max(growth) if growth else None
    out.append({"name": "real_head_memory_growth", "value": g, "at_most": TARGET_MEMORY_GROWTH,
                "what": "causal head: evaluation memory at 2T / at T (linear: <= 2, T×T: 4)",
                "met": None if g is None else g <= TARGET_MEMORY_GROWTH})
    return out


def print_report(res: dict, w) -> None:
    lay = res.get("layer")
    if lay:
        w(f"\nReal size: Transformer-base encoder layer (d = {lay['d_model']}, h = {lay['h']}, "
          f"d_ff = {lay['d_ff']}, T = {lay['T']}), {lay['digits']} certified digits "
          f"(median of {lay['runs']})\n")
        w(f"  symattn {lay['symattn_s']:.2f} s   python-flint floor {lay['floor_s']:.2f} s   "
          f"ratio {lay['vs_floor']:.2f}×   NumPy float64 {lay['numpy_s'] * 1e3:.1f} ms "
          f"({lay['vs_numpy']:.0f}×)\n")
    heads = res.get("heads")
    if heads:
        w(f"\nReal size: one causal head, d = {HEAD_D}, 30 certified digits, row by row\n")
        w("     T   certified   NumPy f64   peak RSS   evaluation   (T×T balls)   growth\n")
        for h in heads:
            if "error" in h:
                w(f"  {h['T']:>5}   failed: {h['error']}\n")
                continue
            g = h.get("memory_growth_vs_half_T")
            w(f"  {h['T']:>5}   {h['certified_s']:8.1f} s   {h['numpy_s'] * 1e3:6.1f} ms   "
              f"{h['peak_rss_mib']:6.0f} MiB   {h['evaluation_mib']:6.0f} MiB   "
              f"({h['weights_as_balls_mib']:6.0f} MiB)   {'' if g is None else f'{g:.2f}×'}\n")
        last = [h for h in heads if "numpy_float64" in h]
        if last:
            h = last[-1]
            w(f"\n  digits right at T = {h['T']} (against the certified values): "
              "fewest / median correct significant digits, max / mean error in ε\n")
            for name in ("numpy_float64", "torch_float32", "torch_bfloat16"):
                s = h.get(name)
                if s:
                    w(f"    {name:15} {s['min_digits']:5.2f} / {s['median_digits']:5.2f} digits   "
                      f"max {s['max_eps']:.3g} ε, mean {s['mean_eps']:.3g} ε   "
                      f"(max abs error {s['max_abs_err']:.3g})\n")
