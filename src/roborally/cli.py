"""The ``roborally`` command line: play headless games, list courses, run scenarios."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NoReturn, overload

from roborally.argtypes import seconds, whole_number
from roborally.content.boardtext import BoardFormatError
from roborally.content.scenario import ScenarioError, load_scenario, run_scenario
from roborally.extras import MissingExtra


def _cmd_scenario(args: argparse.Namespace) -> int:
    failed = 0
    passed = 0
    for path in args.files:
        try:
            scenario = load_scenario(path)
        except (ScenarioError, BoardFormatError) as error:
            print(f"ERROR {error}")
            failed += 1
            continue
        except OSError as error:
            print(f"ERROR {path}: {error.strerror}")
            failed += 1
            continue
        try:
            result = run_scenario(scenario)
        except ScenarioError as error:  # the position cannot be built, or an illegal answer
            print(f"ERROR {error}")
            failed += 1
            continue
        except Exception as error:  # a failure of the program itself: report it, go on
            print(f"ERROR {path}: {type(error).__name__}: {' '.join(str(error).split())}")
            failed += 1
            continue
        if result.ok:
            passed += 1
            if args.verbose:
                print(f"ok   {path}: {scenario.name}")
        else:
            failed += 1
            print(f"FAIL {path}: {scenario.name}")
            for failure in result.failures:
                print("  " + failure.replace("\n", "\n  "))
        if args.verbose:
            for line in result.events:
                print("       " + line)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


def _cmd_validate(args: argparse.Namespace) -> int:
    from roborally.content.validate import format_report, validate_path

    errors = warnings = 0
    for path in args.files:
        report = validate_path(path)
        for line in format_report(report):
            print(line)
        errors += len(report.errors)
        warnings += len(report.warnings)
        if args.verbose and not report.errors:
            print(f"{path}: ok")
    print(f"{len(args.files)} file(s): {errors} error(s), {warnings} warning(s)")
    return 1 if errors else 0


def _cmd_cards(args: argparse.Namespace) -> int:
    from roborally.content.catalogue import catalogue

    try:
        sections = catalogue(args.edition)
    except ValueError as error:
        print(f"roborally cards: {error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({"edition": args.edition, **sections}, indent=2, ensure_ascii=False))
        return 0
    for title, cards in sections.items():
        print(
            f"{title.replace('_', ' ').capitalize()} ({sum(c.get('count', 1) for c in cards)}"
            " cards)"
        )
        columns = [
            k
            for k in ("id", "name", "type", "cost", "priority", "count")
            if any(k in c for c in cards)
        ]
        widths = {k: max(len(k), *(len(str(c.get(k, ""))) for c in cards)) for k in columns}
        print("  " + "  ".join(k.ljust(widths[k]) for k in columns) + "  text")
        for card in cards:
            row = "  ".join(str(card.get(k, "")).ljust(widths[k]) for k in columns)
            print(f"  {row}  {card.get('text', '')}")
        print()
    return 0


def _cmd_render(args: argparse.Namespace) -> int:
    from pathlib import Path

    from roborally.content.boardtext import load_board
    from roborally.content.courses import board_named, find_course, list_courses
    from roborally.engine.core.board import Board, Course, Grid, default_start_facing
    from roborally.render import RobotMark, render, svg_to_png

    target: Board | Course
    classic = False
    try:
        if args.target.endswith(".board"):
            target = load_board(args.target)
        elif args.target.endswith(".course") or args.target in {c.id for c in list_courses()}:
            info = find_course(args.target)
            target, classic = info.course, info.edition.startswith("classic")
        else:
            target = board_named(args.target)
    except KeyError:
        print(f"roborally render: no course or board named {args.target!r}", file=sys.stderr)
        return 2
    except (ValueError, OSError) as error:
        print(f"roborally render: {error}", file=sys.stderr)
        return 2
    robots = None
    if args.robots:
        grid = Grid(target if isinstance(target, Course) else Course.single(target))
        colours = ("#d33", "#36c", "#2a2", "#db2", "#93c", "#e80", "#2bb", "#777")
        robots = [
            RobotMark(
                s.pos,
                s.facing if s.facing is not None else default_start_facing(grid, s.pos),
                colours[i % 8],
                str(i + 1),
            )
            for i, s in enumerate(grid.start_spaces)
        ]
    svg = render(target, robots=robots, cell=args.cell, classic=classic or args.classic)
    out = Path(args.output)
    if out.suffix.lower() == ".png":
        svg_to_png(svg, out)
    elif out.suffix.lower() == ".svg":
        out.write_text(svg, encoding="utf-8")
    else:
        print("roborally render: the output must end in .svg or .png", file=sys.stderr)
        return 2
    print(f"wrote {out}")
    return 0


def _cmd_gallery(args: argparse.Namespace) -> int:
    from pathlib import Path

    from roborally.gallery import build_gallery

    written = build_gallery(Path(args.out))
    print(f"wrote {len(written)} files under {args.out}")
    return 0


def _cmd_courses(args: argparse.Namespace) -> int:
    from roborally.content.courses import list_courses

    courses = list_courses()
    if args.json:
        print(json.dumps([c.summary() for c in courses], indent=2))
        return 0
    for course in courses:
        s = course.summary()
        print(
            f"{s['id']:<20} {s['edition']:<8} {s['title']:<28} boards: {', '.join(s['boards'])};"
            f" checkpoints: {s['checkpoints']}; start spaces: {s['start_spaces']}"
        )
    return 0


def _cmd_play(args: argparse.Namespace) -> int:
    from roborally.bots.runner import play_game

    bots = [b.strip() for b in args.bots.split(",") if b.strip()]
    try:
        result = play_game(
            edition=args.edition,
            course=args.course,
            bots=bots,
            seed=args.seed,
            max_rounds=args.max_rounds,
            variants=[v for v in (args.variants or "").split(",") if v],
            out=sys.stdout,
            verbose=args.verbose,
            record_path=args.record,
            lang=args.lang,
        )
    except ValueError as error:
        print(f"roborally play: {error}", file=sys.stderr)
        return 2
    return 0 if result is not None else 1


def _cmd_replay(args: argparse.Namespace) -> int:
    from roborally.content.record import RecordError, load_record, replay

    try:
        record = load_record(args.file)
        game = replay(record)
    except (RecordError, ValueError) as error:
        print(f"roborally replay: {error}", file=sys.stderr)
        return 2
    from roborally.bots.runner import EventLog, result_text
    from roborally.content.i18n import text

    log = EventLog(args.lang, game.config.edition, game.config.players)
    for event in game.events:
        log.write(event, sys.stdout, indent="")
    outcome = game.outcome()
    names = game.config.players
    edition = game.config.edition
    ended = result_text(outcome, names, args.lang, edition) if outcome else None
    print(ended or text(args.lang, "cli.unfinished"))
    print(text(args.lang, "cli.digest", digest=game.digest()))
    return 0


#: ``roborally verify``'s exit statuses besides 0 (docs/record-format.md, "roborally verify").
VERIFY_FAILED, VERIFY_UNREADABLE, VERIFY_UNFINISHED = 1, 2, 3


def _cmd_verify(args: argparse.Namespace) -> int:
    from roborally.content.fairness import NotVerified, Unfinished, verify_record
    from roborally.content.record import RecordError, load_record

    try:
        verification = verify_record(load_record(args.file), args.commitment)
    except Unfinished as error:
        print(f"roborally verify: NOT verified, UNFINISHED: {error}", file=sys.stderr)
        return VERIFY_UNFINISHED
    except NotVerified as error:
        print(f"roborally verify: NOT verified: {error}", file=sys.stderr)
        return VERIFY_FAILED
    except RecordError as error:
        print(f"roborally verify: {error}", file=sys.stderr)
        return VERIFY_UNREADABLE
    except OSError as error:
        print(f"roborally verify: {args.file}: {error.strerror}", file=sys.stderr)
        return VERIFY_UNREADABLE
    for line in verification.lines() + verification.verdict():
        print(line)
    return 0


def _commitment(text: str) -> str:
    """An argparse type: a seed commitment, 64 hex digits (a SHA-256)."""
    value = text.strip().lower()
    if len(value) != 64 or any(c not in "0123456789abcdef" for c in value):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a commitment (64 hex digits, as the game showed it)"
        )
    return value


def _seed(text: str) -> int:
    """``--seed``: decimal or 0x-hex."""
    from roborally.engine.core.rng import parse_seed

    try:
        return parse_seed(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _cmd_tournament(args: argparse.Namespace) -> int:
    from roborally.bots.tournament import cpu_count, run_tournament, write_json

    bots = [b.strip() for b in args.bots.split(",") if b.strip()]
    jobs = cpu_count() if args.jobs == 0 else args.jobs
    try:
        result = run_tournament(
            edition=args.edition,
            course=args.course,
            bots=bots,
            games=args.games,
            seed=args.seed,
            jobs=jobs,
            max_rounds=args.max_rounds,
            variants=[v for v in (args.variants or "").split(",") if v],
            records=args.records,
            progress=None if args.quiet else sys.stderr,
            move_time=args.move_time,
            max_memory_mb=args.max_memory,
        )
    except ValueError as error:
        print(f"roborally tournament: {error}", file=sys.stderr)
        return 2
    print(result.table())
    for game in result.errors[:3]:
        print(f"error in game {game.index + 1} (seed {game.seed}, seats {','.join(game.seats)}):")
        print("  " + (game.error or "").rstrip().replace("\n", "\n  "))
    if args.json:
        write_json(result, args.json)
        print(f"results written to {args.json}")
    if args.records:
        print(f"records written to {args.records}")
    return 1 if result.errors else 0


def _cmd_serve(args: argparse.Namespace) -> int:
    from roborally.server.command import run

    return run(args)


# --------------------------------------------------------------------- checked arguments
POSITIVE = whole_number(1)


class _Later:
    """Text made when it is shown (for ``%(name)s`` in a help string), so that building the
    parser loads no bots or rules."""

    def __init__(self, make: Callable[[], str]) -> None:
        self.make = make

    def __str__(self) -> str:
        return self.make()


class _LazyChoices(Sequence[str]):
    """Allowed values of an option, found when an argument is checked or help is shown."""

    def __init__(self, make: Callable[[], list[str]]) -> None:
        self._make = make
        self._values: list[str] | None = None

    def _all(self) -> list[str]:
        if self._values is None:
            self._values = self._make()
        return self._values

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...
    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        return self._all()[index]

    def __len__(self) -> int:
        return len(self._all())


def _editions() -> list[str]:
    from roborally.engine.editions import all_editions

    return [e.id for e in all_editions()]


def _variants() -> str:
    from roborally.engine.editions import all_editions

    return "; ".join(f"{e.id}: {', '.join(e.variants) or 'none'}" for e in all_editions())


def _bot_kinds() -> str:
    from roborally.bots.random_bot import BOTS

    return ", ".join(sorted(BOTS)) + ", or module:Class (a class importable here, made with a seed)"


def _default_courses() -> str:
    from roborally.bots.tournament import DEFAULT_COURSES

    return ", ".join(f"{course} for {edition}" for edition, course in DEFAULT_COURSES.items())


def _later(action: argparse.Action, **texts: Callable[[], str]) -> None:
    """Give ``action``'s help the ``%(name)s`` values ``texts``, made when help is shown."""
    for name, make in texts.items():
        setattr(action, name, _Later(make))


