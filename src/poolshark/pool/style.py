"""Player styles: stochastic no-limit hold'em policies written as data (TOML, validated).

A style decides from the public context (:mod:`poolshark.pool.context`) and its own hole
cards only. Preflop it plays ranges per decision node (open by position, limp, isolate,
call or three-bet an open, answer a three-bet or a four-bet); postflop it compares a
strength (:mod:`poolshark.pool.strength`) with thresholds set by frequencies (c-bet, fold
to c-bet, check-raise, river bluff, call-down, ...). Responses follow the size of the raise
or bet faced (preflop against a reference size, postflop through the minimum defence
frequency), the stack-to-pot ratio, position and the number of opponents. Raise sizes are
a small discrete set per situation with fixed probabilities. The full rules are in
``docs/pool.md``.

A range in a style file is a number (the top x percent of hands by the preflop ranking),
a string such as ``"12%"`` / ``"top 12%"``, or range notation (``"QQ+, AKs, A5s"``, see
:mod:`poolshark.cards.ranges`). Frequencies are probabilities in [0, 1].

:func:`action_probabilities` is the readable numpy form of the policy over all 1,326
combos; :mod:`poolshark.pool.policy` holds the compiled form that samples and labels.
"""

from __future__ import annotations

import math
import re
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal, NamedTuple

import numpy as np
import numpy.typing as npt
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    model_validator,
)

from poolshark.cards.combos import N_COMBOS
from poolshark.cards.ranges import Range, RangeError
from poolshark.pool.context import Feature, Position
from poolshark.pool.policy import (
    COMMITTED_SPR,
    DRAW_FULL,
    JAM_SNAP,
    MAX_FACING_FRACTION,
    MAX_SIZES,
    N_COLUMNS,
    N_KINDS,
    N_NODES,
    N_PARAMS,
    REFERENCE_FRACTION,
    Node,
    Param,
    SizeKind,
    StyleBank,
    preflop_node,
)
from poolshark.pool.strength import (
    live_combos,
    postflop_strength,
    range_order,
    scale_range,
    top_of_range,
    top_percent,
)

Floats = npt.NDArray[np.float64]
Int64s = npt.NDArray[np.int64]

OPENING_POSITIONS = ("EP", "MP", "CO", "BTN", "SB")
_PERCENT = re.compile(r"^\s*(?:top\s*)?(\d+(?:\.\d+)?)\s*%\s*$", re.IGNORECASE)


class StyleError(ValueError):
    """A style file that cannot be used; the message names the file and the field."""


# -- the schema ----------------------------------------------------------------------------


def _range_value(value: object) -> object:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ValueError("a range is a percentage (a number), text like '12%', or range notation")
    return value


def range_weights(spec: float | str) -> Floats:
    """(1326,) weights of a range written as a percentage or in range notation."""
    if isinstance(spec, str):
        match = _PERCENT.match(spec)
        if match is None:
            return np.array(Range.parse(spec).weights)
        spec = float(match.group(1))
    if not (math.isfinite(spec) and 0.0 <= spec <= 100.0):
        raise RangeError(f"a percentage of hands lies in [0, 100], got {spec}")
    return top_percent(float(spec))


def _valid_range(spec: float | str) -> float | str:
    range_weights(spec)  # a RangeError (a ValueError) becomes a validation error
    return spec


RangeSpec = Annotated[float | str, BeforeValidator(_range_value), AfterValidator(_valid_range)]
Probability = Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


def _size_value(value: object) -> float:
    if value == "allin":
        return math.inf
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise ValueError(f"a size is a positive number or 'allin', not {value!r}")
    if not math.isfinite(value):
        raise ValueError(f"a size must be finite (write 'allin' to move all in), not {value!r}")
    return float(value)


SizeValue = Annotated[float, BeforeValidator(_size_value)]
"""A raise size: a positive number, or ``"allin"`` (kept as infinity)."""


