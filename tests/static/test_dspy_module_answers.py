"""Issue 20, what a DSPy module answers is model output: ``coder = dspy.Predict(GenerateCode)`` (or
``ChainOfThought``, ``ReAct``) is a program over the configured LM, and calling it (``coder(task=t)``) asks that model;
the prediction's fields (``.code``, ``.answer``) are what the model wrote. Building the module asks nothing."""

from __future__ import annotations

from pyfix import analyse

CODE = '''import dspy
import subprocess
import sys


class GenerateCode(dspy.Signature):
    """Write Python code for the task."""

    task: str = dspy.InputField()
    code: str = dspy.OutputField()


def run_file(code: str, filename: str = "temp.py") -> str:
    with open(filename, "w") as f:
        f.write(code)
    return subprocess.run([sys.executable, filename], capture_output=True, text=True).stdout


class Developer:
    def __init__(self) -> None:
        self.coder = dspy.Predict(GenerateCode)

    def run(self, task: str) -> str:
        result = self.coder(task=task)
        return run_file(result.code)


qa = dspy.ChainOfThought("question -> answer")


def ask(question: str) -> None:
    out = qa(question=question)
    subprocess.run(out.answer, shell=True)


def built_only() -> None:
    module = dspy.Predict("question -> answer")
    subprocess.run(str(module), shell=True)
'''


def test_what_a_dspy_module_answers_is_model_output() -> None:
    linked = analyse({"m.py": CODE})
    from_model = {f.sink.line for f in linked.taintFlows if f.sourceKind == "model_output"}
    assert from_model == {16, 33}  # not 38: building a module asks nothing
