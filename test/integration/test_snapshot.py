"""`svcplane snapshot save/restore` (issue 21, "Backup and move"), with the real binary, kubectl
and a real etcd.

A server on the embedded store gets namespaces, Services (ClusterIPs, NodePorts, from ranges small
enough that a lost allocation map would hand an address out twice), small Pods and ~8 MB of large
ones. While a writer keeps creating Pods and bumping a counter Lease, it is saved twice: by
`svcplane snapshot save`, and by a download that reads slowly, so that the server reads later
pages after later writes. Both files must show one revision (every writer Pod up to the counter,
none past it). The first is restored into a new data dir and into a fresh etcd, a server starts
on each, and every object of the snapshot must be there with the same content: with the same
resourceVersion on the embedded store, in the same order on etcd. New Services get no address
or port already in use. A server on etcd is saved too. Restoring into a store that has data is
refused, and so is a damaged file; the endpoint answers 403 to anonymous requests and to
anyone RBAC does not grant `get` on the path (cluster-admin has it).
"""

import hashlib
import http.client
import json
import os
import shutil
import socket
import ssl
import struct
import subprocess
import tempfile
import threading
import time
import unittest

from kubernetes import client

import harness
from test_etcd import Etcd

RANGES = ["--service-cluster-ip-range", "10.96.0.0/27", "--service-node-port-range",
          "30000-30040"]
SNAPSHOT_PATH = "/svcplane/snapshot"
OUR_NAMESPACES = ("team-a", "team-b", "bulk", "writer", "zz-writer")
CMD_TIMEOUT = 120


def svcplane(*args, check=True):
    p = subprocess.run([harness.SVCPLANE] + list(args), capture_output=True, text=True,
                       timeout=CMD_TIMEOUT)
    if check and p.returncode != 0:
        raise AssertionError("svcplane %s failed (%d):\n%s%s" % (" ".join(args), p.returncode,
                                                                  p.stdout, p.stderr))
    return p


def read_snapshot(path):
    """Parses a snapshot file by its documented format (storage/snapshot/snapshot_file.h):
    returns (revision, {key: (create_revision, mod_revision, value bytes)})."""
    with open(path, "rb") as f:
        data = f.read()
    nl = data.index(b"\n")
    head = data[:nl].decode().split(" ")
    assert head[:2] == ["svcplane-snapshot", "1"], head
    fields = dict(t.split("=", 1) for t in head[2:])
    pos, records = nl + 1, {}
    while data[pos:pos + 1] == b"R":
        (klen,) = struct.unpack_from("<I", data, pos + 1)
        pos += 5
        key = data[pos:pos + klen].decode()
        pos += klen
        create, mod, vlen = struct.unpack_from("<QQI", data, pos)
        pos += 20
        records[key] = (create, mod, data[pos:pos + vlen])
        pos += vlen
    assert data[pos:pos + 1] == b"T", "no trailer at %d" % pos
    (count,) = struct.unpack_from("<Q", data, pos + 1)
    assert count == len(records), (count, len(records))
    assert hashlib.sha256(data[:pos]).digest() == data[pos + 9:pos + 41], "checksum"
    assert pos + 41 == len(data), "bytes after the trailer"
    return int(fields["revision"]), records


def api_path(key):
    """The API path of an object's store key, for the kinds compared here."""
    parts = key.split("/")  # ['', 'registry', resource, ...]
    if parts[2] == "namespaces":
        return "/api/v1/namespaces/" + parts[3]
    if parts[2] == "services" and parts[3] == "specs":
        return "/api/v1/namespaces/%s/services/%s" % (parts[4], parts[5])
    if parts[2] == "pods":
        return "/api/v1/namespaces/%s/pods/%s" % (parts[3], parts[4])
    if parts[2] == "leases":
        return "/apis/coordination.k8s.io/v1/namespaces/%s/leases/%s" % (parts[3], parts[4])
    return None


def ours(key):
    """Objects this test made: nothing else writes them, so a restored server must serve them
    exactly as the snapshot holds them."""
    if api_path(key) is None:
        return False
    parts = key.split("/")
    ns = parts[3] if parts[2] == "namespaces" else parts[-2]
    return ns in OUR_NAMESPACES


