"""`svcplane serve --store etcd` against a real etcd (Debian's etcd-server, on loopback).

kubectl 1.27 and 1.33 work as on the embedded store; what lands in etcd is what kube-apiserver
writes there (protobuf in the "k8s\\0" envelope under /registry, read back through etcd's own
JSON gateway, not through svcplane); and every acknowledged write survives a kill -9 of the
server, which reads it back from etcd on restart.
"""

import base64
import json
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import unittest
import urllib.request

from kubernetes import client

import harness

ETCD = "/usr/bin/etcd"


class Etcd:
    """One etcd member on 127.0.0.1 with free ports and a temp data dir."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="svcplane-etcd-")
        self.client_port, self.peer_port = harness.free_port(), harness.free_port()
        self.url = "http://127.0.0.1:%d" % self.client_port
        peer = "http://127.0.0.1:%d" % self.peer_port
        self.log = open(os.path.join(self.dir, "etcd.log"), "wb")
        self.proc = subprocess.Popen(
            [ETCD, "--data-dir", os.path.join(self.dir, "data"), "--name", "default",
             "--listen-client-urls", self.url, "--advertise-client-urls", self.url,
             "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
             "--initial-cluster", "default=" + peer],
            stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(self.url + "/health", timeout=1) as r:
                    if json.load(r).get("health") == "true":
                        return
            except OSError:
                pass
            if self.proc.poll() is not None:
                break
            time.sleep(0.1)
        self.cleanup()
        raise RuntimeError("etcd did not become healthy")

    def get(self, key):
        """The value etcd holds under `key` (bytes), or None, read through etcd's gateway."""
        body = json.dumps({"key": base64.b64encode(key.encode()).decode()}).encode()
        req = urllib.request.Request(self.url + "/v3/kv/range", data=body, method="POST")
        with urllib.request.urlopen(req, timeout=10) as r:
            kvs = json.load(r).get("kvs", [])
        return base64.b64decode(kvs[0]["value"]) if kvs else None

    def cleanup(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


class EtcdStoreTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.etcd = Etcd()
        try:
            cls.srv = harness.Server(["--store", "etcd", "--etcd-servers", cls.etcd.url,
                                      "--advertise-address", "192.0.2.10"])
            cls.srv.start()
        except BaseException:
            cls.etcd.cleanup()
            raise

    @classmethod
    def tearDownClass(cls):
        cls.srv.cleanup()
        cls.etcd.cleanup()

    def test_kubectl_works_and_etcd_holds_kube_apiservers_encoding(self):
        for version in ("1.27", "1.33"):
            ns = "kubectl-" + version.replace(".", "-")
            self.srv.kubectl(version, "create", "namespace", ns)
            self.srv.kubectl(version, "-n", ns, "create", "service", "clusterip", "web",
                             "--tcp=80:8080")
            svc = self.srv.kubectl_json(version, "-n", ns, "get", "service", "web")
            self.assertTrue(svc["spec"]["clusterIP"].startswith("10."), svc)
            self.srv.kubectl(version, "-n", ns, "label", "service", "web", "tier=front")
            got = self.srv.kubectl_json(version, "-n", ns, "get", "service", "web")
            self.assertEqual(got["metadata"]["labels"].get("tier"), "front")
            self.assertGreater(int(got["metadata"]["resourceVersion"]),
                               int(svc["metadata"]["resourceVersion"]))

            raw = self.etcd.get("/registry/services/specs/%s/web" % ns)
            self.assertIsNotNone(raw, "no Service under kube's key")
            self.assertTrue(raw.startswith(b"k8s\x00"), raw[:20])
            self.assertIn(b"\n\x02v1\x12\x07Service", raw[:30])  # TypeMeta{v1, Service}
            self.assertIn(b"tier", raw)
            self.assertNotIn(b'"kind"', raw)  # protobuf, not JSON

        # The bootstrap loops run on etcd too: the kubernetes Service lists this server.
        deadline = time.monotonic() + 30
        while True:
            ep = self.srv.kubectl_json("1.33", "get", "endpoints", "kubernetes")
            ips = [a["ip"] for s in ep.get("subsets") or [] for a in s.get("addresses", [])]
            if ips == ["192.0.2.10"] or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        self.assertEqual(ips, ["192.0.2.10"])
        self.assertIsNotNone(self.etcd.get("/registry/services/endpoints/default/kubernetes"))

    def test_acknowledged_writes_survive_kill_9(self):
        coord = client.CoordinationV1Api(self.srv.api_client())
        acked, stop = {}, threading.Event()

        def write():
            i = 0
            while not stop.is_set():
                i += 1
                name = "crash-%d" % i
                try:
                    lease = coord.create_namespaced_lease("default", client.V1Lease(
                        metadata=client.V1ObjectMeta(name=name),
                        spec=client.V1LeaseSpec(holder_identity="h-%d" % i)))
                except Exception:  # the server went away mid-request: not acknowledged
                    return
                acked[name] = (lease.metadata.uid, lease.spec.holder_identity)

        writer = threading.Thread(target=write, daemon=True)
        writer.start()
        time.sleep(1.5)
        self.srv.kill9()
        stop.set()
        writer.join(30)
        self.assertGreater(len(acked), 5, "too few writes before the kill to mean anything")

        self.srv.start()
        coord = client.CoordinationV1Api(self.srv.api_client())
        stored = {l.metadata.name: (l.metadata.uid, l.spec.holder_identity)
                  for l in coord.list_namespaced_lease("default").items}
        for name, want in acked.items():
            self.assertEqual(stored.get(name), want, name)


class EtcdFlagsTest(unittest.TestCase):
    """A server that cannot have its etcd says why and exits, rather than serving or hanging."""

    def serve(self, *args):
        d = tempfile.mkdtemp(prefix="svcplane-etcdflags-")
        try:
            p = subprocess.run([harness.SVCPLANE, "serve", "--data-dir", d, "--listen",
                                "127.0.0.1:%d" % harness.free_port(), "--store", "etcd"]
                               + list(args), capture_output=True, text=True, timeout=60)
            self.assertFalse(os.path.exists(os.path.join(d, "kubeconfig")), "it started")
            return p.returncode, p.stderr
        finally:
            shutil.rmtree(d, ignore_errors=True)

    def test_missing_or_malformed_etcd_flags_fail_the_start_with_a_reason(self):
        cases = [
            ((), "--store etcd needs --etcd-servers"),
            (("--etcd-servers", "ftp://127.0.0.1:2379"), "must start with http://, https://"),
            (("--etcd-servers", "http://127.0.0.1:2379", "--etcd-prefix", "/other"),
             "--etcd-prefix /other is not supported yet"),
        ]
        for args, reason in cases:
            rc, err = self.serve(*args)
            self.assertEqual(rc, 1, args)
            self.assertIn(reason, err, args)

    def test_unreachable_etcd_fails_the_start_within_the_read_deadline(self):
        url = "http://127.0.0.1:%d" % harness.free_port()  # nothing listens there
        start = time.monotonic()
        rc, err = self.serve("--etcd-servers", url)
        took = time.monotonic() - start
        self.assertEqual(rc, 1)
        self.assertIn("etcd at " + url, err)
        self.assertLess(took, 30, "the start waited past etcd's 10 s read deadline")


if __name__ == "__main__":
    unittest.main()
