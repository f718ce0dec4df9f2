"""The requests the web API accepts, validated: a bad field gets a 422 naming it."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from poolshark.engine.config import Betting

AgentName = Annotated[str, Field(min_length=1, max_length=64)]
SESSION_ID = r"^[A-Za-z0-9_-]{1,64}$"
"""What a session id looks like (``secrets.token_urlsafe``)."""


class Strict(BaseModel):
    """Unknown fields are an error, so a typo never passes silently."""

    model_config = ConfigDict(extra="forbid")


class GameRequest(Strict):
    """The game of a new session: heads-up or 6-max, no-limit or fixed-limit."""

    seats: Literal[2, 6] = 2
    betting: Betting = Betting.NO_LIMIT
    stack_bb: int = Field(100, ge=10, le=500, description="Every seat's stack each hand.")
    max_hands: int | None = Field(None, ge=1, description="At most the server's limit.")


class PlayRequest(GameRequest):
    """A person against agents: one agent name for every other seat, or one per seat."""

    opponents: list[AgentName] = Field(default_factory=lambda: ["tag"], min_length=1, max_length=9)
    name: str = Field("Hero", pattern=r"^[A-Za-z0-9_]{1,20}$")

    @model_validator(mode="after")
    def _one_per_seat(self) -> PlayRequest:
        if len(self.opponents) not in (1, self.seats - 1):
            raise ValueError(f"give one opponent for every seat or {self.seats - 1} of them")
        return self


class SpectateRequest(GameRequest):
    """Agents against agents, watched at ``actions_per_second``."""

    agents: list[AgentName] = Field(
        default_factory=lambda: ["tag", "station"], min_length=1, max_length=10
    )
    actions_per_second: float = Field(2.0, ge=0, le=50, allow_inf_nan=False)

    @model_validator(mode="after")
    def _one_per_seat(self) -> SpectateRequest:
        if len(self.agents) not in (1, self.seats):
            raise ValueError(f"give one agent for every seat or {self.seats} of them")
        return self


class ActRequest(Strict):
    """A person's action; ``amount`` is a raise's total this round (fixed-limit: optional)."""

    move: Literal["fold", "check", "call", "raise"]
    amount: int | None = Field(None, ge=0, le=10**9)


class SpeedRequest(Strict):
    """A spectated table's speed; 0 pauses it."""

    actions_per_second: float = Field(ge=0, le=50, allow_inf_nan=False)
