"""A low-level MCP server whose handler is wrapped (``withTelemetry(async (request) => ...)``) and
whose manager class is imported through a module that re-exports it (issue 13): what the tools reach
through the re-export (Kubernetes API deletes on clients typed by their field declarations), the
permission check in the handler dominating it, and tool arguments pushed into a process's argv."""

from __future__ import annotations

from jsfix import FIXTURES

from assay.backend.engines.static.scan import scan_tree


def test_a_manager_imported_through_a_reexport_is_reached_from_its_tool() -> None:
    bundle = scan_tree(FIXTURES / "k8s_server")
    names = {t.id: t.name for t in bundle.tools}
    kinds = {g.id: (g.kind, g.location.path, g.location.line) for g in bundle.gates}
    reached = {
        (a.actionClass, a.location.path, a.location.line): (
            sorted(names[p.toolId] for p in a.reachedFrom),
            sorted(kinds[g] for g in a.gateIds),
        )
        for a in bundle.actions
    }
    allowed = [("permission_check", "index.ts", 18)]
    assert reached == {
        # deleteNamespacedPod / deleteNamespacedDeployment on clients declared `private core: k8s.CoreV1Api`
        ("cloud.change", "utils/manager.ts", 26): (["cleanup"], allowed),
        ("cloud.change", "utils/manager.ts", 29): (["cleanup"], allowed),
        ("shell.exec", "tools/port_forward.ts", 11): (["port_forward"], allowed),
    }


def test_tool_arguments_pushed_into_an_argv_reach_the_process() -> None:
    bundle = scan_tree(FIXTURES / "k8s_server")
    # The wrapped handler's request is what the model sent: input.resource is pushed into args.
    assert [(f.actionClass, f.sink.path, f.sink.line, f.sourceKind) for f in bundle.taintFlows] == [
        ("shell.exec", "tools/port_forward.ts", 11, "tool_argument")
    ]


def test_an_exported_schema_no_file_imports_is_no_tool() -> None:
    bundle = scan_tree(FIXTURES / "k8s_server")
    # cleanupSchema and portForwardSchema are imported and listed; createDeploymentSchema is not.
    assert sorted(t.name for t in bundle.tools) == ["cleanup", "port_forward"]
    assert not [f for f in bundle.frontier if "create_deployment" in f.detail]
