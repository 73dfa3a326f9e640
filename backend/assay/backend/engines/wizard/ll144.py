"""The NYC Local Law 144 bias-audit figures, computed from a CSV of candidate outcomes (6 RCNY § 5-301).

Input: one row per candidate with ``sex``, ``race_ethnicity`` (EEO-1 category names) and either
``selected`` (0 or 1) or ``score`` (a finite number); other columns are ignored. Output (:func:`compute`):
selection rates (binary outcomes) or scoring rates (the share of a category scoring above the sample's
median score), and impact ratios (a category's rate over the highest rate) by sex, by race/ethnicity and
intersectionally. Categories under 2% of the rows are excluded from the ratios but still reported with
their counts; rows whose sex or race/ethnicity is unknown are counted and reported.

Two readers give the same figures. A plain file (UTF-8, no quote character, the header's width on every
line, every cell valid) is parsed by Arrow's CSV reader, three columns only, and counted by numpy
(:func:`_arrow_tally`). Any other file, and every refusal, is read again by the exact reader
(:func:`tally`): a stream in chunks, rows mapped to a small category code by a dict (C speed), counted with
``Counter`` and, for scores, kept as one array of doubles and one of codes, which names the row at fault.
Either way a million rows take tens of megabytes. No cell text ever reaches the output: categories are the
EEO-1 names of this module, so a cell such as ``=HYPERLINK(...)`` is refused, and quoted only JSON-escaped
in the error.
"""

from __future__ import annotations

import codecs
import csv
import json
import math
import re
import statistics
from array import array
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import chain, compress, islice, repeat
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
    import pyarrow as pa

    Codes = npt.NDArray[np.uint8]
    Scores = npt.NDArray[np.float64]

SEXES: tuple[str, ...] = ("Male", "Female")
RACES: tuple[str, ...] = (
    "Hispanic or Latino",
    "White",
    "Black or African American",
    "Native Hawaiian or Other Pacific Islander",
    "Asian",
    "American Indian or Alaska Native",
    "Two or More Races",
)
UNKNOWN = "Unknown"
# Cells meaning "not known" (counted as unknowns, never as a category).
UNKNOWN_CELLS = frozenset({"", "unknown", "not disclosed", "declined to self-identify", "prefer not to say"})
# Under this share of the rows a category is excluded from the impact ratios (6 RCNY § 5-301(d)).
EXCLUSION_SHARE = 0.02
# The EEOC four-fifths reference (29 C.F.R. § 1607.4(D)): a rule of thumb, not a legal pass mark of LL144.
FOUR_FIFTHS = 0.8
# Heuristic (Assay's, not the law's): below this many candidates in a category, or fewer than this many
# expected selections, a ratio says little either way and carries a small-sample note.
SMALL_CATEGORY = 30
SMALL_EXPECTED = 5
CHUNK_ROWS = 65536
MAX_SHOWN = 40

_SEX_BY_CELL = {s.lower(): s for s in SEXES}
_RACE_BY_CELL = {r.lower(): r for r in RACES} | {f"{r} (not hispanic or latino)".lower(): r for r in RACES[1:]}


class DataError(ValueError):
    """The data cannot be used; the message says what to fix (row numbers count data rows from 1)."""


def shown(value: str) -> str:
    """A cell as an error message may quote it: cut, JSON-escaped, and marked as data."""
    cut = value if len(value) <= MAX_SHOWN else value[:MAX_SHOWN] + "..."
    return json.dumps(cut, ensure_ascii=True)


def _category(cell: str, known: dict[str, str], column: str, row: int) -> str:
    key = cell.strip().lower()
    if key in UNKNOWN_CELLS:
        return UNKNOWN
    found = known.get(key)
    if found is None:
        names = ", ".join(SEXES if column == "sex" else RACES)
        raise DataError(
            f"data row {row}: {column} {shown(cell)} is not a known category; use one of: {names} "
            "(or leave it empty for unknown)."
        )
    return found


@dataclass(frozen=True, slots=True)
class _Key:
    sex: str
    race: str
    selected: int  # -1 for scores


