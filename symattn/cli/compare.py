"""`symattn compare SPEC --step S --reference FILE`: a float implementation's values of one
step against the certified values (the float oracle, :mod:`symattn.oracle`).

The reference is one array saved by NumPy (``.npy``, read with ``allow_pickle=False``) or
one tensor saved by PyTorch (``.pt``, read with ``torch.load(..., weights_only=True)``):
nothing in the file is ever run. ``-o errors.png`` draws the error distribution.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

from ..errors import InputError, LimitError, ShapeError, SpecError

DEFAULT_DIGITS = 30


def configure(p):
    p.add_argument("spec", metavar="SPEC",
                   help="a spec file, or the name of a bundled example")
    p.add_argument("--step", required=True, metavar="S", help="the step (or input) compared")
    p.add_argument("--reference", required=True, metavar="FILE",
                   help="the float values: one array (.npy) or one tensor (.pt), float64, "
                        "float32, float16 or bfloat16, shaped as the step")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="draw the error distribution to FILE (.png, .svg or .pdf)")
    p.add_argument("--force", action="store_true", help="replace FILE if it exists")
    p.add_argument("--digits", type=int, default=DEFAULT_DIGITS, metavar="N",
                   help=f"certified digits of the exact values (default {DEFAULT_DIGITS})")
    p.add_argument("--worst", type=int, default=10, metavar="K",
                   help="list the K worst entries (default 10)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def run(args) -> int:
    from ..oracle import compare
    from .grad import resolve
    from ..spec.load import load
    if not 10 <= args.digits <= 1000:
        raise LimitError(f"--digits {args.digits}: give 10 to 1000")
    if not 0 <= args.worst <= 10_000:
        raise LimitError(f"--worst {args.worst}: give 0 to 10000")
    if args.output:
        _check_picture(args.output)
    spec = load(str(resolve(args.spec)))
    node = spec.tensors.get(args.step)
    if node is None:
        names = list(spec.tensors)
        shown = ", ".join(names[:12]) + (f", … ({len(names)} in all)" if len(names) > 12 else "")
        from ..suggest import did_you_mean
        raise SpecError(f"--step {args.step}: no such step or input (known: {shown})",
                        where=spec.path, hint=did_you_mean(args.step, names) or None)
    reference = read_reference(args.reference)
    try:
        from .terminal import working
        with working(f"certified values of {args.step}"):
            result = compare(node, reference, digits=args.digits)
    except (InputError, ShapeError) as e:             # about the reference: name its file
        raise e.located(args.reference) from None
    if args.output:
        from .output import write_output
        buf = io.BytesIO()
        result.plot().savefig(buf, format=Path(args.output).suffix[1:].lower())
        write_output(args.output, buf.getvalue(), force=args.force)
    if args.json:
        out = result.to_json(args.worst)
        out["spec"], out["step"], out["reference_file"] = spec.id, args.step, args.reference
        sys.stdout.write(json.dumps(out, ensure_ascii=False, indent=1) + "\n")
    else:
        sys.stdout.write(f"{spec.id}  step {args.step}  ({args.reference})\n")
        sys.stdout.write(result.text(args.worst))
    return 0


def _check_picture(path: str) -> None:
    if Path(path).suffix.lower() not in (".png", ".svg", ".pdf"):
        raise InputError("the picture's name ends in .png, .svg or .pdf", where=path)


def _npy_fits(p: Path, path: str) -> None:
    """A .npy whose header promises more data than the file holds (a 193-byte file of
    shape (10^12, 10^12)) is refused before anything is allocated for it."""
    import math
    import numpy as np
    fmt = np.lib.format
    with open(p, "rb") as f:
        if f.read(6) != b"\x93NUMPY":
            raise SpecError("is not a NumPy .npy file", where=path,
                            hint="save one float array with numpy.save")
        f.seek(0)
        version = fmt.read_magic(f)
        shape, _, dtype = (fmt.read_array_header_1_0(f) if version == (1, 0)
                           else fmt.read_array_header_2_0(f))
        need = math.prod(shape) * dtype.itemsize
        have = p.stat().st_size - f.tell()
    if not dtype.hasobject and need > have:
        raise SpecError(f"its header says shape {shape} ({need} bytes of {dtype}), but the "
                        f"file holds {have} bytes after it", where=path,
                        hint="save the array again with numpy.save")


def read_reference(path: str):
    """The one array or tensor in a ``.npy`` or ``.pt`` file, read without running anything."""
    from .. import deadline
    p = Path(path)
    deadline.check(f"{path}:1")           # a MemoryError or the deadline names this file
    if not p.is_file():
        raise SpecError("no such file" if not p.exists() else "is not a file", where=path)
    suffix = p.suffix.lower()
    if suffix == ".npy":
        import numpy as np
        try:
            _npy_fits(p, path)
            return np.load(p, allow_pickle=False)
        except ValueError:
            raise SpecError("holds Python objects, which are not read (allow_pickle=False)",
                            where=path, hint="save one float array with numpy.save") from None
        except OSError as e:
            raise SpecError(f"cannot read: {e.strerror or e}", where=path) from None
    if suffix in (".pt", ".pth"):
        try:
            import torch
        except ImportError:
            raise SpecError("reading a .pt file needs PyTorch", where=path,
                            hint="pip install torch, or save the values with numpy.save") from None
        import warnings
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                value = torch.load(p, map_location="cpu", weights_only=True)
        except Exception:  # noqa: BLE001 - whatever the safe unpickler refuses, one line
            raise SpecError("is not a file of tensors that torch.load(..., weights_only=True) "
                            "reads; nothing in it was run", where=path,
                            hint="save the one output tensor: torch.save(out, path)") from None
        if not isinstance(value, torch.Tensor):
            raise SpecError(f"holds a {type(value).__name__}, not a tensor",
                            where=path, hint="save the one output tensor: torch.save(out, path)")
        return value
    raise SpecError(f"a reference is a .npy or .pt file, not '{suffix or p.name}'", where=path)
