"""The kubelet stand-in of `svcplane serve --simulate-nodes` behaves as rollouts need it to
(issue 24, spec workloads.md §5 "Kubelet stand-in requirements"):

- a Pod bound to a simulated node first shows its containers being created (phase Pending,
  podIP, containers waiting with ContainerCreating, Ready False / ContainersNotReady), then runs
  and is Ready, with Ready's lastTransitionTime set when it turned True;
- `sim.svcplane.io/ready-after: never` keeps a Pod from ever becoming Ready (a stuck rollout);
- `kubectl delete pod` of a Ready Pod behind a Service: until the Pod object is gone, its
  endpoint stays in the EndpointSlice with ready=false, serving=true, terminating=true (the Pod
  itself stays Running and Ready), the Endpoints object no longer lists it as ready, and the
  node's kubelet reports a `Killing` event ("Stopping container <name>");
- a Pod on no node is deleted by the API server at once.

The delays are stretched by the --simulate-pod-* flags so each stage is long enough to see.
"""

import json
import time
import unittest

from kubernetes import client

import harness

KUBECTL = "1.33"
NS = "default"
CREATE_S, READY_S, TERMINATE_S = 1, 3, 6

POD = """apiVersion: v1
kind: Pod
metadata:
  name: %(name)s
  labels:
    app: web
  annotations: %(annotations)s
spec:
  containers:
  - name: web
    image: nginx:1.25
    ports:
    - containerPort: 8080
"""


def condition(pod, kind):
    for c in pod.status.conditions or []:
        if c.type == kind:
            return c
    return None


def is_ready(pod):
    c = condition(pod, "Ready")
    return c is not None and c.status == "True"


def stage(pod):
    """Where a Pod is, as this test names the stand-in's stages."""
    if pod is None:
        return "gone"
    if not pod.spec.node_name:
        return "unbound"
    if not pod.status.pod_ip:
        return "bound"
    statuses = pod.status.container_statuses or []
    creating = statuses and all(s.state.waiting is not None and
                                s.state.waiting.reason == "ContainerCreating" for s in statuses)
    if pod.status.phase == "Pending" and creating and not is_ready(pod):
        return "creating"
    if pod.status.phase == "Running":
        return "ready" if is_ready(pod) else "running-not-ready"
    return "other(%s)" % pod.status.phase