class _Codes(dict[tuple[str, ...], int]):
    """Raw cells -> a small code, validated the first time each distinct raw value is seen."""

    def __init__(self, binary: bool) -> None:
        super().__init__()
        self.binary = binary
        self.keys_by_code: list[_Key] = []
        self._code_of: dict[_Key, int] = {}
        self.row = 0  # the first data row of the chunk being coded, for messages

    def __missing__(self, raw: tuple[str, ...]) -> int:
        sex = _category(raw[0], _SEX_BY_CELL, "sex", self.row)
        race = _category(raw[1], _RACE_BY_CELL, "race_ethnicity", self.row)
        selected = -1
        if self.binary:
            cell = raw[2].strip()
            if cell not in ("0", "1"):
                raise DataError(f"data row {self.row}: selected {shown(raw[2])} is not 0 or 1.")
            selected = int(cell)
        key = _Key(sex, race, selected)
        code = self._code_of.get(key)
        if code is None:
            code = self._code_of[key] = len(self.keys_by_code)
            self.keys_by_code.append(key)
        self[raw] = code
        return code


BLOCK_BYTES = 1 << 22


def _blocks(stream: IO[bytes]) -> Iterator[str]:
    """The stream as UTF-8 text in blocks that end at a line end (a newline byte is never inside a
    multi-byte UTF-8 sequence, so cutting there is safe)."""
    rest = b""
    lines_before = 0
    first = True
    while True:
        data = stream.read(BLOCK_BYTES)
        if not data:
            break
        data = rest + data
        cut = data.rfind(b"\n") + 1
        if cut == 0:
            rest = data
            continue
        block, rest = data[:cut], data[cut:]
        yield _decode(block, lines_before, first)
        lines_before += block.count(b"\n")
        first = False
    if rest:
        yield _decode(rest, lines_before, first)


def _decode(block: bytes, lines_before: int, first: bool) -> str:
    if first:
        if block.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
            raise DataError("The file is UTF-16 text; save it as UTF-8 CSV.")
        if block.startswith(codecs.BOM_UTF8):
            block = block[len(codecs.BOM_UTF8) :]
    try:
        return block.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = lines_before + block.count(b"\n", 0, exc.start) + 1
        raise DataError(f"The file is not UTF-8 text (invalid byte on line {line}); save it as UTF-8 CSV.") from exc


def _columns(header: list[str]) -> tuple[int, int, int, bool]:
    names = [h.strip().lower() for h in header]
    missing = [c for c in ("sex", "race_ethnicity") if c not in names]
    has_selected, has_score = "selected" in names, "score" in names
    if not has_selected and not has_score:
        missing.append("selected or score")
    if missing:
        found = ", ".join(shown(h) for h in header[:10]) or "none"
        raise DataError(f"Missing column(s): {', '.join(missing)}. The header has: {found}.")
    if has_selected and has_score:
        raise DataError("The file has both selected and score columns; keep one (selected 0/1, or score).")
    for column in ("sex", "race_ethnicity", "selected" if has_selected else "score"):
        if names.count(column) > 1:
            raise DataError(f"The column {column} appears more than once.")
    outcome = names.index("selected" if has_selected else "score")
    return names.index("sex"), names.index("race_ethnicity"), outcome, has_selected


class _ShortRowError(Exception):
    def __init__(self, offset: int, cells: int) -> None:
        super().__init__(offset)
        self.offset = offset
        self.cells = cells


def _csv_rows(text: Iterator[str]) -> Iterator[list[list[str]]]:
    reader = csv.reader((line for block in text for line in block.splitlines(keepends=True)), strict=True)
    try:
        while chunk := list(islice(reader, CHUNK_ROWS)):
            yield [r for r in chunk if r and any(c.strip() for c in r)]  # blank lines are not candidates
    except csv.Error as exc:
        raise DataError(f"The CSV is malformed near line {reader.line_num + 1}: {exc}.") from exc


Columns = tuple[list[str], list[str], list[str]]