class _HelpFormatter(argparse.HelpFormatter):
    """Every option's help ends with its default (unless it has none, or it is a switch)."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        default = action.default
        if (
            "(default" not in text
            and action.option_strings
            and default not in (None, False, "", argparse.SUPPRESS)
            and action.nargs != 0
        ):
            text += " (default: %(default)s)"
        return text


class CommandParser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line (and exit with status 2)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see '{self.prog} --help')\n")


class _Version(argparse.Action):
    """``--version``: the installed version (looked up only when asked)."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        import roborally

        print(f"roborally {roborally.__version__}")
        parser.exit()


# --------------------------------------------------------------------------- the parser
def build_parser() -> argparse.ArgumentParser:
    parser = CommandParser(
        prog="roborally",
        description="RoboRally from the command line: games and tournaments between bots,"
        " courses, cards, pictures, game records and the browser game server.",
        epilog="Each command has its own --help.",
    )
    parser.add_argument("--version", action=_Version, help="print the version and exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    editions = _LazyChoices(_editions)

    scenario = sub.add_parser("scenario", help="run scenario files and report mismatches")
    scenario.add_argument("files", nargs="+", metavar="FILE", help="scenario files to run")
    scenario.add_argument("-v", "--verbose", action="store_true", help="print every event")
    scenario.set_defaults(func=_cmd_scenario)

    validate = sub.add_parser("validate", help="check board and course files")
    validate.add_argument("files", nargs="+", metavar="FILE", help=".board or .course files")
    validate.add_argument("-v", "--verbose", action="store_true", help="also list good files")
    validate.set_defaults(func=_cmd_validate)

    cards = sub.add_parser("cards", help="list the cards of an edition")
    cards.add_argument("--edition", default="2023", choices=editions, help="rules edition")
    cards.add_argument("--json", action="store_true", help="print JSON instead of tables")
    cards.set_defaults(func=_cmd_cards)

    render_cmd = sub.add_parser("render", help="draw a course or board as SVG or PNG")
    render_cmd.add_argument(
        "target",
        help="a course id (see 'roborally courses'), a board name, or a .course or .board file",
    )
    render_cmd.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="FILE",
        help="the picture to write: a name ending in .svg, or .png (needs the png extra)",
    )
    render_cmd.add_argument("--robots", action="store_true", help="put robots on the starts")
    render_cmd.add_argument("--cell", type=POSITIVE, default=48, help="pixels per space")
    render_cmd.add_argument("--classic", action="store_true", help="classic colours")
    render_cmd.set_defaults(func=_cmd_render)

    gallery = sub.add_parser("gallery", help="write the docs gallery of boards and courses")
    gallery.add_argument("--out", default="docs", metavar="DIR", help="directory to write into")
    gallery.set_defaults(func=_cmd_gallery)

    courses = sub.add_parser("courses", help="list the courses")
    courses.add_argument("--json", action="store_true", help="print JSON instead of a table")
    courses.set_defaults(func=_cmd_courses)

    play = sub.add_parser("play", help="play a headless game between bots")
    _add_game_options(play, editions, course_default="tiny", bots_default="random,random")
    play.add_argument(
        "--seed",
        type=_seed,
        help="decimal or 0x-hex (default: a fresh secret seed, shown at the end)",
    )
    play.add_argument("--record", metavar="FILE", help="write the game record to this file")
    play.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="print every event, and every question a bot answers but its program",
    )
    _add_lang_option(play)
    play.set_defaults(func=_cmd_play)

    tournament = sub.add_parser("tournament", help="play many games between bots, with statistics")
    _add_game_options(tournament, editions, course_default=None, bots_default="planner,random")
    tournament.add_argument("--games", type=POSITIVE, default=10, help="games to play")
    tournament.add_argument("--seed", type=_seed, default=1, help="seed of the first game")
    tournament.add_argument(
        "--jobs",
        type=whole_number(0),
        nargs="?",
        const=0,
        default=1,
        help="worker processes (0, or the flag alone: one per core)",
    )
    tournament.add_argument("--json", metavar="FILE", help="write the results to this JSON file")
    tournament.add_argument(
        "--records", metavar="DIR", help="save every game record in this directory"
    )
    tournament.add_argument(
        "--move-time",
        type=seconds,
        default=10.0,
        metavar="SECONDS",
        help="seconds a bot may take per decision; a later answer, an error or an illegal"
        " answer gets the default and counts against the bot (0: no limit)",
    )
    tournament.add_argument(
        "--max-memory",
        type=POSITIVE,
        metavar="MB",
        help="cap each worker process's memory (address space) at MB megabytes: a bot that"
        " allocates more gets MemoryError, counted against it; games are then played in worker"
        " processes, also with --jobs 1 (default: no cap)",
    )
    tournament.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    tournament.set_defaults(func=_cmd_tournament)

    replay = sub.add_parser("replay", help="replay a game record and print its events")
    replay.add_argument("file", help="a game record (roborally play --record FILE)")
    _add_lang_option(replay)
    replay.set_defaults(func=_cmd_replay)

    verify = sub.add_parser(
        "verify",
        help="check a record's seed against its commitment, then replay it",
        description="Check a game record: its seed against its commitment (and the commitment"
        " your game showed, with --commitment), then replay every move to the recorded end."
        " Exit status: 0 verified (without --commitment: consistent with itself only), 1 not"
        " verified, 2 not a readable record, 3 the game did not reach its end.",
    )
    verify.add_argument("file", help="a game record")
    verify.add_argument(
        "--commitment",
        metavar="HEX",
        type=_commitment,
        help="the seed commitment your game showed before it began (the lobby, the game page"
        " or roborally play); the record must have it",
    )
    verify.set_defaults(func=_cmd_verify)

    from roborally.server.command import add_arguments

    serve = sub.add_parser(
        "serve",
        help="run the game server (web page, lobby and WebSockets; needs the server extra)",
        description="Run the game server: the web page, the lobby and a WebSocket per game."
        " It needs the server extra (pip install 'roborally[server]'). docs/hosting.md explains"
        " LAN play and hosting on the internet behind a TLS proxy; docs/server.md lists every"
        " limit.",
    )
    add_arguments(serve)
    serve.set_defaults(func=_cmd_serve)

    from roborally.server import bot_command

    bot = sub.add_parser("bot", help="play a seat of a running server with a bot")
    bot_command.add_arguments(bot)
    bot.set_defaults(func=bot_command.run)
    return parser


