"""ClusterIP/NodePort allocation, repair and the `kubernetes` Service on the real binary."""

import concurrent.futures
import json
import time
import unittest

from kubernetes import client
from kubernetes.client.rest import ApiException

import harness

KUBECTL = "1.33"
NS = "default"


def np_service(name, node_port=None, cluster_ip=None, svc_type="NodePort"):
    return client.V1Service(
        metadata=client.V1ObjectMeta(name=name),
        spec=client.V1ServiceSpec(
            type=svc_type, selector={"app": name}, cluster_ip=cluster_ip,
            ports=[client.V1ServicePort(port=80, target_port=8080, node_port=node_port)]))


def manifest(name, svc_type="ClusterIP", cluster_ip=None, node_port=None):
    """A Service manifest for `kubectl create -f -` (1.33's `create service` sends protobuf,
    which is issue 8)."""
    port = {"port": 80, "targetPort": 80}
    if node_port is not None:
        port["nodePort"] = node_port
    spec = {"type": svc_type, "selector": {"app": name}, "ports": [port]}
    if cluster_ip is not None:
        spec["clusterIP"] = cluster_ip
    return json.dumps({"apiVersion": "v1", "kind": "Service", "metadata": {"name": name},
                       "spec": spec})


def create(srv, name, check=True, **kw):
    return srv.kubectl(KUBECTL, "create", "-f", "-", input=manifest(name, **kw), check=check)


