"""The 2023 board elements (4.3.2 steps B1-B5 and C): belts, push panels, gears, board
lasers (with Deflector Shield and Energy Conversion), and the end of a register: batteries,
checkpoints (Self-Diagnostics) and dynamic archiving.
"""

from __future__ import annotations

from roborally.engine.core.decisions import Prompt
from roborally.engine.core.events import ARCHIVED, CARD_REPLACED, CHECKPOINT_REACHED, ELEMENT_STEP
from roborally.engine.core.state import NUM_REGISTERS, Player
from roborally.engine.rules2023.base import BLUE, GREEN, Base2023


class Elements2023(Base2023):
    """Steps B1-B5 and C: the board acts on the robots."""

    # ============================================================= step B/C
    def stage_board(self) -> None:
        """4.3.2 step B, elements 1-4: belts, push panels, gears (no decisions here)."""
        r = self.s.register
        self.emit(ELEMENT_STEP, cause="blue belts")
        self.convey(BLUE, "blue belt")
        self.convey(BLUE, "blue belt")
        self.emit(ELEMENT_STEP, cause="green belts")
        self.convey(GREEN, "green belt")
        self.emit(ELEMENT_STEP, cause="push panels")
        self.push_panels(r)
        self.emit(ELEMENT_STEP, cause="gears")
        self.gears()
        self.s.stage = "lasers"

    def stage_lasers(self) -> None:
        """Step B5: board lasers (Deflector Shield and Energy Conversion may be asked)."""
        if self.s.upgrades:
            self.attempt(None, self.board_lasers, asks=self.board_lasers_may_ask())
        else:
            self.board_lasers()
        self.emit(ELEMENT_STEP, cause="robot lasers")
        self.s.order = self.s.turn_order()
        self.s.turn = 0
        self.s.stage = "weapons"

    def board_lasers_may_ask(self) -> bool:
        """Whether a robot a board laser may hit (one standing in a beam's path) could be
        asked for its Deflector Shield or Energy Conversion: if not, the lasers fire without
        a snapshot. The damage moves no robot, so the hits are decided by where they stand."""
        grid = self.grid
        in_beam = grid.beams_over  # the spaces some beam crosses, whatever stands in it
        for p in self.s.players:  # a loop: cheaper than any() over a generator
            if not p.installed or p.pos is None:
                continue  # most robots hold no upgrade: no need to look further
            if p.pos[1] * grid.width + p.pos[0] in in_beam and (
                self.shield_asks(p) or self.has(p, "energy_conversion")
            ):
                return True
        return False

    def board_lasers(self) -> None:
        self.emit(ELEMENT_STEP, cause="board lasers")
        hits = self.board_laser_hits()
        for seat in self.s.turn_order():
            if seat in hits:
                before = self._received
                self.weapon_damage(seat, hits[seat], "board laser")
                if self.s.upgrades and self._received > before:
                    self.energy_conversion(seat)

    def stage_register_end(self) -> None:
        """Step C: batteries, checkpoints (Self-Diagnostics), dynamic archiving."""
        if self.s.upgrades:
            self.attempt(None, self.register_end, asks=self.diagnostics_may_ask())
        else:
            self.register_end()

    def diagnostics_may_ask(self) -> bool:
        """Whether Self-Diagnostics can ask at this register's end: its owner stands on its
        next checkpoint (the batteries before move nobody). If not, no snapshot is taken."""
        for p in self.s.players:  # loops, not holders() and any(): this runs every register
            if p.installed and self.on_next_checkpoint(p):
                for card in p.installed:
                    if card.name == "self_diagnostics":
                        return True
        return False

    def on_next_checkpoint(self, player: Player) -> bool:
        """Whether ``player``'s robot stands on the checkpoint it claims next (C8)."""
        if player.pos is None or player.shutdown:
            return False
        # Checkpoint n stands at checkpoints[n - 1]: a tuple lookup, no cell to fetch.
        checkpoints = self.grid.checkpoints
        claimed = player.checkpoint
        return claimed < len(checkpoints) and checkpoints[claimed] == player.pos

    def register_end(self) -> None:
        r = self.s.register
        self.emit(ELEMENT_STEP, cause="batteries")
        self.batteries()
        self.emit(ELEMENT_STEP, cause="checkpoints")
        reached = self.checkpoints()
        if self.s.over:
            return
        if self.s.upgrades:
            for seat in reached:
                self.self_diagnostics(seat)
        if "dynamic_archiving" in self.s.config.variants:
            self.archive()
        if r < NUM_REGISTERS:
            self.s.register = r + 1
            self.s.stage = "reveal"
        else:
            self.s.stage = "end_round"

    def batteries(self) -> None:
        """C7: +1 energy on a battery space (not while shut down, not under an overlay)."""
        batteries, width = self.grid.batteries, self.grid.width
        players = self.s.players
        for seat in self.s.turn_order():
            player = players[seat]
            pos = player.pos
            if pos is None or player.shutdown:
                continue
            if batteries[pos[1] * width + pos[0]]:
                self.gain_energy(player, 1, "battery")

    def checkpoints(self) -> list[int]:
        """C8: claim the next checkpoint; completing the last one ends the race (3, 12-B1).

        Returns the seats that reached a checkpoint, in turn order.
        """
        grid = self.s.grid
        total = len(grid.checkpoints)
        winner: int | None = None
        reached: list[int] = []
        for seat in self.s.turn_order():
            player = self.s.players[seat]
            if self.on_next_checkpoint(player):
                player.checkpoint += 1
                reached.append(seat)
                self.emit(
                    CHECKPOINT_REACHED,
                    seat=seat,
                    pos=player.pos,
                    amount=player.checkpoint,
                )
                if player.checkpoint == total and winner is None:
                    winner = seat
        if winner is not None:
            self.finish(winner, "checkpoints")
        return reached

    def archive(self) -> None:
        """11.1.4 / 12-D2: ending a register on a checkpoint or active battery archives there."""
        grid = self.s.grid
        for seat in self.s.turn_order():
            player = self.s.players[seat]
            if player.pos is None:
                continue
            cell = grid.cells[grid.index(player.pos)]
            active = grid.active(player.pos)
            on_battery = active is not None and active.battery
            on_marker = cell is not None and (cell.checkpoint is not None or on_battery)
            moved = player.archive != player.pos or player.archive_arrow != player.facing
            if on_marker and moved:
                player.archive = player.pos
                player.archive_arrow = player.facing
                self.emit(ARCHIVED, seat=seat, pos=player.pos, facing=player.facing)

    # ===================================================== upgrades of step B/C
    def energy_conversion(self, seat: int) -> None:
        """Energy Conversion (000: 765-767): after board-laser damage, move 1 forward or back.
        Not for a shut-down robot: the move is its own action (12-C5)."""
        player = self.s.players[seat]
        if player.pos is None or player.shutdown or not self.has(player, "energy_conversion"):
            return
        choice = self.ask_choice(
            self.next_id(seat, "energy_conversion"),
            seat,
            Prompt("Energy Conversion: move 1 space forward or backward?", "energy_conversion"),
            ("stay", "forward", "back"),
            "stay",
            {"card": "energy_conversion"},
        )
        if choice != "stay":
            self.upgrade_event(seat, "energy_conversion", "used")
            d = player.facing if choice == "forward" else player.facing.opposite
            self.move(seat, d, 1, "energy conversion")

    def self_diagnostics(self, seat: int) -> None:
        """Self-Diagnostics (000: 779-781): remove a card of the hand or discard from the game."""
        player = self.s.players[seat]
        if not self.has(player, "self_diagnostics"):
            return
        options = ["none"]
        options.extend(f"hand {n}" for n in sorted({c.name for c in player.hand}))
        options.extend(f"discard {n}" for n in sorted({c.name for c in player.discard}))
        if len(options) == 1:
            return
        choice = self.ask_choice(
            self.next_id(seat, "self_diagnostics"),
            seat,
            Prompt(
                "Self-Diagnostics: remove a card of your hand or discard pile from the game?",
                "self_diagnostics",
            ),
            tuple(options),
            "remove nothing",
            {"card": "self_diagnostics"},
        )
        if choice == "none":
            return
        where, _, name = choice.partition(" ")
        pile = player.hand if where == "hand" else player.discard
        card = next(c for c in pile if c.name == name)
        pile.remove(card)
        player.removed.append(card)
        self.upgrade_event(seat, "self_diagnostics", "used")
        self.emit(CARD_REPLACED, seat=seat, card=name, cause="removed from the game")
