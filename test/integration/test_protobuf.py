"""Protobuf (application/vnd.kubernetes.protobuf) against `svcplane serve` (issue 8).

kubectl 1.33's generator commands send protobuf bodies and ask for protobuf answers; `create -f`
and `get -o json` use JSON. For every kind we also drive the wire directly: an object created in
JSON is read back in protobuf, re-created from those protobuf bytes, and must read back in JSON
with nothing lost (command, env, probes, volumes... are not modelled by our structs and travel
through the schema). Watches and lists in protobuf are read with a raw client; malformed bodies
must get a 400 Status (in protobuf, since the client accepts it).
"""

import json
import struct
import time
import unittest

import harness
from protowire import parse

V = "1.33"
PB = "application/vnd.kubernetes.protobuf"
NS = "pb"


# --- a minimal protobuf wire reader/writer (no protobuf package needed) -----------------------



def varint(n):
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def serialize(fields):
    out = bytearray()
    for f, wt, v in fields:
        out += varint(f << 3 | wt)
        if wt == 0:
            out += varint(v)
        elif wt == 2:
            out += varint(len(v)) + v
        else:
            out += v
    return bytes(out)


def field(fields, num):
    return [v for f, _, v in fields if f == num]


def unwrap(body):
    """The k8s\\0 envelope: (apiVersion, kind, raw message)."""
    assert body[:4] == b"k8s\x00", body[:16]
    env = parse(body[4:])
    tm = parse(field(env, 1)[0])
    return field(tm, 1)[0].decode(), field(tm, 2)[0].decode(), field(env, 2)[0]


def wrap(api_version, kind, raw):
    tm = serialize([(1, 2, api_version.encode()), (2, 2, kind.encode())])
    return b"k8s\x00" + serialize([(1, 2, tm), (2, 2, raw), (3, 2, b""), (4, 2, b"")])


def strip_server_fields(raw):
    """Drops uid (5), resourceVersion (6), creationTimestamp (8) and managedFields (17) from
    ObjectMeta (field 1) so the bytes can be POSTed again."""
    fields = parse(raw)
    out = []
    for f, wt, v in fields:
        if f == 1:
            v = serialize([m for m in parse(v) if m[0] not in (5, 6, 8, 17)])
        out.append((f, wt, v))
    return serialize(out)


# --- objects of every kind with parts our structs do not model -----------------------------------

def meta(name, namespaced=True):
    m = {"name": name, "labels": {"app": "pb"}, "annotations": {"note": "x"}}
    if namespaced:
        m["namespace"] = NS
    return m


POD_SPEC = {
    "volumes": [{"name": "data", "emptyDir": {"sizeLimit": "1Gi"}},
                {"name": "cfg", "configMap": {"name": "app", "defaultMode": 420,
                                              "items": [{"key": "a", "path": "b"}]}}],
    "containers": [{
        "name": "c", "image": "nginx:1.25", "command": ["/bin/sh", "-c"], "args": ["sleep 1"],
        "env": [{"name": "A", "value": "1"},
                {"name": "POD", "valueFrom": {"fieldRef": {"apiVersion": "v1",
                                                           "fieldPath": "metadata.name"}}}],
        "ports": [{"containerPort": 80, "protocol": "TCP"}],
        "resources": {"limits": {"cpu": "500m", "memory": "128Mi"}},
        "volumeMounts": [{"name": "data", "mountPath": "/data"}],
        "livenessProbe": {"httpGet": {"path": "/healthz", "port": 8080},
                          "initialDelaySeconds": 3},
        "readinessProbe": {"tcpSocket": {"port": "http"}},
        "securityContext": {"runAsUser": 0, "allowPrivilegeEscalation": False},
    }],
    "tolerations": [{"key": "k", "operator": "Exists", "effect": "NoSchedule"}],
    "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [
            {"key": "zone", "operator": "In", "values": ["a", "b"]}]}]}}},
}

