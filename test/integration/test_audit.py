"""The audit log (spec authn-authz-audit §5, §7 scenarios 39-41) against the real binary: the
event shape, stages, levels, policy matching, startup errors and rotation, and the authorizer's
decision annotations (admin, anonymous and impersonated requests)."""

import json
import os
import re
import subprocess
import tempfile
import time
import unittest
import urllib.error
import urllib.request
import ssl

import harness

KUBECTL = "1.33"
MICROTIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$")

METADATA_FOR_ALL = """apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: Metadata
"""

REQUEST_FOR_PODS = """apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: None
  nonResourceURLs: ["/healthz*"]
- level: Request
  resources:
  - group: ""
    resources: ["pods"]
- level: Metadata
"""


def write_policy(text):
    fd, path = tempfile.mkstemp(prefix="audit-policy-", suffix=".yaml")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    return path


def read_events(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def pod(name, annotations=None):
    meta = {"name": name}
    if annotations:
        meta["annotations"] = annotations
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
            "spec": {"containers": [{"name": "c", "image": "nginx"}]}}


class AuditServer:
    """A server with an audit policy and log, and helpers to wait for its events."""

    def __init__(self, add_cleanup, policy, extra=()):
        self.policy = write_policy(policy)
        add_cleanup(os.remove, self.policy)
        self.srv = harness.Server()
        self.log = os.path.join(self.srv.data_dir, "audit.log")
        self.srv.extra_args = ["--audit-policy-file", self.policy,
                               "--audit-log-path", self.log] + list(extra)
        add_cleanup(self.srv.cleanup)
        self.srv.start()
        self.api = self.srv.api_client()
        add_cleanup(self.api.close)
        add_cleanup(self.api.rest_client.pool_manager.clear)

    def events(self, pred=lambda e: True):
        return [e for e in read_events(self.log) if pred(e)]

    def wait_events(self, pred, n=1, timeout=10.0):
        deadline = time.monotonic() + timeout
        while True:
            found = self.events(pred)
            if len(found) >= n or time.monotonic() > deadline:
                return found
            time.sleep(0.05)

    def request(self, method, path, body=None, headers=None, token=True):
        """A request with the admin token (or a bad one), returning (status, headers, body)."""
        cfg = self.api.configuration
        h = {"Accept": "application/json"}
        if body is not None:
            h["Content-Type"] = "application/json"
        h["Authorization"] = cfg.get_api_key_with_prefix("authorization") if token \
            else "Bearer nope"
        h.update(headers or {})
        r = self.api.rest_client.pool_manager.request(
            method, cfg.host + path, body=json.dumps(body) if body is not None else None,
            headers=h, timeout=30)
        return r.status, r.headers, r.data