def _split_block(text: str, width: int, positions: tuple[int, int, int]) -> Columns | None:
    """The block's (sex, race, outcome) columns when it is plain CSV with ``width`` cells on every line
    (no quote, no blank line): split by C string methods, never row by row in Python. None otherwise."""
    if "\r" in text:
        text = text.replace("\r\n", "\n")
        if "\r" in text:
            return None
    body = text[:-1] if text.endswith("\n") else text
    lines = body.split("\n")
    if set(map(str.count, lines, repeat(",", len(lines)))) != {width - 1}:
        return None
    del lines
    cells = body.replace("\n", ",").split(",")
    sex, race, outcome = (cells[at::width] for at in positions)
    return sex, race, outcome


@dataclass(frozen=True, slots=True)
class Counted:
    """A block of binary outcomes read by lines: how many rows hold each (sex, race, selected) triple of
    cells, and the block itself (read again, by columns, only to locate a refused row)."""

    counts: Counter[tuple[str, ...]]
    rows: int
    text: str


def _counted_block(text: str, width: int, ranks: tuple[int, ...], binary: bool) -> Counted | None:
    """Outcomes whose three columns are the last ones: rows are counted as whole lines (leading columns
    cut by one regular expression), so only the distinct lines are ever split. Exact: every line must have
    ``width - 1`` commas (the total is checked, and every distinct line must split in three, so a short
    line cannot hide behind a long one). None when the block is not of that shape, or (scores) when its
    lines hardly repeat, where reading by columns is cheaper."""
    body = text[:-1] if text.endswith("\n") else text
    lines_count = body.count("\n") + 1
    if "\r" in body or body.count(",") != lines_count * (width - 1):
        return None
    if width > 3:
        body = re.sub(rf"(?m)^(?:[^,\n]*,){{{width - 3}}}", "", body)
    lines = Counter(body.split("\n"))
    if not binary and len(lines) * 2 > lines_count:
        return None
    counts: Counter[tuple[str, ...]] = Counter()
    for line, n in lines.items():
        parts = line.split(",")
        if len(parts) != 3:
            return None
        counts[(parts[ranks[0]], parts[ranks[1]], parts[ranks[2]])] += n
    return Counted(counts, lines_count, text)


def _projected(
    blocks: Iterator[str], header: list[str], positions: tuple[int, int, int], binary: bool = False
) -> Iterator[Columns | Counted]:
    """Chunks of (sex, race, outcome) columns.

    A block without a quote character whose lines all have the header's number of cells is split by
    string methods (C speed); any other block is read by the csv module, which finds the exact fault.
    From the first quote on, the rest of the file goes through the csv module (a quoted cell may span
    lines)."""
    width = len(header)
    needed = max(positions) + 1
    trailing = sorted(positions) == list(range(width - 3, width))
    ranks = tuple(sorted(positions).index(p) for p in positions)
    for text in blocks:
        if not text:
            continue
        if trailing and '"' not in text:
            counted = _counted_block(text, width, ranks, binary)
            if counted is not None:
                yield counted
                continue
            # Scores that hardly repeat in one block will not in the next: stop counting lines.
            trailing = binary
        if '"' in text:
            for rows in _csv_rows(chain([text], blocks)):
                yield _transpose(rows, needed, positions)
            return
        split = _split_block(text, width, positions)
        if split is not None:
            yield split
            continue
        for rows in _csv_rows(iter([text])):
            yield _transpose(rows, needed, positions)


def _transpose(rows: list[list[str]], needed: int, positions: tuple[int, int, int]) -> Columns:
    for offset, row in enumerate(rows):
        if len(row) < needed:
            raise _ShortRowError(offset, len(row))
    sex, race, outcome = ([row[at] for row in rows] for at in positions)
    return sex, race, outcome


@dataclass(frozen=True, slots=True)
class Tally:
    """What the stream held: rows per category code, and for scores the codes above the median."""

    keys: list[_Key]
    rows: Counter[int]
    positive: Counter[int]
    binary: bool
    median: float | None
    total: int


