"""Deployments end to end (issue 24, spec workloads.md §3-§5, §7): the real binary with its
simulated nodes, the ReplicaSet and Deployment controllers in-process, driven by kubectl 1.27
and 1.33 and by the Python client's AppsV1Api.

Each kubectl version gets its own namespace and walks a Deployment through what a user does:
create, rollout status, expose, scale, set image (a rolling update), rollout history, undo,
pause/resume, restart, describe and a cascading delete. Assertions are on what the user sees
(kubectl's output and exit codes) and on the objects the controllers write (ReplicaSets with
pod-template-hash and revision annotations, owner references, Pods, EndpointSlices).
"""

import json
import os
import re
import subprocess
import time
import unittest

import harness

VERSIONS = ("1.27", "1.33")
ROLLOUT_TIMEOUT = 90


def ns_for(version):
    return "wl-" + version.replace(".", "")


def wait_for(what, fn, timeout=60, interval=0.2):
    """Polls fn() until it returns a truthy value; fails with the last value seen."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = fn()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError("timed out waiting for %s; last: %r" % (what, last))


class DeploymentsEndToEndTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.srv, cls.api = harness.start_with_client(["--simulate-nodes", "3"])
        for v in VERSIONS:
            cls.srv.kubectl("1.33", "create", "namespace", ns_for(v))
        cls.srv.kubectl("1.33", "create", "namespace", "wl-py")

    @classmethod
    def tearDownClass(cls):
        cls.srv.cleanup()

    # --- helpers ----------------------------------------------------------------------------

    def kubectl(self, version, *args, **kw):
        return self.srv.kubectl(version, *args, **kw)

    def get_json(self, path):
        r = harness.raw_request(self.api, "GET", path)
        self.assertEqual(r.status, 200, r.data)
        return json.loads(r.data)

    def deployment(self, ns, name):
        return self.get_json("/apis/apps/v1/namespaces/%s/deployments/%s" % (ns, name))

    def replica_sets(self, ns, app):
        return self.get_json("/apis/apps/v1/namespaces/%s/replicasets?labelSelector=app%%3D%s"
                             % (ns, app))["items"]

    def pods(self, ns, app):
        return self.get_json("/api/v1/namespaces/%s/pods?labelSelector=app%%3D%s"
                             % (ns, app))["items"]

    def rollout_status(self, version, ns, name):
        p = self.kubectl(version, "-n", ns, "rollout", "status", "deployment/" + name,
                         "--timeout=%ds" % ROLLOUT_TIMEOUT, timeout=ROLLOUT_TIMEOUT + 30)
        self.assertIn('deployment "%s" successfully rolled out' % name, p.stdout)
        return p

    def complete(self, ns, name, replicas, image=None):
        """The Deployment's status says every replica is updated and available, no old ones
        remain, and (if given) every live Pod runs `image`."""
        d = self.deployment(ns, name)
        st = d.get("status", {})
        if st.get("observedGeneration") != d["metadata"]["generation"]:
            return None
        if (st.get("updatedReplicas"), st.get("availableReplicas"), st.get("replicas")) != (
                replicas, replicas, replicas):
            return None
        if image:
            live = [p for p in self.pods(ns, name) if not p["metadata"].get("deletionTimestamp")]
            if len(live) != replicas or any(
                    p["spec"]["containers"][0]["image"] != image for p in live):
                return None
        return d

    def revision_of(self, rs):
        return rs["metadata"].get("annotations", {}).get("deployment.kubernetes.io/revision")

    # --- the walk, per kubectl version ------------------------------------------------------

    def walk(self, v):
        ns = ns_for(v)
        p = self.kubectl(v, "-n", ns, "create", "deployment", "web", "--image=nginx",
                         "--replicas=3")
        self.assertEqual(p.stdout.strip(), "deployment.apps/web created")
        self.rollout_status(v, ns, "web")
        d = wait_for("3 available", lambda: self.complete(ns, "web", 3, "nginx"))
        self.assertEqual(d["metadata"]["annotations"]["deployment.kubernetes.io/revision"], "1")
        conditions = {c["type"]: c for c in d["status"]["conditions"]}
        self.assertEqual(conditions["Available"]["reason"], "MinimumReplicasAvailable")
        self.assertEqual(conditions["Progressing"]["reason"], "NewReplicaSetAvailable")

        # One ReplicaSet web-<hash>, owned by the Deployment, revision 1, its Pods owned by it.
        rss = self.replica_sets(ns, "web")
        self.assertEqual(len(rss), 1, [r["metadata"]["name"] for r in rss])
        rs1 = rss[0]
        h = rs1["metadata"]["labels"]["pod-template-hash"]
        self.assertRegex(h, r"^[4-9bcdf]{1,10}$")
        self.assertEqual(rs1["metadata"]["name"], "web-" + h)
        ann = rs1["metadata"]["annotations"]
        self.assertEqual(ann["deployment.kubernetes.io/revision"], "1")
        self.assertEqual(ann["deployment.kubernetes.io/desired-replicas"], "3")
        self.assertEqual(ann["deployment.kubernetes.io/max-replicas"], "4")
        owner = rs1["metadata"]["ownerReferences"][0]
        self.assertEqual((owner["kind"], owner["name"], owner["uid"], owner["controller"]),
                         ("Deployment", "web", d["metadata"]["uid"], True))
        pods = self.pods(ns, "web")
        self.assertEqual(len(pods), 3)
        for pod in pods:
            self.assertTrue(pod["metadata"]["name"].startswith("web-%s-" % h))
            ref = pod["metadata"]["ownerReferences"][0]
            self.assertEqual((ref["kind"], ref["uid"], ref["controller"]),
                             ("ReplicaSet", rs1["metadata"]["uid"], True))

        row = self.kubectl(v, "-n", ns, "get", "deploy", "web").stdout.splitlines()[1].split()
        self.assertEqual(row[:4], ["web", "3/3", "3", "3"])

        # expose: a Service over the Deployment's Pods, its slice lists the 3 ready Pods.
        self.kubectl(v, "-n", ns, "expose", "deployment", "web", "--port=80",
                     "--target-port=8080")

        def ready_endpoints():
            slices = self.get_json("/apis/discovery.k8s.io/v1/namespaces/%s/endpointslices"
                                   "?labelSelector=kubernetes.io%%2Fservice-name%%3Dweb" % ns)
            eps = [e for s in slices["items"] for e in s.get("endpoints") or []
                   if (e.get("conditions") or {}).get("ready")]
            return len(eps) == 3 and eps
        wait_for("3 ready endpoints", ready_endpoints)

        # scale through /scale
        p = self.kubectl(v, "-n", ns, "scale", "deployment", "web", "--replicas=5")
        self.assertEqual(p.stdout.strip(), "deployment.apps/web scaled")
        wait_for("5 available", lambda: self.complete(ns, "web", 5, "nginx"))
        rs1 = self.replica_sets(ns, "web")[0]
        self.assertEqual(rs1["metadata"]["annotations"]["deployment.kubernetes.io/desired-replicas"],
                         "5")

        # set image: a second ReplicaSet, revision 2; the first is scaled to 0 and kept.
        self.kubectl(v, "-n", ns, "set", "image", "deployment/web", "nginx=nginx:1.27")
        self.rollout_status(v, ns, "web")
        wait_for("5 on nginx:1.27", lambda: self.complete(ns, "web", 5, "nginx:1.27"))
        rss = {r["metadata"]["name"]: r for r in self.replica_sets(ns, "web")}
        self.assertEqual(len(rss), 2, list(rss))
        old = rss["web-" + h]
        new = [r for n, r in rss.items() if n != "web-" + h][0]
        self.assertEqual(old["spec"]["replicas"], 0)
        self.assertEqual(self.revision_of(old), "1")
        self.assertEqual(self.revision_of(new), "2")
        self.assertEqual(new["spec"]["template"]["spec"]["containers"][0]["image"], "nginx:1.27")
        events = self.get_json("/api/v1/namespaces/%s/events" % ns)["items"]
        scaling = [e["message"] for e in events if e.get("reason") == "ScalingReplicaSet"]
        self.assertTrue(any(m.startswith("Scaled up replica set %s" % new["metadata"]["name"])
                            for m in scaling), scaling)
        self.assertTrue(any(m.startswith("Scaled down replica set web-%s" % h)
                            for m in scaling), scaling)

        hist = self.kubectl(v, "-n", ns, "rollout", "history", "deployment/web").stdout
        self.assertRegex(hist, r"(?m)^1\s+<none>")
        self.assertRegex(hist, r"(?m)^2\s+<none>")

        # undo: back to revision 1's template, no third ReplicaSet; web-<h> becomes revision 3.
        p = self.kubectl(v, "-n", ns, "rollout", "undo", "deployment/web")
        self.assertEqual(p.stdout.strip(), "deployment.apps/web rolled back")
        self.rollout_status(v, ns, "web")
        wait_for("5 on nginx again", lambda: self.complete(ns, "web", 5, "nginx"))
        rss = {r["metadata"]["name"]: r for r in self.replica_sets(ns, "web")}
        self.assertEqual(len(rss), 2, list(rss))
        self.assertEqual(self.revision_of(rss["web-" + h]), "3")
        self.assertEqual(self.deployment(ns, "web")["metadata"]["annotations"][
            "deployment.kubernetes.io/revision"], "3")

        # pause: a template change makes no ReplicaSet until resume.
        p = self.kubectl(v, "-n", ns, "rollout", "pause", "deployment/web")
        self.assertEqual(p.stdout.strip(), "deployment.apps/web paused")
        self.kubectl(v, "-n", ns, "set", "image", "deployment/web", "nginx=nginx:1.28")
        gen = self.deployment(ns, "web")["metadata"]["generation"]
        wait_for("paused generation observed", lambda: self.deployment(ns, "web")["status"].get(
            "observedGeneration") == gen)
        cond = {c["type"]: c for c in self.deployment(ns, "web")["status"]["conditions"]}
        self.assertEqual((cond["Progressing"]["status"], cond["Progressing"]["reason"]),
                         ("Unknown", "DeploymentPaused"))
        time.sleep(1)
        self.assertEqual(len(self.replica_sets(ns, "web")), 2)
        p = self.kubectl(v, "-n", ns, "rollout", "restart", "deployment/web", check=False)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("can't restart paused deployment (run rollout resume first)", p.stderr)
        p = self.kubectl(v, "-n", ns, "rollout", "resume", "deployment/web")
        self.assertEqual(p.stdout.strip(), "deployment.apps/web resumed")
        self.rollout_status(v, ns, "web")
        wait_for("5 on nginx:1.28", lambda: self.complete(ns, "web", 5, "nginx:1.28"))
        self.assertEqual(len(self.replica_sets(ns, "web")), 3)

        # restart: a new ReplicaSet whose template carries restartedAt.
        p = self.kubectl(v, "-n", ns, "rollout", "restart", "deployment/web")
        self.assertEqual(p.stdout.strip(), "deployment.apps/web restarted")
        self.rollout_status(v, ns, "web")
        wait_for("restarted", lambda: self.complete(ns, "web", 5, "nginx:1.28"))
        rss = self.replica_sets(ns, "web")
        self.assertEqual(len(rss), 4)
        newest = max(rss, key=lambda r: int(self.revision_of(r)))
        self.assertIn("kubectl.kubernetes.io/restartedAt",
                      newest["spec"]["template"]["metadata"]["annotations"])
        self.assertEqual(newest["status"].get("availableReplicas"), 5)

        desc = self.kubectl(v, "-n", ns, "describe", "deployment", "web").stdout
        self.assertRegex(desc, r"Replicas:\s+5 desired \| 5 updated \| 5 total \| 5 available "
                               r"\| 0 unavailable")
        self.assertRegex(desc, r"NewReplicaSet:\s+%s \(5/5 replicas created\)"
                         % re.escape(newest["metadata"]["name"]))

        # cascading delete: the GC removes the ReplicaSets and their Pods.
        p = self.kubectl(v, "-n", ns, "delete", "deployment", "web", timeout=120)
        self.assertEqual(p.stdout.strip(), 'deployment.apps "web" deleted')
        wait_for("ReplicaSets collected", lambda: not self.replica_sets(ns, "web"))
        wait_for("Pods gone", lambda: not self.pods(ns, "web"), timeout=90)

    def test_walk_kubectl_127(self):
        self.walk("1.27")

    def test_walk_kubectl_133(self):
        self.walk("1.33")

    # --- the README's first minute ----------------------------------------------------------

    def test_readme_first_minute(self):
        """examples/web/ applied and restarted as the README shows, in the default namespace."""
        examples = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "examples", "web")
        self.kubectl("1.33", "apply", "-f", examples)
        self.rollout_status("1.33", "default", "web")
        wait_for("6 available", lambda: self.complete("default", "web", 6, "nginx:1.27"))
        before = {p["metadata"]["name"] for p in self.pods("default", "web")}
        p = self.kubectl("1.33", "rollout", "restart", "deployment/web")
        self.assertEqual(p.stdout.strip(), "deployment.apps/web restarted")
        self.rollout_status("1.33", "default", "web")

        def replaced():
            live = {p["metadata"]["name"] for p in self.pods("default", "web")
                    if not p["metadata"].get("deletionTimestamp")}
            return len(live) == 6 and not live & before and self.complete("default", "web", 6)
        wait_for("6 new Pods", replaced)
        self.kubectl("1.33", "delete", "-f", examples)

    # --- ReplicaSet behaviour the Deployment relies on --------------------------------------

    def test_deleted_pod_is_replaced_and_direct_rs_scale_is_reverted(self):
        ns = ns_for("1.33")
        self.kubectl("1.33", "-n", ns, "create", "deployment", "keep", "--image=nginx",
                     "--replicas=2")
        wait_for("2 available", lambda: self.complete(ns, "keep", 2))
        victim = self.pods(ns, "keep")[0]["metadata"]["name"]
        self.kubectl("1.33", "-n", ns, "delete", "pod", victim, "--wait=false")
        wait_for("a replacement", lambda: len([
            p for p in self.pods(ns, "keep") if p["metadata"]["name"] != victim
            and not p["metadata"].get("deletionTimestamp")]) == 2)
        rs = self.replica_sets(ns, "keep")[0]["metadata"]["name"]
        self.kubectl("1.33", "-n", ns, "scale", "rs", rs, "--replicas=5")
        wait_for("scaled back to 2", lambda: self.replica_sets(ns, "keep")[0]["spec"][
            "replicas"] == 2)
        self.kubectl("1.33", "-n", ns, "delete", "deployment", "keep")

    def test_namespace_deletion_removes_the_workload(self):
        """Spec §7 scenario 40: deleting the namespace removes the Deployment, its ReplicaSets
        and Pods, and the namespace goes away while the controllers are still syncing (their
        creates in a terminating namespace are not retried forever)."""
        ns = "wl-nsdel"
        self.kubectl("1.33", "create", "namespace", ns)
        self.kubectl("1.33", "-n", ns, "create", "deployment", "web", "--image=nginx",
                     "--replicas=3")
        wait_for("3 available", lambda: self.complete(ns, "web", 3))
        self.kubectl("1.33", "delete", "namespace", ns, "--wait=false")
        # A scale-up racing the deletion: the ReplicaSet controller's creates now meet a
        # terminating namespace.
        self.kubectl("1.33", "-n", ns, "scale", "deployment", "web", "--replicas=6", check=False)

        def gone():
            r = harness.raw_request(self.api, "GET", "/api/v1/namespaces/" + ns)
            return r.status == 404
        wait_for("namespace gone", gone, timeout=120)
        for path in ("/apis/apps/v1/namespaces/%s/deployments" % ns,
                     "/apis/apps/v1/namespaces/%s/replicasets" % ns,
                     "/api/v1/namespaces/%s/pods" % ns):
            self.assertEqual(self.get_json(path)["items"], [], path)

    # --- the Python client ------------------------------------------------------------------

    def test_python_apps_v1(self):
        from kubernetes import client
        apps = client.AppsV1Api(self.api)
        body = {"metadata": {"name": "py"},
                "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "py"}},
                         "template": {"metadata": {"labels": {"app": "py"}},
                                      "spec": {"containers": [{"name": "c",
                                                               "image": "nginx"}]}}}}
        created = apps.create_namespaced_deployment("wl-py", body)
        self.assertEqual(created.spec.strategy.type, "RollingUpdate")

        def ready(n):
            st = apps.read_namespaced_deployment_status("py", "wl-py").status
            return st.available_replicas == n and st.updated_replicas == n and st
        wait_for("2 available", lambda: ready(2))
        scale = apps.patch_namespaced_deployment_scale("py", "wl-py", {"spec": {"replicas": 4}})
        self.assertEqual(scale.spec.replicas, 4)
        wait_for("4 available", lambda: ready(4))
        rs = apps.list_namespaced_replica_set("wl-py", label_selector="app=py").items
        self.assertEqual(len(rs), 1)
        self.assertEqual(rs[0].status.ready_replicas, 4)
        apps.delete_namespaced_deployment("py", "wl-py", propagation_policy="Foreground")
        core = client.CoreV1Api(self.api)
        wait_for("foreground delete done", lambda: not [
            d for d in apps.list_namespaced_deployment("wl-py").items if d.metadata.name == "py"],
            timeout=90)
        self.assertEqual(core.list_namespaced_pod("wl-py", label_selector="app=py").items, [])


class ClientRateLimitTest(unittest.TestCase):
    """Spec §7 scenario 38, scaled down: `svcplane controllers` with kube-controller-manager's
    client defaults (--kube-api-qps 20, --kube-api-burst 30) against `svcplane serve` with no
    in-process controllers. The ReplicaSet controller's Pod creates (and the Events they cause,
    which share the bucket) are paced: 100 Pods cannot all exist sooner than the burst plus
    70 more at 20/s allow."""

    REPLICAS = 100
    QPS, BURST = 20, 30

    @classmethod
    def setUpClass(cls):
        cls.srv, cls.api = harness.start_with_client(
            ["--simulate-nodes", "3", "--controllers", ""])
        cls.log = open(os.path.join(cls.srv.data_dir, "controllers.log"), "ab")
        cls.proc = subprocess.Popen(
            [harness.SVCPLANE, "controllers", "--kubeconfig", cls.srv.kubeconfig,
             "--secure-port", "0", "--leader-elect=false", "--kube-api-qps", str(cls.QPS),
             "--kube-api-burst", str(cls.BURST), "--controllers", "replicaset-controller"],
            stdout=cls.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)

    @classmethod
    def tearDownClass(cls):
        cls.proc.terminate()
        try:
            cls.proc.wait(30)
        except subprocess.TimeoutExpired:
            cls.proc.kill()
            cls.proc.wait(10)
        cls.log.close()
        cls.srv.cleanup()

    def test_pod_creates_are_paced_by_the_client_qps(self):
        from kubernetes import client
        apps, core = client.AppsV1Api(self.api), client.CoreV1Api(self.api)
        labels = {"app": "paced"}
        t0 = time.monotonic()
        apps.create_namespaced_replica_set("default", {
            "metadata": {"name": "paced"},
            "spec": {"replicas": self.REPLICAS, "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels},
                                  "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}})
        wait_for("%d Pods" % self.REPLICAS, lambda: len(core.list_namespaced_pod(
            "default", label_selector="app=paced").items) == self.REPLICAS, timeout=120)
        elapsed = time.monotonic() - t0
        floor = (self.REPLICAS - self.BURST) / self.QPS
        self.assertGreaterEqual(elapsed, 0.9 * floor,
                                "%d Pods in %.1f s: faster than %d/s allows" % (
                                    self.REPLICAS, elapsed, self.QPS))
        wait_for("all ready", lambda: (apps.read_namespaced_replica_set_status(
            "paced", "default").status.ready_replicas or 0) == self.REPLICAS, timeout=120)


if __name__ == "__main__":
    unittest.main()
