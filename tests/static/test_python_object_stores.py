"""Python: objects read and written through an object store's API (boto3 S3 clients and resources) are
network.egress, creating and deleting buckets cloud.change; boto3's transfer calls also touch the local file
they name (rules PY-OBJSTORE-001, PY-FX-TRANSFER-001/002)."""

from __future__ import annotations

from pyfix import actions, analyse

S3_CLIENT = (
    "import boto3\n"
    "s3 = boto3.client('s3')\n"
    "s3.put_object(Bucket='b', Key='k', Body=b'x')\n"
    "s3.get_object(Bucket='b', Key='k')\n"
    "s3.head_object(Bucket='b', Key='k')\n"
    "s3.list_objects_v2(Bucket='b')\n"
    "s3.delete_object(Bucket='b', Key='k')\n"
    "s3.create_multipart_upload(Bucket='b', Key='k')\n"
)


def test_s3_object_calls_are_egress_not_cloud_changes() -> None:
    linked = analyse({"m.py": S3_CLIENT})
    assert actions(linked) == {("network.egress", line) for line in range(3, 9)}


def test_bucket_creation_and_other_services_stay_cloud_changes() -> None:
    code = (
        "import boto3\n"
        "s3 = boto3.client('s3')\n"
        "s3.create_bucket(Bucket='b')\n"
        "s3.delete_bucket(Bucket='b')\n"
        "ec2 = boto3.client('ec2')\n"
        "ec2.create_tags(Resources=[], Tags=[])\n"
    )
    assert actions(analyse({"m.py": code})) == {("cloud.change", 3), ("cloud.change", 4), ("cloud.change", 6)}


def test_s3_resource_objects_are_egress() -> None:
    code = (
        "import boto3\n"
        "s3 = boto3.resource('s3')\n"
        "bucket = s3.Bucket('b')\n"
        "bucket.put_object(Key='k', Body=b'x')\n"
        "s3.Object('b', 'k').get()\n"
    )
    assert actions(analyse({"m.py": code})) == {("network.egress", 4), ("network.egress", 5)}


def test_transfer_calls_also_touch_the_local_file() -> None:
    code = (
        "import boto3\n"
        "s3 = boto3.client('s3')\n"
        "s3.upload_file('report.txt', 'b', 'k')\n"
        "s3.download_file('b', 'k', 'copy.txt')\n"
        "s3.put_object(Bucket='b', Key='k', Body=b'x')\n"
    )
    # Two actions at each transfer call; put_object sends bytes it holds and touches no local file.
    assert actions(analyse({"m.py": code})) == {
        ("network.egress", 3),
        ("file.read", 3),
        ("network.egress", 4),
        ("file.write", 4),
        ("network.egress", 5),
    }


def test_an_upload_through_a_helper_is_reached_from_the_tool() -> None:
    code = (
        "import os\n"
        "import boto3\n"
        "from fastmcp import FastMCP\n"
        "mcp = FastMCP('s3')\n"
        "s3 = boto3.client('s3')\n"
        "def send(path: str, key: str) -> None:\n"
        "    s3.upload_file(path, 'b', key)\n"
        "@mcp.tool()\n"
        "def upload(path: str) -> str:\n"
        "    '''Upload a file.'''\n"
        "    send(path, os.path.basename(path))\n"
        "    return path\n"
    )
    linked = analyse({"server.py": code})
    (tool,) = linked.tools
    reached = {(a.actionClass, a.location.line) for a in linked.actions if tool.id in {p.toolId for p in a.reachedFrom}}
    assert reached == {("network.egress", 7), ("file.read", 7)}
