"""A field a base class of another file declares with a type (``protected _apiClient: ZodiosInstance<T>`` in
``Methods``) is the field of every class extending it, in any file and through an abstract class exported by
default in between (issue 20, TypeScript): a subclass's ``this._apiClient.listDatasources(...)`` is a call on
that type (an awaited call into a package's client: network egress), reached from the tool that calls the
subclass's method. A class that extends nothing, or a base that declares no such field, gives nothing."""

from __future__ import annotations

from pathlib import Path

from tests.static.scanned import actions_reached, scan_files

_METHODS = """import { ZodiosInstance } from '@zodios/core';
export default class Methods<T> {
  protected _apiClient: ZodiosInstance<T>;
  constructor(apiClient: ZodiosInstance<T>) {
    this._apiClient = apiClient;
  }
}
"""

_AUTHENTICATED = """import { ZodiosInstance } from '@zodios/core';
import Methods from './methods.js';
export default abstract class AuthenticatedMethods<T> extends Methods<T> {
  constructor(apiClient: ZodiosInstance<T>, private creds: string) {
    super(apiClient);
  }
}
"""

_DATASOURCES = """import { Zodios } from '@zodios/core';
import AuthenticatedMethods from './authenticated.js';
export default class DatasourcesMethods extends AuthenticatedMethods<any> {
  constructor(baseUrl: string, creds: string) {
    super(new Zodios(baseUrl, []), creds);
  }
  listDatasources = async (siteId: string, filter: string): Promise<string[]> => {
    const response = await this._apiClient.listDatasources({ params: { siteId }, queries: { filter } });
    return response.datasources;
  };
}
"""

_TOOL = """import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import DatasourcesMethods from './methods/datasources.js';
const server = new McpServer({ name: 'x', version: '1' });
server.tool('list-datasources', 'List data sources', { filter: z.string() }, async ({ filter }) => {
  const methods = new DatasourcesMethods('https://tableau.example.com', 'token');
  const out = await methods.listDatasources('site', filter);
  return { content: [{ type: 'text', text: JSON.stringify(out) }] };
});
"""


def _files(methods: str = _METHODS, datasources: str = _DATASOURCES) -> dict[str, str]:
    return {
        "src/methods/methods.ts": methods,
        "src/methods/authenticated.ts": _AUTHENTICATED,
        "src/methods/datasources.ts": datasources,
        "src/server.ts": _TOOL,
    }


def test_a_field_a_base_class_of_another_file_types_is_the_subclasss(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, _files())
    assert actions_reached(bundle, "list-datasources") == {("network.egress", "src/methods/datasources.ts", 8)}
    (action,) = [a for a in bundle["actions"] if a["location"]["path"] == "src/methods/datasources.ts"]
    assert action["target"] == "@zodios/core.ZodiosInstance.listDatasources"


def test_a_base_that_declares_no_such_field_gives_nothing(tmp_path: Path) -> None:
    untyped = _METHODS.replace("  protected _apiClient: ZodiosInstance<T>;\n", "").replace(
        "this._apiClient = apiClient;", "this.other = apiClient;"
    )
    bundle = scan_files(tmp_path, _files(methods=untyped))
    assert actions_reached(bundle, "list-datasources") == set()


def test_a_class_extending_nothing_gives_nothing(tmp_path: Path) -> None:
    alone = _DATASOURCES.replace(" extends AuthenticatedMethods<any>", "").replace(
        "    super(new Zodios(baseUrl, []), creds);\n", ""
    )
    bundle = scan_files(tmp_path, _files(datasources=alone))
    assert actions_reached(bundle, "list-datasources") == set()