class SizeSet(_Strict):
    """Raise sizes mixed with fixed probabilities; ``"allin"`` is a size too."""

    sizes: list[SizeValue] = Field(min_length=1, max_length=MAX_SIZES)
    weights: list[Annotated[float, Field(ge=0.0, allow_inf_nan=False)]] | None = None

    @model_validator(mode="after")
    def _weights_match(self) -> SizeSet:
        if self.weights is not None:
            if len(self.weights) != len(self.sizes):
                raise ValueError(
                    f"{len(self.weights)} weights for {len(self.sizes)} sizes: give one each"
                )
            if sum(self.weights) <= 0:
                raise ValueError("size weights must not all be zero")
        return self

    def values(self) -> Floats:
        """(MAX_SIZES,) the sizes, ``inf`` for all-in, unused slots 0."""
        out = np.zeros(MAX_SIZES)
        out[: len(self.sizes)] = self.sizes
        return out

    def probabilities(self) -> Floats:
        """(MAX_SIZES,) the normalized weights, unused slots 0."""
        given = self.weights if self.weights is not None else [1.0] * len(self.sizes)
        out = np.zeros(MAX_SIZES)
        out[: len(given)] = np.array(given) / sum(given)
        return out


def _above_one(name: str) -> AfterValidator:
    def check(sizes: SizeSet) -> SizeSet:
        if any(size <= 1.0 for size in sizes.sizes):
            raise ValueError(f"{name} sizes are multiples of the bet faced: each must exceed 1")
        return sizes

    return AfterValidator(check)


class Preflop(_Strict):
    """Preflop ranges per decision node (a call range includes the raising hands)."""

    open: dict[Literal["EP", "MP", "CO", "BTN", "SB"], RangeSpec]
    limp: dict[Literal["EP", "MP", "CO", "BTN", "SB"], RangeSpec] = Field(default_factory=dict)
    iso: RangeSpec
    overlimp: RangeSpec
    threebet: RangeSpec
    call_open: RangeSpec
    bb_defend: RangeSpec
    fold_to_3bet: Probability
    fourbet: Probability
    cold_4bet: RangeSpec
    cold_call_3bet: RangeSpec
    fold_to_4bet: Probability
    fivebet: Probability
    jam_vs_4bet: RangeSpec
    call_vs_4bet: RangeSpec
    open_reference: Annotated[float, Field(ge=1.0, le=10.0)] = 2.5
    threebet_reference: Annotated[float, Field(gt=1.0, le=10.0)] = 3.0
    size_sensitivity: Annotated[float, Field(ge=0.0, le=3.0)] = 1.0

    @model_validator(mode="after")
    def _consistent(self) -> Preflop:
        missing = [p for p in OPENING_POSITIONS if p not in self.open]
        if missing:
            raise ValueError(f"open needs a range for every position; missing {missing}")
        if self.fourbet > 1.0 - self.fold_to_3bet:
            raise ValueError("fourbet (a share of the open range) exceeds 1 - fold_to_3bet")
        if self.fivebet > 1.0 - self.fold_to_4bet:
            raise ValueError("fivebet (a share of the 3-bet range) exceeds 1 - fold_to_4bet")
        return self


class PerStreet(_Strict):
    """One frequency per postflop street."""

    flop: Probability
    turn: Probability
    river: Probability


class Postflop(_Strict):
    """Postflop frequencies; ``bluff_line`` ... ``mixing`` shape how hands are picked, and
    ``size_sensitivity`` ... ``multiway`` how the bet size, the stack-to-pot ratio, position
    and the number of opponents move the frequencies (``docs/pool.md``)."""

    cbet: PerStreet
    bet: PerStreet
    fold_to_cbet: Probability
    fold_to_bet: Probability
    call_down: Probability
    raise_: Probability = Field(alias="raise")
    check_raise: Probability
    bluff: Probability
    river_bluff: Probability
    semi_bluff: Probability
    semi_bluff_raise: Probability
    bluff_line: Annotated[float, Field(gt=0.0, lt=1.0)] = 0.35
    draw_discipline: Annotated[float, Field(ge=0.2, le=5.0)] = 1.0
    size_sensitivity: Annotated[float, Field(ge=0.0, le=3.0)] = 1.0
    mixing: Annotated[float, Field(ge=0.01, le=1.0)] = 0.1
    commitment: Annotated[float, Field(ge=0.0, le=1.0)] = 0.5
    position_bet: Annotated[float, Field(ge=0.0, le=1.0)] = 0.15
    position_defence: Annotated[float, Field(ge=0.0, le=1.0)] = 0.1
    multiway: Annotated[float, Field(ge=0.0, le=3.0)] = 1.0


