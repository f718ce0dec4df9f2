"""The card features' lists: every feature's name, kind, parent and meaning, per stage.

The thesis's appendix lists its card features as nested bullets; their exact definitions
were partly lost with its formatting, so these lists are a reconstruction (written out in
``docs/limit.md``, one table per stage, generated from these lists by
:func:`markdown_table`). Each feature is one of three kinds: a ``flag`` (0 or 1), a
``rank`` (``(rank + 1) / 13``: a deuce is 1/13, an ace 1, so an active rank is never 0)
or a ``count`` (a small whole number). A feature with a parent is only ever non-zero when
one of its parents is (the nesting); features without a parent are top-level.

Board (public) features of a stage are kept at later stages; private (hole-card)
features are the current stage's only. On the river the action function reads the 30
order-free board features (:data:`SHORT_RIVER_BOARD`) instead of every board feature.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Kind(StrEnum):
    """What a feature's value is."""

    FLAG = "flag"
    RANK = "rank"
    COUNT = "count"


@dataclass(frozen=True)
class CardFeature:
    """One card feature: ``parents`` are the features one of which must be on for it to be."""

    name: str
    kind: Kind
    parents: tuple[str, ...]
    text: str


def _parse(spec: str) -> tuple[CardFeature, ...]:
    """Lines ``name | kind | parent[,parent] | text`` (kind: f flag, r rank, c count)."""
    kinds = {"f": Kind.FLAG, "r": Kind.RANK, "c": Kind.COUNT}
    features = []
    for line in filter(None, (line.strip() for line in spec.splitlines())):
        name, kind, parents, text = (part.strip() for part in line.split("|"))
        features.append(
            CardFeature(name, kinds[kind], tuple(p for p in parents.split(",") if p), text)
        )
    return tuple(features)


PREFLOP_PRIVATE = _parse("""
pocket_pair | f | | the hole cards are a pair
pair_rank | r | pocket_pair | rank of the pair
hi_rank | r | | unpaired: the higher hole card
lo_rank | r | | unpaired: the lower hole card
suited | f | | unpaired and of one suit
straights | c | | straights (of the 10) that use both hole cards
""")

FLOP_BOARD = _parse("""
trips_flop | f | | three of a kind on the flop
trips_rank | r | trips_flop | its rank
pair_flop | f | | a pair on the flop
pair_rank | r | pair_flop | rank of the board pair
pair_kicker | r | pair_flop | rank of the odd card
pair_above_kicker | f | pair_flop | the pair is above the odd card
unpaired_flop | f | | three different ranks
flop_hi | r | unpaired_flop | highest flop card
flop_mid | r | unpaired_flop | middle flop card
flop_lo | r | unpaired_flop | lowest flop card
monotone | f | | all three of one suit
two_tone | f | | two of one suit
rainbow | f | | three suits
suit_top | r | monotone,two_tone | highest board card of the suit with two or more
two_gaps | c | | straights two hole cards could make now (windows missing two ranks)
single_draw_hands | c | | hole-rank pairs with one rank to a straight (single draws)
double_draw_hands | c | | hole-rank pairs with two or more ranks to a straight
backdoor_windows | c | | straight windows holding exactly two board ranks
one_gap_outs | c | | next-card ranks that would leave a one-card straight on board
""")

