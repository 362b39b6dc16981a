"""Rubber bridge: the WE/THEY score sheet, games, honours and the rubber bonus.

Rules from seed 002 ("Scoring" to "Example of Rubber Bridge scoring"): the
trick score for tricks bid and made goes below the line and counts towards
game (100); overtricks, the insult (50/100), slams, undertricks and honours go
above the line. A side with a game is vulnerable. The first side to win two
games wins the rubber: 700 if 2-0, 500 if 2-1. An unfinished rubber gives
300 to a side with a game and 100 to a side with a part score in the game in
progress (seed 002; the ACBL Rubber Laws 2014, Law 80, agree). Trick values,
overtricks and undertricks are the same as Law 77 (seed 002 says so), so this
module reuses :func:`dealer.scoring.duplicate.score_parts` without the
duplicate game/part-score premiums.

Honours (seed 002 "Honours"): 150 for all five trump honours (A K Q J 10) in
one hand, 100 for four, and 150 for four aces in one hand at no trumps; they
go to the side of the player holding them, defenders included.

>>> sheet = RubberSheet()
>>> _ = sheet.record(Contract.parse("4S"), 10, by=Team.WE)
>>> _ = sheet.record(Contract.parse("3NT"), 9, by=Team.WE)
>>> sheet.winner, sheet.totals()
(<Team.WE: 'WE'>, {<Team.WE: 'WE'>: 920, <Team.THEY: 'THEY'>: 0})
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from dealer.cards import Rank, Strain
from dealer.contract import Contract, ContractError
from dealer.deal import Deal
from dealer.scoring.duplicate import score_parts
from dealer.seats import Seat, Side


class Team(Enum):
    """The two columns of a rubber or Chicago score sheet."""

    WE = "WE"
    THEY = "THEY"

    @property
    def other(self) -> Team:
        return Team.THEY if self is Team.WE else Team.WE


@dataclass(frozen=True, slots=True)
class Entry:
    """One figure on the sheet."""

    team: Team
    points: int
    below: bool        # below the line (counts towards game)
    label: str         # what it is for: "contract", "overtricks", "slam", ...
    deal: int          # 1-based deal number on this sheet
    game: int          # 1-based game of the rubber in which it was scored


def honours_bonus(deal: Deal, strain: Strain) -> tuple[Seat | None, int]:
    """The honours held in one hand: (seat, 100 or 150), or (None, 0).

    >>> d = Deal.from_pbn("N:AKQJ.AKQ.AKQ.AKQ T987.JT9.JT9.JT9 6543.876.876.876 2.5432.5432.5432")
    >>> honours_bonus(d, Strain.NOTRUMP), honours_bonus(d, Strain.SPADES)
    ((<Seat.NORTH: 0>, 150), (<Seat.NORTH: 0>, 100))
    """
    suit = strain.suit
    for seat in Seat:
        hand = deal.hand(seat)
        if suit is None:
            aces = sum(1 for c in hand.cards if c.rank is Rank.ACE)
            if aces == 4:
                return seat, 150
            continue
        held = sum(1 for c in hand.cards if c.suit == suit and c.rank >= Rank.TEN)
        if held == 5:
            return seat, 150
        if held == 4:
            return seat, 100
    return None, 0


class RubberSheet:
    """A rubber bridge score sheet. ``we`` says which side the WE column is."""

    def __init__(self, we: Side = Side.NS) -> None:
        self.we = we
        self.entries: list[Entry] = []
        self.games: list[Team] = []           # winner of each finished game
        self.deals = 0
        self.finished_early = False

    # -- state ---------------------------------------------------------------
    def team_of(self, seat: Seat) -> Team:
        return Team.WE if Side.of(seat) is self.we else Team.THEY

    def games_won(self, team: Team) -> int:
        return self.games.count(team)

    def vulnerable(self, team: Team) -> bool:
        """A side that has won a game of this rubber is vulnerable."""
        return self.games_won(team) >= 1

    @property
    def game_number(self) -> int:
        return len(self.games) + 1

    def below_in_current_game(self, team: Team) -> int:
        """Points below the line towards the game in progress."""
        return sum(e.points for e in self.entries
                   if e.team is team and e.below and e.game == self.game_number)

    @property
    def is_over(self) -> bool:
        return self.finished_early or any(self.games_won(t) == 2 for t in Team)

    @property
    def winner(self) -> Team | None:
        """Who won the rubber (two games), if anyone has."""
        for t in Team:
            if self.games_won(t) == 2:
                return t
        return None

    def totals(self) -> dict[Team, int]:
        return {t: sum(e.points for e in self.entries if e.team is t) for t in Team}

    # -- recording -------------------------------------------------------------
    def _add(self, team: Team, points: int, below: bool, label: str) -> Entry:
        e = Entry(team, points, below, label, self.deals, self.game_number)
        self.entries.append(e)
        return e

    def record(self, contract: Contract, tricks: int, *, by: Team | None = None,
               honours: tuple[Team, int] | None = None) -> list[Entry]:
        """Score one deal: ``contract`` declared by ``by`` (or its declarer's team).

        ``honours`` is (team, 100 or 150) when honours were claimed.
        Returns the new entries. A passed-out deal adds nothing.
        """
        if self.is_over:
            raise ContractError("the rubber is over; start a new sheet")
        self.deals += 1
        new_from = len(self.entries)
        if contract.is_passed_out:
            return []
        if by is None:
            if contract.declarer is None:
                raise ContractError(
                    f"deal {self.deals}: say who declared {contract.ascii} (WE or THEY)")
            by = self.team_of(contract.declarer)
        parts = score_parts(contract, tricks, self.vulnerable(by))
        if honours is not None:
            team, points = honours
            if points not in (100, 150):
                raise ContractError(f"honours are worth 100 or 150, not {points}")
            self._add(team, points, False, "honours")
        if parts.undertricks:
            self._add(by.other, parts.undertricks, False, "undertricks")
        else:
            for label, points in (("overtricks", parts.overtricks), ("insult", parts.insult),
                                  ("slam", parts.slam)):
                if points:
                    self._add(by, points, False, label)
            self._add(by, parts.contract_points, True, "contract")
            if self.below_in_current_game(by) >= 100:
                self.games.append(by)
                if self.games_won(by) == 2:
                    bonus = 700 if self.games_won(by.other) == 0 else 500
                    self._add(by, bonus, False, "rubber")
        return self.entries[new_from:]

    def finish(self) -> list[Entry]:
        """End an unfinished rubber: 300 for a game, 100 for a part score (seed 002)."""
        if self.is_over:
            return []
        new_from = len(self.entries)
        for t in Team:
            if self.games_won(t):
                self._add(t, 300, False, "unfinished rubber: game")
        for t in Team:
            if self.below_in_current_game(t):
                self._add(t, 100, False, "unfinished rubber: part score")
        self.finished_early = True
        return self.entries[new_from:]

    # -- the sheet ---------------------------------------------------------------
    def render(self, width: int = 10) -> str:
        """The sheet as text: WE and THEY, above-line figures stacked upwards from
        the line (the British custom in seed 002), each game below it, then totals.
        """
        def row(left: str, right: str) -> str:
            return f"{left:>{width}} | {right:>{width}}".rstrip()

        def stack(items: list[Entry]) -> dict[Team, list[str]]:
            return {t: [str(e.points) for e in items if e.team is t] for t in Team}

        lines = [row("WE", "THEY"), "-" * (2 * width + 3)]
        above = stack([e for e in self.entries if not e.below])
        height = max(len(v) for v in above.values())
        for i in range(height - 1, -1, -1):
            cells = [above[t][i] if i < len(above[t]) else "" for t in Team]
            lines.append(row(*cells))
        lines.append("=" * (2 * width + 3))  # the line
        games = sorted({e.game for e in self.entries if e.below})
        for g in games:
            below = stack([e for e in self.entries if e.below and e.game == g])
            for i in range(max(len(v) for v in below.values())):
                cells = [below[t][i] if i < len(below[t]) else "" for t in Team]
                lines.append(row(*cells))
            lines.append("-" * (2 * width + 3))
        totals = self.totals()
        lines.append(row(str(totals[Team.WE]), str(totals[Team.THEY])))
        return "\n".join(lines)
