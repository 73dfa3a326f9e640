"""Candidate files for the LL144 tests, and the assessment calls the API tests repeat."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import httpx
from service_helpers import bearer

from assay.backend.engines.wizard.ll144 import RACES, SEXES

ASSESSMENTS = "/api/v1/assessments"


def candidates(rows: int, *, score: bool = False, seed: int = 7, decimals: int = 1) -> list[tuple[str, str, str]]:
    """Deterministic candidates: uneven category shares (two races under 2%), 2% unknown sex."""
    rng = random.Random(seed)
    races = list(RACES)
    weights = [20, 38, 16, 1, 15, 1, 9]
    rates = {"Male": 0.35, "Female": 0.26}
    out = []
    for _ in range(rows):
        sex = rng.choice(SEXES) if rng.random() > 0.02 else ""
        race = rng.choices(races, weights)[0]
        if score:
            value = f"{rng.gauss(60 if sex == 'Male' else 55, 12):.{decimals}f}"
        else:
            value = "1" if rng.random() < rates.get(sex, 0.3) * (0.7 if race == "Asian" else 1.0) else "0"
        out.append((sex, race, value))
    return out


def write_csv(path: Path, rows: list[tuple[str, str, str]], *, score: bool = False) -> Path:
    with path.open("w", encoding="utf-8", newline="") as out:
        out.write(f"candidate,sex,race_ethnicity,{'score' if score else 'selected'}\n")
        for i, (sex, race, value) in enumerate(rows):
            out.write(f"c{i},{sex},{race},{value}\n")
    return path


async def create_assessment(client: httpx.AsyncClient, key: str, system: str, framework: str) -> dict[str, Any]:
    response = await client.post(ASSESSMENTS, json={"aiSystemId": system, "framework": framework}, headers=bearer(key))
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


async def answer(client: httpx.AsyncClient, key: str, assessment: str, question: str, value: Any) -> httpx.Response:
    return await client.put(
        f"{ASSESSMENTS}/{assessment}/answers/{question}", json={"value": value}, headers=bearer(key)
    )


async def answer_all(client: httpx.AsyncClient, key: str, assessment: str, answers: dict[str, Any]) -> dict[str, Any]:
    body: dict[str, Any] = {}
    for question, value in answers.items():
        response = await answer(client, key, assessment, question, value)
        assert response.status_code == 200, response.text
        body = response.json()
    return body


async def attach(client: httpx.AsyncClient, key: str, assessment: str, content: bytes, **params: str) -> httpx.Response:
    return await client.post(
        f"{ASSESSMENTS}/{assessment}/data",
        content=content,
        params=params,
        headers={**bearer(key), "Content-Type": "text/csv"},
    )
