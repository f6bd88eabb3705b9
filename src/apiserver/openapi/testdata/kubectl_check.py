#!/usr/bin/python3
"""Serves svcplane's generated discovery, OpenAPI and Table documents to a real kubectl and checks
that kubectl uses them: aggregated discovery, /openapi/v2 (protobuf) for kubectl <= 1.28, `api-resources`, `explain`, server-side validation
(fieldValidation=Strict), strategic patches computed from the v3 schemas without warnings,
`get` (wide, -A, --show-labels) and `get -w` from our Tables. Also checks that the official
Python client deserialises the discovery documents.

usage: kubectl_check.py <docs_dump binary> [kubectl ...]
The fake server keeps namespaced objects in memory; it is only as smart as these checks need.
DEBUG=1 prints every path it answers 404."""
import http.server
import json
import os
import subprocess
import sys
import tempfile
import threading
import urllib.parse

AGG_CT = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
TABLE_CT = "application/json;as=Table;v=v1;g=meta.k8s.io"


class State:
    def __init__(self, docs):
        self.docs = docs
        self.objects = {}
        self.requests = []  # (method, path, query, content_type, body)
        self.aggregated_served = 0


def make_handler(state):
    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def reply(self, code, body, ctype="application/json"):
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            self.send_response(code)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def not_found(self):
            if os.environ.get("DEBUG"):
                print("404", self.path, file=sys.stderr)
            self.reply(404, {"kind": "Status", "apiVersion": "v1", "metadata": {},
                             "status": "Failure", "reason": "NotFound", "code": 404,
                             "message": "the server could not find the requested resource"})

        def handle_any(self, method):
            url = urllib.parse.urlsplit(self.path)
            path, query = url.path, urllib.parse.parse_qs(url.query)
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            state.requests.append((method, path, query, self.headers.get("Content-Type"), body))
            accept = self.headers.get("Accept", "")
            docs = state.docs
            if method == "GET" and path in ("/api", "/apis"):
                if "as=APIGroupDiscoveryList" in accept and "v=v2;" in accept + ";":
                    state.aggregated_served += 1
                    return self.reply(200, docs["aggregated" + path.replace("/", "_")], AGG_CT)
                return self.reply(200, docs[path.strip("/")])
            parts = path.strip("/").split("/")
            # .../namespaces/default/<resource>[/<name>]
            if "namespaces" in parts and len(parts) >= parts.index("namespaces") + 3:
                i = parts.index("namespaces")
                resource = parts[i + 2]
                name = parts[i + 3] if len(parts) > i + 3 else ""
                store = state.objects.setdefault(resource, {})
                if method == "GET" and not name and query.get("watch") in (["1"], ["true"]):
                    if "watch_" + resource not in docs:
                        return self.not_found()
                    # A finite watch: HTTP/1.0 without Content-Length, ended by closing.
                    self.send_response(200)
                    self.send_header("Content-Type", TABLE_CT)
                    self.end_headers()
                    self.wfile.write(docs["watch_" + resource])
                    self.close_connection = True
                    return
                if method == "GET" and not name and "as=Table" in accept and \
                        "table_" + resource in docs:
                    return self.reply(200, docs["table_" + resource], TABLE_CT)
                if method == "GET":
                    if name in store:
                        return self.reply(200, store[name])
                    return self.not_found()
                if method == "POST":
                    obj = json.loads(body)
                    obj["metadata"].update({"namespace": "default", "uid": "u1",
                                            "resourceVersion": "1",
                                            "creationTimestamp": "2024-01-01T00:00:00Z"})
                    store[obj["metadata"]["name"]] = obj
                    return self.reply(201, obj)
                if method == "PATCH" and name in store:
                    # kubectl apply's patch carries the new last-applied configuration: adopt it.
                    patch = json.loads(body)
                    last = patch["metadata"]["annotations"][
                        "kubectl.kubernetes.io/last-applied-configuration"]
                    obj = json.loads(last)
                    obj["metadata"].setdefault("annotations", {})[
                        "kubectl.kubernetes.io/last-applied-configuration"] = last
                    obj["metadata"].update({"namespace": "default", "uid": "u1",
                                            "resourceVersion": "2",
                                            "creationTimestamp": "2024-01-01T00:00:00Z"})
                    store[name] = obj
                    return self.reply(200, obj)
            if method == "GET" and path == "/api/v1/services" and "as=Table" in accept:
                return self.reply(200, docs["table_services"], TABLE_CT)
            if method == "GET" and path == "/openapi/v2":
                # kubectl <= 1.28 load it (protobuf) before create, apply and explain.
                if "protobuf" in accept:
                    return self.reply(200, docs["openapi_v2.pb"],
                                      "application/com.github.proto-openapi.spec.v2.v1.0+protobuf")
                return self.reply(200, docs["openapi_v2.json"])
            static = {"/version": "version", "/api/v1": "api_v1", "/openapi/v3": "openapi_v3"}
            if method == "GET" and path in static:
                return self.reply(200, docs[static[path]])
            if method == "GET" and path.startswith("/openapi/v3/"):
                name = "openapi_v3_" + path[len("/openapi/v3/"):].replace("/", "_")
                return self.reply(200, docs[name]) if name in docs else self.not_found()
            if method == "GET" and path.startswith("/apis/"):
                name = "apis_" + path[len("/apis/"):].replace("/", "_")
                return self.reply(200, docs[name]) if name in docs else self.not_found()
            return self.not_found()

        def do_GET(self):
            self.handle_any("GET")

        def do_POST(self):
            self.handle_any("POST")

        def do_PATCH(self):
            self.handle_any("PATCH")

        def do_PUT(self):
            self.handle_any("PUT")

    return Handler


