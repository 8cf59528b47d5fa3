"""``cardroom certify-rng``: the production shuffle's certificate, as HTML and PDF with
its raw files, in a folder (:mod:`cardroom.app.certify`).

The options are checked before any work (shuffles out of range, an unknown generator,
a folder that cannot be written, dieharder or ent missing, WeasyPrint or Matplotlib
missing: one line each, exit 2); then every core shuffles, saying how far it got.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from cardroom.app.certify.batteries import MISSING_BATTERIES, batteries_missing
from cardroom.app.certify.generators import generator
from cardroom.app.certify.report import write_report
from cardroom.app.certify.run import LAB_SHUFFLES, MAX_SHUFFLES, MIN_SHUFFLES, certify
from cardroom.app.certify.sampling import default_workers, game_shoes
from cardroom.app.par_page import check_report_deps
from cardroom.terminal.common import CliError, person_errors
from cardroom.terminal.report import prepare_folder

__all__ = ["DIEHARDER_MODES", "certify_rng"]

#: what ``--dieharder`` takes
DIEHARDER_MODES = ("quick", "all")


def _say(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def certify_rng(
    shuffles: int,
    out: Path,
    generator_name: str,
    dieharder: str,
    no_dieharder: bool,
    workers: int | None,
) -> bool:
    """Certify the generator; write the report in ``out``; says whether it passed."""
    with person_errors():
        if not MIN_SHUFFLES <= shuffles <= MAX_SHUFFLES:
            raise CliError(
                f"--shuffles: must be a whole number from {MIN_SHUFFLES:,} to "
                f"{MAX_SHUFFLES:,} (a lab's run: {LAB_SHUFFLES:,}), not {shuffles:,}"
            )
        if dieharder not in DIEHARDER_MODES:
            raise CliError(f"--dieharder: quick or all, not {dieharder!r}")
        chosen_workers = default_workers() if workers is None else workers
        if not 1 <= chosen_workers <= 256:
            raise CliError(f"--workers: must be from 1 to 256, not {chosen_workers}")
        try:
            chosen = generator(generator_name)
            check_report_deps()
        except ValueError as err:
            raise CliError(str(err)) from None
        if not no_dieharder and batteries_missing():
            raise CliError(MISSING_BATTERIES)
        prepare_folder(out)
        _say(
            f"certifying {chosen.title}: {shuffles:,} shuffles of each game's shoe on "
            f"{chosen_workers} worker processes; working out the exact first coups"
        )
        try:
            cert = certify(
                chosen,
                game_shoes(),
                shuffles,
                out,
                chosen_workers,
                dieharder=None if no_dieharder else dieharder,
                ent=not batteries_missing(),
                progress=_say,
            )
            html_path, pdf_path = write_report(cert, out)
        except OSError as err:
            raise CliError(f"cannot write the certificate in {str(out)!r}: {err}") from None
    _say(f"wrote {html_path} and {pdf_path} ({cert.seconds:.0f} s)")
    print(f"verdict: {cert.verdict}")
    for failed in cert.failed:
        print(f"  failed: {failed.name} ({failed.passed_count} of {failed.m} p-values >= 0.01)")
    return cert.passed
