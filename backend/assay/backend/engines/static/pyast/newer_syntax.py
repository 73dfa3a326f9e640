"""F-strings written in Python 3.12's grammar, read by the Python 3.11 parser the engine runs on.

Python 3.12 (PEP 701) lets an f-string's expression part hold a backslash or the string's own quote
(``f"{',\\n'.join(cols)}"``, ``f"{row["name"]}"``); 3.11's parser refuses the whole file. Rather than leave
every tool of such a file unseen, the one f-string on the line the parser stops at is read as an empty string
of the same length (so every other location in the file stays where it is) and the file parsed again. The
caller records each line so read as a frontier item: what that string carried is not seen.
"""

from __future__ import annotations

import re

# An f-string's opening: its prefix (f, rf, fr, in any case) and a single quote character.
_OPENING = re.compile(r"(?<![\w'\"])(?:[rR]?[fF]|[fF][rR])(['\"])(?!\1\1)")
# At most this many f-strings are read so in one file; a file needing more is left unparsed.
MAX_REPAIRS = 16


# The parser reports such an f-string at the line where the expression holding it ends: look this far back.
LINES_BACK = 5


def blank_fstring(text: str, line: int) -> tuple[str, int] | None:
    """``text`` with the first f-string of 3.12 syntax on ``line`` (1-based), or on one of the few lines before it,
    replaced by ``""`` and spaces of the same length, and the line it was on; None when none of those lines holds
    a single-line f-string that needs it."""
    lines = text.split("\n")
    for at in range(min(line, len(lines)), max(line - LINES_BACK, 1) - 1, -1):
        source = lines[at - 1]
        for match in _OPENING.finditer(source):
            start = match.start()
            end = _fstring_end(source, match.end() - 1)
            if end is None:
                continue
            literal = source[start:end]
            if "\\" not in _expressions(literal) and not _nested_quote(literal, match.group(1)):
                continue  # an f-string 3.11 reads as it is
            lines[at - 1] = source[:start] + '""' + " " * (end - start - 2) + source[end:]
            return "\n".join(lines), at
    return None


def _fstring_end(source: str, quote_at: int) -> int | None:
    """The index after the closing quote of the f-string whose opening quote is at ``quote_at``, read as Python
    3.12 reads it (quotes and backslashes allowed inside its replacement fields), on this line only."""
    quote = source[quote_at]
    depth = 0
    i = quote_at + 1
    while i < len(source):
        ch = source[i]
        if depth == 0:
            if ch == "\\":
                i += 2
                continue
            if ch == quote:
                return i + 1
            if ch == "{":
                if source.startswith("{{", i):
                    i += 2
                    continue
                depth = 1
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch in "'\"":
            closing = _string_end(source, i)
            if closing is None:
                return None
            i = closing
            continue
        i += 1
    return None


def _string_end(source: str, at: int) -> int | None:
    """The index after a plain single-line string literal opening at ``at`` inside a replacement field."""
    quote = source[at]
    i = at + 1
    while i < len(source):
        if source[i] == "\\":
            i += 2
            continue
        if source[i] == quote:
            return i + 1
        i += 1
    return None


def _expressions(literal: str) -> str:
    """The text of a literal's replacement fields (between single braces), joined."""
    return "".join(re.findall(r"(?<!\{)\{(?!\{)(.*?)\}", literal))


def _nested_quote(literal: str, quote: str) -> bool:
    """Whether a replacement field of the literal holds the f-string's own quote character."""
    return quote in _expressions(literal[2:-1] if literal[:1] in "fF" else literal[3:-1])
