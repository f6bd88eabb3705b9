"""The four RBAC kinds (rbac.authorization.k8s.io/v1) served like every other kind (issue 22,
spec authn-authz-audit.md §0 and §3.4).

kubectl 1.27 (JSON bodies) and 1.33 (protobuf bodies) create each kind with the generator
commands, read the server's Tables (plain and -o wide), round-trip -o yaml through replace,
patch with all three patch types and delete; the Python client creates, lists and watches; the
§7 scenario-19 validation cases answer 422 with upstream's exact texts; discovery (legacy and
aggregated), OpenAPI v2/v3 and, on etcd, the storage keys and protobuf values are checked.
Authorization is not part of this suite: everything runs as the admin.
"""

import json
import os
import re
import time
import unittest

import harness
from test_protobuf import unwrap, wrap, serialize

VERSIONS = ("1.27", "1.33")
GV = "rbac.authorization.k8s.io/v1"
BASE = "/apis/" + GV
PB = "application/vnd.kubernetes.protobuf"
RBAC_GROUP = "rbac.authorization.k8s.io"


def ns_for(version):
    return "demo-" + version.replace(".", "")


class RbacKindsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.srv, cls.api = harness.start_with_client()
        for v in VERSIONS:
            cls.srv.kubectl("1.33", "create", "namespace", ns_for(v))
        cls.srv.kubectl("1.33", "create", "namespace", "val")

    @classmethod
    def tearDownClass(cls):
        cls.srv.cleanup()

    def masters(self):
        """A Python client of DATA_DIR/super-admin.kubeconfig (system:masters)."""
        from kubernetes import client, config
        cfg = client.Configuration()
        config.load_kube_config(
            config_file=os.path.join(self.srv.data_dir, "super-admin.kubeconfig"),
            client_configuration=cfg)
        return client.ApiClient(cfg)

    def kubectl(self, version, *args, **kw):
        return self.srv.kubectl(version, *args, **kw)

    def raw(self, method, path, body=None, content_type="application/json",
            accept="application/json"):
        if isinstance(body, dict):
            body = json.dumps(body)
        return harness.raw_request(self.api, method, path, body=body, accept=accept,
                                   content_type=content_type)

    # --- kubectl generators, tables, yaml, patch, delete -----------------------------------

    def test_kubectl_lifecycle(self):
        for v in VERSIONS:
            with self.subTest(kubectl=v):
                self.check_kubectl_lifecycle(v)

    def check_kubectl_lifecycle(self, v):
        ns = ns_for(v)
        sfx = v.replace(".", "")
        out = self.kubectl(v, "create", "role", "r", "--verb=get,list", "--resource=pods",
                           "-n", ns).stdout
        self.assertEqual(out.strip(), "role.rbac.authorization.k8s.io/r created")
        self.kubectl(v, "create", "clusterrole", "nodes-" + sfx, "--verb=get",
                     "--resource=nodes")
        self.kubectl(v, "create", "clusterrole", "agg-" + sfx, "--aggregation-rule=team=x")
        out = self.kubectl(v, "create", "rolebinding", "rb", "--clusterrole=view",
                           "--user=jane", "--group=dev", "--serviceaccount=%s:sa" % ns,
                           "-n", ns).stdout
        self.assertEqual(out.strip(), "rolebinding.rbac.authorization.k8s.io/rb created")
        self.kubectl(v, "create", "clusterrolebinding", "crb-" + sfx,
                     "--clusterrole=nodes-" + sfx, "--user=jane", "--group=ops")

        role = self.srv.kubectl_json(v, "get", "role", "r", "-n", ns)
        self.assertEqual(role["apiVersion"], GV)
        self.assertEqual(role["kind"], "Role")
        self.assertEqual(role["rules"], [{"verbs": ["get", "list"], "apiGroups": [""],
                                          "resources": ["pods"]}])
        agg = self.srv.kubectl_json(v, "get", "clusterrole", "agg-" + sfx)
        self.assertIn("rules", agg)
        self.assertIsNone(agg["rules"])  # as upstream: a nil slice after etcd
        self.assertEqual(agg["aggregationRule"],
                         {"clusterRoleSelectors": [{"matchLabels": {"team": "x"}}]})
        rb = self.srv.kubectl_json(v, "get", "rolebinding", "rb", "-n", ns)
        self.assertEqual(rb["roleRef"], {"apiGroup": RBAC_GROUP, "kind": "ClusterRole",
                                         "name": "view"})
        self.assertEqual(rb["subjects"], [
            {"kind": "User", "apiGroup": RBAC_GROUP, "name": "jane"},
            {"kind": "Group", "apiGroup": RBAC_GROUP, "name": "dev"},
            {"kind": "ServiceAccount", "name": "sa", "namespace": ns},
        ])

        # Tables: bindings NAME ROLE AGE (+ USERS GROUPS SERVICEACCOUNTS wide), roles NAME
        # CREATED AT.
        lines = self.kubectl(v, "get", "rolebindings", "-n", ns).stdout.splitlines()
        self.assertEqual(lines[0].split(), ["NAME", "ROLE", "AGE"])
        self.assertEqual(lines[1].split()[:2], ["rb", "ClusterRole/view"])
        lines = self.kubectl(v, "get", "rolebindings", "-n", ns, "-o", "wide").stdout.splitlines()
        self.assertEqual(lines[0].split(),
                         ["NAME", "ROLE", "AGE", "USERS", "GROUPS", "SERVICEACCOUNTS"])
        cells = re.split(r"\s{2,}", lines[1].strip())
        self.assertEqual(cells[0:2], ["rb", "ClusterRole/view"])
        self.assertEqual(cells[3:], ["jane", "dev", ns + "/sa"])
        lines = self.kubectl(v, "get", "clusterrolebinding", "crb-" + sfx,
                             "-o", "wide").stdout.splitlines()
        self.assertEqual(lines[0].split(),
                         ["NAME", "ROLE", "AGE", "USERS", "GROUPS", "SERVICEACCOUNTS"])
        cells = re.split(r"\s{2,}", lines[1].strip())
        self.assertEqual(cells[0:2], ["crb-" + sfx, "ClusterRole/nodes-" + sfx])
        self.assertEqual(cells[3:], ["jane", "ops"])
        lines = self.kubectl(v, "get", "roles", "-n", ns).stdout.splitlines()
        self.assertEqual(lines[0].split(), ["NAME", "CREATED", "AT"])
        self.assertRegex(lines[1], r"^r\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
        lines = self.kubectl(v, "get", "clusterrole", "agg-" + sfx).stdout.splitlines()
        self.assertEqual(lines[0].split(), ["NAME", "CREATED", "AT"])
        self.assertTrue(lines[1].startswith("agg-" + sfx + " "))

        # describe reads them through kubectl's typed client.
        out = self.kubectl(v, "describe", "rolebinding", "rb", "-n", ns).stdout
        self.assertRegex(out, r"Role:\n  Kind:  ClusterRole\n  Name:  view\n")
        self.assertRegex(out, r"ServiceAccount\s+sa\s+" + ns)
        out = self.kubectl(v, "describe", "role", "r", "-n", ns).stdout
        self.assertRegex(out, r"pods\s+\[\]\s+\[\]\s+\[get list\]")

        # -o yaml round trip: replace with what get printed changes nothing but the version.
        for kind, name, ns_args in (("role", "r", ["-n", ns]), ("rolebinding", "rb", ["-n", ns]),
                                    ("clusterrole", "agg-" + sfx, []),
                                    ("clusterrolebinding", "crb-" + sfx, [])):
            before = self.srv.kubectl_json(v, "get", kind, name, *ns_args)
            y = self.kubectl(v, "get", kind, name, "-o", "yaml", *ns_args).stdout
            self.kubectl(v, "replace", "-f", "-", input=y)
            after = self.srv.kubectl_json(v, "get", kind, name, *ns_args)
            for k in ("rules", "aggregationRule", "subjects", "roleRef"):
                self.assertEqual(before.get(k), after.get(k), (kind, k))
            self.assertEqual(before["metadata"]["uid"], after["metadata"]["uid"])

        # Patches: strategic (kubectl's default), merge and json.
        self.kubectl(v, "patch", "role", "r", "-n", ns, "-p",
                     '{"metadata":{"labels":{"a":"1"}}}')
        self.kubectl(v, "patch", "role", "r", "-n", ns, "--type=merge", "-p",
                     '{"rules":[{"verbs":["watch"],"apiGroups":[""],"resources":["pods"]}]}')
        self.kubectl(v, "patch", "role", "r", "-n", ns, "--type=json", "-p",
                     '[{"op":"add","path":"/rules/0/verbs/-","value":"get"}]')
        role = self.srv.kubectl_json(v, "get", "role", "r", "-n", ns)
        self.assertEqual(role["metadata"]["labels"], {"a": "1"})
        self.assertEqual(role["rules"][0]["verbs"], ["watch", "get"])
        # Subjects are atomic (no patch strategy upstream): a strategic patch replaces them.
        self.kubectl(v, "patch", "rolebinding", "rb", "-n", ns, "-p",
                     '{"subjects":[{"kind":"User","name":"bob"}]}')
        rb = self.srv.kubectl_json(v, "get", "rolebinding", "rb", "-n", ns)
        self.assertEqual(rb["subjects"], [{"kind": "User", "apiGroup": RBAC_GROUP,
                                           "name": "bob"}])

        # Delete.
        out = self.kubectl(v, "delete", "role", "r", "-n", ns).stdout
        self.assertEqual(out.strip(), 'role.rbac.authorization.k8s.io "r" deleted')
        p = self.kubectl(v, "get", "role", "r", "-n", ns, check=False)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn('roles.rbac.authorization.k8s.io "r" not found', p.stderr)
        for kind, name, ns_args in (("rolebinding", "rb", ["-n", ns]),
                                    ("clusterrole", "agg-" + sfx, []),
                                    ("clusterrole", "nodes-" + sfx, []),
                                    ("clusterrolebinding", "crb-" + sfx, [])):
            self.kubectl(v, "delete", kind, name, *ns_args)
            p = self.kubectl(v, "get", kind, name, *ns_args, check=False)
            self.assertNotEqual(p.returncode, 0, (kind, name))

    # --- Python client ----------------------------------------------------------------------

    def test_python_client_create_list_watch(self):
        from kubernetes import client, watch
        rbac = client.RbacAuthorizationV1Api(self.api)
        ns = "val"
        role = client.V1Role(
            metadata=client.V1ObjectMeta(name="py-role"),
            rules=[client.V1PolicyRule(verbs=["get"], api_groups=[""], resources=["pods"],
                                       resource_names=["p1"])])
        created = rbac.create_namespaced_role(ns, role)
        self.assertEqual(created.rules[0].resource_names, ["p1"])
        binding = client.V1RoleBinding(
            metadata=client.V1ObjectMeta(name="py-rb"),
            role_ref=client.V1RoleRef(api_group=RBAC_GROUP, kind="Role", name="py-role"),
            subjects=[client.V1Subject(kind="User", name="jane", api_group=RBAC_GROUP)])
        rbac.create_namespaced_role_binding(ns, binding)
        names = [r.metadata.name for r in rbac.list_namespaced_role(ns).items]
        self.assertIn("py-role", names)
        rbs = rbac.list_role_binding_for_all_namespaces().items
        self.assertIn(("val", "py-rb"), [(b.metadata.namespace, b.metadata.name) for b in rbs])

        listed = rbac.list_cluster_role()
        rv = listed.metadata.resource_version
        cr = client.V1ClusterRole(
            metadata=client.V1ObjectMeta(name="py-cr", labels={"team": "y"}),
            aggregation_rule=client.V1AggregationRule(cluster_role_selectors=[
                client.V1LabelSelector(match_labels={"team": "x"})]))
        rbac.create_cluster_role(cr)
        crb = client.V1ClusterRoleBinding(
            metadata=client.V1ObjectMeta(name="py-crb"),
            role_ref=client.V1RoleRef(api_group=RBAC_GROUP, kind="ClusterRole", name="py-cr"),
            subjects=[client.V1Subject(kind="ServiceAccount", name="sa", namespace="val")])
        rbac.create_cluster_role_binding(crb)
        seen = None
        for ev in watch.Watch().stream(rbac.list_cluster_role, resource_version=rv,
                                       timeout_seconds=5):
            if ev["object"].metadata.name == "py-cr":
                seen = ev
                break
        self.assertIsNotNone(seen)
        self.assertEqual(seen["type"], "ADDED")
        self.assertEqual(seen["object"].aggregation_rule.cluster_role_selectors[0].match_labels,
                         {"team": "x"})
        got = rbac.read_cluster_role_binding("py-crb")
        self.assertEqual(got.subjects[0].namespace, "val")
        self.assertIsNone(got.subjects[0].api_group)  # ServiceAccount: stays ""
        rbac.delete_cluster_role("py-cr")
        rbac.delete_cluster_role_binding("py-crb")

    # --- validation (§7 scenario 19) -----------------------------------------------------------

    def post(self, path, obj):
        r = self.raw("POST", path, obj)
        return r.status, json.loads(r.data)

    def assert_invalid(self, status, body, message, field):
        self.assertEqual(status, 422, body)
        self.assertEqual(body["reason"], "Invalid")
        self.assertEqual(body["message"], message)
        self.assertIn(field, [c["field"] for c in body["details"]["causes"]])

    def test_validation_scenario_19(self):
        path = BASE + "/namespaces/val/roles"
        status, body = self.post(path, {
            "apiVersion": GV, "kind": "Role", "metadata": {"name": "urls"},
            "rules": [{"verbs": ["get"], "nonResourceURLs": ["/metrics"]}]})
        self.assert_invalid(status, body,
                            'Role.rbac.authorization.k8s.io "urls" is invalid: '
                            'rules[0].nonResourceURLs: Invalid value: []string{"/metrics"}: '
                            'namespaced rules cannot apply to non-resource URLs',
                            "rules[0].nonResourceURLs")
        status, body = self.post(path, {
            "apiVersion": GV, "kind": "Role", "metadata": {"name": "nogroup"},
            "rules": [{"verbs": ["get"], "resources": ["pods"]}]})
        self.assert_invalid(status, body,
                            'Role.rbac.authorization.k8s.io "nogroup" is invalid: '
                            'rules[0].apiGroups: Required value: resource rules must supply at '
                            'least one api group', "rules[0].apiGroups")

        rb_path = BASE + "/namespaces/val/rolebindings"
        foo = {"apiVersion": GV, "kind": "RoleBinding", "metadata": {"name": "foo"},
               "roleRef": {"apiGroup": RBAC_GROUP, "kind": "Foo", "name": "x"}}
        # The admin kubeconfig holds cluster-admin through a binding, so its binding writes are
        # escalation-checked before validation, and upstream's role lookup refuses the kind
        # first (a plain error: 500). Spec §7's admin is in system:masters, which skips the
        # check: validation answers it.
        status, body = self.post(rb_path, foo)
        self.assertEqual(status, 500, body)
        self.assertEqual(body["message"], 'unsupported role reference kind: "Foo"')
        r = harness.raw_request(self.masters(), "POST", rb_path, body=json.dumps(foo),
                                content_type="application/json")
        status, body = r.status, json.loads(r.data)
        self.assert_invalid(status, body,
                            'RoleBinding.rbac.authorization.k8s.io "foo" is invalid: '
                            'roleRef.kind: Unsupported value: "Foo": supported values: '
                            '"Role", "ClusterRole"', "roleRef.kind")

        # A User subject without apiGroup (and a roleRef without one) is defaulted.
        status, body = self.post(rb_path, {
            "apiVersion": GV, "kind": "RoleBinding", "metadata": {"name": "jane"},
            "roleRef": {"kind": "ClusterRole", "name": "view"},
            "subjects": [{"kind": "User", "name": "jane"}]})
        self.assertEqual(status, 201, body)
        self.assertEqual(body["subjects"], [{"kind": "User", "apiGroup": RBAC_GROUP,
                                             "name": "jane"}])
        self.assertEqual(body["roleRef"]["apiGroup"], RBAC_GROUP)
        stored = json.loads(self.raw("GET", rb_path + "/jane").data)
        self.assertEqual(stored["subjects"][0]["apiGroup"], RBAC_GROUP)

        # roleRef is immutable.
        stored["roleRef"]["name"] = "edit"
        r = self.raw("PUT", rb_path + "/jane", stored)
        body = json.loads(r.data)
        self.assert_invalid(r.status, body,
                            'RoleBinding.rbac.authorization.k8s.io "jane" is invalid: roleRef: '
                            'Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", '
                            'Kind:"ClusterRole", Name:"edit"}: cannot change roleRef', "roleRef")
        # The same through kubectl (1.27 JSON), whose message kubectl prints.
        p = self.kubectl("1.27", "patch", "rolebinding", "jane", "-n", "val", "--type=merge",
                         "-p", '{"roleRef":{"name":"edit"}}', check=False)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("cannot change roleRef", p.stderr)

        # ClusterRoleBinding: only ClusterRole; ServiceAccounts need a namespace.
        status, body = self.post(BASE + "/clusterrolebindings", {
            "apiVersion": GV, "kind": "ClusterRoleBinding", "metadata": {"name": "c"},
            "roleRef": {"apiGroup": RBAC_GROUP, "kind": "Role", "name": "x"},
            "subjects": [{"kind": "ServiceAccount", "name": "sa"}]})
        self.assert_invalid(status, body,
                            'ClusterRoleBinding.rbac.authorization.k8s.io "c" is invalid: '
                            '[roleRef.kind: Unsupported value: "Role": supported values: '
                            '"ClusterRole", subjects[0].namespace: Required value]',
                            "subjects[0].namespace")
        status, body = self.post(BASE + "/clusterroles", {
            "apiVersion": GV, "kind": "ClusterRole", "metadata": {"name": "a/b"},
            "aggregationRule": {}})
        self.assertEqual(status, 422, body)
        self.assertIn("aggregationRule.clusterRoleSelectors: Required value: at least one "
                      "clusterRoleSelector required if aggregationRule is non-nil",
                      body["message"])

    def test_namespace_deletion_removes_roles_and_bindings(self):
        self.kubectl("1.33", "create", "namespace", "doomed")
        self.kubectl("1.33", "create", "role", "r", "--verb=get", "--resource=pods",
                     "-n", "doomed")
        self.kubectl("1.33", "create", "rolebinding", "rb", "--role=r", "--user=jane",
                     "-n", "doomed")
        self.kubectl("1.33", "delete", "namespace", "doomed", "--timeout=30s")
        for res in ("roles", "rolebindings"):
            r = self.raw("GET", BASE + "/namespaces/doomed/" + res)
            self.assertEqual(json.loads(r.data)["items"], [], res)

    def test_create_on_update(self):
        # RBAC strategies allow create on update: PUT of a missing object creates it.
        obj = {"apiVersion": GV, "kind": "ClusterRole", "metadata": {"name": "put-created"},
               "rules": [{"verbs": ["get"], "nonResourceURLs": ["/healthz"]}]}
        r = self.raw("PUT", BASE + "/clusterroles/put-created", obj)
        self.assertEqual(r.status, 201, r.data)

    # --- protobuf -----------------------------------------------------------------------------

    def test_protobuf_bodies(self):
        # RoleBinding{metadata{name}, subjects[{kind, name}], roleRef{apiGroup, kind, name}},
        # the shape kubectl 1.33 sends: a User subject without apiGroup gets it defaulted.
        meta = serialize([(1, 2, b"pb-rb")])
        subject = serialize([(1, 2, b"User"), (3, 2, b"jane")])
        ref = serialize([(1, 2, RBAC_GROUP.encode()), (2, 2, b"ClusterRole"), (3, 2, b"view")])
        raw = serialize([(1, 2, meta), (2, 2, subject), (3, 2, ref)])
        r = self.raw("POST", BASE + "/namespaces/val/rolebindings", wrap(GV, "RoleBinding", raw),
                     content_type=PB, accept=PB)
        self.assertEqual(r.status, 201, r.data)
        api_version, kind, _ = unwrap(r.data)
        self.assertEqual((api_version, kind), (GV, "RoleBinding"))
        got = json.loads(self.raw("GET", BASE + "/namespaces/val/rolebindings/pb-rb").data)
        self.assertEqual(got["subjects"], [{"kind": "User", "apiGroup": RBAC_GROUP,
                                            "name": "jane"}])
        for res in ("clusterroles", "clusterrolebindings"):
            r = self.raw("GET", BASE + "/" + res, accept=PB)
            self.assertEqual(r.status, 200)
            self.assertEqual(unwrap(r.data)[1], "ClusterRoleList" if res == "clusterroles"
                             else "ClusterRoleBindingList")

    def test_deletecollection(self):
        for i in range(3):
            self.post(BASE + "/namespaces/val/roles", {
                "apiVersion": GV, "kind": "Role", "metadata": {"name": "dc-%d" % i,
                                                              "labels": {"dc": "yes"}},
                "rules": []})
        r = self.raw("DELETE", BASE + "/namespaces/val/roles?labelSelector=dc%3Dyes")
        self.assertEqual(r.status, 200, r.data)
        left = json.loads(self.raw("GET", BASE + "/namespaces/val/roles?labelSelector=dc%3Dyes")
                          .data)
        self.assertEqual(left["items"], [])

    # --- aggregation controller (§7 scenario 24, on roles of our own) --------------------------

    def rules_of(self, name):
        return json.loads(self.raw("GET", BASE + "/clusterroles/" + name).data).get("rules")

    def wait_rules(self, name, want, timeout=5.0):
        deadline = time.monotonic() + timeout
        got = None
        while time.monotonic() < deadline:
            got = self.rules_of(name)
            if got == want:
                return got
            time.sleep(0.1)
        return got

    def test_aggregation_controller(self):
        # A label of our own: the bootstrap policy's roles carry the upstream ones.
        label = "example.com/aggregate-to-my-view"
        self.kubectl("1.33", "create", "clusterrole", "my-view",
                     "--aggregation-rule=%s=true" % label)
        self.kubectl("1.33", "create", "clusterrole", "lease-view", "--verb=get",
                     "--resource=leases")
        self.kubectl("1.33", "label", "clusterrole", "lease-view", label + "=true")
        rule = {"verbs": ["get"], "apiGroups": ["coordination.k8s.io"], "resources": ["leases"]}
        self.assertEqual(self.wait_rules("my-view", [rule]), [rule])
        # Rules written by hand on an aggregated role are stomped.
        r = self.raw("PATCH", BASE + "/clusterroles/my-view",
                     {"rules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}]},
                     content_type="application/merge-patch+json")
        self.assertEqual(r.status, 200, r.data)
        self.assertEqual(self.wait_rules("my-view", [rule]), [rule])
        self.kubectl("1.33", "delete", "clusterrole", "lease-view")
        self.assertIsNone(self.wait_rules("my-view", None))
        self.kubectl("1.33", "delete", "clusterrole", "my-view")

    # --- discovery, OpenAPI, storage ----------------------------------------------------------

    def test_discovery(self):
        lst = json.loads(self.raw("GET", BASE).data)
        self.assertEqual(lst["groupVersion"], GV)
        by_name = {r["name"]: r for r in lst["resources"]}
        want = {"clusterrolebindings": ("ClusterRoleBinding", False, "48tpQ8gZHFc="),
                "clusterroles": ("ClusterRole", False, "bYE5ZWDrJ44="),
                "rolebindings": ("RoleBinding", True, "eGsCzGH6b1g="),
                "roles": ("Role", True, "7FuwZcIIItM=")}
        self.assertEqual(sorted(by_name), sorted(want))
        for name, (kind, namespaced, svh) in want.items():
            r = by_name[name]
            self.assertEqual((r["kind"], r["namespaced"], r["storageVersionHash"]),
                             (kind, namespaced, svh))
            self.assertEqual(r["verbs"], ["create", "delete", "deletecollection", "get", "list",
                                          "patch", "update", "watch"])
            self.assertEqual(r["singularName"], name[:-1])
            self.assertNotIn("shortNames", r)
        groups = json.loads(self.raw("GET", "/apis").data)["groups"]
        self.assertIn(RBAC_GROUP, [g["name"] for g in groups])
        agg = json.loads(self.raw(
            "GET", "/apis",
            accept="application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList").data)
        item = [i for i in agg["items"] if i["metadata"]["name"] == RBAC_GROUP][0]
        resources = {r["resource"]: r for r in item["versions"][0]["resources"]}
        self.assertEqual(resources["roles"]["scope"], "Namespaced")
        self.assertEqual(resources["clusterroles"]["scope"], "Cluster")
        for v in VERSIONS:
            out = self.kubectl(v, "api-resources", "--api-group=" + RBAC_GROUP).stdout
            rows = sorted(line.split()[0] for line in out.splitlines()[1:])
            self.assertEqual(rows, sorted(want), v)

    def test_openapi_and_explain(self):
        index = json.loads(self.raw("GET", "/openapi/v3").data)
        self.assertIn("apis/" + GV, index["paths"])
        doc = json.loads(self.raw("GET", "/openapi/v3/apis/" + GV).data)
        schemas = doc["components"]["schemas"]
        for k in ("Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding", "PolicyRule",
                  "Subject", "RoleRef", "AggregationRule"):
            self.assertIn("io.k8s.api.rbac.v1." + k, schemas)
        self.assertIn("/apis/%s/namespaces/{namespace}/roles/{name}" % GV, doc["paths"])
        for v in VERSIONS:
            out = self.kubectl(v, "explain", "clusterrole.aggregationRule").stdout
            self.assertIn("clusterRoleSelectors", out, v)
            out = self.kubectl(v, "explain", "rolebinding.roleRef").stdout
            self.assertIn("apiGroup", out, v)

    def test_storage_keys_on_etcd(self):
        if self.srv.etcd is None:
            self.skipTest("embedded store: keys are checked on etcd (SVCPLANE_TEST_STORE=etcd)")
        self.post(BASE + "/namespaces/val/roles", {
            "apiVersion": GV, "kind": "Role", "metadata": {"name": "k"}, "rules": []})
        self.post(BASE + "/namespaces/val/rolebindings", {
            "apiVersion": GV, "kind": "RoleBinding", "metadata": {"name": "k"},
            "roleRef": {"apiGroup": RBAC_GROUP, "kind": "Role", "name": "k"}})
        self.post(BASE + "/clusterroles", {
            "apiVersion": GV, "kind": "ClusterRole", "metadata": {"name": "k"}, "rules": []})
        self.post(BASE + "/clusterrolebindings", {
            "apiVersion": GV, "kind": "ClusterRoleBinding", "metadata": {"name": "k"},
            "roleRef": {"apiGroup": RBAC_GROUP, "kind": "ClusterRole", "name": "k"}})
        for key, kind in (("/registry/roles/val/k", "Role"),
                          ("/registry/rolebindings/val/k", "RoleBinding"),
                          ("/registry/clusterroles/k", "ClusterRole"),
                          ("/registry/clusterrolebindings/k", "ClusterRoleBinding")):
            value = self.srv.etcd.get(key)
            self.assertIsNotNone(value, key)
            self.assertEqual(unwrap(value)[:2], (GV, kind))


if __name__ == "__main__":
    unittest.main()