class MetadataPolicy(unittest.TestCase):
    """Scenarios 39-40 with the fixture's "Metadata for all, omitStages [RequestReceived]"."""

    @classmethod
    def setUpClass(cls):
        cls.s = AuditServer(cls.addClassCleanup, METADATA_FOR_ALL)
        cls.s.srv.kubectl(KUBECTL, "create", "namespace", "demo")

    def test_get_pods_is_one_response_complete_line(self):
        self.s.srv.kubectl(KUBECTL, "get", "pods", "-n", "demo")
        uri = "/api/v1/namespaces/demo/pods?limit=500"
        events = self.s.wait_events(lambda e: e["requestURI"] == uri)
        self.assertEqual(len(events), 1, events)
        e = events[0]
        # Field order is upstream's struct order.
        self.assertEqual(list(e), ["kind", "apiVersion", "level", "auditID", "stage",
                                   "requestURI", "verb", "user", "sourceIPs", "userAgent",
                                   "objectRef", "responseStatus", "requestReceivedTimestamp",
                                   "stageTimestamp", "annotations"])
        # The admin holds cluster-admin through the revocable svcplane:cluster-admins binding.
        self.assertEqual(e["annotations"], {
            "authorization.k8s.io/decision": "allow",
            "authorization.k8s.io/reason":
                'RBAC: allowed by ClusterRoleBinding "svcplane:cluster-admins" of ClusterRole '
                '"cluster-admin" to Group "svcplane:cluster-admins"'})
        self.assertEqual(e["kind"], "Event")
        self.assertEqual(e["apiVersion"], "audit.k8s.io/v1")
        self.assertEqual(e["level"], "Metadata")
        self.assertEqual(e["stage"], "ResponseComplete")
        self.assertEqual(e["verb"], "list")
        self.assertEqual(e["user"]["username"], "kubernetes-admin")
        self.assertIn("svcplane:cluster-admins", e["user"]["groups"])
        self.assertEqual(e["sourceIPs"], ["127.0.0.1"])
        self.assertTrue(e["userAgent"].startswith("kubectl.1.33/v1.33") or
                        e["userAgent"].startswith("kubectl/v1.33"), e["userAgent"])
        self.assertEqual(e["objectRef"],
                         {"resource": "pods", "namespace": "demo", "apiVersion": "v1"})
        self.assertEqual(e["responseStatus"], {"metadata": {}, "code": 200})
        self.assertRegex(e["requestReceivedTimestamp"], MICROTIME)
        self.assertRegex(e["stageTimestamp"], MICROTIME)
        self.assertLessEqual(e["requestReceivedTimestamp"], e["stageTimestamp"])
        self.assertRegex(e["auditID"], r"^[0-9a-f-]{36}$")
        self.assertNotIn("requestObject", e)
        self.assertNotIn("responseObject", e)

    def test_forbidden_and_impersonated_requests_carry_the_decision(self):
        # Anonymous (no credentials): forbidden, with the 403 Status and decision forbid.
        cfg = self.s.api.configuration
        r = self.s.api.rest_client.pool_manager.request(
            "GET", cfg.host + "/api/v1/namespaces/demo/services",
            headers={"Accept": "application/json", "Audit-ID": "anon-1"}, timeout=30)
        self.assertEqual(r.status, 403)
        e = self.s.wait_events(lambda e: e["auditID"] == "anon-1")[0]
        self.assertEqual(e["user"]["username"], "system:anonymous")
        self.assertEqual(e["responseStatus"]["code"], 403)
        self.assertEqual(e["responseStatus"]["reason"], "Forbidden")
        self.assertEqual(e["annotations"]["authorization.k8s.io/decision"], "forbid")
        self.assertEqual(e["annotations"]["authorization.k8s.io/reason"], "")
        # Impersonated: user is the admin, impersonatedUser the target.
        status, _, _ = self.s.request("GET", "/api/v1/namespaces/demo/pods",
                                      headers={"Impersonate-User": "bob",
                                               "Audit-ID": "imp-1"})
        self.assertEqual(status, 403)
        e = self.s.wait_events(lambda e: e["auditID"] == "imp-1")[0]
        self.assertEqual(e["user"]["username"], "kubernetes-admin")
        self.assertEqual(e["impersonatedUser"]["username"], "bob")
        self.assertEqual(e["annotations"]["authorization.k8s.io/decision"], "forbid")

    def test_audit_id_header_is_logged(self):
        status, _, _ = self.s.request("GET", "/api/v1/namespaces/demo/pods?limit=7",
                                      headers={"Audit-ID": "abc"})
        self.assertEqual(status, 200)
        events = self.s.wait_events(lambda e: e["requestURI"].endswith("limit=7"))
        self.assertEqual([e["auditID"] for e in events], ["abc"])

    def test_failed_authentication_is_one_response_started_event(self):
        status, _, body = self.s.request("GET", "/api/v1/namespaces/demo/pods?limit=401",
                                         token=False)
        self.assertEqual(status, 401)
        events = self.s.wait_events(lambda e: e["requestURI"].endswith("limit=401"))
        time.sleep(0.2)
        events = self.s.events(lambda e: e["requestURI"].endswith("limit=401"))
        self.assertEqual(len(events), 1, events)
        e = events[0]
        self.assertEqual(e["stage"], "ResponseStarted")
        self.assertEqual(e["user"], {})
        self.assertEqual(e["verb"], "list")
        self.assertEqual(e["responseStatus"],
                         {"metadata": {}, "status": "Failure", "message": "Unauthorized",
                          "reason": "Unauthorized", "code": 401})

    def test_create_logs_object_name_from_the_body(self):
        status, _, _ = self.s.request("POST", "/api/v1/namespaces/demo/pods",
                                      body=pod("from-body"))
        self.assertEqual(status, 201)
        events = self.s.wait_events(
            lambda e: e["verb"] == "create" and e["objectRef"].get("name") == "from-body")
        self.assertEqual(len(events), 1, events)
        e = events[0]
        self.assertEqual(e["requestURI"], "/api/v1/namespaces/demo/pods")
        self.assertEqual(e["responseStatus"], {"metadata": {}, "code": 201})
        self.assertNotIn("requestObject", e)  # Metadata level

    def test_error_status_is_logged(self):
        status, _, _ = self.s.request("GET", "/api/v1/namespaces/demo/pods/ghost")
        self.assertEqual(status, 404)
        events = self.s.wait_events(lambda e: e["requestURI"].endswith("/pods/ghost"))
        self.assertEqual(len(events), 1, events)
        self.assertEqual(events[0]["objectRef"]["name"], "ghost")
        self.assertEqual(events[0]["responseStatus"],
                         {"metadata": {}, "status": "Failure",
                          "message": 'pods "ghost" not found', "reason": "NotFound",
                          "details": {"name": "ghost", "kind": "pods"}, "code": 404})

    def test_watch_logs_response_started_then_response_complete(self):
        status, _, _ = self.s.request(
            "GET", "/api/v1/namespaces/demo/pods?watch=1&timeoutSeconds=1")
        self.assertEqual(status, 200)
        pred = lambda e: "timeoutSeconds=1" in e["requestURI"]  # noqa: E731
        events = self.s.wait_events(pred, n=2)
        self.assertEqual([e["stage"] for e in events], ["ResponseStarted", "ResponseComplete"])
        self.assertEqual(events[0]["auditID"], events[1]["auditID"])
        self.assertEqual(events[0]["verb"], "watch")
        for e in events:
            self.assertEqual(e["responseStatus"], {"metadata": {}, "code": 200})
            self.assertNotIn("responseObject", e)
        self.assertLessEqual(events[0]["stageTimestamp"], events[1]["stageTimestamp"])