# kind -> (api path prefix, plural, namespaced, manifest)
KINDS = {
    "Namespace": ("/api/v1", "namespaces", False, lambda n: {
        "apiVersion": "v1", "kind": "Namespace", "metadata": meta(n, False)}),
    "Service": ("/api/v1", "services", True, lambda n: {
        "apiVersion": "v1", "kind": "Service", "metadata": meta(n),
        "spec": {"selector": {"app": "pb"}, "sessionAffinity": "ClientIP",
                 "ports": [{"name": "http", "port": 80, "targetPort": "http"}]}}),
    "Pod": ("/api/v1", "pods", True, lambda n: {
        "apiVersion": "v1", "kind": "Pod", "metadata": meta(n), "spec": POD_SPEC}),
    "Node": ("/api/v1", "nodes", False, lambda n: {
        "apiVersion": "v1", "kind": "Node", "metadata": meta(n, False),
        "spec": {"podCIDR": "10.244.1.0/24",
                 "taints": [{"key": "k", "value": "v", "effect": "NoSchedule"}]}}),
    "Endpoints": ("/api/v1", "endpoints", True, lambda n: {
        "apiVersion": "v1", "kind": "Endpoints", "metadata": meta(n),
        "subsets": [{"addresses": [{"ip": "10.1.2.3", "nodeName": "n1"}],
                     "ports": [{"name": "http", "port": 8080, "protocol": "TCP"}]}]}),
    "Event": ("/api/v1", "events", True, lambda n: {
        "apiVersion": "v1", "kind": "Event", "metadata": meta(n),
        "involvedObject": {"kind": "Pod", "namespace": NS, "name": "p"},
        "reason": "Started", "message": "started", "type": "Normal",
        "source": {"component": "itest"}, "count": 2,
        "firstTimestamp": "2024-05-01T10:00:00Z", "lastTimestamp": "2024-05-01T10:00:05Z"}),
    "EndpointSlice": ("/apis/discovery.k8s.io/v1", "endpointslices", True, lambda n: {
        "apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice", "metadata": meta(n),
        "addressType": "IPv4",
        "endpoints": [{"addresses": ["10.1.2.3"], "conditions": {"ready": True},
                       "zone": "a", "hints": {"forZones": [{"name": "a"}]}}],
        "ports": [{"name": "http", "port": 8080, "protocol": "TCP"}]}),
    "Lease": ("/apis/coordination.k8s.io/v1", "leases", True, lambda n: {
        "apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": meta(n),
        "spec": {"holderIdentity": "itest", "leaseDurationSeconds": 15,
                 "renewTime": "2024-05-01T10:00:00.123456Z"}}),
}

SERVER_FIELDS = ("uid", "resourceVersion", "creationTimestamp", "managedFields", "generation")


def comparable(obj):
    """The object without what the server sets on each create."""
    obj = json.loads(json.dumps(obj))
    for k in SERVER_FIELDS:
        obj["metadata"].pop(k, None)
    obj.pop("status", None)
    return obj


class ProtobufTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.srv = harness.Server().start()
        cls.api = cls.srv.api_client()
        cls.k("create", "namespace", NS)

    @classmethod
    def tearDownClass(cls):
        cls.srv.cleanup()

    @classmethod
    def k(cls, *args, check=True, input=None):
        return cls.srv.kubectl(V, *args, check=check, input=input)

    def kjson(self, *args):
        return self.srv.kubectl_json(V, *args)

    def request(self, method, path, body=None, accept=PB, content_type=None, stream=False):
        return harness.raw_request(self.api, method, path, body=body, accept=accept,
                                   content_type=content_type, stream=stream)

    def wait_gone(self, path, timeout=30):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.request("GET", path).status == 404:
                return
            time.sleep(0.1)
        self.fail(path + " still exists %ds after DELETE" % timeout)

    # --- kubectl 1.33 generators: protobuf bodies ------------------------------------------------

    def test_create_namespace(self):
        self.k("create", "namespace", "pb-gen")
        ns = self.kjson("get", "namespace", "pb-gen")
        self.assertEqual(ns["metadata"]["name"], "pb-gen")
        self.assertEqual(ns["status"]["phase"], "Active")

    def test_create_services(self):
        self.k("create", "service", "clusterip", "pb-cip", "--tcp=80:8080", "-n", NS)
        self.k("create", "service", "nodeport", "pb-np", "--tcp=80:8080", "-n", NS)
        self.k("create", "service", "clusterip", "pb-headless", "--clusterip=None",
               "--tcp=80:8080", "-n", NS)
        cip = self.kjson("get", "svc", "pb-cip", "-n", NS)
        self.assertEqual(cip["spec"]["type"], "ClusterIP")
        self.assertEqual(cip["spec"]["ports"][0]["port"], 80)
        self.assertEqual(cip["spec"]["ports"][0]["targetPort"], 8080)
        self.assertEqual(cip["spec"]["selector"], {"app": "pb-cip"})
        np = self.kjson("get", "svc", "pb-np", "-n", NS)
        self.assertEqual(np["spec"]["type"], "NodePort")
        self.assertEqual(np["spec"]["ports"][0]["name"], "80-8080")
        headless = self.kjson("get", "svc", "pb-headless", "-n", NS)
        self.assertEqual(headless["spec"]["clusterIP"], "None")

    def test_create_from_file_then_get(self):
        for kind, (_, plural, namespaced, manifest) in KINDS.items():
            with self.subTest(kind=kind):
                name = "pbf-" + kind.lower()
                self.k("create", "-f", "-", input=json.dumps(manifest(name)))
                args = ["get", plural, name] + (["-n", NS] if namespaced else [])
                got = self.kjson(*args)
                self.assertEqual(got["metadata"]["labels"]["app"], "pb")

    # --- the wire, every kind ---------------------------------------------------------------

    def test_every_kind_round_trips_through_protobuf(self):
        for kind, (prefix, plural, namespaced, manifest) in KINDS.items():
            with self.subTest(kind=kind):
                name = "pbw-" + kind.lower()
                base = prefix + ("/namespaces/" + NS if namespaced else "") + "/" + plural
                sent = manifest(name)
                r = self.request("POST", base, body=json.dumps(sent).encode(),
                                 content_type="application/json")
                self.assertEqual(r.status, 201, r.data[:300])
                self.assertEqual(r.headers["Content-Type"], PB)
                api_version, got_kind, raw = unwrap(r.data)
                self.assertEqual((api_version, got_kind), (sent["apiVersion"], kind))
                as_json = self.kjson("get", plural, name, *(["-n", NS] if namespaced else []))

                # Delete it, then create it again from the protobuf bytes we were given.
                r = self.request("DELETE", base + "/" + name)
                self.assertEqual(r.status, 200, r.data[:300])
                self.wait_gone(base + "/" + name)  # a Namespace terminates asynchronously
                body = wrap(api_version, kind, strip_server_fields(raw))
                r = self.request("POST", base, body=body, content_type=PB)
                self.assertEqual(r.status, 201, r.data[:300])
                again = self.kjson("get", plural, name, *(["-n", NS] if namespaced else []))
                self.assertEqual(comparable(again), comparable(as_json))
                if kind == "Pod":
                    c = again["spec"]["containers"][0]
                    self.assertEqual(c["command"], ["/bin/sh", "-c"])
                    self.assertEqual(c["env"][1]["valueFrom"]["fieldRef"]["fieldPath"],
                                     "metadata.name")
                    self.assertEqual(c["securityContext"]["runAsUser"], 0)
                    self.assertEqual(again["spec"]["volumes"][1]["configMap"]["defaultMode"], 420)

    def test_list_in_protobuf(self):
        self.k("create", "-f", "-", input=json.dumps(KINDS["Lease"][3]("pbl-a")))
        self.k("create", "-f", "-", input=json.dumps(KINDS["Lease"][3]("pbl-b")))
        r = self.request("GET", "/apis/coordination.k8s.io/v1/namespaces/%s/leases" % NS)
        self.assertEqual(r.status, 200)
        api_version, kind, raw = unwrap(r.data)
        self.assertEqual((api_version, kind), ("coordination.k8s.io/v1", "LeaseList"))
        lst = parse(raw)
        list_meta = parse(field(lst, 1)[0])
        self.assertTrue(field(list_meta, 2)[0])  # resourceVersion
        names = {field(parse(field(parse(item), 1)[0]), 1)[0] for item in field(lst, 2)}
        self.assertTrue({b"pbl-a", b"pbl-b"} <= names, names)

    def test_json_accept_still_gets_json(self):
        r = self.request("GET", "/api/v1/namespaces/" + NS, accept="application/json, " + PB)
        self.assertEqual(r.status, 200)
        self.assertEqual(json.loads(r.data)["metadata"]["name"], NS)
        # Tables stay JSON whatever comes after them.
        r = self.request("GET", "/api/v1/namespaces",
                         accept="application/json;as=Table;v=v1;g=meta.k8s.io, " + PB)
        self.assertEqual(json.loads(r.data)["kind"], "Table")

    def test_watch_in_protobuf(self):
        base = "/api/v1/namespaces/%s/endpoints" % NS
        r = self.request("GET", base + "?watch=1&timeoutSeconds=5", stream=True)
        self.assertEqual(r.status, 200)
        self.assertEqual(r.headers["Content-Type"], PB + ";stream=watch")
        self.k("create", "-f", "-", input=json.dumps(KINDS["Endpoints"][3]("pbwatch")))
        buf = b""
        events = []
        for chunk in r.stream(4096):
            buf += chunk
            while len(buf) >= 4:
                (n,) = struct.unpack(">I", buf[:4])
                if len(buf) < 4 + n:
                    break
                ev = parse(buf[4:4 + n])
                buf = buf[4 + n:]
                obj = field(parse(field(ev, 2)[0]), 1)[0]
                _, kind, raw = unwrap(obj)
                name = field(parse(field(parse(raw), 1)[0]), 1)[0].decode()
                events.append((field(ev, 1)[0].decode(), kind, name))
            if any(e[2] == "pbwatch" for e in events):
                break
        r.release_conn()
        self.assertIn(("ADDED", "Endpoints", "pbwatch"), events)

    # --- errors ----------------------------------------------------------------------------------

    def status_of(self, r):
        api_version, kind, raw = unwrap(r.data)
        self.assertEqual((api_version, kind), ("v1", "Status"))
        st = parse(raw)
        return field(st, 3)[0].decode(), field(st, 6)[0]  # message, code

    def test_malformed_bodies_are_400(self):
        base = "/api/v1/namespaces/%s/services" % NS
        good = wrap("v1", "Service", serialize([(1, 2, serialize([(1, 2, b"pb-bad")]))]))
        cases = {
            "truncated": good[:-5],
            "wrong magic": b"k9s\x00" + good[4:],
            "wrong kind": wrap("v1", "Pod", serialize([(1, 2, serialize([(1, 2, b"x")]))])),
            "oversized length": b"k8s\x00" + b"\x12\xff\xff\xff\xff\x07" + b"abc",
        }
        for what, body in cases.items():
            with self.subTest(what):
                r = self.request("POST", base, body=body, content_type=PB)
                self.assertEqual(r.status, 400, r.data[:200])
                self.assertEqual(r.headers["Content-Type"], PB)
                message, code = self.status_of(r)
                self.assertEqual(code, 400)
                if what == "wrong kind":
                    self.assertIn("kind", message)
        # The server is still there.
        self.assertEqual(self.request("GET", "/api/v1/namespaces/" + NS).status, 200)

    def test_not_found_status_in_protobuf(self):
        r = self.request("GET", "/api/v1/namespaces/%s/pods/nope" % NS)
        self.assertEqual(r.status, 404)
        message, code = self.status_of(r)
        self.assertEqual(code, 404)
        self.assertIn("nope", message)


if __name__ == "__main__":
    unittest.main()
