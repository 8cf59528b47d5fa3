"""The documentation site's two build helpers (``mkdocs.yml`` loads both from here).

- An mkdocs hook: the pages in ``docs/`` are read on GitHub too, where each begins with a
  link back to the README. The site has its own navigation and home page instead, so the
  hook drops that line from the page as the site renders it, and points any other link
  to ``../README.md`` at the home page (``index.md``). It also unescapes GitHub's ``\\|``
  in a table's code spans, which Python-Markdown would show. The files are left as
  they are.
- A Griffe extension for the API reference: the docstrings are reStructuredText prose
  (Sphinx's roles such as ``:class:`GameSpec```, doctest blocks, ``::`` literal blocks)
  and attributes are described by ``#:`` comments above them, as Sphinx reads them.
  mkdocstrings renders Markdown, so the extension turns each role into an optional
  cross-reference (a link where the target is in the reference, plain code where it is
  not), each doctest or literal block into a fenced code block, and each ``#:`` comment
  into the attribute's docstring.
"""

from __future__ import annotations

import ast
import re
from typing import Any

import griffe
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

# -- the mkdocs hook ----------------------------------------------------------------------

BACK_TO_README = re.compile(r"^\[Back to the README\]\(\.\./README\.md\)\n\n?", re.MULTILINE)
#: a link to the README (not one quoted in a code span, as contributing.md quotes one)
README_LINK = re.compile(r"(?<!`)(\[[^\]]*\])\(\.\./README\.md(?:#[^)]*)?\)")


TABLE_ROW = re.compile(r"^\|.*\|[ \t]*$", re.MULTILINE)
CODE_SPAN = re.compile(r"(`+)(.+?)\1")


def _unescape_pipes(row: re.Match[str]) -> str:
    """A table row whose code spans hold ``\\|``: GitHub needs the backslash there to keep
    the cell whole and shows ``|``; Python-Markdown keeps a code span's ``|`` in its cell
    already and would show the backslash."""
    return CODE_SPAN.sub(lambda span: span[0].replace("\\|", "|"), row[0])


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    """The page as the site shows it: without the GitHub reader's way back to the README,
    and with GitHub's escaped pipes in a table's code spans as plain ones."""
    markdown = BACK_TO_README.sub("", markdown)
    markdown = TABLE_ROW.sub(_unescape_pipes, markdown)
    return README_LINK.sub(r"\1(index.md)", markdown)


# -- the Griffe extension -----------------------------------------------------------------

ROLE = re.compile(r":(class|func|meth|mod|data|attr|exc|obj):`(~?)([^`<]*?)(?:\s*<([^`>]+)>)?`")
CALLABLE_ROLES = {"func", "meth"}


def _candidates(obj: griffe.Object, target: str) -> list[str]:
    """The full paths ``target`` may name, as seen from ``obj``'s docstring, best first."""
    if target.startswith("."):
        scopes = [obj if obj.is_module else obj.module]
        if obj.is_class or (obj.parent is not None and obj.parent.is_class):
            scopes.insert(0, obj if obj.is_class else obj.parent)  # type: ignore[arg-type]
        if scopes[-1].parent is not None:
            scopes.append(scopes[-1].parent)
        return [f"{scope.path}{target}" for scope in scopes]
    if target.startswith("cardroom."):
        return [target]
    head, _, rest = target.partition(".")
    scope: griffe.Object | None = obj if (obj.is_class or obj.is_module) else obj.parent
    found = []
    while scope is not None:
        try:
            if isinstance(scope, griffe.Class) and head in scope.all_members:
                resolved = scope.all_members[head].path  # an inherited member too
            else:
                resolved = scope.resolve(head)
        except (griffe.NameResolutionError, griffe.AliasResolutionError):
            scope = scope.parent
            continue
        found.append(f"{resolved}.{rest}" if rest else resolved)
        break
    return [*found, target]


def _exists(root: griffe.Object, path: str) -> bool:
    if not path.startswith(f"{root.path}."):
        return False
    try:
        root[path[len(root.path) + 1 :]]
    except (KeyError, griffe.AliasResolutionError, griffe.CyclicAliasError):
        return False
    return True


def _role(obj: griffe.Object, root: griffe.Object, match: re.Match[str]) -> str:
    kind, short, text, explicit = match.groups()
    target = (explicit or text).strip()
    paths = _candidates(obj, target)
    identifier = next((path for path in paths if _exists(root, path)), paths[0])
    if explicit:
        shown = text.strip()
    else:
        shown = target.rsplit(".", 1)[-1] if short else target.lstrip(".")
        if kind in CALLABLE_ROLES and not shown.endswith(")"):
            shown += "()"
    return f'<autoref identifier="{identifier}" optional><code>{shown}</code></autoref>'