def tally(stream: IO[bytes]) -> Tally:
    """Read the CSV stream once; DataError on anything unusable (nothing is kept of a refused file)."""
    blocks = _blocks(stream)
    first = next(blocks, "")
    newline = first.find("\n")
    header_line = first if newline < 0 else first[: newline + 1]
    header = next(csv.reader([header_line]), [])
    if not header or not any(h.strip() for h in header):
        raise DataError("The file is empty; it needs a header row and one row per candidate.")
    sex_at, race_at, outcome_at, binary = _columns(header)
    codes = _Codes(binary)
    rows: Counter[int] = Counter()
    scores = array("d")
    row_codes = array("B")
    # Scores of counted blocks: (category code, score) -> rows.
    pairs: Counter[tuple[int, float]] = Counter()
    total = 0
    positions = (sex_at, race_at, outcome_at)
    chunks = _projected(chain([first[len(header_line) :]], blocks), header, positions, binary)
    while True:
        try:
            chunk = next(chunks)
        except StopIteration:
            break
        except _ShortRowError as short:
            raise DataError(
                f"data row {total + short.offset + 1} has {short.cells} cell(s), fewer than the header needs."
            ) from None
        codes.row = total + 1
        if isinstance(chunk, Counted):
            try:
                for key, n in chunk.counts.items():
                    code = codes[key if binary else key[:2]]
                    rows[code] += n
                    if not binary:
                        pairs[(code, _score(key[2]))] += n
            except DataError as exc:
                # Located by reading the block again by columns (refusals only: never the hot path).
                columns = _split_block(chunk.text, len(header), positions)
                if columns is None:
                    raise
                if isinstance(exc, _BadScoreError):
                    raise DataError(_bad_score(columns[2], total + 1)) from None
                raise DataError(_locate(exc, *columns, codes, total + 1)) from None
            total += chunk.rows
            continue
        sex, race, outcome = chunk
        try:
            coded = array(
                "B",
                map(codes.__getitem__, zip(sex, race, outcome, strict=True) if binary else zip(sex, race, strict=True)),
            )
        except DataError as exc:
            raise DataError(_locate(exc, sex, race, outcome, codes, total + 1)) from None
        rows.update(coded)
        if not binary:
            try:
                values = array("d", map(float, outcome))
            except ValueError:
                raise DataError(_bad_score(outcome, total + 1)) from None
            # float() also reads nan and inf: an array holding a NaN is unequal to itself (C-speed checks).
            if values and (values != values or max(values) == math.inf or min(values) == -math.inf):
                raise DataError(_bad_score(outcome, total + 1))
            scores.extend(values)
            row_codes.extend(coded)
        total += len(sex)
    if total == 0:
        raise DataError("The file has a header but no candidate rows.")
    if binary:
        positive = Counter({code: rows[code] for code, key in enumerate(codes.keys_by_code) if key.selected == 1})
        return Tally(codes.keys_by_code, rows, positive, True, None, total)
    median = _median(scores, pairs)
    above = Counter(compress(row_codes, map(median.__lt__, scores)))
    for (code, value), n in pairs.items():
        if value > median:
            above[code] += n
    return Tally(codes.keys_by_code, rows, above, False, median, total)


def _score(cell: str) -> float:
    try:
        value = float(cell)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise _BadScoreError(f"score {shown(cell)} is not a finite number.")
    return value


class _BadScoreError(DataError):
    """A score cell of a counted block that is not a finite number (located by the caller)."""


def _median(values: array[float], pairs: Counter[tuple[int, float]]) -> float:
    """The median of every score: the rows read by columns (``values``) and the counted ones (``pairs``).
    Scores repeat (a few thousand distinct values in a million rows is common), so the distinct values are
    sorted with their counts, unless the column-read scores hardly repeat."""
    counts = Counter(values)
    if not pairs and len(counts) * 4 > len(values):
        return float(statistics.median(values))
    for (_code, value), n in pairs.items():
        counts[value] += n
    size = sum(counts.values())
    middle = size // 2
    seen = 0
    ordered = sorted(counts.items())
    for index, (value, count) in enumerate(ordered):
        seen += count
        if seen > middle:
            if size % 2 == 1 or seen - count < middle:
                return value
            return (value + ordered[index - 1][0]) / 2
    raise AssertionError("unreachable: the counts sum to the number of values")


def _locate(exc: DataError, sex: list[str], race: list[str], outcome: list[str], codes: _Codes, first: int) -> str:
    """The refusal with the exact row number (the coder knows only the chunk's first row)."""
    probe = _Codes(codes.binary)
    for offset, raw in enumerate(zip(sex, race, outcome, strict=True)):
        probe.row = first + offset
        try:
            probe[raw if codes.binary else raw[:2]]
        except DataError as located:
            return str(located)
    return str(exc)


