"""core/v1 ConfigMap, Secret and ServiceAccount served as kinds (issue 24): the kinds every app
manifest carries.

kubectl 1.27 (JSON bodies) and 1.33 (protobuf bodies) create config maps and secrets from
literals, read them (-o json, -o yaml, the server's Tables for `get cm,secret,sa`), apply a
multi-document manifest (ConfigMap + Secret with stringData + Deployment + Service), client-side
and server-side; the Python client's CoreV1Api creates, reads, patches, watches and deletes all
three; validation answers 422 with upstream's texts; every namespace gets its `default`
ServiceAccount within a second (and again after it is deleted); protobuf responses carry the
k8s\\0 envelope. The server runs with an audit policy that asks for RequestResponse everywhere:
a Secret's value must still never appear in the audit log, nor in the server's log.
"""

import base64
import json
import os
import tempfile
import threading
import time
import unittest

import harness
from test_protobuf import unwrap

VERSIONS = ("1.27", "1.33")
BASE = "/api/v1"
# A value that must never be written to a log.
SECRET_VALUE = "pa55-%d-never-logged" % os.getpid()
STRING_DATA_VALUE = "str1ngdata-%d-never-logged" % os.getpid()

KEY_MSG = ("a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. "
           "'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is "
           "'[-._a-zA-Z0-9]+')")

POLICY = """apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: RequestResponse
"""

MANIFEST = """apiVersion: v1
kind: ConfigMap
metadata:
  name: web-config
data:
  nginx.conf: |
    server { listen 80; }
  mode: production
---
apiVersion: v1
kind: Secret
metadata:
  name: web-secret
type: Opaque
stringData:
  password: %s
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: web
        image: nginx:1.25
        envFrom:
        - configMapRef:
            name: web-config
        - secretRef:
            name: web-secret
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector:
    app: web
  ports:
  - port: 80
"""


def b64(s):
    return base64.b64encode(s.encode()).decode()


def ns_for(version):
    return "app-" + version.replace(".", "")


def tables(stdout):
    """`kubectl get a,b,c` output: {header tuple: [row cells]} per blank-line-separated block."""
    out = {}
    for block in stdout.strip().split("\n\n"):
        lines = [line for line in block.splitlines() if line.strip()]
        if lines:
            out[tuple(lines[0].split())] = [line.split() for line in lines[1:]]
    return out


class AppKindsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="svcplane-appkinds-")
        cls.policy = os.path.join(cls.tmp, "policy.yaml")
        with open(cls.policy, "w") as f:
            f.write(POLICY)
        cls.audit_log = os.path.join(cls.tmp, "audit.log")
        cls.srv, cls.api = harness.start_with_client(
            ["--audit-policy-file", cls.policy, "--audit-log-path", cls.audit_log])
        for ns in [ns_for(v) for v in VERSIONS] + ["val", "py", "proto"]:
            cls.srv.kubectl("1.33", "create", "namespace", ns)

    @classmethod
    def tearDownClass(cls):
        cls.srv.cleanup()
        for name in os.listdir(cls.tmp):
            os.remove(os.path.join(cls.tmp, name))
        os.rmdir(cls.tmp)

    def kubectl(self, version, *args, **kw):
        return self.srv.kubectl(version, *args, **kw)

    def raw(self, method, path, body=None, content_type="application/json",
            accept="application/json"):
        if isinstance(body, dict):
            body = json.dumps(body)
        return harness.raw_request(self.api, method, path, body=body, accept=accept,
                                   content_type=content_type)

    def wait_for(self, fn, timeout=5.0, what="condition"):
        deadline = time.monotonic() + timeout
        while True:
            got = fn()
            if got:
                return got
            if time.monotonic() > deadline:
                self.fail("timed out waiting for " + what)
            time.sleep(0.05)

    def default_sa(self, ns):
        r = self.raw("GET", BASE + "/namespaces/%s/serviceaccounts/default" % ns)
        return json.loads(r.data) if r.status == 200 else None

    # --- kubectl ----------------------------------------------------------------------------

    def test_kubectl_lifecycle(self):
        for v in VERSIONS:
            with self.subTest(kubectl=v):
                self.check_kubectl_lifecycle(v)

    def check_kubectl_lifecycle(self, v):
        ns = ns_for(v)
        out = self.kubectl(v, "create", "configmap", "app", "--from-literal=a=1",
                           "--from-literal=b=two", "-n", ns).stdout
        self.assertEqual(out.strip(), "configmap/app created")
        out = self.kubectl(v, "create", "secret", "generic", "creds",
                           "--from-literal=password=" + SECRET_VALUE, "-n", ns).stdout
        self.assertEqual(out.strip(), "secret/creds created")

        cm = self.srv.kubectl_json(v, "get", "configmap", "app", "-n", ns)
        self.assertEqual((cm["apiVersion"], cm["kind"]), ("v1", "ConfigMap"))
        self.assertEqual(cm["data"], {"a": "1", "b": "two"})
        self.assertNotIn("binaryData", cm)
        s = self.srv.kubectl_json(v, "get", "secret", "creds", "-n", ns)
        self.assertEqual(s["type"], "Opaque")
        self.assertEqual(s["data"], {"password": b64(SECRET_VALUE)})
        self.assertNotIn("stringData", s)
        y = self.kubectl(v, "get", "secret", "creds", "-n", ns, "-o", "yaml").stdout
        self.assertIn("  password: " + b64(SECRET_VALUE), y)
        self.assertIn("type: Opaque", y)
        y = self.kubectl(v, "get", "cm", "app", "-n", ns, "-o", "yaml").stdout
        self.assertIn('  a: "1"', y)
        self.kubectl(v, "replace", "-f", "-", input=y)  # -o yaml round trip

        # The server's Tables, as upstream's printers.
        t = tables(self.kubectl(v, "get", "cm,secret,sa", "-n", ns).stdout)
        self.assertEqual(t[("NAME", "DATA", "AGE")][0][:2], ["configmap/app", "2"])
        self.assertEqual(t[("NAME", "TYPE", "DATA", "AGE")][0][:3],
                         ["secret/creds", "Opaque", "1"])
        self.assertEqual(t[("NAME", "SECRETS", "AGE")][0][:2], ["serviceaccount/default", "0"])

        # apply -f of a multi-document manifest, then again with a changed stringData.
        out = self.kubectl(v, "apply", "-n", ns, "-f", "-",
                           input=MANIFEST % STRING_DATA_VALUE).stdout
        self.assertEqual(out.strip().splitlines(),
                         ["configmap/web-config created", "secret/web-secret created",
                          "deployment.apps/web created", "service/web created"])
        s = self.srv.kubectl_json(v, "get", "secret", "web-secret", "-n", ns)
        self.assertEqual(s["data"], {"password": b64(STRING_DATA_VALUE)})
        self.assertNotIn("stringData", s)
        out = self.kubectl(v, "apply", "-n", ns, "-f", "-",
                           input=MANIFEST % (STRING_DATA_VALUE + "-2")).stdout
        self.assertIn("secret/web-secret configured", out)
        self.assertIn("configmap/web-config unchanged", out)
        s = self.srv.kubectl_json(v, "get", "secret", "web-secret", "-n", ns)
        self.assertEqual(s["data"], {"password": b64(STRING_DATA_VALUE + "-2")})
        cm = self.srv.kubectl_json(v, "get", "cm", "web-config", "-n", ns)
        self.assertEqual(cm["data"]["mode"], "production")
        self.assertEqual(cm["data"]["nginx.conf"], "server { listen 80; }\n")

        # Server-side apply: create, then change a key; the field manager owns data keys.
        ssa = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\ndata:\n"
               "  color: blue\n  size: big\n")
        out = self.kubectl(v, "apply", "--server-side", "-n", ns, "-f", "-", input=ssa).stdout
        self.assertEqual(out.strip(), "configmap/ssa serverside-applied")
        out = self.kubectl(v, "apply", "--server-side", "-n", ns, "-f", "-",
                           input=ssa.replace("  size: big\n", "")).stdout
        cm = self.srv.kubectl_json(v, "get", "cm", "ssa", "-n", ns, "--show-managed-fields")
        self.assertEqual(cm["data"], {"color": "blue"})  # the dropped key was removed
        managers = [(m["manager"], m["operation"]) for m in cm["metadata"]["managedFields"]]
        self.assertEqual(managers, [("kubectl", "Apply")])
        self.assertEqual(cm["metadata"]["managedFields"][0]["fieldsV1"],
                         {"f:data": {"f:color": {}}})
        # A server-side-applied Secret with stringData: data is set, stringData is not kept.
        sec = ("apiVersion: v1\nkind: Secret\nmetadata:\n  name: ssa-secret\nstringData:\n"
               "  token: %s\n" % SECRET_VALUE)
        self.kubectl(v, "apply", "--server-side", "-n", ns, "-f", "-", input=sec)
        s = self.srv.kubectl_json(v, "get", "secret", "ssa-secret", "-n", ns)
        self.assertEqual(s["data"], {"token": b64(SECRET_VALUE)})
        self.assertNotIn("stringData", s)

        # Patches: strategic (kubectl's default), merge and JSON.
        self.kubectl(v, "patch", "cm", "app", "-n", ns, "-p", '{"data":{"c":"3"}}')
        self.kubectl(v, "patch", "cm", "app", "-n", ns, "--type=merge",
                     "-p", '{"data":{"a":null}}')
        self.kubectl(v, "patch", "cm", "app", "-n", ns, "--type=json",
                     "-p", '[{"op":"replace","path":"/data/b","value":"2"}]')
        cm = self.srv.kubectl_json(v, "get", "cm", "app", "-n", ns)
        self.assertEqual(cm["data"], {"b": "2", "c": "3"})
        self.kubectl(v, "patch", "secret", "creds", "-n", ns,
                     "-p", json.dumps({"stringData": {"user": "admin"}}))
        s = self.srv.kubectl_json(v, "get", "secret", "creds", "-n", ns)
        self.assertEqual(s["data"], {"password": b64(SECRET_VALUE), "user": b64("admin")})

        # delete, and deletecollection.
        out = self.kubectl(v, "delete", "cm", "app", "-n", ns).stdout
        self.assertIn('configmap "app" deleted', out)
        self.kubectl(v, "delete", "secret", "--all", "-n", ns)
        self.assertEqual(self.srv.kubectl_json(v, "get", "secret", "-n", ns)["items"], [])
        p = self.kubectl(v, "get", "cm", "app", "-n", ns, check=False)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn('configmaps "app" not found', p.stderr)

    # --- the default ServiceAccount -----------------------------------------------------------

    def test_default_service_account(self):
        for ns in ("default", "kube-system", "kube-public", "kube-node-lease", "val"):
            self.assertIsNotNone(self.wait_for(lambda: self.default_sa(ns), 5, ns), ns)
        self.kubectl("1.33", "create", "namespace", "fresh")
        start = time.monotonic()
        sa = self.wait_for(lambda: self.default_sa("fresh"), 1.0, "default in fresh")
        self.assertLess(time.monotonic() - start, 1.0)
        self.assertNotIn("secrets", sa)
        out = self.kubectl("1.33", "get", "sa", "-n", "fresh").stdout.splitlines()
        self.assertEqual(out[0].split(), ["NAME", "SECRETS", "AGE"])
        self.assertEqual(out[1].split()[:2], ["default", "0"])
        # Deleted, it comes back (a new object).
        self.kubectl("1.33", "delete", "sa", "default", "-n", "fresh")
        again = self.wait_for(
            lambda: (lambda o: o if o and o["metadata"]["uid"] != sa["metadata"]["uid"] else None)(
                self.default_sa("fresh")), 2.0, "default re-created")
        self.assertEqual(again["metadata"]["name"], "default")
        # Other accounts are the user's own.
        self.kubectl("1.33", "create", "serviceaccount", "builder", "-n", "fresh")
        t = tables(self.kubectl("1.33", "get", "sa", "-n", "fresh").stdout)
        names = [row[0] for row in t[("NAME", "SECRETS", "AGE")]]
        self.assertEqual(names, ["builder", "default"])
        # A deleted namespace is emptied (config maps, secrets, accounts) and goes away; its
        # terminating state gets no new default account.
        self.kubectl("1.33", "create", "configmap", "x", "--from-literal=k=v", "-n", "fresh")
        self.kubectl("1.33", "delete", "namespace", "fresh", "--wait=false")
        self.wait_for(lambda: self.raw("GET", BASE + "/namespaces/fresh").status == 404, 15,
                      "namespace fresh gone")
        self.assertEqual(json.loads(self.raw(
            "GET", BASE + "/namespaces/fresh/serviceaccounts").data)["items"], [])

    # --- validation -----------------------------------------------------------------------------

    def assert_invalid(self, r, message, field):
        body = json.loads(r.data)
        self.assertEqual(r.status, 422, body)
        self.assertEqual(body["reason"], "Invalid")
        self.assertEqual(body["message"], message)
        self.assertIn(field, [c["field"] for c in body["details"]["causes"]])

    def test_validation(self):
        cms = BASE + "/namespaces/val/configmaps"
        secrets = BASE + "/namespaces/val/secrets"
        self.assert_invalid(
            self.raw("POST", cms, {"metadata": {"name": "bad"}, "data": {"bad key": "v"}}),
            'ConfigMap "bad" is invalid: data[bad key]: Invalid value: "bad key": ' + KEY_MSG,
            "data[bad key]")
        self.assert_invalid(
            self.raw("POST", cms, {"metadata": {"name": "dup"}, "data": {"k": "v"},
                                   "binaryData": {"k": "AA=="}}),
            'ConfigMap "dup" is invalid: data[k]: Invalid value: "k": duplicate of key present '
            'in binaryData', "data[k]")
        r = self.raw("POST", cms, {"metadata": {"name": "huge"},
                                   "data": {"a": "x" * (1024 * 1024 + 1)}})
        body = json.loads(r.data)
        self.assertEqual(r.status, 422, body)
        self.assertEqual(body["message"],
                         'ConfigMap "huge" is invalid: []: Too long: must have at most 1048576 '
                         'bytes')
        self.assert_invalid(
            self.raw("POST", secrets, {"metadata": {"name": "tls"}, "type": "kubernetes.io/tls",
                                       "data": {"tls.crt": "Yw=="}}),
            'Secret "tls" is invalid: data[tls.key]: Required value', "data[tls.key]")
        self.assert_invalid(
            self.raw("POST", secrets, {"metadata": {"name": "sat"},
                                       "type": "kubernetes.io/service-account-token"}),
            'Secret "sat" is invalid: metadata.annotations[kubernetes.io/service-account.name]: '
            'Required value', "metadata.annotations[kubernetes.io/service-account.name]")
        # Bad base64 in data: a 400 from decoding.
        r = self.raw("POST", secrets, {"metadata": {"name": "b64"}, "data": {"k": "!!"}})
        body = json.loads(r.data)
        self.assertEqual(r.status, 400, body)
        self.assertIn("illegal base64 data at input byte 0", body["message"])

        # Immutable ConfigMap: data changes and unsetting are refused, metadata is not.
        r = self.raw("POST", cms, {"metadata": {"name": "frozen"}, "immutable": True,
                                   "data": {"k": "v"}})
        self.assertEqual(r.status, 201, r.data)
        self.assert_invalid(
            self.raw("PATCH", cms + "/frozen", {"data": {"k": "changed"}},
                     content_type="application/merge-patch+json"),
            'ConfigMap "frozen" is invalid: data: Forbidden: field is immutable when '
            '`immutable` is set', "data")
        self.assert_invalid(
            self.raw("PATCH", cms + "/frozen", {"immutable": False},
                     content_type="application/merge-patch+json"),
            'ConfigMap "frozen" is invalid: immutable: Forbidden: field is immutable when '
            '`immutable` is set', "immutable")
        r = self.raw("PATCH", cms + "/frozen", {"metadata": {"labels": {"a": "b"}}},
                     content_type="application/merge-patch+json")
        self.assertEqual(r.status, 200, r.data)
        # Immutable Secret, through stringData too; and the type never changes.
        r = self.raw("POST", secrets, {"metadata": {"name": "frozen"}, "immutable": True,
                                       "stringData": {"k": "v"}})
        self.assertEqual(r.status, 201, r.data)
        self.assert_invalid(
            self.raw("PATCH", secrets + "/frozen", {"stringData": {"k": "other"}},
                     content_type="application/merge-patch+json"),
            'Secret "frozen" is invalid: data: Forbidden: field is immutable when `immutable` '
            'is set', "data")
        r = self.raw("POST", secrets, {"metadata": {"name": "typed"}, "data": {"k": "dg=="}})
        self.assertEqual(r.status, 201, r.data)
        self.assertEqual(json.loads(r.data)["type"], "Opaque")
        self.assert_invalid(
            self.raw("PATCH", secrets + "/typed", {"type": "example.com/other"},
                     content_type="application/merge-patch+json"),
            'Secret "typed" is invalid: type: Invalid value: "example.com/other": field is '
            'immutable', "type")
        # kubectl prints upstream's text (`create configmap --from-literal` checks keys itself,
        # so a manifest).
        manifest = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "bad"},
                    "data": {"bad key": "v"}}
        for v in VERSIONS:
            p = self.kubectl(v, "create", "-n", "val", "-f", "-", input=json.dumps(manifest),
                             check=False)
            self.assertNotEqual(p.returncode, 0)
            self.assertIn('The ConfigMap "bad" is invalid: data[bad key]: Invalid value: '
                          '"bad key": ' + KEY_MSG, p.stderr, v)

    # --- Python client ----------------------------------------------------------------------

    def test_python_client(self):
        from kubernetes import client, watch
        core = client.CoreV1Api(self.api)
        cm = core.create_namespaced_config_map("py", client.V1ConfigMap(
            metadata=client.V1ObjectMeta(name="py-cm"), data={"k": "v"},
            binary_data={"bin": base64.b64encode(b"\x00\xff").decode()}))
        self.assertEqual(cm.data, {"k": "v"})
        got = core.read_namespaced_config_map("py-cm", "py")
        self.assertEqual(base64.b64decode(got.binary_data["bin"]), b"\x00\xff")
        patched = core.patch_namespaced_config_map("py-cm", "py", {"data": {"k2": "v2"}})
        self.assertEqual(patched.data, {"k": "v", "k2": "v2"})
        self.assertEqual([c.metadata.name for c in core.list_namespaced_config_map("py").items],
                         ["py-cm"])

        s = core.create_namespaced_secret("py", client.V1Secret(
            metadata=client.V1ObjectMeta(name="py-secret"), string_data={"pw": SECRET_VALUE},
            data={"other": b64("o")}))
        self.assertIsNone(s.string_data)
        self.assertEqual(s.type, "Opaque")
        self.assertEqual(s.data, {"other": b64("o"), "pw": b64(SECRET_VALUE)})
        got = core.read_namespaced_secret("py-secret", "py")
        self.assertIsNone(got.string_data)
        self.assertEqual(base64.b64decode(got.data["pw"]).decode(), SECRET_VALUE)
        patched = core.patch_namespaced_secret("py-secret", "py",
                                               {"stringData": {"other": "new"}})
        self.assertEqual(base64.b64decode(patched.data["other"]), b"new")
        core.delete_namespaced_secret("py-secret", "py")

        sa = core.create_namespaced_service_account("py", client.V1ServiceAccount(
            metadata=client.V1ObjectMeta(name="robot"),
            image_pull_secrets=[client.V1LocalObjectReference(name="reg")],
            automount_service_account_token=False))
        self.assertEqual(sa.image_pull_secrets[0].name, "reg")
        self.assertFalse(sa.automount_service_account_token)
        patched = core.patch_namespaced_service_account(
            "robot", "py", {"secrets": [{"name": "tok"}]})
        self.assertEqual([r.name for r in patched.secrets], ["tok"])
        names = sorted(a.metadata.name for a in core.list_namespaced_service_account("py").items)
        self.assertEqual(names, ["default", "robot"])
        core.delete_namespaced_service_account("robot", "py")

        # A watch of config maps sees an add, a modify and a delete.
        rv = core.list_namespaced_config_map("py").metadata.resource_version
        seen = []

        def writer():
            time.sleep(0.3)
            core.create_namespaced_config_map("py", client.V1ConfigMap(
                metadata=client.V1ObjectMeta(name="watched"), data={"a": "1"}))
            core.patch_namespaced_config_map("watched", "py", {"data": {"a": "2"}})
            core.delete_namespaced_config_map("watched", "py")

        t = threading.Thread(target=writer)
        t.start()
        w = watch.Watch()
        for ev in w.stream(core.list_namespaced_config_map, "py", resource_version=rv,
                           timeout_seconds=10):
            if ev["object"].metadata.name == "watched":
                seen.append((ev["type"], (ev["object"].data or {}).get("a")))
            if len(seen) == 3:
                w.stop()
        t.join()
        self.assertEqual(seen, [("ADDED", "1"), ("MODIFIED", "2"), ("DELETED", "2")])
        core.delete_namespaced_config_map("py-cm", "py")

    # --- protobuf ---------------------------------------------------------------------------

    def test_protobuf(self):
        ns = BASE + "/namespaces/proto"
        r = self.raw("POST", ns + "/configmaps", {"metadata": {"name": "pb"},
                                                  "data": {"k": "v"},
                                                  "binaryData": {"b": "AP8="}})
        self.assertEqual(r.status, 201, r.data)
        r = self.raw("GET", ns + "/configmaps/pb", accept="application/vnd.kubernetes.protobuf")
        self.assertEqual(r.status, 200, r.data)
        self.assertEqual(r.headers["Content-Type"], "application/vnd.kubernetes.protobuf")
        api_version, kind, raw = unwrap(r.data)
        self.assertEqual((api_version, kind), ("v1", "ConfigMap"))
        self.assertIn(b"\x12\x06\x0a\x01k\x12\x01v", raw)          # data = 2
        self.assertIn(b"\x1a\x07\x0a\x01b\x12\x02\x00\xff", raw)   # binaryData = 3, raw bytes
        r = self.raw("POST", ns + "/secrets", {"metadata": {"name": "pb"},
                                               "stringData": {"k": "s3"}})
        self.assertEqual(r.status, 201, r.data)
        r = self.raw("GET", ns + "/secrets", accept="application/vnd.kubernetes.protobuf")
        api_version, kind, raw = unwrap(r.data)
        self.assertEqual((api_version, kind), ("v1", "SecretList"))
        self.assertIn(b"\x12\x07\x0a\x01k\x12\x02s3", raw)  # data, decoded: raw bytes
        self.assertIn(b"\x1a\x06Opaque", raw)               # type = 3
        self.assertNotIn(b"\x22", raw[raw.find(b"Opaque") + 6:])  # no stringData (4) after
        r = self.raw("GET", ns + "/serviceaccounts/default",
                     accept="application/vnd.kubernetes.protobuf")
        self.assertEqual(unwrap(r.data)[1], "ServiceAccount")
        if self.srv.etcd is not None:
            # Upstream's storage keys, values in protobuf; stringData never stored.
            for key in ("/registry/configmaps/proto/pb", "/registry/secrets/proto/pb",
                        "/registry/serviceaccounts/proto/default"):
                stored = self.srv.etcd.get(key)
                self.assertIsNotNone(stored, key)
                self.assertEqual(stored[:4], b"k8s\x00", key)

    # --- discovery, OpenAPI, RBAC -------------------------------------------------------------

    def test_discovery(self):
        lst = json.loads(self.raw("GET", BASE).data)
        by_name = {r["name"]: r for r in lst["resources"]}
        for name, kind, short, svh in (("configmaps", "ConfigMap", ["cm"], "qFsyl6wFWjQ="),
                                       ("secrets", "Secret", None, "S6u1pOWzb84="),
                                       ("serviceaccounts", "ServiceAccount", ["sa"],
                                        "pbx9ZvyFpBE=")):
            r = by_name[name]
            self.assertEqual((r["kind"], r["namespaced"], r["storageVersionHash"]),
                             (kind, True, svh))
            self.assertEqual(r["verbs"], ["create", "delete", "deletecollection", "get", "list",
                                          "patch", "update", "watch"])
            self.assertEqual(r.get("shortNames"), short)
            self.assertEqual(r["singularName"], name[:-1])
            self.assertNotIn("categories", r)  # not in `kubectl get all`
        for v in VERSIONS:
            out = self.kubectl(v, "api-resources", "--api-group=").stdout
            rows = {line.split()[0]: line.split() for line in out.splitlines()[1:]}
            self.assertEqual(rows["configmaps"][1:], ["cm", "v1", "true", "ConfigMap"], v)
            self.assertEqual(rows["secrets"][1:], ["v1", "true", "Secret"], v)
            self.assertEqual(rows["serviceaccounts"][1:],
                             ["sa", "v1", "true", "ServiceAccount"], v)

    def test_openapi(self):
        doc = json.loads(self.raw("GET", "/openapi/v3/api/v1").data)
        schemas = doc["components"]["schemas"]
        secret = schemas["io.k8s.api.core.v1.Secret"]
        self.assertEqual(secret["x-kubernetes-group-version-kind"],
                         [{"group": "", "kind": "Secret", "version": "v1"}])
        self.assertEqual(secret["properties"]["data"]["additionalProperties"],
                         {"type": "string", "format": "byte"})
        cm = schemas["io.k8s.api.core.v1.ConfigMap"]["properties"]
        self.assertEqual(cm["binaryData"]["additionalProperties"]["format"], "byte")
        sa = schemas["io.k8s.api.core.v1.ServiceAccount"]["properties"]
        self.assertEqual(sa["secrets"]["x-kubernetes-patch-merge-key"], "name")
        self.assertIn("/api/v1/namespaces/{namespace}/secrets/{name}", doc["paths"])
        v2 = json.loads(self.raw("GET", "/openapi/v2").data)
        self.assertIn("io.k8s.api.core.v1.ConfigMap", v2["definitions"])
        for v in VERSIONS:
            out = self.kubectl(v, "explain", "secret.stringData").stdout
            self.assertIn("write-only", out, v)

    def test_bootstrap_roles(self):
        """admin and edit get configmaps, secrets and serviceaccounts; view gets configmaps and
        serviceaccounts but not secrets (upstream's aggregated roles)."""
        def verbs(role, resource):
            rules = json.loads(self.raw(
                "GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles/" + role).data)
            out = set()
            for r in rules.get("rules") or []:
                if "" in r.get("apiGroups", []) and resource in r.get("resources", []):
                    out |= set(r.get("verbs", []))
            return out

        write = {"create", "delete", "deletecollection", "patch", "update"}
        read = {"get", "list", "watch"}
        self.wait_for(lambda: verbs("view", "configmaps"), 10, "aggregated view")
        for role in ("admin", "edit"):
            for res in ("configmaps", "secrets", "serviceaccounts"):
                self.assertLessEqual(write | read, verbs(role, res), (role, res))
        self.assertLessEqual(read, verbs("view", "configmaps"))
        self.assertLessEqual(read, verbs("view", "serviceaccounts"))
        self.assertEqual(verbs("view", "secrets"), set())

    # --- logs -------------------------------------------------------------------------------

    def test_zz_secret_values_never_logged(self):
        """Runs last (name order): every Secret written above, by kubectl, apply and the Python
        client, at an audit level of RequestResponse for everything."""
        self.kubectl("1.33", "create", "secret", "generic", "logged", "-n", "val",
                     "--from-literal=pw=" + SECRET_VALUE)
        self.kubectl("1.33", "get", "secret", "logged", "-n", "val", "-o", "yaml")
        self.kubectl("1.33", "create", "configmap", "audited", "-n", "val",
                     "--from-literal=visible=config-body-is-logged")

        def events():
            with open(self.audit_log) as f:
                return [json.loads(line) for line in f if line.strip()]

        self.wait_for(lambda: any((e.get("objectRef") or {}).get("name") == "audited"
                                  for e in events()), 5, "audit events")
        evs = events()
        secret_events = [e for e in evs if (e.get("objectRef") or {}).get("resource") == "secrets"]
        self.assertTrue(secret_events)
        for e in secret_events:
            self.assertEqual(e["level"], "Metadata", e)
            self.assertNotIn("requestObject", e)
            self.assertNotIn("responseObject", e)
        # The policy itself is honoured for other kinds: a ConfigMap's body is logged.
        cm_creates = [e for e in evs if (e.get("objectRef") or {}).get("resource") == "configmaps"
                      and e["verb"] == "create"]
        self.assertTrue(any(e["level"] == "RequestResponse" and "requestObject" in e
                            for e in cm_creates))
        with open(self.audit_log, "rb") as f:
            audit = f.read()
        with open(self.srv.log_path, "rb") as f:
            server_log = f.read()
        for value in (SECRET_VALUE, STRING_DATA_VALUE):
            for form in (value, b64(value)):
                self.assertNotIn(form.encode(), audit, form)
                self.assertNotIn(form.encode(), server_log, form)
        self.assertIn(b"config-body-is-logged", audit)


if __name__ == "__main__":
    unittest.main()
