"""``cardroom certify-rng``: the real shuffle passes, and deliberately wrong ones (Sattolo's,
a swap with any position, a modulo-biased randbelow) are failed by the verdict.

Small shoes make a wrong shuffle's bias enormous (a 10-card shoe: Sattolo's never leaves
a card in its place, a swap with any position favours some orders by whole percents), so
20,000 shuffles flag them with overwhelming power in a fraction of a second.  The real
shuffle is a chance event: a family of 100 p-values falls out of its exact bounds about
once in 1,900 runs and a run of the 10-card shoe reads 8 families, so it is given a second
run, as a lab re-tests a marginal result with new data; failing twice in a row has odds of
about one in 50,000 per test run.
"""

from __future__ import annotations

import secrets
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cardroom.app.certify.batteries import parse_dieharder, parse_ent
from cardroom.app.certify.generators import GENERATORS, Generator, RandBelow
from cardroom.app.certify.report import write_report
from cardroom.app.certify.run import Certificate, certify
from cardroom.app.certify.sampling import ShoeUnderTest
from cardroom.app.certify.statistics import chi_square, family, proportion_bounds
from cardroom.core.cards import parse_cards
from cardroom.core.shoe import Shuffler
from cardroom.terminal.cli import app

SHOE = ShoeUnderTest("10 cards", tuple(parse_cards("As Ah 2s 2h 3s 3h 4s 4h 5s Jo")))


