"""Money amounts in hand histories as integer chips of the smallest unit, and back.

Sites print amounts as decimal text (``"$1,234.50"``, ``"0.10"``, ``"25"``); the records
keep whole chips of ``10**-decimals`` currency units so every sum is exact.
"""

from __future__ import annotations

from decimal import Decimal

#: Currency symbols the readers know, and the ISO code each stands for (``¥``: the yuan
#: of PokerStars' Chinese tables, whose headers say ``CNY``).
SYMBOL_CURRENCY = {"$": "USD", "€": "EUR", "£": "GBP", "¥": "CNY"}
CURRENCY_SYMBOL = {code: symbol for symbol, code in SYMBOL_CURRENCY.items()}
#: The currency code of amounts written without a symbol in a real-money game: bare chips
#: (ISO 4217's code for "no currency").
CHIPS = "XXX"

_SCALE = (1, 10, 100, 1000, 10_000, 100_000, 1_000_000)


def unit_of(decimals: int) -> Decimal:
    """The currency value of one chip when amounts have ``decimals`` decimal places."""
    return Decimal(1).scaleb(-decimals)


def parse_chips(text: str, decimals: int = 2) -> int:
    """Whole chips in a decimal amount such as ``"1,234.5"`` or ``"-0.25"``.

    Raises ValueError naming the text when it is not a plain decimal number or has more
    decimal places than ``decimals``.
    """
    digits = text.replace(",", "") if "," in text else text
    negative = digits[:1] == "-"
    if negative:
        digits = digits[1:]
    whole, dot, fraction = digits.partition(".")
    if not (whole or fraction) or len(fraction) > decimals or (dot and not fraction):
        raise ValueError(f"bad amount {text!r}")
    if not (whole.isdigit() or not whole) or not (fraction.isdigit() or not fraction):
        raise ValueError(f"bad amount {text!r}")
    if not digits.isascii():
        raise ValueError(f"bad amount {text!r}")
    value = int(whole or "0") * _SCALE[decimals] + (
        int(fraction) * _SCALE[decimals - len(fraction)] if fraction else 0
    )
    return -value if negative else value


_CACHE_LIMIT = 200_000
_cache: dict[str, int] = {}


def cents(text: str) -> int:
    """:func:`parse_chips` with two decimals, memoized: histories repeat a few amounts a lot."""
    chips = _cache.get(text)
    if chips is None:
        chips = parse_chips(text, 2)
        if len(_cache) >= _CACHE_LIMIT:
            _cache.clear()
        _cache[text] = chips
    return chips


def decimals_in(text: str) -> int:
    """Decimal places written in an amount (``"0.125"`` has 3)."""
    _, dot, fraction = text.partition(".")
    return len(fraction) if dot else 0


def format_chips(chips: int, decimals: int = 2) -> str:
    """Chips as the shortest site-style decimal: ``10 -> "0.10"``, ``2500 -> "25"``.

    Whole amounts drop their decimals; others keep all ``decimals`` places, the way
    PokerStars prints money (``$1``, ``$1.50``, ``$0.05``).
    """
    sign = "-" if chips < 0 else ""
    whole, fraction = divmod(abs(chips), _SCALE[decimals])
    if not fraction or not decimals:
        return f"{sign}{whole}"
    return f"{sign}{whole}.{fraction:0{decimals}d}"