SVC = """apiVersion: v1
kind: Service
metadata:
  name: web
  labels: {app: web}
spec:
  selector: {app: web}
  ports:
  - name: http
    port: 80
    targetPort: 8080
  - name: https
    port: 443
    targetPort: https
"""


def apply_cycle(run, check, tag, path, manifest, old, new, element_order):
    """apply (create), apply unchanged (no request), apply with `old` replaced by `new` (one
    strategic PATCH, no warning, carrying $setElementOrder/<element_order>)."""
    state = run.state
    state.objects.clear()
    name = manifest.split("kind: ")[1].split()[0]
    with open(path, "w") as f:
        f.write(manifest)
    rc, out, err = run("apply", "-f", path)
    check(rc == 0 and "created" in out, f"{tag} {name}: first apply: rc={rc} {out} {err[:500]}")
    state.requests.clear()
    rc, out, err = run("apply", "-f", path)
    patches = [r for r in state.requests if r[0] == "PATCH"]
    check(rc == 0 and "unchanged" in out and not patches,
          f"{tag} {name}: unchanged apply: rc={rc} {out} {err[:500]} {patches}")
    check("error calculating patch" not in err, f"{tag} {name}: warning on apply: {err}")
    with open(path, "w") as f:
        f.write(manifest.replace(old, new))
    state.requests.clear()
    rc, out, err = run("apply", "-f", path)
    patches = [r for r in state.requests if r[0] == "PATCH"]
    check(rc == 0 and "configured" in out, f"{tag} {name}: apply change: rc={rc} {out} {err}")
    check("error calculating patch" not in err, f"{tag} {name}: warning on apply: {err}")
    ok = (len(patches) == 1 and patches[0][3] == "application/strategic-merge-patch+json" and
          patches[0][2].get("fieldValidation") == ["Strict"])
    if element_order:
        ok = ok and f"$setElementOrder/{element_order}".encode() in patches[0][4]
    check(ok, f"{tag} {name}: strategic patch: {patches}")


