"""The ReplicaSet controller (issue 24, spec workloads.md §2, §7 scenarios 4, 28-31) in the real
`svcplane serve` with two simulated nodes whose kubelet stand-in makes Pods Running and Ready.

kubectl 1.33 (protobuf) and 1.27 (JSON) create ReplicaSets; the controller creates Pods named
`<rs>-xxxxx` (generateName) with a controller ownerReference, the status counts them ready and
available, `kubectl scale rs` moves the count both ways, an orphan matching the selector is
adopted (and the surplus deleted), a relabelled Pod is released and replaced, a deleted Pod is
replaced, `kubectl delete rs` cascades through the garbage collector, `kubectl describe rs`
shows the SuccessfulCreate events, and the Python client's AppsV1Api creates and reads
/status. The audit log shows the controller writing as its upstream ServiceAccount.
"""

import json
import os
import re
import tempfile
import time
import unittest

from kubernetes import client

import harness

NS = "rs"
SA_USER = "system:serviceaccount:kube-system:replicaset-controller"
POD_NAME = re.compile(r"^%s-[bcdfghjklmnpqrstvwxz2456789]{5}$")
POLICY = """apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: None
  nonResourceURLs: ["/healthz*", "/livez*", "/readyz*"]
- level: Metadata
  resources: [{group: "", resources: ["pods"]},
              {group: "apps", resources: ["replicasets", "replicasets/status"]}]
- level: None
"""


