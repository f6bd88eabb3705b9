"""Authorization against `svcplane serve` (issue 22): --authorization-mode=Node,RBAC (the
default), the bootstrap policy, impersonation, SelfSubjectAccessReview / RulesReview, with real
kubectl 1.27 (JSON) and 1.33 (protobuf) and raw HTTPS for exact bodies (spec authn-authz-audit
§3, §4, §7 items 1, 2, 11-18, 24-31).

Identities come from a token file (tokens.csv of spec §7) and the admin kubeconfig
(cluster-admin through the svcplane:cluster-admins binding). RBAC objects are written by the admin with kubectl; the authorizer reads them
from the server's watch, so the first request after a new binding retries for a moment (as
against kube-apiserver, whose RBAC informer also lags its writes).
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


import harness

TOKENS = """admintok,admin,u-admin,"system:masters"
janetok,jane,u-jane,"dev"
bobtok,bob,u-bob
kptok,system:kube-proxy,u-kp
"""


class AuthzTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="svcplane-authz-")
        cls.tokens = os.path.join(cls.dir, "tokens.csv")
        with open(cls.tokens, "w") as f:
            f.write(TOKENS)
        cls.srv = harness.Server(["--token-auth-file", cls.tokens, "--anonymous-auth=true"])
        try:
            cls.srv.start()
            for ns in ("demo", "other"):
                cls.srv.kubectl("1.33", "create", "namespace", ns)
            for name, node in (("p1", "n1"), ("p2", "n2")):
                pod = {"apiVersion": "v1", "kind": "Pod",
                       "metadata": {"name": name, "namespace": "demo"},
                       "spec": {"nodeName": node,
                                "containers": [{"name": "c", "image": "nginx"}]}}
                cls.srv.kubectl("1.33", "apply", "-f", "-", input=json.dumps(pod))
        except BaseException:
            cls.srv.cleanup()
            shutil.rmtree(cls.dir, ignore_errors=True)
            raise
        # A kubeconfig with no credentials: each test adds its own on the command line.
        cls.server_ca, cls.bare_kubeconfig = harness.bare_kubeconfig(cls.srv, cls.dir)

    @classmethod
    def tearDownClass(cls):
        cls.srv.cleanup()
        shutil.rmtree(cls.dir, ignore_errors=True)

    # --- clients -------------------------------------------------------------------------------

    def request(self, method, path, token=None, body=None, headers=None):
        """(status, headers, body bytes) of one raw HTTPS request."""
        ctx = ssl.create_default_context(cafile=self.server_ca)
        conn = http.client.HTTPSConnection("127.0.0.1", self.srv.port, context=ctx, timeout=30)
        h = {"Accept": "application/json"}
        if body is not None:
            h["Content-Type"] = "application/json"
            body = json.dumps(body) if not isinstance(body, (bytes, str)) else body
        if token:
            h["Authorization"] = "Bearer " + token
        h.update(headers or {})
        try:
            conn.request(method, path, body=body, headers=h)
            r = conn.getresponse()
            return r.status, r.getheaders(), r.read()
        finally:
            conn.close()

    def status_of(self, method, path, token=None, body=None, headers=None):
        status, _, out = self.request(method, path, token, body, headers)
        return status, (json.loads(out) if out.startswith(b"{") else out)

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

    def admin(self, *args, input=None):
        return self.srv.kubectl("1.33", *args, input=input)

    def eventually(self, fn, timeout=10):
        """Retries `fn` (which asserts) until it passes: the authorizer applies RBAC writes
        from its watch, a few milliseconds after they were acknowledged."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                return fn()
            except AssertionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def assert_forbidden(self, status_body, message):
        status, body = status_body
        self.assertEqual(status, 403, body)
        self.assertEqual(body["kind"], "Status")
        self.assertEqual(body["reason"], "Forbidden")
        self.assertEqual(body["message"], message)

    # --- anonymous (§7 items 1, 2) --------------------------------------------------------------

    def test_anonymous_is_forbidden_with_the_exact_status(self):
        status, body = self.status_of("GET", "/api/v1/namespaces")
        self.assertEqual(status, 403)
        self.assertEqual(body, {
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": 'namespaces is forbidden: User "system:anonymous" cannot list resource '
                       '"namespaces" in API group "" at the cluster scope',
            "reason": "Forbidden", "details": {"kind": "namespaces"}, "code": 403})

    def test_anonymous_may_read_health_and_version_only(self):
        for path in ("/healthz", "/livez", "/readyz", "/version"):
            self.assertEqual(self.request("GET", path)[0], 200, path)
        status, body = self.status_of("GET", "/api")
        self.assertEqual(status, 403)
        self.assertEqual(body["message"], 'forbidden: User "system:anonymous" cannot get path "/api"')
        self.assertEqual(body["details"], {})
        self.assertEqual(self.request("GET", "/metrics")[0], 403)

    # --- RBAC (§7 items 11, 12, 15-18) ------------------------------------------------------

    def test_user_without_bindings_gets_the_exact_403_from_kubectl(self):
        for version in ("1.33", "1.27"):
            p = self.kubectl(version, "--token=bobtok", "get", "pods", "-n", "other", check=False)
            self.assertEqual(p.returncode, 1)
            self.assertIn('Error from server (Forbidden): pods is forbidden: User "bob" cannot '
                          'list resource "pods" in API group "" in the namespace "other"',
                          p.stderr)

    def test_rolebinding_to_view_grants_reads_in_its_namespace_only(self):
        self.admin("create", "rolebinding", "jane-view", "--clusterrole=view", "--user=jane",
                   "-n", "demo")
        self.eventually(lambda: self.kubectl("1.33", "--token=janetok", "get", "pods", "-n",
                                             "demo"))
        self.kubectl("1.27", "--token=janetok", "get", "pods", "-n", "demo")
        self.kubectl("1.33", "--token=janetok", "get", "endpointslices", "-n", "demo")
        self.kubectl("1.33", "--token=janetok", "get", "namespace", "demo")
        self.assert_forbidden(self.status_of("GET", "/api/v1/namespaces/other/pods", "janetok"),
                              'pods is forbidden: User "jane" cannot list resource "pods" in API '
                              'group "" in the namespace "other"')
        self.assert_forbidden(self.status_of("GET", "/api/v1/pods", "janetok"),
                              'pods is forbidden: User "jane" cannot list resource "pods" in API '
                              'group "" at the cluster scope')
        # A namespace's own path is in that namespace (§3.1): a RoleBinding there could grant it.
        self.assert_forbidden(self.status_of("GET", "/api/v1/namespaces/other", "janetok"),
                              'namespaces "other" is forbidden: User "jane" cannot get resource '
                              '"namespaces" in API group "" in the namespace "other"')
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x"},
               "spec": {"containers": [{"name": "c", "image": "nginx"}]}}
        self.assert_forbidden(self.status_of("POST", "/api/v1/namespaces/demo/pods", "janetok",
                                             pod),
                              'pods is forbidden: User "jane" cannot create resource "pods" in '
                              'API group "" in the namespace "demo"')
        # edit/admin never write endpoints or slices (CVE-2021-25740).
        self.admin("create", "rolebinding", "jane-edit", "--clusterrole=edit", "--user=jane",
                   "-n", "other")
        slice_ = {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
                  "metadata": {"name": "s"}, "addressType": "IPv4", "endpoints": []}
        self.eventually(lambda: self.assertEqual(
            self.request("GET", "/api/v1/namespaces/other/pods", "janetok")[0], 200))
        self.assertEqual(self.request("POST", "/apis/discovery.k8s.io/v1/namespaces/other/"
                                      "endpointslices", "janetok", slice_)[0], 403)

    def test_resource_names_subresources_and_non_resource_urls(self):
        role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
                "metadata": {"name": "p1-reader", "namespace": "demo"},
                "rules": [{"apiGroups": [""], "resources": ["pods"], "resourceNames": ["p1"],
                           "verbs": ["get", "list", "watch"]}]}
        self.admin("apply", "-f", "-", input=json.dumps(role))
        self.admin("create", "rolebinding", "bob-p1", "--role=p1-reader", "--user=bob",
                   "-n", "demo")
        self.admin("create", "rolebinding", "bob-ghost", "--role=ghost", "--user=bob",
                   "-n", "demo")
        self.eventually(lambda: self.assertEqual(
            self.request("GET", "/api/v1/namespaces/demo/pods/p1", "bobtok")[0], 200))
        status, body = self.status_of("GET", "/api/v1/namespaces/demo/pods/p2", "bobtok")
        self.assertEqual(status, 403)
        self.assertTrue(body["message"].startswith(
            'pods "p2" is forbidden: User "bob" cannot get resource "pods" in API group "" in '
            'the namespace "demo"'), body["message"])
        # The broken binding next to the good one is reported, and denies nothing else.
        self.assertIn('role.rbac.authorization.k8s.io "ghost" not found', body["message"])
        self.assertEqual(self.request("GET", "/api/v1/namespaces/demo/pods", "bobtok")[0], 403)
        self.assertEqual(self.request(
            "GET", "/api/v1/namespaces/demo/pods?fieldSelector=metadata.name%3Dp1",
            "bobtok")[0], 200)
        # Subresources are their own resources: get on pods is not patch on pods/status.
        patch = {"metadata": {"labels": {"x": "y"}}}
        h = {"Content-Type": "application/merge-patch+json"}
        status, body = self.status_of("PATCH", "/api/v1/namespaces/demo/pods/p1/status",
                                      "bobtok", json.dumps(patch), h)
        self.assertEqual(status, 403)
        self.assertIn('cannot patch resource "pods/status"', body["message"])
        status_rule = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
                       "metadata": {"name": "status-patcher", "namespace": "demo"},
                       "rules": [{"apiGroups": [""], "resources": ["*/status"],
                                  "verbs": ["patch"]}]}
        self.admin("apply", "-f", "-", input=json.dumps(status_rule))
        self.admin("create", "rolebinding", "bob-status", "--role=status-patcher", "--user=bob",
                   "-n", "demo")
        self.eventually(lambda: self.assertEqual(self.request(
            "PATCH", "/api/v1/namespaces/demo/pods/p1/status", "bobtok", json.dumps(patch),
            h)[0], 200))
        # Non-resource URLs: exact and trailing-* rules.
        self.admin("create", "clusterrole", "bob-urls", "--verb=get",
                   "--non-resource-url=/metrics", "--non-resource-url=/healthz/*")
        self.admin("create", "clusterrolebinding", "bob-urls", "--clusterrole=bob-urls",
                   "--user=bob")
        self.eventually(lambda: self.assertEqual(self.request("GET", "/metrics", "bobtok")[0],
                                                 200))
        self.assert_forbidden(self.status_of("GET", "/api", None),
                              'forbidden: User "system:anonymous" cannot get path "/api"')

    # --- can-i (§7 items 13, 14, 26) --------------------------------------------------------

    def test_can_i_and_self_subject_reviews(self):
        self.admin("create", "rolebinding", "jane-view2", "--clusterrole=view", "--user=jane",
                   "-n", "demo")
        self.eventually(lambda: self.assertEqual(
            self.request("GET", "/api/v1/namespaces/demo/services", "janetok")[0], 200))
        for version in ("1.33", "1.27"):
            p = self.kubectl(version, "--token=admintok", "auth", "can-i", "list", "pods", "-n",
                             "demo", "--as=jane")
            self.assertEqual(p.stdout.strip(), "yes")
            p = self.kubectl(version, "--token=admintok", "auth", "can-i", "create", "pods",
                             "-n", "demo", "--as=jane", check=False)
            self.assertEqual(p.returncode, 1)
            self.assertEqual(p.stdout.strip(), "no")
            p = self.kubectl(version, "--token=admintok", "auth", "can-i", "*", "*")
            self.assertEqual(p.stdout.strip(), "yes")
        ssar = {"kind": "SelfSubjectAccessReview", "apiVersion": "authorization.k8s.io/v1",
                "spec": {"resourceAttributes": {"namespace": "demo", "verb": "list",
                                                "resource": "pods"}}}
        status, body = self.status_of("POST", "/apis/authorization.k8s.io/v1/"
                                      "selfsubjectaccessreviews", "janetok", ssar)
        self.assertEqual(status, 201, body)
        self.assertTrue(body["status"]["allowed"])
        self.assertRegex(body["status"]["reason"],
                         r'^RBAC: allowed by RoleBinding "jane-view2?/demo" of ClusterRole '
                         r'"view" to User "jane"$')
        status, body = self.status_of("POST", "/apis/authorization.k8s.io/v1/"
                                      "selfsubjectaccessreviews", "admintok", ssar)
        self.assertTrue(body["status"]["allowed"])
        self.assertNotIn("reason", body["status"])  # the privileged-group authorizer
        p = self.kubectl("1.33", "--token=janetok", "auth", "can-i", "--list", "-n", "demo")
        rows = [" ".join(line.split()) for line in p.stdout.splitlines()]
        for want in ("selfsubjectaccessreviews.authorization.k8s.io [] [] [create]",
                     "selfsubjectreviews.authentication.k8s.io [] [] [create]",
                     "[/api/*] [] [get]", "[/healthz] [] [get]"):
            self.assertIn(want, rows)
        self.assertTrue(any(r.startswith("pods [] [] [get list watch]") for r in rows), rows)
        status, body = self.status_of("POST", "/apis/authorization.k8s.io/v1/"
                                      "selfsubjectrulesreviews", "janetok",
                                      {"kind": "SelfSubjectRulesReview",
                                       "apiVersion": "authorization.k8s.io/v1",
                                       "spec": {"namespace": ""}})
        self.assertEqual(status, 400)
        self.assertEqual(body["message"], "no namespace on request")

    # --- impersonation (§7 items 27-31) -----------------------------------------------------

    def test_impersonation(self):
        p = self.kubectl("1.33", "--token=janetok", "get", "pods", "--as=bob", "-n", "demo",
                         check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn('users "bob" is forbidden: User "jane" cannot impersonate resource '
                      '"users" in API group "" at the cluster scope', p.stderr)
        p = self.kubectl("1.33", "--token=admintok", "auth", "whoami", "--as=bob",
                         "--as-group=dev", "--as-uid=u9", "-o", "json")
        ui = json.loads(p.stdout)["status"]["userInfo"]
        self.assertEqual(ui["username"], "bob")
        self.assertEqual(ui["uid"], "u9")
        self.assertEqual(ui["groups"], ["dev", "system:authenticated"])
        p = self.kubectl("1.33", "--token=admintok", "auth", "whoami",
                         "--as=system:serviceaccount:demo:sa", "-o", "json")
        self.assertEqual(json.loads(p.stdout)["status"]["userInfo"]["groups"],
                         ["system:serviceaccounts", "system:serviceaccounts:demo",
                          "system:authenticated"])
        self.admin("create", "rolebinding", "sa-view", "--clusterrole=view",
                   "--serviceaccount=demo:sa", "-n", "demo")
        self.eventually(lambda: self.kubectl("1.33", "--token=admintok", "get", "pods", "-n",
                                             "demo", "--as=system:serviceaccount:demo:sa"))
        status, body = self.status_of("GET", "/api/v1/namespaces/demo/pods", "admintok",
                                      headers={"Impersonate-Group": "system:masters"})
        self.assertEqual(status, 400, body)
        self.assertEqual(body["reason"], "BadRequest")
        self.assertTrue(body["message"].endswith("without impersonating a user"), body)
        # Scoped impersonation: jane may impersonate bob only, and no groups.
        role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
                "metadata": {"name": "impersonate-bob"},
                "rules": [{"apiGroups": [""], "resources": ["users"], "resourceNames": ["bob"],
                           "verbs": ["impersonate"]}]}
        self.admin("apply", "-f", "-", input=json.dumps(role))
        self.admin("create", "clusterrolebinding", "jane-impersonates-bob",
                   "--clusterrole=impersonate-bob", "--user=jane")
        self.eventually(lambda: self.assertEqual(self.kubectl(
            "1.33", "--token=janetok", "auth", "whoami", "--as=bob", "-o", "json",
            check=False).returncode, 0))
        p = self.kubectl("1.33", "--token=janetok", "auth", "whoami", "--as=carol", check=False)
        self.assertEqual(p.returncode, 1)
        p = self.kubectl("1.33", "--token=janetok", "get", "pods", "--as=bob", "--as-group=dev",
                         check=False)
        self.assertIn('groups "dev" is forbidden: User "jane" cannot impersonate resource '
                      '"groups" in API group "" at the cluster scope', p.stderr)

    # --- component identities (§7 item 37) ---------------------------------------------------

    def test_kube_proxy_reads_services_and_slices_everywhere_but_writes_nothing(self):
        for path in ("/api/v1/services", "/apis/discovery.k8s.io/v1/endpointslices",
                     "/api/v1/services?watch=1&timeoutSeconds=1"):
            self.assertEqual(self.request("GET", path, "kptok")[0], 200, path)
        self.assertEqual(self.request("GET", "/api/v1/namespaces/demo/services/x", "kptok")[0],
                         403)

    # --- bootstrap policy (§7 items 24, 25) --------------------------------------------------

    def test_bootstrap_policy_is_there_and_aggregation_fills_view_edit_admin(self):
        roles = self.srv.kubectl_json("1.33", "get", "clusterroles")["items"]
        names = {r["metadata"]["name"] for r in roles}
        for want in ("cluster-admin", "admin", "edit", "view", "system:discovery",
                     "system:basic-user", "system:public-info-viewer", "system:node",
                     "system:node-proxier", "system:controller:endpointslice-controller"):
            self.assertIn(want, names)
        ready = self.srv.kubectl("1.33", "get", "--raw", "/readyz?verbose").stdout
        self.assertIn("[+]poststarthook/rbac/bootstrap-roles ok", ready)
        self.admin("create", "clusterrole", "lease-view", "--verb=get", "--resource=leases")
        self.admin("label", "clusterrole", "lease-view",
                   "rbac.authorization.k8s.io/aggregate-to-view=true")

        def has_lease_rule(name):
            role = self.srv.kubectl_json("1.33", "get", "clusterrole", name)
            return any("leases" in (r.get("resources") or []) and r.get("verbs") == ["get"]
                       for r in role.get("rules") or [])

        for name in ("view", "edit", "admin"):
            self.eventually(lambda n=name: self.assertTrue(has_lease_rule(n), n), timeout=10)
        self.admin("delete", "clusterrole", "lease-view")
        for name in ("view", "edit", "admin"):
            self.eventually(lambda n=name: self.assertFalse(has_lease_rule(n), n), timeout=10)


