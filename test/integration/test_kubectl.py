"""kubectl suite against `svcplane serve`, for kubectl 1.27, 1.28 and 1.33.

Every version runs with its default validation (--validate=strict). kubectl 1.27/1.28 load the
protobuf /openapi/v2 for create, apply and explain (issue 4); they then find fieldValidation on
each kind's PATCH operation and leave validation to the server, except for a `kind: List`
manifest, which they validate client-side against /openapi/v2 as on a real cluster
(OpenApiV2Checks). 1.33's generator commands (`kubectl create namespace`, `create service ...`)
send protobuf bodies (issue 8, see test_protobuf.py).
"""

import json
import os
import queue
import stat
import subprocess
import threading
import time
import unittest

import yaml

import harness

NS = "it"

# kind -> (resource name for kubectl, namespaced, manifest builder, a wide column to expect)
def _meta(name, namespaced):
    m = {"name": name, "labels": {"app": "it"}, "annotations": {"edit-me": "before"}}
    if namespaced:
        m["namespace"] = NS
    return m


KINDS = {
    "Namespace": ("namespaces", False, lambda n: {
        "apiVersion": "v1", "kind": "Namespace", "metadata": _meta(n, False)}),
    "Service": ("services", True, lambda n: {
        "apiVersion": "v1", "kind": "Service", "metadata": _meta(n, True),
        "spec": {"selector": {"app": "it"}, "ports": [{"name": "http", "port": 80,
                                                       "targetPort": 8080}]}}),
    "Pod": ("pods", True, lambda n: {
        "apiVersion": "v1", "kind": "Pod", "metadata": _meta(n, True),
        "spec": {"containers": [{"name": "c", "image": "nginx:1.25"}]}}),
    "Node": ("nodes", False, lambda n: {
        "apiVersion": "v1", "kind": "Node", "metadata": _meta(n, False),
        "spec": {"podCIDR": "10.244.1.0/24"}}),
    "Endpoints": ("endpoints", True, lambda n: {
        "apiVersion": "v1", "kind": "Endpoints", "metadata": _meta(n, True),
        "subsets": [{"addresses": [{"ip": "10.1.2.3"}], "ports": [{"port": 8080}]}]}),
    "Event": ("events", True, lambda n: {
        "apiVersion": "v1", "kind": "Event", "metadata": _meta(n, True),
        "involvedObject": {"kind": "Pod", "namespace": NS, "name": "p"},
        "reason": "Started", "message": "it started", "type": "Normal",
        "source": {"component": "itest"}}),
    "EndpointSlice": ("endpointslices.discovery.k8s.io", True, lambda n: {
        "apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice", "metadata": _meta(n, True),
        "addressType": "IPv4", "endpoints": [{"addresses": ["10.1.2.3"]}],
        "ports": [{"name": "http", "port": 8080, "protocol": "TCP"}]}),
    "Lease": ("leases.coordination.k8s.io", True, lambda n: {
        "apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": _meta(n, True),
        "spec": {"holderIdentity": "itest", "leaseDurationSeconds": 15}}),
}

EXPLAIN = {"Namespace": "namespaces", "Service": "services.spec", "Pod": "pods.spec",
           "Node": "nodes.spec", "Endpoints": "endpoints.subsets", "Event": "events.reason",
           "EndpointSlice": "endpointslices.endpoints", "Lease": "leases.spec"}

# Every kind we serve, and a nested field, for `kubectl explain`: (argument, KIND, a field).
EXPLAIN_ALL = [("pods", "Pod", "spec"), ("services", "Service", "spec"),
               ("nodes", "Node", "spec"), ("namespaces", "Namespace", "status"),
               ("endpoints", "Endpoints", "subsets"), ("events", "Event", "involvedObject"),
               ("endpointslices", "EndpointSlice", "addressType"),
               ("leases", "Lease", "spec"), ("pods.spec.containers.ports", "Pod", "containerPort")]

EDITOR_SCRIPT = "#!/bin/sh\nsed -i 's/edit-me: before/edit-me: after/' \"$1\"\n"