POD = """apiVersion: v1
kind: Pod
metadata:
  name: p
  labels: {app: web}
spec:
  restartPolicy: Always
  tolerations:
  - {key: k, operator: Exists, effect: NoSchedule}
  volumes:
  - name: data
    emptyDir: {}
  - name: cfg
    configMap: {name: cfg, items: [{key: a, path: a}]}
  initContainers:
  - name: init
    image: busybox
    command: ["sh", "-c", "true"]
  containers:
  - name: app
    image: nginx:1.25
    args: ["--port", "8080"]
    env:
    - {name: A, value: "1"}
    - name: B
      valueFrom: {fieldRef: {fieldPath: status.podIP}}
    ports:
    - {name: http, containerPort: 8080}
    resources:
      requests: {cpu: 100m, memory: 64Mi}
      limits: {memory: 128Mi}
    volumeMounts:
    - {name: data, mountPath: /data}
    readinessProbe:
      httpGet: {path: /healthz, port: http}
      periodSeconds: 5
    securityContext:
      capabilities: {drop: [ALL]}
  - name: sidecar
    image: busybox
"""

SLICE = """apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: web-1
  labels: {kubernetes.io/service-name: web}
addressType: IPv4
ports:
- {name: http, port: 80, protocol: TCP}
endpoints:
- addresses: ["10.0.0.1"]
  conditions: {ready: true}
  nodeName: n1
"""

LEASE = """apiVersion: coordination.k8s.io/v1
kind: Lease
metadata:
  name: l
spec:
  holderIdentity: a
  leaseDurationSeconds: 15
"""

APPLY_CASES = [
    (SVC, "targetPort: 8080", "targetPort: 9090", "ports"),
    (POD, "{name: A, value: \"1\"}", "{name: A, value: \"2\"}", "env"),
    (POD, "cpu: 100m", "cpu: 200m", "containers"),
    (POD, "periodSeconds: 5", "periodSeconds: 7", "containers"),
    (SLICE, "10.0.0.1", "10.0.0.2", None),
    (LEASE, "holderIdentity: a", "holderIdentity: b", None),
]


def check_python_client(docs, failures):
    """The official Python client deserialises discovery documents strictly (required fields)."""
    sys.path.insert(0, "/usr/lib/python3/dist-packages")
    try:
        import kubernetes.client
    except ImportError:
        print("python3-kubernetes not installed: skipping client checks", file=sys.stderr)
        return

    class Resp:
        def __init__(self, data):
            self.data = json.dumps(data)

    api = kubernetes.client.ApiClient()
    for name, model in [("api_v1", "V1APIResourceList"),
                        ("apis_discovery.k8s.io_v1", "V1APIResourceList"),
                        ("apis_coordination.k8s.io_v1", "V1APIResourceList"),
                        ("apis_authentication.k8s.io_v1", "V1APIResourceList"),
                        ("apis_authentication.k8s.io_v1beta1", "V1APIResourceList"),
                        ("apis_authorization.k8s.io_v1", "V1APIResourceList"),
                        ("apis_authentication.k8s.io", "V1APIGroup"),
                        ("apis_rbac.authorization.k8s.io_v1", "V1APIResourceList"),
                        ("apis", "V1APIGroupList"), ("api", "V1APIVersions"),
                        ("apis_discovery.k8s.io", "V1APIGroup"), ("version", "VersionInfo")]:
        try:
            obj = api.deserialize(Resp(docs[name]), model)
            assert obj is not None
        except Exception as e:  # noqa: BLE001 - report any client rejection
            failures.append(f"python client rejects {name} as {model}: {e}")
            print("FAIL:", failures[-1], file=sys.stderr)