def env_language(environ: Mapping[str, str] | None = None) -> str:
    """The language the environment asks for (``LC_ALL``, else ``LANG``: ``uk_UA.UTF-8`` ->
    ``uk``) when it is one of the translations, else English.

    >>> env_language({"LANG": "pl_PL.UTF-8"}), env_language({"LC_ALL": "C", "LANG": "cs_CZ"})
    ('pl', 'en')
    """
    from roborally.content.i18n import DEFAULT, LANGUAGES

    environ = os.environ if environ is None else environ
    for name in ("LC_ALL", "LANG"):
        value = environ.get(name, "")
        if value:
            code = value.split(".")[0].split("_")[0].split("-")[0].lower()
            return code if code in LANGUAGES else DEFAULT
    return DEFAULT


def _add_lang_option(parser: argparse.ArgumentParser) -> None:
    from roborally.content.i18n import LANGUAGES

    parser.add_argument(
        "--lang",
        choices=LANGUAGES,
        default=env_language(),
        help="language of the game log (default: from LC_ALL or LANG when it names one of"
        " them, else en)",
    )


def _add_game_options(
    parser: argparse.ArgumentParser,
    editions: Sequence[str],
    course_default: str | None,
    bots_default: str,
) -> None:
    """The options that set up a game between bots (``play`` and ``tournament``)."""
    parser.add_argument("--edition", default="2023", choices=editions, help="rules edition")
    course = parser.add_argument(
        "--course",
        default=course_default,
        help="a course id (list them with 'roborally courses') or a .course file"
        + ("" if course_default else " (default: %(defaults)s)"),
    )
    _later(course, defaults=_default_courses)
    bots = parser.add_argument(
        "--bots",
        default=bots_default,
        help="one bot kind per seat, comma-separated; kinds: %(kinds)s",
    )
    _later(bots, kinds=_bot_kinds)
    parser.add_argument(
        "--max-rounds",
        type=POSITIVE,
        default=50,
        help="rounds after which the game ends without a winner",
    )
    variants = parser.add_argument(
        "--variants",
        default="",
        help="comma-separated alternative rules of the edition (%(known)s)",
    )
    _later(variants, known=_variants)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; expected failures are one line on stderr and a non-zero status."""
    args = build_parser().parse_args(argv)
    where = f"roborally {args.command}"
    try:
        code: int = args.func(args)
        sys.stdout.flush()  # here, where a closed pipe can still be caught
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (``roborally courses | head``): stop quietly, and keep Python
        # from complaining when it flushes stdout at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except MissingExtra as error:
        print(f"{where}: {error}", file=sys.stderr)
        return 2
    except OSError as error:  # a file that cannot be read or written
        print(f"{where}: {_os_error(error)}", file=sys.stderr)
        return 2
    return code


def _os_error(error: OSError) -> str:
    if error.filename is not None and error.strerror:
        return f"{error.filename}: {error.strerror}"
    return str(error)


if __name__ == "__main__":
    sys.exit(main())
