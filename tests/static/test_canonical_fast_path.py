"""The canonical JSON fast path writes exactly the bytes of the reference RFC 8785 implementation."""

from __future__ import annotations

import enum
import json
import random
from pathlib import Path
from typing import Any

import pytest
import rfc8785
from bench.gen_tree import generate
from pydantic_core import to_json

from assay.backend.canonical import (
    canonical_bytes,
    canonical_bytes_of_json,
    canonical_bytes_of_schema_json,
    fast_path_applies,
    readable_json,
    readable_json_of_plain,
    reference_canonical_bytes,
)
from assay.backend.engines.static.scan import scan_tree
from assay.backend.scans.bundle import EvidenceBundle

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

# Every control character, the characters JSON escapes, and the ones JCS writes as themselves even
# though other encoders escape them (DEL, U+2028/U+2029, non-ASCII, astral characters).
ADVERSARIAL = [
    "".join(chr(c) for c in range(0x20)),
    '"quoted" and \\back\\slashed\\',
    '\\"\\\\"',
    "\b\f\n\r\t\x0b\x1f\x7f",
    "line\u2028separator\u2029paragraph",
    "caf\u00e9 \u00fcber \u4e2d\u6587 \u0645\u0631\u062d\u0628\u0627",
    "emoji \U0001f600 \U0001f9d1\u200d\U0001f4bb astral \U00010348 \U0010ffff",
    "\ufeff\ufffe\uffff\ue000",
    "</script><!-- & ' `",
    "",
    "\x00",
]


class _Colour(enum.StrEnum):
    RED = "red"


class _Level(enum.IntEnum):
    HIGH = 3


def _assert_same(value: Any) -> None:
    assert canonical_bytes(value) == reference_canonical_bytes(value)


@pytest.mark.parametrize("name", ["ops-agent", "support-agent-ts", "research-assistant"])
def test_real_bundles_take_the_fast_path_and_match(name: str) -> None:
    bundle = scan_tree(EXAMPLES / name).to_json_dict()
    assert fast_path_applies(bundle)
    _assert_same(bundle)


def test_a_generated_mixed_tree_bundle_matches(tmp_path: Path) -> None:
    generate(tmp_path / "tree", total_lines=3_000)
    bundle = scan_tree(tmp_path / "tree").to_json_dict()
    assert fast_path_applies(bundle)
    _assert_same(bundle)


@pytest.mark.parametrize("text", ADVERSARIAL)
def test_adversarial_strings_as_values_and_ascii_keys(text: str) -> None:
    assert fast_path_applies({"k": text, "list": [text, [text]]})
    _assert_same(text)
    _assert_same({"k": text, "list": [text, [text]], 'z\n"\\\x01': text})


def test_non_ascii_keys_fall_back_and_keep_the_utf16_order() -> None:
    # U+E000 sorts after U+1F600 by code point but before it by UTF-16 code unit (0xD83D...).
    value = {"\ue000": 1, "\U0001f600": 2, "é": 3, "a": 4}
    assert not fast_path_applies(value)
    assert canonical_bytes(value) == rfc8785.dumps(value)
    assert canonical_bytes(value).index("\U0001f600".encode()) < canonical_bytes(value).index("\ue000".encode())


@pytest.mark.parametrize(
    "value",
    [
        1.5,
        [1.0, 2],
        {"x": 1e21},
        {"x": -0.0},
        2**53,
        -(2**53),
        [2**53 - 1, -(2**53) + 1, 0, -1, True, False, None],
        _Colour.RED,
        {"level": _Level.HIGH},
        {1: "int key"},
        ("tuple", ["in", ("tuple",)]),
        {},
        [],
        [{}, [], ""],
    ],
)
def test_other_values_match_or_fail_alike(value: Any) -> None:
    try:
        expected = reference_canonical_bytes(value)
    except (ValueError, TypeError) as exc:
        with pytest.raises(type(exc)):
            canonical_bytes(value)
        return
    assert canonical_bytes(value) == expected


def test_floats_big_ints_and_subclasses_never_take_the_fast_path() -> None:
    for value in ([1.0], {"a": 2**53}, [_Colour.RED], {"a": _Level.HIGH}, {1: "x"}, [b"bytes"]):
        assert not fast_path_applies(value)


def test_lone_surrogates_are_refused_like_the_reference() -> None:
    for value in ("\ud800", {"k": "a\udfffb"}, ["\udc00"]):
        with pytest.raises(rfc8785.CanonicalizationError):
            reference_canonical_bytes(value)
        with pytest.raises(rfc8785.CanonicalizationError):
            canonical_bytes(value)


def test_cyclic_values_fail_as_in_the_reference() -> None:
    cyclic: list[Any] = []
    cyclic.append(cyclic)
    with pytest.raises(RecursionError):
        canonical_bytes(cyclic)