class Allocation(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.srv, cls.api = harness.start_with_client()
        cls.core = client.CoreV1Api(cls.api)

    @classmethod
    def tearDownClass(cls):
        cls.api.close()
        cls.srv.cleanup()

    def kubectl(self, *args, **kw):
        return self.srv.kubectl(KUBECTL, *args, **kw)

    def test_errors_worded_as_kubernetes(self):
        create(self.srv, "fixed-a", cluster_ip="10.96.0.10")
        p = create(self.srv, "fixed-b", cluster_ip="10.96.0.10", check=False)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn('Service "fixed-b" is invalid: spec.clusterIPs: Invalid value: '
                      '[]string{"10.96.0.10"}: failed to allocate IP 10.96.0.10: provided IP is '
                      'already allocated', p.stderr)
        p = create(self.srv, "fixed-c", cluster_ip="1.1.1.1", check=False)
        self.assertIn('Service "fixed-c" is invalid: spec.clusterIPs: Invalid value: '
                      '[]string{"1.1.1.1"}: failed to allocate IP 1.1.1.1: provided IP is not in '
                      'the valid range. The range of valid IPs is 10.96.0.0/12', p.stderr)
        create(self.srv, "port-a", svc_type="NodePort", node_port=30080)
        p = create(self.srv, "port-b", svc_type="NodePort", node_port=30080, check=False)
        self.assertIn('Service "port-b" is invalid: spec.ports[0].nodePort: Invalid value: 30080: '
                      'provided port is already allocated', p.stderr)
        p = create(self.srv, "port-c", svc_type="NodePort", node_port=8080, check=False)
        self.assertIn('Service "port-c" is invalid: spec.ports[0].nodePort: Invalid value: 8080: '
                      'provided port is not in the valid range. The range of valid ports is '
                      '30000-32767', p.stderr)
        # The Python client sees the 422 with its cause.
        with self.assertRaises(ApiException) as ctx:
            self.core.create_namespaced_service(NS, np_service("port-d", node_port=30080))
        self.assertEqual(ctx.exception.status, 422)
        # Delete releases: the address and port can be taken again.
        self.kubectl("delete", "service", "fixed-a", "port-a")
        create(self.srv, "fixed-b", cluster_ip="10.96.0.10")
        create(self.srv, "port-b", svc_type="NodePort", node_port=30080)
        got = self.srv.kubectl_json(KUBECTL, "get", "service", "port-b")
        self.assertEqual(got["spec"]["ports"][0]["nodePort"], 30080)
        self.assertEqual(got["spec"]["ipFamilies"], ["IPv4"])
        self.assertEqual(got["spec"]["ipFamilyPolicy"], "SingleStack")

    def test_headless_gets_no_ip(self):
        create(self.srv, "headless", cluster_ip="None")
        got = self.srv.kubectl_json(KUBECTL, "get", "service", "headless")
        self.assertEqual(got["spec"]["clusterIPs"], ["None"])

    def test_kubernetes_service_and_endpoints(self):
        svc = self.srv.kubectl_json(KUBECTL, "get", "service", "kubernetes")
        self.assertEqual(svc["spec"]["clusterIP"], "10.96.0.1")
        self.assertEqual(svc["metadata"]["labels"],
                         {"component": "apiserver", "provider": "kubernetes"})
        port = svc["spec"]["ports"][0]
        self.assertEqual((port["name"], port["port"], port["targetPort"], port["protocol"]),
                         ("https", 443, self.srv.port, "TCP"))
        ep = self.srv.kubectl_json(KUBECTL, "get", "endpoints", "kubernetes")
        self.assertEqual(ep["metadata"]["labels"],
                         {"endpointslice.kubernetes.io/skip-mirror": "true"})
        self.assertEqual(len(ep["subsets"]), 1)
        self.assertEqual(len(ep["subsets"][0]["addresses"]), 1)
        self.assertEqual(ep["subsets"][0]["ports"],
                         [{"name": "https", "port": self.srv.port, "protocol": "TCP"}])
        sl = self.srv.kubectl_json(KUBECTL, "get", "endpointslice", "kubernetes")
        self.assertEqual(sl["metadata"]["labels"], {"kubernetes.io/service-name": "kubernetes"})
        self.assertEqual(sl["endpoints"][0]["addresses"],
                         [ep["subsets"][0]["addresses"][0]["ip"]])
        self.assertTrue(sl["endpoints"][0]["conditions"]["ready"])
        names = self.kubectl("get", "namespaces", "-o", "name").stdout.split()
        for ns in ("default", "kube-system", "kube-public", "kube-node-lease"):
            self.assertIn("namespace/" + ns, names)

    def test_concurrent_creates_never_share(self):
        n, threads = 1000, 16

        def create(i):
            # Every fourth a NodePort, so ports are raced for too.
            body = np_service("race-%d" % i, svc_type="NodePort" if i % 4 == 0 else "ClusterIP")
            for attempt in range(5):
                try:
                    return self.core.create_namespaced_service(NS, body)
                except ApiException as e:
                    if e.status != 429 or attempt == 4:
                        raise
                    time.sleep(0.2)

        start = time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(threads) as pool:
            created = list(pool.map(create, range(n)))
        elapsed = time.monotonic() - start
        print("\n%d concurrent Service creates (%d threads): %.1fs, %.0f/s"
              % (n, threads, elapsed, n / elapsed))
        ips = [s.spec.cluster_ip for s in created]
        ports = [s.spec.ports[0].node_port for s in created if s.spec.type == "NodePort"]
        self.assertEqual(len(set(ips)), n)
        self.assertEqual(len(ports), n // 4)
        self.assertEqual(len(set(ports)), n // 4)
        # What the server stored agrees with what the creates returned.
        listed = self.core.list_namespaced_service(NS, label_selector="")
        stored = {s.metadata.name: s.spec.cluster_ip for s in listed.items
                  if s.metadata.name.startswith("race-")}
        self.assertEqual(len(stored), n)
        self.assertEqual(len(set(stored.values())), n)
        # The dynamic band is 10.96.1.1 and up (offset 256 of 10.96.0.0/12).
        self.assertFalse(any(ip.startswith("10.96.0.") for ip in ips))


class Repair(unittest.TestCase):
    """Restarts: allocations survive; an emptied allocation state is rebuilt with Events."""

    def setUp(self):
        self.srv = harness.Server()
        self.srv.start()

    def tearDown(self):
        self.srv.cleanup()

    def kubectl(self, *args, **kw):
        return self.srv.kubectl(KUBECTL, *args, **kw)

    def events_for(self, name):
        evs = self.srv.kubectl_json(KUBECTL, "get", "events")["items"]
        return sorted((e["reason"], e["message"], e["source"]["component"], e["type"])
                      for e in evs if e["involvedObject"]["name"] == name)

    def test_restart_keeps_allocations_and_repair_rebuilds_them(self):
        create(self.srv, "keep", cluster_ip="10.96.0.50")
        create(self.srv, "keep-np", svc_type="NodePort", node_port=30500)
        ip = self.srv.kubectl_json(KUBECTL, "get", "service", "keep-np")["spec"]["clusterIP"]
        # A plain restart keeps the allocation maps (they are in the store).
        self.srv.restart()
        p = create(self.srv, "dup", cluster_ip="10.96.0.50", check=False)
        self.assertIn("provided IP is already allocated", p.stderr)
        self.assertEqual(self.events_for("keep"), [])
        # Corrupt the state: restart with the stored maps emptied. The start-up repair pass
        # rebuilds them from the Services and reports each as not allocated.
        self.srv.stop()
        self.srv.extra_args = ["--debug-reset-allocations"]
        self.srv.start()
        self.assertEqual(self.events_for("keep"), [
            ("ClusterIPNotAllocated", "Cluster IP 10.96.0.50 is not allocated; repairing",
             "ipallocator-repair-controller", "Warning")])
        self.assertEqual(self.events_for("keep-np"), [
            ("ClusterIPNotAllocated", "Cluster IP %s is not allocated; repairing" % ip,
             "ipallocator-repair-controller", "Warning"),
            ("PortNotAllocated", "Port 30500 is not allocated; repairing",
             "portallocator-repair-controller", "Warning")])
        p = create(self.srv, "dup", cluster_ip="10.96.0.50", check=False)
        self.assertIn("provided IP is already allocated", p.stderr)
        p = create(self.srv, "dup-np", svc_type="NodePort", node_port=30500, check=False)
        self.assertIn("provided port is already allocated", p.stderr)
        p = create(self.srv, "dup2", cluster_ip="10.96.0.1", check=False)
        self.assertIn("provided IP is already allocated", p.stderr)  # the kubernetes Service's

    def test_shutdown_removes_own_endpoint(self):
        ep = self.srv.kubectl_json(KUBECTL, "get", "endpoints", "kubernetes")
        self.assertEqual(len(ep["subsets"][0]["addresses"]), 1)
        self.srv.stop()
        # Restart with a listener that cannot be advertised in this family: the address the
        # previous run left must be gone (removed at shutdown, not by lease expiry).
        self.srv.extra_args = ["--advertise-address", "fd00::1"]
        self.srv.start()
        ep = self.srv.kubectl_json(KUBECTL, "get", "endpoints", "kubernetes")
        self.assertEqual(ep.get("subsets", []), [])


if __name__ == "__main__":
    unittest.main()