class AuthzRestartTest(unittest.TestCase):
    """Reconciliation at start (§7 item 25): deleted defaults come back, autoupdate=false
    objects keep their edits."""

    def test_reconcile_restores_defaults_and_respects_autoupdate_false(self):
        srv = harness.Server()
        try:
            srv.start()
            srv.kubectl("1.33", "delete", "clusterrolebinding", "cluster-admin")
            role = srv.kubectl_json("1.33", "get", "clusterrole", "system:discovery")
            role["rules"][0]["nonResourceURLs"].remove("/version")
            srv.kubectl("1.33", "replace", "-f", "-", input=json.dumps(role))
            basic = srv.kubectl_json("1.33", "get", "clusterrole", "system:basic-user")
            basic["metadata"]["annotations"]["rbac.authorization.kubernetes.io/autoupdate"] = \
                "false"
            basic["rules"] = basic["rules"][:1]
            srv.kubectl("1.33", "replace", "-f", "-", input=json.dumps(basic))
            srv.restart()
            srv.kubectl("1.33", "get", "clusterrolebinding", "cluster-admin")
            # The missing rule comes back (appended as its own rule, as upstream reconciles).
            rules = srv.kubectl_json("1.33", "get", "clusterrole", "system:discovery")["rules"]
            self.assertIn("/version", [u for r in rules for u in r.get("nonResourceURLs", [])])
            kept = srv.kubectl_json("1.33", "get", "clusterrole", "system:basic-user")
            self.assertEqual(len(kept["rules"]), 1)
        finally:
            srv.cleanup()


if __name__ == "__main__":
    unittest.main()
