"""Endpoints, EndpointSlice and mirroring controllers inside `svcplane serve` (issue 6).

Pods get their status through the status subresource (podIP(s), Ready, deletionTimestamp for
terminating), as a kubelet would; results are read with `kubectl get -o json`.

The server runs with dual-stack service ranges; single-stack Services are unaffected.
"""

import json
import time
import unittest

from kubernetes import client

import harness

NS = "default"
KUBECTL = "1.33"
WAIT = 60.0


def wait_for(fn, timeout=WAIT, interval=0.2):
    """Polls fn() until it returns a truthy value; returns the last value."""
    deadline = time.time() + timeout
    value = fn()
    while not value and time.time() < deadline:
        time.sleep(interval)
        value = fn()
    return value


class Controllers(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # Dual-stack service ranges, so RequireDualStack Services get both families.
        cls.srv, cls.api = harness.start_with_client(
            extra_args=["--service-cluster-ip-range", "10.96.0.0/12,fd00:10:96::/112"])
        cls.core = client.CoreV1Api(cls.api)
        for name, zone in (("node-a", "zone-a"), ("node-b", "zone-b")):
            cls.core.create_node(client.V1Node(metadata=client.V1ObjectMeta(
                name=name, labels={"topology.kubernetes.io/zone": zone})))

    @classmethod
    def tearDownClass(cls):
        cls.srv.cleanup()

    # --- helpers ---------------------------------------------------------------------------

    def service(self, name, selector, **spec):
        ports = spec.pop("ports", [client.V1ServicePort(name="http", port=80, target_port=8080)])
        self.core.create_namespaced_service(NS, client.V1Service(
            metadata=client.V1ObjectMeta(name=name),
            spec=client.V1ServiceSpec(selector=selector, ports=ports, **spec)))

    def pod(self, name, app, ip, ready=True, node="node-a", ips=None):
        self.core.create_namespaced_pod(NS, client.V1Pod(
            metadata=client.V1ObjectMeta(name=name, labels={"app": app}),
            spec=client.V1PodSpec(node_name=node, containers=[client.V1Container(
                name="c", image="nginx:1.25",
                ports=[client.V1ContainerPort(name="http", container_port=8080)])])))
        self.set_status(name, ip, ready, ips)

    def set_status(self, name, ip, ready, ips=None):
        pod = self.core.read_namespaced_pod(name, NS)
        pod.status = client.V1PodStatus(
            phase="Running", pod_ip=ip,
            pod_i_ps=[client.V1PodIP(ip=i) for i in (ips or [ip])],
            conditions=[client.V1PodCondition(type="Ready", status="True" if ready else "False")])
        self.core.replace_namespaced_pod_status(name, NS, pod)

    def slices(self, service):
        out = self.srv.kubectl_json(KUBECTL, "get", "endpointslices.discovery.k8s.io", "-n", NS,
                                    "-l", "kubernetes.io/service-name=" + service)
        return out["items"]

    def endpoints(self, name):
        p = self.srv.kubectl(KUBECTL, "get", "endpoints", name, "-n", NS, "-o", "json",
                             check=False)
        return json.loads(p.stdout) if p.returncode == 0 else None

    @staticmethod
    def count(slices, ready_only=False):
        return sum(1 for s in slices for e in s.get("endpoints") or []
                   if not ready_only or e["conditions"].get("ready"))

    # --- tests -----------------------------------------------------------------------------

    def test_service_with_pods(self):
        self.service("web", {"app": "web"})
        self.pod("web-0", "web", "10.0.0.1")
        self.pod("web-1", "web", "10.0.0.2", ready=False, node="node-b")
        slices = wait_for(lambda: [s for s in self.slices("web") if self.count([s]) == 2])
        self.assertEqual(len(slices), 1, self.srv.log_tail())
        s = slices[0]
        self.assertEqual(s["addressType"], "IPv4")
        self.assertEqual(s["metadata"]["labels"]["endpointslice.kubernetes.io/managed-by"],
                         "endpointslice-controller.k8s.io")
        self.assertEqual(s["metadata"]["ownerReferences"][0]["kind"], "Service")
        self.assertEqual(s["ports"], [{"name": "http", "port": 8080, "protocol": "TCP"}])
        by_pod = {e["targetRef"]["name"]: e for e in s["endpoints"]}
        self.assertEqual(by_pod["web-0"]["conditions"],
                         {"ready": True, "serving": True, "terminating": False})
        self.assertEqual(by_pod["web-0"]["zone"], "zone-a")
        self.assertEqual(by_pod["web-1"]["nodeName"], "node-b")
        self.assertFalse(by_pod["web-1"]["conditions"]["ready"])

        ep = wait_for(lambda: self.endpoints("web"))
        subset = ep["subsets"][0]
        self.assertEqual([a["ip"] for a in subset["addresses"]], ["10.0.0.1"])
        self.assertEqual([a["ip"] for a in subset["notReadyAddresses"]], ["10.0.0.2"])
        self.assertEqual(subset["ports"], [{"name": "http", "port": 8080, "protocol": "TCP"}])

        # Terminating: a graceful delete keeps the endpoint with terminating=true.
        self.core.delete_namespaced_pod("web-0", NS)
        self.assertTrue(wait_for(lambda: any(
            e["targetRef"]["name"] == "web-0" and e["conditions"]["terminating"]
            for s in self.slices("web") for e in s.get("endpoints") or [])))

    def test_dual_stack_service_gets_one_slice_per_family(self):
        self.service("dual", {"app": "dual"}, ip_family_policy="RequireDualStack")
        svc = self.core.read_namespaced_service("dual", NS)
        self.assertEqual(svc.spec.ip_families, ["IPv4", "IPv6"])
        self.assertEqual(len(svc.spec.cluster_i_ps), 2)
        self.pod("dual-0", "dual", "10.2.0.1", ips=["10.2.0.1", "fd00:10:244::1"])
        slices = wait_for(lambda: (lambda s: s if len(s) == 2 and self.count(s) == 2 else None)(
            self.slices("dual")))
        self.assertTrue(slices, self.srv.log_tail())
        by_type = {s["addressType"]: s for s in slices}
        self.assertEqual(sorted(by_type), ["IPv4", "IPv6"])
        self.assertEqual(by_type["IPv4"]["endpoints"][0]["addresses"], ["10.2.0.1"])
        self.assertEqual(by_type["IPv6"]["endpoints"][0]["addresses"], ["fd00:10:244::1"])
        # The Endpoints API lists the primary family only, as upstream.
        ep = wait_for(lambda: self.endpoints("dual"))
        self.assertEqual([a["ip"] for a in ep["subsets"][0]["addresses"]], ["10.2.0.1"])

    def test_250_pods_make_3_slices_and_deleting_the_service_removes_them(self):
        self.service("big", {"app": "big"})
        for i in range(250):
            self.pod("big-%d" % i, "big", "10.1.%d.%d" % (i // 250, i % 250))
        slices = wait_for(lambda: (lambda s: s if len(s) == 3 and self.count(s) == 250 else None)(
            self.slices("big")))
        self.assertTrue(slices, self.srv.log_tail())
        self.assertEqual(sorted(len(s["endpoints"]) for s in slices), [50, 100, 100])
        self.core.delete_namespaced_service("big", NS)
        self.assertTrue(wait_for(lambda: not self.slices("big")))
        self.assertTrue(wait_for(lambda: self.endpoints("big") is None))

    def test_1001_pods_truncate_endpoints(self):
        self.service("many", {"app": "many"})
        for i in range(1001):
            self.pod("many-%d" % i, "many", "10.2.%d.%d" % (i // 250, i % 250))
        # Wait for the annotation too: while only 1000 Pods exist the Endpoints hold all 1000
        # addresses without being over capacity, which is not the state under test.
        ep = wait_for(lambda: (lambda e: e if e and sum(
            len(s.get("addresses", [])) for s in e.get("subsets") or []) == 1000 and
            "endpoints.kubernetes.io/over-capacity" in (e["metadata"].get("annotations") or {})
            else None)(self.endpoints("many")), timeout=120)
        self.assertTrue(ep, self.srv.log_tail())
        self.assertEqual(ep["metadata"]["annotations"]["endpoints.kubernetes.io/over-capacity"],
                         "truncated")
        self.assertTrue(wait_for(lambda: self.count(self.slices("many")) == 1001, timeout=120))

    def test_selectorless_service_is_mirrored(self):
        self.service("ext", None)
        self.core.create_namespaced_endpoints(NS, client.V1Endpoints(
            metadata=client.V1ObjectMeta(name="ext", labels={"team": "a"}),
            subsets=[client.V1EndpointSubset(
                addresses=[client.V1EndpointAddress(ip="192.0.2.10")],
                ports=[client.CoreV1EndpointPort(name="http", port=9000)])]))
        slices = wait_for(lambda: self.slices("ext"))
        self.assertEqual(len(slices), 1, self.srv.log_tail())
        s = slices[0]
        self.assertEqual(s["metadata"]["labels"]["endpointslice.kubernetes.io/managed-by"],
                         "endpointslicemirroring-controller.k8s.io")
        self.assertEqual(s["metadata"]["labels"]["team"], "a")
        self.assertEqual(s["metadata"]["ownerReferences"][0]["kind"], "Endpoints")
        self.assertEqual(s["endpoints"][0]["addresses"], ["192.0.2.10"])
        # The user's Endpoints are left alone by the Endpoints controller.
        self.assertEqual(self.endpoints("ext")["subsets"][0]["addresses"][0]["ip"], "192.0.2.10")


if __name__ == "__main__":
    unittest.main()