class PolicyBehaviour(unittest.TestCase):
    """Scenario 41."""

    def test_levels_none_and_request(self):
        s = AuditServer(self.addCleanup, REQUEST_FOR_PODS)
        with urllib.request.urlopen("https://127.0.0.1:%d/healthz" % s.srv.port,
                                    context=ssl._create_unverified_context()) as r:
            self.assertEqual(r.status, 200)
        status, _, _ = s.request("GET", "/version")
        self.assertEqual(status, 200)
        status, _, _ = s.request("POST", "/api/v1/namespaces/default/pods", body=pod("req"))
        self.assertEqual(status, 201)
        status, _, _ = s.request("GET", "/api/v1/namespaces/default/pods/req")
        self.assertEqual(status, 200)
        version = s.wait_events(lambda e: e["requestURI"] == "/version")
        self.assertEqual([(e["level"], e["verb"]) for e in version], [("Metadata", "get")])
        self.assertEqual(s.events(lambda e: e["requestURI"].startswith("/healthz")), [])
        create = s.wait_events(lambda e: e["verb"] == "create")
        self.assertEqual(len(create), 1)
        self.assertEqual(create[0]["level"], "Request")
        self.assertEqual(create[0]["requestObject"]["metadata"]["name"], "req")
        self.assertEqual(create[0]["requestObject"]["kind"], "Pod")
        get = s.wait_events(lambda e: e["requestURI"] == "/api/v1/namespaces/default/pods/req")
        self.assertEqual(len(get), 1)
        self.assertEqual(get[0]["level"], "Request")
        self.assertNotIn("requestObject", get[0])
        self.assertNotIn("responseObject", get[0])

    def test_empty_rules_is_a_startup_error(self):
        policy = write_policy("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: []\n")
        self.addCleanup(os.remove, policy)
        with tempfile.TemporaryDirectory() as d:
            p = subprocess.run([harness.SVCPLANE, "serve", "--data-dir", d, "--listen",
                                "127.0.0.1:%d" % harness.free_port(), "--audit-policy-file",
                                policy, "--audit-log-path", os.path.join(d, "audit.log")],
                               capture_output=True, text=True, timeout=30)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("loaded illegal policy with 0 rules", p.stdout + p.stderr)

    def test_negative_maxage_is_a_startup_error(self):
        policy = write_policy(METADATA_FOR_ALL)
        self.addCleanup(os.remove, policy)
        with tempfile.TemporaryDirectory() as d:
            p = subprocess.run([harness.SVCPLANE, "serve", "--data-dir", d, "--listen",
                                "127.0.0.1:%d" % harness.free_port(), "--audit-policy-file",
                                policy, "--audit-log-path", os.path.join(d, "audit.log"),
                                "--audit-log-maxage=-1"],
                               capture_output=True, text=True, timeout=30)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("--audit-log-maxage -1 can't be a negative number", p.stdout + p.stderr)

    def test_log_path_without_policy_logs_nothing(self):
        srv = harness.Server()
        self.addCleanup(srv.cleanup)
        log = os.path.join(srv.data_dir, "audit.log")
        srv.extra_args = ["--audit-log-path", log]
        srv.start()
        srv.kubectl(KUBECTL, "get", "pods", "-A")
        self.assertEqual(read_events(log), [])

    def test_maxsize_rotates(self):
        s = AuditServer(self.addCleanup, """apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: Request
""", extra=["--audit-log-maxsize=1"])
        big = {"x": "a" * (100 * 1024)}
        for i in range(14):  # 14 x ~100 KiB request objects: past 1 MB
            status, _, _ = s.request("POST", "/api/v1/namespaces/default/pods",
                                     body=pod("big-%d" % i, big))
            self.assertEqual(status, 201)
        files = sorted(os.listdir(os.path.dirname(s.log)))
        rotated = [f for f in files
                   if re.match(r"^audit-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}\.log$", f)]
        self.assertEqual(len(rotated), 1, files)
        self.assertLessEqual(os.path.getsize(s.log), 1024 * 1024)
        self.assertTrue(all(e["kind"] == "Event" for e in read_events(s.log)))
        st = os.stat(s.log)
        self.assertEqual(st.st_mode & 0o777, 0o600)


if __name__ == "__main__":
    unittest.main()
