"""Action classes of issue 13 in Python: GitPython as process execution, model-written SQL executed
verbatim, reads (files, databases, credentials), messaging over HTTP, Google API clients, Stripe, E2B."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyfix import analyse

from assay.backend.engines.static.scan import scan_tree


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        # GitPython starts git for these: process execution, whatever the receiver's name.
        (
            "import git\n\ndef f(repo: git.Repo, ref: str):\n    repo.git.checkout(ref)\n    repo.index.commit('m')\n"
            "    list(repo.iter_commits())\n",
            [("shell.exec", 4), ("shell.exec", 5), ("shell.exec", 6)],
        ),
        ("from git import Repo\nRepo.clone_from(url, '/tmp/x')\n", [("shell.exec", 2)]),
        # A long-lived shell fed through its standard input.
        (
            "import subprocess\np = subprocess.Popen(['bash'], stdin=subprocess.PIPE)\np.stdin.write(cmd)\n",
            [("shell.exec", 2), ("shell.exec", 3)],
        ),
        # SQL text that is not a literal is executed verbatim; a literal SELECT is a read.
        (
            "import sqlalchemy\nfrom sqlalchemy import text\n\ndef f(conn, q):\n    conn.execute(text(q))\n"
            "    conn.execute(text('SELECT 1'))\n",
            [("sql.exec", 5)],
        ),
        ("import duckdb\nduckdb.sql(q)\n", [("sql.exec", 2)]),
        (
            "import sqlite3\nc = sqlite3.connect('x')\nc.execute(q)\nc.execute(f'SELECT * FROM {t}')\n"
            "c.execute('SELECT 1')\nc.execute('DELETE FROM t')\n",
            [("sql.exec", 3), ("sql.exec", 4), ("db.read", 5), ("db.write", 6)],
        ),
        (
            "from langchain_community.utilities import SQLDatabase\ndb = SQLDatabase.from_uri('sqlite:///x')\n"
            "db.run(query)\n",
            [("sql.exec", 3)],
        ),
        # Reads.
        ("from pathlib import Path\nPath('a').read_text()\nopen('b', 'rb')\n", [("file.read", 2), ("file.read", 3)]),
        ("import os\nos.getenv('STRIPE_SECRET_KEY')\nos.getenv('HOME')\n", [("credential.read", 2)]),
        (
            "from google.oauth2.credentials import Credentials\nc = Credentials.from_authorized_user_file('t.json')\n",
            [("credential.read", 2)],
        ),
        # HTTP to a messaging API is a message; to anything else it is egress.
        (
            "import requests\nrequests.post('https://hooks.slack.com/services/T/B/X', json={})\n"
            "requests.post(f'https://api.telegram.org/bot{t}/sendMessage', json={})\n"
            "requests.get('https://example.com')\n",
            [("message.send", 2), ("message.send", 3), ("network.egress", 4)],
        ),
        # Google API discovery clients: a Gmail send is a message.
        (
            "from googleapiclient.discovery import build\nsvc = build('gmail', 'v1')\n"
            "svc.users().messages().send(userId='me', body=b).execute()\n",
            [("message.send", 3)],
        ),
        # Stripe, through the module and through StripeClient: payment where money moves, egress elsewhere.
        (
            "import stripe\nstripe.PaymentLink.create(line_items=[])\nclient = stripe.StripeClient('k')\n"
            "client.refunds.create(params={})\nstripe.Customer.list()\n",
            [("network.egress", 2), ("payment", 4), ("network.egress", 5)],
        ),
    ],
)
def test_action_classes_of_issue_13(code: str, expected: list[tuple[str, int]]) -> None:
    linked = analyse({"m.py": code})
    assert sorted((a.actionClass, a.location.line) for a in linked.actions) == sorted(expected)


def test_model_sql_reaching_text_is_a_taint_flow_with_its_own_finding(tmp_path: Path) -> None:
    (tmp_path / "agent.py").write_text(
        "from langchain_core.tools import tool\nfrom sqlalchemy import create_engine, text\n\n"
        "engine = create_engine('sqlite://')\n\n@tool\ndef query(sql: str, limit: int) -> str:\n"
        "    '''Run SQL.'''\n    with engine.connect() as conn:\n"
        "        return str(conn.execute(text(sql), {'limit': limit}).fetchall())\n"
    )
    bundle = scan_tree(tmp_path)
    (flow,) = bundle.taintFlows
    assert (flow.actionClass, flow.ruleId, flow.sink.line) == ("sql.exec", "TAINT-EXEC-001", 10)
    sql_findings = [f for f in bundle.findings if f.ruleId == "F-TAINT-SQL"]
    assert [(f.severity, f.locations[1].line) for f in sql_findings] == [("high", 10)]


def test_bound_parameters_are_not_sql_text() -> None:
    code = (
        "import sqlite3\nfrom langchain_core.tools import tool\n\n@tool\ndef find(name: str) -> str:\n"
        "    '''Find.'''\n    c = sqlite3.connect('x')\n    q = 'SELECT * FROM t WHERE n = ?'\n"
        "    return str(c.execute(q, (name,)).fetchall())\n"
    )
    linked = analyse({"m.py": code})
    # The text is a local bound only to a literal SELECT: a read, as the literal itself would be; the
    # model's value is a bound parameter, so no flow reaches SQL text (the read itself takes it).
    assert [a.actionClass for a in linked.actions] == ["db.read"]
    assert [f.actionClass for f in linked.taintFlows] == ["db.read"]


def test_e2b_commands_run_under_the_sandbox_gate() -> None:
    code = (
        "from e2b_code_interpreter import AsyncSandbox\n\nasync def run(code: str):\n"
        "    sbx = await AsyncSandbox.create()\n    await sbx.run_code(code)\n    await sbx.commands.run(code)\n"
    )
    linked = analyse({"m.py": code})
    kinds = {g.id: g.kind for g in linked.gates}
    assert [(a.actionClass, [kinds[g] for g in a.gateIds]) for a in linked.actions] == [
        ("code.exec", ["sandbox"]),
        ("shell.exec", ["sandbox"]),  # commands.run runs a shell command, in the sandbox
    ]