def _bad_score(outcome: list[str], first: int) -> str:
    for offset, cell in enumerate(outcome):
        try:
            value = float(cell)
        except ValueError:
            value = math.nan
        if not math.isfinite(value):
            return f"data row {first + offset}: score {shown(cell)} is not a finite number."
    return f"a score near data row {first} is not a finite number."


def _table(groups: dict[Any, tuple[int, int]], total: int, labels: list[dict[str, str]]) -> list[dict[str, Any]]:
    """Rates and impact ratios of ``groups`` (label -> (count, positives)), in the order of ``labels``."""
    rates = {k: (p / n if n else None) for k, (n, p) in groups.items()}
    included = {k for k, (n, _p) in groups.items() if n and n / total >= EXCLUSION_SHARE}
    top = max((r for k in included if (r := rates[k]) is not None), default=None)
    out = []
    for key, label in zip(groups, labels, strict=True):
        n, p = groups[key]
        rate = rates[key]
        ratio = rate / top if key in included and rate is not None and top else None
        expected = n * (top or 0.0)
        out.append(
            {
                **label,
                "count": n,
                "positive": p,
                "shareOfRows": n / total,
                "rate": rate,
                "excludedFromRatios": key not in included,
                "impactRatio": ratio,
                "underFourFifths": ratio is not None and ratio < FOUR_FIFTHS,
                "smallSample": 0 < n < SMALL_CATEGORY or (n > 0 and expected < SMALL_EXPECTED),
            }
        )
    return out


def figures(t: Tally) -> dict[str, Any]:
    """The bias-audit figures as JSON values (stable order: the EEO-1 order of this module)."""
    by: dict[tuple[str, str], tuple[int, int]] = {}
    for code, key in enumerate(t.keys):
        n, p = by.get((key.sex, key.race), (0, 0))
        by[(key.sex, key.race)] = (n + t.rows[code], p + t.positive[code])

    def total_of(pred: Any) -> tuple[int, int]:
        parts = [v for k, v in by.items() if pred(k)]
        return sum(n for n, _ in parts), sum(p for _, p in parts)

    sex = {s: total_of(lambda k, s=s: k[0] == s) for s in SEXES}
    race = {r: total_of(lambda k, r=r: k[1] == r) for r in RACES}
    inter = {(s, r): by.get((s, r), (0, 0)) for s in SEXES for r in RACES}
    unknown_sex = total_of(lambda k: k[0] == UNKNOWN)[0]
    unknown_race = total_of(lambda k: k[1] == UNKNOWN)[0]
    unknown_any = total_of(lambda k: UNKNOWN in k)[0]
    tables = {
        "bySex": _table(sex, t.total, [{"sex": s} for s in SEXES]),
        "byRaceEthnicity": _table(race, t.total, [{"raceEthnicity": r} for r in RACES]),
        "intersectional": _table(inter, t.total, [{"sex": s, "raceEthnicity": r} for s, r in inter]),
    }
    notes = []
    for name, rows in tables.items():
        if all(r["impactRatio"] is None for r in rows):
            notes.append(f"{name}: no impact ratio can be computed (no included category has a positive rate).")
        for r in rows:
            if r["count"] == 0:
                notes.append(f"{name}: {_label(r)} has no candidates; its rate is undefined.")
    flagged = [(name, r) for name, rows in tables.items() for r in rows if r["underFourFifths"]]
    return {
        "method": "selection_rate" if t.binary else "scoring_rate",
        "rows": t.total,
        "medianScore": t.median,
        "unknown": {"sex": unknown_sex, "raceEthnicity": unknown_race, "eitherOrBoth": unknown_any},
        "exclusionShare": EXCLUSION_SHARE,
        "fourFifthsReference": FOUR_FIFTHS,
        **tables,
        "underFourFifths": [
            {"table": name, "category": _label(r), "impactRatio": r["impactRatio"]} for name, r in flagged
        ],
        "notes": notes,
    }