_FLOP_HAND = """
tf_quads | f | trips_flop | quads (a hole card matches the trips)
tf_pocket_pair | f | trips_flop | a pocket pair: a full house
tf_pocket_rank | r | tf_pocket_pair | its rank
tf_hi | r | trips_flop | the higher hole card (the kicker)
tf_lo | r | trips_flop | the lower hole card
pf_quads | f | pair_flop | a pocket pair matching the board pair
pf_full_pocket | f | pair_flop | a pocket pair matching the odd card: a full house
pf_full_unpaired | f | pair_flop | one hole card on each board rank: a full house
pf_trips | f | pair_flop | one hole card matches the board pair
pf_trips_above_pair | f | pf_trips | the other hole card is above the board pair
pf_trips_above_kicker | f | pf_trips | the other hole card is above the odd card
pf_pocket | f | pair_flop | a pocket pair off the board: two pair
pf_pocket_rank | r | pf_pocket | its rank
pf_pocket_above_pair | f | pf_pocket | it is above the board pair
pf_pocket_above_kicker | f | pf_pocket | it is above the odd card
pf_kicker_paired | f | pair_flop | a hole card pairs the odd card: two pair
pf_kp_other | r | pf_kicker_paired | rank of the other hole card
pf_kp_other_above_pair | f | pf_kicker_paired | it is above the board pair
pf_kp_other_above_kicker | f | pf_kicker_paired | it is above the odd card
pf_hi | r | pair_flop | no match: the higher hole card
pf_lo | r | pair_flop | no match: the lower hole card
pf_above_pair | c | pair_flop | no match: hole cards above the board pair
pf_above_kicker | c | pair_flop | no match: hole cards above the odd card
np_set | f | unpaired_flop | a pocket pair matching a flop card
np_set_rank | r | np_set | its rank
np_set_which | c | np_set | which flop card it matches (1 highest .. 3 lowest)
np_two_pair | f | unpaired_flop | each hole card matches a flop card
np_tp_hi | r | np_two_pair | the higher pair
np_tp_lo | r | np_two_pair | the lower pair
np_tp_missing | c | np_two_pair | which flop card is unmatched (1 highest .. 3 lowest)
np_pocket | f | unpaired_flop | a pocket pair off the board
np_pocket_rank | r | np_pocket | its rank
np_pocket_under | c | np_pocket | flop cards above it
np_pair | f | unpaired_flop | one hole card matches a flop card
np_pair_rank | r | np_pair | rank of the pair
np_pair_under | c | np_pair | flop cards above the pair
np_pair_kicker | r | np_pair | the other hole card
np_kicker_under | c | np_pair | flop cards above the other hole card
np_nothing | f | unpaired_flop | no pair
np_hi | r | np_nothing | the higher hole card
np_hi_under | c | np_nothing | flop cards above it
np_lo | r | np_nothing | the lower hole card
np_lo_under | c | np_nothing | flop cards above it
"""

_FLOP_FLUSH = """
mono_flush | f | monotone | both hole cards of the suit: a flush
mono_flush_higher | c | mono_flush | ranks of the suit above my best one, off the board
mono_draw | f | monotone | one hole card of the suit: a one-card flush draw
mono_draw_higher | c | mono_draw | ranks of the suit above it, off the board
tt_draw | f | two_tone | both hole cards of the two-card suit: a flush draw
tt_draw_higher | c | tt_draw | ranks of the suit above my best one, off the board
tt_backdoor_one | f | two_tone | one hole card of the two-card suit: a backdoor draw
tt_backdoor_one_higher | c | tt_backdoor_one | ranks of the suit above it, off the board
tt_backdoor_two | f | two_tone | both hole cards of a one-card suit: a backdoor draw
tt_backdoor_two_higher | c | tt_backdoor_two | ranks of the suit above my best one, off the board
rb_backdoor | f | rainbow | both hole cards of a board card's suit: a backdoor draw
rb_backdoor_higher | c | rb_backdoor | ranks of the suit above my best one, off the board
"""

_STRAIGHT_MINE = """
st_straight | f | | a straight using a hole card
st_higher | c | st_straight | higher straights two hole cards could make
st_single | f | | one rank to a straight using a hole card (single draw)
st_double | f | | two or more ranks to a straight (double draw)
st_higher_one_gap | c | st_straight,st_single,st_double | higher one-card straights, mine made
st_higher_two_gap | c | st_straight,st_single,st_double | higher two-card straights, mine made
st_shared_one_gap | c | st_single,st_double | one-card straights my ranks also make
"""

