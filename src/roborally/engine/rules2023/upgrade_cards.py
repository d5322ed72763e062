"""The 2023 upgrade cards as data: which ids exist, and ``data/cards/upgrades-2023.json``.

The rules (the mixins of :mod:`roborally.engine.rules2023`) implement each card by its ``id``;
this module lists those ids and reads the data file (names, costs, texts, source lines) as
package data, checking it against that list, so a typo or a missing card is an error at load
time, not a silent no-op in play.

>>> len(PERMANENT), len(TEMPORARY), len(IMPLEMENTED), len(load_upgrades())
(24, 16, 40, 40)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from roborally.engine.core.carddata import CardDataError, card_entries, card_file, read_card_data

PERMANENT = (
    "brakes",
    "double_barrel_laser",
    "drifting",
    "firewall",
    "memory_cards",
    "crab_legs",
    "laser_kata",
    "hover_unit",
    "scrambler",
    "mini_howitzer",
    "modular_chassis",
    "energy_conversion",
    "pressor_beam",
    "rail_gun",
    "self_diagnostics",
    "deflector_shield",
    "power_slide",
    "ramming_gear",
    "rear_laser",
    "tractor_beam",
    "spam_filter",
    "chaos_theory",
    "flash_drive",
    "spiky",
)
TEMPORARY = (
    "abort_switch",
    "boink",
    "piercing_drill",
    "displacing_blast",
    "zoop",
    "memory_swap",
    "rewire",
    "magnetic",
    "switch",
    "recharge",
    "re_initialize",
    "calibration_protocol",
    "overclocked",
    "pressure_release",
    "all_aboard",
    "lucky_booster",
)
IMPLEMENTED = PERMANENT + TEMPORARY
#: Temporary upgrades usable only right before or after your own register card (9.1.6).
MOVEMENT = ("boink", "zoop", "switch", "overclocked", "pressure_release", "all_aboard")


@dataclass(frozen=True, slots=True)
class UpgradeSpec:
    """One upgrade card as the data file describes it."""

    id: str
    name: str
    name_uk: str
    type: str  # "permanent" or "temporary"
    cost: int
    movement: bool
    text: str
    source: str

    @property
    def permanent(self) -> bool:
        return self.type == "permanent"


UPGRADE_FILE = "cards/upgrades-2023.json"
_FIELDS = ("id", "name", "name_uk", "type", "cost", "movement", "count", "text", "source")


def parse_upgrades(text: str, filename: str = UPGRADE_FILE) -> tuple[UpgradeSpec, ...]:
    """Parse and validate an upgrade deck file (spec 1.5: 24 permanent + 16 temporary cards)."""
    data = card_file(text, filename)
    specs: list[UpgradeSpec] = []
    for where, entry in card_entries(data, filename, _FIELDS, allowed=_FIELDS):
        card_id = entry["id"]
        if card_id not in IMPLEMENTED:
            raise CardDataError(
                f"{where}: unknown upgrade id {card_id!r} (the engine implements"
                f" {', '.join(IMPLEMENTED)})"
            )
        kind = entry["type"]
        expected = "permanent" if card_id in PERMANENT else "temporary"
        if kind != expected:
            raise CardDataError(f"{where}: {card_id} is a {expected} upgrade, not {kind!r}")
        cost = entry["cost"]
        if not isinstance(cost, int) or isinstance(cost, bool) or not 0 <= cost <= 10:
            raise CardDataError(f"{where}: cost must be a whole number from 0 to 10")
        if entry["count"] != 1:
            raise CardDataError(f"{where}: every upgrade exists once (spec 1.5); count must be 1")
        movement = entry["movement"]
        if not isinstance(movement, bool) or movement != (card_id in MOVEMENT):
            raise CardDataError(
                f"{where}: movement must be {str(card_id in MOVEMENT).lower()} for {card_id}"
            )
        for key in ("name", "name_uk", "text", "source"):
            if not isinstance(entry[key], str) or not entry[key].strip():
                raise CardDataError(f"{where}: {key} must be a non-empty text")
        specs.append(
            UpgradeSpec(
                card_id,
                entry["name"],
                entry["name_uk"],
                kind,
                cost,
                movement,
                entry["text"],
                entry["source"],
            )
        )
    seen = {spec.id for spec in specs}
    missing = [c for c in IMPLEMENTED if c not in seen]
    if missing:
        raise CardDataError(f"{filename}: missing upgrade(s) {', '.join(missing)}")
    permanent = sum(1 for s in specs if s.permanent)
    if permanent != len(PERMANENT) or len(specs) - permanent != len(TEMPORARY):
        raise CardDataError(f"{filename}: expected 24 permanent and 16 temporary upgrades")
    return tuple(specs)


@cache
def load_upgrades() -> tuple[UpgradeSpec, ...]:
    """The shipped 2023 upgrade deck (validated)."""
    return parse_upgrades(read_card_data(UPGRADE_FILE))