def _label(row: dict[str, Any]) -> str:
    return " / ".join(str(row[k]) for k in ("sex", "raceEthnicity") if k in row)


# Bytes handed to Arrow at once (cut after a line end), parsed in blocks on every core. Small pieces keep
# memory bounded and reused: 2 MB pieces took 0.19 s of CPU for a million scores where 64 MB pieces (the
# whole file in one) took 0.25 s, page faults mostly. Scores keep 9 bytes a row, as the exact reader does.
ARROW_BYTES = 1 << 21
ARROW_BLOCK = 1 << 19
# Category codes of the Arrow reader: (sex, race[, selected]) packed in one byte, UNKNOWN last in each.
_SEX_ORDER: tuple[str, ...] = (*SEXES, UNKNOWN)
_RACE_ORDER: tuple[str, ...] = (*RACES, UNKNOWN)


def _line_chunks(stream: IO[bytes]) -> Iterator[bytes]:
    """The stream in pieces that end at a line end (the last one as it ends)."""
    rest = b""
    while data := stream.read(ARROW_BYTES):
        cut = data.rfind(b"\n") + 1
        if cut == 0:
            rest += data
            continue
        yield rest + memoryview(data)[:cut] if rest else data[:cut]
        rest = data[cut:]
    if rest:
        yield rest


def _plain_header(first: bytes) -> tuple[int, tuple[int, int, int], bool] | None:
    """The header's width, the (sex, race, outcome) positions and whether outcomes are binary; None when
    the header is not plain UTF-8 naming the columns (the exact reader then says what is wrong)."""
    end = first.find(b"\n")
    line = first if end < 0 else first[:end]
    if line.startswith(codecs.BOM_UTF8):
        line = line[len(codecs.BOM_UTF8) :]
    try:
        header = next(csv.reader([line.decode("utf-8")]), [])
        sex_at, race_at, outcome_at, binary = _columns(header)
    except (UnicodeDecodeError, csv.Error, DataError):
        return None
    return len(header), (sex_at, race_at, outcome_at), binary


def _plain_text(chunk: bytes) -> bool:
    """UTF-8 throughout (checked here: Arrow converts, and so checks, only the columns read) and no quote
    character (a quoted cell may hide a comma or a line end, which Arrow without quoting would split)."""
    if b'"' in chunk:
        return False
    if chunk.isascii():
        return True
    try:
        chunk.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _lookup(dictionary: pa.Array, code_of: Callable[[str], int | None], scale: int) -> Codes | None:
    """Codes (times ``scale``) of a block's distinct cells, as a table indexed by the block's dictionary
    indices; None when a cell is not a known value (the exact reader names its row)."""
    import numpy as np

    codes = [code_of(cell.decode("utf-8")) for cell in dictionary.to_pylist()]
    if None in codes:
        return None
    return np.array([code * scale for code in codes if code is not None], dtype=np.uint8)


def _sex_code(cell: str) -> int | None:
    return _code_of(cell, _SEX_BY_CELL, _SEX_ORDER)


def _race_code(cell: str) -> int | None:
    return _code_of(cell, _RACE_BY_CELL, _RACE_ORDER)


def _code_of(cell: str, known: dict[str, str], order: tuple[str, ...]) -> int | None:
    key = cell.strip().lower()
    if key in UNKNOWN_CELLS:
        return len(order) - 1
    found = known.get(key)
    return None if found is None else order.index(found)


def _selected_code(cell: str) -> int | None:
    return {"0": 0, "1": 1}.get(cell.strip())


