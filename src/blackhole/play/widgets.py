"""The widgets and modal screens of the terminal game: a fan's column, the end screen,
the rules, the save dialogue and a yes-or-no question, and the style sheet they share.

They draw and ask; the table (`blackhole.play.app.Table`) decides. The end screen reaches
the table only through `TableActions`, so nothing here imports the screen's logic.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from blackhole.model.cards import Card
from blackhole.model.deal import Kind
from blackhole.model.games import Won
from blackhole.model.rules import Outcome
from blackhole.play import board, engine
from blackhole.play.game import Game
from blackhole.play.session import Review

CSS = """
Table { padding: 0 1; }
#title { text-style: bold; height: 1; }
#hole { height: 1; margin: 1 0 1 0; }
#hole.above-talon { margin: 1 0 0 0; }
#talon { height: 1; margin: 0 0 1 0; }
#hole.above-cell { margin: 1 0 0 0; }
#cell { height: 1; margin: 0 0 1 0; }
#fans { height: auto; }
.fan { width: 4; height: auto; }
#slots { width: auto; height: auto; }
#status { height: 1; margin-top: 1; }
#message { height: 2; }
#coach { height: 2; }
#keys { dock: bottom; height: auto; color: $text-muted; }
#small { dock: top; height: auto; text-style: bold; color: $error; display: none; }
.box { width: 66; height: auto; max-height: 22; border: round $accent; padding: 0 1;
       background: $panel; }
