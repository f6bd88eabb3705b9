"""`svcplane controllers --kubeconfig` with the least-privilege identity of
deploy/rbac/svcplane-controllers.yaml (issue 22 item 4; spec authn-authz-audit §4.1, §4.4).

The server runs without its in-process controllers (`--controllers ''`), so everything the
controllers do here is done by one separate `svcplane controllers` process whose kubeconfig
carries a --token-auth-file token of system:serviceaccount:kube-system:svcplane-controllers.
The admin (system:masters kubeconfig) applies the manifest with kubectl 1.33, then:
  - `kubectl auth can-i --as=<that user>` answers yes for every (verb, resource) the controllers
    use and no for what they must not do;
  - the controllers keep EndpointSlices and Endpoints right (also mirroring a selectorless
    Service's Endpoints, and filling the aggregated `view` ClusterRole), follow a readiness
    flip, hold and renew their Lease; the audit log shows their writes under their user name
    and the server refused them nothing;
  - without the manifest the same process is refused (403 in its log) and writes nothing.
"""

import atexit
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

import yaml
from kubernetes import client

import harness

KUBECTL = "1.33"
MANIFEST = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                         "deploy", "rbac", "svcplane-controllers.yaml"))
SA_USER = "system:serviceaccount:kube-system:svcplane-controllers"
SA_TOKEN = "svcctl-token-0123456789"
TOKENS = ('%s,%s,u-svcctl,"system:serviceaccounts,system:serviceaccounts:kube-system"\n'
          % (SA_TOKEN, SA_USER))
LEASE_NS = "kube-system"
LEASE_NAME = "svcplane-controller-manager"
ELECTION_FLAGS = ["--leader-elect-lease-duration", "3s", "--leader-elect-renew-deadline", "2s",
                  "--leader-elect-retry-period", "0.5s"]
AUDIT_POLICY = """apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: Metadata
"""
SLICE_SERVICE_LABEL = "kubernetes.io/service-name"

_procs = set()


def _kill_all():
    for p in list(_procs):
        if p.poll() is None:
            p.kill()
            p.wait(10)


atexit.register(_kill_all)


def eventually(fn, timeout=20.0, what=""):
    """Retries `fn` (which asserts) until it passes or `timeout` seconds have gone."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return fn()
        except (AssertionError, client.ApiException):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


class RbacServer:
    """`svcplane serve` with the token file, an audit log and no in-process controllers."""

    def __init__(self, add_cleanup):
        self.dir = tempfile.mkdtemp(prefix="svcplane-ctlrbac-")
        add_cleanup(shutil.rmtree, self.dir, True)
        tokens = os.path.join(self.dir, "tokens.csv")
        with open(tokens, "w") as f:
            f.write(TOKENS)
        policy = os.path.join(self.dir, "audit-policy.yaml")
        with open(policy, "w") as f:
            f.write(AUDIT_POLICY)
        self.srv = harness.Server()
        self.audit_log = os.path.join(self.srv.data_dir, "audit.log")
        # `--controllers ''`: no in-process controller, so none of them can do the work of the
        # process under test (the aggregation of admin/edit/view included).
        self.srv.extra_args = ["--token-auth-file", tokens, "--controllers", "",
                               "--audit-policy-file", policy, "--audit-log-path", self.audit_log]
        add_cleanup(self.srv.cleanup)
        self.srv.start()
        self.api = self.srv.api_client()
        add_cleanup(self.api.close)
        self.core = client.CoreV1Api(self.api)
        self.discovery = client.DiscoveryV1Api(self.api)
        self.rbac = client.RbacAuthorizationV1Api(self.api)
        self.coordination = client.CoordinationV1Api(self.api)
        # The controllers' kubeconfig: the admin's server and CA, the ServiceAccount's token.
        with open(self.srv.kubeconfig) as f:
            admin = yaml.safe_load(f)
        self.sa_kubeconfig = os.path.join(self.dir, "svcplane-controllers.kubeconfig")
        with open(self.sa_kubeconfig, "w") as f:
            yaml.safe_dump({
                "apiVersion": "v1", "kind": "Config",
                "clusters": [{"name": "svcplane", "cluster": admin["clusters"][0]["cluster"]}],
                "users": [{"name": "svcplane-controllers", "user": {"token": SA_TOKEN}}],
                "contexts": [{"name": "svcplane-controllers", "context": {
                    "cluster": "svcplane", "user": "svcplane-controllers"}}],
                "current-context": "svcplane-controllers"}, f)

    def admin(self, *args, check=True):
        return self.srv.kubectl(KUBECTL, *args, check=check)

    def audit_events(self, pred=lambda e: True):
        if not os.path.exists(self.audit_log):
            return []
        with open(self.audit_log) as f:
            return [e for e in (json.loads(line) for line in f if line.strip()) if pred(e)]

    def start_controllers(self, extra=()):
        return ControllersProcess(self, list(extra))

    def make_service_with_pods(self, ns, name, ips):
        """A Service selecting app=<name> and one Running, Ready pod per IP on node-a."""
        self.core.create_namespaced_service(ns, client.V1Service(
            metadata=client.V1ObjectMeta(name=name),
            spec=client.V1ServiceSpec(selector={"app": name}, ports=[
                client.V1ServicePort(name="http", port=80, target_port=8080)])))
        for i, ip in enumerate(ips):
            self.make_pod(ns, "%s-%d" % (name, i), {"app": name}, ip)

    def make_pod(self, ns, name, labels, ip):
        self.core.create_namespaced_pod(ns, client.V1Pod(
            metadata=client.V1ObjectMeta(name=name, labels=labels),
            spec=client.V1PodSpec(node_name="node-a", containers=[
                client.V1Container(name="c", image="nginx:1.25")])))
        self.set_ready(ns, name, ip, True)

    def set_ready(self, ns, name, ip, ready):
        pod = self.core.read_namespaced_pod(name, ns)
        pod.status = client.V1PodStatus(
            phase="Running", pod_ip=ip, pod_i_ps=[client.V1PodIP(ip=ip)],
            conditions=[client.V1PodCondition(type="Ready", status="True" if ready else "False")])
        self.core.replace_namespaced_pod_status(name, ns, pod)

    def slice_endpoints(self, ns, service):
        """{address: ready} over the Service's EndpointSlices."""
        out = {}
        for s in self.discovery.list_namespaced_endpoint_slice(
                ns, label_selector="%s=%s" % (SLICE_SERVICE_LABEL, service)).items:
            for e in s.endpoints or []:
                for a in e.addresses:
                    out[a] = bool(e.conditions and e.conditions.ready)
        return out

    def endpoints_addresses(self, ns, name):
        """(ready addresses, not-ready addresses) of the Endpoints object, sorted."""
        ep = self.core.read_namespaced_endpoints(name, ns)
        ready, not_ready = [], []
        for s in ep.subsets or []:
            ready += [a.ip for a in s.addresses or []]
            not_ready += [a.ip for a in s.not_ready_addresses or []]
        return sorted(ready), sorted(not_ready)


