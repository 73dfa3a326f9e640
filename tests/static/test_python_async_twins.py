"""Python: an asynchronous twin of a package (aioboto3, aiobotocore, motor, redis.asyncio) is read as the package
it mirrors, so its clients' awaited calls carry the same effects (the client rule's ``async_twins``); DynamoDB
items, Redis keys, Firestore documents and Supabase rows are data (db.write / db.read), not cloud changes."""

from __future__ import annotations

from pyfix import actions, analyse


def test_aioboto3_client_in_async_with_is_a_boto3_client() -> None:
    code = (
        "import aioboto3\n"
        "session = aioboto3.Session()\n"
        "async def put(key):\n"
        "    async with session.client('s3') as s3:\n"
        "        await s3.put_object(Bucket='b', Key=key, Body=b'x')\n"
        "        await s3.create_bucket(Bucket='b')\n"
    )
    assert actions(analyse({"m.py": code})) == {("network.egress", 5), ("cloud.change", 6)}


def test_aiobotocore_create_client_and_paginators() -> None:
    code = (
        "from aiobotocore.session import get_session\n"
        "async def wipe(key):\n"
        "    async with get_session().create_client('s3') as s3:\n"
        "        await s3.delete_object(Bucket='b', Key=key)\n"
        "        s3.get_paginator('list_objects_v2').paginate(Bucket='b')\n"
    )
    assert actions(analyse({"m.py": code})) == {("network.egress", 4), ("network.egress", 5)}


def test_motor_and_redis_asyncio_writes_and_reads() -> None:
    code = (
        "import redis.asyncio as aioredis\n"
        "from motor.motor_asyncio import AsyncIOMotorClient\n"
        "mongo = AsyncIOMotorClient('mongodb://x')\n"
        "r = aioredis.from_url('redis://x')\n"
        "async def save(doc, k):\n"
        "    await mongo.app.notes.insert_one(doc)\n"
        "    await mongo.app.notes.find_one({})\n"
        "    await r.set(k, 'v')\n"
        "    await r.get(k)\n"
    )
    assert actions(analyse({"m.py": code})) == {
        ("db.write", 6),
        ("db.read", 7),
        ("db.write", 8),
        ("db.read", 9),
    }


def test_dynamodb_items_are_data_not_cloud_changes() -> None:
    code = (
        "import boto3\n"
        "ddb = boto3.client('dynamodb')\n"
        "ddb.put_item(TableName='t', Item={})\n"
        "ddb.query(TableName='t')\n"
        "ddb.create_table(TableName='t')\n"
        "table = boto3.resource('dynamodb').Table('t')\n"
        "table.delete_item(Key={})\n"
    )
    assert actions(analyse({"m.py": code})) == {
        ("db.write", 3),
        ("db.read", 4),
        ("cloud.change", 5),
        ("db.write", 7),
    }


def test_a_package_of_the_same_name_that_is_not_a_twin_is_left_alone() -> None:
    # Twins match whole dotted names: ``aioboto3_helpers`` and ``myredis`` are not ``aioboto3`` and ``redis``.
    code = (
        "import aioboto3_helpers\n"
        "from myredis import Redis\n"
        "aioboto3_helpers.client('s3').put_object(Bucket='b', Key='k')\n"
        "Redis().set('k', 'v')\n"
    )
    found = actions(analyse({"m.py": code}))
    assert ("db.write", 4) not in found
    assert ("network.egress", 3) not in found


def test_firestore_and_supabase_rows_are_data() -> None:
    code = (
        "from google.cloud import firestore\n"
        "from supabase import create_client\n"
        "db = firestore.Client()\n"
        "sb = create_client('u', 'k')\n"
        "db.collection('c').document('d').set({})\n"
        "db.collection('c').stream()\n"
        "sb.table('t').insert({}).execute()\n"
        "sb.table('t').update({}).eq('id', 1).execute()\n"
        "sb.table('t').select('*').execute()\n"
    )
    found = actions(analyse({"m.py": code}))
    # The builder calls on the way (``collection``, ``table``) stay the client rule's egress, as before.
    assert {("db.write", 5), ("db.read", 6), ("db.write", 7), ("db.write", 8), ("db.read", 9)} <= found
    assert not {cls for cls, _ in found} - {"db.write", "db.read", "network.egress"}