class SimulatedKubeletRollout(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.srv = harness.Server([
            "--simulate-nodes", "3",
            "--simulate-pod-create-delay", "%ds" % CREATE_S,
            "--simulate-pod-ready-delay", "%ds" % READY_S,
            "--simulate-pod-terminate-delay", "%ds" % TERMINATE_S])
        cls.srv.start()
        cls.api = cls.srv.api_client()
        cls.core = client.CoreV1Api(cls.api)
        cls.discovery = client.DiscoveryV1Api(cls.api)

    @classmethod
    def tearDownClass(cls):
        cls.api.close()
        cls.srv.cleanup()

    def kubectl(self, *args, **kw):
        return self.srv.kubectl(KUBECTL, *args, **kw)

    def create_pod(self, name, annotations=None):
        self.kubectl("apply", "-f", "-", input=POD % {
            "name": name, "annotations": json.dumps(annotations or {})})

    def pod(self, name):
        try:
            return self.core.read_namespaced_pod(name, NS)
        except client.exceptions.ApiException as e:
            if e.status == 404:
                return None
            raise

    def stages_until(self, name, last, timeout=60.0, on_stage=None):
        seen = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            p = self.pod(name)
            s = stage(p)
            if not seen or seen[-1] != s:
                seen.append(s)
                if on_stage:
                    on_stage(s, p)
            if s == last:
                return seen
            time.sleep(0.1)
        self.fail("%s never reached %s: %s%s" % (name, last, seen, self.srv.died()))

    def table_status(self, name):
        """The STATUS column of `kubectl get pod` (the server's Table)."""
        out = self.kubectl("get", "pod", name, "--no-headers").stdout.split()
        return out[1], out[2]  # READY, STATUS

    def test_1_bound_pod_is_container_creating_then_running_and_ready(self):
        creating = {}
        tables = []

        def look(s, p):
            if s == "creating":
                creating["pod"] = p
                tables.append(self.table_status("web-1"))
        t0 = time.monotonic()
        self.create_pod("web-1")
        seen = self.stages_until("web-1", "ready", on_stage=look)
        took = time.monotonic() - t0
        print("\nweb-1: %s in %.1fs" % (" -> ".join(seen), took))
        self.assertEqual(seen[-2:], ["creating", "ready"], seen)
        self.assertTrue(set(seen) <= {"unbound", "bound", "creating", "ready"}, seen)
        self.assertGreaterEqual(took, CREATE_S + READY_S - 0.5)

        # The create stage, as looked at again (the first sighting is kept by look()).
        p = self.pod("web-1")
        pending = self.wait_for_recorded(creating, "pod")
        self.assertEqual(pending.status.phase, "Pending")
        self.assertIsNotNone(pending.status.start_time)
        self.assertEqual(pending.status.pod_ip, p.status.pod_ip)
        self.assertEqual(pending.status.host_ip, p.status.host_ip)
        self.assertEqual(condition(pending, "PodScheduled").status, "True")
        self.assertEqual(condition(pending, "Initialized").status, "True")
        for kind in ("Ready", "ContainersReady"):
            c = condition(pending, kind)
            self.assertEqual((c.status, c.reason, c.message),
                             ("False", "ContainersNotReady",
                              "containers with unready status: [web]"), kind)
        cs = pending.status.container_statuses[0]
        self.assertEqual((cs.name, cs.ready, cs.started, cs.state.waiting.reason),
                         ("web", False, False, "ContainerCreating"))
        # `kubectl get pod` said so too (if the stage was still on when it looked).
        for ready, status in tables:
            self.assertIn((ready, status), {("0/1", "ContainerCreating"), ("1/1", "Running")})

        # Running and Ready, Ready since it turned True (not since the create stage).
        self.assertEqual(p.status.phase, "Running")
        ready = condition(p, "Ready")
        self.assertEqual(ready.status, "True")
        self.assertGreaterEqual(ready.last_transition_time,
                                condition(pending, "Ready").last_transition_time)
        self.assertGreaterEqual((ready.last_transition_time - p.status.start_time)
                                .total_seconds(), READY_S - 1)
        cs = p.status.container_statuses[0]
        self.assertTrue(cs.ready and cs.started and cs.state.running is not None)
        self.assertEqual(self.table_status("web-1"), ("1/1", "Running"))

    def wait_for_recorded(self, d, key):
        self.assertIn(key, d, "the create stage was never seen")
        return d[key]

    def test_2_ready_after_never_keeps_a_pod_not_ready(self):
        self.create_pod("stuck", {"sim.svcplane.io/ready-after": "never"})
        seen = self.stages_until("stuck", "running-not-ready")
        self.assertIn("creating", seen)
        time.sleep(READY_S + 1)
        p = self.pod("stuck")
        self.assertEqual(stage(p), "running-not-ready")
        c = condition(p, "ContainersReady")
        self.assertEqual((c.status, c.reason), ("False", "ContainersNotReady"))
        self.assertEqual(self.table_status("stuck"), ("0/1", "Running"))
        self.kubectl("delete", "pod", "stuck", "--wait=false")

    def slice_endpoint(self, name):
        slices = self.discovery.list_namespaced_endpoint_slice(
            NS, label_selector="kubernetes.io/service-name=web").items
        for s in slices:
            for e in s.endpoints or []:
                if e.target_ref is not None and e.target_ref.name == name:
                    return e
        return None

    def test_3_deleted_ready_pod_serves_and_terminates_until_gone(self):
        self.kubectl("create", "service", "clusterip", "web", "--tcp=80:8080")
        if self.pod("web-1") is None:
            self.create_pod("web-1")
        self.stages_until("web-1", "ready")
        node = self.pod("web-1").spec.node_name
        uid = self.pod("web-1").metadata.uid

        def ready_endpoint():
            e = self.slice_endpoint("web-1")
            return e is not None and e.conditions.ready is True
        deadline = time.monotonic() + 30
        while not ready_endpoint() and time.monotonic() < deadline:
            time.sleep(0.2)
        self.assertTrue(ready_endpoint(), "web-1 never a ready endpoint")

        t0 = time.monotonic()
        self.kubectl("delete", "pod", "web-1", "--wait=false")
        observed = []   # (ready, serving, terminating) of web-1's endpoint while the pod exists
        pod_states = set()
        table = set()
        in_endpoints = []  # whether Endpoints lists web-1 as a (ready) address, each look
        while time.monotonic() < t0 + TERMINATE_S + 30:
            p = self.pod("web-1")
            if p is None:
                break
            self.assertIsNotNone(p.metadata.deletion_timestamp)
            pod_states.add((p.status.phase, is_ready(p)))
            e = self.slice_endpoint("web-1")
            if e is not None:
                c = e.conditions
                observed.append((c.ready, c.serving, c.terminating))
            ep = self.core.read_namespaced_endpoints("web", NS)
            addrs = [a.target_ref.name for s in ep.subsets or [] for a in s.addresses or []
                     if a.target_ref is not None]
            in_endpoints.append("web-1" in addrs)
            if len(table) < 1:
                table.add(self.table_status("web-1")[1])
            time.sleep(0.2)
        gone_after = time.monotonic() - t0
        print("\nweb-1 gone %.1fs after kubectl delete; endpoint states: %s"
              % (gone_after, sorted(set(observed))))
        self.assertIsNone(self.pod("web-1"), "still there after the termination delay")
        # The Pod stayed Running and Ready until deleted, for about the termination delay.
        self.assertEqual(pod_states, {("Running", True)})
        self.assertGreaterEqual(gone_after, TERMINATE_S - 1)
        self.assertEqual(table, {"Terminating"})
        # Serving and terminating in its slice until the Pod object was gone (after the slice
        # controller caught up with the deletionTimestamp).
        self.assertIn((False, True, True), observed)
        first = observed.index((False, True, True))
        self.assertEqual(set(observed[first:]), {(False, True, True)}, observed)
        # Endpoints drops a terminating Pod at once (and does not take it back).
        self.assertIn(False, in_endpoints)
        self.assertNotIn(True, in_endpoints[in_endpoints.index(False):], in_endpoints)

        def endpoint_left():
            return self.slice_endpoint("web-1") is None
        deadline = time.monotonic() + 30
        while not endpoint_left() and time.monotonic() < deadline:
            time.sleep(0.2)
        self.assertTrue(endpoint_left(), "web-1 still in the slice after it was deleted")

        events = self.srv.kubectl_json(KUBECTL, "get", "events", "-n", NS)["items"]
        killing = [e for e in events if e["reason"] == "Killing" and
                   e["involvedObject"].get("uid") == uid]
        self.assertEqual(len(killing), 1, events)
        k = killing[0]
        self.assertEqual(k["type"], "Normal")
        self.assertEqual(k["message"], "Stopping container web")
        self.assertEqual(k["source"], {"component": "kubelet", "host": node})
        self.assertEqual(k["reportingComponent"], "kubelet")
        self.assertEqual(k["reportingInstance"], node)
        self.assertEqual(k["involvedObject"]["kind"], "Pod")
        self.assertEqual(k["involvedObject"]["name"], "web-1")
        self.assertEqual(k["involvedObject"]["fieldPath"], "spec.containers{web}")

    def test_4_pod_on_no_node_is_deleted_at_once(self):
        manifest = POD % {"name": "nowhere", "annotations": "{}"}
        manifest = manifest.replace("spec:\n", "spec:\n  schedulerName: not-ours\n")
        self.kubectl("apply", "-f", "-", input=manifest)
        time.sleep(1)
        self.assertEqual(stage(self.pod("nowhere")), "unbound")
        # No grace period for a Pod without containers: gone as soon as the DELETE returns.
        self.kubectl("delete", "pod", "nowhere", "--wait=false")
        self.assertIsNone(self.pod("nowhere"))


if __name__ == "__main__":
    unittest.main()
