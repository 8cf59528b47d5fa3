"""The docs tell the truth: every terminal sample in README.md and docs/*.md is what the
program prints now, and every link between the pages leads somewhere.

A stale sample fails with its diff. Refresh them with
``.venv/bin/python scripts/samples.py --update`` (see docs/contributing.md); samples
marked ``slow`` are left to ``scripts/samples.py --check``.
"""

from __future__ import annotations

import doctest
import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent


def load_script() -> ModuleType:
    """``scripts/samples.py``, which is a script, not part of the package."""
    path = ROOT / "scripts" / "samples.py"
    spec = importlib.util.spec_from_file_location("cardroom_doc_samples", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up here
    spec.loader.exec_module(module)
    return module


samples = load_script()
SAMPLES = samples.all_samples()


# -- the docs' samples ----------------------------------------------------------------
@pytest.mark.parametrize("sample", SAMPLES, ids=lambda s: s.name)
def test_sample_is_what_the_program_prints(sample: Any) -> None:
    if sample.unchecked is not None:
        pytest.skip(f"unchecked: {sample.unchecked}")
    if sample.slow:
        pytest.skip("slow: checked by scripts/samples.py --check")
    result = samples.run_sample(sample)
    if result.stale:
        pytest.fail(
            f"{sample.name} is stale; refresh it with "
            f"`.venv/bin/python scripts/samples.py --update`\n{result.diff()}",
            pytrace=False,
        )


def test_the_docs_have_their_samples() -> None:
    names = {s.name.partition(":")[0] for s in SAMPLES}
    assert "README.md" in names and "docs/playing.md" in names
    # few exceptions: every sample is checked, in the suite or (slow ones) by the script
    assert [s.name for s in SAMPLES if s.unchecked is not None] == []
    fast = [s for s in SAMPLES if not s.slow]
    assert len(fast) >= len(SAMPLES) // 2
    assert any(s.input is not None for s in fast) and any(s.setup is not None for s in fast)


# -- the runner itself ----------------------------------------------------------------
def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_a_stale_sample_is_reported_with_a_diff_and_updated(tmp_path: Path) -> None:
    page = write(
        tmp_path / "page.md",
        "Intro\n\n```\n$ echo hello\ngoodbye\n```\n\n```\nnot a sample\n```\n",
    )
    [sample] = samples.find_samples(page)
    result = samples.run_sample(sample)
    assert result.stale
    assert "-goodbye" in result.diff() and "+hello" in result.diff()
    assert samples.main(["--check", str(page)]) == 1
    assert samples.main(["--update", str(page)]) == 0
    assert page.read_text(encoding="utf-8") == (
        "Intro\n\n```\n$ echo hello\nhello\n```\n\n```\nnot a sample\n```\n"
    )
    assert samples.main(["--check", str(page)]) == 0


def test_input_setup_and_several_commands(tmp_path: Path) -> None:
    page = write(
        tmp_path / "page.md",
        '<!-- sample input="Ann\\nBob" setup="printf \'one\\\\n\' > f.txt" -->\n'
        "```\n"
        "$ python -c \"print('hi', input('name? ')); print('and', input('next? '))\"\n"
        "\n"
        "$ cat f.txt\n"
        "```\n",
    )
    [sample] = samples.find_samples(page)
    assert sample.input == "Ann\nBob" and sample.setup == "printf 'one\\n' > f.txt"
    # each typed line shows after its prompt, as on a terminal
    assert samples.run_sample(sample).actual == (
        "$ python -c \"print('hi', input('name? ')); print('and', input('next? '))\"\n"
        "name? Ann\nhi Ann\nnext? Bob\nand Bob\n\n$ cat f.txt\none"
    )


def test_a_fresh_fixed_environment(tmp_path: Path) -> None:
    page = write(
        tmp_path / "page.md",
        "```\n$ echo $HOME/x $COLUMNS $NO_COLOR; pwd; ls -A $HOME; echo err >&2\n```\n",
    )
    [sample] = samples.find_samples(page)
    out = samples.run_sample(sample).actual.splitlines()[1:]
    assert out == ["~/x 80 1", ".", "err"]


def test_run_to_run_figures_do_not_make_a_sample_stale(tmp_path: Path) -> None:
    page = write(
        tmp_path / "page.md",
        "```\n$ echo 'x, 2 worker(s) (local), 0.51 s = 3,338,458 rounds/s'; "
        "echo '#3  2026-11-21 23:10:44'\n"
        "x, 7 worker(s) (local), 12.00 s = 166,666 rounds/s\n#3  2024-01-02 03:04:05\n```\n",
    )
    [sample] = samples.find_samples(page)
    assert not samples.run_sample(sample).stale
    page.write_text(page.read_text().replace("x, 7", "y, 7"))
    assert samples.run_sample(samples.find_samples(page)[0]).stale


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("<!-- sample fast -->\n```\n$ echo\n```\n", "unknown sample marker"),
        ("<!-- sample input=unquoted -->\n```\n$ echo\n```\n", "unknown sample marker"),
        ("<!-- sample slow -->\nSome prose.\n", "no sample after it"),
        ("<!-- sample slow -->\n```\nplain text\n```\n", "no '$ '"),
        ('<!-- sample unchecked="" -->\n```\n$ echo\n```\n', "needs a value"),
        ("```\n$ echo\n", "never closed"),
    ],
)
def test_bad_markers_are_refused(tmp_path: Path, text: str, message: str) -> None:
    page = write(tmp_path / "page.md", text)
    with pytest.raises(samples.SampleError, match=re.escape(message)):
        samples.find_samples(page)


def test_markers_are_read() -> None:
    settings = samples.parse_marker(' slow input="p 10\\nq" unchecked="a \\"why\\""', "x")
    assert settings == {"slow": True, "input": "p 10\nq", "unchecked": 'a "why"'}
    doctests = doctest.testmod(samples)
    assert doctests.attempted > 0 and doctests.failed == 0


# -- links between the pages ----------------------------------------------------------
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def anchors(path: Path) -> set[str]:
    """GitHub's anchors for the headings of a Markdown file (outside code blocks)."""
    found: set[str] = set()
    fenced = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            found.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return found


@pytest.mark.parametrize("page", samples.doc_files(ROOT), ids=lambda p: p.name)
def test_links_lead_somewhere(page: Path) -> None:
    for target in LINK.findall(page.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target):
            continue  # an outside address
        file, _, anchor = target.partition("#")
        linked = (page.parent / file).resolve() if file else page
        assert linked.exists(), f"{page.name}: {target} leads nowhere"
        if anchor:
            assert anchor in anchors(linked), f"{page.name}: no heading for {target}"


def test_the_readme_leads_to_every_page() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    linked = {t.partition("#")[0] for t in LINK.findall(readme)}
    for page in sorted((ROOT / "docs").glob("*.md")):
        assert f"docs/{page.name}" in linked, f"README.md does not link to docs/{page.name}"


def test_the_readme_opens_with_make_run_and_make_test() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    opening = readme.split("```")[1]
    assert opening.startswith("sh\nmake run ") and "\nmake test " in opening
