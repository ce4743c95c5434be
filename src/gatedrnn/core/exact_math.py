"""Elementary functions rounded correctly, so that an analysis gives the same bits on every CPU.

numpy chooses its kernel for ``log``, ``exp``, ``log10``, ``log1p`` and ``power`` when it
is imported, by the CPU: with AVX-512 its own SIMD code or Intel's SVML, without it the C
library's ``log``. Each is accurate to about one unit in the last place, but they are not
the same function: the stage ``study`` reference table ``unit_gate_means.csv`` had 4 of its
7,060 half-lives 1 ulp apart between an Intel Xeon (AVX-512) and an AMD EPYC (AVX2), from
the same gate means. The C library (``math.log``) is no cure either: it is not correctly
rounded (two of those four means are among its misses) and it takes an FMA branch or not
by CPU.

Here every function is computed in decimal arithmetic at 40 significant digits (Python's
``decimal``, pure software) and rounded once to float64. That is the correctly rounded
result, save for a value within 1e-40 of a point halfway between two floats, and it is the
same on any machine, any C library and any numpy. It costs about 20 to 90 microseconds an
element: the analyses call it on per-unit and per-table values, not on whole activations
(those go through torch under the numerics pin, like the training).

Arrays in give float64 arrays out, a scalar gives a numpy float64 (so that ``1 / log(1)``
is inf with numpy's warning, as with ``np.log``). Edge values follow numpy: ``log(0) =
-inf``, ``log(-1) = nan``, ``exp(1000) = inf``.
"""

from __future__ import annotations

import math
from decimal import Context, Decimal
from fractions import Fraction

import numpy as np

DIGITS = 40
_CONTEXT = Context(prec=DIGITS)
_WIDE = Context(prec=DIGITS + 30)  # for the sums inside a function (1 + x), so they lose nothing

EXP_OVERFLOW = 709.8  # above this exp(x) is no float64 (inf); below -EXP_UNDERFLOW it rounds to 0
EXP_UNDERFLOW = 745.2
TINY = 1e-20  # below this log1p(x) and tanh(x) round to x itself (the next term is < 1e-40 of x)


def _elementwise(scalar):
    """numpy-like wrapper: apply the float -> float ``scalar`` to every element."""

    def apply(x):
        values = np.asarray(x, dtype=np.float64)
        out = np.fromiter(map(scalar, values.ravel().tolist()), dtype=np.float64, count=values.size)
        return out.reshape(values.shape) if values.ndim else out[0]

    apply.__name__ = scalar.__name__.lstrip("_")
    apply.__doc__ = scalar.__doc__
    return apply


def _logarithm(x: float, rounded) -> float:
    """``rounded(Decimal(x))`` for a positive finite ``x``; numpy's values elsewhere."""
    if x > 0 and x != math.inf:
        return float(rounded(Decimal(x)))
    if x == 0:
        return -math.inf
    return x if x == math.inf else math.nan


def _ln(x: float) -> float:
    """Natural logarithm, correctly rounded."""
    return _logarithm(x, _CONTEXT.ln)


def _log10(x: float) -> float:
    """Base-10 logarithm, correctly rounded (exact at powers of ten)."""
    return _logarithm(x, _CONTEXT.log10)


def _log1p(x: float) -> float:
    """``ln(1 + x)``, correctly rounded, without losing a small ``x`` to the sum."""
    if abs(x) < TINY:
        return x
    if x > -1 and x != math.inf:
        return float(_CONTEXT.ln(_WIDE.add(Decimal(1), Decimal(x))))
    if x == -1:
        return -math.inf
    return x if x == math.inf else math.nan


def _exp(x: float) -> float:
    """``e ** x``, correctly rounded."""
    if x != x:
        return math.nan
    if x > EXP_OVERFLOW:
        return math.inf
    if x < -EXP_UNDERFLOW:
        return 0.0
    return float(_CONTEXT.exp(Decimal(x)))


def _tanh(x: float) -> float:
    """Hyperbolic tangent, correctly rounded: ``1 - 2 / (e^(2|x|) + 1)`` with its sign."""
    if x != x:
        return math.nan
    if abs(x) < TINY:
        return x
    if abs(x) > 40:  # 1 - tanh < 2e-34: rounds to 1
        return math.copysign(1.0, x)
    e = _WIDE.exp(Decimal(2 * abs(x)))
    value = _WIDE.subtract(Decimal(1), _WIDE.divide(Decimal(2), _WIDE.add(e, Decimal(1))))
    return math.copysign(float(_CONTEXT.plus(value)), x)


log = _elementwise(_ln)
log10 = _elementwise(_log10)
log1p = _elementwise(_log1p)
exp = _elementwise(_exp)
tanh = _elementwise(_tanh)


def _power(base: float, exponent: float) -> float:
    """``base ** exponent``, correctly rounded; a negative base only with a whole exponent."""
    if exponent == 0 or base == 1:
        return 1.0
    if base != base or exponent != exponent:
        return math.nan
    whole = float(exponent).is_integer()
    if base == 0:
        return 0.0 if exponent > 0 else math.inf
    if base < 0 and not whole:
        return math.nan
    if math.isinf(base) or math.isinf(exponent):
        return float(base) ** float(exponent)  # IEEE's special values, no rounding involved
    try:
        value = _CONTEXT.power(Decimal(base), int(exponent) if whole else Decimal(exponent))
    except ArithmeticError:  # beyond decimal's exponent range: far beyond float64's
        huge = abs(base) > 1 if exponent > 0 else abs(base) < 1
        sign = -1.0 if base < 0 and int(exponent) % 2 else 1.0
        return sign * (math.inf if huge else 0.0)
    return float(value)


def power(base, exponent):
    """``base ** exponent`` element by element (numpy broadcasting), correctly rounded."""
    b, e = np.broadcast_arrays(np.asarray(base, dtype=np.float64), np.asarray(exponent, dtype=np.float64))
    pairs = zip(b.ravel().tolist(), e.ravel().tolist(), strict=True)
    out = np.fromiter((_power(x, y) for x, y in pairs), dtype=np.float64, count=b.size)
    return out.reshape(b.shape) if b.ndim else out[0]


def _pi() -> Decimal:
    """pi to the wide context's digits (the ``decimal`` documentation's series)."""
    three = Decimal(3)
    last, t, s, n, na, d, da = 0, three, three, 1, 0, 0, 24
    while s != last:
        last = s
        n, na = n + na, na + 8
        d, da = d + da, da + 32
        t = _WIDE.divide(_WIDE.multiply(t, n), d)
        s = _WIDE.add(s, t)
    return s


def ln_gamma_half_integer(a: float) -> float:
    """``ln Gamma(a)`` for ``a`` a positive whole or half number (a chi-square's k / 2),
    correctly rounded: ``(a - 1)!`` or ``(2n)! sqrt(pi) / (4^n n!)`` with ``a = n + 1/2``."""
    twice = 2 * a
    if a <= 0 or not float(twice).is_integer():
        raise ValueError(f"ln_gamma_half_integer needs a positive multiple of 1/2, not {a!r}")
    if float(a).is_integer():
        return float(_CONTEXT.ln(Decimal(math.factorial(int(a) - 1))))
    n = int(a - 0.5)
    ratio = Fraction(math.factorial(2 * n), 4**n * math.factorial(n))
    exact = _WIDE.divide(Decimal(ratio.numerator), Decimal(ratio.denominator))
    return float(_CONTEXT.ln(_WIDE.multiply(exact, _WIDE.sqrt(_pi()))))