FLOP_PRIVATE = _parse(
    _FLOP_HAND
    + _FLOP_FLUSH
    + _STRAIGHT_MINE
    + """
st_shared_single | c | st_single,st_double | single-draw hands my ranks also complete
st_shared_double | c | st_single,st_double | double-draw hands my ranks also complete
bd_windows | c | | backdoor straights: windows two ranks short that use a hole card
bd_higher | c | bd_windows | higher windows with a board rank in them
bd_shared_one_gap | c | bd_windows | one-gap outs among my backdoor ranks
bd_shared_single | c | bd_windows | single-draw hands whose rank my backdoor needs too
bd_shared_double | c | bd_windows | double-draw hands whose ranks my backdoor needs too
if_pair_single | c | | single-draw hands the next card completes if it pairs a hole card
if_pair_double | c | | double-draw hands the next card completes if it pairs a hole card
"""
)

TURN_BOARD = _parse("""
t_quads_board | f | trips_flop | the turn makes four of a kind on board
t_trips_from_pair | f | pair_flop | the turn matches the flop pair: trips on board
t_trips_kicker | r | trips_flop | trips flop, the turn a new rank: its rank
t_trips_kicker_above | f | trips_flop | that turn card is above the trips
t_two_pair_board | f | pair_flop | the turn matches the flop's odd card: two pair on board
t_pair_turn | r | pair_flop | pair flop, the turn a new rank: its rank
t_pair_turn_above_pair | f | pair_flop | that turn card is above the board pair
t_pair_turn_above_kicker | f | pair_flop | that turn card is above the odd card
t_pairs_flop | f | unpaired_flop | the turn pairs a card of an unpaired flop
t_pairs_which | c | t_pairs_flop | which flop card (1 highest .. 3 lowest)
t_unpaired_turn | r | unpaired_flop | unpaired flop, the turn a new rank: its rank
t_unpaired_under | c | unpaired_flop | flop cards below that turn card
t_four_flush | f | monotone | monotone flop, the turn of the suit: four of a suit
t_three_flush | f | two_tone | two-tone flop, the turn of the pair's suit: three of a suit
t_two_draws | f | two_tone | two-tone flop, the turn of the single card's suit: two two-card suits
t_new_draw | f | rainbow | rainbow flop, the turn matches a flop suit
t_one_gaps | c | | straights one hole card could make now (windows missing one rank)
t_singles_done | c | | flop single-draw hands the turn completed
t_doubles_done | c | | flop double-draw hands the turn completed
t_new_singles | c | | single-draw hands now that had no draw on the flop
t_new_doubles | c | | double-draw hands now that had no draw on the flop
t_single_to_double | c | | double-draw hands now that were single draws on the flop
""")

_TURN_HAND = """
q_hi | r | t_quads_board | my higher hole card: the kicker
q_higher | c | t_quads_board | ranks above it, off the board
tb_quads | f | t_trips_from_pair,t_trips_kicker | a hole card matches the board trips
tb_full | f | t_trips_from_pair,t_trips_kicker | a hole card matches the board kicker
tb_kicker_above | f | t_trips_from_pair,t_trips_kicker | my kicker is above the board kicker
tb_kicker | r | t_trips_from_pair,t_trips_kicker | my kicker (best hole card off the trips)
tb_pocket | f | t_trips_from_pair,t_trips_kicker | a pocket pair: a full house
tb_pocket_full_higher | f | tb_pocket | my pair is above the board kicker (a higher full)
tb_pocket_rank | r | tb_pocket | its rank
tb_hi | r | t_trips_from_pair,t_trips_kicker | my higher hole card
tb_lo | r | t_trips_from_pair,t_trips_kicker | my lower hole card
tb_above_kicker | c | t_trips_from_pair,t_trips_kicker | hole cards above the board kicker
tp_quads | f | t_two_pair_board | a pocket pair matching a board pair
tp_quads_higher | c | tp_quads | higher quads possible
tp_full | f | t_two_pair_board | a hole card matches a board pair
tp_full_higher | c | tp_full | higher full houses possible
tp_pocket_plays | f | t_two_pair_board | a pocket pair above the lower board pair
tp_pocket_rank | r | tp_pocket_plays | its rank
tp_pocket_pairs_below | c | tp_pocket_plays | board pairs below it
tp_pocket_idle | f | t_two_pair_board | a pocket pair below both board pairs
tp_hi | r | t_two_pair_board | my higher hole card
tp_pairs_below_hi | c | t_two_pair_board | board pairs below my higher hole card
tp_pairs_below_lo | c | t_two_pair_board | board pairs below my lower hole card
"""