def main():
    dump, kubectls = sys.argv[1], sys.argv[2:] or ["/usr/bin/kubectl"]
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), None)
        port = server.server_address[1]
        subprocess.run([dump, tmp, f"127.0.0.1:{port}"], check=True)
        docs = {}
        for name in os.listdir(tmp):
            with open(os.path.join(tmp, name), "rb") as f:
                data = f.read()
            raw = name.startswith("watch_") or name.startswith("openapi_v2")
            docs[name] = data if raw else json.loads(data)
        check_python_client(docs, failures)
        state = State(docs)
        server.RequestHandlerClass = make_handler(state)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        kubeconfig = os.path.join(tmp, "kubeconfig")
        with open(kubeconfig, "w") as f:
            f.write(f"""apiVersion: v1
kind: Config
clusters: [{{name: c, cluster: {{server: "http://127.0.0.1:{port}"}}}}]
users: [{{name: u, user: {{}}}}]
contexts: [{{name: x, context: {{cluster: c, user: u, namespace: default}}}}]
current-context: x
""")
        svc_path = os.path.join(tmp, "svc.yaml")

        def check(cond, what):
            if not cond:
                failures.append(what)
                print("FAIL:", what, file=sys.stderr)

        try:
            for i, kubectl in enumerate(kubectls):
                state.objects.clear()
                cache = os.path.join(tmp, f"cache{i}")

                def run(*args):
                    p = subprocess.run([kubectl, "--kubeconfig", kubeconfig, "--cache-dir", cache,
                                        *args], capture_output=True, text=True, timeout=60)
                    return p.returncode, p.stdout, p.stderr

                run.state = state
                tag = os.path.basename(kubectl)
                with open(svc_path, "w") as f:
                    f.write(SVC)
                rc, out, err = run("explain", "service.spec.ports")
                check(rc == 0 and "targetPort" in out and "FIELDS:" in out,
                      f"{tag}: explain service.spec.ports: rc={rc} {out[:300]} {err[:500]}")
                rc, out, err = run("api-resources")
                check(rc == 0 and "endpointslices" in out and "leases" in out and "svc" in out,
                      f"{tag}: api-resources: rc={rc} {err[:500]}")
                state.requests.clear()
                rc, out, err = run("create", "-f", svc_path)
                posts = [r for r in state.requests if r[0] == "POST"]
                check(rc == 0 and "service/web created" in out,
                      f"{tag}: create: rc={rc} {out} {err[:500]}")
                check(len(posts) == 1 and posts[0][2].get("fieldValidation") == ["Strict"],
                      f"{tag}: create must POST with fieldValidation=Strict: {posts}")
                rc, out, err = run("get", "services")
                lines = [l.split() for l in out.splitlines()]
                check(rc == 0 and lines == [
                    ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"],
                    ["web", "NodePort", "10.96.0.10", "<none>", "80:30080/TCP", "5m"],
                    ["db", "ClusterIP", "None", "<none>", "5432/TCP", "5m"]],
                    f"{tag}: get services: {out} {err}")
                rc, out, err = run("get", "services", "-o", "wide", "--show-labels", "-A")
                lines = [l.split() for l in out.splitlines()]
                check(rc == 0 and lines[0] == ["NAMESPACE", "NAME", "TYPE", "CLUSTER-IP",
                                               "EXTERNAL-IP", "PORT(S)", "AGE", "SELECTOR",
                                               "LABELS"] and
                      lines[1] == ["default", "web", "NodePort", "10.96.0.10", "<none>",
                                   "80:30080/TCP", "5m", "app=web", "app=web"],
                      f"{tag}: get services -o wide -A --show-labels: {out} {err}")
                rc, out, err = run("get", "pods", "-w", "--request-timeout=10s")
                lines = [l.split() for l in out.splitlines()]
                check(lines[:4] == [["NAME", "READY", "STATUS", "RESTARTS", "AGE"],
                                    ["web-0", "0/1", "Pending", "0", "5m"],
                                    ["web-0", "1/1", "Running", "0", "5m"],
                                    ["web-1", "0/1", "Pending", "0", "5m"]],
                      f"{tag}: get pods -w: rc={rc} {out} {err[:500]}")
                for manifest, old, new, element_order in APPLY_CASES:
                    apply_cycle(run, check, tag, svc_path, manifest, old, new, element_order)
                    state.objects.clear()
            check(state.aggregated_served > 0, "kubectl never asked for aggregated discovery")
        finally:
            server.shutdown()
            server.server_close()
    if failures:
        print(f"{len(failures)} check(s) failed", file=sys.stderr)
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
