"""The ``cardroom`` commands and their options, wired to the terminal's screens and tools
(the console script, :mod:`.cli`, reads a plain ``cardroom simulate`` without them).

The commands only read their options and hand them on: play to :mod:`.house` and
:mod:`.chemmy`, history and bankroll to :mod:`.records`, the test lab's tool to
:mod:`.lab`, the analysis tools to :mod:`.tools` and :mod:`.simulate_tool`, the web table
to :mod:`cardroom.web`. Every error a person can cause is one line, ``error: ...``, and
exit status 2 (:mod:`.common`).
"""

from __future__ import annotations

import sys
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperCommand, TyperOption

from cardroom.core.money import CENT, format_amount, in_units, parse_amount
from cardroom.terminal.common import (
    DEFAULT_SEATS,
    MAX_DECKS,
    MAX_DELAY,
    MAX_LIMIT,
    MAX_ROUNDS,
    MAX_SEED,
    MAX_WORKERS,
    CliError,
    fail,
    load_game,
    make_console,
    open_database,
    person_account,
    person_errors,
    read_stack,
)
from cardroom.terminal.options import (
    BankrollOpt,
    CardroomGroup,
    GameArg,
    JsonOpt,
    PersonOpt,
    RulesOpt,
    version_callback,
)

if TYPE_CHECKING:
    from cardroom.core.shoe import CardSource
    from cardroom.terminal.house import TableSession

# Each command imports what it uses when it runs (each such import marked "lazy"), so that
# `cardroom --version`, `simulate` or `analyze` do not import the wallet's database, the
# signatures of the audit export, the screens of play or the web.

app = typer.Typer(
    name="cardroom",
    help="Play Finnish 27 and its relatives at the terminal, with an exact, saved bankroll.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
    rich_markup_mode=None,
    cls=CardroomGroup,
)


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=version_callback, is_eager=True, help="Show the version."
        ),
    ] = False,
) -> None:
    """Play Finnish 27 and its relatives at the terminal, with an exact, saved bankroll."""


# -- games and rules ---------------------------------------------------------------------
@app.command()
def games() -> None:
    """List the games: id, name and what they are."""
    from cardroom.games import GAMES  # lazy: the games (NumPy)
    from cardroom.terminal import render  # lazy: Rich

    make_console().print(render.games_table(GAMES.values()))


@app.command("rules")
def rules_command(
    game_id: GameArg,
    rules: RulesOpt = None,
    every_key: Annotated[
        bool,
        typer.Option(
            "--all",
            help="After the file, every key as a comment with its value, range and "
            "meaning (the file leaves out options at their defaults).",
        ),
    ] = False,
) -> None:
    """Print a game's rules as a TOML file: edit a copy and load it with --rules."""
    from cardroom.core.rules import rules_to_toml  # lazy: the rules' TOML
    from cardroom.terminal import render  # lazy: Rich

    with person_errors():
        game, game_rules = load_game(game_id, rules)
        source = f"the variant {rules}" if rules is not None else "the defaults"
        sys.stdout.write(
            f"# {game.id} rules: {source}. Every key is optional in a variant file;\n"
            f'# odds are written "4:5" or as a number. Use: cardroom play {game.id} '
            "--rules FILE.toml\n"
        )
        sys.stdout.write(rules_to_toml(game_rules))
        if every_key:
            sys.stdout.write(render.every_key(game_rules))


# -- play ----------------------------------------------------------------------------------
def describe_source(seed: int | None, stack: Path | None, count: int) -> str:
    if stack is not None:
        return f"stacked shoe from {stack} ({count} cards, for a replay)"
    if seed is not None:
        return f"seeded shuffles (seed {seed}, reproducible)"
    return "shuffled with the operating system's secure randomness"