class Sizes(_Strict):
    """Raise sizes: preflop in big blinds (opens) or multiples of the bet (re-raises);
    postflop as fractions of the pot (a raise: of the pot after calling)."""

    open: SizeSet
    per_limper: Annotated[float, Field(ge=0.0, le=10.0)] = 1.0
    threebet: Annotated[SizeSet, _above_one("threebet")]
    fourbet: Annotated[SizeSet, _above_one("fourbet")]
    fivebet: Annotated[SizeSet, _above_one("fivebet")] = SizeSet(sizes=["allin"])
    flop: SizeSet
    turn: SizeSet
    river: SizeSet
    raise_: SizeSet = Field(alias="raise")

    @model_validator(mode="after")
    def _open_at_least_a_blind(self) -> Sizes:
        if any(size < 1.0 for size in self.open.sizes):
            raise ValueError("open sizes are in big blinds: each must be at least 1")
        return self


class Targets(_Strict):
    """The HUD figures (percent) a style is tuned to show; documentation and tests."""

    vpip: Annotated[float, Field(ge=0, le=100)] | None = None
    pfr: Annotated[float, Field(ge=0, le=100)] | None = None
    three_bet: Annotated[float, Field(ge=0, le=100)] | None = None
    fold_to_3bet: Annotated[float, Field(ge=0, le=100)] | None = None


class Showdown(_Strict):
    """What a style shows at the end of a hand when the rules let it choose (the site's
    showdown rules are in ``pool.simulate``): how often it mucks a hand already beaten,
    and how often it shows the cards of a pot nobody contested."""

    muck_losing: Probability = 0.9
    show_uncontested: Probability = 0.02


class StyleSpec(_Strict):
    """One style file."""

    name: Annotated[str, Field(min_length=1, pattern=r"^[a-z0-9][a-z0-9-]*$")]
    description: str = ""
    leaks: list[str] = Field(default_factory=list)
    targets: Targets = Targets()
    preflop: Preflop
    postflop: Postflop
    sizes: Sizes
    showdown: Showdown = Showdown()


# -- compiled styles ----------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Style:
    """A validated style and the arrays the compiled policy reads (see ``StyleBank``)."""

    spec: StyleSpec
    raise_weight: Floats  # (N_NODES, 1326)
    continue_weight: Floats  # (N_NODES, 1326)
    continue_order: Floats  # (N_NODES, 4, 1326): strength.range_order of each node's range
    params: Floats  # (N_PARAMS,)
    sizes: Floats  # (N_KINDS, MAX_SIZES)
    size_weights: Floats  # (N_KINDS, MAX_SIZES)

    @property
    def name(self) -> str:
        """The style's name."""
        return self.spec.name

    @classmethod
    def from_spec(cls, spec: StyleSpec) -> Style:
        """Compile a validated spec."""
        raise_weight, continue_weight = _preflop_tables(spec.preflop)
        return cls(
            spec,
            raise_weight,
            continue_weight,
            np.stack([range_order(weights) for weights in continue_weight]),
            _params(spec),
            *_size_tables(spec.sizes),
        )

    @classmethod
    def from_toml(cls, text: str, source: str = "<text>") -> Style:
        """Parse and validate TOML text; errors name ``source`` and the field."""
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            raise StyleError(f"style {source}: not valid TOML: {error}") from None
        return cls.from_spec(_validate(StyleSpec, data, f"style {source}"))

    def bank(self) -> StyleBank:
        """A bank holding just this style (index 0)."""
        return bank_of([self])


