"""Server-side apply and managedFields (issue 23; spec server-side-apply.md §6), against the real
binary over HTTPS: raw PATCH requests for the exact texts, kubectl 1.27 and 1.33 for the client
flows (apply --server-side, --force-conflicts, --field-manager, label, edit-like patches, the
client-side to server-side migration, --show-managed-fields), and the Python client's dynamic
server_side_apply.

Times are whole seconds of the server's clock; where the spec fixes the clock, these tests
assert what does not depend on it (present, absent, unchanged)."""

import json
import os
import tempfile
import time
import unittest

import harness

APPLY = "application/apply-patch+yaml"
MERGE = "application/merge-patch+json"
STRATEGIC = "application/strategic-merge-patch+json"
JSONPATCH = "application/json-patch+json"
NS = "default"
SVC_PATH = "/api/v1/namespaces/default/services/"

WEB = {"apiVersion": "v1", "kind": "Service",
       "metadata": {"name": "web", "namespace": NS, "labels": {"app": "web"}},
       "spec": {"ports": [{"name": "http", "port": 80, "targetPort": 8080}],
                "selector": {"app": "web"}}}
WEB_APPLY_SET = {"f:metadata": {"f:labels": {"f:app": {}}},
                 "f:spec": {"f:ports": {'k:{"port":80,"protocol":"TCP"}': {
                     ".": {}, "f:name": {}, "f:port": {}, "f:targetPort": {}}},
                     "f:selector": {}}}
PORT_KEY = 'k:{"port":80,"protocol":"TCP"}'


def service(name, **changes):
    body = json.loads(json.dumps(WEB))
    body["metadata"]["name"] = name
    for path, value in changes.items():
        node = body
        parts = path.split(".")
        for p in parts[:-1]:
            node = node[p]
        if value is None:
            node.pop(parts[-1], None)
        else:
            node[parts[-1]] = value
    return body


def entries(obj):
    return obj["metadata"].get("managedFields", [])


def entry(obj, manager, operation=None):
    found = [e for e in entries(obj) if e["manager"] == manager and
             (operation is None or e["operation"] == operation)]
    return found[0] if found else None


class SsaTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.srv, cls.api = harness.start_with_client()
        cls.tmp = tempfile.mkdtemp(prefix="svcplane-ssa-")

    @classmethod
    def tearDownClass(cls):
        cls.srv.cleanup()

    # --- helpers ---------------------------------------------------------------------------

    def request(self, method, path, body=None, content_type=None, query=""):
        data = body if isinstance(body, (str, bytes)) or body is None else json.dumps(body)
        r = harness.raw_request(self.api, method, path + query, body=data,
                                content_type=content_type)
        text = r.data.decode()
        try:
            return r.status, json.loads(text) if text else None, r.headers
        except ValueError:
            return r.status, text, r.headers

    def apply(self, name, body, manager="kubectl", force=None, path=SVC_PATH, extra=""):
        q = "?fieldManager=" + manager if manager is not None else "?"
        if force is not None:
            q += "&force=" + ("true" if force else "false")
        q += extra
        return self.request("PATCH", path + name, body, APPLY, q)

    def get(self, name, path=SVC_PATH):
        status, obj, _ = self.request("GET", path + name)
        self.assertEqual(status, 200, obj)
        return obj

    def ok(self, result, code=200):
        status, obj, _ = result
        self.assertEqual(status, code, obj)
        return obj

    def kubectl(self, version, *args, **kw):
        return self.srv.kubectl(version, *args, **kw)

    def write_manifest(self, name, obj):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            json.dump(obj, f)
        return path

    # --- §6 scenarios over raw HTTPS ------------------------------------------------------

    def test_01_02_apply_creates_then_identical_reapply_is_a_no_op(self):
        created = self.ok(self.apply("s01", service("s01"), force=False), 201)
        self.assertEqual(len(entries(created)), 1, entries(created))
        e = entries(created)[0]
        self.assertEqual({k: e[k] for k in ("manager", "operation", "apiVersion", "fieldsType")},
                         {"manager": "kubectl", "operation": "Apply", "apiVersion": "v1",
                          "fieldsType": "FieldsV1"})
        self.assertEqual(e["fieldsV1"], WEB_APPLY_SET)
        self.assertRegex(e["time"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
        self.assertTrue(created["spec"]["clusterIP"])
        self.assertEqual(created["spec"]["ports"][0]["protocol"], "TCP")
        self.assertEqual(created["spec"]["sessionAffinity"], "None")
        again = self.ok(self.apply("s01", service("s01"), force=False))
        self.assertEqual(again["metadata"]["resourceVersion"],
                         created["metadata"]["resourceVersion"])
        self.assertEqual(entries(again), entries(created))

    def test_03_apply_removes_its_own_field(self):
        self.ok(self.apply("s03", service("s03", **{"metadata.labels": {"app": "web", "tier": "fe"}})),
                201)
        obj = self.ok(self.apply("s03", service("s03")))
        self.assertEqual(obj["metadata"]["labels"], {"app": "web"})
        self.assertEqual(entry(obj, "kubectl")["fieldsV1"]["f:metadata"], {"f:labels": {"f:app": {}}})

    def test_04_prune_then_redefault(self):
        self.ok(self.apply("s04", service("s04")), 201)
        body = service("s04")
        del body["spec"]["ports"][0]["targetPort"]
        obj = self.ok(self.apply("s04", body))
        self.assertEqual(obj["spec"]["ports"][0]["targetPort"], 80)
        self.assertNotIn("f:targetPort", entry(obj, "kubectl")["fieldsV1"]["f:spec"]["f:ports"][PORT_KEY])

    def test_05_removal_blocked_by_a_co_owner(self):
        self.ok(self.apply("s05", service("s05")), 201)
        self.ok(self.request("PATCH", SVC_PATH + "s05", {"metadata": {"labels": {"tier": "fe"}}},
                             MERGE, "?fieldManager=kubectl-label"))
        obj = self.get("s05")
        label = entry(obj, "kubectl-label", "Update")
        self.assertEqual(label["fieldsV1"], {"f:metadata": {"f:labels": {"f:tier": {}}}})
        self.assertEqual(label["apiVersion"], "v1")
        self.ok(self.apply("s05", service("s05", **{"metadata.labels": {"app": "web", "tier": "fe"}})))
        obj = self.ok(self.apply("s05", service("s05")))
        self.assertEqual(obj["metadata"]["labels"], {"app": "web", "tier": "fe"})

    def test_06_to_09_option_and_media_type_errors(self):
        status, body, _ = self.apply("missing-manager", service("missing-manager"), manager=None)
        self.assertEqual(status, 422)
        self.assertEqual(body, {
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: "
                       "is required for apply patch",
            "reason": "Invalid",
            "details": {"group": "meta.k8s.io", "kind": "PatchOptions", "causes": [
                {"reason": "FieldValueRequired", "message": "Required value: is required for "
                 "apply patch", "field": "fieldManager"}]},
            "code": 422})
        self.ok(self.apply("s06", service("s06")), 201)
        status, body, _ = self.request("PATCH", SVC_PATH + "s06", {"metadata": {}}, MERGE,
                                       "?force=false")
        self.assertEqual(status, 422, body)
        self.assertEqual(body["message"], "PatchOptions.meta.k8s.io \"\" is invalid: force: "
                                          "Forbidden: may not be specified for non-apply patch")
        status, body, _ = self.apply("s06", service("s06"), manager="m" * 129)
        self.assertEqual(status, 422, body)
        self.assertEqual(body["message"], "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: "
                                          "Too long: may not be more than 128 bytes")
        self.assertEqual(body["details"]["causes"][0]["reason"], "FieldValueTooLong")
        status, body, _ = self.apply("s06", service("s06"), manager="abc%07")
        self.assertEqual(status, 422, body)
        self.assertEqual(body["message"], "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: "
                                          "Invalid value: \"abc\\a\": invalid character U+0007 "
                                          "(at position 3)")
        for ct in ("application/apply-patch+json", "application/apply-patch+cbor"):
            status, body, _ = self.request("PATCH", SVC_PATH + "s06", service("s06"), ct,
                                           "?fieldManager=kubectl")
            self.assertEqual(status, 415, body)
            self.assertEqual(body["message"],
                             "the body of the request was in an unknown format - accepted media "
                             "types include: application/json-patch+json, "
                             "application/merge-patch+json, application/strategic-merge-patch+json, "
                             "application/apply-patch+yaml")

    def test_10_to_13_shared_ownership_conflict_and_force(self):
        self.ok(self.apply("s10", service("s10")), 201)
        before = self.get("s10")
        obj = self.ok(self.apply("s10", {"apiVersion": "v1", "kind": "Service",
                                         "metadata": {"name": "s10"},
                                         "spec": {"selector": {"app": "web"}}}, manager="ci"))
        self.assertEqual(obj["spec"], before["spec"])
        self.assertIn("f:selector", entry(obj, "kubectl")["fieldsV1"]["f:spec"])
        self.assertEqual(entry(obj, "ci")["fieldsV1"], {"f:spec": {"f:selector": {}}})
        self.assertNotIn("time", entry(obj, "ci"))
        ci2 = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s10"},
               "spec": {"selector": {"app": "web2"}}}
        status, body, _ = self.apply("s10", ci2, manager="ci")
        self.assertEqual(status, 409, body)
        self.assertEqual(body["reason"], "Conflict")
        self.assertEqual(body["message"],
                         "Apply failed with 1 conflict: conflict with \"kubectl\": .spec.selector")
        self.assertEqual(body["details"], {"causes": [
            {"reason": "FieldManagerConflict", "message": "conflict with \"kubectl\"",
             "field": ".spec.selector"}]})
        self.assertEqual(self.get("s10")["metadata"]["resourceVersion"],
                         obj["metadata"]["resourceVersion"])
        obj = self.ok(self.apply("s10", ci2, manager="ci", force=True))
        self.assertEqual(obj["spec"]["selector"], {"app": "web2"})
        self.assertNotIn("f:selector", entry(obj, "kubectl")["fieldsV1"]["f:spec"])
        self.assertIn("time", entry(obj, "ci"))
        # 13: a manager that loses its only field disappears.
        self.ok(self.apply("s10", {"apiVersion": "v1", "kind": "Service",
                                   "metadata": {"name": "s10", "labels": {"x": "1"}}}, manager="x"))
        obj = self.ok(self.apply("s10", {"apiVersion": "v1", "kind": "Service",
                                         "metadata": {"name": "s10", "labels": {"x": "2"}}},
                                 manager="y", force=True))
        self.assertIsNone(entry(obj, "x"))
        self.assertEqual(obj["metadata"]["labels"]["x"], "2")

    def test_15_17_update_without_change_and_manager_from_user_agent(self):
        obj = self.ok(self.apply("s15", service("s15")), 201)
        status, put, _ = self.request("PUT", SVC_PATH + "s15", obj, None, "?fieldManager=z")
        self.assertEqual(status, 200, put)
        self.assertIsNone(entry(put, "z"))
        self.assertEqual(put["metadata"]["resourceVersion"], obj["metadata"]["resourceVersion"])
        self.assertEqual(entries(put), entries(obj))
        # A PUT that changes something, without fieldManager: the User-Agent's product.
        obj["metadata"]["labels"]["ua"] = "1"
        cfg = self.api.configuration
        headers = {"Accept": "application/json", "Content-Type": "application/json",
                   "Authorization": cfg.get_api_key_with_prefix("authorization"),
                   "User-Agent": "kube-controller-manager/v1.33.0 (linux/amd64) kubernetes/abc/"
                                 "system:serviceaccount:kube-system:x"}
        r = self.api.rest_client.pool_manager.request(
            "PUT", cfg.host + SVC_PATH + "s15", body=json.dumps(obj), headers=headers, timeout=30)
        self.assertEqual(r.status, 200, r.data)
        put = json.loads(r.data)
        e = entry(put, "kube-controller-manager", "Update")
        self.assertEqual(e["fieldsV1"], {"f:metadata": {"f:labels": {"f:ua": {}}}})

    def test_16_create_through_post_records_an_update(self):
        path = self.write_manifest("s16.json", service("s16"))
        self.kubectl("1.33", "create", "-f", path)
        obj = self.get("s16")
        e = entry(obj, "kubectl-create", "Update")
        self.assertIsNotNone(e, entries(obj))
        spec = e["fieldsV1"]["f:spec"]
        self.assertEqual(set(spec), {"f:internalTrafficPolicy", "f:ports", "f:selector",
                                     "f:sessionAffinity", "f:type"})
        self.assertIn(".", spec["f:ports"])
        self.assertEqual(spec["f:ports"][PORT_KEY],
                         {".": {}, "f:name": {}, "f:port": {}, "f:protocol": {}, "f:targetPort": {}})

    def test_19_to_21_apply_to_status(self):
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p19"},
               "spec": {"containers": [{"name": "c", "image": "nginx"}]}}
        pods = "/api/v1/namespaces/default/pods/"
        self.ok(self.request("POST", "/api/v1/namespaces/default/pods", pod, "application/json"),
                201)
        body = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p19"},
                "spec": {"nodeName": "x"},
                "status": {"conditions": [{"type": "Example", "status": "True"}]}}
        obj = self.ok(self.apply("p19/status", body, manager="ctl", path=pods))
        self.assertIn({"type": "Example", "status": "True"},
                      [{k: c[k] for k in ("type", "status")} for c in obj["status"]["conditions"]])
        self.assertNotIn("nodeName", obj["spec"])
        e = entry(obj, "ctl")
        self.assertEqual((e["operation"], e["subresource"]), ("Apply", "status"))
        self.assertEqual(e["fieldsV1"], {"f:status": {"f:conditions": {'k:{"type":"Example"}': {
            ".": {}, "f:status": {}, "f:type": {}}}}})
        # 20: a kubelet-like status write takes the condition; applying another value conflicts.
        self.ok(self.request("PATCH", pods + "p19/status",
                             {"status": {"conditions": [{"type": "Ready", "status": "True"}]}},
                             STRATEGIC, "?fieldManager=kubelet"))
        status, err, _ = self.apply("p19/status", {
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p19"},
            "status": {"conditions": [{"type": "Ready", "status": "False"}]}},
            manager="ctl", path=pods)
        self.assertEqual(status, 409, err)
        self.assertEqual(err["message"], "Apply failed with 1 conflict: conflict with \"kubelet\" "
                                         "with subresource \"status\" using v1: "
                                         ".status.conditions[type=\"Ready\"].status")
        status, err, _ = self.apply("missing/status", body, manager="ctl", path=pods)
        self.assertEqual(status, 404, err)
        self.assertEqual(err["reason"], "NotFound")

    def test_22_to_28_body_errors(self):
        self.ok(self.apply("s22", service("s22")), 201)
        cases = [
            (dict(service("s22"), kind="ConfigMap"), 400, "invalid object type: /v1, Kind=ConfigMap"),
            ({"metadata": {"name": "s22"}}, 400, "invalid object type: /, Kind="),
            (service("other"), 400,
             "the name of the object (other) does not match the name on the URL (s22)"),
            (service("s22", **{"metadata.namespace": "kube-system"}), 400,
             "the namespace of the provided object does not match the namespace sent on the request"),
            (service("s22", **{"metadata.managedFields": []}), 400,
             "metadata.managedFields must be nil"),
            (service("s22", **{"spec.foo": 1}), 500,
             "failed to create typed patch object (default/s22; /v1, Kind=Service): "
             ".spec.foo: field not declared in schema"),
        ]
        for body, code, message in cases:
            status, err, _ = self.apply("s22", body)
            self.assertEqual((status, err["message"]), (code, message), body)
        status, err, _ = self.apply("s22", service("s22", **{"spec.foo": 1}))
        self.assertNotIn("reason", err)
        self.ok(self.apply("s22", service("s22", **{"metadata.managedFields": None})))
        status, err, _ = self.apply("s22", '"hello"')
        self.assertEqual(status, 400, err)
        self.assertTrue(err["message"].startswith("error decoding YAML: "), err)
        dup = ('{"apiVersion":"v1","kind":"Service","metadata":{"name":"s22",'
               '"labels":{"a":"1","a":"2"}}}')
        # Another manager: kubectl applying only labels would prune the ports it owns.
        status, err, _ = self.apply("s22", dup, manager="dup", extra="&fieldValidation=Strict")
        self.assertEqual(status, 400, err)
        self.assertTrue(err["message"].startswith("error strict decoding YAML: "), err)
        status, obj, headers = self.apply("s22", dup, manager="dup", extra="&fieldValidation=Warn")
        self.assertEqual(status, 200, obj)
        self.assertEqual(obj["metadata"]["labels"]["a"], "2")
        self.assertIn("299", headers.get("Warning", ""))
        status, obj, headers = self.apply("s22", dup, manager="dup",
                                          extra="&fieldValidation=Ignore")
        self.assertEqual(status, 200, obj)
        self.assertNotIn("Warning", headers)
        status, err, _ = self.apply("s28", service("s28", **{"metadata.uid": "u1"}))
        self.assertEqual(status, 409, err)
        self.assertEqual(err["message"], "Operation cannot be fulfilled on services \"s28\": uid "
                                         "mismatch: the provided object specified uid u1, and no "
                                         "existing object was found")

    def test_29_dry_run_creates_nothing(self):
        obj = self.ok(self.apply("s29", service("s29"), extra="&dryRun=All"), 201)
        self.assertTrue(entries(obj))
        status, _, _ = self.request("GET", SVC_PATH + "s29")
        self.assertEqual(status, 404)

    def test_30_31_reset_then_before_first_apply(self):
        self.ok(self.apply("s30", service("s30")), 201)
        obj = self.ok(self.request("PATCH", SVC_PATH + "s30",
                                   {"metadata": {"managedFields": [{}]}}, MERGE))
        self.assertNotIn("managedFields", obj["metadata"])
        self.assertNotIn("managedFields", self.get("s30")["metadata"])
        obj = self.ok(self.request("PATCH", SVC_PATH + "s30", {"spec": {"sessionAffinity": "ClientIP"}},
                                   MERGE, "?fieldManager=m"))
        self.assertNotIn("managedFields", obj["metadata"])
        body = service("s30")
        body["spec"]["ports"][0]["targetPort"] = 9090
        status, err, _ = self.apply("s30", body)
        self.assertEqual(status, 409, err)
        self.assertIn("conflict with \"before-first-apply\" using v1: "
                      ".spec.ports[port=80,protocol=\"TCP\"].targetPort", err["message"])
        obj = self.ok(self.apply("s30", service("s30"), manager="x"))
        self.assertEqual(entry(obj, "x")["operation"], "Apply")
        first = entry(obj, "before-first-apply")
        self.assertEqual((first["operation"], first["apiVersion"]), ("Update", "v1"))
        self.assertIn("f:sessionAffinity", first["fieldsV1"]["f:spec"])

    def test_32_json_patch_replaces_managed_fields_with_rv_precondition(self):
        obj = self.ok(self.apply("s32", service("s32")), 201)
        edited = entries(obj)
        edited[0]["manager"] = "renamed"
        patch = [{"op": "replace", "path": "/metadata/managedFields", "value": edited},
                 {"op": "replace", "path": "/metadata/resourceVersion",
                  "value": obj["metadata"]["resourceVersion"]}]
        out = self.ok(self.request("PATCH", SVC_PATH + "s32", patch, JSONPATCH,
                                   "?fieldManager=kubectl"))
        self.assertEqual([e["manager"] for e in entries(out)], ["renamed"])
        status, err, _ = self.request("PATCH", SVC_PATH + "s32", patch, JSONPATCH)
        self.assertEqual(status, 409, err)
        self.assertEqual(err["message"], "Operation cannot be fulfilled on services \"s32\": the "
                                         "object has been modified; please apply your changes to "
                                         "the latest version and try again")

    def test_33_update_cap_merges_the_oldest_into_ancient_changes(self):
        self.ok(self.apply("s33", service("s33")), 201)
        for i in range(1, 12):
            self.ok(self.request("PATCH", SVC_PATH + "s33",
                                 {"metadata": {"labels": {"l%02d" % i: "v"}}}, MERGE,
                                 "?fieldManager=m%02d" % i))
            time.sleep(1.05)  # entry times are whole seconds: make the order unambiguous
        obj = self.get("s33")
        updates = [e for e in entries(obj) if e["operation"] == "Update"]
        self.assertEqual(len(updates), 10, [e["manager"] for e in updates])
        ancient = entry(obj, "ancient-changes")
        self.assertEqual(ancient["fieldsV1"], {"f:metadata": {"f:labels": {"f:l01": {}, "f:l02": {}}}})
        self.assertIsNone(entry(obj, "m01"))
        self.assertIsNone(entry(obj, "m02"))

    def test_37_associative_order_and_sets(self):
        base = service("s37")
        base["spec"]["ports"] = [{"name": "a", "port": 80}, {"name": "b", "port": 81}]
        self.ok(self.request("POST", "/api/v1/namespaces/default/services", base,
                             "application/json", "?fieldManager=creator"), 201)
        obj = self.ok(self.apply("s37", {"apiVersion": "v1", "kind": "Service",
                                         "metadata": {"name": "s37"},
                                         "spec": {"ports": [{"name": "c", "port": 82},
                                                            {"name": "a", "port": 80}]}},
                                 manager="a"))
        self.assertEqual([p["port"] for p in obj["spec"]["ports"]], [82, 80, 81])
        meta = lambda f: {"apiVersion": "v1", "kind": "Service",  # noqa: E731
                          "metadata": {"name": "s37", "finalizers": f}}
        self.ok(self.apply("s37", meta(["x/a"]), manager="fa"))
        obj = self.ok(self.apply("s37", meta(["x/b"]), manager="fb"))
        self.assertEqual(obj["metadata"]["finalizers"], ["x/a", "x/b"])
        obj = self.ok(self.apply("s37", meta([]), manager="fa"))
        self.assertEqual(obj["metadata"]["finalizers"], ["x/b"])
        self.assertIsNone(entry(obj, "fa"))
        self.ok(self.apply("s37", meta([]), manager="fb"))  # let the namespace cleanup go

    def test_38_lease_renewals_keep_one_entry(self):
        leases = "/apis/coordination.k8s.io/v1/namespaces/default/leases"
        lease = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                 "metadata": {"name": "l38"},
                 "spec": {"holderIdentity": "h", "renewTime": "2025-06-01T12:00:00.000000Z"}}
        cur = self.ok(self.request("POST", leases, lease, "application/json",
                                   "?fieldManager=holder"), 201)
        rvs = [cur["metadata"]["resourceVersion"]]
        for renew in ("2025-06-01T12:00:02.000000Z", "2025-06-01T12:00:04.000000Z"):
            cur["spec"]["renewTime"] = renew
            cur = self.ok(self.request("PUT", leases + "/l38", cur, "application/json",
                                       "?fieldManager=holder"))
            rvs.append(cur["metadata"]["resourceVersion"])
        self.assertEqual(len(set(rvs)), 3)
        self.assertEqual([(e["manager"], e["operation"]) for e in entries(cur)],
                         [("holder", "Update")])

    def test_managed_fields_in_protobuf_and_lists(self):
        self.ok(self.apply("spb", service("spb")), 201)
        r = harness.raw_request(self.api, "GET", SVC_PATH + "spb",
                                accept="application/vnd.kubernetes.protobuf")
        self.assertEqual(r.status, 200)
        # FieldsV1 travels as its canonical JSON bytes inside the protobuf message.
        self.assertIn(b'{"f:metadata":{"f:labels":{"f:app":{}}}', r.data)
        status, lst, _ = self.request("GET", "/api/v1/namespaces/default/services")
        item = [i for i in lst["items"] if i["metadata"]["name"] == "spb"][0]
        self.assertEqual(entry(item, "kubectl")["fieldsV1"], WEB_APPLY_SET)

    # --- kubectl and the Python client ----------------------------------------------------

    def test_kubectl_apply_server_side_conflict_force_and_show_managed_fields(self):
        for version in ("1.27", "1.33"):
            name = "k" + version.replace(".", "")
            path = self.write_manifest(name + ".json", service(name))
            out = self.kubectl(version, "apply", "--server-side", "-f", path).stdout
            self.assertIn("service/%s serverside-applied" % name, out)
            # kubectl-edit-like change of targetPort (strategic patch as kubectl edit sends).
            self.kubectl(version, "patch", "svc", name, "--field-manager", "kubectl-edit", "-p",
                         '{"spec":{"ports":[{"port":80,"targetPort":9090}]}}')
            p = self.kubectl(version, "apply", "--server-side", "-f", path, check=False)
            self.assertNotEqual(p.returncode, 0)
            self.assertIn("Apply failed with 1 conflict: conflict with \"kubectl-edit\" using v1: "
                          ".spec.ports[port=80,protocol=\"TCP\"].targetPort", p.stderr)
            self.kubectl(version, "apply", "--server-side", "--force-conflicts", "-f", path)
            obj = self.get(name)
            self.assertEqual(obj["spec"]["ports"][0]["targetPort"], 8080)
            self.assertIsNone(entry(obj, "kubectl-edit"))
            self.kubectl(version, "label", "svc", name, "tier=fe")
            mine = self.write_manifest(name + "-mine.json",
                                       {"apiVersion": "v1", "kind": "Service",
                                        "metadata": {"name": name, "labels": {"tier": "be"}}})
            p = self.kubectl(version, "apply", "--server-side", "--field-manager", "mine", "-f",
                             mine, check=False)
            self.assertIn("conflict with \"kubectl-label\"", p.stderr)
            shown = self.kubectl(version, "get", "svc", name, "-o", "yaml",
                                 "--show-managed-fields").stdout
            self.assertIn("manager: kubectl-label", shown)
            self.assertIn("operation: Apply", shown)
            hidden = self.kubectl(version, "get", "svc", name, "-o", "yaml").stdout
            self.assertNotIn("managedFields", hidden)

    def test_34_client_side_to_server_side_migration(self):
        for version in ("1.27", "1.33"):
            name = "m" + version.replace(".", "")
            path = self.write_manifest(name + ".json", service(name))
            self.kubectl(version, "apply", "-f", path)
            obj = self.get(name)
            self.assertEqual([e["manager"] for e in entries(obj)], ["kubectl-client-side-apply"])
            changed = service(name)
            changed["spec"]["ports"][0]["targetPort"] = 9090
            with open(path, "w") as f:
                json.dump(changed, f)
            self.kubectl(version, "apply", "--server-side", "-f", path)
            obj = self.get(name)
            self.assertEqual(obj["spec"]["ports"][0]["targetPort"], 9090)
            managers = sorted((e["manager"], e["operation"]) for e in entries(obj))
            self.assertEqual(managers, [("kubectl", "Apply"), ("kubectl-last-applied", "Apply")])
            annotation = obj["metadata"]["annotations"][
                "kubectl.kubernetes.io/last-applied-configuration"]
            self.assertEqual(json.loads(annotation)["spec"]["ports"][0]["targetPort"], 9090)

    def test_34_other_field_manager_opts_out_of_the_migration(self):
        name = "mo"
        path = self.write_manifest(name + ".json", service(name))
        self.kubectl("1.33", "apply", "-f", path)
        changed = service(name)
        changed["spec"]["ports"][0]["targetPort"] = 9090
        with open(path, "w") as f:
            json.dump(changed, f)
        p = self.kubectl("1.33", "apply", "--server-side", "--field-manager", "mine", "-f", path,
                         check=False)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("conflict with \"kubectl-client-side-apply\" using v1: "
                      ".spec.ports[port=80,protocol=\"TCP\"].targetPort", p.stderr)

    def test_36_python_dynamic_client_server_side_apply(self):
        # Debian's python3-kubernetes (22.6) sends an apply body only when it is already text
        # (its rest.py json-encodes only "json" content types), so the manifest goes as YAML,
        # with the name and namespace the client cannot read from a string.
        import yaml
        from kubernetes.dynamic import DynamicClient
        dyn = DynamicClient(self.api)
        services = dyn.resources.get(api_version="v1", kind="Service")
        out = services.server_side_apply(body=yaml.safe_dump(service("py36")), name="py36",
                                         namespace=NS, field_manager="py", force_conflicts=True)
        self.assertEqual(out.metadata.name, "py36")
        obj = self.get("py36")
        self.assertEqual(entry(obj, "py")["operation"], "Apply")
        body = service("py36", **{"metadata.labels": {"app": "web", "v": "2"}})
        services.server_side_apply(body=yaml.safe_dump(body), name="py36", namespace=NS,
                                   field_manager="py", force_conflicts=False)
        self.assertEqual(self.get("py36")["metadata"]["labels"]["v"], "2")
        # Python sends force=True (capitalised): a boolean like any other.
        status, err, _ = self.request(
            "PATCH", SVC_PATH + "py36", service("py36", **{"spec.selector": {"app": "x"}}), APPLY,
            "?fieldManager=other&force=True")
        self.assertEqual(status, 200, err)

if __name__ == "__main__":
    unittest.main()