_PAIRED_HAND = """
{p}_quads | f | {b} | a pocket pair matching the board pair
{p}_full_pocket | f | {b} | a pocket pair matching a board kicker: a full house
{p}_full_unpaired | f | {b} | hole cards on the pair and on a kicker: a full house
{p}_full_pocket_higher | c | {p}_full_pocket,{p}_full_unpaired | higher pocket fulls possible
{p}_full_unpaired_higher | c | {p}_full_pocket,{p}_full_unpaired | higher unpaired fulls possible
{p}_trips | f | {b} | one hole card matches the board pair
{p}_trips_above_pair | f | {p}_trips | the other hole card is above the board pair
{p}_trips_kickers_below | c | {p}_trips | board kickers below the other hole card
{p}_pocket | f | {b} | a pocket pair off the board: two pair
{p}_pocket_rank | r | {p}_pocket | its rank
{p}_pocket_above_pair | f | {p}_pocket | it is above the board pair
{p}_pocket_kickers_below | c | {p}_pocket | board kickers below it
{p}_kicker_paired | f | {b} | a hole card pairs a board kicker: two pair
{p}_kp_pair_below | f | {p}_kicker_paired | the board pair is below my pair
{p}_kp_kickers_below | c | {p}_kicker_paired | board kickers below my pair
{p}_kp_other | r | {p}_kicker_paired | the other hole card
{p}_kp_other_above_pair | f | {p}_kicker_paired | it is above the board pair
{p}_kp_other_kickers_below | c | {p}_kicker_paired | board kickers below it
{p}_hi | r | {b} | no match: my higher hole card
{p}_lo | r | {b} | no match: my lower hole card
{p}_above_pair | c | {b} | no match: hole cards above the board pair
"""

_UNPAIRED_HAND = """
{p}_set | f | {b} | a pocket pair matching a board card
{p}_set_rank | r | {p}_set | its rank
{p}_set_under | c | {p}_set | board cards above it
{p}_two_pair | f | {b} | each hole card matches a board card
{p}_tp_hi | r | {p}_two_pair | the higher pair
{p}_tp_lo | r | {p}_two_pair | the lower pair
{p}_tp_below_hi | c | {p}_two_pair | board cards below the higher pair
{p}_tp_below_lo | c | {p}_two_pair | board cards below the lower pair
{p}_pocket | f | {b} | a pocket pair off the board
{p}_pocket_rank | r | {p}_pocket | its rank
{p}_pocket_under | c | {p}_pocket | board cards above it
{p}_pair | f | {b} | one hole card matches a board card
{p}_pair_rank | r | {p}_pair | rank of the pair
{p}_pair_under | c | {p}_pair | board cards above the pair
{p}_pair_kicker | r | {p}_pair | the other hole card
{p}_kicker_under | c | {p}_pair | board cards above it
{p}_nothing | f | {b} | no pair
{p}_hi | r | {p}_nothing | the higher hole card
{p}_hi_under | c | {p}_nothing | board cards above it
{p}_lo | r | {p}_nothing | the lower hole card
{p}_lo_under | c | {p}_nothing | board cards above it
"""