def bank_of(styles: list[Style]) -> StyleBank:
    """Stack styles into one :class:`StyleBank`; style ``i`` is bank index ``i``."""
    if not styles:
        raise ValueError("a style bank needs at least one style")
    return StyleBank(
        raise_weight=np.stack([s.raise_weight for s in styles]),
        continue_weight=np.stack(
            [np.concatenate([s.continue_weight[:, None], s.continue_order], 1) for s in styles]
        ),
        params=np.stack([s.params for s in styles]),
        sizes=np.stack([s.sizes for s in styles]),
        size_weights=np.stack([s.size_weights for s in styles]),
    )


def _validate(model: type[StyleSpec], data: dict[str, Any], source: str) -> StyleSpec:
    try:
        return model.model_validate(data)
    except ValidationError as error:
        raise StyleError(f"{source}: {describe_errors(error)}") from None


def describe_errors(error: ValidationError) -> str:
    """Pydantic problems as ``field.path: message`` joined by ``; ``."""
    parts = []
    for problem in error.errors():
        where = ".".join(str(part) for part in problem["loc"])
        message = problem["msg"].removeprefix("Value error, ")
        parts.append(f"{where}: {message}" if where else message)
    return "; ".join(parts)


def _preflop_tables(preflop: Preflop) -> tuple[Floats, Floats]:
    raise_weight = np.zeros((N_NODES, N_COMBOS))
    continue_weight = np.zeros((N_NODES, N_COMBOS))
    empty = np.zeros(N_COMBOS)
    opens: dict[str, Floats] = {p: range_weights(s) for p, s in preflop.open.items()}
    limps: dict[str, Floats] = {p: range_weights(s) for p, s in preflop.limp.items()}
    iso = range_weights(preflop.iso)
    threebet = range_weights(preflop.threebet)
    for position in Position:
        first_in = opens.get(position.name, empty)  # the big blind never raises first in
        raise_weight[Node.UNOPENED + position] = first_in
        continue_weight[Node.UNOPENED + position] = limps.get(position.name, empty)
        raise_weight[Node.LIMPED + position] = iso
        continue_weight[Node.LIMPED + position] = range_weights(preflop.overlimp)
        raise_weight[Node.VS_OPEN + position] = threebet
        defend = preflop.bb_defend if position is Position.BB else preflop.call_open
        continue_weight[Node.VS_OPEN + position] = range_weights(defend)
        raise_weight[Node.VS_3BET_OPENER + position] = top_of_range(first_in, preflop.fourbet)
        continue_weight[Node.VS_3BET_OPENER + position] = top_of_range(
            first_in, 1.0 - preflop.fold_to_3bet
        )
    raise_weight[Node.VS_3BET_COLD] = range_weights(preflop.cold_4bet)
    continue_weight[Node.VS_3BET_COLD] = range_weights(preflop.cold_call_3bet)
    raise_weight[Node.VS_4BET_3BETTOR] = top_of_range(threebet, preflop.fivebet)
    continue_weight[Node.VS_4BET_3BETTOR] = top_of_range(threebet, 1.0 - preflop.fold_to_4bet)
    raise_weight[Node.VS_3BET_ISO] = top_of_range(iso, preflop.fourbet)
    continue_weight[Node.VS_3BET_ISO] = top_of_range(iso, 1.0 - preflop.fold_to_3bet)
    raise_weight[Node.VS_4BET_OTHER] = range_weights(preflop.jam_vs_4bet)
    continue_weight[Node.VS_4BET_OTHER] = range_weights(preflop.call_vs_4bet)
    return raise_weight, continue_weight