def _random_value(rng: random.Random, depth: int) -> Any:
    alphabet = [chr(c) for c in range(0x00, 0x80)] + ["é", "\u2028", "\u2029", "\U0001f600", "\ue000", "中"]
    choice = rng.randrange(8 if depth < 4 else 4)
    if choice == 0:
        return "".join(rng.choice(alphabet) for _ in range(rng.randrange(12)))
    if choice == 1:
        return rng.randint(-(2**53) + 1, 2**53 - 1)
    if choice == 2:
        return rng.choice([True, False, None])
    if choice == 3:
        return rng.randint(-1000, 1000)
    if choice in (4, 5):
        return [_random_value(rng, depth + 1) for _ in range(rng.randrange(5))]
    keys = ["".join(rng.choice(alphabet[:128]) for _ in range(rng.randrange(1, 6))) for _ in range(rng.randrange(5))]
    return {key: _random_value(rng, depth + 1) for key in keys}


def test_random_values_match_the_reference() -> None:
    rng = random.Random(8785)
    for _ in range(2_000):
        _assert_same(_random_value(rng, 0))


@pytest.mark.parametrize(
    "text",
    [
        '{"b": 1, "a": [true, false, null, "x"], "c": {"z": -5, "y": ""}}',
        '{"big": 12345678901234567, "small": -9007199254740991}',
        '{"long but safe": 1234567890123456, "neg": -9007199254740991}',
        '{"float": 1.5, "exp": 1e3, "neg": -0.0}',
        '{"escaped key \\u00e9": 1, "\\ud83d\\ude00": 2, "\\ue000": 3}',
        '{"control": "\\u0001\\u001f\\n\\t\\"\\\\", "slash": "\\/"}',
        '["caf\u00e9", "\U0001f600", "\u2028\u2029"]',
        '{"digest": "sha256:1234567890123456789012", "n": 3}',
        '{"dup": 1, "dup": 2}',
        '{"x" : 1.5 }',
        "[ 1e3 ]",
        '{"x":\n\t2.0\n}',
        "[1,\r\n 2.5E-3]",
        '{"at 2**53": 9007199254740992}',
        '{"just below": 9007199254740991, "neg": -9007199254740991}',
        '{"looks like a float": "a:1.5]", "and": "b,2e3}"}',
        '{"escaped ascii key \\u0041": 1, "B": 2}',
        " [1, 2] ",
        "[]",
        '"just a string"',
        "42",
    ],
)
def test_canonical_bytes_of_json_text_match_the_reference(text: str) -> None:
    try:
        expected = rfc8785.dumps(json.loads(text))
    except rfc8785.CanonicalizationError as exc:
        with pytest.raises(type(exc)):
            canonical_bytes_of_json(text)
        with pytest.raises(type(exc)):
            canonical_bytes_of_json(text.encode("utf-8"))
        return
    assert canonical_bytes_of_json(text) == expected
    assert canonical_bytes_of_json(text.encode("utf-8")) == expected


def test_nan_and_infinity_in_json_text_fail_like_the_reference() -> None:
    for text in ('{"x": NaN}', "[Infinity]"):
        with pytest.raises(rfc8785.CanonicalizationError):
            rfc8785.dumps(json.loads(text))
        with pytest.raises(rfc8785.CanonicalizationError):
            canonical_bytes_of_json(text)


def test_model_json_of_real_bundles_matches_the_reference() -> None:
    for name in ("ops-agent", "support-agent-ts", "research-assistant"):
        bundle = scan_tree(EXAMPLES / name)
        for part in (*bundle.tools, *bundle.actions, *bundle.findings, bundle.coverage, bundle.sourceIdentity):
            text = part.model_dump_json()
            assert canonical_bytes_of_json(text) == reference_canonical_bytes(part.model_dump(mode="json"))


def test_schema_json_of_bundle_parts_matches_the_reference(tmp_path: Path) -> None:
    # The bundle's content hash re-encodes pydantic's JSON of its parts with orjson when it is ASCII.
    generate(tmp_path / "tree", total_lines=3_000)
    bundles = [
        scan_tree(tmp_path / "tree"),
        *(scan_tree(EXAMPLES / name) for name in ("ops-agent", "support-agent-ts")),
    ]
    for bundle in bundles:
        for parts in (bundle.tools, bundle.actions, bundle.gates, bundle.findings, bundle.frontier, [bundle.coverage]):
            text = to_json(parts)
            assert canonical_bytes_of_schema_json(text) == rfc8785.dumps([p.model_dump(mode="json") for p in parts])


@pytest.mark.parametrize("text", ADVERSARIAL)
def test_schema_json_of_any_string_matches_the_reference(text: str) -> None:
    for value in ({"k": text, "l": [text, {"m": text}]}, {text: 1, "a": text}, [text]):
        for written in (json.dumps(value).encode(), json.dumps(value, ensure_ascii=False).encode("utf-8")):
            assert canonical_bytes_of_schema_json(written) == rfc8785.dumps(value)


