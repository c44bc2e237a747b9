"""Real size (issues 16 and 25), run by ``python benchmarks/run.py --real-size``:

- reading inputs (issue 25): 512×2048 entries from each kind a user brings (rows of
  Fractions, of decimal strings, a NumPy array of decimal strings, of integers, float64
  at its binary value and with ``decimals=2``, PyTorch float32 and bfloat16), CPU or wall
  time per entry and the bytes per entry of the form they are kept in;
- the original Transformer-base encoder layer (d = 512, 8 heads, d_ff = 2048, T = 128) to
  30 certified digits: symattn (construction included, decimal strings out) against the
  python-flint floor of ``cases.flint_layer`` (one pass, 16 guard bits so that every string
  it prints is certified), interleaved runs in this process, and the float64 NumPy time;
- the same layer built end to end from rows of decimal strings and from NumPy float64
  arrays read with ``decimals=2`` (issue 25), each against the same floor;
- a LLaMA-style decoder block at LLaMA-7B's width (``llama.py``: d = 4096, 32/8 heads,
  d_ff = 11008) at T tokens, in a child process: reading its weights, its certified
  evaluation, the peak memory, and the digits PyTorch float32, float16 and bfloat16 get
  right (``sa.compare``);
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
import llama as L

LAYER = (512, 8, 2048, 128)          # d_model, h, d_ff, T
HEAD_D = 128
TARGET_LAYER_VS_FLOOR = 1.5
TARGET_MEMORY_GROWTH = 2.5           # evaluation memory at 2T / at T: linear gives <= 2, T² 4
TARGET_READ_US = {"fractions": 0.3, "numpy_float64": 0.3, "numpy_decimals_2": 0.3,
                  "numpy_int64": 0.3, "decimal_strings": 1.0, "numpy_strings": 1.0}
TARGET_LLAMA_GIB = 2.0               # the block's inputs as kept (weights of a 7B-width layer)
READ_SHAPE = (512, 2048)


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
    import symattn as sa
    arr = C.numpy_arrays(inp)
    ways = {"symattn": (inp, None), "from_strings": (C.text_inputs(inp), None),
            "from_numpy_decimals_2": (arr, lambda a: sa.from_numpy(a, decimals=2))}
    times: dict = {k: [] for k in (*ways, "floor")}
    for k in range(args.real_repeat):
        for way, (given, read) in ways.items():
            prog(f"real size: Transformer-base layer, run {k + 1}: symattn {way}")
            gc.collect()
            t0 = clock()
            mine = C.symattn_layer(given, args.real_digits, read)
            times[way].append(clock() - t0)
            del mine
        prog(f"real size: Transformer-base layer, run {k + 1}: python-flint floor")
        gc.collect()
        t0 = clock()
        floor = C.flint_layer(inp, args.real_digits, guard_bits=16)
        times["floor"].append(clock() - t0)
        del floor
    for way in (*ways, "floor"):
        out[f"{way}_s"] = statistics.median(times[way])
    for way in ways:
        out[f"{way}_vs_floor"] = out[f"{way}_s"] / out["floor_s"]
    out["runs"] = args.real_repeat
    out["vs_floor"] = out["symattn_vs_floor"]
    prog("real size: Transformer-base layer, NumPy float64")
    ts = []
    for _ in range(7):
        t0 = clock()
        C.numpy_layer(arr)
        ts.append(clock() - t0)
    out["numpy_s"] = statistics.median(ts)
    out["vs_numpy"] = out["symattn_s"] / out["numpy_s"]
    return out


def read_kinds():
    """{kind: (make the input, read it)} for READ_SHAPE entries of 2-decimal values."""
    from fractions import Fraction
    import numpy as np
    import symattn as sa
    k = np.random.default_rng(25).integers(-99, 100, READ_SHAPE)
    table = {v: Fraction(v, 100) for v in range(-99, 100)}
    text = {v: C.decimal_text(q) for v, q in table.items()}
    kinds = {
        "fractions": (lambda: [[table[v] for v in r] for r in k.tolist()], sa.matrix),
        "decimal_strings": (lambda: [[text[v] for v in r] for r in k.tolist()], sa.matrix),
        "numpy_strings": (lambda: np.array([[text[v] for v in r] for r in k.tolist()]), sa.matrix),
        "numpy_int64": (lambda: k.copy(), sa.matrix),
        "numpy_float64": (lambda: k / 100, sa.from_numpy),
        "numpy_decimals_2": (lambda: k / 100, lambda a: sa.from_numpy(a, decimals=2)),
    }
    try:
        import torch
        kinds["torch_float32"] = (lambda: torch.from_numpy(k / 100).float(), sa.from_torch)
        kinds["torch_bfloat16"] = (lambda: torch.from_numpy(k / 100).bfloat16(), sa.from_torch)
    except ImportError:
        pass
    return kinds


def read_part(args, prog) -> dict:
    """Seconds per entry of reading each kind (median of 3), and the bytes it is kept in."""
    from symattn.scaled import Scaled
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    n = READ_SHAPE[0] * READ_SHAPE[1]
    out = {"shape": list(READ_SHAPE)}
    for kind, (make, read) in read_kinds().items():
        prog(f"real size: reading {n} entries from {kind}")
        given, ts = make(), []
        for _ in range(3):
            gc.collect()
            t0 = clock()
            t = read(given)
            ts.append(clock() - t0)
        e = t.params["entries"]
        out[kind] = {"us_per_entry": statistics.median(ts) / n * 1e6,
                     "bytes_per_entry": e.nbytes / n if type(e) is Scaled else None,
                     "form": (f"Scaled int{e.num.dtype.itemsize * 8}, "
                              f"{e.base}^{e.exp if e.common else 'each'}")
                     if type(e) is Scaled else "rows of Fractions"}
        del given, t, e
    return out


def llama_child(T: int, digits: int, clock_kind: str) -> dict:
    """The LLaMA-style block at T tokens, in this (child) process: returns figures."""
    from symattn.evaluation.evaluator import Evaluator
    from symattn.evaluation.size import estimate
    from symattn.oracle import compare
    clock = time.process_time if clock_kind == "cpu" else time.perf_counter
    out = {"T": T, "d": L.D, "h": L.H, "h_kv": L.H_KV, "d_ff": L.D_FF, "digits": digits}
    out["rss_start_mib"] = rss_mib()
    t0 = clock()
    m = L.symattn_inputs(T)
    out["read_s"] = clock() - t0
    out["input_entries"] = sum(t.shape[0] * t.shape[1] for t in m.values())
    out["inputs_mib"] = sum(t.params["entries"].nbytes for t in m.values()) / 2 ** 20
    gc.collect()
    out["rss_inputs_mib"] = rss_mib()
    t0 = clock()
    Z = L.symattn_block(m)
    out["graph_s"] = clock() - t0
    out["estimate"] = str(estimate(Z, digits=digits))
    ev = Evaluator()
    t0 = clock()
    ev.rounded_matrix(Z, digits=digits)
    out["certified_s"] = clock() - t0
    out["peak_rss_mib"] = peak_mib()
    try:
        import torch
        out["torch_version"] = torch.__version__
        for dt in ("float32", "float16", "bfloat16"):
            ref = L.torch_block(T, dt)
            sm = compare(Z, ref, digits=digits, evaluator=ev).summary()
            out[f"torch_{dt}"] = {k: sm[k] for k in ("dtype", "max_abs_err", "mean_abs_err",
                                                    "max_eps", "mean_eps", "min_digits",
                                                    "median_digits", "nonfinite")}
            del ref
    except ImportError:
        out["torch_version"] = None
    return out


def _children(args, prog, flag: str, sizes, what: str) -> list[dict]:
    """One child process per T (``run.py --_real-llama T`` …), each row its JSON or its error."""
    rows = []
    for T in sizes:
        prog(f"real size: {what}, T = {T} (child process)")
        cmd = [sys.executable, str(Path(__file__).resolve().parent / "run.py"), flag,
               str(T), "--real-digits", str(args.real_digits), "--clock", args.clock]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode:
            rows.append({"T": T, "error": (r.stderr.strip().splitlines() or ["?"])[-1]})
        else:
            rows.append(json.loads(r.stdout))
    return rows


def llama_part(args, prog) -> list[dict]:
    return _children(args, prog, "--_real-llama", args.real_llama, f"LLaMA-style block, d = {L.D}")


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
    rows = _children(args, prog, "--_real-head", args.real_heads, f"causal head, d = {HEAD_D}")
    ok = [r for r in rows if "evaluation_mib" in r]
    for a, b in zip(ok, ok[1:]):
        if b["T"] == 2 * a["T"]:
            b["memory_growth_vs_half_T"] = b["evaluation_mib"] / a["evaluation_mib"]
    return rows


def run(args, prog) -> dict:
    res = {}
    if "read" in args.real_only:
        res["read"] = read_part(args, prog)
    if "layer" in args.real_only:
        res["layer"] = layer_part(args, prog)
    if "llama" in args.real_only:
        res["llama"] = llama_part(args, prog)
    if "head" in args.real_only:
        res["heads"] = head_part(args, prog)
    return res


def targets(res: dict) -> list[dict]:
    out = []
    rd = res.get("read") or {}
    for kind, limit in TARGET_READ_US.items():
        v = (rd.get(kind) or {}).get("us_per_entry")
        out.append({"name": f"read_{kind}_us", "value": v, "at_most": limit,
                    "what": f"reading {kind}: µs an entry",
                    "met": None if v is None else v <= limit})
    lay = res.get("layer") or {}
    for way, what in (("symattn", "from Fractions"), ("from_strings", "from decimal strings"),
                      ("from_numpy_decimals_2", "from NumPy decimals=2")):
        v = lay.get(f"{way}_vs_floor")
        out.append({"name": f"real_layer_{way}_vs_floor", "value": v,
                    "at_most": TARGET_LAYER_VS_FLOOR,
                    "what": f"Transformer-base layer T=128, 30 digits, {what}: "
                            "symattn / python-flint floor",
                    "met": None if v is None else v <= TARGET_LAYER_VS_FLOOR})
    ok = [r for r in res.get("llama", []) if "inputs_mib" in r]
    v = max(r["inputs_mib"] for r in ok) / 1024 if ok else None
    out.append({"name": "llama_inputs_gib", "value": v, "at_most": TARGET_LLAMA_GIB,
                "what": "LLaMA-7B-width block: its inputs as kept, GiB",
                "met": None if v is None else v <= TARGET_LLAMA_GIB})
    growth = [h["memory_growth_vs_half_T"] for h in res.get("heads", []) if "memory_growth_vs_half_T" in h]
    g = max(growth) if growth else None
    out.append({"name": "real_head_memory_growth", "value": g, "at_most": TARGET_MEMORY_GROWTH,
                "what": "causal head: evaluation memory at 2T / at T (linear: <= 2, T×T: 4)",
                "met": None if g is None else g <= TARGET_MEMORY_GROWTH})
    return out


def print_report(res: dict, w) -> None:
    rd = res.get("read")
    if rd:
        m, n = rd["shape"]
        w(f"\nReading inputs: {m}×{n} entries (2-decimal values), median of 3\n")
        for kind, r in rd.items():
            if kind == "shape":
                continue
            b = "" if r["bytes_per_entry"] is None else f"{r['bytes_per_entry']:4.1f} bytes an entry"
            w(f"  {kind:18} {r['us_per_entry']:7.3f} µs an entry   kept as {r['form']:24} {b}\n")
    lay = res.get("layer")
    if lay:
        w(f"\nReal size: Transformer-base encoder layer (d = {lay['d_model']}, h = {lay['h']}, "
          f"d_ff = {lay['d_ff']}, T = {lay['T']}), {lay['digits']} certified digits "
          f"(median of {lay['runs']}), end to end\n")
        w(f"  python-flint floor {lay['floor_s']:.2f} s (from Fractions)   NumPy float64 "
          f"{lay['numpy_s'] * 1e3:.1f} ms\n")
        for way, what in (("symattn", "from Fractions"), ("from_strings", "from decimal strings"),
                          ("from_numpy_decimals_2", "from NumPy, decimals=2")):
            w(f"  symattn {what:24} {lay[f'{way}_s']:6.2f} s   ÷ floor "
              f"{lay[f'{way}_vs_floor']:.2f}×\n")
    for r in res.get("llama", []):
        w(f"\nReal size: LLaMA-style decoder block (d = {L.D}, {L.H} query / {L.H_KV} key-value "
          f"heads, d_ff = {L.D_FF}, RMSNorm, RoPE, causal GQA, SwiGLU), T = {r['T']}\n")
        if "error" in r:
            w(f"  failed: {r['error']}\n")
            continue
        w(f"  reading {r['input_entries'] / 1e6:.0f} million input entries (NumPy, decimals=k) "
          f"{r['read_s']:.1f} s; kept in {r['inputs_mib']:.0f} MiB "
          f"({r['inputs_mib'] * 2 ** 20 / r['input_entries']:.1f} bytes an entry)\n")
        w(f"  {r['digits']} certified digits: {r['certified_s']:.1f} s (estimated beforehand: "
          f"{r['estimate']}); peak RSS {r['peak_rss_mib']:.0f} MiB\n")
        for dt in ("float32", "float16", "bfloat16"):
            sm = r.get(f"torch_{dt}")
            if sm:
                w(f"    PyTorch {dt:9} {sm['min_digits']:5.2f} / {sm['median_digits']:5.2f} correct "
                  f"digits (fewest / median), max abs error {sm['max_abs_err']:.3g}, "
                  f"mean {sm['mean_eps']:.3g} ε\n")
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