class KubectlSuite:
    """Mixed into one unittest.TestCase per kubectl version (VERSION)."""

    VERSION = None

    @classmethod
    def setUpClass(cls):
        cls.srv = harness.Server()
        try:
            cls.srv.start()
            cls.apply_manifest({"apiVersion": "v1", "kind": "Namespace",
                                "metadata": {"name": NS}})
            cls.editor = os.path.join(cls.srv.data_dir, "editor.sh")
            with open(cls.editor, "w") as f:
                f.write(EDITOR_SCRIPT)
            os.chmod(cls.editor, stat.S_IRWXU)
        except BaseException:
            cls.srv.cleanup()
            raise

    @classmethod
    def tearDownClass(cls):
        cls.srv.cleanup()

    @classmethod
    def k(cls, *args, **kw):
        return cls.srv.kubectl(cls.VERSION, *args, **kw)

    @classmethod
    def apply_manifest(cls, obj, verb="apply", check=True):
        return cls.k(verb, "-f", "-", input=json.dumps(obj), check=check)

    def kjson(self, *args):
        return json.loads(self.k(*args, "-o", "json").stdout)

    # --- every verb on every kind ---------------------------------------------------------

    def run_kind(self, kind):
        resource, namespaced, build = KINDS[kind]
        name = ("it-" + kind + "-" + self.VERSION.replace(".", "")).lower()
        nsargs = ["-n", NS] if namespaced else []
        ref = [resource, name] + nsargs
        obj = build(name)

        # create with create -f, then apply (3-way merge) adds a label
        out = self.apply_manifest(obj, verb="create").stdout
        self.assertIn("created", out)
        obj["metadata"]["labels"]["applied"] = "yes"
        p = self.apply_manifest(obj)
        self.assertIn("configured", p.stdout)
        self.assertNotIn("error calculating patch", p.stderr)

        got = self.kjson("get", *ref)
        self.assertEqual(got["kind"], kind)
        self.assertEqual(got["metadata"]["name"], name)
        self.assertEqual(got["metadata"]["labels"].get("applied"), "yes")
        self.assertIn("kubectl.kubernetes.io/last-applied-configuration",
                      got["metadata"]["annotations"])
        got_yaml = yaml.safe_load(self.k("get", *ref, "-o", "yaml").stdout)
        self.assertEqual(got_yaml["metadata"]["uid"], got["metadata"]["uid"])
        wide = self.k("get", *ref, "-o", "wide").stdout
        self.assertIn(name, wide)
        self.assertIn("NAME", wide.splitlines()[0])
        listed = self.kjson("get", resource, "-l", "app=it,applied=yes", *nsargs)
        self.assertIn(name, [i["metadata"]["name"] for i in listed["items"]])

        desc = self.k("describe", *ref).stdout
        self.assertIn(name, desc)
        self.assertIn("Labels:", desc)

        self.k("label", *ref, "tier=backend")
        self.k("annotate", *ref, "note=hello")
        got = self.kjson("get", *ref)
        self.assertEqual(got["metadata"]["labels"]["tier"], "backend")
        self.assertEqual(got["metadata"]["annotations"]["note"], "hello")
        self.k("label", *ref, "tier-")
        self.assertNotIn("tier", self.kjson("get", *ref)["metadata"]["labels"])

        # the three patch types
        self.k("patch", *ref, "--type=merge", "-p", '{"metadata":{"labels":{"p1":"merge"}}}')
        self.k("patch", *ref, "--type=json", "-p",
               '[{"op":"add","path":"/metadata/labels/p2","value":"json"}]')
        self.k("patch", *ref, "--type=strategic", "-p", '{"metadata":{"labels":{"p3":"smp"}}}')
        labels = self.kjson("get", *ref)["metadata"]["labels"]
        self.assertEqual((labels["p1"], labels["p2"], labels["p3"]), ("merge", "json", "smp"))

        # edit through a non-interactive EDITOR
        self.k("edit", *ref, env={"EDITOR": self.editor, "KUBE_EDITOR": ""})
        self.assertEqual(self.kjson("get", *ref)["metadata"]["annotations"]["edit-me"], "after")

        # explain (from our OpenAPI v3, or v2 for kubectl <= 1.28 by default)
        ex = self.k("explain", EXPLAIN[kind]).stdout
        self.assertIn("KIND:", ex)
        self.assertIn(kind, ex)

        # delete and wait for it to be gone
        self.k("delete", *ref, "--wait=false")
        self.k("wait", "--for=delete", *ref, "--timeout=30s")
        p = self.k("get", *ref, check=False)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("NotFound", p.stderr)

    def test_namespace(self): self.run_kind("Namespace")
    def test_service(self): self.run_kind("Service")
    def test_pod(self): self.run_kind("Pod")
    def test_node(self): self.run_kind("Node")
    def test_endpoints(self): self.run_kind("Endpoints")
    def test_event(self): self.run_kind("Event")
    def test_endpointslice(self): self.run_kind("EndpointSlice")
    def test_lease(self): self.run_kind("Lease")

    # --- the rest ------------------------------------------------------------------------

    def test_raw_discovery_and_readyz(self):
        self.assertEqual(self.k("get", "--raw", "/readyz").stdout.strip(), "ok")
        self.assertEqual(self.k("get", "--raw", "/livez").stdout.strip(), "ok")
        api = json.loads(self.k("get", "--raw", "/api").stdout)
        self.assertEqual(api["kind"], "APIVersions")
        self.assertIn("v1", api["versions"])
        v1 = json.loads(self.k("get", "--raw", "/api/v1").stdout)
        names = {r["name"] for r in v1["resources"]}
        for r in ("namespaces", "services", "pods", "nodes", "endpoints", "events",
                  "pods/status", "services/status"):
            self.assertIn(r, names)
        groups = json.loads(self.k("get", "--raw", "/apis").stdout)
        gnames = {g["name"] for g in groups["groups"]}
        self.assertLessEqual({"discovery.k8s.io", "coordination.k8s.io"}, gnames)
        res = self.k("api-resources").stdout
        for r in ("endpointslices", "leases", "services"):
            self.assertIn(r, res)

    def test_metrics_count_and_time_requests(self):
        ns = "metrics-" + self.VERSION.replace(".", "")
        self.k("create", "namespace", ns)
        self.k("get", "pods", "-n", ns)
        text = self.k("get", "--raw", "/metrics").stdout
        lines = text.splitlines()

        def series(prefix, **labels):
            want = [f'{k}="{v}"' for k, v in labels.items()]
            return [l for l in lines if l.startswith(prefix + "{") and all(w in l for w in want)]

        self.assertIn("# TYPE apiserver_request_duration_seconds histogram", lines)
        self.assertIn("# TYPE apiserver_request_total counter", lines)
        created = series("apiserver_request_total", code="201", resource="namespaces",
                         scope="cluster", verb="POST")
        self.assertEqual(len(created), 1, created)
        self.assertGreaterEqual(float(created[0].rsplit(" ", 1)[1]), 1)
        listed = series("apiserver_request_total", code="200", resource="pods",
                        scope="namespace", verb="LIST")
        self.assertEqual(len(listed), 1, listed)
        # The create was timed: its +Inf bucket counts it, as does _count.
        inf = series("apiserver_request_duration_seconds_bucket", resource="namespaces",
                     verb="POST", le="+Inf")
        count = series("apiserver_request_duration_seconds_count", resource="namespaces",
                       verb="POST")
        self.assertEqual(len(inf), 1, inf)
        self.assertEqual(inf[0].rsplit(" ", 1)[1], count[0].rsplit(" ", 1)[1])
        self.assertGreaterEqual(float(count[0].rsplit(" ", 1)[1]), 1)

    def test_get_watch(self):
        name = "watched-" + self.VERSION.replace(".", "")
        self.apply_manifest(KINDS["Lease"][2](name), verb="create")
        cmd = [harness.kubectl_path(self.VERSION), "--kubeconfig", self.srv.kubeconfig,
               "get", "leases", "-n", NS, "--field-selector", "metadata.name=" + name,
               "-w", "-o", "name"]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                text=True, env=dict(os.environ, HOME=self.srv.data_dir))
        lines = queue.Queue()
        threading.Thread(target=lambda: [lines.put(l) for l in proc.stdout], daemon=True).start()
        try:
            first = lines.get(timeout=20)  # the initial list
            self.assertIn(name, first)
            self.k("label", "leases", name, "-n", NS, "seen=1")
            second = lines.get(timeout=20)  # the MODIFIED event
            self.assertIn(name, second)
        finally:
            proc.kill()
            proc.wait(10)
            proc.stdout.close()

    def test_wait_pod_ready(self):
        name = "ready-" + self.VERSION.replace(".", "")
        self.apply_manifest(KINDS["Pod"][2](name), verb="create")
        waiter = subprocess.Popen(
            [harness.kubectl_path(self.VERSION), "--kubeconfig", self.srv.kubeconfig, "wait",
             "--for=condition=Ready", "pod/" + name, "-n", NS, "--timeout=30s"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env=dict(os.environ, HOME=self.srv.data_dir))
        try:
            time.sleep(0.5)
            self.assertIsNone(waiter.poll(), "wait returned before the pod was Ready")
            self.k("patch", "pod", name, "-n", NS, "--subresource=status", "--type=merge", "-p",
                   '{"status":{"conditions":[{"type":"Ready","status":"True"}]}}')
            out, err = waiter.communicate(timeout=40)
            self.assertEqual(waiter.returncode, 0, err)
            self.assertIn("condition met", out)
        finally:
            if waiter.poll() is None:
                waiter.kill()
                waiter.wait()

    def test_namespace_deletion(self):
        ns = "doomed-" + self.VERSION.replace(".", "")
        self.apply_manifest({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}},
                            verb="create")
        for kind in ("Service", "Pod", "Lease", "EndpointSlice"):
            obj = KINDS[kind][2]("x")
            obj["metadata"]["namespace"] = ns
            self.apply_manifest(obj, verb="create")
        self.k("delete", "namespace", ns, "--wait=false")
        # Terminating namespaces refuse new objects.
        p = self.apply_manifest(dict(KINDS["Lease"][2]("late"),
                                     metadata={"name": "late", "namespace": ns}),
                                verb="create", check=False)
        if p.returncode != 0:  # the namespace may already be gone
            self.assertTrue("terminat" in p.stderr.lower() or "NotFound" in p.stderr, p.stderr)
        self.k("wait", "--for=delete", "namespace/" + ns, "--timeout=60s")
        for r in ("services", "pods", "leases", "endpointslices"):
            items = self.kjson("get", r, "-n", ns)["items"]
            self.assertEqual(items, [], r)

    def test_conflict_on_stale_update(self):
        name = "stale-" + self.VERSION.replace(".", "")
        self.apply_manifest(KINDS["Service"][2](name), verb="create")
        stale = self.kjson("get", "service", name, "-n", NS)
        self.k("label", "service", name, "-n", NS, "bump=1")
        stale["metadata"]["labels"]["mine"] = "x"
        p = self.apply_manifest(stale, verb="replace", check=False)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("Conflict", p.stderr)
        self.assertIn("the object has been modified", p.stderr)

    def test_invalid_objects_show_field_errors(self):
        bad = KINDS["Service"][2]("bad-svc")
        bad["spec"]["ports"][0]["port"] = 70000
        p = self.apply_manifest(bad, verb="create", check=False)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("Invalid", p.stderr)
        self.assertIn("spec.ports[0].port", p.stderr)
        bad = KINDS["Pod"][2]("Bad_Name")
        p = self.apply_manifest(bad, verb="create", check=False)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("metadata.name", p.stderr)
        bad = KINDS["EndpointSlice"][2]("bad-eps")
        bad["addressType"] = "Bogus"
        p = self.apply_manifest(bad, verb="create", check=False)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("addressType", p.stderr)


