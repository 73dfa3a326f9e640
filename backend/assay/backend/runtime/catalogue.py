"""What a recorded probe session shows: the server's identity and its catalogue, read from the recording.

Pure: the recording (JSON values) in, a :class:`Catalogue` out. Requests and responses are paired by
JSON-RPC id; listing pages are concatenated in the order they were received. Each entity (tool, resource,
resource template, prompt) has three digests: ``full`` (the entity as served), ``schema`` (its name and
schemas with every ``description`` and ``title`` removed: what a call can carry) and ``annotations``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from assay.backend.canonical import digest_json

LISTINGS = {
    "tools/list": ("tool", "tools"),
    "resources/list": ("resource", "resources"),
    "resources/templates/list": ("resourceTemplate", "resourceTemplates"),
    "prompts/list": ("prompt", "prompts"),
}
_PROSE = frozenset({"description", "title"})


@dataclass(frozen=True, slots=True)
class Entity:
    kind: str
    name: str
    data: dict[str, Any]
    full: str
    schema: str
    annotations: str

    def pin(self) -> list[str]:
        return [self.kind, self.name, self.full, self.schema, self.annotations]


@dataclass(slots=True)
class Catalogue:
    server: dict[str, Any] = field(default_factory=dict)
    entities: list[Entity] = field(default_factory=list)
    notifications: Counter[str] = field(default_factory=Counter)
    errors: list[dict[str, Any]] = field(default_factory=list)
    # Later listings of the same session (the active suite lists again after each round of calls).
    relisted: list[Entity] = field(default_factory=list)
    # The active suite's tool calls, in order: name, arguments, result text, isError, effects seen meanwhile.
    calls: list[dict[str, Any]] = field(default_factory=list)

    def digest(self) -> str:
        return digest_json(sorted(e.pin() for e in self.entities))

    def tools(self) -> list[Entity]:
        return [e for e in self.entities if e.kind == "tool"]


def _strip(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k not in _PROSE}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def _name(kind: str, data: dict[str, Any]) -> str:
    key = "uri" if kind == "resource" else "uriTemplate" if kind == "resourceTemplate" else "name"
    return str(data.get(key) or data.get("name") or "")


def entity(kind: str, data: dict[str, Any]) -> Entity:
    name = _name(kind, data)
    schema: dict[str, Any] = {"name": name}
    schema.update((k, _strip(data[k])) for k in ("inputSchema", "outputSchema", "arguments") if k in data)
    return Entity(
        kind=kind,
        name=name,
        data=data,
        full=digest_json(data),
        schema=digest_json(schema),
        annotations=digest_json(data.get("annotations") or {}),
    )


def read_catalogue(recording: dict[str, Any]) -> Catalogue:
    """The catalogue of a recording (its first listing of each entity name wins)."""
    catalogue = Catalogue()
    methods: dict[Any, str] = {}
    calls: dict[Any, dict[str, Any]] = {}
    current: dict[str, Any] | None = None
    seen: set[tuple[str, str]] = set()
    for exchange in recording.get("exchanges", []):
        message = exchange.get("message") or {}
        if exchange.get("direction") == "effect":
            if current is not None:
                current["effects"].append(message)
            continue
        if exchange.get("direction") == "sent":
            if "method" in message and "id" in message:
                methods[message["id"]] = message["method"]
                if message["method"] == "tools/call":
                    params = message.get("params") or {}
                    current = {
                        "name": str(params.get("name")),
                        "arguments": params.get("arguments") or {},
                        "text": "",
                        "isError": None,
                        "effects": [],
                    }
                    calls[message["id"]] = current
                    catalogue.calls.append(current)
            continue
        if "method" in message:
            catalogue.notifications[str(message["method"])] += 1
            continue
        method = methods.get(message.get("id"))
        if method == "tools/call" and message.get("id") in calls:
            call = calls[message["id"]]
            answer = message.get("result")
            returned: dict[str, Any] = answer if isinstance(answer, dict) else {}
            content = returned.get("content")
            blocks: list[Any] = content if isinstance(content, list) else []
            # Text blocks only (an image's base64 is data, not text for the model); the recording bounds the size.
            call["text"] = " ".join(str(b.get("text", "")) for b in blocks if isinstance(b, dict))
            call["isError"] = bool(returned.get("isError")) or "error" in message
            continue
        if "error" in message:
            catalogue.errors.append({"method": method, "error": message["error"]})
            continue
        result = message.get("result")
        if not isinstance(result, dict):
            continue
        if method == "initialize":
            catalogue.server = {
                "name": (result.get("serverInfo") or {}).get("name"),
                "version": (result.get("serverInfo") or {}).get("version"),
                "protocolVersion": result.get("protocolVersion"),
                "instructions": result.get("instructions"),
                "capabilities": sorted((result.get("capabilities") or {}).keys()),
            }
        elif method in LISTINGS:
            kind, member = LISTINGS[method]
            for data in result.get(member) or []:
                if isinstance(data, dict):
                    item = entity(kind, data)
                    if (kind, item.name) not in seen:
                        seen.add((kind, item.name))
                        catalogue.entities.append(item)
                    else:
                        catalogue.relisted.append(item)
    return catalogue


def in_session_changes(catalogue: Catalogue) -> list[dict[str, Any]]:
    """Entities whose later listing in the same session differs from the first: what changed."""
    first = {(e.kind, e.name): e.pin() for e in catalogue.entities}
    changes: dict[tuple[str, str], dict[str, Any]] = {}
    for later in catalogue.relisted:
        key = (later.kind, later.name)
        if key in changes or key not in first or first[key][2] == later.full:
            continue
        old, new = first[key], later.pin()
        what = [w for w, i in (("schema", 3), ("annotations", 4)) if old[i] != new[i]] or ["description"]
        changes[key] = {"kind": later.kind, "name": later.name, "changed": what}
    return [changes[k] for k in sorted(changes)]


def executed(call: dict[str, Any]) -> bool:
    """The call's command-echo canary came back run: an ``echo`` argument, and the canary in the result
    without the ``echo`` before it (the server ran the command rather than repeating its input)."""
    values = [v for v in call["arguments"].values() if isinstance(v, str)]
    if not any(v == "echo" or v.startswith("echo ") for v in values):
        return False
    tokens = {w for v in call["arguments"].values() for w in (v if isinstance(v, list) else [v]) if isinstance(w, str)}
    tokens = {t.removeprefix("echo ") for t in tokens if "ASSAY-CANARY-" in t}
    text = call["text"]
    return any(t in text and f"echo {t}" not in text for t in tokens)


def drift(current: Catalogue, pinned: list[list[str]]) -> dict[str, Any]:
    """What changed since the pinned catalogue: entities added, removed, and changed (in what)."""
    before = {(p[0], p[1]): p for p in pinned}
    now = {(e.kind, e.name): e.pin() for e in current.entities}
    changed = []
    for key in sorted(before.keys() & now.keys()):
        old, new = before[key], now[key]
        if old[2] == new[2]:
            continue
        what = []
        if old[3] != new[3]:
            what.append("schema")
        if old[4] != new[4]:
            what.append("annotations")
        if not what:
            what.append("description")
        changed.append({"kind": key[0], "name": key[1], "changed": what})
    return {
        "added": [{"kind": k, "name": n} for k, n in sorted(now.keys() - before.keys())],
        "removed": [{"kind": k, "name": n} for k, n in sorted(before.keys() - now.keys())],
        "changed": changed,
    }