DOCTEST = re.compile(r"^(?P<indent>[ \t]*)>>> ")
LITERAL_INTRO = re.compile(r"(\s*)::$")


def _fence(lines: list[str], indent: str, language: str) -> list[str]:
    return [f"{indent}```{language}", *lines, f"{indent}```"]


def _blocks(text: str) -> str:
    """Doctest blocks and ``::`` literal blocks as fenced code blocks."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        doctest = DOCTEST.match(line)
        if doctest:
            indent = doctest["indent"]
            block = []
            while i < len(lines) and lines[i].strip():
                block.append(lines[i])
                i += 1
            if out and out[-1].strip():
                out.append("")
            out.extend(_fence(block, indent, "pycon"))
            continue
        intro = LITERAL_INTRO.search(line)
        if intro and i + 1 < len(lines) and not lines[i + 1].strip():
            # "text::" reads "text:" and "::" alone disappears, as reST prints them
            out.append(line[: intro.start()] + ("" if not line[: intro.start()].strip() else ":"))
            base = len(line) - len(line.lstrip())
            j = i + 1
            block = []
            while j < len(lines) and (
                not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) > base
            ):
                block.append(lines[j])
                j += 1
            while block and not block[-1].strip():
                block.pop()
                j -= 1
            body = [row for row in block if row.strip()]
            depth = min(len(row) - len(row.lstrip()) for row in body) if body else 0
            out.append("")
            out.extend(_fence([row[depth:] for row in block[1:]], " " * base, "text"))
            i = j
            continue
        out.append(line)
        i += 1
    return "\n".join(out)


def markdown_of(obj: griffe.Object, root: griffe.Object, text: str) -> str:
    """A reST docstring of ``obj`` (in the package ``root``) as mkdocstrings' Markdown."""
    text = _blocks(text)
    return ROLE.sub(lambda match: _role(obj, root, match), text)


def _comment_above(code_lines: list[str], lineno: int) -> str | None:
    """The ``#:`` comment lines just above line ``lineno`` (1-based), as one text."""
    found = []
    index = lineno - 2
    while index >= 0 and code_lines[index].strip().startswith("#:"):
        found.append(code_lines[index].strip()[2:].strip())
        index -= 1
    return "\n".join(reversed(found)) or None


class SphinxDocstrings(griffe.Extension):
    """Sphinx's docstrings (roles, doctests, literal blocks, ``#:`` comments) as Markdown."""

    def on_attribute_instance(
        self,
        *,
        node: ast.AST | griffe.ObjectNode,
        attr: griffe.Attribute,
        agent: griffe.Visitor | griffe.Inspector,
        **kwargs: Any,
    ) -> None:
        if attr.docstring is not None or not isinstance(agent, griffe.Visitor):
            return
        lineno = getattr(node, "lineno", None)
        if lineno is None:
            return
        text = _comment_above(agent.code.split("\n"), lineno)
        if text:
            attr.docstring = griffe.Docstring(text, lineno=lineno - 1, parent=attr)

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        seen: set[int] = set()
        todo: list[griffe.Object] = [pkg]
        while todo:
            obj = todo.pop()
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            if obj.docstring is not None:
                obj.docstring.value = markdown_of(obj, pkg, obj.docstring.value)
            if isinstance(obj, griffe.Class):
                _type_instance_attributes(obj)
            todo.extend(member for member in obj.members.values() if not member.is_alias)  # type: ignore[misc]


def _type_instance_attributes(cls: griffe.Class) -> None:
    """Give an attribute ``__init__`` sets without an annotation the type it plainly has:
    ``self.accounts = Accounts(db)`` is an ``Accounts``, ``self.db = db`` has the type of
    the parameter ``db``."""
    init = cls.members.get("__init__")
    parameters = init.parameters if isinstance(init, griffe.Function) else None
    for member in cls.members.values():
        if (
            not isinstance(member, griffe.Attribute)
            or "instance-attribute" not in member.labels
            or member.annotation is not None
        ):
            continue
        value = member.value
        if isinstance(value, griffe.ExprCall) and isinstance(value.function, griffe.ExprName):
            member.annotation = value.function
        elif (
            isinstance(value, griffe.ExprName)
            and parameters is not None
            and value.name in parameters
        ):
            member.annotation = parameters[value.name].annotation