def _list(*items):
    return {"apiVersion": "v1", "kind": "List", "items": list(items)}


# A Pod using upstream fields our model keeps verbatim (env, resources, probes, volumes...): the
# v2 schemas must describe them or kubectl's client-side validation would reject it.
RICH_POD = {
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "rich", "namespace": NS, "labels": {"app": "rich"}},
    "spec": {
        "restartPolicy": "Always",
        "tolerations": [{"key": "k", "operator": "Exists", "effect": "NoSchedule"}],
        "securityContext": {"runAsNonRoot": True, "windowsOptions": {"runAsUserName": "x"}},
        "volumes": [{"name": "data", "emptyDir": {}},
                    {"name": "nfs", "nfs": {"server": "10.0.0.1", "path": "/export"}},
                    {"name": "cfg", "configMap": {"name": "cfg",
                                                  "items": [{"key": "a", "path": "a"}]}}],
        "containers": [{
            "name": "app", "image": "nginx:1.25", "args": ["--port", "8080"],
            "env": [{"name": "A", "value": "1"},
                    {"name": "B", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}}],
            "ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP"}],
            "resources": {"requests": {"cpu": "100m", "memory": "64Mi"},
                          "limits": {"memory": "128Mi"}},
            "volumeMounts": [{"name": "data", "mountPath": "/data"}],
            "readinessProbe": {"httpGet": {"path": "/healthz", "port": "http"},
                               "periodSeconds": 5},
            "securityContext": {"capabilities": {"drop": ["ALL"]}}}]}}