class ControllersProcess:
    """One `svcplane controllers --kubeconfig <the ServiceAccount's>` with its own log."""

    def __init__(self, s, extra):
        self.log_path = os.path.join(s.dir, "controllers-%d.log" % harness.free_port())
        self._log = open(self.log_path, "ab")
        args = [harness.SVCPLANE, "controllers", "--kubeconfig", s.sa_kubeconfig,
                "--secure-port", "0"] + ELECTION_FLAGS + extra
        self.proc = subprocess.Popen(args, stdout=self._log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL)
        _procs.add(self.proc)

    def log(self):
        with open(self.log_path, "rb") as f:
            return f.read().decode(errors="replace")

    def identity(self):
        def logged():
            m = re.search(r"controller manager (\S+) starting", self.log())
            assert m, self.log()
            return m.group(1)
        return eventually(logged, 20)

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        rc = self.proc.wait(30)
        _procs.discard(self.proc)
        self._log.close()
        return rc

    def cleanup(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        _procs.discard(self.proc)
        if not self._log.closed:
            self._log.close()


# (verb, resource, namespace or None for the cluster scope / all namespaces) the controllers
# need: their informers list and watch across all namespaces.
ALLOWED = [
    ("list", "services", None), ("watch", "services", None),
    ("list", "pods", None), ("watch", "pods", None),
    ("list", "nodes", None), ("watch", "nodes", None),
    ("list", "endpoints", None), ("watch", "endpoints", None),
    ("list", "endpointslices.discovery.k8s.io", None),
    ("watch", "endpointslices.discovery.k8s.io", None),
    ("create", "endpoints", "shop"), ("update", "endpoints", "shop"),
    ("delete", "endpoints", "shop"),
    ("get", "endpointslices.discovery.k8s.io", "shop"),
    ("create", "endpointslices.discovery.k8s.io", "shop"),
    ("update", "endpointslices.discovery.k8s.io", "shop"),
    ("delete", "endpointslices.discovery.k8s.io", "shop"),
    ("create", "events", "shop"), ("patch", "events", "shop"),
    ("create", "events", LEASE_NS), ("patch", "events", LEASE_NS),
    ("list", "clusterroles.rbac.authorization.k8s.io", None),
    ("watch", "clusterroles.rbac.authorization.k8s.io", None),
    ("update", "clusterroles.rbac.authorization.k8s.io", None),
    ("escalate", "clusterroles.rbac.authorization.k8s.io", None),
    # replicaset-controller
    ("list", "replicasets.apps", None), ("watch", "replicasets.apps", None),
    ("get", "replicasets.apps", "shop"), ("update", "replicasets.apps", "shop"),
    ("create", "pods", "shop"), ("delete", "pods", "shop"), ("patch", "pods", "shop"),
    ("list", "deployments.apps", None), ("watch", "deployments.apps", None),
    ("get", "deployments.apps", "shop"),
    ("list", "replicasets.apps", None), ("watch", "replicasets.apps", None),
    ("create", "replicasets.apps", "shop"), ("update", "replicasets.apps", "shop"),
    ("patch", "replicasets.apps", "shop"), ("delete", "replicasets.apps", "shop"),
    ("create", "leases.coordination.k8s.io", LEASE_NS),
    ("get", "leases.coordination.k8s.io/" + LEASE_NAME, LEASE_NS),
    ("update", "leases.coordination.k8s.io/" + LEASE_NAME, LEASE_NS),
]

DENIED = [
    ("deletecollection", "pods", "shop"), ("create", "deployments.apps", "shop"),
    ("delete", "deployments.apps", "shop"),
    ("delete", "nodes", None), ("update", "nodes", None),
    ("update", "services", "shop"), ("delete", "services", "shop"),
    ("create", "namespaces", None),
    ("create", "deployments.apps", "shop"), ("delete", "deployments.apps", "shop"),
    ("patch", "endpointslices.discovery.k8s.io", "shop"),
    ("get", "roles.rbac.authorization.k8s.io", LEASE_NS),
    ("list", "roles.rbac.authorization.k8s.io", None),
    ("list", "rolebindings.rbac.authorization.k8s.io", None),
    ("create", "rolebindings.rbac.authorization.k8s.io", LEASE_NS),
    ("create", "clusterrolebindings.rbac.authorization.k8s.io", None),
    ("update", "clusterrolebindings.rbac.authorization.k8s.io", None),
    ("create", "clusterroles.rbac.authorization.k8s.io", None),
    ("delete", "clusterroles.rbac.authorization.k8s.io", None),
    ("update", "leases.coordination.k8s.io/kube-controller-manager", LEASE_NS),
    ("get", "leases.coordination.k8s.io/kube-scheduler", LEASE_NS),
    ("delete", "leases.coordination.k8s.io/" + LEASE_NAME, LEASE_NS),
    ("list", "leases.coordination.k8s.io", LEASE_NS),
    ("create", "leases.coordination.k8s.io", "default"),
    ("update", "leases.coordination.k8s.io/" + LEASE_NAME, "default"),
    ("impersonate", "users", None),
    ("*", "*", None),
]


def can_i(s, verb, resource, ns, as_groups=()):
    args = ["auth", "can-i", verb, resource, "--as=" + SA_USER]
    args += ["--as-group=" + g for g in as_groups]
    args += ["--all-namespaces"] if ns is None else ["-n", ns]
    p = s.admin(*args, check=False)
    answer = p.stdout.strip().split("\n")[-1] if p.stdout.strip() else ""
    return p.returncode, answer, p.stderr


class WithTheManifest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.s = RbacServer(cls.addClassCleanup)
        s = cls.s
        out = s.admin("apply", "-f", MANIFEST).stdout
        cls.apply_output = out
        s.admin("create", "namespace", "shop")
        s.core.create_node(client.V1Node(metadata=client.V1ObjectMeta(name="node-a")))

    def test_manifest_applies_and_holds_no_service_account(self):
        with open(MANIFEST) as f:
            kinds = [d["kind"] for d in yaml.safe_load_all(f) if d]
        self.assertNotIn("ServiceAccount", kinds)
        self.assertEqual(sorted(kinds), sorted(["ClusterRoleBinding"] * 6 + ["Role",
                                                                            "RoleBinding"]))
        for line in ("clusterrolebinding.rbac.authorization.k8s.io/"
                     "svcplane-controllers:endpoint-controller created",
                     "role.rbac.authorization.k8s.io/svcplane-controllers:leader-election "
                     "created",
                     "rolebinding.rbac.authorization.k8s.io/svcplane-controllers:leader-election "
                     "created"):
            self.assertIn(line, self.apply_output)
        # No wildcard anywhere: every grant is named.
        with open(MANIFEST) as f:
            for d in yaml.safe_load_all(f):
                for rule in (d or {}).get("rules", []):
                    for field in ("verbs", "apiGroups", "resources"):
                        self.assertNotIn("*", rule[field], rule)

    def test_the_server_runs_no_controllers_of_its_own(self):
        # `--controllers ''` (kcm's `--controllers=`): the in-process manager starts none.
        self.assertIn("starting; controllers: (none)", self.s.srv.log_tail(100000))

    def test_can_i_yes_for_what_the_controllers_use(self):
        def allowed():
            for verb, resource, ns in ALLOWED:
                rc, answer, err = can_i(self.s, verb, resource, ns)
                self.assertEqual((rc, answer), (0, "yes"), (verb, resource, ns, err))
        # The authorizer applies RBAC writes from its watch, a moment after they were made.
        eventually(allowed, 10)
        # Impersonating a ServiceAccount without groups gets its two groups; naming them gives
        # the same answer (the grants are to the user, not to a group).
        rc, answer, _ = can_i(self.s, "create", "leases.coordination.k8s.io", LEASE_NS,
                              ("system:serviceaccounts", "system:serviceaccounts:kube-system"))
        self.assertEqual((rc, answer), (0, "yes"))

    def test_can_i_no_for_what_they_must_not_do(self):
        eventually(lambda: self.assertEqual(
            can_i(self.s, "create", "leases.coordination.k8s.io", LEASE_NS)[:2], (0, "yes")), 10)
        for verb, resource, ns in DENIED:
            rc, answer, err = can_i(self.s, verb, resource, ns)
            self.assertEqual((rc, answer), (1, "no"), (verb, resource, ns, err))

    def test_controllers_do_their_work_with_only_these_grants(self):
        s = self.s
        eventually(lambda: self.assertEqual(
            can_i(s, "update", "leases.coordination.k8s.io/" + LEASE_NAME, LEASE_NS)[:2],
            (0, "yes")), 10)
        c = s.start_controllers()
        self.addCleanup(c.cleanup)
        identity = c.identity()

        # Leader election: the Lease is ours and is renewed.
        def lease():
            return s.coordination.read_namespaced_lease(LEASE_NAME, LEASE_NS)

        def held():
            self.assertEqual(lease().spec.holder_identity, identity)
        eventually(held, 20)
        first_renew = lease().spec.renew_time

        def renewed():
            self.assertGreater(lease().spec.renew_time, first_renew)
        eventually(renewed, 10)

        # EndpointSlices and Endpoints of a selector Service with two ready pods.
        s.make_service_with_pods("shop", "web", ["10.1.0.1", "10.1.0.2"])
        eventually(lambda: self.assertEqual(s.slice_endpoints("shop", "web"),
                                            {"10.1.0.1": True, "10.1.0.2": True}), 20)
        eventually(lambda: self.assertEqual(s.endpoints_addresses("shop", "web"),
                                            (["10.1.0.1", "10.1.0.2"], [])), 20)
        # A readiness flip is followed by both.
        s.set_ready("shop", "web-1", "10.1.0.2", False)
        eventually(lambda: self.assertEqual(s.slice_endpoints("shop", "web"),
                                            {"10.1.0.1": True, "10.1.0.2": False}), 20)
        eventually(lambda: self.assertEqual(s.endpoints_addresses("shop", "web"),
                                            (["10.1.0.1"], ["10.1.0.2"])), 20)
        # Mirroring: a selectorless Service's hand-written Endpoints become an EndpointSlice.
        s.core.create_namespaced_service("shop", client.V1Service(
            metadata=client.V1ObjectMeta(name="ext"),
            spec=client.V1ServiceSpec(ports=[client.V1ServicePort(name="db", port=5432)])))
        s.core.create_namespaced_endpoints("shop", client.V1Endpoints(
            metadata=client.V1ObjectMeta(name="ext"),
            subsets=[client.V1EndpointSubset(
                addresses=[client.V1EndpointAddress(ip="192.0.2.7")],
                ports=[client.CoreV1EndpointPort(name="db", port=5432)])]))
        eventually(lambda: self.assertEqual(s.slice_endpoints("shop", "ext"),
                                            {"192.0.2.7": True}), 20)
        # ClusterRole aggregation: `view` (empty until aggregated; the server aggregates nothing
        # itself here) gets the rules of system:aggregate-to-view.
        eventually(lambda: self.assertTrue(s.rbac.read_cluster_role("view").rules), 20)

        # The writes were the ServiceAccount's, and the server refused it nothing.
        def audited():
            mine = s.audit_events(lambda e: e["user"]["username"] == SA_USER)
            writes = {(e["verb"], e["objectRef"]["resource"]) for e in mine
                      if e["verb"] in ("create", "update", "patch", "delete")
                      and e["responseStatus"]["code"] < 300}
            for w in [("create", "endpointslices"), ("update", "endpointslices"),
                      ("create", "endpoints"), ("update", "endpoints"),
                      ("create", "leases"), ("update", "leases"), ("update", "clusterroles"),
                      ("create", "events")]:
                self.assertIn(w, writes, sorted(writes))
            return mine
        mine = eventually(audited, 10)
        self.assertEqual(mine[0]["user"]["groups"], ["system:serviceaccounts",
                                                     "system:serviceaccounts:kube-system",
                                                     "system:authenticated"])
        refused = [(e["verb"], e["requestURI"], e["responseStatus"]["code"]) for e in mine
                   if e["responseStatus"]["code"] in (401, 403)]
        self.assertEqual(refused, [])
        self.assertTrue(all(e["annotations"]["authorization.k8s.io/decision"] == "allow"
                            for e in mine), [e for e in mine if e["annotations"].get(
                                "authorization.k8s.io/decision") != "allow"][:3])
        self.assertEqual(c.stop(), 0)
        # Refusals would be logged as "Forbidden: <Status message>" (see WithoutTheManifest).
        log = c.log()
        self.assertNotRegex(log, r"(?i)forbidden|unauthorized", log)
        self.assertNotIn("[error]", log)
        self.assertIn("successfully acquired lease %s/%s" % (LEASE_NS, LEASE_NAME), log)
        # A clean stop hands the Lease over (release on cancel): an update, still allowed.
        self.assertEqual(lease().spec.holder_identity or "", "")


class WithoutTheManifest(unittest.TestCase):
    """The same process and identity on a server where nothing was applied: refused."""

    @classmethod
    def setUpClass(cls):
        cls.s = RbacServer(cls.addClassCleanup)
        cls.s.admin("create", "namespace", "shop")
        cls.s.core.create_node(client.V1Node(metadata=client.V1ObjectMeta(name="node-a")))

    def test_can_i_says_no(self):
        for verb, resource, ns in ALLOWED[:3] + ALLOWED[-2:]:
            rc, answer, err = can_i(self.s, verb, resource, ns)
            self.assertEqual((rc, answer), (1, "no"), (verb, resource, ns, err))

    def test_leader_election_is_forbidden_and_nothing_is_written(self):
        s = self.s
        s.make_service_with_pods("shop", "web", ["10.1.0.1"])
        c = s.start_controllers()
        self.addCleanup(c.cleanup)
        refusal = ('leases.coordination.k8s.io "%s" is forbidden: User "%s" cannot get '
                   'resource "leases" in API group "coordination.k8s.io" in the namespace "%s"'
                   % (LEASE_NAME, SA_USER, LEASE_NS))
        eventually(lambda: self.assertIn("error retrieving resource lock %s/%s: Forbidden: %s"
                                         % (LEASE_NS, LEASE_NAME, refusal), c.log()), 20)
        self.assertNotIn("successfully acquired lease", c.log())
        time.sleep(2)  # what it would have done by now with the grants
        self.assertEqual(s.slice_endpoints("shop", "web"), {})
        with self.assertRaises(client.ApiException) as e:
            s.coordination.read_namespaced_lease(LEASE_NAME, LEASE_NS)
        self.assertEqual(e.exception.status, 404)
        self.assertEqual(c.stop(), 0)
        denied = s.audit_events(lambda e: e["user"]["username"] == SA_USER
                                and e["responseStatus"]["code"] == 403)
        self.assertTrue(denied)
        self.assertTrue(all(e["annotations"]["authorization.k8s.io/decision"] == "forbid"
                            for e in denied))

    def test_informers_are_forbidden_without_leader_election(self):
        s = self.s
        c = s.start_controllers(["--leader-elect=false"])
        self.addCleanup(c.cleanup)
        for resource, group in (("services", ""), ("pods", ""), ("nodes", ""),
                                ("endpointslices", "discovery.k8s.io"),
                                ("clusterroles", "rbac.authorization.k8s.io")):
            refusal = ('%s%s is forbidden: User "%s" cannot list resource "%s" in API group '
                       '"%s" at the cluster scope'
                       % (resource, "." + group if group else "", SA_USER, resource, group))
            eventually(lambda: self.assertIn("Forbidden: " + refusal, c.log()), 20)
        self.assertNotIn("all controllers started", c.log())  # caches never sync
        self.assertEqual(s.discovery.list_namespaced_endpoint_slice("shop").items, [])
        self.assertEqual(c.stop(), 0)


if __name__ == "__main__":
    unittest.main()
