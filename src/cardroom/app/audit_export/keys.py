"""The operator's Ed25519 keys: made, written, read, and named by their fingerprint.

The private key is written as unencrypted PKCS #8 PEM readable by its owner only
(``0600``), the public key as SubjectPublicKeyInfo PEM; neither overwrites a file.  A
key's fingerprint is ``sha256:`` and the hex SHA-256 of its 32 raw public bytes.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

__all__ = [
    "KeyFileError",
    "fingerprint",
    "key_paths",
    "load_private",
    "load_public",
    "signature_holds",
    "write_new_key",
]

#: How big a key file may be (a PEM key is a few hundred bytes).
_MAX_KEY_BYTES = 16_384


class KeyFileError(ValueError):
    """A key file that cannot be read or written (the message is one line)."""


def fingerprint(key: Ed25519PublicKey) -> str:
    """``sha256:`` and the hex SHA-256 of the key's raw 32 bytes."""
    raw = key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return "sha256:" + hashlib.sha256(raw).hexdigest()


def key_paths(prefix: Path) -> tuple[Path, Path]:
    """Where :func:`write_new_key` writes: ``PREFIX.key.pem`` and ``PREFIX.pub.pem``."""
    return prefix.with_name(prefix.name + ".key.pem"), prefix.with_name(prefix.name + ".pub.pem")


def write_new_key(prefix: Path) -> tuple[Path, Path, str]:
    """A new key pair written at ``prefix`` (:func:`key_paths`): the two paths and the
    fingerprint.  Refuses (:class:`KeyFileError`, nothing written) when either file
    exists or the folder is missing."""
    private_path, public_path = key_paths(prefix)
    folder = private_path.parent
    if not folder.is_dir():
        raise KeyFileError(f"there is no folder {str(folder)!r} to write the keys in")
    for path in (private_path, public_path):
        if path.exists():
            raise KeyFileError(f"{str(path)!r} exists already: a key is never overwritten")
    key = Ed25519PrivateKey.generate()
    private_pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    public_pem = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    try:
        _write_new(private_path, private_pem, 0o600)
        try:
            _write_new(public_path, public_pem, 0o644)
        except BaseException:
            private_path.unlink()
            raise
    except OSError as err:
        raise KeyFileError(f"cannot write the key: {err.strerror or err}") from None
    return private_path, public_path, fingerprint(key.public_key())


def _write_new(path: Path, data: bytes, mode: int) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        os.fchmod(fd, mode)  # whatever the umask
        os.write(fd, data)
    finally:
        os.close(fd)


def _read(path: Path, what: str) -> bytes:
    try:
        if path.stat().st_size > _MAX_KEY_BYTES:
            raise KeyFileError(f"{str(path)!r} is too big to be {what}")
        return path.read_bytes()
    except FileNotFoundError:
        raise KeyFileError(f"there is no key file {str(path)!r}") from None
    except IsADirectoryError:
        raise KeyFileError(f"{str(path)!r} is a folder, not {what}") from None
    except OSError as err:
        raise KeyFileError(f"cannot read {str(path)!r}: {err.strerror or err}") from None


def load_private(path: Path) -> Ed25519PrivateKey:
    """An Ed25519 private key from a PEM file (unencrypted)."""
    data = _read(path, "a private key")
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError):
        raise KeyFileError(
            f"{str(path)!r} is not an unencrypted private key in PEM "
            "(make one with `cardroom export keygen`)"
        ) from None
    if not isinstance(key, Ed25519PrivateKey):
        raise KeyFileError(f"{str(path)!r} is not an Ed25519 key")
    return key


def load_public(path: Path) -> Ed25519PublicKey:
    """An Ed25519 public key from a PEM file."""
    data = _read(path, "a public key")
    try:
        key = serialization.load_pem_public_key(data)
    except (ValueError, TypeError):
        raise KeyFileError(f"{str(path)!r} is not a public key in PEM") from None
    if not isinstance(key, Ed25519PublicKey):
        raise KeyFileError(f"{str(path)!r} is not an Ed25519 public key")
    return key


def signature_holds(key: Ed25519PublicKey, signature: bytes, message: bytes) -> bool:
    """Does ``signature`` sign ``message`` under ``key``?"""
    try:
        key.verify(signature, message)
    except InvalidSignature:
        return False
    return True
