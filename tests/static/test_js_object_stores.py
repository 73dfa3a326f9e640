"""JS/TS: objects read and written through an object store's API (AWS SDK v3 S3 object commands, lib-storage's
Upload) are network.egress, as in Python; creating or deleting a bucket stays cloud.change (JS-FX-OBJSTORE-001
before JS-CLOUD-001's patterns). A helper of another module given the client as a parameter is reached from the
tool that calls it."""

from __future__ import annotations

from pyfix import analyse

COMMANDS = """import { S3Client, PutObjectCommand, GetObjectCommand, DeleteObjectCommand, ListObjectsV2Command,
  CreateBucketCommand, DeleteBucketCommand } from "@aws-sdk/client-s3";
const s3 = new S3Client({});
export async function a() { await s3.send(new PutObjectCommand({ Bucket: "b", Key: "k", Body: "x" })); }
export async function b() { await s3.send(new GetObjectCommand({ Bucket: "b", Key: "k" })); }
export async function c() { await s3.send(new DeleteObjectCommand({ Bucket: "b", Key: "k" })); }
export async function d() { await s3.send(new ListObjectsV2Command({ Bucket: "b" })); }
export async function e() { await s3.send(new CreateBucketCommand({ Bucket: "b" })); }
export async function f() { await s3.send(new DeleteBucketCommand({ Bucket: "b" })); }
"""


def test_s3_object_commands_are_egress_and_bucket_commands_cloud_changes() -> None:
    linked = analyse({"m.ts": COMMANDS})
    assert {(a.location.line, a.actionClass) for a in linked.actions} == {
        (4, "network.egress"),
        (5, "network.egress"),
        (6, "network.egress"),
        (7, "network.egress"),
        (8, "cloud.change"),
        (9, "cloud.change"),
    }


STORE = """import { S3Client, PutObjectCommand } from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
export async function save(client: S3Client, key: string, body: string) {
  await client.send(new PutObjectCommand({ Bucket: "b", Key: key, Body: body }));
}
export async function big(client: S3Client, key: string, body: string) {
  const upload = new Upload({ client, params: { Bucket: "b", Key: key, Body: body } });
  await upload.done();
}
export function unused(client: S3Client) {
  return client.config;
}
"""

SERVER = """import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { S3Client } from "@aws-sdk/client-s3";
import { z } from "zod";
import { save, big } from "./store";
const server = new McpServer({ name: "s3", version: "1.0.0" });
const s3 = new S3Client({});
server.tool("save_note", { key: z.string(), text: z.string() }, async ({ key, text }) => {
  await save(s3, key, text);
  await big(s3, key, text);
  return { content: [{ type: "text", text: "ok" }] };
});
"""


def test_a_helper_given_the_client_is_reached_from_the_tool() -> None:
    linked = analyse({"store.ts": STORE, "server.ts": SERVER})
    (tool,) = linked.tools
    reached = {
        (a.location.path, a.location.line, a.actionClass)
        for a in linked.actions
        if tool.id in {p.toolId for p in a.reachedFrom}
    }
    # The two uploads; reading the client's configuration sends nothing.
    assert reached == {("store.ts", 4, "network.egress"), ("store.ts", 8, "network.egress")}
    assert {a.location.line for a in linked.actions} == {4, 8}
