"""Two-component LayerNorm: the output is +-(a - b)/sqrt((a - b)^2 + 4 eps), inside (-1, 1)."""

from sympy import Integer, Matrix, sqrt, symbols

try:
    from ._common import Derivation, print_derivation
    from ._engine import engine, tensor, value
except ImportError:  # run as a plain script
    from _common import Derivation, print_derivation
    from _engine import engine, tensor, value

NAME = "layernorm-two"
STATEMENT = (
    "LayerNorm of a row [a, b] is [D, -D]/sqrt(D^2 + 4 eps) with D = a - b: both entries "
    "lie strictly inside (-1, 1) and tend to +-sign(D) as eps -> 0+, whatever the scale of a, b"
)
GENERAL = True
SCOPE = (
    "the statement is about rows of length 2 (there is no n to generalise over); it is "
    "proven for all real a, b and every eps > 0 with symbolic a, b, eps, on the output of "
    "the engine's symattn.layer_norm (checked to be the definition below)"
)


def layer_norm_row(values, eps):
    """Exact LayerNorm of one row (biased variance, eps inside the root, gamma=1, beta=0)."""
    values = [Integer(0) + v for v in values]
    size = len(values)
    mean = sum(values) / size
    variance = sum((v - mean) ** 2 for v in values) / size
    return [(v - mean) / sqrt(variance + eps) for v in values]


def two_component(a, b, eps):
    """The closed form [D, -D]/sqrt(D^2 + 4 eps), D = a - b."""
    diff_ = Integer(0) + a - b
    first = diff_ / sqrt(diff_**2 + 4 * eps)
    return [first, -first]


def derive() -> Derivation:
    d = Derivation(NAME, STATEMENT, GENERAL, SCOPE)
    a, b = symbols("a b", real=True)
    eps = symbols("epsilon", positive=True)
    definition = Matrix([layer_norm_row([a, b], eps)])
    d.note(
        "by the definition (mu = (a + b)/2, s^2 = ((a - mu)^2 + (b - mu)^2)/2): y =",
        definition,
    )

    def engine_row(first, second, epsilon):
        return value(engine.layer_norm(tensor([[first, second]]), eps=epsilon))

    direct = engine_row(a, b, eps)
    d.equal("engine: symattn.layer_norm([a, b], eps=eps) is that y", direct, definition)
    closed = Matrix([two_component(a, b, eps)])
    d.equal("y = [a - b, b - a]/sqrt((a - b)^2 + 4 eps)", direct, closed)

    D = symbols("D", real=True)
    y1 = D / sqrt(D**2 + 4 * eps)
    d.equal("1 - y_1^2 = 4 eps/(D^2 + 4 eps)", 1 - y1**2, 4 * eps / (D**2 + 4 * eps))
    d.positive("which is > 0, so |y_1| = |y_2| < 1 for every eps > 0", 1 - y1**2)
    Dp = symbols("D_+", positive=True)
    Dn = symbols("D_-", negative=True)
    d.limit("for D > 0, y_1 -> 1 as eps -> 0+", Dp / sqrt(Dp**2 + 4 * eps), eps, 0, 1, "+")
    d.limit("for D < 0, y_1 -> -1 as eps -> 0+", Dn / sqrt(Dn**2 + 4 * eps), eps, 0, -1, "+")
    d.equal(
        "for D = 0 (a = b) symattn.layer_norm gives [0, 0] for every eps",
        engine_row(b, b, eps),
        Matrix([[0, 0]]),
    )
    r = sqrt(Dp**2 + 4 * eps)
    d.equal(
        "distance to the end point for D > 0: 1 - y_1 = 4 eps/(r (r + D)), r = sqrt(D^2 + 4 eps)",
        1 - Dp / r,
        4 * eps / (r * (r + Dp)),
    )
    c = symbols("c", positive=True)
    d.equal(
        "scale: y([c a, c b], c^2 eps) = y([a, b], eps) for c > 0, so only |a - b| compared "
        "with sqrt(eps) matters; once it is large the output is ~[1, -1] or ~[-1, 1] "
        "(on the engine's symattn.layer_norm)",
        engine_row(c * a, c * b, c**2 * eps),
        direct,
    )
    return d.qed()


def main() -> None:
    print_derivation(derive())


if __name__ == "__main__":
    main()
