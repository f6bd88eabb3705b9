"""Admission on users' writes (issue 22 items 2 and 3; spec authn-authz-audit §3.6, §3.8, §7
scenarios 20-23 and 32-36): the RBAC privilege-escalation checks (`escalate`, `bind`, the
aggregationRule) and NodeRestriction, on create, update, every patch type, status subresources
and delete, against `svcplane serve` with Node,RBAC.

Clients: real kubectl 1.33 (protobuf bodies) and 1.27 (JSON), raw HTTPS for exact bodies (JSON
and protobuf Status), token-file users (tokens.csv of spec §7) and client certificates from a
test CA (test_authn.py's helpers): n1 and n2 (CN=system:node:<n>, O=system:nodes) and n1 without
the group. A refused write must leave the stored object as it was.
"""

import http.client
import json
import os
import shutil
import ssl
import subprocess
import tempfile
import time
import unittest

from cryptography.hazmat.primitives import serialization

import harness
from protowire import parse
from test_authn import _name, make_ca, make_leaf, write_pair

PB = "application/vnd.kubernetes.protobuf"
RBAC = "/apis/rbac.authorization.k8s.io/v1"
LEASES = "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases"
TOKENS = """admintok,admin,u-admin,"system:masters"
janetok,jane,u-jane,"dev"
bobtok,bob,u-bob
"""
JANE_CANNOT_GRANT = ('user "jane" (groups=["dev" "system:authenticated"]) is attempting to '
                     'grant RBAC permissions not currently held:\n')
NODES_GET = '{APIGroups:[""], Resources:["nodes"], Verbs:["get"]}'


def proto_status(body):
    """(message, reason, details dict, code) of a protobuf metav1.Status in its envelope."""
    assert body[:4] == b"k8s\x00", body[:16]
    env = {f: v for f, _, v in parse(body[4:])}
    tm = {f: v for f, _, v in parse(env[1])}
    assert (tm[1], tm[2]) == (b"v1", b"Status"), tm
    st = {f: v for f, _, v in parse(env[2])}
    details = {}
    names = {1: "name", 2: "group", 3: "kind"}
    for f, _, v in parse(st.get(5, b"")):
        if f in names:
            details[names[f]] = v.decode()
    return st[3].decode(), st[4].decode(), details, st[6]


class AdmissionRbacTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = d = tempfile.mkdtemp(prefix="svcplane-admit-")
        ca = make_ca("test-ca")
        with open(os.path.join(d, "ca.crt"), "wb") as f:
            f.write(ca[0].public_bytes(serialization.Encoding.PEM))
        cls.certs = {
            "n1": write_pair(d, "n1", make_leaf(ca, _name("system:node:n1", ["system:nodes"]))),
            "n2": write_pair(d, "n2", make_leaf(ca, _name("system:node:n2", ["system:nodes"]))),
            "n1-nogroup": write_pair(d, "n1-nogroup", make_leaf(ca, _name("system:node:n1"))),
        }
        tokens = os.path.join(d, "tokens.csv")
        with open(tokens, "w") as f:
            f.write(TOKENS)
        cls.srv = harness.Server(["--client-ca-file", os.path.join(d, "ca.crt"),
                                  "--token-auth-file", tokens])
        try:
            cls.srv.start()
            cls.seed()
        except BaseException:
            cls.srv.cleanup()
            shutil.rmtree(d, ignore_errors=True)
            raise
        # A kubeconfig with no credentials: each test adds its own on the command line.
        cls.server_ca, cls.bare_kubeconfig = harness.bare_kubeconfig(cls.srv, d)

    @classmethod
    def seed(cls):
        """The objects of spec §7's fixture, and jane bound to `admin` in demo."""
        k = lambda *a, input=None: cls.srv.kubectl("1.33", *a, input=input)
        for ns in ("demo", "other"):
            k("create", "namespace", ns)
        for node in ("n1", "n2"):
            k("apply", "-f", "-", input=json.dumps({
                "apiVersion": "v1", "kind": "Node",
                "metadata": {"name": node, "labels": {"kubernetes.io/hostname": node}}}))
            k("apply", "-f", "-", input=json.dumps({
                "apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                "metadata": {"name": node, "namespace": "kube-node-lease"},
                "spec": {"holderIdentity": node, "leaseDurationSeconds": 40}}))
        for name, node in (("p1", "n1"), ("p2", "n2")):
            k("apply", "-f", "-", input=json.dumps({
                "apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": name, "namespace": "demo", "labels": {"app": "web"}},
                "spec": {"nodeName": node, "containers": [{"name": "c", "image": "nginx"}]}}))
        k("create", "rolebinding", "jane-admin", "--clusterrole=admin", "--user=jane", "-n", "demo")

    @classmethod
    def tearDownClass(cls):
        cls.srv.cleanup()
        shutil.rmtree(cls.dir, ignore_errors=True)

    # --- clients ---------------------------------------------------------------------------

    def request(self, method, path, token=None, cert=None, body=None, accept="application/json",
                content_type="application/json"):
        """(status, headers dict, body bytes) of one raw HTTPS request."""
        ctx = ssl.create_default_context(cafile=self.server_ca)
        if cert:
            ctx.load_cert_chain(*self.certs[cert])
        conn = http.client.HTTPSConnection("127.0.0.1", self.srv.port, context=ctx, timeout=30)
        h = {"Accept": accept}
        if body is not None:
            h["Content-Type"] = content_type
            if not isinstance(body, (bytes, str)):
                body = json.dumps(body)
        if token:
            h["Authorization"] = "Bearer " + token
        try:
            conn.request(method, path, body=body, headers=h)
            r = conn.getresponse()
            return r.status, dict(r.getheaders()), r.read()
        finally:
            conn.close()

    def call(self, method, path, token=None, cert=None, body=None, content_type="application/json"):
        """(status, decoded JSON body) of one raw request."""
        status, _, out = self.request(method, path, token, cert, body, content_type=content_type)
        return status, json.loads(out) if out.startswith(b"{") else out

    def kubectl(self, version, *args, check=True, input=None):
        """kubectl with a credential-less kubeconfig (credentials come in `args`)."""
        env = dict(os.environ, HOME=self.dir)
        env.pop("KUBECONFIG", None)
        cmd = [harness.kubectl_path(version), "--kubeconfig", self.bare_kubeconfig] + list(args)
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, input=input,
                           timeout=harness.KUBECTL_TIMEOUT)
        if check and p.returncode != 0:
            raise AssertionError("%s: %d\n%s\n%s%s" % (args, p.returncode, p.stdout, p.stderr,
                                                       self.srv.died()))
        return p

    def as_cert(self, name):
        crt, key = self.certs[name]
        return ["--client-certificate", crt, "--client-key", key]

    def admin(self, *args, input=None):
        return self.srv.kubectl("1.33", *args, input=input)

    def admin_get(self, path):
        status, body = self.call("GET", path, token="admintok")
        self.assertEqual(status, 200, body)
        return body

    def eventually(self, fn, timeout=10):
        """Retries `fn` (which asserts) until it passes: the authorizer applies RBAC writes from
        its watch, a moment after they were acknowledged."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                return fn()
            except AssertionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def wait_can(self, token, *can_i_args):
        def check():
            p = self.kubectl("1.33", "--token=" + token, "auth", "can-i", *can_i_args, check=False)
            self.assertEqual(p.stdout.strip(), "yes", (can_i_args, p.stdout, p.stderr))
        self.eventually(check)

    def assert_kubectl_forbidden(self, p, message):
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertEqual(p.stderr.strip(), "Error from server (Forbidden): " + message)

    def assert_status(self, got, code, message, details):
        status, body = got
        self.assertEqual(status, code, body)
        self.assertEqual(body, {
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": message, "reason": {403: "Forbidden", 404: "NotFound"}[code],
            "details": details, "code": code})

    # --- privilege escalation (§7 scenarios 20-23) -------------------------------------------

    def test_20_role_beyond_held_rights(self):
        self.wait_can("janetok", "create", "roles", "-n", "demo")
        for version, name in (("1.33", "r"), ("1.27", "r27")):
            with self.subTest(version):
                p = self.kubectl(version, "--token=janetok", "create", "role", name,
                                 "--verb=get", "--resource=nodes", "-n", "demo", check=False)
                self.assert_kubectl_forbidden(
                    p, 'roles.rbac.authorization.k8s.io "%s" is forbidden: %s%s'
                    % (name, JANE_CANNOT_GRANT, NODES_GET))
                # Nothing was stored: the same name is free for a role she may write.
                self.kubectl(version, "--token=janetok", "create", "role", name, "--verb=get",
                             "--resource=pods", "-n", "demo")
        # The exact Status, in JSON and in protobuf as the client asks.
        role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
                "metadata": {"name": "raw"},
                "rules": [{"apiGroups": [""], "resources": ["nodes"], "verbs": ["get"]}]}
        message = ('roles.rbac.authorization.k8s.io "raw" is forbidden: ' + JANE_CANNOT_GRANT +
                   NODES_GET)
        details = {"name": "raw", "group": "rbac.authorization.k8s.io", "kind": "roles"}
        self.assert_status(self.call("POST", RBAC + "/namespaces/demo/roles", "janetok",
                                     body=role), 403, message, details)
        status, headers, out = self.request("POST", RBAC + "/namespaces/demo/roles", "janetok",
                                            body=role, accept=PB + ", application/json")
        self.assertEqual(status, 403)
        self.assertEqual(headers["Content-Type"], PB)
        self.assertEqual(proto_status(out), (message, "Forbidden", details, 403))
        status, _ = self.call("GET", RBAC + "/namespaces/demo/roles/raw", "admintok")
        self.assertEqual(status, 404)

    def test_20_refused_updates_and_patches_change_nothing(self):
        self.wait_can("janetok", "update", "roles", "-n", "demo")
        self.admin("create", "role", "held", "--verb=get", "--resource=pods", "-n", "demo")
        path = RBAC + "/namespaces/demo/roles/held"
        before = self.admin_get(path)
        message = ('roles.rbac.authorization.k8s.io "held" is forbidden: ' + JANE_CANNOT_GRANT +
                   NODES_GET)
        details = {"name": "held", "group": "rbac.authorization.k8s.io", "kind": "roles"}
        nodes_rule = {"apiGroups": [""], "resources": ["nodes"], "verbs": ["get"]}
        put = dict(before, rules=[nodes_rule])
        self.assert_status(self.call("PUT", path, "janetok", body=put), 403, message, details)
        patches = {
            "application/json-patch+json": [{"op": "replace", "path": "/rules/0/resources/0",
                                             "value": "nodes"}],
            "application/merge-patch+json": {"rules": [nodes_rule]},
            "application/strategic-merge-patch+json": {"rules": [nodes_rule]},
        }
        for content_type, patch in patches.items():
            with self.subTest(content_type):
                self.assert_status(self.call("PATCH", path, "janetok", body=patch,
                                             content_type=content_type), 403, message, details)
        # kubectl 1.33 edits in protobuf-accepting form.
        p = self.kubectl("1.33", "--token=janetok", "patch", "role", "held", "-n", "demo",
                         "--type=json", "-p",
                         '[{"op":"replace","path":"/rules/0/resources/0","value":"nodes"}]',
                         check=False)
        self.assert_kubectl_forbidden(p, message)
        after = self.admin_get(path)
        self.assertEqual(after, before)
        # A change within her rights goes through.
        self.assertEqual(self.call("PATCH", path, "janetok",
                                   body={"rules": [{"apiGroups": [""], "resources": ["pods"],
                                                    "verbs": ["get", "list"]}]},
                                   content_type="application/merge-patch+json")[0], 200)
        # Deletes are never escalation-checked.
        self.assertEqual(self.call("DELETE", path, "janetok")[0], 200)

    def test_21_escalate_lifts_the_check(self):
        self.admin("create", "role", "escalator", "--verb=escalate",
                   "--resource=roles.rbac.authorization.k8s.io", "-n", "demo")
        self.admin("create", "rolebinding", "jane-escalate", "--role=escalator", "--user=jane",
                   "-n", "demo")
        try:
            self.wait_can("janetok", "escalate", "roles.rbac.authorization.k8s.io", "-n", "demo")
            self.kubectl("1.33", "--token=janetok", "create", "role", "r21", "--verb=get",
                         "--resource=nodes", "-n", "demo")
            role = self.admin_get(RBAC + "/namespaces/demo/roles/r21")
            self.assertEqual(role["rules"], [{"verbs": ["get"], "apiGroups": [""],
                                              "resources": ["nodes"]}])
        finally:
            self.admin("delete", "rolebinding", "jane-escalate", "-n", "demo")

    def test_22_bind_is_per_role_name(self):
        self.wait_can("janetok", "create", "rolebindings", "-n", "demo")
        prefix = 'rolebindings.rbac.authorization.k8s.io "%s" is forbidden: ' + JANE_CANNOT_GRANT
        all_of_it = ('{APIGroups:["*"], Resources:["*"], Verbs:["*"]}\n'
                     '{NonResourceURLs:["*"], Verbs:["*"]}')
        # (a) cluster-admin is beyond her rights. (kubectl create rolebinding prints
        # "error: failed to create rolebinding: <message>".)
        p = self.kubectl("1.33", "--token=janetok", "create", "rolebinding", "x",
                         "--clusterrole=cluster-admin", "--user=jane", "-n", "demo", check=False)
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertIn(prefix % "x" + all_of_it + "\n", p.stderr)
        # (b) bind on clusterroles/cluster-admin.
        self.admin("create", "clusterrole", "bind-cluster-admin", "--verb=bind",
                   "--resource=clusterroles", "--resource-name=cluster-admin")
        self.admin("create", "rolebinding", "jane-bind", "--clusterrole=bind-cluster-admin",
                   "--user=jane", "-n", "demo")
        self.wait_can("janetok", "bind", "clusterroles/cluster-admin", "-n", "demo")
        # (c) not for another role (kubectl 1.27: a JSON body).
        p = self.kubectl("1.27", "--token=janetok", "create", "rolebinding", "y",
                         "--clusterrole=system:node", "--user=jane", "-n", "demo", check=False)
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertIn(prefix % "y", p.stderr)
        self.assertIn(prefix % "y" + '{APIGroups:[""], Resources:["nodes"], Verbs:["create" ',
                      p.stderr)
        # (d) (a) again.
        self.kubectl("1.33", "--token=janetok", "create", "rolebinding", "x",
                     "--clusterrole=cluster-admin", "--user=jane", "-n", "demo")
        binding = self.admin_get(RBAC + "/namespaces/demo/rolebindings/x")
        self.assertEqual(binding["roleRef"]["name"], "cluster-admin")
        status, _ = self.call("GET", RBAC + "/namespaces/demo/rolebindings/y", "admintok")
        self.assertEqual(status, 404)

    def test_22_binding_to_a_missing_role(self):
        # In its own namespace: scenario 22 leaves jane cluster-admin in demo.
        self.admin("create", "rolebinding", "jane-admin", "--clusterrole=admin", "--user=jane",
                   "-n", "other")
        self.wait_can("janetok", "create", "rolebindings", "-n", "other")
        binding = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
                   "metadata": {"name": "to-ghost"},
                   "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role",
                               "name": "ghost"},
                   "subjects": [{"kind": "User", "name": "jane"}]}
        status, body = self.call("POST", RBAC + "/namespaces/other/rolebindings", "janetok",
                                 body=binding)
        self.assertEqual(status, 404, body)
        self.assertEqual(body["message"], 'roles.rbac.authorization.k8s.io "ghost" not found')

    def test_23_aggregation_rule_needs_cluster_admin(self):
        self.admin("create", "clusterrole", "clusterrole-creator", "--verb=create",
                   "--resource=clusterroles")
        self.admin("create", "clusterrolebinding", "bob-clusterrole-creator",
                   "--clusterrole=clusterrole-creator", "--user=bob")
        self.wait_can("bobtok", "create", "clusterroles")
        message = ('clusterroles.rbac.authorization.k8s.io "%s" is forbidden: must have '
                   'cluster-admin privileges to use the aggregationRule')
        for version, name in (("1.33", "agg"), ("1.27", "agg27")):
            with self.subTest(version):
                p = self.kubectl(version, "--token=bobtok", "create", "clusterrole", name,
                                 "--aggregation-rule=team=x", check=False)
                self.assert_kubectl_forbidden(p, message % name)
        raw = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
               "metadata": {"name": "agg2"}, "rules": []}
        self.assertEqual(self.call("POST", RBAC + "/clusterroles", "bobtok", body=raw)[0], 201)
        raw_agg = dict(raw, metadata={"name": "agg3"},
                       aggregationRule={"clusterRoleSelectors": [{"matchLabels": {"team": "x"}}]})
        self.assert_status(self.call("POST", RBAC + "/clusterroles", "bobtok", body=raw_agg), 403,
                           message % "agg3",
                           {"name": "agg3", "group": "rbac.authorization.k8s.io",
                            "kind": "clusterroles"})
        self.admin("create", "clusterrole", "agg", "--aggregation-rule=team=x")
        self.assertIn("aggregationRule",
                      self.admin_get(RBAC + "/clusterroles/agg"))

    # --- Node authorizer and NodeRestriction (§7 scenarios 32-36) -----------------------------

    def node_forbidden(self, qualified, verb, resource, scope, reason):
        return ('%s is forbidden: User "system:node:n1" cannot %s resource "%s" in API group '
                '%s: %s' % (qualified, verb, resource, scope, reason))

    def test_create_on_update_needs_create_as_well(self):
        # upstream's withAuthorization: a PUT that would create needs `create`, not only
        # `update` (bob holds update on endpoints in demo, nothing else).
        self.admin("create", "role", "ep-updater", "--verb=update", "--resource=endpoints",
                   "-n", "demo")
        self.admin("create", "rolebinding", "bob-ep", "--role=ep-updater", "--user=bob",
                   "-n", "demo")
        path = "/api/v1/namespaces/demo/endpoints/ghost-ep"
        body = {"apiVersion": "v1", "kind": "Endpoints",
                "metadata": {"name": "ghost-ep", "namespace": "demo"}}
        self.eventually(lambda: self.assert_status(
            self.call("PUT", path, token="bobtok", body=body), 403,
            'endpoints "ghost-ep" is forbidden: ', {"name": "ghost-ep", "kind": "endpoints"}))
        status, _ = self.call("GET", path, token="admintok")
        self.assertEqual(status, 404)  # nothing was stored
        self.admin("create", "role", "ep-creator", "--verb=create", "--resource=endpoints",
                   "-n", "demo")
        self.admin("create", "rolebinding", "bob-ep-create", "--role=ep-creator", "--user=bob",
                   "-n", "demo")

        def created():
            status, out = self.call("PUT", path, token="bobtok", body=body)
            self.assertEqual(status, 201, out)
        self.eventually(created)

    def test_32_node_reads_its_own_node_only(self):
        self.assertEqual(self.call("GET", "/api/v1/nodes/n1", cert="n1")[0], 200)
        self.assert_status(
            self.call("GET", "/api/v1/nodes/n2", cert="n1"), 403,
            self.node_forbidden('nodes "n2"', "get", "nodes", '"" at the cluster scope',
                                "node 'n1' cannot read 'n2', only its own Node object"),
            {"name": "n2", "kind": "nodes"})
        self.assert_status(
            self.call("GET", "/api/v1/nodes", cert="n1"), 403,
            self.node_forbidden("nodes", "list", "nodes", '"" at the cluster scope',
                                "node 'n1' cannot read all nodes, only its own Node object"),
            {"kind": "nodes"})
        status, body = self.call("GET", "/api/v1/nodes?fieldSelector=metadata.name%3Dn1",
                                 cert="n1")
        self.assertEqual(status, 200, body)
        self.assertEqual([n["metadata"]["name"] for n in body["items"]], ["n1"])
        status, _, _ = self.request(
            "GET", "/api/v1/nodes?fieldSelector=metadata.name%3Dn1&watch=1&timeoutSeconds=1",
            cert="n1")
        self.assertEqual(status, 200)

    def test_33_node_writes(self):
        status_patch = {"status": {"addresses": [{"type": "InternalIP", "address": "10.0.0.1"}]}}
        merge = "application/merge-patch+json"
        self.assertEqual(self.call("PATCH", "/api/v1/nodes/n1/status", cert="n1",
                                   body=status_patch, content_type=merge)[0], 200)
        n2_before = self.admin_get("/api/v1/nodes/n2")
        not_n2 = 'nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"'
        self.assert_status(self.call("PATCH", "/api/v1/nodes/n2/status", cert="n1",
                                     body=status_patch, content_type=merge),
                           403, not_n2, {"name": "n2", "kind": "nodes"})
        status, headers, out = self.request("PATCH", "/api/v1/nodes/n2", cert="n1",
                                            body=json.dumps({"metadata": {"labels": {"a": "b"}}}),
                                            accept=PB, content_type=merge)
        self.assertEqual(status, 403)
        # Protobuf carries every string field of StatusDetails, the empty group too.
        self.assertEqual(proto_status(out),
                         (not_n2, "Forbidden", {"name": "n2", "group": "", "kind": "nodes"}, 403))
        self.assertEqual(self.admin_get("/api/v1/nodes/n2"), n2_before)
        # Labels, with kubectl as the kubelet's identity.
        n1 = self.as_cert("n1")
        p = self.kubectl("1.33", *n1, "label", "node", "n1", "node-restriction.kubernetes.io/x=y",
                         check=False)
        self.assert_kubectl_forbidden(
            p, 'nodes "n1" is forbidden: is not allowed to modify labels: '
               'node-restriction.kubernetes.io/x')
        self.kubectl("1.33", *n1, "label", "node", "n1", "topology.kubernetes.io/zone=z1")
        p = self.kubectl("1.27", *n1, "label", "node", "n1", "example.k8s.io/team=a",
                         check=False)
        self.assert_kubectl_forbidden(
            p, 'nodes "n1" is forbidden: is not allowed to modify labels: example.k8s.io/team')
        # Taints.
        p = self.kubectl("1.33", *n1, "taint", "node", "n1", "k=v:NoSchedule", check=False)
        self.assert_kubectl_forbidden(
            p, 'nodes "n1" is forbidden: node "n1" is not allowed to modify taints')
        node = self.admin_get("/api/v1/nodes/n1")
        self.assertEqual(node["metadata"]["labels"].get("topology.kubernetes.io/zone"), "z1")
        self.assertNotIn("node-restriction.kubernetes.io/x", node["metadata"]["labels"])
        self.assertFalse(node["spec"].get("taints"))
        # Delete is the authorizer's no.
        self.assertEqual(self.call("DELETE", "/api/v1/nodes/n1", cert="n1")[0], 403)

    def test_34_node_leases(self):
        lease = self.call("GET", LEASES + "/n1", cert="n1")[1]
        lease["spec"]["leaseDurationSeconds"] = 41
        status, body = self.call("PUT", LEASES + "/n1", cert="n1", body=lease)
        self.assertEqual(status, 200, body)
        self.assertEqual(body["spec"]["leaseDurationSeconds"], 41)
        same_name = "can only access node lease with the same name as the requesting node"
        self.assert_status(
            self.call("GET", LEASES + "/n2", cert="n1"), 403,
            self.node_forbidden('leases.coordination.k8s.io "n2"', "get", "leases",
                                '"coordination.k8s.io" in the namespace "kube-node-lease"',
                                same_name),
            {"name": "n2", "group": "coordination.k8s.io", "kind": "leases"})
        n2_before = self.admin_get(LEASES + "/n2")
        body = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                "metadata": {"name": "n2"}, "spec": {"holderIdentity": "n1"}}
        self.assert_status(self.call("POST", LEASES, cert="n1", body=body), 403,
                           'leases.coordination.k8s.io "n2" is forbidden: ' + same_name,
                           {"name": "n2", "group": "coordination.k8s.io", "kind": "leases"})
        self.assertEqual(self.admin_get(LEASES + "/n2"), n2_before)
        self.assert_status(
            self.call("GET", "/apis/coordination.k8s.io/v1/namespaces/default/leases/n1",
                      cert="n1"), 403,
            self.node_forbidden('leases.coordination.k8s.io "n1"', "get", "leases",
                                '"coordination.k8s.io" in the namespace "default"',
                                'can only access leases in the "kube-node-lease" system '
                                'namespace'),
            {"name": "n1", "group": "coordination.k8s.io", "kind": "leases"})
        self.assert_status(
            self.call("GET", LEASES, cert="n1"), 403,
            self.node_forbidden("leases.coordination.k8s.io", "list", "leases",
                                '"coordination.k8s.io" in the namespace "kube-node-lease"',
                                "can only get, create, update, patch, or delete a node lease"),
            {"group": "coordination.k8s.io", "kind": "leases"})

    def test_35_node_pods(self):
        status, body = self.call("GET", "/api/v1/pods?fieldSelector=spec.nodeName%3Dn1",
                                 cert="n1")
        self.assertEqual(status, 200, body)
        self.assertEqual([p["metadata"]["name"] for p in body["items"]], ["p1"])
        self.assert_status(
            self.call("GET", "/api/v1/pods", cert="n1"), 403,
            self.node_forbidden("pods", "list", "pods", '"" at the cluster scope',
                                "can only list/watch pods with spec.nodeName field selector"),
            {"kind": "pods"})
        self.assertEqual(self.call("GET", "/api/v1/namespaces/demo/pods/p1", cert="n1")[0], 200)
        self.assert_status(
            self.call("GET", "/api/v1/namespaces/demo/pods/p2", cert="n1"), 403,
            self.node_forbidden('pods "p2"', "get", "pods", '"" in the namespace "demo"',
                                "no relationship found between node 'n1' and this object"),
            {"name": "p2", "kind": "pods"})
        # Status: its own pods only, and never their labels.
        p1 = self.call("GET", "/api/v1/namespaces/demo/pods/p1", cert="n1")[1]
        p1["status"]["phase"] = "Running"
        status, body = self.call("PUT", "/api/v1/namespaces/demo/pods/p1/status", cert="n1",
                                 body=p1)
        self.assertEqual(status, 200, body)
        self.assertEqual(body["status"]["phase"], "Running")
        p2 = self.admin_get("/api/v1/namespaces/demo/pods/p2")
        changed = json.loads(json.dumps(p2))
        changed["status"]["phase"] = "Failed"
        self.assert_status(
            self.call("PUT", "/api/v1/namespaces/demo/pods/p2/status", cert="n1", body=changed),
            403, 'pods "p2" is forbidden: node "n1" can only update pod status for pods with '
                 'spec.nodeName set to itself', {"name": "p2", "kind": "pods"})
        self.assert_status(
            self.call("PATCH", "/api/v1/namespaces/demo/pods/p1/status", cert="n1",
                      body={"metadata": {"labels": {"app": "db"}}},
                      content_type="application/strategic-merge-patch+json"),
            403, 'pods "p1" is forbidden: node "n1" cannot update labels through pod status',
            {"name": "p1", "kind": "pods"})
        self.assert_status(
            self.call("DELETE", "/api/v1/namespaces/demo/pods/p2", cert="n1"), 403,
            'pods "p2" is forbidden: node "n1" can only delete pods with spec.nodeName set to '
            'itself', {"name": "p2", "kind": "pods"})
        self.assertEqual(self.admin_get("/api/v1/namespaces/demo/pods/p2"), p2)
        # Creates: mirror pods of its own only.
        plain = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "plain"},
                 "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "nginx"}]}}
        self.assert_status(
            self.call("POST", "/api/v1/namespaces/demo/pods", cert="n1", body=plain), 403,
            'pods "plain" is forbidden: pod does not have "kubernetes.io/config.mirror" '
            'annotation, node "n1" can only create mirror pods', {"name": "plain", "kind": "pods"})
        uid = self.admin_get("/api/v1/nodes/n1")["metadata"]["uid"]
        mirror = json.loads(json.dumps(plain))
        mirror["metadata"] = {
            "name": "mirror", "annotations": {"kubernetes.io/config.mirror": "hash"},
            "ownerReferences": [{"apiVersion": "v1", "kind": "Node", "name": "n1", "uid": uid,
                                 "controller": True}]}
        status, body = self.call("POST", "/api/v1/namespaces/demo/pods", cert="n1", body=mirror)
        self.assertEqual(status, 201, body)
        self.assertEqual(self.call("DELETE", "/api/v1/namespaces/demo/pods/mirror?gracePeriodSeconds=0",
                                   cert="n1")[0], 200)

    def test_36_other_kinds_and_a_name_without_the_group(self):
        event = {"apiVersion": "v1", "kind": "Event",
                 "metadata": {"name": "p1.started", "namespace": "demo"},
                 "involvedObject": {"kind": "Pod", "namespace": "demo", "name": "p1"},
                 "reason": "Started", "message": "container started", "type": "Normal"}
        status, body = self.call("POST", "/api/v1/namespaces/demo/events", cert="n1", body=event)
        self.assertEqual(status, 201, body)
        self.assertEqual(self.call("GET", "/api/v1/services", cert="n1")[0], 200)
        self.assertEqual(
            self.call("GET", "/apis/discovery.k8s.io/v1/endpointslices", cert="n1")[0], 403)
        p = self.kubectl("1.33", *self.as_cert("n1"), "auth", "can-i", "--list", "-n", "demo")
        self.assertIn("the list may be incomplete: node authorizer does not support user rule "
                      "resolution", p.stderr)
        # system:node:n1 outside system:nodes is a plain user: RBAC, and no admission.
        self.assert_status(
            self.call("GET", "/api/v1/nodes/n1", cert="n1-nogroup"), 403,
            'nodes "n1" is forbidden: User "system:node:n1" cannot get resource "nodes" in API '
            'group "" at the cluster scope', {"name": "n1", "kind": "nodes"})
        self.assertEqual(self.call("PATCH", "/api/v1/nodes/n1/status", cert="n1-nogroup",
                                   body={"status": {}},
                                   content_type="application/merge-patch+json")[0], 403)


if __name__ == "__main__":
    unittest.main()
