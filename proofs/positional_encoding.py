"""Sinusoidal PE: PE(pos + k) is a fixed rotation of PE(pos), pair by pair."""

from sympy import (
    Eq,
    IndexedBase,
    Matrix,
    Rational,
    Sum,
    Symbol,
    cos,
    diag,
    expand_trig,
    eye,
    simplify,
    sin,
    symbols,
)

try:
    from ._common import Derivation, print_derivation
    from ._engine import engine, value
except ImportError:  # run as a plain script
    from _common import Derivation, print_derivation
    from _engine import engine, value

NAME = "positional-encoding-shift"
STATEMENT = (
    "with PE(pos, 2i) = sin(pos w_i), PE(pos, 2i+1) = cos(pos w_i): each pair satisfies "
    "[sin, cos](pos + k) = R(k w_i) [sin, cos](pos) with R(t) = [[cos t, sin t], [-sin t, cos t]] "
    "a rotation independent of pos, so PE(pos + k) = blockdiag(R(k w_i)) PE(pos); also "
    "PE(pos) . PE(pos + k) = Sum_i cos(k w_i) depends on k only"
)
GENERAL = True
SCOPE = (
    "for every d_model, base and pair index i: w_i = base^(-2i/d_model) enters only as a "
    "symbolic frequency w, and pos, k are symbols; the map is block diagonal, so one "
    "symbolic pair covers all of them; the dot product is a Sum over i = 0..d/2 - 1; on the "
    "engine, symattn.positional_encoding(n, d, base) is that PE for n = 4, d = 1..6 with a "
    "symbolic base > 1 (and the default base is 10000), and its rows satisfy "
    "PE(pos + k) = blockdiag(R(k w_i)) PE(pos) and PE(pos) . PE(pos + k) = Sum_i cos(k w_i)"
)


def derive() -> Derivation:
    d = Derivation(NAME, STATEMENT, GENERAL, SCOPE)
    pos, k, w = symbols("pos k omega", real=True)

    def pair(p):
        return Matrix([sin(p * w), cos(p * w)])

    def rotation(t):
        return Matrix([[cos(t), sin(t)], [-sin(t), cos(t)]])

    d.note("one (sin, cos) pair of the encoding at frequency omega", pair(pos))
    d.equal(
        "angle addition: pair(pos + k) = R(k omega) pair(pos)",
        expand_trig(pair(pos + k)),
        expand_trig(rotation(k * w) * pair(pos)),
        show=Eq(
            pair(pos + k),
            rotation(k * w) * Matrix([symbols("PE_2i"), symbols("PE_2i+1")]),
            evaluate=False,
        ),
    )
    d.zero("R(k omega) does not depend on pos: dR/dpos = 0", rotation(k * w).diff(pos), show=False)
    t = symbols("t", real=True)
    d.equal("R(t) is orthogonal: R^T R = I", rotation(t).T * rotation(t), eye(2), show=False)
    d.equal(
        "and det R(t) = 1: a rotation",
        rotation(t).det(),
        1,
        show=Eq(Symbol("det R(t)"), 1, evaluate=False),
    )

    base = symbols("base", positive=True)
    size = 4

    def encoding(p):
        """PE(p) for d_model = 4: entries 2i, 2i+1 are sin, cos of p * base^(-2i/4)."""
        column = []
        for pair_index in range(size // 2):
            frequency = base ** (-Rational(2 * pair_index, size))
            column += [sin(p * frequency), cos(p * frequency)]
        return Matrix(column)

    shift = diag(*[rotation(k * base ** (-Rational(2 * q, size))) for q in range(size // 2)])
    d.equal(
        "d_model = 4, any base: PE(pos + k) = blockdiag(R(k), R(k base^(-1/2))) PE(pos)",
        expand_trig(encoding(pos + k)),
        expand_trig(shift * encoding(pos)),
        show=False,
    )

    on_the_engine(d, rotation, size)

    i = symbols("i", integer=True, nonnegative=True)
    half = symbols("m", integer=True, positive=True)
    freq = IndexedBase("omega", real=True)
    w_i = freq[i]
    term = sin(pos * w_i) * sin((pos + k) * w_i) + cos(pos * w_i) * cos((pos + k) * w_i)
    d.note("PE(pos) . PE(pos + k) with m = d_model/2 pairs", Sum(term, (i, 0, half - 1)))
    d.equal(
        "each term is cos(k omega_i), so the dot product is Sum_i cos(k omega_i): it depends "
        "on the offset k only",
        simplify(term),
        cos(k * freq[i]),
        show=Eq(
            Sum(term, (i, 0, half - 1)), Sum(cos(k * freq[i]), (i, 0, half - 1)), evaluate=False
        ),
    )
    return d.qed()


def on_the_engine(d: Derivation, rotation, size: int) -> None:
    """The engine's symattn.positional_encoding is the encoding above, and its rows rotate
    into each other: R(t) is ``rotation``, the pair maps are checked for d = ``size``."""
    def definition(rows, width, b):
        """PE[pos, j] = sin(pos b^(-2i/d)) for j = 2i, cos(pos b^(-2i/d)) for j = 2i + 1."""
        return Matrix(rows, width, lambda p, j: (sin if j % 2 == 0 else cos)(
            p * b ** (-Rational(2 * (j // 2), width))))

    above_one = 1 + symbols("beta", positive=True)  # any base > 1
    for width in range(1, 7):
        d.equal(
            f"engine, n = 4, d = {width}: symattn.positional_encoding(n, d, base) is "
            "PE[pos, 2i] = sin(pos base^(-2i/d)), PE[pos, 2i+1] = cos(pos base^(-2i/d))",
            value(engine.positional_encoding(4, width, base=above_one)),
            definition(4, width, above_one),
            show=False,
        )
    d.equal(
        "engine: symattn.positional_encoding(4, 4) uses base 10000",
        value(engine.positional_encoding(4, 4)),
        definition(4, 4, 10000),
        show=False,
    )
    table = value(engine.positional_encoding(4, size, base=above_one))
    steps = [above_one ** (-Rational(2 * q, size)) for q in range(size // 2)]
    for start, offset in ((0, 1), (1, 2), (0, 3)):
        turn = diag(*[rotation(offset * w_q) for w_q in steps])
        d.equal(
            f"engine, d = 4: row {start + offset} of symattn.positional_encoding is "
            f"blockdiag(R({offset} w_i)) times row {start}",
            expand_trig(table[start + offset, :].T),
            expand_trig(turn * table[start, :].T),
            show=False,
        )
    for offset in (1, 2):
        dots = [(table[p, :] * table[p + offset, :].T)[0] for p in range(4 - offset)]
        for dot in dots:
            d.equal(
                f"engine, d = 4: PE(pos) . PE(pos + {offset}) = Sum_i cos({offset} w_i) for "
                "every row pos of symattn.positional_encoding",
                dot,
                sum(cos(offset * w_q) for w_q in steps),
                show=False,
            )


def main() -> None:
    print_derivation(derive())


if __name__ == "__main__":
    main()
