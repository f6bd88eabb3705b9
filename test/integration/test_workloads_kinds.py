"""apps/v1 Deployment and ReplicaSet served as kinds (issue 24, spec workloads.md §1), without
their controllers: a Deployment is stored and served, no ReplicaSet or Pod follows.

kubectl 1.27 (JSON bodies) and 1.33 (protobuf bodies) create Deployments with the generator,
read the server's Tables (plain and -o wide), -o yaml, apply a manifest, strategic-patch the
template's containers (what `kubectl edit` sends), and delete; the Python client's AppsV1Api
creates, reads, lists, patches and deletes; validation answers 422 with upstream's texts;
discovery, api-resources, OpenAPI v3, /status and, on etcd, the storage keys are checked.
"""

import json
import time
import unittest

import harness
from test_protobuf import unwrap

VERSIONS = ("1.27", "1.33")
GV = "apps/v1"
BASE = "/apis/" + GV

MANIFEST = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: applied
  labels:
    app: applied
spec:
  replicas: 2
  selector:
    matchLabels:
      app: applied
  template:
    metadata:
      labels:
        app: applied
    spec:
      containers:
      - name: web
        image: nginx:1.25
        ports:
        - containerPort: 80
"""


def ns_for(version):
    return "apps-" + version.replace(".", "")


def deployment(name, labels=None, replicas=1):
    labels = labels or {"app": name}
    return {"apiVersion": GV, "kind": "Deployment", "metadata": {"name": name},
            "spec": {"replicas": replicas, "selector": {"matchLabels": dict(labels)},
                     "template": {"metadata": {"labels": dict(labels)},
                                  "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}


class WorkloadsKindsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # The kinds alone: the workload controllers are tested in test_deployment_controller.py,
        # test_replicaset_controller.py and test_workloads_e2e.py.
        cls.srv, cls.api = harness.start_with_client(
            ["--controllers=*,-deployment-controller,-replicaset-controller"])
        for v in VERSIONS:
            cls.srv.kubectl("1.33", "create", "namespace", ns_for(v))
        cls.srv.kubectl("1.33", "create", "namespace", "val")
        cls.srv.kubectl("1.33", "create", "namespace", "py")

    @classmethod
    def tearDownClass(cls):
        cls.srv.cleanup()

    def kubectl(self, version, *args, **kw):
        return self.srv.kubectl(version, *args, **kw)

    def raw(self, method, path, body=None, content_type="application/json",
            accept="application/json"):
        if isinstance(body, dict):
            body = json.dumps(body)
        return harness.raw_request(self.api, method, path, body=body, accept=accept,
                                   content_type=content_type)

    # --- kubectl ----------------------------------------------------------------------------

    def test_kubectl_lifecycle(self):
        for v in VERSIONS:
            with self.subTest(kubectl=v):
                self.check_kubectl_lifecycle(v)

    def check_kubectl_lifecycle(self, v):
        ns = ns_for(v)
        out = self.kubectl(v, "create", "deployment", "web", "--image=nginx", "--replicas=3",
                           "-n", ns).stdout
        self.assertEqual(out.strip(), "deployment.apps/web created")
        d = self.srv.kubectl_json(v, "get", "deployment", "web", "-n", ns)
        self.assertEqual((d["apiVersion"], d["kind"]), (GV, "Deployment"))
        self.assertEqual(d["metadata"]["generation"], 1)
        spec = d["spec"]
        self.assertEqual(spec["replicas"], 3)
        self.assertEqual(spec["selector"], {"matchLabels": {"app": "web"}})
        self.assertEqual(spec["strategy"], {"type": "RollingUpdate", "rollingUpdate": {
            "maxUnavailable": "25%", "maxSurge": "25%"}})
        self.assertEqual(spec["revisionHistoryLimit"], 10)
        self.assertEqual(spec["progressDeadlineSeconds"], 600)
        tspec = spec["template"]["spec"]
        self.assertEqual(tspec["restartPolicy"], "Always")
        self.assertEqual(tspec["dnsPolicy"], "ClusterFirst")
        self.assertEqual(tspec["terminationGracePeriodSeconds"], 30)
        self.assertEqual(tspec["schedulerName"], "default-scheduler")
        self.assertNotIn("enableServiceLinks", tspec)
        self.assertEqual(tspec["containers"][0]["imagePullPolicy"], "Always")
        self.assertIsNone(spec["template"]["metadata"]["creationTimestamp"])
        self.assertEqual(d["status"], {})
        # No controller: no ReplicaSet, no Pods.
        self.assertEqual(self.srv.kubectl_json(v, "get", "rs", "-n", ns)["items"], [])
        self.assertEqual(self.srv.kubectl_json(v, "get", "pods", "-n", ns)["items"], [])

        # Tables.
        lines = self.kubectl(v, "get", "deploy,rs", "-n", ns).stdout.splitlines()
        self.assertEqual(lines[0].split(), ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"])
        self.assertEqual(lines[1].split()[:4], ["deployment.apps/web", "0/3", "0", "0"])
        lines = self.kubectl(v, "get", "deploy", "-n", ns, "-o", "wide").stdout.splitlines()
        self.assertEqual(lines[0].split(), ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE",
                                            "CONTAINERS", "IMAGES", "SELECTOR"])
        cells = lines[1].split()
        self.assertEqual(cells[:4], ["web", "0/3", "0", "0"])
        self.assertEqual(cells[5:], ["nginx", "nginx", "app=web"])

        # A ReplicaSet created by hand shows in its Table.
        rs = {"apiVersion": GV, "kind": "ReplicaSet", "metadata": {"name": "web-manual"},
              "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "rs"}},
                       "template": {"metadata": {"labels": {"app": "rs"}},
                                    "spec": {"containers": [{"name": "c", "image": "busybox"}]}}}}
        self.kubectl(v, "create", "-n", ns, "-f", "-", input=json.dumps(rs))
        lines = self.kubectl(v, "get", "rs", "-n", ns, "-o", "wide").stdout.splitlines()
        self.assertEqual(lines[0].split(), ["NAME", "DESIRED", "CURRENT", "READY", "AGE",
                                            "CONTAINERS", "IMAGES", "SELECTOR"])
        cells = lines[1].split()
        self.assertEqual(cells[:4], ["web-manual", "2", "0", "0"])
        self.assertEqual(cells[5:], ["c", "busybox", "app=rs"])
        rs_json = self.srv.kubectl_json(v, "get", "rs", "web-manual", "-n", ns)
        self.assertEqual(rs_json["status"], {"replicas": 0})

        # -o yaml round trip through replace.
        y = self.kubectl(v, "get", "deploy", "web", "-n", ns, "-o", "yaml").stdout
        self.assertIn("apiVersion: apps/v1", y)
        self.assertIn("kind: Deployment", y)
        self.kubectl(v, "replace", "-f", "-", input=y)

        # Strategic merge patch of the template's containers (what `kubectl edit` sends): the
        # list merges by name.
        patch = {"spec": {"template": {"spec": {"containers": [
            {"name": "nginx", "image": "nginx:1.27"}, {"name": "side", "image": "busybox"}]}}}}
        self.kubectl(v, "patch", "deploy", "web", "-n", ns, "-p", json.dumps(patch))
        d = self.srv.kubectl_json(v, "get", "deployment", "web", "-n", ns)
        images = [(c["name"], c["image"]) for c in d["spec"]["template"]["spec"]["containers"]]
        self.assertEqual(images, [("nginx", "nginx:1.27"), ("side", "busybox")])
        self.assertEqual(d["spec"]["template"]["spec"]["containers"][1]["imagePullPolicy"],
                         "Always")
        self.assertEqual(d["metadata"]["generation"], 2)
        patch = {"spec": {"template": {"spec": {"containers": [
            {"name": "side", "$patch": "delete"}]}}}}
        self.kubectl(v, "patch", "deploy", "web", "-n", ns, "-p", json.dumps(patch))
        d = self.srv.kubectl_json(v, "get", "deployment", "web", "-n", ns)
        self.assertEqual([c["name"] for c in d["spec"]["template"]["spec"]["containers"]],
                         ["nginx"])
        # `kubectl set image` (a strategic patch too).
        self.kubectl(v, "set", "image", "deployment/web", "nginx=nginx:1.28", "-n", ns)
        d = self.srv.kubectl_json(v, "get", "deployment", "web", "-n", ns)
        self.assertEqual(d["spec"]["template"]["spec"]["containers"][0]["image"], "nginx:1.28")

        # apply -f of a manifest, twice (create, then a no-op / change).
        out = self.kubectl(v, "apply", "-n", ns, "-f", "-", input=MANIFEST).stdout
        self.assertEqual(out.strip(), "deployment.apps/applied created")
        out = self.kubectl(v, "apply", "-n", ns, "-f", "-",
                           input=MANIFEST.replace("replicas: 2", "replicas: 4")).stdout
        self.assertEqual(out.strip(), "deployment.apps/applied configured")
        d = self.srv.kubectl_json(v, "get", "deployment", "applied", "-n", ns)
        self.assertEqual(d["spec"]["replicas"], 4)
        self.assertEqual(d["spec"]["template"]["spec"]["containers"][0]["ports"],
                         [{"containerPort": 80, "protocol": "TCP"}])

        # delete.
        out = self.kubectl(v, "delete", "deployment", "web", "applied", "-n", ns).stdout
        self.assertIn('deployment.apps "web" deleted', out)
        self.kubectl(v, "delete", "rs", "web-manual", "-n", ns)
        p = self.kubectl(v, "get", "deployment", "web", "-n", ns, check=False)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn('deployments.apps "web" not found', p.stderr)

    # --- validation -----------------------------------------------------------------------

    def assert_invalid(self, r, message, field):
        body = json.loads(r.data)
        self.assertEqual(r.status, 422, body)
        self.assertEqual(body["reason"], "Invalid")
        self.assertEqual(body["message"], message)
        self.assertIn(field, [c["field"] for c in body["details"]["causes"]])
        self.assertEqual(body["details"]["group"], "apps")

    def test_validation(self):
        path = BASE + "/namespaces/val/deployments"
        bad = deployment("web")
        bad["spec"]["template"]["metadata"]["labels"] = {"app": "other"}
        self.assert_invalid(
            self.raw("POST", path, bad),
            'Deployment.apps "web" is invalid: spec.template.metadata.labels: Invalid value: '
            'map[string]string{"app":"other"}: `selector` does not match template `labels`',
            "spec.template.metadata.labels")
        bad = deployment("web")
        bad["spec"]["replicas"] = -1
        self.assert_invalid(
            self.raw("POST", path, bad),
            'Deployment.apps "web" is invalid: spec.replicas: Invalid value: -1: must be '
            'greater than or equal to 0', "spec.replicas")
        bad = deployment("web")
        bad["spec"]["strategy"] = {"type": "Recreate", "rollingUpdate": {"maxSurge": 1}}
        self.assert_invalid(
            self.raw("POST", path, bad),
            'Deployment.apps "web" is invalid: spec.strategy.rollingUpdate: Forbidden: may not '
            "be specified when strategy `type` is 'Recreate'", "spec.strategy.rollingUpdate")
        bad = deployment("web")
        bad["spec"]["template"]["spec"]["restartPolicy"] = "Never"
        self.assert_invalid(
            self.raw("POST", path, bad),
            'Deployment.apps "web" is invalid: spec.template.spec.restartPolicy: Unsupported '
            'value: "Never": supported values: "Always"', "spec.template.spec.restartPolicy")
        # kubectl prints upstream's text.
        for v in VERSIONS:
            p = self.kubectl(v, "create", "deployment", "bad", "--image=nginx", "--replicas=-1",
                             "-n", "val", check=False)
            self.assertNotEqual(p.returncode, 0)
            self.assertIn('error: failed to create deployment: Deployment.apps "bad" is invalid: '
                          'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
                          p.stderr, v)
            manifest = deployment("bad")
            manifest["spec"]["replicas"] = -1
            p = self.kubectl(v, "create", "-n", "val", "-f", "-", input=json.dumps(manifest),
                             check=False)
            self.assertNotEqual(p.returncode, 0)
            self.assertIn('The Deployment "bad" is invalid: spec.replicas: Invalid value: -1: '
                          'must be greater than or equal to 0', p.stderr, v)
        # The selector is immutable.
        r = self.raw("POST", path, deployment("imm"))
        self.assertEqual(r.status, 201, r.data)
        patch = {"spec": {"selector": {"matchLabels": {"app": "web2"}},
                          "template": {"metadata": {"labels": {"app": "web2"}}}}}
        r = self.raw("PATCH", path + "/imm", patch, content_type="application/merge-patch+json")
        self.assert_invalid(
            r, 'Deployment.apps "imm" is invalid: spec.selector: Invalid value: '
               'v1.LabelSelector{MatchLabels:map[string]string{"app":"web2"}, '
               'MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable',
            "spec.selector")
        # ReplicaSets share the rules.
        rs = deployment("rs1")
        rs["kind"] = "ReplicaSet"
        rs["spec"]["selector"] = {}
        self.assert_invalid(
            self.raw("POST", BASE + "/namespaces/val/replicasets", rs),
            'ReplicaSet.apps "rs1" is invalid: spec.selector: Invalid value: '
            'v1.LabelSelector{MatchLabels:map[string]string(nil), '
            'MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid '
            'for deployment', "spec.selector")

    def test_status_subresource_and_generation(self):
        path = BASE + "/namespaces/val/deployments"
        r = self.raw("POST", path, deployment("st", replicas=2))
        self.assertEqual(r.status, 201, r.data)
        created = json.loads(r.data)
        self.assertEqual(created["metadata"]["generation"], 1)
        # /status writes status only, keeps the spec, leaves the generation alone.
        body = dict(created)
        body["spec"] = dict(created["spec"], replicas=9)
        body["status"] = {"observedGeneration": 1, "replicas": 2, "readyReplicas": 1,
                          "availableReplicas": 1, "updatedReplicas": 2}
        r = self.raw("PUT", path + "/st/status", body)
        self.assertEqual(r.status, 200, r.data)
        got = json.loads(r.data)
        self.assertEqual(got["spec"]["replicas"], 2)
        self.assertEqual(got["status"]["readyReplicas"], 1)
        self.assertEqual(got["metadata"]["generation"], 1)
        # The main resource keeps the status and bumps the generation on a spec change.
        got["spec"]["replicas"] = 3
        got["status"] = {}
        r = self.raw("PUT", path + "/st", got)
        self.assertEqual(r.status, 200, r.data)
        got = json.loads(r.data)
        self.assertEqual(got["metadata"]["generation"], 2)
        self.assertEqual(got["status"]["readyReplicas"], 1)
        lines = self.kubectl("1.33", "get", "deploy", "st", "-n", "val").stdout.splitlines()
        self.assertEqual(lines[1].split()[:4], ["st", "1/3", "2", "1"])
        # Status validation.
        got["status"] = {"replicas": 1, "readyReplicas": 2}
        r = self.raw("PUT", path + "/st/status", got)
        self.assert_invalid(r, 'Deployment.apps "st" is invalid: status.readyReplicas: Invalid '
                               'value: 2: cannot be greater than status.replicas',
                            "status.readyReplicas")
        # Create-on-update is not allowed.
        missing = deployment("missing")
        missing["metadata"]["namespace"] = "val"
        r = self.raw("PUT", path + "/missing", missing)
        self.assertEqual(r.status, 404, r.data)

    # --- scale subresource (autoscaling/v1 Scale, §1.6) ------------------------------------

    def test_kubectl_scale(self):
        for v in VERSIONS:
            with self.subTest(kubectl=v):
                ns = ns_for(v)
                self.kubectl(v, "create", "deployment", "sc", "--image=nginx", "-n", ns)
                out = self.kubectl(v, "scale", "deployment", "sc", "--replicas=5",
                                   "-n", ns).stdout
                self.assertEqual(out.strip(), "deployment.apps/sc scaled")
                d = self.srv.kubectl_json(v, "get", "deployment", "sc", "-n", ns)
                self.assertEqual(d["spec"]["replicas"], 5)
                self.assertEqual(d["metadata"]["generation"], 2)
                p = self.kubectl(v, "scale", "deployment", "sc", "--replicas=-1", "-n", ns,
                                 check=False)
                self.assertNotEqual(p.returncode, 0)
                self.kubectl(v, "delete", "deployment", "sc", "-n", ns)

    def test_scale_rest(self):
        path = BASE + "/namespaces/val/deployments"
        r = self.raw("POST", path, deployment("scaled", replicas=2))
        self.assertEqual(r.status, 201, r.data)
        created = json.loads(r.data)
        r = self.raw("GET", path + "/scaled/scale")
        self.assertEqual(r.status, 200, r.data)
        scale = json.loads(r.data)
        self.assertEqual((scale["kind"], scale["apiVersion"]), ("Scale", "autoscaling/v1"))
        self.assertEqual(scale["spec"], {"replicas": 2})
        self.assertEqual(scale["status"], {"replicas": 0, "selector": "app=scaled"})
        self.assertEqual(scale["metadata"]["uid"], created["metadata"]["uid"])
        self.assertEqual(scale["metadata"]["resourceVersion"],
                         created["metadata"]["resourceVersion"])
        # PUT with the current resourceVersion; a stale one conflicts.
        scale["spec"]["replicas"] = 4
        r = self.raw("PUT", path + "/scaled/scale", scale)
        self.assertEqual(r.status, 200, r.data)
        self.assertEqual(json.loads(r.data)["spec"]["replicas"], 4)
        r = self.raw("PUT", path + "/scaled/scale", scale)
        self.assertEqual(r.status, 409, r.data)
        # Validation and the uid precondition.
        r = self.raw("PATCH", path + "/scaled/scale", {"spec": {"replicas": -1}},
                     content_type="application/merge-patch+json")
        body = json.loads(r.data)
        self.assertEqual(r.status, 422, body)
        self.assertEqual(body["message"], 'Scale.autoscaling "scaled" is invalid: '
                                          'spec.replicas: Invalid value: -1: must be greater '
                                          'than or equal to 0')
        r = self.raw("PATCH", path + "/scaled/scale", {"metadata": {"uid": "x"}},
                     content_type="application/merge-patch+json")
        body = json.loads(r.data)
        self.assertEqual(r.status, 409, body)
        self.assertEqual(body["message"],
                         'Operation cannot be fulfilled on deployments.apps "scaled": '
                         'Precondition failed: UID in precondition: x, UID in object meta: '
                         + created["metadata"]["uid"])
        r = self.raw("GET", path + "/missing/scale")
        body = json.loads(r.data)
        self.assertEqual(r.status, 404, body)
        self.assertEqual(body["message"], 'deployments/scale.apps "missing" not found')
        # ReplicaSets too, with a strategic merge patch (what the Python client sends).
        rs = deployment("rsscaled")
        rs["kind"] = "ReplicaSet"
        r = self.raw("POST", BASE + "/namespaces/val/replicasets", rs)
        self.assertEqual(r.status, 201, r.data)
        r = self.raw("PATCH", BASE + "/namespaces/val/replicasets/rsscaled/scale",
                     {"spec": {"replicas": 3}},
                     content_type="application/strategic-merge-patch+json")
        self.assertEqual(r.status, 200, r.data)
        got = json.loads(self.raw("GET", BASE + "/namespaces/val/replicasets/rsscaled").data)
        self.assertEqual(got["spec"]["replicas"], 3)

    # --- Python client ----------------------------------------------------------------------

    def test_python_client(self):
        from kubernetes import client
        apps = client.AppsV1Api(self.api)
        body = client.V1Deployment(
            metadata=client.V1ObjectMeta(name="py"),
            spec=client.V1DeploymentSpec(
                replicas=2,
                selector=client.V1LabelSelector(match_labels={"app": "py"}),
                template=client.V1PodTemplateSpec(
                    metadata=client.V1ObjectMeta(labels={"app": "py"}),
                    spec=client.V1PodSpec(containers=[
                        client.V1Container(name="c", image="nginx:1.25")]))))
        created = apps.create_namespaced_deployment("py", body)
        self.assertEqual(created.spec.strategy.type, "RollingUpdate")
        self.assertEqual(created.spec.strategy.rolling_update.max_surge, "25%")
        got = apps.read_namespaced_deployment("py", "py")
        self.assertEqual(got.spec.replicas, 2)
        self.assertEqual(got.metadata.generation, 1)
        names = [d.metadata.name for d in apps.list_namespaced_deployment("py").items]
        self.assertEqual(names, ["py"])
        all_names = [d.metadata.name for d in apps.list_deployment_for_all_namespaces().items]
        self.assertIn("py", all_names)
        patched = apps.patch_namespaced_deployment(
            "py", "py", {"spec": {"template": {"spec": {"containers": [
                {"name": "c", "image": "nginx:1.27"}]}}}})
        self.assertEqual(patched.spec.template.spec.containers[0].image, "nginx:1.27")
        self.assertEqual(patched.metadata.generation, 2)
        st = apps.read_namespaced_deployment_status("py", "py")
        self.assertEqual(st.metadata.name, "py")
        scale = apps.patch_namespaced_deployment_scale("py", "py", {"spec": {"replicas": 6}})
        self.assertEqual(scale.spec.replicas, 6)
        self.assertEqual(scale.status.selector, "app=py")
        self.assertEqual(apps.read_namespaced_deployment_scale("py", "py").spec.replicas, 6)

        rs = client.V1ReplicaSet(
            metadata=client.V1ObjectMeta(name="py-rs"),
            spec=client.V1ReplicaSetSpec(
                replicas=1, selector=client.V1LabelSelector(match_labels={"app": "pyrs"}),
                template=client.V1PodTemplateSpec(
                    metadata=client.V1ObjectMeta(labels={"app": "pyrs"}),
                    spec=client.V1PodSpec(containers=[client.V1Container(name="c",
                                                                         image="nginx")]))))
        apps.create_namespaced_replica_set("py", rs)
        got = apps.read_namespaced_replica_set("py-rs", "py")
        self.assertEqual(got.status.replicas, 0)
        self.assertEqual([r.metadata.name for r in apps.list_namespaced_replica_set("py").items],
                         ["py-rs"])
        apps.delete_namespaced_replica_set("py-rs", "py")
        apps.delete_namespaced_deployment("py", "py", propagation_policy="Background")
        self.assertEqual(apps.list_namespaced_deployment("py").items, [])

    # --- discovery, OpenAPI, storage ----------------------------------------------------------

    def test_discovery(self):
        lst = json.loads(self.raw("GET", BASE).data)
        self.assertEqual(lst["groupVersion"], GV)
        by_name = {r["name"]: r for r in lst["resources"]}
        for name, kind, short, svh in (("deployments", "Deployment", "deploy", "8aSe+NMegvE="),
                                       ("replicasets", "ReplicaSet", "rs", "P1RzHs8/mWQ=")):
            r = by_name[name]
            self.assertEqual((r["kind"], r["namespaced"], r["storageVersionHash"]),
                             (kind, True, svh))
            self.assertEqual(r["verbs"], ["create", "delete", "deletecollection", "get", "list",
                                          "patch", "update", "watch"])
            self.assertEqual(r["shortNames"], [short])
            self.assertEqual(r["categories"], ["all"])
            self.assertEqual(r["singularName"], name[:-1])
            self.assertEqual(by_name[name + "/status"]["verbs"], ["get", "patch", "update"])
            sc = by_name[name + "/scale"]
            self.assertEqual((sc["group"], sc["version"], sc["kind"], sc["verbs"]),
                             ("autoscaling", "v1", "Scale", ["get", "patch", "update"]))
        groups = json.loads(self.raw("GET", "/apis").data)["groups"]
        apps = [g for g in groups if g["name"] == "apps"][0]
        self.assertEqual(apps["preferredVersion"]["groupVersion"], GV)
        for v in VERSIONS:
            out = self.kubectl(v, "api-resources", "--api-group=apps").stdout
            rows = {line.split()[0]: line.split() for line in out.splitlines()[1:]}
            self.assertEqual(sorted(rows), ["deployments", "replicasets"], v)
            self.assertEqual(rows["deployments"][1], "deploy")
            self.assertEqual(rows["replicasets"][1], "rs")

    def test_bootstrap_roles_cover_workloads(self):
        """The default admin/edit/view ClusterRoles (aggregated from the bootstrap policy's
        system:aggregate-to-* roles) grant the apps resources as upstream's do."""
        def covered(role, verbs, resources):
            rules = json.loads(self.raw(
                "GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles/" + role).data)
            for res in resources:
                granted = set()  # upstream splits the verbs over several rules
                for r in rules.get("rules") or []:
                    if "apps" in r.get("apiGroups", []) and res in r.get("resources", []):
                        granted |= set(r.get("verbs", []))
                if not set(verbs) <= granted:
                    return False
            return True

        write = ["create", "delete", "deletecollection", "patch", "update"]
        read = ["get", "list", "watch"]
        wanted = (("view", read, ["deployments", "deployments/scale", "deployments/status",
                                  "replicasets", "replicasets/scale", "replicasets/status"]),
                  ("edit", write + read, ["deployments", "deployments/scale", "replicasets",
                                          "replicasets/scale"]),
                  ("admin", write + read, ["deployments", "replicasets"]))
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if all(covered(*w) for w in wanted):
                break
            time.sleep(0.2)
        for w in wanted:
            self.assertTrue(covered(*w), w[0])

    def test_get_all_includes_deployments(self):
        r = self.raw("POST", BASE + "/namespaces/val/deployments", deployment("everything"))
        self.assertEqual(r.status, 201, r.data)
        out = self.kubectl("1.33", "get", "all", "-n", "val").stdout
        self.assertIn("deployment.apps/everything", out)

    def test_openapi(self):
        index = json.loads(self.raw("GET", "/openapi/v3").data)
        self.assertIn("apis/" + GV, index["paths"])
        doc = json.loads(self.raw("GET", "/openapi/v3/apis/" + GV).data)
        schemas = doc["components"]["schemas"]
        dep = schemas["io.k8s.api.apps.v1.Deployment"]
        self.assertEqual(dep["x-kubernetes-group-version-kind"],
                         [{"group": "apps", "kind": "Deployment", "version": "v1"}])
        spec = schemas["io.k8s.api.apps.v1.DeploymentSpec"]
        self.assertEqual(sorted(spec["required"]), ["selector", "template"])
        conds = schemas["io.k8s.api.apps.v1.DeploymentStatus"]["properties"]["conditions"]
        self.assertEqual(conds["x-kubernetes-list-type"], "map")
        self.assertEqual(conds["x-kubernetes-patch-merge-key"], "type")
        self.assertIn("io.k8s.api.apps.v1.ReplicaSet", schemas)
        self.assertIn("/apis/%s/namespaces/{namespace}/deployments/{name}/status" % GV,
                      doc["paths"])
        scale = doc["paths"]["/apis/%s/namespaces/{namespace}/deployments/{name}/scale" % GV]
        self.assertEqual(scale["patch"]["x-kubernetes-group-version-kind"],
                         {"group": "autoscaling", "kind": "Scale", "version": "v1"})
        self.assertIn("io.k8s.api.autoscaling.v1.Scale", schemas)
        v2 = json.loads(self.raw("GET", "/openapi/v2").data)
        self.assertIn("io.k8s.api.apps.v1.Deployment", v2["definitions"])
        self.assertEqual(v2["definitions"]["io.k8s.api.apps.v1.Deployment"]
                         ["x-kubernetes-group-version-kind"],
                         [{"group": "apps", "kind": "Deployment", "version": "v1"}])
        for v in VERSIONS:
            out = self.kubectl(v, "explain", "deployment.spec.strategy").stdout
            self.assertIn("rollingUpdate", out, v)

    def test_storage_keys_on_etcd(self):
        if self.srv.etcd is None:
            self.skipTest("embedded store: keys are checked on etcd (SVCPLANE_TEST_STORE=etcd)")
        self.raw("POST", BASE + "/namespaces/val/deployments", deployment("k"))
        rs = deployment("k")
        rs["kind"] = "ReplicaSet"
        self.raw("POST", BASE + "/namespaces/val/replicasets", rs)
        for key, kind in (("/registry/deployments/val/k", "Deployment"),
                          ("/registry/replicasets/val/k", "ReplicaSet")):
            value = self.srv.etcd.get(key)
            self.assertIsNotNone(value, key)
            self.assertEqual(unwrap(value)[:2], (GV, kind))


if __name__ == "__main__":
    unittest.main()