class OpenApiV2Checks:
    """kubectl 1.27/1.28 read the protobuf /openapi/v2 (issue 4). Mixed into their suites."""

    # --output=plaintext-openapiv2 renders from the v2 (protobuf) models; the default output
    # from the v3 documents (both need /openapi/v2 to load).
    FORMATS = (("--output=plaintext-openapiv2",), ())

    def test_explain_every_kind_from_v2_and_v3(self):
        for fmt in self.FORMATS:
            for arg, kind, field in EXPLAIN_ALL:
                out = self.k("explain", arg, *fmt).stdout
                self.assertIn("KIND:", out, (fmt, arg))
                self.assertIn(kind, out, (fmt, arg))
                self.assertIn("FIELDS:", out, (fmt, arg))
                self.assertIn(field, out, (fmt, arg))
        v2 = self.k("explain", "pods.spec.containers.ports", *self.FORMATS[0]).stdout
        self.assertIn("RESOURCE: ports <[]Object>", v2)  # the v2 renderer's layout
        self.assertIn("containerPort\t<integer> -required-", v2)
        self.assertIn("protocol\t<string>", v2)

    def test_explain_recursive(self):
        for fmt in self.FORMATS:
            out = self.k("explain", "pods", "--recursive", *fmt).stdout
            for field in ("containers", "containerPort", "podIP", "ownerReferences", "env",
                          "readinessProbe"):
                self.assertIn(field, out, fmt)
            out = self.k("explain", "endpointslices.endpoints", "--recursive", *fmt).stdout
            for field in ("addresses", "conditions", "ready", "nodeName"):
                self.assertIn(field, out, fmt)

    def test_single_objects_use_server_side_validation(self):
        # As against kube-apiserver: the PATCH operation lists fieldValidation, so kubectl skips
        # client-side validation and asks the server (fieldValidation=Strict).
        obj = KINDS["Lease"][2]("sv-" + self.VERSION.replace(".", ""))
        p = self.k("create", "-f", "-", "-v=6", input=json.dumps(obj))
        self.assertIn("fieldValidation=Strict", p.stderr)
        self.assertIn("created", p.stdout)

    def test_list_manifest_client_side_validation_errors(self):
        # kubectl validates a v1 List client-side against /openapi/v2 (no PATCH operation for
        # List), with the error texts of kube-openapi's validator.
        lease = KINDS["Lease"][2]("cv-unknown")
        lease["spec"]["notAField"] = 1
        p = self.k("create", "-f", "-", input=json.dumps(_list(lease)), check=False)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn('ValidationError(Lease.spec): unknown field "notAField" in '
                      'io.k8s.api.coordination.v1.LeaseSpec', p.stderr)
        self.assertIn("--validate=false", p.stderr)

        pod = KINDS["Pod"][2]("cv-missing")
        del pod["spec"]["containers"]
        p = self.k("create", "-f", "-", input=json.dumps(_list(pod)), check=False)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn('missing required field "containers" in io.k8s.api.core.v1.PodSpec',
                      p.stderr)

        svc = KINDS["Service"][2]("cv-type")
        svc["spec"]["ports"][0]["port"] = "eighty"
        p = self.k("apply", "-f", "-", input=json.dumps(_list(svc)), check=False)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("invalid type for io.k8s.api.core.v1.ServicePort.port", p.stderr)
        for name in ("cv-unknown", "cv-missing", "cv-type"):
            self.assertNotIn(name, self.k("get", "leases,pods,services", "-n", NS).stdout)

        # ...and --validate=false skips it (the server is told fieldValidation=Ignore).
        p = self.k("create", "--validate=false", "-f", "-", input=json.dumps(_list(lease)))
        self.assertIn("lease.coordination.k8s.io/cv-unknown created", p.stdout)

    def test_list_manifest_valid_objects_pass(self):
        pod = json.loads(json.dumps(RICH_POD))
        pod["metadata"]["name"] = "rich-" + self.VERSION.replace(".", "")
        svc = KINDS["Service"][2]("list-svc-" + self.VERSION.replace(".", ""))
        p = self.k("apply", "-f", "-", input=json.dumps(_list(pod, svc)))
        self.assertIn("created", p.stdout)
        self.assertNotIn("error", p.stderr.lower())
        got = self.kjson("get", "pod", pod["metadata"]["name"], "-n", NS)
        self.assertEqual(got["spec"]["containers"][0]["env"][0]["name"], "A")

    def test_openapi_v2_served_as_protobuf_and_json(self):
        from kubernetes.client.exceptions import ApiException
        doc = json.loads(self.k("get", "--raw", "/openapi/v2").stdout)
        self.assertEqual(doc["swagger"], "2.0")
        self.assertIn("io.k8s.api.discovery.v1.EndpointSlice", doc["definitions"])
        api = self.srv.api_client()

        def get(accept, etag=None):
            headers = {"Accept": accept}
            if etag:
                headers["If-None-Match"] = etag
            try:
                r = api.call_api("/openapi/v2", "GET", header_params=headers,
                                 auth_settings=["BearerToken"], _preload_content=False,
                                 _return_http_data_only=True)
                h, data = r.getheaders(), r.data
            except ApiException as e:  # 304 and 406 arrive as exceptions
                r, h, data = e, e.headers, e.body or b""
            return r.status, h.get("Content-Type"), h.get("ETag"), data

        pb = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
        status, ctype, etag, body = get(pb)
        self.assertEqual((status, ctype),
                         (200, "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"))
        self.assertEqual(body[:5], b"\x0a\x032.0")  # Document.swagger = "2.0" (field 1)
        self.assertGreater(len(body), 100000)
        status, ctype, json_etag, body = get("application/json")
        self.assertEqual((status, ctype), (200, "application/json"))
        self.assertEqual(json.loads(body), doc)
        self.assertEqual(json_etag, etag)  # one ETag for both formats (Vary: Accept)
        status, _, _, body = get(pb, etag)
        self.assertEqual((status, body), (304, b""))
        self.assertEqual(get(pb, '"stale"')[0], 200)
        self.assertEqual(get("text/html")[0], 406)


