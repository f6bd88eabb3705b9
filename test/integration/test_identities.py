"""Every component is someone (issue 22, "Deliver" 4; spec authn-authz-audit §4.4), against the
real binary with kubectl 1.33 and the audit log:

- the in-process controllers write as their upstream ServiceAccounts through the RBAC
  authorizer, so the audit log shows system:serviceaccount:kube-system:endpointslice-controller
  allowed by its bootstrap binding, and taking that binding away stops the controller (it is not
  an all-powerful loopback);
- simulated nodes renew their Leases and write their Pods' status as system:node:<name>, the
  scheduler binds as system:kube-scheduler, and none of them is ever refused;
- DATA_DIR/kubeconfig's admin holds cluster-admin through the ClusterRoleBinding
  svcplane:cluster-admins: deleting it revokes the credential, a restart does not bring it back,
  and DATA_DIR/super-admin.kubeconfig (system:masters) is the break glass that restores it.
"""

import json
import os
import tempfile
import time
import unittest

import harness

KUBECTL = "1.33"
POLICY = """apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: None
  nonResourceURLs: ["/healthz*", "/livez*", "/readyz*"]
- level: Metadata
"""
SA = "system:serviceaccount:kube-system:"
OBJECTS = """apiVersion: v1
kind: Namespace
metadata: {name: demo}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: demo}
spec:
  selector: {app: web}
  ports: [{port: 80}]
---
apiVersion: v1
kind: Pod
metadata: {name: web-1, namespace: demo, labels: {app: web}}
spec:
  containers: [{name: c, image: nginx}]
"""