def _params(spec: StyleSpec) -> Floats:
    post = spec.postflop
    values = {
        Param.CBET_FLOP: post.cbet.flop,
        Param.CBET_TURN: post.cbet.turn,
        Param.CBET_RIVER: post.cbet.river,
        Param.BET_FLOP: post.bet.flop,
        Param.BET_TURN: post.bet.turn,
        Param.BET_RIVER: post.bet.river,
        Param.FOLD_TO_CBET: post.fold_to_cbet,
        Param.FOLD_TO_BET: post.fold_to_bet,
        Param.CALL_DOWN: post.call_down,
        Param.RAISE: post.raise_,
        Param.CHECK_RAISE: post.check_raise,
        Param.BLUFF: post.bluff,
        Param.RIVER_BLUFF: post.river_bluff,
        Param.SEMI_BLUFF: post.semi_bluff,
        Param.SEMI_BLUFF_RAISE: post.semi_bluff_raise,
        Param.BLUFF_LINE: post.bluff_line,
        Param.DRAW_DISCIPLINE: post.draw_discipline,
        Param.SIZE_SENSITIVITY: post.size_sensitivity,
        Param.MIXING: post.mixing,
        Param.PER_LIMPER: spec.sizes.per_limper,
        Param.COMMITMENT: post.commitment,
        Param.POSITION_BET: post.position_bet,
        Param.POSITION_DEFENCE: post.position_defence,
        Param.MULTIWAY: post.multiway,
        Param.PREFLOP_SIZE_SENSITIVITY: spec.preflop.size_sensitivity,
        Param.OPEN_REFERENCE: spec.preflop.open_reference,
        Param.THREEBET_REFERENCE: spec.preflop.threebet_reference,
    }
    params = np.zeros(N_PARAMS)
    for index, value in values.items():
        params[index] = value
    return params


def _size_sets(sizes: Sizes) -> dict[SizeKind, SizeSet]:
    return {
        SizeKind.OPEN: sizes.open,
        SizeKind.THREEBET: sizes.threebet,
        SizeKind.FOURBET: sizes.fourbet,
        SizeKind.FIVEBET: sizes.fivebet,
        SizeKind.FLOP: sizes.flop,
        SizeKind.TURN: sizes.turn,
        SizeKind.RIVER: sizes.river,
        SizeKind.RAISE: sizes.raise_,
    }


def _size_tables(sizes: Sizes) -> tuple[Floats, Floats]:
    values = np.zeros((N_KINDS, MAX_SIZES))
    weights = np.zeros((N_KINDS, MAX_SIZES))
    for kind, size_set in _size_sets(sizes).items():
        values[kind] = size_set.values()
        weights[kind] = size_set.probabilities()
    return values, weights


# -- loading -------------------------------------------------------------------------------


def list_styles() -> list[str]:
    """Names of the shipped styles."""
    folder = resources.files("poolshark.pool").joinpath("styles")
    return sorted(
        p.name.removesuffix(".toml") for p in folder.iterdir() if p.name.endswith(".toml")
    )


def load_style(name_or_path: str | Path) -> Style:
    """A shipped style by name (``"tag"``) or a style file by path (a ``.toml`` name or an
    existing file). A shipped name always means the shipped style, whatever the working
    folder holds under that name (a run folder called ``tag``, say)."""
    path = Path(name_or_path)
    shipped_name = str(name_or_path) in list_styles()
    if not shipped_name and (path.suffix == ".toml" or path.exists()):
        try:
            text = path.read_text()
        except OSError as error:
            raise StyleError(f"cannot read style file {path}: {error.strerror}") from None
        return Style.from_toml(text, str(path))
    name = str(name_or_path)
    if name not in list_styles():
        raise StyleError(f"no shipped style {name!r}; choose one of {', '.join(list_styles())}")
    text = resources.files("poolshark.pool").joinpath("styles", f"{name}.toml").read_text()
    return Style.from_toml(text, f"{name}.toml")


# -- the readable policy --------------------------------------------------------------------


class ActionProbabilities(NamedTuple):
    """Per-combo action probabilities at one decision.

    ``probabilities`` (C, 2 + MAX_SIZES): fold, check/call, then a raise with each size slot
    (rows sum to 1 for live combos, 0 for combos the board blocks); ``raise_to`` the total
    each slot raises to (0 for unused slots; slots may share an amount, e.g. two sizes
    capped all-in).
    """

    probabilities: Floats
    raise_to: Int64s

    def of_action(self, move: int, amount: int = 0) -> Floats:
        """Per-combo probability of one concrete action (move code 0/1/2, raise total)."""
        if move in (0, 1):
            column: Floats = self.probabilities[:, move]
            return column
        slots = np.flatnonzero(self.raise_to == amount)
        total: Floats = self.probabilities[:, 2 + slots].sum(axis=1)
        return total