class Kubectl127(OpenApiV2Checks, KubectlSuite, unittest.TestCase):
    VERSION = "1.27"

    def test_generators(self):
        self.k("create", "namespace", "gen-127")
        self.k("create", "service", "clusterip", "gen-svc", "--tcp=80:8080", "-n", NS)
        self.assertEqual(self.kjson("get", "svc", "gen-svc", "-n", NS)["spec"]["ports"][0]["port"],
                         80)


class Kubectl128(OpenApiV2Checks, KubectlSuite, unittest.TestCase):
    VERSION = "1.28"


class Kubectl133(KubectlSuite, unittest.TestCase):
    VERSION = "1.33"

    def test_generators_send_protobuf(self):
        # kubectl 1.33 generators POST protobuf bodies (issue 8; more in test_protobuf.py).
        self.k("create", "namespace", "gen-133")
        self.assertEqual(self.kjson("get", "namespace", "gen-133")["metadata"]["name"], "gen-133")

    def test_strict_validation_unknown_field(self):
        # kubectl 1.33 sends ?fieldValidation=Strict: 400 'strict decoding error: unknown field'
        # (more in test_field_validation.py).
        obj = KINDS["Lease"][2]("strict")
        obj["spec"]["notAField"] = 1
        p = self.apply_manifest(obj, verb="create", check=False)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("notAField", p.stderr)


if __name__ == "__main__":
    unittest.main()
