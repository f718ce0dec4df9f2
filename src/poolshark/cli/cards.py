"""``poolshark hand``: evaluate one hand of 5 to 7 cards."""

from __future__ import annotations

from typing import Annotated

import typer

from poolshark.cards.card import format_cards, parse_cards
from poolshark.cards.evaluator import evaluate
from poolshark.cards.hand_value import category_of, describe
from poolshark.cli.common import JsonFlag, console, print_json, user_errors


def hand(
    cards: Annotated[list[str], typer.Argument(help="5 to 7 cards, e.g. 'AhKhQhJhTh'.")],
    json_output: JsonFlag = False,
) -> None:
    """Evaluate a 5-7 card hand: its value (1..7462, higher wins), category and name."""
    with user_errors():
        indices = parse_cards("".join(cards))
        value = evaluate(indices)
    category = category_of(value)
    if json_output:
        print_json(
            {
                "cards": format_cards(indices, " "),
                "value": value,
                "category": category.name.lower(),
                "description": describe(value),
            }
        )
        return
    console.print(f"{format_cards(indices, ' ')}: [bold]{describe(value)}[/] (value {value})")