def manifest(name, replicas, labels=None, min_ready=0):
    labels = labels or {"app": name}
    return json.dumps({
        "apiVersion": "apps/v1", "kind": "ReplicaSet",
        "metadata": {"name": name, "namespace": NS},
        "spec": {"replicas": replicas, "minReadySeconds": min_ready,
                 "selector": {"matchLabels": labels},
                 "template": {"metadata": {"labels": labels},
                              "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}})


def is_ready(pod):
    for c in pod.get("status", {}).get("conditions") or []:
        if c["type"] == "Ready":
            return c["status"] == "True"
    return False


class ReplicaSetControllerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        fd, cls.policy = tempfile.mkstemp(prefix="audit-policy-", suffix=".yaml")
        with os.fdopen(fd, "w") as f:
            f.write(POLICY)
        cls.audit = tempfile.mktemp(prefix="svcplane-rs-audit-", suffix=".log")
        cls.srv = harness.Server(["--simulate-nodes", "2", "--audit-policy-file", cls.policy,
                                  "--audit-log-path", cls.audit])
        try:
            cls.srv.start()
            cls.api = cls.srv.api_client()
            cls.srv.kubectl("1.33", "create", "namespace", NS)
        except BaseException:
            cls.srv.cleanup()
            raise

    @classmethod
    def tearDownClass(cls):
        cls.srv.cleanup()
        for p in (cls.policy, cls.audit):
            if os.path.exists(p):
                os.remove(p)

    def kubectl(self, *args, version="1.33", **kw):
        return self.srv.kubectl(version, "-n", NS, *args, **kw)

    def eventually(self, fn, timeout=60, what=""):
        deadline = time.monotonic() + timeout
        last = None
        while True:
            last = fn()
            if last:
                return last
            if time.monotonic() > deadline:
                self.fail("timed out waiting for %s%s" % (what, self.srv.died()))
            time.sleep(0.2)

    def rs(self, name):
        return json.loads(self.kubectl("get", "rs", name, "-o", "json").stdout)

    def pods(self, selector):
        p = self.kubectl("get", "pods", "-l", selector, "-o", "json")
        return json.loads(p.stdout)["items"]

    def active_pods(self, selector):
        return [p for p in self.pods(selector)
                if not p["metadata"].get("deletionTimestamp") and
                p.get("status", {}).get("phase") not in ("Succeeded", "Failed")]

    def create(self, name, replicas, version="1.33", **kw):
        p = self.kubectl("apply", "-f", "-", version=version, input=manifest(name, replicas, **kw))
        self.assertEqual(p.returncode, 0, p.stderr)
        return self.rs(name)

    def wait_settled(self, name, replicas, selector=None):
        """Until `replicas` active owned pods exist and the status says they are ready and
        available for the current generation."""
        selector = selector or "app=" + name

        def settled():
            rs = self.rs(name)
            st = rs.get("status", {})
            pods = self.active_pods(selector)
            if len(pods) != replicas:
                return None
            if (st.get("replicas") == replicas and st.get("readyReplicas", 0) == replicas and
                    st.get("availableReplicas", 0) == replicas and
                    st.get("observedGeneration") == rs["metadata"]["generation"]):
                return rs, pods
            return None
        return self.eventually(settled, what="%s settled at %d" % (name, replicas))

    def owner_of(self, pod):
        refs = [r for r in pod["metadata"].get("ownerReferences") or [] if r.get("controller")]
        return refs[0] if refs else None

    def test_create_with_kubectl_133_pods_owned_ready_events(self):
        rs = self.create("web133", 3)
        rs, pods = self.wait_settled("web133", 3)
        st = rs["status"]
        self.assertEqual(st["fullyLabeledReplicas"], 3)
        self.assertEqual(st["observedGeneration"], 1)
        self.assertNotIn("conditions", st)
        for p in pods:
            self.assertRegex(p["metadata"]["name"], POD_NAME.pattern % "web133")
            self.assertEqual(p["metadata"]["generateName"], "web133-")
            self.assertEqual(p["metadata"]["ownerReferences"], [{
                "apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web133",
                "uid": rs["metadata"]["uid"], "controller": True, "blockOwnerDeletion": True}])
            self.assertTrue(is_ready(p))
            self.assertTrue(p["spec"]["nodeName"])
        # kubectl describe rs lists the events of the ReplicaSet.
        out = self.kubectl("describe", "rs", "web133").stdout
        self.assertIn("Pods Status:  3 Running / 0 Waiting / 0 Succeeded / 0 Failed", out)
        created = re.findall(r"Normal\s+SuccessfulCreate\s+\S+\s+replicaset-controller\s+"
                             r"Created pod: (web133-\w{5})", out)
        self.assertEqual(sorted(created), sorted(p["metadata"]["name"] for p in pods), out)
        # The table: NAME DESIRED CURRENT READY AGE.
        row = self.kubectl("get", "rs", "web133", "--no-headers").stdout.split()
        self.assertEqual(row[:4], ["web133", "3", "3", "3"])
        # Written as its upstream ServiceAccount.
        with open(self.audit) as f:
            entries = [json.loads(line) for line in f if line.strip()]
        creates = [e for e in entries if e["verb"] == "create" and
                   e.get("objectRef", {}).get("resource") == "pods" and
                   e["objectRef"].get("namespace") == NS and e.get("stage") == "ResponseComplete"]
        self.assertTrue(creates)
        self.assertEqual({e["user"]["username"] for e in creates}, {SA_USER})
        statuses = [e for e in entries if e.get("objectRef", {}).get("subresource") == "status" and
                    e["objectRef"].get("resource") == "replicasets"]
        self.assertTrue(statuses)
        self.assertEqual({e["user"]["username"] for e in statuses}, {SA_USER})
        self.assertEqual({e["responseStatus"]["code"] for e in creates}, {201})
        # 409: a write from a cache that had not seen our previous status write yet (then GET
        # and one retry, as upstream); never refused.
        self.assertIn(200, {e["responseStatus"]["code"] for e in statuses})
        self.assertLessEqual({e["responseStatus"]["code"] for e in statuses}, {200, 409})

    def test_scale_with_kubectl_127_up_and_down(self):
        self.create("web127", 2, version="1.27")
        self.wait_settled("web127", 2)
        p = self.kubectl("scale", "rs", "web127", "--replicas=5", version="1.27")
        self.assertIn("replicaset.apps/web127 scaled", p.stdout)
        rs, pods = self.wait_settled("web127", 5)
        self.assertEqual(rs["metadata"]["generation"], 2)
        self.kubectl("scale", "rs", "web127", "--replicas=1", version="1.33")
        rs, pods = self.wait_settled("web127", 1)
        self.assertEqual(rs["status"]["observedGeneration"], 3)
        out = self.kubectl("describe", "rs", "web127").stdout
        self.assertEqual(len(re.findall(r"SuccessfulDelete .*Deleted pod: web127-", out)), 4, out)
        # Scaling to zero leaves no pod.
        self.kubectl("scale", "rs", "web127", "--replicas=0")
        self.wait_settled("web127", 0)

    def test_scale_down_takes_the_lowest_deletion_cost_first(self):
        # §7 scenario 28: among equal Ready pods, pod-deletion-cost "-100" goes first.
        self.create("cost", 3)
        _, pods = self.wait_settled("cost", 3)
        cheap = pods[1]["metadata"]["name"]
        self.kubectl("annotate", "pod", cheap, "controller.kubernetes.io/pod-deletion-cost=-100")
        self.kubectl("scale", "rs", "cost", "--replicas=2")
        _, pods = self.wait_settled("cost", 2)
        self.assertNotIn(cheap, [p["metadata"]["name"] for p in pods])
        out = self.kubectl("describe", "rs", "cost").stdout
        self.assertIn("Deleted pod: " + cheap, out)

    def test_orphan_is_adopted_and_surplus_deleted(self):
        rs = self.create("adopt", 2)
        self.wait_settled("adopt", 2)
        orphan = {"apiVersion": "v1", "kind": "Pod",
                  "metadata": {"name": "adopt-orphan", "namespace": NS,
                               "labels": {"app": "adopt"}},
                  "spec": {"containers": [{"name": "c", "image": "nginx"}]}}
        self.kubectl("apply", "-f", "-", input=json.dumps(orphan))
        # Adopted at once (the orphan is not ready yet, so it is the one deleted, or another
        # not-ready one): 2 active pods again, every one owned by the ReplicaSet.
        rs, pods = self.wait_settled("adopt", 2)
        for p in pods:
            self.assertEqual(self.owner_of(p)["uid"], rs["metadata"]["uid"])
        with open(self.audit) as f:
            patches = [json.loads(line) for line in f if '"adopt-orphan"' in line]
        self.assertTrue(any(e["verb"] == "patch" and e["user"]["username"] == SA_USER
                            for e in patches), patches)
        out = self.kubectl("describe", "rs", "adopt").stdout
        self.assertIn("SuccessfulDelete", out)

    def test_relabelled_pod_is_released_and_replaced(self):
        rs = self.create("release", 2)
        _, pods = self.wait_settled("release", 2)
        victim = pods[0]["metadata"]["name"]
        self.kubectl("label", "pod", victim, "app=other", "--overwrite")

        def released():
            p = json.loads(self.kubectl("get", "pod", victim, "-o", "json").stdout)
            return p if not p["metadata"].get("ownerReferences") else None
        p = self.eventually(released, what="the relabelled pod released")
        self.assertFalse(p["metadata"].get("deletionTimestamp"))
        _, pods = self.wait_settled("release", 2)
        self.assertNotIn(victim, [q["metadata"]["name"] for q in pods])
        for q in pods:
            self.assertEqual(self.owner_of(q)["uid"], rs["metadata"]["uid"])
        # The released pod keeps running, unowned.
        time.sleep(1)
        p = json.loads(self.kubectl("get", "pod", victim, "-o", "json").stdout)
        self.assertFalse(p["metadata"].get("deletionTimestamp"))
        self.assertNotIn("ownerReferences", p["metadata"])

    def test_deleted_pod_is_replaced_and_delete_rs_cascades(self):
        self.create("cascade", 3)
        _, pods = self.wait_settled("cascade", 3)
        gone = pods[0]["metadata"]["name"]
        self.kubectl("delete", "pod", gone, "--wait=false")
        _, pods = self.wait_settled("cascade", 3)
        self.assertNotIn(gone, [p["metadata"]["name"] for p in pods])
        p = self.kubectl("delete", "rs", "cascade")
        self.assertIn('replicaset.apps "cascade" deleted', p.stdout)
        self.eventually(lambda: not self.pods("app=cascade"), timeout=90,
                        what="the garbage collector removing cascade's pods")

    def test_python_client_create_and_read_status(self):
        apps = client.AppsV1Api(self.api)
        body = client.V1ReplicaSet(
            metadata=client.V1ObjectMeta(name="py"),
            spec=client.V1ReplicaSetSpec(
                replicas=2, min_ready_seconds=2,
                selector=client.V1LabelSelector(match_labels={"app": "py"}),
                template=client.V1PodTemplateSpec(
                    metadata=client.V1ObjectMeta(labels={"app": "py"}),
                    spec=client.V1PodSpec(containers=[client.V1Container(name="c",
                                                                         image="nginx")]))))
        created = apps.create_namespaced_replica_set(NS, body)
        self.assertEqual(created.status.replicas, 0)

        def ready_then_available():
            st = apps.read_namespaced_replica_set_status("py", NS).status
            return st if st.ready_replicas == 2 else None
        st = self.eventually(ready_then_available, what="py ready")
        # minReadySeconds 2: ready before available; the controller requeues to count them.
        def available():
            st = apps.read_namespaced_replica_set_status("py", NS).status
            return st if st.available_replicas == 2 else None
        st = self.eventually(available, what="py available")
        self.assertEqual(st.replicas, 2)
        self.assertEqual(st.fully_labeled_replicas, 2)
        self.assertEqual(st.observed_generation, 1)


if __name__ == "__main__":
    unittest.main()
