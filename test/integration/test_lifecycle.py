"""Process lifecycle of `svcplane serve`: SIGTERM, restart, the data-dir lock, authentication."""

import json
import os
import ssl
import subprocess
import unittest
import urllib.error
import urllib.request

import yaml
from kubernetes import client

import harness

NS = "default"


class Lifecycle(unittest.TestCase):
    def setUp(self):
        self.srv = harness.Server()
        self.addCleanup(self.srv.cleanup)
        self.srv.start()

    def coord(self):
        api = self.srv.api_client()
        self.addCleanup(api.close)
        return client.CoordinationV1Api(api)

    def test_sigterm_exits_zero_and_restart_finds_everything(self):
        coord = self.coord()
        rvs = {}
        for i in range(20):
            out = coord.create_namespaced_lease(NS, client.V1Lease(
                metadata=client.V1ObjectMeta(name="t-%d" % i),
                spec=client.V1LeaseSpec(holder_identity="h-%d" % i)))
            rvs[out.metadata.name] = out.metadata.resource_version
        self.assertEqual(self.srv.stop(), 0)
        self.srv.start()
        coord = self.coord()
        items = {i.metadata.name: i for i in coord.list_namespaced_lease(NS).items}
        for name, rv in rvs.items():
            self.assertIn(name, items)
            self.assertEqual(items[name].metadata.resource_version, rv)
            self.assertEqual(items[name].spec.holder_identity, "h-" + name[2:])
        # the built-in namespaces are still there, and revisions keep growing
        ns = {n.metadata.name for n in client.CoreV1Api(coord.api_client).list_namespace().items}
        self.assertLessEqual({"default", "kube-system", "kube-public", "kube-node-lease"}, ns)
        out = coord.create_namespaced_lease(NS, client.V1Lease(
            metadata=client.V1ObjectMeta(name="after")))
        self.assertGreater(int(out.metadata.resource_version), max(map(int, rvs.values())))
        self.assertEqual(self.srv.stop(), 0)

    def test_second_server_on_same_dir_is_refused(self):
        port = harness.free_port()
        p = subprocess.run([harness.SVCPLANE, "serve", "--data-dir", self.srv.data_dir,
                            "--listen", "127.0.0.1:%d" % port],
                           capture_output=True, text=True, timeout=30)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("in use", p.stdout + p.stderr)
        # the first one is unharmed
        self.assertEqual(self.srv.kubectl("1.33", "get", "--raw", "/readyz").stdout.strip(), "ok")

    def _get(self, path, token=None):
        with open(self.srv.kubeconfig) as f:
            kc = yaml.safe_load(f)
        cluster = kc["clusters"][0]["cluster"]
        ctx = ssl.create_default_context()
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE  # we test auth, not TLS, here
        req = urllib.request.Request(cluster["server"] + path)
        if token:
            req.add_header("Authorization", "Bearer " + token)
        try:
            with urllib.request.urlopen(req, context=ctx, timeout=10) as r:
                return r.status, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()

    def test_no_token_is_anonymous_and_a_wrong_token_is_401(self):
        with open(self.srv.kubeconfig) as f:
            kc = yaml.safe_load(f)
        token = kc["users"][0]["user"]["token"]
        for path in ("/api/v1/namespaces", "/apis/coordination.k8s.io/v1/leases", "/api",
                     "/metrics"):
            # No credentials: system:anonymous, whom the default policy lets read nothing here.
            code, body = self._get(path)
            self.assertEqual(code, 403, path)
            status = json.loads(body)
            self.assertEqual((status["kind"], status["reason"], status["code"]),
                             ("Status", "Forbidden", 403))
            self.assertIn('User "system:anonymous" cannot', status["message"])
            code, body = self._get(path, token="not-the-token")
            self.assertEqual(code, 401, path)
            self.assertEqual(json.loads(body)["reason"], "Unauthorized")
            code, _ = self._get(path, token=token)
            self.assertEqual(code, 200, path)


if __name__ == "__main__":
    unittest.main()