def strip(obj):
    obj = dict(obj)
    obj.pop("kind", None)
    obj.pop("apiVersion", None)
    obj["metadata"] = {k: v for k, v in obj["metadata"].items() if k != "resourceVersion"}
    return obj


def https_connection(srv, cert=None, rcvbuf=None):
    """An HTTPS connection to `srv` that trusts its CA, optionally with a client certificate
    (cert, key) and a small receive buffer (set before connecting, so the window stays small)."""
    ctx = ssl.create_default_context(cafile=os.path.join(srv.data_dir, "pki", "ca.crt"))
    if cert:
        ctx.load_cert_chain(*cert)

    class Conn(http.client.HTTPSConnection):
        def connect(self):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            if rcvbuf:
                s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
            s.settimeout(60)
            s.connect((self.host, self.port))
            self.sock = ctx.wrap_socket(s, server_hostname=self.host)

    return Conn("127.0.0.1", srv.port, context=ctx)


def admin_token(srv):
    with open(os.path.join(srv.data_dir, "pki", "admin.token")) as f:
        return f.read().strip()


def manifest(items):
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": items})


def pod(ns, name, labels=None, annotations=None):
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": ns, "labels": labels or {},
                         "annotations": annotations or {}},
            "spec": {"containers": [{"name": "c", "image": "registry.k8s.io/pause:3.9"}]}}


def service(ns, name, type_):
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "namespace": ns},
            "spec": {"type": type_, "selector": {"app": name},
                     "ports": [{"port": 80, "targetPort": 8080}]}}


def allocations(services):
    """ClusterIPs and NodePorts of Service objects."""
    ips, ports = [], []
    for s in services:
        ips += s["spec"].get("clusterIPs") or []
        ports += [p["nodePort"] for p in s["spec"].get("ports", []) if p.get("nodePort")]
    return ips, ports


class Writer:
    """Creates Pod zz-writer/w-N, then sets Lease writer/counter's holder to N, for N = 1, 2...
    A snapshot at one revision holds w-1..w-K and a counter of K-1 or K. The Lease key sorts
    before the Pods, so a snapshot whose later pages were read at later revisions would show
    Pods past counter + 1."""

    def __init__(self, srv):
        self.api = srv.api_client()
        self.core, self.coord = client.CoreV1Api(self.api), client.CoordinationV1Api(self.api)
        self.done = 0
        self.error = None
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self):
        try:
            n = 0
            while not self.stop.is_set():
                n += 1
                self.core.create_namespaced_pod("zz-writer", client.V1Pod(
                    metadata=client.V1ObjectMeta(name="w-%05d" % n),
                    spec=client.V1PodSpec(containers=[client.V1Container(
                        name="c", image="registry.k8s.io/pause:3.9")])))
                self.coord.patch_namespaced_lease("counter", "writer",
                                                  {"spec": {"holderIdentity": str(n)}})
                self.done = n
        except Exception as e:  # noqa: BLE001 - reported by the test
            self.error = e

    def wait_for(self, n, timeout=30):
        deadline = time.monotonic() + timeout
        while self.done < n and self.error is None and time.monotonic() < deadline:
            time.sleep(0.01)
        if self.done < n:
            raise AssertionError("writer stuck at %d: %r" % (self.done, self.error))


class SnapshotTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="svcplane-snapshot-")
        cls.servers, cls.etcds = [], []
        try:
            cls.src = cls.server(RANGES)
            cls.populate()
            cls.save_while_writing()
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def tearDownClass(cls):
        for srv in cls.servers:
            srv.cleanup()
        for etcd in cls.etcds:
            etcd.cleanup()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    @classmethod
    def server(cls, args, data_dir=None):
        srv = harness.Server(args, data_dir=data_dir)
        cls.servers.append(srv)
        return srv.start()

    @classmethod
    def etcd(cls):
        e = Etcd()
        cls.etcds.append(e)
        return e

    @classmethod
    def populate(cls):
        items = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}
                 for ns in OUR_NAMESPACES]
        items += [service("team-a", "web-%d" % i, "ClusterIP") for i in range(5)]
        items += [service("team-b", "edge-%d" % i, "NodePort") for i in range(5)]
        items += [pod("team-a", "web-0-%d" % i, labels={"app": "web-0"}) for i in range(3)]
        items.append({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                      "metadata": {"name": "counter", "namespace": "writer"},
                      "spec": {"holderIdentity": "0"}})
        cls.src.kubectl("1.33", "create", "-f", "-", input=manifest(items))
        # ~8 MB, several times what the socket buffers hold: the slow download below makes the
        # server read the later pages while the writer goes on.
        blob = "x" * 120_000
        for batch in range(4):
            big = [pod("bulk", "big-%02d" % (batch * 16 + i), annotations={"blob": blob})
                   for i in range(16)]
            cls.src.kubectl("1.33", "create", "-f", "-", input=manifest(big))

    @classmethod
    def save_while_writing(cls):
        writer = Writer(cls.src)
        writer.thread.start()
        try:
            writer.wait_for(5)
            cls.file = os.path.join(cls.tmp, "cli.snap")
            cls.save_out = svcplane("snapshot", "save", cls.file, "--kubeconfig",
                                    cls.src.kubeconfig, "--page-size", "7").stdout
            cls.slow_file = os.path.join(cls.tmp, "slow.snap")
            cls.slow_writes = cls.download_slowly(cls.slow_file, writer)
            writer.wait_for(writer.done + 3)
        finally:
            writer.stop.set()
            writer.thread.join(30)
            writer.api.rest_client.pool_manager.clear()
            writer.api.close()
        if writer.error:
            raise writer.error

    @classmethod
    def download_slowly(cls, path, writer):
        """Reads the first 64 KB, lets the writer make 15 more rounds, then reads the rest; returns
        the writer's rounds during the download."""
        conn = https_connection(cls.src, rcvbuf=32 * 1024)
        conn.request("GET", SNAPSHOT_PATH + "?limit=1",
                     headers={"Authorization": "Bearer " + admin_token(cls.src)})
        resp = conn.getresponse()
        assert resp.status == 200, (resp.status, resp.read()[:500])
        before = writer.done
        with open(path, "wb") as f:
            f.write(resp.read(64 * 1024))
            writer.wait_for(before + 15)
            while True:
                chunk = resp.read(256 * 1024)
                if not chunk:
                    break
                f.write(chunk)
        conn.close()
        return writer.done - before

    # --- helpers -------------------------------------------------------------------------------

    def objects(self, srv):
        """{store key: object} of every kind compared here, as `srv` serves them."""
        lists = (("/api/v1/namespaces", "/registry/namespaces/"),
                 ("/api/v1/services", "/registry/services/specs/"),
                 ("/api/v1/pods", "/registry/pods/"),
                 ("/apis/coordination.k8s.io/v1/leases", "/registry/leases/"))
        out = {}
        with srv.api_client() as api:
            for path, prefix in lists:
                r = harness.raw_request(api, "GET", path)
                self.assertEqual(r.status, 200, r.data[:300])
                for item in json.loads(r.data)["items"]:
                    md = item["metadata"]
                    name = md["namespace"] + "/" + md["name"] if "namespace" in md else md["name"]
                    out[prefix + name] = item
            api.rest_client.pool_manager.clear()
        return out

    def assert_serves_snapshot(self, srv, records, same_revisions):
        served = self.objects(srv)
        compared = sorted((k for k in records if ours(k)), key=lambda k: records[k][1])
        self.assertGreater(len(compared), 85)
        for key in compared:
            self.assertIn(key, served, "restored server lacks " + key + srv.died())
            self.assertEqual(strip(served[key]), strip(json.loads(records[key][2])), key)
            if same_revisions:
                self.assertEqual(int(served[key]["metadata"]["resourceVersion"]), records[key][1],
                                 key)
        # In the snapshot's mod-revision order, resourceVersions ascend.
        rvs = [int(served[k]["metadata"]["resourceVersion"]) for k in compared]
        self.assertEqual(rvs, sorted(rvs))
        self.assertEqual(len(set(rvs)), len(rvs))

    def assert_no_duplicate_allocations(self, srv, records):
        """New Services on a restored server get addresses and ports no snapshot Service has."""
        old_ips, old_ports = allocations(
            json.loads(v) for k, (_, _, v) in records.items() if k.startswith(
                "/registry/services/specs/"))
        self.assertEqual(len(old_ports), 5)
        items = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "after"}}]
        items += [service("after", "new-%d" % i, "NodePort" if i % 2 else "ClusterIP")
                  for i in range(10)]
        srv.kubectl("1.33", "create", "-f", "-", input=manifest(items))
        new = srv.kubectl_json("1.33", "-n", "after", "get", "services")["items"]
        new_ips, new_ports = allocations(new)
        self.assertEqual(len(new_ips), 10)
        self.assertEqual(len(new_ports), 5)
        self.assertEqual(set(new_ips) & set(old_ips), set())
        self.assertEqual(set(new_ports) & set(old_ports), set())
        self.assertEqual(len(set(new_ips)), 10)
        self.assertEqual(len(set(new_ports)), 5)

    def assert_one_revision(self, path):
        revision, records = read_snapshot(path)
        writer_pods = sorted(int(k.rsplit("-", 1)[1]) for k in records
                             if k.startswith("/registry/pods/zz-writer/"))
        counter = json.loads(records["/registry/leases/writer/counter"][2])
        k = len(writer_pods)
        self.assertGreaterEqual(k, 5)
        self.assertEqual(writer_pods, list(range(1, k + 1)))
        self.assertIn(int(counter["spec"]["holderIdentity"]), (k - 1, k))
        self.assertTrue(all(mod <= revision for _, mod, _ in records.values()))
        return revision, records

    # --- tests ---------------------------------------------------------------------------------

    def test_saves_show_one_revision_while_writes_go_on(self):
        revision, records = self.assert_one_revision(self.file)
        self.assertIn("saved %s: revision %d, %d keys under /registry/" % (
            self.file, revision, len(records)), self.save_out)
        self.assertFalse([f for f in os.listdir(self.tmp) if ".partial" in f])

        self.assertGreaterEqual(self.slow_writes, 15)
        slow_revision, slow_records = self.assert_one_revision(self.slow_file)
        self.assertGreater(slow_revision, revision)
        self.assertGreater(os.path.getsize(self.slow_file), 7_000_000)
        out = svcplane("snapshot", "status", self.slow_file).stdout
        self.assertIn("revision %d, %d keys" % (slow_revision, len(slow_records)), out)

    def test_restore_into_new_data_dir_keeps_objects_and_resource_versions(self):
        revision, records = read_snapshot(self.file)
        data_dir = os.path.join(self.tmp, "restored-embedded")
        out = svcplane("snapshot", "restore", self.file, "--data-dir", data_dir).stdout
        self.assertIn("restored %d keys" % len(records), out)
        srv = self.server(RANGES, data_dir=data_dir)
        self.assert_serves_snapshot(srv, records, same_revisions=True)
        # The allocation maps come back as they were (the repair pass at start rewrites them,
        # with the same content).
        _, again = read_snapshot(self.save(srv, "embedded-again.snap"))
        for key in ("/registry/ranges/serviceips", "/registry/ranges/servicenodeports"):
            self.assertEqual(json.loads(again[key][2]), json.loads(records[key][2]),
                             key + srv.log_tail())
        self.assert_no_duplicate_allocations(srv, records)
        # Revisions continue above the snapshot's.
        created = srv.kubectl_json("1.33", "-n", "after", "get", "service", "new-0")
        self.assertGreater(int(created["metadata"]["resourceVersion"]), revision)

    def test_restore_into_etcd_keeps_objects_and_their_order_and_etcd_saves(self):
        _, records = read_snapshot(self.file)
        etcd = self.etcd()
        out = svcplane("snapshot", "restore", self.file, "--etcd-servers", etcd.url).stdout
        self.assertIn("restored %d keys into etcd at %s" % (len(records), etcd.url), out)
        raw = etcd.get("/registry/services/specs/team-a/web-0")
        self.assertTrue(raw.startswith(b"k8s\x00"), raw[:20])  # kube's encoding, as serve writes
        srv = self.server(["--store", "etcd", "--etcd-servers", etcd.url] + RANGES)
        self.assert_serves_snapshot(srv, records, same_revisions=False)

        # A server on etcd saves too, and its snapshot holds the same objects and allocations.
        _, from_etcd = read_snapshot(self.save(srv, "from-etcd.snap"))
        for key in [k for k in records if ours(k)] + ["/registry/ranges/serviceips",
                                                      "/registry/ranges/servicenodeports"]:
            self.assertIn(key, from_etcd)
            self.assertEqual(strip(json.loads(from_etcd[key][2])),
                             strip(json.loads(records[key][2])), key)
        self.assert_no_duplicate_allocations(srv, records)

    def test_restore_refuses_stores_with_data_and_damaged_files(self):
        target = os.path.join(self.tmp, "refusals")
        svcplane("snapshot", "restore", self.file, "--data-dir", target)
        p = svcplane("snapshot", "restore", self.file, "--data-dir", target, check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn("it exists and is not empty", p.stderr)

        etcd = self.etcd()
        svcplane("snapshot", "restore", self.file, "--etcd-servers", etcd.url)
        p = svcplane("snapshot", "restore", self.file, "--etcd-servers", etcd.url, check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn("etcd at %s is not empty" % etcd.url, p.stderr)

        damaged = os.path.join(self.tmp, "damaged.snap")
        with open(self.file, "rb") as f:
            data = f.read()
        with open(damaged, "wb") as f:
            f.write(data[:len(data) // 2])
        fresh = os.path.join(self.tmp, "never")
        p = svcplane("snapshot", "restore", damaged, "--data-dir", fresh, check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn("is truncated", p.stderr)
        self.assertFalse(os.path.exists(fresh))

        p = svcplane("snapshot", "restore", self.file, check=False)
        self.assertEqual(p.returncode, 2)
        self.assertIn("exactly one target", p.stderr)

    def test_endpoint_is_refused_to_anonymous_and_to_users_without_the_grant(self):
        conn = https_connection(self.src)
        conn.request("GET", SNAPSHOT_PATH)
        resp = conn.getresponse()
        body = json.loads(resp.read())
        conn.close()
        self.assertEqual((resp.status, body["kind"], body["reason"]),
                         (403, "Status", "Forbidden"))
        self.assertIn('User "system:anonymous" cannot get path "/svcplane/snapshot"',
                      body["message"])

        pki = os.path.join(self.src.data_dir, "pki")
        key, csr, crt = (os.path.join(self.tmp, "alice." + e) for e in ("key", "csr", "crt"))
        subprocess.run(["openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout",
                        "-out", key], check=True, capture_output=True)
        subprocess.run(["openssl", "req", "-new", "-key", key, "-subj", "/CN=alice/O=dev",
                        "-out", csr], check=True, capture_output=True)
        subprocess.run(["openssl", "x509", "-req", "-in", csr, "-CA",
                        os.path.join(pki, "ca.crt"), "-CAkey", os.path.join(pki, "ca.key"),
                        "-set_serial", "4242", "-days", "1", "-out", crt],
                       check=True, capture_output=True)
        conn = https_connection(self.src, cert=(crt, key))
        conn.request("GET", SNAPSHOT_PATH)
        resp = conn.getresponse()
        body = json.loads(resp.read())
        conn.close()
        self.assertEqual((resp.status, body["reason"]), (403, "Forbidden"))
        self.assertIn('User "alice" cannot get path "/svcplane/snapshot"', body["message"])

        # The CLI says why and leaves no file behind.
        with open(self.src.kubeconfig) as f:
            kubeconfig = f.read().replace(admin_token(self.src), "0" * 64)
        bad = os.path.join(self.tmp, "bad-kubeconfig")
        with open(bad, "w") as f:
            f.write(kubeconfig)
        out = os.path.join(self.tmp, "unauthorized.snap")
        p = svcplane("snapshot", "save", out, "--kubeconfig", bad, check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn("refused the snapshot (HTTP 401)", p.stderr)
        self.assertFalse([f for f in os.listdir(self.tmp) if f.startswith("unauthorized")])

    def save(self, srv, name):
        path = os.path.join(self.tmp, name)
        svcplane("snapshot", "save", path, "--kubeconfig", srv.kubeconfig)
        return path


if __name__ == "__main__":
    unittest.main()