def _arrow_tally(stream: IO[bytes]) -> Tally | None:
    """The tally of a plain file, parsed by Arrow's CSV reader (C++, on every core) and counted by numpy.

    Plain: UTF-8 throughout, no quote character, the header's number of cells on every line, every
    category cell a known name (or unknown), every outcome 0/1 or a finite number. Only the three columns
    that count are converted: categories dictionary-encoded (each block's few distinct cells are checked,
    then its rows mapped to a one-byte category code through the dictionary indices), scores as float64.
    None for anything else, and the caller reads the file again with :func:`tally`, which refuses it with
    the row at fault (or accepts what Arrow is stricter about: quoted cells, blank-celled or ragged rows)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.csv as pa_csv

    chunks = _line_chunks(stream)
    first = next(chunks, b"")
    plain = _plain_header(first)
    if plain is None:
        return None
    width, positions, binary = plain
    names = [f"c{i}" for i in range(width)]
    wanted = [names[at] for at in positions]
    # Cells as bytes: the whole text is known to be UTF-8 already (Arrow would check each cell again).
    category = pa.dictionary(pa.int32(), pa.binary())
    types = {wanted[0]: category, wanted[1]: category, wanted[2]: category if binary else pa.float64()}
    outcomes = 2 if binary else 1
    size = len(_SEX_ORDER) * len(_RACE_ORDER) * outcomes
    rows = np.zeros(size, dtype=np.int64)
    kept: list[tuple[Codes, Scores]] = []  # scores: (category codes, scores) per block
    total = 0
    for index, chunk in enumerate(chain([first], chunks)):
        if not _plain_text(chunk):
            return None
        try:
            table = pa_csv.read_csv(
                pa.BufferReader(chunk),
                read_options=pa_csv.ReadOptions(
                    column_names=names, skip_rows=1 if index == 0 else 0, block_size=ARROW_BLOCK
                ),
                parse_options=pa_csv.ParseOptions(quote_char=False),
                convert_options=pa_csv.ConvertOptions(
                    column_types=types, include_columns=wanted, strings_can_be_null=False
                ),
            )
        except pa.ArrowException:
            return None
        for batch in table.to_batches():
            sex, race, outcome = (batch.column(i) for i in range(3))
            if sex.null_count or race.null_count or outcome.null_count:
                return None
            sexes = _lookup(sex.dictionary, _sex_code, len(_RACE_ORDER) * outcomes)
            races = _lookup(race.dictionary, _race_code, outcomes)
            if sexes is None or races is None:
                return None
            codes = sexes[sex.indices.to_numpy()] + races[race.indices.to_numpy()]
            if binary:
                selected = _lookup(outcome.dictionary, _selected_code, 1)
                if selected is None:
                    return None
                codes += selected[outcome.indices.to_numpy()]
            else:
                scores = outcome.to_numpy()
                if not np.isfinite(scores).all():
                    return None
                kept.append((codes, scores))
            rows += np.bincount(codes, minlength=size)
            total += batch.num_rows
    if total == 0:
        return None
    keys = [
        _Key(sex, race, selected if binary else -1)
        for sex in _SEX_ORDER
        for race in _RACE_ORDER
        for selected in range(outcomes)
    ]
    used = [code for code in range(size) if rows[code]]
    counted = Counter({at: int(rows[code]) for at, code in enumerate(used)})
    if binary:
        positive = Counter({at: counted[at] for at, code in enumerate(used) if keys[code].selected == 1})
        return Tally([keys[code] for code in used], counted, positive, True, None, total)
    median = _arrow_median(np.concatenate([scores for _codes, scores in kept]))
    above = np.zeros(size, dtype=np.int64)
    for codes, scores in kept:
        above += np.bincount(codes[scores > median], minlength=size)
    positive = Counter({at: int(above[code]) for at, code in enumerate(used) if above[code]})
    return Tally([keys[code] for code in used], counted, positive, False, median, total)


def _arrow_median(scores: Scores) -> float:
    """The exact median: the middle score, or the mean of the two middle ones (as statistics.median).
    ``scores`` is a copy of its own: it is partitioned in place."""
    middle = len(scores) // 2
    scores.partition(middle)  # every score before the middle one is at most it
    high = float(scores[middle])
    if len(scores) % 2:
        return high
    low = float(scores[:middle].max())
    return low if low == high else (low + high) / 2


def compute(stream: IO[bytes]) -> dict[str, Any]:
    """The LL144 figures of a CSV byte stream; DataError when it cannot be used.

    A seekable stream is read by Arrow first; a file Arrow does not take as plain is read again by the
    exact reader, which names the row at fault (or reads the quoted, ragged or blank-lined file)."""
    if stream.seekable():
        start = stream.tell()
        fast = _arrow_tally(stream)
        if fast is not None:
            return figures(fast)
        stream.seek(start)
    return figures(tally(stream))