class _Wrong:
    """A shuffle gone wrong in one of the ways a lab looks for."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.random = secrets.SystemRandom()

    def randbelow(self, n: int) -> int:
        if self.kind == "modulo":  # k bits reduced modulo n instead of rejected
            return self.random.getrandbits(n.bit_length()) % n
        return secrets.randbelow(n)

    def permutation(self, n: int) -> list[int]:
        order = list(range(n))
        for i in range(n - 1, 0, -1):
            if self.kind == "sattolo":
                j = self.randbelow(i)
            elif self.kind == "any":
                j = self.randbelow(n)
            else:
                j = self.randbelow(i + 1)
            order[i], order[j] = order[j], order[i]
        return order


def _wrong(kind: str) -> Generator:
    def make() -> tuple[Shuffler, RandBelow | None]:
        shuffler = _Wrong(kind)
        return shuffler, shuffler.randbelow

    return Generator(kind, kind, kind, make)


def _run(generator: Generator, tmp_path: Path) -> Certificate:
    return certify(generator, [SHOE], 20_000, tmp_path, 1, dieharder=None, ent=False, raw=4096)


@pytest.mark.parametrize("kind", ["sattolo", "any", "modulo"])
def test_a_wrong_shuffle_fails(kind: str, tmp_path: Path) -> None:
    cert = _run(_wrong(kind), tmp_path)
    assert cert.verdict == "FAIL"
    failed = {f.name for f in cert.failed}
    assert "10 cards: card by position" in failed


def test_the_production_shuffle_passes(tmp_path: Path) -> None:
    runs = [_run(GENERATORS["system"], tmp_path) for _ in range(2)]
    assert any(cert.passed for cert in runs), [f.name for f in runs[0].failed]
    cert = runs[0]
    assert (tmp_path / "randbelow256-system.bin").stat().st_size == 4096
    names = {f.name for f in cert.families}
    assert {"10 cards: first card", "10 cards: first pair", "10 cards: runs"} <= names
    assert all(f.m >= 40 for f in cert.families)


def test_a_fair_shuffle_written_out_passes_too(tmp_path: Path) -> None:
    runs = [_run(_wrong("fine"), tmp_path) for _ in range(2)]
    assert any(cert.passed for cert in runs)


def test_the_verdict_reads_proportions_not_one_p_value() -> None:
    low, high = proportion_bounds(100)
    assert (low, high) == (0.95, 1.0)  # SP 800-22's normal approximation: 0.9602
    spread = [0.01 + 0.99 * (i + 0.5) / 100 for i in range(100)]
    assert family("f", "", spread[5:] + [0.001] * 5).passed  # 95 of 100
    assert not family("f", "", spread[6:] + [0.001] * 6).passed  # 94 of 100
    assert not family("f", "", [0.5] * 100).passed  # every p-value alike: not spread evenly
    assert family("f", "", []).verdict == "NOT TESTED"
    assert chi_square([5, 0], [1, 0]) is None  # one cell left
    impossible = chi_square([5, 1], [1, 0])
    assert impossible is not None and impossible.p == 0.0


def test_the_batteries_output_is_read() -> None:
    line = "   diehard_birthdays|   0|       100|     100|0.23490083|  PASSED  "
    [result] = parse_dieharder(line, rewound=0)
    assert (result.test, result.p, result.assessment) == ("diehard_birthdays", 0.23490083, "PASSED")
    ent = parse_ent(
        "0,File-bytes,Entropy,Chi-square,Mean,Monte-Carlo-Pi,Serial-Correlation\n"
        "1,1048576,7.999821,258.1,127.49,3.1415,-0.0003\n"
    )
    assert ent.size == 1_048_576 and 0 < ent.chi_p < 1 and 0 < ent.serial_p <= 1


@pytest.mark.parametrize(
    "args",
    [["--shuffles", "0"], ["--shuffles", "-5"], ["--shuffles", "1000000000000"]],
)
def test_bad_shuffles_are_one_line(args: list[str], tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["certify-rng", *args, "--out", str(tmp_path)])
    assert result.exit_code == 2
    assert "--shuffles" in result.output and "Traceback" not in result.output


def test_an_unwritable_out_is_one_line(tmp_path: Path) -> None:
    afile = tmp_path / "file"
    afile.write_text("x")
    result = CliRunner().invoke(
        app, ["certify-rng", "--shuffles", "1000", "--out", str(afile), "--no-dieharder"]
    )
    assert result.exit_code == 2 and "--out" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_the_report_is_written_as_html_and_pdf(tmp_path: Path) -> None:
    try:
        from cardroom.app.par_page import check_report_deps

        check_report_deps()
    except ValueError as err:
        pytest.skip(str(err))
    from cardroom.app.certify.generators import generator

    cert = _run(generator("system"), tmp_path)
    html, pdf = write_report(cert, tmp_path)
    assert pdf.read_bytes().startswith(b"%PDF")
    text = html.read_text("utf-8")
    assert "10 cards" in text and ("Verdict: PASS" in text or "Verdict: FAIL" in text)


@pytest.mark.long
def test_the_command_writes_the_report(tmp_path: Path) -> None:
    """The whole command on every game's shoe (about 15 s: make test-long)."""
    try:
        from cardroom.app.par_page import check_report_deps

        check_report_deps()
    except ValueError as err:
        pytest.skip(str(err))
    out = tmp_path / "cert"
    result = CliRunner().invoke(
        app,
        ["certify-rng", "--shuffles", "1000", "--out", str(out), "--no-dieharder"],
    )
    assert "verdict:" in result.output, result.output
    html = (out / "certify-system.html").read_text("utf-8")
    assert (out / "certify-system.pdf").read_bytes().startswith(b"%PDF")
    assert (out / "randbelow256-system.bin").stat().st_size == 2**20
    assert "first coup of" in html and "rank by position" in html
    assert "Verdict: PASS" in html or "Verdict: FAIL" in html
    assert result.exit_code == (0 if "Verdict: PASS" in html else 1)


def test_the_verifiable_shuffle_is_certified_too(tmp_path: Path) -> None:
    pytest.importorskip("cardroom.core.fair")
    from cardroom.app.certify.generators import available, generator

    assert "hmac" in available()
    runs = [_run(generator("hmac"), tmp_path) for _ in range(2)]
    assert any(cert.passed for cert in runs)
    assert (tmp_path / "randbelow256-hmac.bin").stat().st_size == 4096
