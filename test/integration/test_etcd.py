"""`svcplane serve --store etcd` against a real etcd (Debian's etcd-server, on loopback).

kubectl 1.27 and 1.33 work as on the embedded store; what lands in etcd is what kube-apiserver
writes there (protobuf in the "k8s\\0" envelope under /registry, read back through etcd's own
JSON gateway, not through svcplane), the allocators' maps included; and every acknowledged
write survives a kill -9 of the server, which reads it back from etcd on restart.
"""

import base64
import ipaddress
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

from kubernetes import client, watch

import harness
from protowire import parse

Etcd = harness.Etcd


def _fields(buf):
    """{field number: value} of one message; length-delimited values as bytes."""
    return {num: v for num, _, v in parse(buf)}


def _put_varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append(v & 0x7F | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def _bytes_field(num, data):
    return _put_varint(num << 3 | 2) + _put_varint(len(data)) + data


# metav1.ObjectMeta{} as Go marshals it: the six strings, generation, an empty creationTimestamp.
EMPTY_OBJECT_META = bytes.fromhex("0a0012001a0022002a00320038004200")


def kube_range_allocation(range_text, offsets):
    """The bytes kube-apiserver writes for a map: core/v1 RangeAllocation{metadata = 1 (empty, as
    its allocator writes through raw storage), range = 2, data = 3: big.Int.Bytes() of the
    bitmap} in the k8s\\0 runtime.Unknown envelope."""
    n = sum(1 << k for k in offsets)
    data = n.to_bytes((n.bit_length() + 7) // 8, "big")
    raw = (_bytes_field(1, EMPTY_OBJECT_META) + _bytes_field(2, range_text.encode())
           + _bytes_field(3, data))
    type_meta = _bytes_field(1, b"v1") + _bytes_field(2, b"RangeAllocation")
    return (b"k8s\x00" + _bytes_field(1, type_meta) + _bytes_field(2, raw)
            + _bytes_field(3, b"") + _bytes_field(4, b""))


def read_range_allocation(stored):
    """(range, set of allocated offsets, data) of kube's RangeAllocation bytes."""
    assert stored.startswith(b"k8s\x00"), stored[:20]
    envelope = _fields(stored[4:])
    assert _fields(envelope[1]) == {1: b"v1", 2: b"RangeAllocation"}, envelope[1]
    message = _fields(envelope[2])
    assert message[1] == EMPTY_OBJECT_META, message[1]
    data = message[3]
    n = int.from_bytes(data, "big")
    return message[2].decode(), {k for k in range(n.bit_length()) if n >> k & 1}, data


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

    def test_allocator_maps_are_kubes_range_allocations_and_survive_a_restart(self):
        core = client.CoreV1Api(self.srv.api_client())
        ns = "ranges"
        core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=ns)))

        def create(name, type_="NodePort", cluster_ip=None, node_port=None):
            port = client.V1ServicePort(port=80, target_port=8080, node_port=node_port)
            return core.create_namespaced_service(ns, client.V1Service(
                metadata=client.V1ObjectMeta(name=name),
                spec=client.V1ServiceSpec(type=type_, cluster_ip=cluster_ip, ports=[port])))

        def refused(name, **kw):
            with self.assertRaises(client.ApiException) as cm:
                create(name, **kw)
            self.assertEqual(cm.exception.status, 422, cm.exception.body)
            self.assertIn("already allocated", cm.exception.body)

        net = ipaddress.ip_network("10.96.0.0/12")  # the server's default range

        def in_use():
            """The offsets every Service holds, as kube's bitmaps number them."""
            ips, ports = set(), set()
            for svc in core.list_service_for_all_namespaces().items:
                if svc.spec.cluster_ip not in (None, "", "None"):
                    ip = ipaddress.ip_address(svc.spec.cluster_ip)
                    ips.add(int(ip) - int(net.network_address) - 1)
                for p in svc.spec.ports or []:
                    if p.node_port:
                        ports.add(p.node_port - 30000)
            return ips, ports

        def stored_maps():
            """The offsets set in the two maps in etcd, checked to be in kube's form."""
            maps = []
            # The range texts are upstream's: the CIDR, and net.PortRange.String()'s base-max.
            for key, want_range in (("serviceips", "10.96.0.0/12"),
                                    ("servicenodeports", "30000-32767")):
                stored = self.etcd.get("/registry/ranges/" + key)
                range_text, offsets, data = read_range_allocation(stored)
                self.assertEqual(range_text, want_range)
                self.assertFalse(data.startswith(b"\x00"), "big.Int.Bytes() has no leading 0")
                # Byte for byte what Go writes for that map.
                self.assertEqual(stored, kube_range_allocation(range_text, offsets))
                maps.append(offsets)
            return tuple(maps)

        static = create("static", cluster_ip="10.96.0.77", node_port=30123)
        dynamic = [create("dyn-%d" % i) for i in range(3)]
        create("plain", type_="ClusterIP")
        create("gone")
        core.delete_namespaced_service("gone", ns)
        ips, ports = stored_maps()
        self.assertEqual((ips, ports), in_use())
        self.assertIn(76, ips)  # 10.96.0.77
        self.assertIn(123, ports)  # 30123

        # A kube-apiserver on this etcd takes 10.96.0.99 and 30999 while the server is down:
        # it writes its own bytes, which the restarted server must honour.
        self.srv.stop()
        self.etcd.put("/registry/ranges/serviceips",
                      kube_range_allocation("10.96.0.0/12", ips | {98}))
        self.etcd.put("/registry/ranges/servicenodeports",
                      kube_range_allocation("30000-32767", ports | {999}))
        self.srv.start()
        core = client.CoreV1Api(self.srv.api_client())

        refused("kube-ip", cluster_ip="10.96.0.99")
        refused("kube-port", node_port=30999)
        refused("dup-ip", cluster_ip=static.spec.cluster_ip)
        refused("dup-port", node_port=dynamic[0].spec.ports[0].node_port)
        for i in range(5):
            create("after-%d" % i)
        services = core.list_service_for_all_namespaces().items
        got_ips = [s.spec.cluster_ip for s in services]
        self.assertEqual(len(got_ips), len(set(got_ips)), "a ClusterIP handed out twice")
        got_ports = [p.node_port for s in services for p in s.spec.ports or [] if p.node_port]
        self.assertEqual(len(got_ports), len(set(got_ports)), "a NodePort handed out twice")
        ips, ports = in_use()
        # The repair pass at start keeps what it finds unused for two more passes (a leak is
        # freed on the third sighting), so kube's two allocations are still there.
        self.assertEqual(stored_maps(), (ips | {98}, ports | {999}))

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

    def wait_for_kubernetes_ips(self, want, timeout):
        deadline = time.monotonic() + timeout
        while True:
            ep = self.srv.kubectl_json("1.33", "get", "endpoints", "kubernetes")
            ips = sorted(a["ip"] for s in ep.get("subsets") or [] for a in s.get("addresses", []))
            if ips == want or time.monotonic() > deadline:
                return ips
            time.sleep(0.5)

    def test_master_leases_are_kube_endpoints_on_etcd_leases_both_ways(self):
        self.assertEqual(self.wait_for_kubernetes_ips(["192.0.2.10"], 30), ["192.0.2.10"])
        kv = self.etcd.kv("/registry/masterleases/192.0.2.10")
        self.assertIsNotNone(kv)
        raw = base64.b64decode(kv["value"])
        self.assertTrue(raw.startswith(b"k8s\x00"), raw[:20])
        self.assertIn(b"\n\x02v1\x12\x09Endpoints", raw[:30])  # TypeMeta{v1, Endpoints}
        self.assertIn(b"192.0.2.10", raw)
        self.assertNotEqual(kv.get("lease", "0"), "0", "written without an etcd lease")
        # A kube-apiserver's record (upstream's bytes: v1 Endpoints, empty metadata, one subset
        # with its IP) on a 20 s etcd lease: listed while etcd keeps it (the reconciler runs every
        # 10 s), gone when it expires.
        address = _bytes_field(1, b"192.0.2.99")
        endpoints = (_bytes_field(1, EMPTY_OBJECT_META)
                     + _bytes_field(2, _bytes_field(1, address)))
        type_meta = _bytes_field(1, b"v1") + _bytes_field(2, b"Endpoints")
        record = (b"k8s\x00" + _bytes_field(1, type_meta) + _bytes_field(2, endpoints)
                  + _bytes_field(3, b"") + _bytes_field(4, b""))
        self.etcd.put("/registry/masterleases/192.0.2.99", record, lease=self.etcd.grant(20))
        self.assertEqual(self.wait_for_kubernetes_ips(["192.0.2.10", "192.0.2.99"], 15),
                         ["192.0.2.10", "192.0.2.99"])
        self.assertEqual(self.wait_for_kubernetes_ips(["192.0.2.10"], 40), ["192.0.2.10"])
        self.assertIsNone(self.etcd.get("/registry/masterleases/192.0.2.99"))

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


