"""Every figure pyapp shows, as text, by one rounding rule (DR-006).

Start from the shortest decimal that reads back as the float (its repr), then round half away
from zero, as a person rounding the printed number would. 1 of 16 is 6.25% -> "6.3%"; 1234.5 ms
-> "1,235 ms". Python's format() rounds a float's binary value half to even ("6.2%", "1,234 ms")
and JavaScript's toFixed rounds it half up, so they disagree on such ties: the page formats
nothing and only places these strings.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal


def _rounded(x: float, places: int, scale: int = 0) -> Decimal:
    """``x`` times 10**``scale``, rounded to ``places`` decimals by the rule of this module; never negative zero."""
    value = Decimal(repr(float(x))).scaleb(scale).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    return abs(value) if value == 0 else value


def fmt_percent(x: float | None) -> str:
    """A share as a percentage with one decimal, half up: 0.839 -> "83.9%", 0.0625 -> "6.3%"."""
    return "n/a" if x is None else f"{_rounded(x, 1, 2):.1f}%"


def fmt_points(x: float) -> str:
    """A difference of two shares in percentage points, signed, half away from zero: 0.05 -> "+5.0"."""
    return f"{_rounded(x, 1, 2):+.1f}"


def fmt_p(p: float) -> str:
    """A p-value with four significant digits, half up: 0.03125 -> "0.03125", 1.0 -> "1"."""
    exact = Decimal(repr(float(p)))
    if exact == 0:
        return "0"
    four = exact.quantize(Decimal(1).scaleb(exact.adjusted() - 3), rounding=ROUND_HALF_UP)
    return f"{float(four):.4g}"


def fmt_fixed(x: float, places: int) -> str:
    """``x`` with ``places`` decimals by the rule above, for data files: 131.49999999999818 -> "131.5"."""
    return f"{_rounded(x, places):.{places}f}"


def fmt_whole(x: float) -> str:
    """A measure rounded to a whole number, half up, with thousands separators: 1234.5 -> "1,235"."""
    return f"{_rounded(x, 0):,.0f}"


def fmt_ms(x: float | None) -> str:
    """Milliseconds, whole, half up, with thousands separators: 1234.5 -> "1,235 ms"."""
    return "n/a" if x is None else f"{fmt_whole(x)} ms"


def fmt_count(n: int) -> str:
    """A whole number with thousands separators: 40000 -> "40,000"."""
    return f"{n:,}"


def fmt_share(k: int, n: int, interval: tuple[float, float] | list[float] | None) -> str:
    """ "17/20 (85.0%, 95% CI 64.0% to 94.8%)", or "0/0" when nothing was graded."""
    if n == 0 or interval is None:
        return f"{k}/{n}"
    return f"{k}/{n} ({fmt_percent(k / n)}, 95% CI {fmt_interval(interval)})"


def fmt_interval(interval: tuple[float, float] | list[float] | None) -> str:
    """A share's interval: "64.0% to 94.8%", or "n/a" when there is none."""
    return "n/a" if interval is None else f"{fmt_percent(interval[0])} to {fmt_percent(interval[1])}"


def fmt_signed(x: float, places: int) -> str:
    """``x`` with ``places`` decimals by the rule of this module and its sign: 1.25 -> "+1.3", 0 -> "0.0"."""
    text = fmt_fixed(x, places)
    return text if text.startswith("-") or float(text) == 0 else "+" + text


def counted(n: int, one: str, many: str | None = None) -> str:
    """``n`` and the word that goes with it: ``one`` for 1, else ``many`` (default ``one`` + "s"). The one
    place where the command line and the page decide a plural."""
    return f"{fmt_count(n)} {one if n == 1 else many or one + 's'}"


def fmt_count_share(k: int, n: int) -> str:
    """A count of ``n`` and its share: "17/20 (85.0%)", or "0/0" when there is nothing to share."""
    return f"{k}/{n} ({fmt_percent(k / n)})" if n else f"{k}/{n}"


def fmt_point_size(x: float) -> str:
    """A size in percentage points, unsigned: 0.123 -> "12.3 points"."""
    return f"{fmt_points(x).lstrip('+')} points"


def fmt_money(amount: float) -> str:
    """An amount in the visitor's currency, four decimals (a run on a cheap model costs fractions of a cent)."""
    return fmt_fixed(amount, 4)


def fmt_svg(x: float) -> str:
    """An SVG coordinate: two decimals, no trailing zeros."""
    text = f"{x:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def fmt_decimals(x: float, places: int) -> str:
    """``x`` in fixed point with ``places`` decimals, rounded as ``format()`` rounds the float's binary value.

    The prompt's numbers are written this way, and every prompt's hash depends on them (DR-005), so
    this rounding stays as it is, apart from the rule above that every figure shown follows.
    """
    return format(float(x), f".{places}f")