def events(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


class IdentitiesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        fd, cls.policy = tempfile.mkstemp(prefix="audit-policy-", suffix=".yaml")
        with os.fdopen(fd, "w") as f:
            f.write(POLICY)
        cls.audit = tempfile.mktemp(prefix="svcplane-identities-audit-", suffix=".log")
        cls.srv = harness.Server(["--simulate-nodes", "2", "--audit-policy-file", cls.policy,
                                  "--audit-log-path", cls.audit]).start()

    @classmethod
    def tearDownClass(cls):
        cls.srv.cleanup()
        for p in (cls.policy, cls.audit):
            if os.path.exists(p):
                os.remove(p)

    def kubectl(self, *args, check=True, kubeconfig=None):
        if kubeconfig:
            args = ("--kubeconfig", kubeconfig) + args
        return self.srv.kubectl(KUBECTL, *args, check=check)

    def super_admin(self, *args, check=True):
        return self.kubectl(*args, check=check,
                            kubeconfig=os.path.join(self.srv.data_dir, "super-admin.kubeconfig"))

    def eventually(self, fn, timeout=30, what=""):
        deadline = time.monotonic() + timeout
        while True:
            got = fn()
            if got:
                return got
            if time.monotonic() > deadline:
                self.fail("timed out waiting for " + what + self.srv.died())
            time.sleep(0.2)

    def slice_endpoints(self, ns, service):
        p = self.kubectl("get", "endpointslices", "-n", ns, "-l",
                         "kubernetes.io/service-name=" + service, "-o", "json")
        return [a for s in json.loads(p.stdout)["items"] for e in (s.get("endpoints") or [])
                for a in e["addresses"]]

    def test_1_components_act_as_their_upstream_identities(self):
        p = self.srv.kubectl(KUBECTL, "apply", "-f", "-", input=OBJECTS)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.eventually(lambda: self.slice_endpoints("demo", "web"), what="web's endpoints")

        def by(user, verb, resource, ns=None, sub=None):
            return [e for e in events(self.audit)
                    if e["user"]["username"] == user and e["verb"] == verb and
                    e.get("objectRef", {}).get("resource") == resource and
                    (ns is None or e["objectRef"].get("namespace") == ns) and
                    e["objectRef"].get("subresource") == sub]

        # The EndpointSlice controller: its ServiceAccount, allowed by its bootstrap binding.
        created = self.eventually(lambda: by(SA + "endpointslice-controller", "create",
                                             "endpointslices", "demo"), what="slice create")
        e = created[0]
        self.assertEqual(e["user"]["groups"], ["system:serviceaccounts",
                                               "system:serviceaccounts:kube-system",
                                               "system:authenticated"])
        self.assertEqual(e["responseStatus"]["code"], 201)
        self.assertEqual(e["annotations"]["authorization.k8s.io/decision"], "allow")
        self.assertEqual(
            e["annotations"]["authorization.k8s.io/reason"],
            'RBAC: allowed by ClusterRoleBinding "system:controller:endpointslice-controller" '
            'of ClusterRole "system:controller:endpointslice-controller" to ServiceAccount '
            '"endpointslice-controller/kube-system"')
        self.assertEqual(e["requestURI"], "/apis/discovery.k8s.io/v1/namespaces/demo/endpointslices")
        # The Endpoints controller likewise; the shared informers as kube-controller-manager.
        self.eventually(lambda: by(SA + "endpoint-controller", "create", "endpoints", "demo"),
                        what="endpoints create")
        # (A watch is logged when it ends: the informers' first list shows them.)
        self.eventually(lambda: by("system:kube-controller-manager", "list", "pods"),
                        what="the informers' list of pods")
        # The simulator: the scheduler binds, the kubelet of the Pod's node writes its status
        # and renews its own Lease.
        node = json.loads(self.kubectl("get", "pod", "web-1", "-n", "demo", "-o",
                                       "json").stdout)["spec"]["nodeName"]
        self.eventually(lambda: by("system:kube-scheduler", "create", "pods", "demo", "binding"),
                        what="the binding")
        self.eventually(lambda: by("system:node:" + node, "update", "pods", "demo", "status"),
                        what="the kubelet's status write")
        lease = self.eventually(lambda: by("system:node:" + node, "update", "leases",
                                           "kube-node-lease"), what="a Lease renewal")
        self.assertEqual(lease[0]["objectRef"]["name"], node)
        # Nobody in-process is ever refused, and nobody writes as system:masters.
        refused = [e for e in events(self.audit)
                   if e["annotations"].get("authorization.k8s.io/decision") == "forbid"]
        self.assertEqual(refused, [])
        masters = [e for e in events(self.audit) if e["verb"] not in ("get", "list", "watch")
                   and "system:masters" in e["user"].get("groups", [])]
        self.assertEqual(masters, [])

    def test_2_a_controller_without_its_binding_is_refused(self):
        # Not an all-powerful loopback: take the EndpointSlice controller's binding away and
        # a new Service gets no slice; the refusal is in the audit log.
        self.kubectl("delete", "clusterrolebinding", "system:controller:endpointslice-controller")
        time.sleep(1)  # the authorizer's index follows its watch
        p = self.srv.kubectl(KUBECTL, "create", "service", "clusterip", "lonely", "-n", "demo",
                             "--tcp=80:80")
        self.assertEqual(p.returncode, 0, p.stderr)
        forbid = self.eventually(
            lambda: [e for e in events(self.audit)
                     if e["user"]["username"] == SA + "endpointslice-controller" and
                     e["annotations"].get("authorization.k8s.io/decision") == "forbid"],
            what="the controller's refused write")
        self.assertEqual(forbid[0]["responseStatus"]["code"], 403)
        self.assertEqual(self.kubectl("get", "endpointslices", "-n", "demo", "-l",
                                      "kubernetes.io/service-name=lonely", "-o",
                                      "name").stdout.strip(), "")
        # The bootstrap policy brings it back at the next start, and the controller catches up.
        self.srv.restart()
        self.eventually(lambda: self.kubectl("get", "endpointslices", "-n", "demo", "-l",
                                             "kubernetes.io/service-name=lonely", "-o",
                                             "name").stdout.strip(),
                        what="lonely's slice after the restart")

    def test_3_admin_is_revocable_and_super_admin_is_the_break_glass(self):
        who = json.loads(self.kubectl("auth", "whoami", "-o", "json").stdout)
        self.assertEqual(who["status"]["userInfo"]["username"], "kubernetes-admin")
        self.assertEqual(who["status"]["userInfo"]["groups"],
                         ["svcplane:cluster-admins", "system:authenticated"])
        crb = json.loads(self.kubectl("get", "clusterrolebinding", "svcplane:cluster-admins",
                                      "-o", "json").stdout)
        self.assertEqual(crb["roleRef"]["name"], "cluster-admin")
        self.assertEqual(crb["subjects"], [{"kind": "Group", "name": "svcplane:cluster-admins",
                                            "apiGroup": "rbac.authorization.k8s.io"}])

        self.kubectl("delete", "clusterrolebinding", "svcplane:cluster-admins")
        refused = self.eventually(
            lambda: (lambda p: p if p.returncode != 0 else None)(
                self.kubectl("get", "namespaces", check=False)), what="the admin's 403")
        self.assertIn('User "kubernetes-admin" cannot list resource "namespaces" in API group '
                      '"" at the cluster scope', refused.stderr)
        # Revoked for good: a restart does not recreate it.
        self.srv.restart()
        p = self.kubectl("get", "namespaces", check=False)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("Forbidden", p.stderr)
        # The break glass works whatever the bindings say, and restores the admin.
        who = json.loads(self.super_admin("auth", "whoami", "-o", "json").stdout)
        self.assertEqual(who["status"]["userInfo"]["username"], "kubernetes-super-admin")
        self.assertIn("system:masters", who["status"]["userInfo"]["groups"])
        self.super_admin("create", "clusterrolebinding", "svcplane:cluster-admins",
                         "--clusterrole=cluster-admin", "--group=svcplane:cluster-admins")
        self.eventually(lambda: self.kubectl("get", "namespaces", check=False).returncode == 0,
                        what="the admin back")


if __name__ == "__main__":
    unittest.main()
