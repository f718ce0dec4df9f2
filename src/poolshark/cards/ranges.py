"""Poker range notation: ``"QQ+, AKs, ATo+:0.5"`` to a weight per combo and back again.

A :class:`Range` holds one weight in ``[0, 1]`` for each of the 1,326 combos, in the canonical
combo order of :mod:`poolshark.cards.combos`; weight 0 means the combo is not in the range.

Grammar of :meth:`Range.parse` (tokens separated by commas; whitespace is ignored anywhere;
ranks, the ``s``/``o`` suffix and suits are case-insensitive; ``T`` is the ten):

* ``QQ`` one pair; ``QQ+`` that pair and every higher one (QQ, KK, AA); ``22-55`` the pairs
  from one end to the other, inclusive, written in either order.
* ``AKs`` suited, ``AKo`` offsuit, ``AK`` both; the two ranks may come in either order.
* ``ATs+`` climbs the kicker up to one below the top card: ATs, AJs, AQs, AKs. Likewise
  ``KTo+`` and ``AT+`` (suited and offsuit). So ``AK+`` is simply ``AK``: the kicker is
  already as high as it can go, and the plus adds nothing.
* ``K9s-K6s`` the hands with that top card and a kicker from one end to the other; both
  ends need the same top card and the same suffix (``K9-K6`` means suited and offsuit).
* ``AhKh`` one exact combo.
* ``any``, ``random`` or ``*``: all 1,326 combos.
* ``:w`` after any token sets its weight (a number in ``[0, 1]``; 1 when left out). Tokens
  apply left to right and a later one overrides an earlier one for the same combo, so
  ``any, AA:0`` is every hand except aces.

Text that is empty or all whitespace is the empty range; an empty token between commas is
an error. Every error is a :class:`RangeError` whose message names the offending token.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import numpy as np
import numpy.typing as npt

from poolshark.cards.card import RANK_CHARS, SUIT_CHARS, CardError, parse_cards
from poolshark.cards.combos import (
    COMBO_CLASS,
    N_COMBOS,
    class_combos,
    class_index,
    combo_name,
    combos_sharing_cards,
    parse_combo,
)

ANY_WORDS = frozenset({"any", "random", "*"})
"""Tokens that stand for all 1,326 combos."""

_R = f"[{RANK_CHARS}]"
_FLAGS = re.IGNORECASE | re.ASCII
_EXACT = re.compile(f"{_R}[{SUIT_CHARS}]{_R}[{SUIT_CHARS}]", _FLAGS)
_HAND = re.compile(f"({_R})({_R})([so]?)(\\+?)", _FLAGS)
_SPAN = re.compile(f"({_R})({_R})([so]?)-({_R})({_R})([so]?)", _FLAGS)
_WHITESPACE = re.compile(r"\s+")
_EXAMPLES = "expected e.g. 'QQ+', '22-55', 'AKs', 'ATo+', 'K9s-K6s', 'AhKh' or 'any'"
_SUFFIX_ORDER = {"": 0, "s": 1, "o": 2}


class RangeError(CardError):
    """Bad range text; the message names the offending token."""


class Range:
    """An immutable weight in ``[0, 1]`` for each of the 1,326 combos (canonical order)."""

    __slots__ = ("_weights",)

    _weights: npt.NDArray[np.float64]

    def __init__(self, weights: npt.ArrayLike) -> None:
        """Wrap a copy of ``weights``: 1,326 finite numbers in ``[0, 1]``."""
        array = np.array(weights, dtype=np.float64)
        if array.shape != (N_COMBOS,):
            raise RangeError(f"a range needs {N_COMBOS} weights, got shape {array.shape}")
        if not np.all((array >= 0.0) & (array <= 1.0)):
            raise RangeError("range weights must lie in [0, 1]")
        array.flags.writeable = False
        self._weights = array

    @property
    def weights(self) -> npt.NDArray[np.float64]:
        """(1326,) read-only weights in canonical combo order."""
        return self._weights

    @classmethod
    def parse(cls, text: str) -> Range:
        """Parse range notation (see the module docstring); raises :class:`RangeError`."""
        weights = np.zeros(N_COMBOS, dtype=np.float64)
        if not text.strip():
            return cls(weights)
        for position, raw in enumerate(text.split(","), start=1):
            token = raw.strip()
            if not token:
                raise RangeError(f"empty range token '' (item {position} of {text!r})")
            combos, weight = _parse_token(token)
            weights[combos] = weight
        return cls(weights)

    @classmethod
    def full(cls) -> Range:
        """Every combo at weight 1: a random hand."""
        return cls(np.ones(N_COMBOS, dtype=np.float64))

    @classmethod
    def empty(cls) -> Range:
        """No combo at all."""
        return cls(np.zeros(N_COMBOS, dtype=np.float64))

    @classmethod
    def of_combos(cls, combos: Iterable[int], weight: float = 1.0) -> Range:
        """The given combo indices at ``weight``, every other combo at 0."""
        indices = np.array(list(combos), dtype=np.int64)
        if indices.size and not (indices.min() >= 0 and indices.max() < N_COMBOS):
            raise RangeError(f"combo indices must be in 0..{N_COMBOS - 1}")
        if not 0.0 <= weight <= 1.0:
            raise RangeError(f"weight {weight!r} is not in [0, 1]")
        weights = np.zeros(N_COMBOS, dtype=np.float64)
        weights[indices] = weight
        return cls(weights)

    def combos(self) -> npt.NDArray[np.int64]:
        """Indices of the combos with positive weight, ascending."""
        return np.flatnonzero(self._weights > 0).astype(np.int64)

    def without(self, cards: Iterable[int]) -> Range:
        """This range with every combo that uses one of ``cards`` (distinct) set to 0."""
        dead = combos_sharing_cards(parse_cards(list(cards)))
        weights = self._weights.copy()
        weights[dead] = 0.0
        return Range(weights)

    def total(self) -> float:
        """Sum of the weights: the number of combos, counting partial ones in part."""
        return float(self._weights.sum())

    def __len__(self) -> int:
        """Number of combos with positive weight."""
        return int(np.count_nonzero(self._weights))

    @property
    def is_single_combo(self) -> bool:
        """True when exactly one combo has positive weight (a known hand)."""
        return len(self) == 1

    def __str__(self) -> str:
        """Compact notation that :meth:`parse` turns back into exactly these weights."""
        return _format(self._weights)

    def __repr__(self) -> str:
        """``Range('QQ+,AKs')``."""
        return f"Range({str(self)!r})"


def _parse_token(token: str) -> tuple[list[int], float]:
    """Combos and weight of one stripped, non-empty token."""
    body, colon, weight_text = _WHITESPACE.sub("", token).partition(":")
    weight = 1.0
    if colon:
        try:
            weight = float(weight_text)
        except ValueError:
            weight = float("nan")
        if not 0.0 <= weight <= 1.0:
            raise RangeError(
                f"bad range token {token!r}: weight {weight_text!r} is not a number in [0, 1]"
            )
    try:
        return _token_combos(body), weight
    except CardError as error:
        raise RangeError(f"bad range token {token!r}: {error}") from None


def _token_combos(body: str) -> list[int]:
    """Combos named by a token without its weight; raises CardError with the reason."""
    if body.lower() in ANY_WORDS:
        return list(range(N_COMBOS))
    if _EXACT.fullmatch(body):
        return [parse_combo(body)]
    hand = _HAND.fullmatch(body)
    if hand:
        first, second, suffix, plus = hand.groups()
        top, low = _ranks(first, second)
        if top == low:
            _check_pair(suffix)
            return _pair_combos(low, 12 if plus else low)
        return _kicker_combos(top, low, top - 1 if plus else low, suffix)
    span = _SPAN.fullmatch(body)
    if span:
        return _span_combos(*span.groups())
    raise CardError(_explain(body))


def _span_combos(a1: str, a2: str, a_suffix: str, b1: str, b2: str, b_suffix: str) -> list[int]:
    """Combos of a dash run such as ``22-55`` or ``K9s-K6s``."""
    a_top, a_low = _ranks(a1, a2)
    b_top, b_low = _ranks(b1, b2)
    if a_top == a_low and b_top == b_low:
        _check_pair(a_suffix + b_suffix)
        return _pair_combos(min(a_low, b_low), max(a_low, b_low))
    if a_top != a_low and b_top != b_low and a_top == b_top:
        if a_suffix.lower() != b_suffix.lower():
            raise CardError("both ends of a dash run need the same suffix")
        return _kicker_combos(a_top, min(a_low, b_low), max(a_low, b_low), a_suffix)
    raise CardError(
        "both ends of a dash run must be pairs, or hands with the same top card as in 'K9s-K6s'"
    )


def _ranks(first: str, second: str) -> tuple[int, int]:
    """(higher, lower) rank indices of two rank characters."""
    a, b = RANK_CHARS.index(first.upper()), RANK_CHARS.index(second.upper())
    return max(a, b), min(a, b)


def _check_pair(suffix: str) -> None:
    """Reject a suited or offsuit suffix on a pair."""
    if suffix:
        raise CardError("a pair cannot be suited or offsuit")


def _pair_combos(low: int, high: int) -> list[int]:
    """Combos of the pairs with ranks ``low..high``."""
    return [c for r in range(low, high + 1) for c in class_combos(class_index(RANK_CHARS[r] * 2))]


def _kicker_combos(top: int, low: int, high: int, suffix: str) -> list[int]:
    """Combos with top card ``top`` and kicker ``low..high``; suffix ``""`` means s and o."""
    kinds = [suffix.lower()] if suffix else ["s", "o"]
    return [
        c
        for kicker in range(low, high + 1)
        for kind in kinds
        for c in class_combos(class_index(RANK_CHARS[top] + RANK_CHARS[kicker] + kind))
    ]


def _explain(body: str) -> str:
    """Why a token matches no rule, naming a bad character when there is one."""
    for char in body:
        if char.upper() not in RANK_CHARS and char.lower() not in SUIT_CHARS + "o+-":
            return f"{char!r} is not a rank ({RANK_CHARS}), a suit or one of 's', 'o', '+', '-'"
    return _EXAMPLES


def _weight_suffix(weight: float) -> str:
    """``""`` for weight 1, else ``":w"`` with the shortest text that parses back exactly."""
    return "" if weight == 1.0 else f":{float(weight)!r}"


def _format(weights: npt.NDArray[np.float64]) -> str:
    """Notation for a weight vector: whole classes, plus and dash runs, then exact combos."""
    live = weights > 0
    if not live.any():
        return ""
    if live.all() and np.all(weights == weights[0]):
        return "any" + _weight_suffix(float(weights[0]))
    pairs: dict[float, set[int]] = {}
    kickers: dict[tuple[float, int, str], set[int]] = {}
    pieces: list[tuple[tuple[int, ...], str]] = []
    for cls in np.unique(COMBO_CLASS[live]).tolist():
        combos = np.array(class_combos(cls))
        class_weights = weights[combos]
        row, column = divmod(cls, 13)
        top, low = 12 - min(row, column), 12 - max(row, column)
        if np.all(class_weights == class_weights[0]):
            weight = float(class_weights[0])
            if top == low:
                pairs.setdefault(weight, set()).add(top)
            else:
                kickers.setdefault((weight, top, "s" if row < column else "o"), set()).add(low)
            continue
        for combo in combos[class_weights > 0].tolist():
            key = (0, -top, 1, -combo) if top == low else (1, -top, -low, 3, -combo)
            pieces.append((key, combo_name(combo) + _weight_suffix(float(weights[combo]))))
    for weight, ranks in pairs.items():
        for low, high in _runs(ranks):
            pieces.append(((0, -high), _pair_token(low, high) + _weight_suffix(weight)))
    for (weight, top, kind), ranks in kickers.items():
        other = kickers.get((weight, top, "o" if kind == "s" else "s"), set())
        shared = ranks & other
        for suffix, group in ((kind, ranks - shared), ("", shared if kind == "s" else set())):
            for low, high in _runs(group):
                token = _kicker_token(top, low, high, suffix) + _weight_suffix(weight)
                pieces.append(((1, -top, -high, _SUFFIX_ORDER[suffix]), token))
    return ",".join(token for _, token in sorted(pieces))


def _runs(ranks: set[int]) -> list[tuple[int, int]]:
    """Maximal runs of consecutive ranks as ``(low, high)`` pairs."""
    runs: list[tuple[int, int]] = []
    for rank in sorted(ranks):
        if runs and runs[-1][1] == rank - 1:
            runs[-1] = (runs[-1][0], rank)
        else:
            runs.append((rank, rank))
    return runs


def _pair_token(low: int, high: int) -> str:
    """``"QQ"``, ``"QQ+"`` or ``"55-22"`` for the pairs ``low..high``."""
    if low == high:
        return RANK_CHARS[low] * 2
    if high == 12:
        return RANK_CHARS[low] * 2 + "+"
    return f"{RANK_CHARS[high] * 2}-{RANK_CHARS[low] * 2}"


def _kicker_token(top: int, low: int, high: int, suffix: str) -> str:
    """``"AKs"``, ``"ATs+"`` or ``"K9s-K6s"`` for top card ``top`` with kickers ``low..high``."""
    head = RANK_CHARS[top]
    if low == high:
        return head + RANK_CHARS[low] + suffix
    if high == top - 1:
        return head + RANK_CHARS[low] + suffix + "+"
    return f"{head}{RANK_CHARS[high]}{suffix}-{head}{RANK_CHARS[low]}{suffix}"
