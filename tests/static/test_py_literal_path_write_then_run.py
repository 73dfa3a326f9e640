"""Model-written code saved to a file named by a literal and then run by a command naming that literal (issue 20,
model output into execution): ``with open("gen.py", "w") as f: f.write(code)`` then ``subprocess.run(["python",
"gen.py"])``, or ``Path("script.sh").write_text(code)`` then ``subprocess.run("bash script.sh", shell=True)``: the
command runs what the model wrote. A file of fixed text, and a command naming another file, carry nothing."""

from __future__ import annotations

from pyfix import analyse

SOURCE = """\
import subprocess
from pathlib import Path
from openai import OpenAI
from agents import function_tool

client = OpenAI()


def ask(q: str) -> str:
    return client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": q}]).choices[0].message.content or ""


@function_tool
def run_generated(task: str) -> str:
    code = ask(task)
    with open("gen.py", "w") as f:
        f.write(code)
    return subprocess.run(["python", "gen.py"], capture_output=True, text=True).stdout


@function_tool
def run_script(task: str) -> str:
    Path("script.sh").write_text(ask(task))
    return subprocess.run("bash script.sh", shell=True, capture_output=True, text=True).stdout


@function_tool
def show_notes(task: str) -> str:
    with open("notes.txt", "w") as f:
        f.write("fixed text")
    Path("other.sh").write_text(ask(task))
    return subprocess.run(["cat", "notes.txt"], capture_output=True, text=True).stdout
"""


def test_a_command_naming_a_written_literal_path_runs_the_model_s_code() -> None:
    linked = analyse({"agent.py": SOURCE})
    lines = {a.id: a.location.line for a in linked.actions if a.actionClass == "shell.exec"}
    tainted = {lines[f.actionId] for f in linked.taintFlows if f.actionId in lines}
    assert tainted == {18, 24}