def test_schema_json_beyond_orjson_goes_the_checked_way() -> None:
    # Integers beyond the JCS range and lone surrogate escapes fail as in the reference.
    for text in (b"[9007199254740992]", b'{"n": -1152921504606846976}', b'["a\\ud800b", 2]'):
        with pytest.raises(rfc8785.CanonicalizationError):
            canonical_bytes_of_json(text)
        with pytest.raises(rfc8785.CanonicalizationError):
            canonical_bytes_of_schema_json(text)
    assert canonical_bytes_of_schema_json(b"[9007199254740991]") == b"[9007199254740991]"


def _random_json_value(rng: random.Random, depth: int) -> Any:
    """Like ``_random_value``, with floats, unsafe integers and non-ASCII keys too."""
    choice = rng.randrange(6 if depth < 4 else 3)
    if choice == 0:
        return rng.choice([rng.uniform(-1e6, 1e6), rng.random(), 1e21, -0.0, 5e-324, float(rng.randint(0, 9))])
    if choice == 1:
        return rng.choice([2**53, -(2**53), 2**53 - 1, 10**16, rng.randint(-(10**18), 10**18)])
    if choice == 2:
        return _random_value(rng, 4)
    if choice == 3:
        return [_random_json_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    keys = [rng.choice(["a", "é", "\U0001f600", "\ue000", "k:1.5]", "z"]) for _ in range(rng.randrange(4))]
    return {key: _random_json_value(rng, depth + 1) for key in keys}


def test_random_json_texts_match_the_reference_or_fail_alike() -> None:
    rng = random.Random(7240)
    for _ in range(2_000):
        value = [_random_json_value(rng, 1)]
        separators = rng.choice([(",", ":"), (", ", ": "), (",\n ", " :\t")])
        text = json.dumps(value, ensure_ascii=rng.random() < 0.5, separators=separators)
        try:
            expected = rfc8785.dumps(json.loads(text))
        except rfc8785.CanonicalizationError:
            with pytest.raises(rfc8785.CanonicalizationError):
                canonical_bytes_of_json(text)
            continue
        assert canonical_bytes_of_json(text) == expected


def _readable(value: Any) -> str:
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False)


def test_readable_json_is_the_standard_encoders_text(tmp_path: Path) -> None:
    # What `assay scan --json` prints: orjson's indented text where it is the same, else json.dumps.
    generate(tmp_path / "tree", total_lines=3_000)
    values: list[Any] = [scan_tree(tmp_path / "tree").to_json_dict(), scan_tree(EXAMPLES / "ops-agent").to_json_dict()]
    values += [{"k": text, "list": [text, [text, {}]], 'z\n"\\\x01': text} for text in ADVERSARIAL]
    # Floats, big integers, enums, non-string and non-ASCII keys, lone surrogates, nesting beyond orjson's limit.
    deep: Any = []
    for _ in range(300):
        deep = [deep]
    values += [{"x": 1e-05, "y": [1.5, -0.0, 1e21]}, [2**70, -(2**64)], [_Colour.RED, {"l": _Level.HIGH}]]
    values += [{1: "int key", 2: "b"}, {"\ue000": 1, "\U0001f600": 2, "é": 3, "a": 4}, {"k": "a\udfffb"}, deep, {}, []]
    for value in values:
        assert readable_json(value) == _readable(value)


def _numbers_in(schema: Any) -> list[Any]:
    if isinstance(schema, dict):
        found = [schema] if schema.get("type") == "number" else []
        return found + [n for value in schema.values() for n in _numbers_in(value)]
    if isinstance(schema, list):
        return [n for value in schema for n in _numbers_in(value)]
    return []


def test_no_bundle_field_is_a_float() -> None:
    # `assay scan --json` writes the bundle's JSON dict as a plain value (readable_json_of_plain), which
    # it is only while no field of the bundle is a float.
    assert _numbers_in(EvidenceBundle.model_json_schema()) == []


def test_plain_values_are_written_as_the_standard_encoder_writes_them(tmp_path: Path) -> None:
    generate(tmp_path / "tree", total_lines=3_000)
    values: list[Any] = [scan_tree(tmp_path / "tree").to_json_dict(), scan_tree(EXAMPLES / "ops-agent").to_json_dict()]
    values += [{"k": text, "list": [text, [text, {}]], 'z\n"\\\x01': text} for text in ADVERSARIAL]
    deep: Any = []
    for _ in range(300):
        deep = [deep]
    # Non-ASCII keys (code-point order, astral and private-use alike), integers beyond 64 bits, lone
    # surrogates and nesting beyond orjson's limit.
    values += [{"\ue000": 1, "\U0001f600": 2, "é": 3, "a": 4, "\uffff": 5}, [2**70, -(2**64), 2**53], deep]
    values += [{"k": "a\udfffb"}, {}, [], [True, None, ""]]
    for value in values:
        assert readable_json_of_plain(value) == _readable(value)