class EventsOverrideTest(unittest.TestCase):
    """--etcd-servers-overrides=/events#URL: Events live in their own etcd (kube-apiserver's
    usual split), everything else in the main one; both are health-checked."""

    @classmethod
    def setUpClass(cls):
        cls.main, cls.events = Etcd(), Etcd()
        try:
            cls.srv = harness.Server(
                ["--store", "etcd", "--etcd-servers", cls.main.url, "--leader-elect=false",
                 "--shutdown-delay-duration", "0s",
                 "--etcd-servers-overrides", "/events#" + cls.events.url])
            cls.srv.start()
        except BaseException:
            cls.main.cleanup()
            cls.events.cleanup()
            raise

    @classmethod
    def tearDownClass(cls):
        cls.srv.cleanup()
        cls.main.cleanup()
        cls.events.cleanup()

    def test_events_are_stored_in_the_override_etcd_and_served_as_usual(self):
        core = client.CoreV1Api(self.srv.api_client())
        ns = "split"
        core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=ns)))
        pod = client.V1Pod(metadata=client.V1ObjectMeta(name="p"), spec=client.V1PodSpec(
            containers=[client.V1Container(name="c", image="nginx")]))
        core.create_namespaced_pod(ns, pod)
        event = client.CoreV1Event(
            metadata=client.V1ObjectMeta(name="e1"), reason="Tested", message="hello",
            involved_object=client.V1ObjectReference(kind="Pod", name="p", namespace=ns))
        core.create_namespaced_event(ns, event)

        self.assertIsNotNone(self.events.get("/registry/events/split/e1"))
        self.assertIsNone(self.main.get("/registry/events/split/e1"))
        self.assertIsNotNone(self.main.get("/registry/pods/split/p"))
        self.assertIsNone(self.events.get("/registry/pods/split/p"))

        got = self.srv.kubectl_json("1.33", "get", "events", "-n", ns)
        self.assertEqual([e["metadata"]["name"] for e in got["items"]], ["e1"])
        # A watch from the list's resourceVersion sees the next Event (revisions of the events
        # etcd, as kube-apiserver's resourceVersions of overridden resources are).
        rv = core.list_namespaced_event(ns).metadata.resource_version
        core.create_namespaced_event(ns, client.CoreV1Event(
            metadata=client.V1ObjectMeta(name="e2"), reason="Tested", message="again",
            involved_object=client.V1ObjectReference(kind="Pod", name="p", namespace=ns)))
        w = watch.Watch()
        seen = [e["object"].metadata.name
                for e in w.stream(core.list_namespaced_event, ns, resource_version=rv,
                                  timeout_seconds=5)]
        self.assertIn("e2", seen)

        ready = self.srv.kubectl("1.33", "get", "--raw", "/readyz?verbose").stdout
        self.assertIn("[+]etcd ok", ready)
        self.assertIn("[+]etcd-override-0 ok", ready)


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
            (("--etcd-servers", "http://127.0.0.1:2379",
              "--etcd-servers-overrides", "/pods#http://127.0.0.1:2479"),
             'only core Events ("/events#...") may use other etcd servers, not "/pods"'),
            (("--etcd-servers", "http://127.0.0.1:2379",
              "--etcd-servers-overrides", "/events"),
             '"/events" is not group/resource#servers'),
        ]
        for args, reason in cases:
            rc, err = self.serve(*args)
            self.assertEqual(rc, 1, args)
            self.assertIn(reason, err, args)

    def test_a_join_token_without_etcd_is_refused(self):
        d = tempfile.mkdtemp(prefix="svcplane-etcdflags-")
        try:
            p = subprocess.run([harness.SVCPLANE, "serve", "--data-dir", d, "--listen",
                                "127.0.0.1:%d" % harness.free_port(), "--token", "t"],
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 2)
            self.assertIn("--token joins servers sharing etcd: it needs --store etcd", p.stderr)
            self.assertFalse(os.path.exists(os.path.join(d, "kubeconfig")), "it started")
        finally:
            shutil.rmtree(d, ignore_errors=True)

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