.wide { width: 78; }
ModalScreen { align: center middle; }
#save-path { width: 60; }
"""


def card_name(card: Card | None, ascii_only: bool) -> str:
    if card is None:
        return "the empty hole"
    return str(card) if ascii_only else card.unicode()


class FanView(Static):
    """One fan, drawn as a column; a click on it plays its top card (`play`)."""

    def __init__(self, fan: int, play: Callable[[int], None]) -> None:
        super().__init__(id=f"fan-{board.FAN_LETTERS[fan]}", classes="fan")
        self.fan = fan
        self.play = play
        self.drawn: Text | None = None

    def show(self, text: Text) -> None:
        """Redraw only when the column changed: a move touches one or a few fans."""
        if text != self.drawn:
            self.drawn = text
            self.update(text)

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.play(self.fan)


class SlotsView(Static):
    """A layout not made of fans, drawn card by card (`blackhole.play.slots`); a click on
    a card, or on the letter under it, plays it (`pick`, given the card there)."""

    def __init__(self, at: Callable[[int, int], Card | None],
                 pick: Callable[[Card], None]) -> None:
        super().__init__(id="slots")
        self.at = at
        self.pick = pick

    def on_click(self, event: events.Click) -> None:
        event.stop()
        card = self.at(event.x, event.y)
        if card is not None:
            self.pick(card)


class PileView(Static):
    """A pile's line, shown only in a game that has the pile: the talon's (`#talon`: a
    click turns its next card) or the free cell's (`#cell`: a click plays its card onto
    the hole); a click does what `act` does."""

    def __init__(self, pile: str, act: Callable[[], None]) -> None:
        super().__init__(id=pile)
        self.act = act

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.act()


class TableActions(Protocol):
    """What the end screen asks of the game table."""

    game: Game

    refused: str | None  # why the hint engine does not take this deal's game

    def shown(self, card: Card | None) -> str: ...

    def fetch_review(self, game: Game, screen: EndScreen) -> Any: ...

    def replay_best(self, line: tuple[Card, ...]) -> None: ...

    def action_undo(self) -> None: ...

    async def action_new(self) -> None: ...


class EndScreen(ModalScreen[None]):
    """Won or blocked: the score, the best possible on this deal, the first move that
    lost, and the offer to replay the best line."""

    BINDINGS = [
        Binding("b,B", "best", "replay the best line"),
        Binding("u,U", "undo", "undo"),
        Binding("N,n", "new", "new deal"),
        Binding("escape,enter,space", "close", "look at the table"),
        Binding("Q", "app.quit", "quit"),  # a modal screen does not pass keys to the app
    ]

    def __init__(self, table: TableActions) -> None:
        super().__init__()
        self.table = table
        self.game = table.game
        self.found: Review | None = None

    def compose(self) -> ComposeResult:
        with Vertical(classes="box"):
            yield Static(id="end")

    def on_mount(self) -> None:
        game, of = self.game, self.game.start.of
        if game.outcome is Outcome.WON:
            self.show(Text(f"You won: {game.score}/{of}, {won_text(game)}.",
                           style="bold green"))
            return
        spent = " and the talon is spent" if game.deal.game.rules.talon else ""
        self.show(Text(f"Blocked at {game.score}/{of}: no "
                       f"{board.card_word(game.deal.game)} fits "
                       f"{self.table.shown(game.state.foundation)}{spent}.", style="bold"))
        reason = engine.missing() or self.table.refused
        if reason:
            self.add(Text(f"the best score is unknown: {reason}", style="red"))
            return
        self.add(Text("working out the best score of this deal ...", style="dim"))
        self.table.fetch_review(game, self)

    def show(self, text: Text, extra: list[str] | None = None) -> None:
        self.lines = [text]
        self.draw_lines(extra or [])

    def add(self, text: Text) -> None:
        self.lines.append(text)
        self.draw_lines([])

    def draw_lines(self, offers: list[str]) -> None:
        keys = [*offers, "u undo", "N new deal", "Esc the table", "Q quit"]
        body = Text("\n").join([*self.lines, Text(""), Text("   ".join(keys), style="dim")])
        self.query_one("#end", Static).update(body)

    def show_review(self, found: Review) -> None:
        if not self.is_attached:  # closed while the engine worked
            return
        self.found = found
        self.lines = self.lines[:1] + [review_text(found, self.table.shown,
                                                   self.game.deal.game.chains)]
        self.draw_lines(["b replay the best line"] if found.line else [])

    def failed(self, reason: str) -> None:
        if not self.is_attached:
            return
        self.lines = self.lines[:1] + [Text(f"the best score is unknown: {reason}", "red")]
        self.draw_lines([])

    def action_best(self) -> None:
        if self.found is None or not self.found.line:
            return
        self.dismiss()
        self.table.replay_best(self.found.line)

    def action_undo(self) -> None:
        self.dismiss()
        self.table.action_undo()

    async def action_new(self) -> None:
        self.dismiss()
        await self.table.action_new()

    def action_close(self) -> None:
        self.dismiss()


def won_text(game: Game) -> str:
    """How the game was won, as its game counts a win."""
    if game.deal.game.rules.won is Won.ALL:
        return f"every card is in the {board.pile_name(game.deal.game)}"
    left = len(game.deal.talon) - game.state.turned
    cleared = "every fan is cleared" if game.deal.game.chains else "the tableau is cleared"
    return f"{cleared}, with {left} talon card{'' if left == 1 else 's'} to spare"


def move_name(card: Card | None, fan: int | None, name: Callable[[Card | None], str],
              fans: bool = True, kind: Kind | None = None) -> str:
    """`J♠ from fan c`, or `J♠ off the talon` for a talon turn, `J♠ from fan c into the
    cell` for a park and `J♠ from the cell` for the cell's card; a card of a layout not
    made of fans (`fans` False) by its name alone, as its letter changes with the
    layout."""
    if kind is Kind.UNPARK:
        return f"{name(card)} from the cell"
    if kind is Kind.PARK:
        return f"{name(card)} from fan {board.FAN_LETTERS[fan]} into the cell"
    if fan is None:
        return f"{name(card)} off the talon"
    return f"{name(card)} from fan {board.FAN_LETTERS[fan]}" if fans else name(card)


def review_text(found: Review, name: Callable[[Card | None], str], fans: bool = True) -> Text:
    of = found.of
    out = Text()
    limit = "" if found.proven else " (at least: the time limit was reached)"
    where = "from where this game started" if found.started else "on this deal"
    if found.lost_at is None and found.score >= found.best:
        out.append(f"That is the best possible {where}: {found.best}/{of}{limit}.",
                   style="green")
        return out
    out.append(f"The best possible {where}: {found.best}/{of}{limit}.\n", style="bold")
    if found.lost_at is None:
        out.append("The time limit left open which move cost cards.")
        return out
    number = found.started + found.lost_at + 1  # counted from the start of the deal
    move = f"Move {number} " \
        f"({move_name(found.lost_card, found.lost_fan, name, fans, found.lost_kind)})"
    verdict = "lost the game" if found.best >= of else "was the first to cost cards"
    out.append(f"{move} {verdict}: after it the best still reachable was "
               f"{found.best_after}/{of}.")
    return out


class RulesScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,question_mark,enter,space,q", "close", "close")]

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical(classes="box wide"):
            yield Static(self.text)
            yield Static(Text("any of Esc ? Enter closes", style="dim"))

    def action_close(self) -> None:
        self.dismiss()


class SaveScreen(ModalScreen[str | None]):
    """Asks where to save the moves; Enter saves, Esc cancels."""

    BINDINGS = [Binding("escape", "cancel", "cancel")]

    def __init__(self, suggested: Path, write: Callable[[str], None]) -> None:
        super().__init__()
        self.suggested = suggested
        self.write = write
        self.replacing: str | None = None  # a file the player agreed to replace

    def compose(self) -> ComposeResult:
        with Vertical(classes="box"):
            yield Static("Save the moves to (Enter saves, Esc cancels):")
            yield Input(str(self.suggested), id="save-path")
            yield Static(id="save-error")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        path = event.value.strip()
        target = Path(path)
        if target.exists() and not target.is_dir() and path != self.replacing:
            self.replacing = path
            self.query_one("#save-error", Static).update(
                Text(f"{path} exists: Enter again replaces it, Esc cancels", style="yellow"))
            return
        try:
            self.write(path)
        except OSError as error:
            self.query_one("#save-error", Static).update(
                Text(f"cannot save there: {error.strerror or error}", style="red"))
            return
        self.dismiss(path)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ConfirmScreen(ModalScreen[bool]):
    """A yes-or-no question: y answers yes; n or Esc no."""

    BINDINGS = [Binding("y,Y", "answer(True)", "yes"),
                Binding("n,escape", "answer(False)", "no")]

    def __init__(self, question: str, keys: str) -> None:
        super().__init__()
        self.question = question
        self.keys = keys

    def compose(self) -> ComposeResult:
        with Vertical(classes="box"):
            yield Static(Text(self.question, style="bold"), id="question")
            yield Static(Text(self.keys, style="dim"))

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
