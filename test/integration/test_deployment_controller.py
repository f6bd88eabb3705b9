"""The Deployment controller in the real binary (issue 24, spec workloads.md §3, §4, §7), driven
by kubectl 1.33: create, set image, rollout history/status/pause/resume/undo.

Nothing here depends on the ReplicaSet controller: the test plays its part by writing each
ReplicaSet's status (all pods there, ready and available) through the status subresource, and
runs the server without it when it exists (--controllers).
"""

import json
import os
import re
import shutil
import tempfile
import time
import unittest

import harness

V = "1.33"
NS = "dep"
BASE = "/apis/apps/v1/namespaces/" + NS
HASH = re.compile(r"^[4-9bcdf]{1,10}$")
TIMEOUT = 30
AUDIT_POLICY = """apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: Metadata
"""


class DeploymentControllerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="svcplane-deploy-audit-")
        policy = os.path.join(cls.tmp, "policy.yaml")
        with open(policy, "w") as f:
            f.write(AUDIT_POLICY)
        cls.audit_log = os.path.join(cls.tmp, "audit.log")
        # The Deployment controller alone: the suite plays the ReplicaSet controller's part by
        # writing ReplicaSet status itself (test_workloads_e2e.py runs both controllers).
        cls.srv, cls.api = harness.start_with_client(
            ["--audit-policy-file", policy, "--audit-log-path", cls.audit_log,
             "--controllers=*,-replicaset-controller"])
        cls.srv.kubectl(V, "create", "namespace", NS)

    @classmethod
    def tearDownClass(cls):
        cls.srv.cleanup()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    # --- helpers -------------------------------------------------------------------------

    def kubectl(self, *args, **kw):
        return self.srv.kubectl(V, *args, **kw)

    def get(self, path):
        r = harness.raw_request(self.api, "GET", BASE + path)
        self.assertEqual(r.status, 200, r.data)
        return json.loads(r.data)

    def deployment(self, name):
        return self.get("/deployments/" + name)

    def replicasets(self, owner):
        items = self.get("/replicasets")["items"]
        return {rs["metadata"]["name"]: rs for rs in items
                if any(ref.get("name") == owner and ref.get("kind") == "Deployment"
                       for ref in rs["metadata"].get("ownerReferences", []))}

    def settle(self):
        """The ReplicaSet controller's part: every ReplicaSet reports all its pods available."""
        for rs in self.get("/replicasets")["items"]:
            n = rs["spec"].get("replicas", 1)
            want = {"replicas": n, "fullyLabeledReplicas": n, "readyReplicas": n,
                    "availableReplicas": n, "observedGeneration": rs["metadata"]["generation"]}
            if n == 0:
                want = {"replicas": 0, "observedGeneration": rs["metadata"]["generation"]}
            if rs.get("status") == want:
                continue
            rs["status"] = want
            harness.raw_request(self.api, "PUT",
                                BASE + "/replicasets/%s/status" % rs["metadata"]["name"],
                                body=json.dumps(rs), content_type="application/json")

    def wait(self, what, fn, settle=False, timeout=TIMEOUT):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if settle:
                self.settle()
            got = fn()
            if got:
                return got
            time.sleep(0.1)
        self.fail("timed out waiting for %s%s" % (what, self.srv.died()))

    def condition(self, d, kind):
        for c in d.get("status", {}).get("conditions", []):
            if c["type"] == kind:
                return c
        return None

    def complete(self, name):
        d = self.deployment(name)
        s = d.get("status", {})
        want = d["spec"]["replicas"]
        c = self.condition(d, "Progressing")
        return (s.get("observedGeneration") == d["metadata"]["generation"]
                and s.get("updatedReplicas", 0) == want and s.get("replicas", 0) == want
                and s.get("availableReplicas", 0) == want
                and c is not None and c["reason"] == "NewReplicaSetAvailable")

    def events(self, reason, name="web"):
        items = self.get_core("/events")["items"]
        return [e for e in items
                if e["reason"] == reason and e["involvedObject"]["name"] == name]

    def get_core(self, path):
        r = harness.raw_request(self.api, "GET", "/api/v1/namespaces/" + NS + path)
        self.assertEqual(r.status, 200, r.data)
        return json.loads(r.data)

    # --- the rollout ----------------------------------------------------------------------

    def test_rollout_history_pause_resume_undo(self):
        out = self.kubectl("create", "deployment", "web", "--image=nginx", "--replicas=3",
                           "-n", NS)
        self.assertEqual(out.stdout.strip(), "deployment.apps/web created")

        # Revision 1: a hash-named ReplicaSet with all 3 replicas at once.
        rss = self.wait("the first ReplicaSet", lambda: self.replicasets("web"))
        self.assertEqual(len(rss), 1)
        name, rs = next(iter(rss.items()))
        h = rs["metadata"]["labels"]["pod-template-hash"]
        self.assertRegex(h, HASH)
        self.assertEqual(name, "web-" + h)
        self.assertEqual(rs["metadata"]["labels"], {"app": "web", "pod-template-hash": h})
        self.assertEqual(rs["spec"]["selector"],
                         {"matchLabels": {"app": "web", "pod-template-hash": h}})
        self.assertEqual(rs["spec"]["template"]["metadata"]["labels"],
                         {"app": "web", "pod-template-hash": h})
        self.assertEqual(rs["spec"]["replicas"], 3)
        ann = rs["metadata"]["annotations"]
        self.assertEqual(ann["deployment.kubernetes.io/revision"], "1")
        self.assertEqual(ann["deployment.kubernetes.io/desired-replicas"], "3")
        self.assertEqual(ann["deployment.kubernetes.io/max-replicas"], "4")
        ref = rs["metadata"]["ownerReferences"][0]
        d = self.deployment("web")
        self.assertEqual((ref["apiVersion"], ref["kind"], ref["name"], ref["uid"],
                          ref["controller"], ref["blockOwnerDeletion"]),
                         ("apps/v1", "Deployment", "web", d["metadata"]["uid"], True, True))

        # Before any pod: observed, revision 1, Progressing NewReplicaSetCreated.
        d = self.wait("the Deployment's first status",
                      lambda: (lambda x: x if x.get("status", {}).get("observedGeneration")
                               else None)(self.deployment("web")))
        self.assertEqual(d["metadata"]["annotations"]["deployment.kubernetes.io/revision"], "1")
        progressing = self.condition(d, "Progressing")
        self.assertEqual((progressing["status"], progressing["reason"], progressing["message"]),
                         ("True", "NewReplicaSetCreated", 'Created new replica set "%s"' % name))
        available = self.condition(d, "Available")
        self.assertEqual((available["status"], available["reason"]),
                         ("False", "MinimumReplicasUnavailable"))
        scaled = self.wait("the ScalingReplicaSet event",
                           lambda: self.events("ScalingReplicaSet"))
        self.assertEqual(scaled[0]["message"], "Scaled up replica set %s from 0 to 3" % name)
        self.assertEqual(scaled[0]["source"]["component"], "deployment-controller")
        self.assertEqual(scaled[0]["involvedObject"]["kind"], "Deployment")

        # The pods come up.
        self.wait("the rollout to complete", lambda: self.complete("web"), settle=True)
        d = self.deployment("web")
        self.assertEqual([c["type"] for c in d["status"]["conditions"]],
                         ["Available", "Progressing"])
        out = self.kubectl("rollout", "status", "deployment/web", "-n", NS, "--timeout=20s")
        self.assertIn('deployment "web" successfully rolled out', out.stdout)
        lines = self.kubectl("get", "deploy", "web", "-n", NS).stdout.splitlines()
        self.assertEqual(lines[1].split()[:4], ["web", "3/3", "3", "3"])

        # Revision 2: set image walks the pods over one at a time (surge 1, unavailable 0).
        self.kubectl("set", "image", "deployment/web", "nginx=nginx:1.27", "-n", NS)
        most = [0]

        def rolled():
            rss = self.replicasets("web")
            most[0] = max(most[0], sum(r["spec"]["replicas"] for r in rss.values()))
            return len(rss) == 2 and self.complete("web")
        self.wait("revision 2", rolled, settle=True)
        self.assertLessEqual(most[0], 4)
        rss = self.replicasets("web")
        second = [n for n in rss if n != name][0]
        self.assertEqual(rss[second]["metadata"]["annotations"]["deployment.kubernetes.io/revision"],
                         "2")
        self.assertEqual(rss[second]["spec"]["template"]["spec"]["containers"][0]["image"],
                         "nginx:1.27")
        self.assertEqual(rss[name]["spec"]["replicas"], 0)
        messages = [e["message"] for e in self.events("ScalingReplicaSet")]
        for m in ("Scaled up replica set %s from 0 to 1" % second,
                  "Scaled down replica set %s from 3 to 2" % name,
                  "Scaled up replica set %s from 2 to 3" % second,
                  "Scaled down replica set %s from 1 to 0" % name):
            self.assertIn(m, messages)
        history = self.kubectl("rollout", "history", "deployment/web", "-n", NS).stdout
        rows = [line.split() for line in history.splitlines()[2:] if line.strip()]
        self.assertEqual(rows, [["1", "<none>"], ["2", "<none>"]])

        # Paused: a template change makes no ReplicaSet, but is observed.
        self.kubectl("rollout", "pause", "deployment/web", "-n", NS)
        self.wait("DeploymentPaused", lambda: (self.condition(self.deployment("web"), "Progressing")
                                               or {}).get("reason") == "DeploymentPaused")
        c = self.condition(self.deployment("web"), "Progressing")
        self.assertEqual((c["status"], c["message"]), ("Unknown", "Deployment is paused"))
        self.kubectl("set", "image", "deployment/web", "nginx=nginx:1.28", "-n", NS)
        self.wait("the paused change observed", lambda: (lambda x: x["status"].get(
            "observedGeneration") == x["metadata"]["generation"])(self.deployment("web")))
        time.sleep(0.5)
        self.assertEqual(len(self.replicasets("web")), 2)
        out = self.kubectl("rollout", "status", "deployment/web", "-n", NS, "--watch=false",
                           check=False)
        self.assertIn("0 out of 3 new replicas have been updated", out.stdout)
        # Scaling still applies while paused.
        self.kubectl("scale", "deployment/web", "--replicas=4", "-n", NS)
        self.wait("scaled while paused",
                  lambda: self.replicasets("web")[second]["spec"]["replicas"] == 4)
        self.kubectl("scale", "deployment/web", "--replicas=3", "-n", NS)
        self.wait("scaled back",
                  lambda: self.replicasets("web")[second]["spec"]["replicas"] == 3)

        # Resumed: revision 3 rolls out.
        self.kubectl("rollout", "resume", "deployment/web", "-n", NS)
        self.wait("revision 3", lambda: len(self.replicasets("web")) == 3 and self.complete("web"),
                  settle=True)
        rss = self.replicasets("web")
        third = [n for n in rss if n not in (name, second)][0]
        self.assertEqual(rss[third]["metadata"]["annotations"]["deployment.kubernetes.io/revision"],
                         "3")

        # Undo: back to revision 2's template, on its ReplicaSet (no new hash), as revision 4.
        out = self.kubectl("rollout", "undo", "deployment/web", "-n", NS)
        self.assertEqual(out.stdout.strip(), "deployment.apps/web rolled back")
        self.wait("the undo", lambda: self.replicasets("web")[second]["spec"]["replicas"] == 3
                  and self.complete("web"), settle=True)
        rss = self.replicasets("web")
        self.assertEqual(len(rss), 3)
        ann = rss[second]["metadata"]["annotations"]
        self.assertEqual(ann["deployment.kubernetes.io/revision"], "4")
        self.assertEqual(ann["deployment.kubernetes.io/revision-history"], "2")
        self.assertEqual(rss[third]["spec"]["replicas"], 0)
        d = self.deployment("web")
        self.assertEqual(d["metadata"]["annotations"]["deployment.kubernetes.io/revision"], "4")
        history = self.kubectl("rollout", "history", "deployment/web", "-n", NS).stdout
        revisions = [line.split()[0] for line in history.splitlines()[2:] if line.strip()]
        self.assertEqual(revisions, ["1", "3", "4"])

    def test_acts_as_its_service_account(self):
        """In-process, the controller is system:serviceaccount:kube-system:deployment-controller
        (its upstream identity), authorized by the bootstrap role system:controller:..."""
        self.kubectl("create", "deployment", "ident", "--image=nginx", "-n", NS)
        self.wait("its ReplicaSet", lambda: self.replicasets("ident"))

        def writes():
            out = []
            with open(self.audit_log) as f:
                for line in f:
                    e = json.loads(line)
                    uri = e.get("requestURI", "")
                    if e["verb"] in ("create", "update") and (
                            uri.startswith(BASE + "/replicasets")
                            or uri.startswith(BASE + "/deployments/ident/status")):
                        out.append((e["verb"], uri.split("?")[0], e["user"]["username"],
                                    e["responseStatus"]["code"]))
            return out
        got = self.wait("the audited writes", lambda: [w for w in writes()
                                                       if w[1].endswith("/status")] and writes())
        sa = "system:serviceaccount:kube-system:deployment-controller"
        self.assertIn(("create", BASE + "/replicasets", sa, 201), got)
        self.assertIn(("update", BASE + "/deployments/ident/status", sa, 200), got)

    def test_progress_deadline_exceeded(self):
        manifest = {
            "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "slow"},
            "spec": {"replicas": 2, "progressDeadlineSeconds": 2,
                     "selector": {"matchLabels": {"app": "slow"}},
                     "template": {"metadata": {"labels": {"app": "slow"}},
                                  "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}
        self.kubectl("create", "-n", NS, "-f", "-", input=json.dumps(manifest))
        # No pod ever becomes available (nothing settles the ReplicaSet).
        self.wait("ProgressDeadlineExceeded",
                  lambda: (self.condition(self.deployment("slow"), "Progressing")
                           or {}).get("reason") == "ProgressDeadlineExceeded", timeout=20)
        c = self.condition(self.deployment("slow"), "Progressing")
        rs = list(self.replicasets("slow"))[0]
        self.assertEqual((c["status"], c["message"]),
                         ("False", 'ReplicaSet "%s" has timed out progressing.' % rs))
        out = self.kubectl("rollout", "status", "deployment/slow", "-n", NS, check=False)
        self.assertNotEqual(out.returncode, 0)
        self.assertIn('deployment "slow" exceeded its progress deadline', out.stderr)


if __name__ == "__main__":
    unittest.main()