@app.command()
def play(
    game_id: GameArg,
    rules: RulesOpt = None,
    bankroll_file: BankrollOpt = None,
    seed: Annotated[
        int | None,
        typer.Option(
            "--seed",
            min=0,
            max=MAX_SEED,
            metavar="N",
            help="Shuffle reproducibly from this seed (0 or more).",
        ),
    ] = None,
    stack: Annotated[
        Path | None,
        typer.Option(
            "--stack",
            metavar="FILE",
            help="Deal these card codes in order (white space separated, # comments), for replays.",
        ),
    ] = None,
    delay: Annotated[
        float,
        typer.Option(
            "--delay", min=0.0, max=MAX_DELAY, metavar="SECONDS", help="Pause between cards."
        ),
    ] = 0.4,
    seats: Annotated[
        int | None,
        typer.Option(
            "--seats",
            min=1,
            max=99,
            metavar="N",
            help=f"chemin-de-fer: seats at the table, 2-8 (default {DEFAULT_SEATS}); "
            "the seats no person takes are bots.",
        ),
    ] = None,
    people: Annotated[
        str | None,
        typer.Option(
            "--people",
            metavar="NAMES",
            help='chemin-de-fer: several people taking turns at this terminal, like "Ann,Bob", '
            "each with a bankroll of their own (default: you alone).",
        ),
    ] = None,
    buy_in: Annotated[
        str | None,
        typer.Option(
            "--buy-in",
            metavar="AMOUNT",
            help="chemin-de-fer: what each person takes to the table (default: the whole "
            "bankroll); what is left comes back when the session ends.",
        ),
    ] = None,
    person: PersonOpt = None,
) -> None:
    """Play a game at the table with your saved bankroll."""
    import numpy as np  # lazy: NumPy

    from cardroom.app.wallet import Wallet  # lazy: SQLAlchemy
    from cardroom.core.shoe import SecureShuffler, SeededShuffler, Shoe, StackedShoe  # lazy: NumPy
    from cardroom.storage import default_path  # lazy: SQLAlchemy
    from cardroom.terminal.chemmy import ChemmyPlay, parse_people  # lazy: the table's screens
    from cardroom.terminal.house import PlaySession  # lazy: the table's screens
    from cardroom.terminal.prompts import enable_line_editing  # lazy: the table's screens

    with person_errors():
        game, game_rules = load_game(game_id, rules)
        if seed is not None and stack is not None:
            raise CliError("use either --seed or --stack, not both")
        seated = game.kind == "seats"
        if not seated and (seats is not None or people is not None or buy_in is not None):
            raise CliError(f"--seats, --people and --buy-in are for chemin-de-fer, not {game.id}")
        if seated and person is not None:
            raise CliError('chemin-de-fer names its people with --people "Ann,Bob"')
        if seated:
            low, high = game_rules.min_seats, game_rules.max_seats
            if seats is not None and not low <= seats <= high:
                raise CliError(f"--seats: the table seats {low} to {high}, not {seats}")
            names = parse_people(people, high)
            count = max(DEFAULT_SEATS, low, len(names)) if seats is None else seats
            if len(names) > count:
                raise CliError(
                    f"--people: {len(names)} people need {len(names)} seats, and --seats "
                    f"gives the table {count}"
                )
            amount = None if buy_in is None else in_units(parse_amount(buy_in), CENT, "--buy-in")
            least = Fraction(game_rules.table.minimum)
            if amount is not None and amount < least:
                raise CliError(
                    f"--buy-in: at least the table minimum of {format_amount(least)}, "
                    f"not {format_amount(amount)}"
                )
        source: CardSource
        if stack is not None:
            cards = read_stack(stack)
            source = StackedShoe(cards)
            note = describe_source(seed, stack, len(cards))
        else:
            shuffler = SeededShuffler(seed) if seed is not None else SecureShuffler()
            source = Shoe(game_rules.shoe, shuffler)
            note = describe_source(seed, None, 0)
        enable_line_editing()
        path = bankroll_file if bankroll_file is not None else default_path()
        with open_database(bankroll_file) as db:
            wallet = Wallet(db)
            session: TableSession
            if seated:
                # the bots' random source: reproducible with --seed (and a stacked shoe)
                rng = np.random.default_rng(seed if seed is not None or stack is None else 0)
                session = ChemmyPlay(
                    make_console(), game, game_rules, source, wallet, Path(path), names, count,
                    rng, buy_in=amount, delay=delay, rules_file=rules, source_note=note,
                )  # fmt: skip
            else:
                account = person_account(wallet, person)
                session = PlaySession(
                    make_console(), game, game_rules, source, wallet, Path(path), account.id,
                    person=person, delay=delay, rules_file=rules, source_note=note,
                )  # fmt: skip
            status = session.run()
    if status:
        raise typer.Exit(status)


