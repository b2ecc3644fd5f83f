"""The terminal game: a Textual app over the rules engine and the hint engine.

The rules engine (through `blackhole.play.game.Game`) decides every move, undo and redo; the hint
engine (`blackhole.play.engine`, over `blackhole.questions.best`) answers hints, the coach and the
end screen, in background threads so the screen never waits for it. A game with a talon
(Golf) turns its next card with t, Space or a click, a move like any other. A game with
a free cell (Worm Hole) draws it under the hole: z then a fan's letter (or a click on the
fan) parks that fan's top card, and 0 or a click on the cell plays the cell's card. A
layout not
made of fans (TriPeaks, Escalator) is drawn at its slots' places (`blackhole.play.slots`),
and a free card plays by the letter under it or a click. An engine
that refuses the deal's game (an InputError) is said in one line, and the game goes on.

This module holds the screen's logic: the table (`Table`), which plays, undoes, asks for
hints and ends a game, and the app that shows it. The widgets and modal screens it shows
are in `blackhole.play.widgets`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import events, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.geometry import Size
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Static

from blackhole.base.errors import InputError
from blackhole.model.cards import Card
from blackhole.model.deal import Kind, Move
from blackhole.model.games import misfit
from blackhole.model.rules import Outcome
from blackhole.play import board, engine, slots
from blackhole.play.game import Game
from blackhole.play.session import fresh_spec, review, save_path, save_text, start_game
from blackhole.play.widgets import (
    CSS,
    ConfirmScreen,
    EndScreen,
    FanView,
    PileView,
    RulesScreen,
    SaveScreen,
    SlotsView,
    card_name,
    move_name,
)

REPLAY_STEP = 0.4  # seconds between two moves of a replayed best line

Moves = tuple[Move, ...]  # a position, as the moves made since the game's start
TURN = -1  # what `play` takes to turn the talon, as the fan keys take a fan index


class Table(Screen):
    """The game table: the hole, the fans, the status, and the keys that play."""

    BINDINGS = [
        Binding("u,U", "undo", "undo"),
        Binding("r,R", "redo", "redo"),
        Binding("t,T,space", "talon", "turn the talon"),
        Binding(board.PARK_KEY, "park", "park a fan's top card in the cell"),
        Binding(board.UNPARK_KEY, "unpark", "play the cell's card"),
        Binding("H", "hint", "hint"),
        Binding("w,W", "coach", "coach"),
        Binding("s,S", "save", "save"),
        Binding("N", "new", "new deal"),
        Binding("question_mark", "rules", "rules"),
    ]

    def __init__(self, game: Game, spec: str, ascii_only: bool, folder: Path,
                 seeds: Callable[[], int | None]) -> None:
        super().__init__()
        self.ascii_only = ascii_only
        self.folder = folder
        self.seeds = seeds
        self.coach = False
        self.replaying: Timer | None = None
        self.replay_seconds = REPLAY_STEP
        self.note = ""  # said when the table first shows
        self.deals = 0
        self.new_game(game, spec)

    def new_game(self, game: Game, spec: str) -> None:
        self.deals += 1  # answers that come back for an older deal are dropped
        self.game = game
        self.spec = spec
        self.undos = 0
        self.parking = False  # z was pressed: the next fan's letter (or click) parks
        self.hinted: Move | None = None  # the move a hint names
        self.bests: dict[Moves, Any] = {}  # the hint engine's Best for each position seen
        self.hints: dict[Moves, list[Any]] = {}
        self.asked: set[Moves] = set()  # hints on their way
        self.wanted: Moves | None = None  # the position the player asked a hint for
        self.weighing: set[Moves] = set()  # best scores on their way
        self.ended: Moves | None = None  # the position an end screen was shown for
        self.saved_moves: Moves | None = None  # the moves of the last save
        # Why the hint engine does not take this deal's game (its InputError), once it
        # said so: hints, the coach and the end screen say it at once, without asking.
        self.refused: str | None = None

    # ------------------------------------------------------------ drawing

    def compose(self) -> ComposeResult:
        yield Static(id="small")
        yield Static(id="title")
        yield Static(id="hole")
        yield PileView("cell", self.action_unpark)
        yield PileView("talon", self.action_talon)
        yield Horizontal(id="fans")
        yield Static(id="status")
        yield Static(id="message")
        yield Static(id="coach")
        yield Static(id="keys")

    async def on_mount(self) -> None:
        await self.lay_fans()
        self.fit(self.app.size)
        self.draw()
        self.say(self.note)
        self.arrived()
        self.warm_up()

    @work(group="warm-up")
    async def warm_up(self) -> None:
        """Load the hint engine and ask for the first hints while the player looks at
        the deal (the import alone takes a good part of a first hint's time)."""
        await self.ask(engine.missing)
        self.prefetch()

    async def ask(self, call: Callable[..., Any], *args: Any,
                  failed: Callable[[str], None] | None = None) -> Any:
        """The hint engine's answer, computed off the event loop; None when the deal
        changed meanwhile, or when the engine failed (the reason goes to `failed`: the
        game goes on without the answer). An engine that refuses the deal's game (an
        InputError: the game's rules are not its own yet) is not asked again on this deal."""
        deal = self.deals
        if self.refused is not None:
            if failed is not None:
                failed(self.refused)
            return None
        try:
            found = await asyncio.wrap_future(engine.in_background(call, *args))
        except Exception as error:  # shown, not raised
            if deal == self.deals:
                reason = str(error)
                if isinstance(error, InputError):  # about the deal on the table: its words
                    self.refused = reason = error.detail
                if failed is not None:
                    failed(reason)
            return None
        return found if deal == self.deals else None

    async def lay_fans(self) -> None:
        """The fans of the deal (or its layout of slots), and its talon's line when its
        game has a talon."""
        row = self.query_one("#fans", Horizontal)
        await row.remove_children()
        deal = self.game.deal
        fans = len(deal.fans) if deal.tableau.chains else 0
        if fans:
            await row.mount_all(FanView(fan, self.play) for fan in range(fans))
        else:
            await row.mount(SlotsView(lambda x, y: slots.card_at(self.game, x, y), self.pick))
        talon, cell = bool(deal.game.rules.talon), bool(deal.game.rules.cells)
        self.query_one("#talon", PileView).display = talon
        self.query_one("#cell", PileView).display = cell
        self.query_one("#hole", Static).set_class(talon, "above-talon")
        self.query_one("#hole", Static).set_class(cell, "above-cell")
        self.query_one("#keys", Static).update(board.keys_text(fans, talon, cell))

    def on_resize(self, event: events.Resize) -> None:
        self.fit(event.size)

    def fit(self, size: Size) -> None:
        """Say so when the terminal is too small to show every fan (and the lines that
        tell the game's state); the game goes on, partly hidden, until it is larger."""
        need = board.table_size(self.game.start.deal)
        short = size.width < need[0] or size.height < need[1]
        warning = self.query_one("#small", Static)
        warning.display = short
        if short:
            deal = self.game.deal
            laid = f"{len(deal.fans)} fans need" if deal.tableau.chains else "layout needs"
            warning.update(f"terminal too small: the {laid} "
                           f"{need[0]}x{need[1]}, this one is {size.width}x{size.height}; "
                           "enlarge it (Q quits)")

    def draw(self) -> None:
        game, ascii_only = self.game, self.ascii_only
        self.query_one("#title", Static).update(Text(f"{game.deal.game.title}   {self.spec}"))
        self.query_one("#hole", Static).update(board.hole_text(game, ascii_only))
        if game.deal.game.rules.talon:
            self.query_one("#talon", PileView).update(
                board.talon_text(game, ascii_only, self.hinted_fan() == TURN))
        if game.deal.game.rules.cells:
            hinted = self.hinted is not None and self.hinted.kind is Kind.UNPARK
            self.query_one("#cell", PileView).update(board.game_cell_text(game, ascii_only,
                                                                          hinted))
        for view in self.query(FanView):
            view.show(board.fan_text(game, view.fan, ascii_only, view.fan == self.hinted_fan()))
        for layout in self.query(SlotsView):
            hinted = self.hinted.card if self.hinted is not None else None
            layout.update(slots.slots_text(game, ascii_only, hinted))
        self.query_one("#status", Static).update(
            board.status_text(game, self.undos, self.spec, self.coach))

    def hinted_fan(self) -> int | None:
        """The fan the hint names (TURN for the talon), or None without a hint (or for
        the cell's card)."""
        if self.hinted is None or self.hinted.kind is Kind.UNPARK:
            return None
        return TURN if self.hinted.kind is Kind.TURN else self.hinted.fan

    def say(self, text: str | Text, style: str = "") -> None:
        self.query_one("#message", Static).update(
            Text(text, style=style) if isinstance(text, str) else text)

    def coach_says(self, text: str, style: str = "") -> None:
        self.query_one("#coach", Static).update(Text(text, style=style))

    def shown(self, card: Card | None) -> str:
        return card_name(card, self.ascii_only)

    # ------------------------------------------------------------ moves

    def on_key(self, event: events.Key) -> None:
        letter = event.character or ""
        if self.parking and letter != board.PARK_KEY and \
                not (len(letter) == 1 and letter in board.FAN_LETTERS):
            self.parking = False  # any other key leaves the park unmade
            self.say("no card parked")
        if len(letter) == 1 and letter in board.FAN_LETTERS:
            event.stop()
            index = board.FAN_LETTERS.index(letter)
            if self.game.deal.tableau.chains:
                self.play(index)
                return
            free = slots.free_cards(self.game)
            if index < len(free):
                self.pick(free[index])
            else:
                self.stop_replay()
                self.say(f"no free card has the letter {letter}", "red")
        elif self.replaying is not None:
            self.stop_replay()

    def action_talon(self) -> None:
        """Turn the talon's next card onto the foundation (t, Space or a click)."""
        if not self.game.deal.game.rules.talon:
            self.stop_replay()
            self.say("this game has no talon", "red")
            return
        self.play(TURN)

    def action_park(self) -> None:
        """z: the next fan's letter (or click) parks that fan's top card in the cell."""
        self.stop_replay()
        if not self.game.deal.game.rules.cells:
            self.say("this game has no cell", "red")
            return
        self.parking = not self.parking
        self.say("park: which fan's top card goes into the cell? (a letter, or a click)"
                 if self.parking else "no card parked")

    def action_unpark(self) -> None:
        """0 (or a click on the cell): the cell's card onto the hole."""
        self.stop_replay()
        self.parking = False
        try:
            game = self.game.unpark()
        except ValueError as error:
            self.say(str(error), "red")
            return
        self.moved(game)

    def play(self, fan: int) -> None:
        """Play the top card of `fan`, or turn the talon (TURN); park it after z."""
        self.stop_replay()
        if fan >= self.game.deal.tableau.columns:
            self.parking = False
            self.say(f"there is no fan {board.FAN_LETTERS[fan]}", "red")
            return
        if self.parking and fan != TURN:
            self.parking = False
            try:
                game = self.game.park_fan(fan)
            except ValueError as error:
                self.say(str(error), "red")
                return
            self.moved(game)
            return
        try:
            game = self.game.turn() if fan == TURN else self.game.play_fan(fan)
        except ValueError:
            self.say(self.refusal(fan), "red")
            return
        self.moved(game)

    def pick(self, card: Card) -> None:
        """Play `card`, a card of a layout of slots (a key or a click named it)."""
        self.stop_replay()
        try:
            game = self.game.play_card(card)
        except ValueError:
            self.say(slots.refusal(self.game, card, self.shown), "red")
            return
        self.moved(game)

    def refusal(self, fan: int) -> str:
        """Why the rules engine refused the top card of `fan` (or the talon), in the
        screen's names and as the deal's game says."""
        if fan == TURN:
            return "the talon is spent: nothing left to turn"
        letter = board.FAN_LETTERS[fan]
        card = self.game.top(fan)
        if card is None:
            return f"fan {letter} is empty"
        hole = self.game.state.foundation
        why = misfit(self.game.deal.game, card.rank, hole and hole.rank, self.game.deal.ranks)
        return f"{self.shown(card)} (fan {letter}) does not fit on {self.shown(hole)}: {why}"

    def moved(self, game: Game, note: str = "") -> None:
        self.game = game
        self.hinted = None
        self.wanted = None
        self.say(note)
        self.draw()
        self.arrived()

    def arrived(self) -> None:
        """After every change of position: the coach speaks, and a finished game ends."""
        if self.coach:
            self.ask_coach()
        else:
            self.coach_says("")
        if self.game.outcome in (Outcome.WON, Outcome.BLOCKED) and self.replaying is None \
                and self.ended != self.game.moves:
            self.ended = self.game.moves
            self.app.push_screen(EndScreen(self))

    def action_undo(self) -> None:
        self.stop_replay()
        if not self.game.can_undo:
            self.say("nothing to undo", "red")
            return
        self.undos += 1
        self.moved(self.game.undo(), f"took back {self.shown(self.game.moves[-1].card)}")

    def action_redo(self) -> None:
        self.stop_replay()
        self.redo()

    def redo(self) -> None:
        if not self.game.can_redo:
            self.say("nothing to redo", "red")
            return
        game = self.game.redo()
        self.moved(game, f"played {self.shown(game.moves[-1].card)} again")

    # ------------------------------------------------------------ hints and the coach

    def engine_ready(self, what: str = "hint") -> bool:
        """Whether hints and the coach can answer here; if not, the reason is said."""
        reason = engine.missing()
        if reason:
            self.say(reason, "red")
        elif self.refused is not None:
            self.say(f"{what} failed: {self.refused}", "red")
        return reason is None and self.refused is None

    def action_hint(self) -> None:
        self.stop_replay()
        if self.game.outcome is not Outcome.UNFINISHED:
            self.say("the game is over: u takes a move back, N deals again", "red")
            return
        if not self.engine_ready():
            return
        self.wanted = moves = self.game.moves
        if moves in self.hints:
            self.show_hint(moves, self.hints[moves])
            return
        self.say("hint: thinking ...", "dim")
        self.prefetch()

    def prefetch(self) -> None:
        """Ask for the hints of the position now, unless they are known or on their way:
        on a new deal this starts before the player asks, so the first hint is ready."""
        moves = self.game.moves
        if moves in self.hints or moves in self.asked or engine.missing() \
                or self.refused is not None or self.game.outcome is not Outcome.UNFINISHED:
            return
        self.asked.add(moves)
        self.fetch_hints(moves, self.game)

    @work(group="hint")
    async def fetch_hints(self, moves: Moves, game: Game) -> None:
        found = await self.ask(engine.hints_of, game.position,
                               failed=lambda reason: self.hint_failed(moves, reason))
        if found is None:
            return
        self.hints[moves] = found
        self.asked.discard(moves)
        self.show_hint(moves, found)

    def hint_failed(self, moves: Moves, reason: str) -> None:
        self.asked.discard(moves)
        if self.wanted == moves:
            self.say(f"hint failed: {reason}", "red")

    def show_hint(self, moves: Moves, found: list[Any]) -> None:
        """The best move, if the player asked for it here and is still here."""
        if moves != self.game.moves or self.wanted != moves or not found:
            return
        first = found[0]
        kind = first.move.kind
        named = move_name(first.card, first.fan, self.shown, self.game.deal.tableau.chains,
                          kind)
        text = Text(f"hint: {'park' if kind is Kind.PARK else 'play'} {named}", style="bold")
        of = self.game.start.of
        if first.winnable:
            text.append(": the game stays winnable")
        elif all(hint.winnable is False for hint in found):
            best = f"{first.best}/{of}" if first.proven else \
                f"at least {first.found}/{of} (the time limit was reached)"
            text.append(f": no move wins now; the best still reachable is {best}")
        else:
            text.append(f": no win found in the time limit; it reaches {first.found}/{of}")
        self.hinted = first.move
        self.say(text)
        self.draw()

    def action_coach(self) -> None:
        if not self.coach and not self.engine_ready("coach"):
            return
        self.coach = not self.coach
        self.draw()
        self.say(f"coach {'on' if self.coach else 'off'}")
        if self.coach:
            self.ask_coach()
        else:
            self.coach_says("")

    def ask_coach(self) -> None:
        moves = self.game.moves
        if moves in self.bests:
            self.show_coach(moves)
            return
        self.coach_says("coach: thinking ...", "dim")
        if moves not in self.weighing:
            self.weighing.add(moves)
            self.fetch_best(moves, self.game)

    @work(group="coach")
    async def fetch_best(self, moves: Moves, game: Game) -> None:
        found = await self.ask(engine.best_of, game.position, engine.HINT_SECONDS,
                               failed=lambda reason: self.coach_failed(moves, reason))
        if found is not None:
            self.learned(moves, found)

    def coach_failed(self, moves: Moves, reason: str) -> None:
        self.weighing.discard(moves)
        if self.refused is not None and self.coach:  # it will not answer on this deal
            self.coach = False
            self.draw()
        self.coach_says(f"coach failed: {reason}", "red")

    def learned(self, moves: Moves, found: Any) -> None:
        self.bests[moves] = found
        self.weighing.discard(moves)
        if self.coach and moves == self.game.moves:
            self.show_coach(moves)

    def show_coach(self, moves: Moves) -> None:
        """Winnable or not, and what the last move cost, from the best score before and
        after it."""
        now = self.bests[moves]
        of = self.game.start.of
        limit = "" if now.proven else " (at least; the time limit was reached)"
        if now.best >= of:
            self.coach_says("coach: still winnable", "green")
            return
        if now.upper_bound >= of:  # neither a win found nor one ruled out
            self.coach_says(f"coach: no win found in the time limit; a line reaches "
                            f"{now.best}/{of}", "yellow")
            return
        before = self.bests.get(moves[:-1]) if moves else None
        last = self.shown(moves[-1].card if moves else None)
        if moves and moves[-1].kind is Kind.TURN:
            last = f"turning {last}"
        elif moves and moves[-1].kind is Kind.PARK:
            last = f"parking {last}"
        if before is not None and before.best >= of:
            self.coach_says(f"coach: {last} lost the game; the best still reachable is "
                            f"{now.best}/{of}{limit}", "bold red")
        elif before is not None and before.best > now.best:
            self.coach_says(f"coach: {last} cost {before.best - now.best} card(s); the best "
                            f"still reachable is {now.best}/{of}{limit}", "red")
        else:
            self.coach_says(f"coach: this game cannot be won; the best still reachable is "
                            f"{now.best}/{of}{limit}", "yellow")

    # ------------------------------------------------------------ the end

    @work(group="review")
    async def fetch_review(self, game: Game, screen: EndScreen) -> None:
        found = await self.ask(review, game, self.bests, engine.best_of, failed=screen.failed)
        if found is not None:
            screen.show_review(found)

    def replay_best(self, line: tuple[Card | Move, ...]) -> None:
        """Back to the start, then the best line played one move at a time (any key
        stops it, and the game goes on from there)."""
        game = Game(self.game.start)
        for card in line:  # a card, or a park's Move
            game = game.play_card(card)
        self.moved(game.restart(), "replaying the best line (any key stops it)")
        self.replaying = self.set_interval(self.replay_seconds, self.replay_step)

    def replay_step(self) -> None:
        if not self.game.can_redo:
            self.stop_replay("the best line, replayed")
            self.arrived()
            return
        game = self.game.redo()
        self.game = game
        self.draw()

    def stop_replay(self, note: str = "replay stopped: play on from here") -> None:
        if self.replaying is not None:
            self.replaying.stop()
            self.replaying = None
            self.say(note)

    # ------------------------------------------------------------ files and deals

    def action_save(self) -> None:
        self.stop_replay()
        self.app.push_screen(SaveScreen(save_path(self.spec, self.folder), self.write), self.saved)

    def saved(self, path: str | None) -> None:
        if path:
            self.saved_moves = self.game.moves
            self.say(f"saved {len(self.game.moves)} moves to {path}", "green")

    def write(self, path: str) -> None:
        """Write the moves to `path`; OSError when that fails."""
        Path(path).write_text(save_text(self.game, self.spec), encoding="utf-8")

    def in_progress(self) -> bool:
        """Moves played and not saved in a game not over: what a new deal would drop."""
        game = self.game
        return bool(game.moves) and game.outcome is Outcome.UNFINISHED \
            and game.moves != self.saved_moves

    async def action_new(self) -> None:
        self.stop_replay()
        if self.in_progress():
            game = self.game
            self.app.push_screen(ConfirmScreen(
                f"Drop this game ({game.score}/{game.start.of}, {len(game.moves)} moves not "
                "saved) for a new deal?", "y new deal   n or Esc keep playing"),
                self.confirmed_new)
            return
        await self.deal_new()

    async def confirmed_new(self, drop: bool | None) -> None:
        if drop:
            await self.deal_new()
        else:
            self.say("kept this game (s saves it)")

    async def deal_new(self) -> None:
        spec = fresh_spec(self.seeds(), self.game.deal.game)
        self.new_game(start_game(spec), spec)
        await self.lay_fans()
        self.draw()
        self.say(f"a new deal: {spec} (blackhole play {spec} deals it again)")
        self.arrived()
        self.prefetch()

    def action_rules(self) -> None:
        self.app.push_screen(RulesScreen(board.rules_text(self.game.deal)))


class PlayApp(App[str]):
    """`blackhole play`: the game of one spec (a fresh random deal when none is given)."""

    CSS = CSS
    TITLE = "blackhole play"
    BINDINGS = [Binding("Q", "quit", "quit")]  # and ctrl+q, as every Textual app
    ENABLE_COMMAND_PALETTE = False

    def __init__(self, spec: str | None = None, after: str | None = None, *,
                 ascii_only: bool = False, folder: Path | None = None,
                 seeds: Callable[[], int | None] = lambda: None) -> None:
        super().__init__()
        chosen = spec or fresh_spec(seeds())
        self.table = Table(start_game(chosen, after), chosen, ascii_only,
                           folder or Path.cwd(), seeds)
        if spec is None:
            self.table.note = f"a fresh deal: {chosen} (blackhole play {chosen} deals it again)"

    def get_default_screen(self) -> Screen:
        return self.table

    def summary(self) -> str:
        """One line for the terminal after the game: where it stood, and how to replay."""
        table = self.table
        return (f"{table.spec}: {table.game.score} of {table.game.start.of} cards moved "
                f"(blackhole play {table.spec} deals it again)")