def _ramp(x: Floats, threshold: float | Floats, width: float) -> Floats:
    result: Floats = np.clip((x - threshold) / width + 0.5, 0.0, 1.0)
    return result


def action_probabilities(
    style: Style,
    context: Floats,
    board: list[int],
    combos: npt.ArrayLike | None = None,
) -> ActionProbabilities:
    """Probabilities of fold / check-call / each raise size for every combo (numpy).

    ``board`` holds exactly the community cards of the context's street; ``combos``
    selects rows (default all 1,326 in canonical order).
    """
    f = np.asarray(context, dtype=np.float64)
    street = int(f[Feature.STREET])
    if len(board) != (0, 3, 4, 5)[street]:
        raise ValueError(f"street {street} shows {(0, 3, 4, 5)[street]} cards, got {len(board)}")
    if street == 0:
        node = preflop_node(
            int(f[Feature.POSITION]),
            int(f[Feature.PREFLOP_RAISES]),
            int(f[Feature.MY_RAISE_LEVEL]),
            int(f[Feature.LIMPERS]),
        )
        up = style.raise_weight[node]
        keep = scale_range(style.continue_weight[node], _preflop_scale(style.spec.preflop, f))
    else:
        made, draw = postflop_strength(board)
        up, keep = _postflop_reference(style.spec.postflop, f, made, draw)
    raise_to, size_set = _raise_sizes_reference(style.spec.sizes, f)
    can_raise = f[Feature.MAX_RAISE_TO] > 0
    raising = up if can_raise else np.zeros(N_COMBOS)
    probabilities = np.zeros((N_COMBOS, N_COLUMNS))
    if f[Feature.TO_CALL] == 0:
        probabilities[:, 1] = 1.0 - raising
    else:
        probabilities[:, 0] = (1.0 - up) * (1.0 - keep)
        probabilities[:, 1] = (1.0 - up) * keep + (up - raising)
    probabilities[:, 2:] = raising[:, None] * size_set.probabilities()[None, :]
    probabilities[~live_combos(board)] = 0.0
    rows = np.arange(N_COMBOS) if combos is None else np.asarray(combos, dtype=np.int64)
    return ActionProbabilities(probabilities[rows], raise_to)


def _preflop_scale(preflop: Preflop, f: Floats) -> float:
    """The continuing range's scale: (raise faced / reference raise) ** -size_sensitivity,
    facing an open (reference: ``open_reference`` big blinds plus one per limper) or a
    three-bet over my own raise (``threebet_reference`` times my raise); else 1."""
    raises = int(f[Feature.PREFLOP_RAISES])
    if raises == 1:
        reference = f[Feature.BIG_BLIND] * (preflop.open_reference + f[Feature.LIMPERS])
    elif raises == 2 and int(f[Feature.MY_RAISE_LEVEL]) == 1:
        reference = f[Feature.MY_BET] * preflop.threebet_reference
    else:
        return 1.0
    if reference <= 0 or f[Feature.CURRENT_BET] <= 0:
        return 1.0
    return float((f[Feature.CURRENT_BET] / reference) ** -preflop.size_sensitivity)