# -- history and bankroll -------------------------------------------------------------
#: where an option's help names the balance a new account starts with
START_BALANCE_MARK = "{start balance}"


class StartBalanceHelp(TyperCommand):
    """A command whose options' help names the balance a new account starts with
    (:data:`START_BALANCE_MARK`): the wallet's own figure, looked up (with the wallet and
    SQLAlchemy) only when the help is shown."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        from cardroom.app.wallet import START_BALANCE  # lazy: SQLAlchemy

        for param in self.params:
            if isinstance(param, TyperOption) and param.help:
                param.help = param.help.replace(START_BALANCE_MARK, format_amount(START_BALANCE))
        super().format_help(ctx, formatter)


@app.command()
def history(
    bankroll_file: BankrollOpt = None,
    limit: Annotated[
        int, typer.Option("--limit", min=1, max=MAX_LIMIT, metavar="N", help="How many rounds.")
    ] = 10,
    game_id: Annotated[
        str | None, typer.Option("--game", metavar="GAME", help="Only this game's rounds.")
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the stored records, one JSON object a line.")
    ] = False,
    person: PersonOpt = None,
    replay_id: Annotated[
        int | None,
        typer.Option(
            "--replay",
            metavar="ID",
            min=1,
            max=2**63 - 1,
            help="Run round ID's record through the engine again and show that it gives "
            "the same events, outcome and payouts.",
        ),
    ] = None,
) -> None:
    """Show the last rounds played, oldest first: cards, decisions, bets, payouts.

    A chemin de fer coup is shown as its person saw it: their own cards, the backs of the
    others' until the hands were shown, and their net. --replay ID runs one round's record
    through the engine again, as a check that does not trust the stored result.
    """
    from cardroom.terminal import records  # lazy: SQLAlchemy

    records.history(bankroll_file, limit, game_id, as_json, person, replay_id)


@app.command(cls=StartBalanceHelp)
def bankroll(
    bankroll_file: BankrollOpt = None,
    reset: Annotated[
        bool,
        typer.Option("--reset", help=f"Start again with {START_BALANCE_MARK}."),
    ] = False,
    set_to: Annotated[
        str | None, typer.Option("--set", metavar="AMOUNT", help="Put the bankroll at AMOUNT.")
    ] = None,
    person: PersonOpt = None,
    ledger_rows: Annotated[
        int | None,
        typer.Option(
            "--ledger",
            metavar="N",
            min=1,
            max=MAX_LIMIT,
            help="Also show the last N movements of the bankroll, with the running balance.",
        ),
    ] = None,
) -> None:
    """Show the bankroll (and its ledger), or set or reset it: every change is a movement
    of the ledger, so the history always adds up."""
    from cardroom.terminal import records  # lazy: SQLAlchemy

    records.bankroll(bankroll_file, reset, set_to, person, ledger_rows)


@app.command()
def audit(
    bankroll_file: BankrollOpt = None,
    db: Annotated[
        str | None,
        typer.Option(
            "--db",
            metavar="URL",
            help="A database URL (postgresql+psycopg://user@host/db) instead of a file.",
        ),
    ] = None,
) -> None:
    """Check every account's books and every round in progress; exit 1 naming each
    problem (the first wrong ledger row, a round that waits for nothing)."""
    from cardroom.terminal import records  # lazy: SQLAlchemy

    records.audit(bankroll_file, db)


# -- the test lab's rounds tool -------------------------------------------------------
@app.command()
def rounds(
    game_id: GameArg,
    rules: RulesOpt = None,
    stakes_text: Annotated[
        str | None,
        typer.Option(
            "--stakes",
            metavar="WAGER=AMOUNT,...",
            help="The wagers to stake and how much, like player=10,push=5 "
            "(default: every wager at the table minimum).",
        ),
    ] = None,
    keep_going: Annotated[
        bool,
        typer.Option(
            "--keep-going",
            help="Report a line that cannot be played as a JSON error object and go on; "
            "the exit status is 2 if any line was refused.",
        ),
    ] = False,
) -> None:
    """The test lab's tool: one stacked round per line of standard input, JSON out.

    Each line holds card codes in dealing order (blank lines and # comments are
    skipped); every card must be one the game's shoe holds, no more copies of it than
    the shoe has. Every wager the game offers under the rules is staked at the table
    minimum unless --stakes says otherwise; the player's decisions follow the game's
    basic strategy. One compact JSON object a line.
    """
    from cardroom.terminal import lab  # lazy: the games (NumPy)

    lab.rounds(game_id, rules, stakes_text, keep_going)


# -- analysis ---------------------------------------------------------------------------
@app.command()
def analyze(
    game_id: GameArg,
    rules: RulesOpt = None,
    decks: Annotated[
        int | None,
        typer.Option(
            "--decks",
            min=1,
            max=MAX_DECKS,
            metavar="N",
            help="Decks in the shoe (default: the rules').",
        ),
    ] = None,
    as_json: JsonOpt = False,
    eor: Annotated[
        bool, typer.Option("--eor", help="Effects of removal of one card of each rank.")
    ] = False,
    table_min: Annotated[
        str | None,
        typer.Option(
            "--table-min", help="finnish27: the table minimum the 9-9-9 awards scale with."
        ),
    ] = None,
    stake: Annotated[
        str | None, typer.Option("--stake", help="finnish27: the player wager's stake.")
    ] = None,
    strategy_name: Annotated[
        str,
        typer.Option(
            "--strategy", help="21-24-27: the player's play, basic (the source's) or optimal."
        ),
    ] = "basic",
    infinite: Annotated[
        bool,
        typer.Option(
            "--infinite",
            help="finnish27, 21-24-27: cards drawn with replacement, not the real shoe.",
        ),
    ] = False,
) -> None:
    """Exact probabilities and returns of every wager, from a full shoe.

    finnish27 and 21-24-27 are counted exactly from the rules' real shoe (a few
    seconds to a minute); --infinite gives the model with cards drawn with replacement.
    """
    from cardroom.terminal import tools  # lazy: the games (NumPy)

    tools.analyze(game_id, rules, decks, as_json, eor, table_min, stake, strategy_name, infinite)


@app.command()
def strategy(
    game_id: GameArg,
    rules: RulesOpt = None,
    decks: Annotated[
        int | None,
        typer.Option(
            "--decks", min=1, max=MAX_DECKS, metavar="N", help="A finite shoe of N decks."
        ),
    ] = None,
    infinite: Annotated[
        bool, typer.Option("--infinite", help="Cards drawn with replacement (an infinite deck).")
    ] = False,
    total_only: Annotated[
        bool,
        typer.Option("--total-only", help="The banker decides on his total, not his two cards."),
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """The best play: 21-24-27's optimal strategy, finnish27's best table, chemin de fer solved.

    21-24-27 is solved in the real shoe (--decks N for another, --infinite with cards
    drawn with replacement); finnish27's best table is worked out with replacement.
    """
    from cardroom.terminal import tools  # lazy: the games (NumPy)

    tools.strategy(game_id, rules, decks, infinite, total_only, as_json)


@app.command()
def simulate(
    game_id: GameArg,
    rounds_wanted: Annotated[
        int,
        typer.Option(
            "--rounds",
            min=1,
            max=MAX_ROUNDS,
            metavar="N",
            help="Rounds to play.",
            show_default=False,
        ),
    ],
    seed: Annotated[
        int, typer.Option("--seed", min=0, max=MAX_SEED, metavar="N", help="Seed of the run.")
    ] = 0,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers",
            min=1,
            max=MAX_WORKERS,
            metavar="N",
            help="Worker processes (default: every core).",
        ),
    ] = None,
    rules: RulesOpt = None,
    as_json: JsonOpt = False,
    strategy_name: Annotated[
        str, typer.Option("--strategy", help="21-24-27: the player's play, basic or optimal.")
    ] = "basic",
    session_rounds: Annotated[
        int | None,
        typer.Option(
            "--session-rounds",
            min=1,
            max=MAX_ROUNDS,
            metavar="N",
            help="Also report sessions of this many rounds.",
        ),
    ] = None,
    plot: Annotated[
        Path | None,
        typer.Option("--plot", metavar="FILE.png", help="Draw the session results (Matplotlib)."),
    ] = None,
    backend: Annotated[
        str, typer.Option("--backend", help="local (worker processes) or ray.")
    ] = "local",
    address: Annotated[
        str | None, typer.Option("--address", help="Ray: the cluster's address.")
    ] = None,
    exact: Annotated[
        bool, typer.Option("--exact/--no-exact", help="Show the exact analysis beside it.")
    ] = True,
    fresh_shoe: Annotated[
        bool,
        typer.Option("--fresh-shoe", help="Deal every round from a full, freshly shuffled shoe."),
    ] = False,
) -> None:
    """Play many rounds through real shoes, fast, with every wager staked.

    --fresh-shoe shuffles a full shoe before every round, so each round is dealt off the
    top, as the exact analysis counts it.

    chemin-de-fer: two seats, each calling "Banco" against the other's bank, both
    playing the solved equilibrium; the wagers are the punter's side and the bank's.
    """
    from cardroom.terminal import simulate_tool  # lazy: the games (NumPy)

    simulate_tool.simulate(
        game_id, rounds_wanted, seed, workers, rules, as_json, strategy_name,
        session_rounds, plot, backend, address, exact, fresh_shoe,
    )  # fmt: skip


#: The database of the room: a URL, or the server's default file.
DbOpt = Annotated[
    str | None,
    typer.Option(
        "--db",
        metavar="URL",
        help="The database: a SQLAlchemy URL (default: the server's file in the user data "
        "directory).",
    ),
]


@app.command("report")
def report_command(
    game_id: Annotated[
        str,
        typer.Argument(
            metavar="GAME",
            help="Game id (see `cardroom games`), or all for every game's sheet.",
            show_default=False,
        ),
    ],
    rules: RulesOpt = None,
    out: Annotated[
        Path,
        typer.Option(
            "--out", metavar="DIR", help="The folder the sheets go in (made when missing)."
        ),
    ] = Path("."),
    eor: Annotated[
        bool,
        typer.Option(
            "--eor",
            help="Add the effects of removal where the analysis offers them (from a real "
            "shoe: minutes).",
        ),
    ] = False,
    since: Annotated[
        str | None,
        typer.Option("--from", metavar="DATE", help="report floor: from this date (UTC)."),
    ] = None,
    until: Annotated[
        str | None,
        typer.Option("--to", metavar="DATE", help="report floor: to before this date (UTC)."),
    ] = None,
    game: Annotated[
        str | None, typer.Option("--game", metavar="G", help="report floor: one game only.")
    ] = None,
    db: DbOpt = None,
) -> None:
    """Write a game's PAR sheet as HTML and PDF: the rules, every wager's lines, edge,
    deviation, hit frequency and volatility, the spread after 100 to 10,000 rounds, the
    strategy tables, and the digests of the rules and the code that computed it.

    `cardroom report floor --from DATE --to DATE [--game G] [--db URL]` writes the floor
    report instead: the period's stakes, payouts, GGR and hold per game and wager
    against the exact edge, the alerts and the operator actions, as HTML, PDF and CSV.

    Needs the report extra: pip install 'cardroom[report]'.
    """
    if game_id == "floor":
        if rules is not None or eor:
            fail("--rules and --eor are for a game's PAR sheet, not for `cardroom report floor`")
        from cardroom.terminal import operators  # lazy: SQLAlchemy

        with person_errors():
            operators.floor_report(db, since, until, game, out)
        return
    if since is not None or until is not None or game is not None or db is not None:
        fail("--from, --to, --game and --db are for `cardroom report floor`")
    from cardroom.terminal import report  # lazy: the games and the sheets

    report.report(game_id, rules, out, eor)


@app.command("certify-rng")
def certify_rng_command(
    shuffles: Annotated[
        int,
        typer.Option(
            "--shuffles",
            min=1_000,
            max=100_000_000,
            metavar="N",
            help="Shuffles of each game's shoe (a test lab's run: at least 1000000).",
        ),
    ] = 100_000,
    out: Annotated[
        Path,
        typer.Option("--out", metavar="DIR", help="The folder the report and raw files go in."),
    ] = Path("certify"),
    generator: Annotated[
        str,
        typer.Option("--generator", metavar="NAME", help="The shuffle to certify: system or hmac."),
    ] = "system",
    dieharder: Annotated[
        str,
        typer.Option("--dieharder", metavar="SET", help="dieharder's tests: quick or all (-a)."),
    ] = "quick",
    no_dieharder: Annotated[
        bool, typer.Option("--no-dieharder", help="Run neither dieharder nor ent.")
    ] = False,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers", min=1, max=256, metavar="N", help="Worker processes (default: every core)."
        ),
    ] = None,
) -> None:
    """Certify the production shuffle: every game's shoe shuffled N times, position by
    card, rank and suit, the first card, pair and coup against their exact values,
    successive shoes, and the raw draws through dieharder and ent; a report in HTML and
    PDF with the raw files. Exit 1 when the verdict is a fail."""
    from cardroom.terminal.certify import certify_rng  # lazy: SciPy and the report

    if not certify_rng(shuffles, out, generator, dieharder, no_dieharder, workers):
        raise typer.Exit(1)


# -- the operators ---------------------------------------------------------------------
operator_app = typer.Typer(
    help="The people who run the room: add, remove and list operators; export their log.",
    no_args_is_help=True,
)
app.add_typer(operator_app, name="operator")


@operator_app.command("add")
def operator_add(
    name: Annotated[str, typer.Argument(metavar="NAME", help="The operator's name.")],
    admin: Annotated[
        bool, typer.Option("--admin", help="An admin, who may also add and remove operators.")
    ] = False,
    db: DbOpt = None,
    password_stdin: Annotated[
        bool, typer.Option("--password-stdin", help="Read the password as one line of input.")
    ] = False,
    qr: Annotated[
        Path | None,
        typer.Option("--qr", metavar="FILE.svg", help="Also write the TOTP QR code here."),
    ] = None,
) -> None:
    """Add an operator: asks for their password, shows their TOTP secret once."""
    from cardroom.terminal import operators  # lazy: SQLAlchemy

    with person_errors():
        operators.add(name, admin, db, password_stdin, qr)


@operator_app.command("remove")
def operator_remove(
    name: Annotated[str, typer.Argument(metavar="NAME", help="The operator's name.")],
    db: DbOpt = None,
    reason: Annotated[
        str, typer.Option("--reason", metavar="TEXT", help="Why, for the log.")
    ] = "removed",
) -> None:
    """Remove an operator: they cannot sign in again (the log keeps their name)."""
    from cardroom.terminal import operators  # lazy: SQLAlchemy

    with person_errors():
        operators.remove(name, db, reason)


@operator_app.command("list")
def operator_list(
    db: DbOpt = None,
    removed: Annotated[bool, typer.Option("--removed", help="The removed ones too.")] = False,
) -> None:
    """List the operators."""
    from cardroom.terminal import operators  # lazy: SQLAlchemy

    with person_errors():
        operators.list_operators(db, removed)


@operator_app.command("log")
def operator_log(
    since: Annotated[
        str, typer.Option("--since", metavar="DATE", help="From this date or time (UTC).")
    ],
    until: Annotated[
        str | None,
        typer.Option("--until", metavar="DATE", help="To before this date or time (UTC)."),
    ] = None,
    db: DbOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="A JSON array of the rows.")] = False,
) -> None:
    """Export the operator log: every action, who, when, from where, before and after."""
    from cardroom.terminal import operators  # lazy: SQLAlchemy

    with person_errors():
        operators.log(db, since, until, as_json)


# -- the audit export ------------------------------------------------------------------
export_app = typer.Typer(
    help="The audit export: a period's rounds, ledger, protections and operator actions "
    "as a signed hash chain; its keys; its verification.",
)
app.add_typer(export_app, name="export")


@export_app.callback(invoke_without_command=True)
def export_command(
    context: typer.Context,
    since: Annotated[
        str | None, typer.Option("--from", metavar="DATE", help="From this date or time (UTC).")
    ] = None,
    until: Annotated[
        str | None,
        typer.Option("--to", metavar="DATE", help="To before this date or time (UTC)."),
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", metavar="FILE", help="The export to write (new).")
    ] = None,
    key: Annotated[
        Path | None,
        typer.Option("--key", metavar="PRIVATE.pem", help="The operator's Ed25519 private key."),
    ] = None,
    db: DbOpt = None,
) -> None:
    """Write every round record, ledger row, protection and operator action of a period
    as JSON lines in a hash chain, signed: cardroom export --from DATE --to DATE --out
    FILE --key PRIVATE.pem [--db URL].  Then `cardroom export verify FILE --key
    PUBLIC.pem` checks it and replays every round; `cardroom export keygen --out PREFIX`
    makes a key."""
    if (command := context.invoked_subcommand) is not None:
        if any(v is not None for v in (since, until, out, key, db)):
            fail(f"--from, --to, --out, --key and --db are for the export itself, not {command}")
        return
    from cardroom.terminal import export  # lazy: SQLAlchemy and cryptography

    export.write_export(db, since, until, out, key)


@export_app.command("keygen")
def export_keygen(
    out: Annotated[
        Path,
        typer.Option(
            "--out", metavar="PREFIX", help="Writes PREFIX.key.pem (private) and PREFIX.pub.pem."
        ),
    ],
) -> None:
    """Make an Ed25519 key pair for signing exports (the private key readable by you only)."""
    from cardroom.terminal import export  # lazy: SQLAlchemy and cryptography

    export.keygen(out)


@export_app.command("verify")
def export_verify(
    file: Annotated[Path, typer.Argument(metavar="FILE", help="The export to check.")],
    key: Annotated[
        Path, typer.Option("--key", metavar="PUBLIC.pem", help="The signer's public key.")
    ],
) -> None:
    """Check an export: each line's chain, order and period, the signature, the count,
    and every round replayed through its engine; exit 1 naming the first bad line."""
    from cardroom.terminal import export  # lazy: SQLAlchemy and cryptography

    export.verify_file(file, key)


@app.command("verify-shoe")
def verify_shoe_command(
    seed: Annotated[str, typer.Option("--seed", metavar="HEX", help="The revealed server seed.")],
    client_seed: Annotated[
        str, typer.Option("--client-seed", metavar="TEXT", help="The client seed.")
    ],
    game: Annotated[str, typer.Option("--game", metavar="GAME", help="The game's id.")],
    db: Annotated[
        str | None,
        typer.Option(
            "--db", metavar="URL", help="Check the rounds recorded from the shoe in this database."
        ),
    ] = None,
) -> None:
    """Rebuild a shoe from its seeds (docs/fairness.md): check every round recorded from
    it (--db), or print its cards in order; exit 1 naming each difference."""
    from cardroom.terminal import fairness  # lazy: the database and the seeds

    fairness.verify_shoe(seed, client_seed, game, db)


# -- the web table ---------------------------------------------------------------------
@app.command()
def serve(
    host: Annotated[str, typer.Option("--host", help="The address to listen on.")] = "127.0.0.1",
    port: Annotated[
        int, typer.Option("--port", min=1, max=65535, metavar="N", help="The port.")
    ] = 8000,
    db: Annotated[
        str | None,
        typer.Option(
            "--db",
            metavar="URL",
            help="The database: a SQLAlchemy URL such as postgresql+psycopg://user@host/db "
            "(default: cardroom.sqlite3 in the user data directory).",
        ),
    ] = None,
    rules_dir: Annotated[
        Path | None,
        typer.Option(
            "--rules-dir",
            metavar="DIR",
            help="A folder of rules variants (GAME.toml) the tables play instead of the defaults.",
        ),
    ] = None,
    time_limit: Annotated[
        int,
        typer.Option(
            "--time-limit",
            min=5,
            max=600,
            metavar="SECONDS",
            help="Chemin de fer: the seconds a seat has for each decision (and keeps its "
            "seat without a connection) before its bot plays for it.",
        ),
    ] = 30,
    workers: Annotated[
        int,
        typer.Option(
            "--workers",
            min=1,
            max=64,
            metavar="N",
            help="Serve in N worker processes on the one port (restarted if one dies).",
        ),
    ] = 1,
    forwarded_allow_ips: Annotated[
        str | None,
        typer.Option(
            "--forwarded-allow-ips",
            metavar="IPS",
            help="The proxies (comma-separated addresses, or *) whose X-Forwarded-For "
            "gives the client's address (default: $FORWARDED_ALLOW_IPS, else the loopback).",
        ),
    ] = None,
    password_queue: Annotated[
        int,
        typer.Option(
            "--password-queue",
            min=0,
            max=10_000,
            metavar="N",
            help="Sign-ins that may wait for a password check beyond those running, in "
            "each worker; more are refused at once (503, try again).",
        ),
    ] = 64,
    keep_alive: Annotated[
        int,
        typer.Option(
            "--keep-alive",
            min=1,
            max=3600,
            metavar="SECONDS",
            help="How long an idle connection is kept open for its next request: longer "
            "than any proxy's or client's own idle limit in front of it.",
        ),
    ] = 75,
    own_variant_tables: Annotated[
        bool,
        typer.Option(
            "--own-variant-tables",
            help="Let anyone signed in play a lab variant at a table of their own, for "
            "their wallet's money at the payouts and shoe they chose (a designer's server). "
            "Without it only the variants an operator put on a public table take bets.",
        ),
    ] = False,
) -> None:
    """Serve the web table: every game in the browser, many people at once."""
    from cardroom.web import server  # lazy: uvicorn and FastAPI

    with person_errors(server.ServerError):
        server.run(
            host=host,
            port=port,
            db_url=db,
            rules_dir=rules_dir,
            chemmy_time_limit=time_limit,
            workers=workers,
            forwarded_allow_ips=forwarded_allow_ips,
            password_queue=password_queue,
            keep_alive=keep_alive,
            own_variant_tables=own_variant_tables,
        )
