"""The 2023 activation windows W-PRE and W-POST (4.5): before and after a player's own
register card, the movement upgrades (Boink, Zoop, Switch, Overclocked, Pressure Release,
All Aboard), Abort Switch, Lucky Booster, Recharge and Re-Initialize.
"""

from __future__ import annotations

from roborally.engine.core.cards import HAYWIRE, Card
from roborally.engine.core.decisions import Prompt
from roborally.engine.core.events import CARD_REPLACED, CARD_REVEALED, MOVED
from roborally.engine.core.geometry import DIRECTIONS, Direction
from roborally.engine.core.state import MAX_ENERGY, Player, Register
from roborally.engine.rules2023.base import BLUE, GREEN, Base2023
from roborally.engine.rules2023.upgrade_cards import MOVEMENT

#: The upgrades W-PRE or W-POST offers (:meth:`TurnWindows2023.window_options`).
WINDOW_UPGRADES = frozenset(
    {*MOVEMENT, "abort_switch", "lucky_booster", "recharge", "re_initialize"}
)

WINDOW_PRE_PROMPT = Prompt("Use an upgrade before your register card?", "window_pre")
WINDOW_POST_PROMPT = Prompt("Use a movement upgrade after your register card?", "window_post")


class TurnWindows2023(Base2023):
    """W-PRE and W-POST: the upgrades used around one's own register card."""

    def turn_window(self, seat: int, which: str) -> None:
        """W-PRE / W-POST (4.5): before and after a player's own register card. Only for a
        robot holding one of :data:`WINDOW_UPGRADES` (stage_turns looks first)."""
        player = self.s.players[seat]
        while player.pos is not None and not player.shutdown:
            options = self.window_options(player, which)
            if len(options) <= 1:
                return
            decision_id = self.did(f"p{seat + 1}-{which}-{self.s.window}")
            prompt = WINDOW_PRE_PROMPT if which == "pre" else WINDOW_POST_PROMPT
            choice = self.ask_choice(
                decision_id, seat, prompt, options, "use nothing", {"window": which}
            )
            if choice == "none":
                return
            # Only Lucky Booster asks while it is used (keep or drop the Haywire it found).
            asks = choice == "use lucky_booster"
            self.attempt(seat, self.use_in_window, seat, choice, asks=asks)
            self.s.window += 1

    def window_options(self, player: Player, which: str) -> tuple[str, ...]:
        names = {c.name for c in player.installed}
        result: list[str] = ["none"]
        if which == "pre":
            register = player.registers[self.s.register - 1]
            if register.cards and not register.done:
                result.extend(f"use {n}" for n in ("abort_switch", "lucky_booster") if n in names)
        result.extend(self.movement_options(player, names))
        if which == "pre":
            if "recharge" in names and player.energy < MAX_ENERGY:
                result.append("use recharge")
            if "re_initialize" in names:
                result.extend(
                    f"use re_initialize p{seat + 1}" for seat in range(len(self.s.players))
                )
        return tuple(result)

    def movement_options(self, player: Player, names: set[str]) -> list[str]:
        pos = player.pos
        assert pos is not None
        result: list[str] = []
        occupied = self.s.occupancy() if "boink" in names or "switch" in names else {}
        if "boink" in names:
            for d in DIRECTIONS:
                nxt = pos.step(d)
                if (
                    not self.edge_blocks(pos, d)
                    and self.grid.is_on_course(nxt)
                    and nxt not in occupied
                ):
                    result.append(f"boink {d.letter}")
        if "zoop" in names:
            result.extend(f"zoop {d.letter}" for d in DIRECTIONS if d != player.facing)
        if "switch" in names:
            for d in DIRECTIONS:
                other = occupied.get(pos.step(d))
                if other is not None and not self.grid.wall_between(pos, d):
                    result.append(f"switch p{other + 1}")
        if "overclocked" in names:
            result.append("use overclocked")
        if "pressure_release" in names:
            result.append("use pressure_release")
        if "all_aboard" in names and self.grid.belts[self.grid.index(pos)] is not None:
            result.append("use all_aboard")
        return result

    def use_in_window(self, seat: int, choice: str) -> None:
        player = self.s.players[seat]
        verb, _, arg = choice.partition(" ")
        if verb == "boink":
            self.use_temporary(seat, "boink")
            self.moving(self.step, seat, Direction.parse(arg), "boink")
        elif verb == "zoop":
            self.use_temporary(seat, "zoop")
            self.face(seat, Direction.parse(arg), "zoop")
        elif verb == "switch":
            other = self.s.players[int(arg[1:]) - 1]
            self.use_temporary(seat, "switch", other=other.seat)
            a, b = player.pos, other.pos
            assert a is not None and b is not None
            player.pos, other.pos = b, a
            self.emit(MOVED, seat=seat, pos=a, to=b, cause="switch")
            self.emit(MOVED, seat=other.seat, pos=b, to=a, cause="switch")
        elif verb == "use":
            name = arg.partition(" ")[0]
            if name in ("recharge", "re_initialize"):
                self.use_any_time(player, arg)
            elif name == "abort_switch":
                self.abort_switch(seat)
            elif name == "lucky_booster":
                self.lucky_booster(seat)
            elif name == "overclocked":
                self.use_temporary(seat, name)
                self.move(seat, player.facing, 2, "overclocked")
            elif name == "pressure_release":
                self.use_temporary(seat, name)
                self.moving(self.pressure_release, seat)
            elif name == "all_aboard":
                self.use_temporary(seat, name)
                self.convey(BLUE, "all aboard", only=seat)
                self.convey(BLUE, "all aboard", only=seat)
                self.convey(GREEN, "all aboard", only=seat)
            else:
                raise AssertionError(choice)
        else:
            raise AssertionError(choice)

    def pressure_release(self, seat: int) -> None:
        """Back up to 5 spaces; stop before a push, at a wall, or by falling (000: 894-897)."""
        player = self.s.players[seat]
        back = player.facing.opposite
        for _ in range(5):
            pos = player.pos
            if pos is None or self.edge_blocks(pos, back):
                return
            if self.s.robot_at(pos.step(back)) is not None:
                return
            if not self.step(seat, back, "pressure release"):
                return

    def replace_register(self, player: Player, register: Register) -> None:
        """The cards a replacement removes: damage to the damage discard, others to the discard."""
        for card in register.cards:
            if self.card_type(card).is_damage:
                self.s.damage_discard.append(card)
            else:
                player.discard.append(card)
        register.cards = []

    def abort_switch(self, seat: int) -> None:
        """Abort Switch (000: 840-844): the revealed card is replaced from the deck, face up."""
        player = self.s.players[seat]
        self.use_temporary(seat, "abort_switch")
        register = player.registers[self.s.register - 1]
        old = " ".join(c.name for c in register.cards)
        self.replace_register(player, register)
        card = self.draw(player)
        self.emit(
            CARD_REPLACED,
            seat=seat,
            card=old,
            cause=card.name if card else "empty deck",
        )
        if card is None:
            return
        self.emit(CARD_REVEALED, seat=seat, card=card.name, amount=self.s.register)
        card = self.replace_revealed(player, card, self.s.register)
        register.cards = [card] if card.uid >= 0 else []

    def lucky_booster(self, seat: int) -> None:
        """Lucky Booster (000: 905-909): turn damage cards until a Haywire, then keep or drop it."""
        player = self.s.players[seat]
        self.use_temporary(seat, "lucky_booster")
        found: Card | None = None
        for _ in range(len(self.s.damage_deck) + len(self.s.damage_discard)):
            card = self.draw_damage()
            if card is None:
                break
            self.emit(CARD_REVEALED, seat=seat, card=card.name, cause="lucky booster")
            if self.card_type(card) is HAYWIRE:
                found = card
                break
            self.s.damage_discard.append(card)
        if found is None:
            return
        register = player.registers[self.s.register - 1]
        choice = self.ask_choice(
            self.next_id(seat, "lucky_booster"),
            seat,
            Prompt(
                f"Lucky Booster found {found.name}: put it in place of your register card?",
                "lucky_booster",
                card=found.name,
            ),
            ("discard", "replace"),
            "discard the Haywire",
            {"card": "lucky_booster", "haywire": found.name},
        )
        if choice == "replace":
            old = " ".join(c.name for c in register.cards)
            self.replace_register(player, register)
            register.cards = [found]
            self.emit(CARD_REPLACED, seat=seat, card=old, cause=found.name)
        else:
            self.s.damage_discard.append(found)
