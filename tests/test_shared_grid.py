"""Games on the same course share one compiled grid (its beam paths are computed once)."""

from __future__ import annotations

from roborally.content.courses import find_course
from roborally.engine.core.board import Grid, default_start_facing, shared_grid
from roborally.engine.core.state import GameConfig
from roborally.engine.game import Game


def test_games_on_one_course_share_its_grid() -> None:
    course = find_course("y23-rush-hour").course
    first = Game(GameConfig(course, ("red", "blue")))
    second = Game(GameConfig(course, ("red", "blue"), seed=2))
    assert first.state.grid is second.state.grid
    dynamic = Game(GameConfig(course, ("red", "blue"), variants=frozenset({"dynamic_archiving"})))
    assert dynamic.state.grid is not first.state.grid  # no reboot tokens: another grid
    assert not dynamic.state.grid.reboot_of_board


def test_a_shared_grid_is_the_grid_compiled_afresh() -> None:
    course = find_course("cl-first-shift").course
    shared = shared_grid(course, overlays_disable_elements=False, reboot_tokens=False)
    fresh = Grid(course, overlays_disable_elements=False, reboot_tokens=False)
    assert shared.cells == fresh.cells and shared.walls == fresh.walls
    assert shared.inactive == fresh.inactive and shared.lasers == fresh.lasers
    for space in fresh.start_spaces:
        assert default_start_facing(shared, space.pos) == default_start_facing(fresh, space.pos)
    other = find_course("y23-rush-hour").course
    assert shared_grid(other) is not shared_grid(course)


def test_the_beam_index_lists_every_space_of_every_board_laser() -> None:
    grid = Grid(find_course("y23-rush-hour").course)
    assert grid.lasers
    listed = {
        (i, number, distance) for i, beams in grid.beams_over.items() for number, distance in beams
    }
    walked = {
        (i, number, distance)
        for number, (_, _, path) in enumerate(grid.lasers)
        for distance, i in enumerate(path)
    }
    assert listed == walked
    assert grid.beam_ends == [grid.pos(path[-1]) for _, _, path in grid.lasers]
