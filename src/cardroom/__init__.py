"""cardroom: play, simulate and exactly analyse the Finnish 27 family and baccarat."""

from __future__ import annotations

from pathlib import Path

__version__ = "0.1.0"

#: the file a built wheel or sdist keeps its commit in (written by setup.py)
COMMIT_FILE = "_commit.txt"


def build_commit() -> str | None:
    """The commit this copy of cardroom was made from: where the package is a git
    checkout's, git's abbreviated hash of it (``-dirty`` when files differ from it);
    otherwise the one a wheel or sdist recorded when it was built; None when neither
    says."""
    here = Path(__file__).resolve().parent
    if (here.parents[1] / ".git").exists():
        import subprocess  # lazy: only ``--version`` asks (not every command's start-up)

        try:
            described = subprocess.run(
                ["git", "describe", "--always", "--dirty", "--abbrev=12", "--exclude=*"],
                cwd=here,
                capture_output=True,
                text=True,
                timeout=10,
            )
        except (OSError, subprocess.SubprocessError):
            described = None
        if described is not None and described.returncode == 0 and described.stdout.strip():
            return described.stdout.strip()
    try:
        recorded = (here / COMMIT_FILE).read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return recorded or None


def version_line() -> str:
    """What ``cardroom --version`` prints: the version, and the commit when it is known."""
    commit = build_commit()
    return f"cardroom {__version__}" + (f" (commit {commit})" if commit else "")
