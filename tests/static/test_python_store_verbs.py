"""Python: objects in Google Cloud Storage and Azure Blob Storage are data through an object store's API
(network.egress, as S3 objects are; a blob uploaded from or downloaded to a local path also touches that file), buckets
stay cloud.change; vector-store writes (Pinecone, Qdrant, Weaviate) are db.write (rules PY-OBJSTORE-001, PY-DB-002,
PY-FX-TRANSFER-001/002)."""

from __future__ import annotations

from pyfix import actions, analyse


def test_cloud_storage_and_azure_blobs_are_egress_buckets_cloud_changes() -> None:
    code = (
        "from google.cloud import storage\n"
        "from azure.storage.blob import BlobServiceClient\n"
        "gcs = storage.Client()\n"
        "blob = gcs.bucket('b').blob('k')\n"
        "blob.upload_from_string('x')\n"
        "blob.upload_from_filename('/tmp/f')\n"
        "blob.download_to_filename('/tmp/g')\n"
        "blob.delete()\n"
        "gcs.bucket('b').delete()\n"
        "gcs.create_bucket('n')\n"
        "az = BlobServiceClient(account_url='https://x')\n"
        "az.get_blob_client('c', 'b').upload_blob(b'x')\n"
        "az.get_container_client('c').delete_blob('b')\n"
    )
    found = actions(analyse({"m.py": code}))
    for line in (5, 6, 7, 8, 12, 13):
        assert ("network.egress", line) in found
        assert ("cloud.change", line) not in found
    assert {("file.read", 6), ("file.write", 7), ("cloud.change", 9), ("cloud.change", 10)} <= found


def test_vector_store_writes_are_database_writes() -> None:
    code = (
        "import weaviate\n"
        "from pinecone import Pinecone\n"
        "from qdrant_client import QdrantClient\n"
        "index = Pinecone(api_key='k').Index('i')\n"
        "index.upsert(vectors=[])\n"
        "index.delete(ids=['a'])\n"
        "index.query(vector=[0.1], top_k=3)\n"
        "qd = QdrantClient(url='u')\n"
        "qd.upsert(collection_name='c', points=[])\n"
        "qd.delete_collection('c')\n"
        "qd.search(collection_name='c', query_vector=[0.1])\n"
        "client = weaviate.connect_to_local()\n"
        "client.collections.get('Doc').data.insert({'t': 'x'})\n"
    )
    found = actions(analyse({"m.py": code}))
    assert {("db.write", 5), ("db.write", 6), ("db.read", 7), ("db.write", 9), ("db.write", 10)} <= found
    assert {("db.read", 11), ("db.write", 13)} <= found
    assert not {line for cls, line in found if cls == "cloud.change"}