def _postflop_reference(
    post: Postflop, f: Floats, made: Floats, draw: Floats
) -> tuple[Floats, Floats]:
    """(raise weight, continue weight) per combo postflop: see ``docs/pool.md``."""
    street = int(f[Feature.STREET])
    opponents = max(f[Feature.ALIVE] - 1.0, 1.0)
    strength = made**opponents
    crowd = opponents**-post.multiway  # bluffs thin out against more opponents
    side = 1.0 if f[Feature.IN_POSITION] else -1.0
    air = 1.0 - _ramp(strength, post.bluff_line, post.mixing)
    semi = np.minimum(1.0, draw / DRAW_FULL)
    streets = ("flop", "turn", "river")
    if f[Feature.TO_CALL] == 0:
        per_street = post.cbet if f[Feature.PREVIOUS_AGGRESSOR] else post.bet
        base = getattr(per_street, streets[street - 1])
        frequency = min(1.0, base * (1.0 + side * post.position_bet))
        bluff_share = post.river_bluff if street == 3 else post.bluff
        value = _ramp(strength, 1.0 - frequency * (1.0 - bluff_share), post.mixing)
        air_bluff = min(1.0, frequency * bluff_share / post.bluff_line) * air
        bluff = crowd * np.maximum(air_bluff, post.semi_bluff * semi)
        return value + (1.0 - value) * bluff, np.ones(N_COMBOS)
    frequency = post.check_raise if f[Feature.CHECKED] else post.raise_
    value = _ramp(strength, 1.0 - frequency, post.mixing)
    if street == 3:
        bluff = crowd * min(1.0, frequency * post.river_bluff / post.bluff_line) * air
    else:
        bluff = crowd * post.semi_bluff_raise * semi
    if street == 1 and f[Feature.CBET] and f[Feature.STREET_RAISES] == 1:
        fold = post.fold_to_cbet
    elif street == 3:
        fold = 1.0 - post.call_down
    else:
        fold = post.fold_to_bet
    size = min(f[Feature.FACING_FRACTION], MAX_FACING_FRACTION)
    mdf_ratio = (1.0 + REFERENCE_FRACTION) / (1.0 + size)  # MDF(size) / MDF(reference)
    defend = (1.0 - fold) * mdf_ratio**post.size_sensitivity * (1.0 + side * post.position_defence)
    round_pot = f[Feature.POT] - f[Feature.MY_BET] - f[Feature.CURRENT_BET]
    round_spr = (f[Feature.MY_STACK] + f[Feature.MY_BET]) / max(round_pot, 1.0)
    shallow = float(np.clip(1.0 - round_spr / COMMITTED_SPR, 0.0, 1.0))
    threshold = float(np.clip(1.0 - defend, 0.0, 1.0)) * (1.0 - post.commitment * shallow)
    keep = _ramp(strength, threshold, post.mixing)
    odds = f[Feature.TO_CALL] / (f[Feature.POT] + f[Feature.TO_CALL])
    drawing = np.where(draw > 0, _ramp(draw, odds * post.draw_discipline, post.mixing), 0.0)
    return value + (1.0 - value) * bluff, np.maximum(keep, drawing)


def _raise_sizes_reference(sizes: Sizes, f: Floats) -> tuple[Int64s, SizeSet]:
    """Raise-to amounts of each size slot, and the size set in use."""
    street = int(f[Feature.STREET])
    raises = int(f[Feature.PREFLOP_RAISES])
    sets = _size_sets(sizes)
    if street == 0:
        size_set = sets[SizeKind(SizeKind.OPEN + min(raises, 3))]
    elif f[Feature.TO_CALL] > 0:
        size_set = sets[SizeKind.RAISE]
    else:
        size_set = sets[SizeKind(SizeKind.FLOP + street - 1)]
    least, most = f[Feature.MIN_RAISE_TO], f[Feature.MAX_RAISE_TO]
    big_blind, to_call, pot = f[Feature.BIG_BLIND], f[Feature.TO_CALL], f[Feature.POT]
    amounts = np.zeros(MAX_SIZES, dtype=np.int64)
    for slot, size in enumerate(size_set.sizes):
        if math.isinf(size):
            target = most
        elif street == 0 and raises == 0:
            target = size * big_blind + sizes.per_limper * big_blind * f[Feature.LIMPERS]
        elif street == 0:
            target = size * f[Feature.CURRENT_BET]
        else:
            target = f[Feature.MY_BET] + to_call + size * (pot + to_call)
        amount = math.floor(target + 0.5)
        if amount >= JAM_SNAP * most:
            amount = most
        amounts[slot] = int(min(most, max(least, amount)))
    return amounts, size_set