TURN_PRIVATE = _parse(
    _TURN_HAND
    + _PAIRED_HAND.format(p="pb", b="t_pair_turn,t_pairs_flop")
    + "pb_above_kickers | c | t_pair_turn,t_pairs_flop | no match: hole cards above board"
    " kickers (each card against each kicker)\n"
    + _UNPAIRED_HAND.format(p="ub", b="t_unpaired_turn")
    + """
f4_flush | f | t_four_flush | a hole card of the suit: a flush
f4_flush_higher | c | f4_flush | ranks of the suit above my best one, off the board
f4_both | f | f4_flush | both hole cards of the suit
f3_flush | f | monotone,t_three_flush | both hole cards of the three-suit: a flush
f3_flush_higher | c | f3_flush | ranks of the suit above my best one, off the board
f3_draw | f | monotone,t_three_flush | one hole card of the three-card suit: a flush draw
f3_draw_higher | c | f3_draw | ranks of the suit above it, off the board
fd_front | f | t_two_draws | both hole cards of the flop's pair of suits: a draw
fd_front_higher | c | fd_front | ranks of the suit above my best one, off the board
fd_back | f | t_two_draws | both hole cards of the turn card's suit: a flush draw
fd_back_higher | c | fd_back | ranks of the suit above my best one, off the board
f2_draw | f | two_tone,t_new_draw | both hole cards of a two-card suit: a flush draw
f2_draw_higher | c | f2_draw | ranks of the suit above my best one, off the board
"""
    + _STRAIGHT_MINE
    + """
st_one_gap | f | st_straight | my straight uses one hole card
st_outs | c | st_single,st_double | ranks that complete a straight for me
st_shared_flop_single | c | st_single,st_double | flop single-draw hands my ranks also complete
st_shared_new_single | c | st_single,st_double | new single-draw hands my ranks also complete
st_shared_flop_double | c | st_single,st_double | flop double-draw hands my ranks also complete
st_shared_single_to_double | c | st_single,st_double | single-to-double draw hands my ranks complete
st_shared_new_double | c | st_single,st_double | new double-draw hands my ranks also complete
if_pair_single | c | | single-draw hands the next card completes if it pairs a hole card
if_pair_double | c | | double-draw hands the next card completes if it pairs a hole card
"""
)

SHORT_RIVER_BOARD = _parse("""
r_quads_board | f | | four of a kind on board
r_quads_rank | r | r_quads_board | its rank
r_quads_kicker | r | r_quads_board | the fifth board card
r_full_board | f | | a full house on board
r_full_trips | r | r_full_board | rank of its three
r_full_pair | r | r_full_board | rank of its two
r_trips_board | f | | three of a kind on board, two odd cards
r_trips_rank | r | r_trips_board | its rank
r_trips_kickers_above | c | r_trips_board | odd cards above the trips
r_two_pair_board | f | | two pair on board
r_tp_hi | r | r_two_pair_board | the higher board pair
r_tp_lo | r | r_two_pair_board | the lower board pair
r_tp_kicker | r | r_two_pair_board | the odd card
r_pair_board | f | | one pair on board
r_pair_rank | r | r_pair_board | its rank
r_pair_kickers_above | c | r_pair_board | odd cards above the pair
r_unpaired_board | f | | five different ranks
r_rank_1 | r | | highest board card
r_rank_2 | r | | second board card
r_rank_3 | r | | third board card
r_rank_4 | r | | fourth board card
r_rank_5 | r | | lowest board card
r_flush_board | f | | five of one suit on board
r_four_flush | f | | four of one suit on board
r_three_flush | f | | three of one suit on board
r_flush_bottom | r | r_flush_board | lowest board card of the suit (hole cards above it play)
r_flush_top | r | r_flush_board,r_four_flush,r_three_flush | highest board card of the suit
r_straight_board | f | | a straight on board
r_one_gaps | c | | straights one hole card makes (windows missing one rank)
r_two_gaps | c | | straights two hole cards make (windows missing two ranks)
""")

RIVER_BOARD = SHORT_RIVER_BOARD + _parse("""
r_river_rank | r | | the river card
r_river_pairs | f | | the river pairs a board card
r_river_top | f | | the river is the highest board card
r_river_suits | f | r_flush_board,r_four_flush,r_three_flush | the river is of the flush suit
r_singles_done | c | | turn single-draw hands the river completed
r_doubles_done | c | | turn double-draw hands the river completed
r_new_singles_done | c | | the turn's new single-draw hands the river completed
r_single_to_double_done | c | | the turn's single-to-double hands the river completed
""")

