"""What was assessed, and when: every artifact of a run over a dirty git work tree names the same
system, repository, commit, branch, dirty state, workspace digest, evaluation time and signing key."""

from __future__ import annotations

import base64
import io
import json
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pypdf
from dulwich import porcelain
from runs_helpers import STATIC, bind, copy_example, create, wait
from service_helpers import World, assert_error, bearer

AUTHOR = b"T <t@example.com>"


def dirty_git_copy(example: str, into: Path) -> tuple[Path, str]:
    """A committed git copy of ``example`` with one uncommitted change; its path and HEAD commit."""
    root = copy_example(example, into)
    repo = porcelain.init(str(root))
    files = [str(p) for p in sorted(root.rglob("*")) if p.is_file() and ".git" not in p.parts]
    porcelain.add(str(root), paths=files)
    commit = porcelain.commit(str(root), message=b"init", author=AUTHOR, committer=AUTHOR).decode("ascii")
    repo.close()
    tools = root / "ops_agent" / "tools.py"
    tools.write_text(tools.read_text() + "\n# an uncommitted change\n")
    return root, commit


async def _run(client: httpx.AsyncClient, world: World, tmp_path: Path) -> tuple[dict[str, Any], str]:
    root, commit = dirty_git_copy("ops-agent", tmp_path)
    await bind(world.sessions, world.org_a, world.system_a, root)
    created = await create(client, world.agent_key_a, {"aiSystemId": world.system_a, **STATIC})
    done = await wait(client, world.agent_key_a, created.json()["runId"])
    assert done["status"] == "COMPLETED", done
    return done, commit


async def test_every_artifact_names_the_same_identity(client: httpx.AsyncClient, world: World, tmp_path: Path) -> None:
    done, commit = await _run(client, world, tmp_path)
    links, key = done["links"], bearer(world.agent_key_a)
    summary = (await client.get(links["summary"], headers=key)).json()
    identity = summary["identity"]
    assert identity["systemName"] == "Ops agent" and identity["aiSystemId"] == world.system_a
    assert identity["commit"] == commit and identity["branch"] == "master"
    assert identity["dirty"] is True and identity["workspaceDigest"].startswith("sha256:")
    assert identity["methodologyVersion"] == summary["methodologyVersion"]
    assert datetime.fromisoformat(identity["evaluatedAt"]).tzinfo is not None
    assert identity["links"]["pdf"].endswith("/master-report/pdf")
    for detail in ("bounded", "full"):
        master = (await client.get(links["masterReport"], params={"detail": detail}, headers=key)).json()
        assert master["masterReport"]["identity"] == identity
    audit = (await client.get(links["agentAudit"], headers=key)).json()
    assert audit["agentAudit"]["identity"] == identity
    envelope = (await client.get(links["passport"], headers=key)).json()
    assert envelope["signatures"][0]["keyid"] == identity["signingKeyId"]
    statement = json.loads(base64.b64decode(envelope["payload"]))
    assert statement["predicate"]["evaluation"]["evaluatedAt"] == identity["evaluatedAt"]


async def test_agent_audit_query_values(client: httpx.AsyncClient, world: World, tmp_path: Path) -> None:
    done, _ = await _run(client, world, tmp_path)
    url, key = done["links"]["agentAudit"], bearer(world.agent_key_a)
    first = (await client.get(url, params={"page": "1"}, headers=key)).json()["agentAudit"]
    assert first["paging"]["pages"] == 1 and first["paging"]["nextPage"] is None
    full = (await client.get(url, params={"detail": "full"}, headers=key)).json()["agentAudit"]
    assert full["verificationItems"] == first["verificationItems"]
    # detail=full holds every item on its one page: page is not read then (docs/api.md, Agent audit paging).
    for page in ("1", "2", "7"):
        paged = await client.get(url, params={"detail": "full", "page": page}, headers=key)
        assert paged.status_code == 200, paged.text
        assert paged.json()["agentAudit"] == full
    for params in ({"page": "0"}, {"page": "2"}, {"page": "x"}, {"detail": "all"}, {"detail": "full", "page": "0"}):
        assert_error(await client.get(url, params=params, headers=key), 400, "INVALID_REQUEST")


async def test_pdf_date_is_the_evaluation_time(client: httpx.AsyncClient, world: World, tmp_path: Path) -> None:
    done, _ = await _run(client, world, tmp_path)
    key = bearer(world.agent_key_a)
    identity = (await client.get(done["links"]["summary"], headers=key)).json()["identity"]
    pdf = pypdf.PdfReader(io.BytesIO((await client.get(done["links"]["masterReportPdf"], headers=key)).content))
    created = pdf.metadata.creation_date
    assert created is not None and created == datetime.fromisoformat(identity["evaluatedAt"])


async def test_legacy_pdf_names_the_tree_and_groups_reasons_by_rule(
    client: httpx.AsyncClient, world: World, tmp_path: Path
) -> None:
    done, commit = await _run(client, world, tmp_path)
    key = bearer(world.agent_key_a)
    reasons = (await client.get(done["links"]["report"], headers=key)).json()["report"]["reasons"]
    response = await client.get(done["links"]["pdf"], params={"profile": "executive"}, headers=key)
    reader = pypdf.PdfReader(io.BytesIO(response.content))
    text = "".join(page.extract_text() for page in reader.pages).replace("\n", " ")
    assert "Ops agent" in text and commit in text and "DIRTY" in text
    rules = {r["ruleId"] for r in reasons}
    assert len(reasons) > len(rules)  # some rule fired more than once ...
    for rule in rules:  # ... and still appears on one line
        assert text.count(f"{rule} (") == 1
