"""The codec imports pydantic when a codec is first made, not with the types it reads."""

from __future__ import annotations

import subprocess
import sys


def _imports_pydantic(code: str) -> bool:
    script = f"import sys\n{code}\nprint('pydantic' in sys.modules)\n"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip() == "True"


def test_the_events_do_not_import_pydantic() -> None:
    assert not _imports_pydantic("import cardroom.core.events")


def test_a_codec_made_imports_it() -> None:
    assert _imports_pydantic("from cardroom.core.codec import Amount, Codec\nCodec(Amount)")
