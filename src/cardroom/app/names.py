"""People's names: one form to store, one key to find an account by, and one skeleton
to refuse a name that looks like another.

- :func:`clean_name` is the name as stored and shown: Unicode's compatibility form
  (NFKC: a full-width "ＥＥＲＯ" is "EERO", a ligature "ﬁ" is "fi"), spaces around it
  dropped.
- :func:`name_key` is how an account is found, at registration and at sign-in alike (and
  how the sign-in throttle counts): the clean name with case folded, NFKC again after
  (Unicode's NFKC_Casefold, near enough): "Eero", "EERO" and "ＥＥＲＯ" are one key.
- :func:`name_skeleton` is the name as it looks: Unicode's confusable skeleton (UTS #39,
  section 4), from the ``confusable-homoglyphs`` package's copy of Unicode's
  ``confusables.txt``, with case folded too: "Eero" and "Еего" (Cyrillic Е, е, г, о) have
  one skeleton, and so do "Il" and "ll".  The database keeps it in a unique column
  (``accounts.name_skeleton``), so that two server processes cannot both register two
  names that look alike.

>>> name_key("ＥＥＲＯ") == name_key(" Eero ") == "eero"
True
>>> name_skeleton("Еего") == name_skeleton("Eero") == name_skeleton("EERO")
True
>>> name_skeleton("Aino") == name_skeleton("Eero")
False
"""

from __future__ import annotations

import unicodedata
from functools import cache

__all__ = ["clean_name", "name_key", "name_skeleton"]

#: Marks that Unicode's data file puts around right-to-left characters in its comments
#: (the package keeps them with the characters).
_DIRECTION_MARKS = str.maketrans("", "", "\u200e\u200f")


def clean_name(name: str) -> str:
    """The name as it is kept: NFKC, with no spaces around it.

    >>> clean_name("  ＡＩＮＯ ")
    'AINO'
    """
    return unicodedata.normalize("NFKC", name).strip()


def name_key(name: str) -> str:
    """How names are matched: NFKC, case folded (then NFKC again, as case folding may
    leave a name out of it).

    >>> name_key("Straße") == name_key("STRASSE")
    True
    """
    return unicodedata.normalize("NFKC", clean_name(name).casefold())


@cache
def _prototypes() -> dict[str, str]:
    """Each confusable character and what it looks like (its prototype in Unicode's
    ``confusables.txt``).

    The package's table lists, for each character, what it is confusable with in both
    directions: a character that is a source of the file lists exactly its one
    prototype, and a prototype lists its sources.  Where two characters list only each
    other, which is which cannot be told from the table, and the smaller one stands
    for both (all that matters is that they share a skeleton).  (The package is read
    here, the first time a name is checked: it takes a fifth of a second to load, which
    every other use of the wallet is spared.)
    """
    from confusable_homoglyphs import confusables  # lazy: Unicode's confusables table

    table = {
        key.translate(_DIRECTION_MARKS): [entry["c"].translate(_DIRECTION_MARKS) for entry in found]
        for key, found in confusables.confusables_data.items()
    }
    out: dict[str, str] = {}
    for char, like in table.items():
        if len(char) != 1 or len(like) != 1:
            continue  # a prototype (it lists its sources) or a sequence
        [target] = like
        if len(target) == 1 and table.get(target) == [char]:
            out[char] = min(char, target)
        else:
            out[char] = target
    return out


def _skeleton(text: str) -> str:
    prototypes = _prototypes()
    decomposed = unicodedata.normalize("NFD", text)
    mapped = "".join(prototypes.get(char, char) for char in decomposed)
    return unicodedata.normalize("NFD", mapped)


def name_skeleton(name: str) -> str:
    """What the name looks like: its confusable skeleton, case folded, skeleton again
    (a capital and a small letter that look alike meet either way).

    >>> name_skeleton("Il") == name_skeleton("ll") == name_skeleton("I1")
    True
    >>> name_skeleton("rn") == name_skeleton("m")
    True
    """
    return _skeleton(_skeleton(clean_name(name)).casefold())