RIVER_PRIVATE = _parse(
    """
rq_kicker_plays | f | r_quads_board | my higher hole card beats the board kicker
rq_kicker | r | r_quads_board | the best kicker, mine or the board's
rf_quads | f | r_full_board | quads
rf_higher_full | f | r_full_board | a full house above the board's
rf_fulls_above | c | r_full_board | full houses above mine possible
rt_quads | f | r_trips_board | a hole card matches the trips
rt_full | f | r_trips_board | a hole card or pocket pair makes a full house
rt_fulls_above | c | rt_full | higher full houses possible
rt_hi | r | r_trips_board | my higher hole card
rt_lo | r | r_trips_board | my lower hole card
rtp_quads | f | r_two_pair_board | a pocket pair matching a board pair
rtp_quads_higher | c | rtp_quads | higher quads possible
rtp_full | f | r_two_pair_board | a hole card matches a board pair
rtp_full_higher | c | rtp_full | higher full houses possible
rtp_pocket_plays | f | r_two_pair_board | a pocket pair above the lower board pair
rtp_pocket_rank | r | rtp_pocket_plays | its rank
rtp_pocket_above_kicker | f | rtp_pocket_plays | it is above the odd card
rtp_kicker_paired | f | r_two_pair_board | a hole card pairs the odd card above the lower pair
rtp_hi | r | r_two_pair_board | my higher hole card
"""
    + _PAIRED_HAND.format(p="rp", b="r_pair_board")
    + "rp_below_hi | c | r_pair_board | no match: board cards below my higher hole card\n"
    + "rp_below_lo | c | r_pair_board | no match: board cards below my lower hole card\n"
    + _UNPAIRED_HAND.format(p="ru", b="r_unpaired_board")
    + """
rfl_plays | f | r_flush_board | a hole card of the suit above the board's lowest
rfl_higher | c | rfl_plays | ranks of the suit above my best one, off the board
rf4_flush | f | r_four_flush | a hole card of the suit: a flush
rf4_higher | c | rf4_flush | ranks of the suit above my best one, off the board
rf3_flush | f | r_three_flush | both hole cards of the suit: a flush
rf3_higher | c | rf3_flush | ranks of the suit above my best one, off the board
rs_one_gap | f | | a straight using one hole card
rs_two_gap | f | | a straight using both hole cards
rs_higher_one_gap | c | rs_one_gap,rs_two_gap | higher one-card straights possible
rs_higher_two_gap | c | rs_one_gap,rs_two_gap | higher two-card straights possible
hand_high_card | f | | my best hand: high card
hand_pair | f | | my best hand: one pair
hand_two_pair | f | | my best hand: two pair
hand_trips | f | | my best hand: three of a kind
hand_straight | f | | my best hand: a straight
hand_flush | f | | my best hand: a flush
hand_full_house | f | | my best hand: a full house
hand_quads | f | | my best hand: four of a kind (or a straight flush)
plays_board | f | | my best hand is the board's: the hole cards do not play
"""
)

STAGE_BOARD = ((), FLOP_BOARD, TURN_BOARD, RIVER_BOARD)
"""Board features new at each stage (preflop, flop, turn, river)."""

STAGE_PRIVATE = (PREFLOP_PRIVATE, FLOP_PRIVATE, TURN_PRIVATE, RIVER_PRIVATE)
"""Private features of each stage."""


def action_inputs(stage: int) -> tuple[CardFeature, ...]:
    """The card features the action function reads at ``stage``: every board feature so
    far and this stage's private ones; on the river the short order-free board list."""
    if stage == 3:
        return SHORT_RIVER_BOARD + RIVER_PRIVATE
    board = tuple(f for s in range(stage + 1) for f in STAGE_BOARD[s])
    return board + STAGE_PRIVATE[stage]


def markdown_table(features: tuple[CardFeature, ...]) -> str:
    """A markdown table of ``features`` (the docs' tables are generated with it)."""
    lines = ["| # | feature | kind | nested under | meaning |", "| --- | --- | --- | --- | --- |"]
    for i, feature in enumerate(features, 1):
        parents = " or ".join(f"`{p}`" for p in feature.parents)
        lines.append(f"| {i} | `{feature.name}` | {feature.kind} | {parents} | {feature.text} |")
    return "\n".join(lines)
