"""The audit export: every round record, ledger row, protection and operator action of
a period as JSON lines in a hash chain, signed with the operator's Ed25519 key, and its
verification, which replays every round through its engine (``docs/export.md``).

- :mod:`.tables`: which tables the export holds (a line each);
- :mod:`.canonical`: a line's one canonical form and its SHA-256;
- :mod:`.format`: the period, the header, the row and end lines, what is signed;
- :mod:`.keys`: the keys, made, written and read;
- :mod:`.writer`: writing an export from the database, streamed;
- :mod:`.verify`: checking one, streamed.
"""

from cardroom.app.audit_export.canonical import FormatError
from cardroom.app.audit_export.format import ExportInputError, Period
from cardroom.app.audit_export.keys import (
    KeyFileError,
    fingerprint,
    load_private,
    load_public,
    write_new_key,
)
from cardroom.app.audit_export.tables import EXPORTED, Exported
from cardroom.app.audit_export.verify import Verified, VerifyFailed, verify
from cardroom.app.audit_export.writer import ExportSummary, export

__all__ = [
    "EXPORTED",
    "ExportInputError",
    "ExportSummary",
    "Exported",
    "FormatError",
    "KeyFileError",
    "Period",
    "Verified",
    "VerifyFailed",
    "export",
    "fingerprint",
    "load_private",
    "load_public",
    "verify",
    "write_new_key",
]
