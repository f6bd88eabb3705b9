"""Server-side field validation (?fieldValidation=Strict|Warn|Ignore) and --event-ttl, against
`svcplane serve`, with kubectl 1.33 and the Python client (raw requests where the generated
client cannot say it: python3-kubernetes 22 has no field_validation argument, and a dict cannot
hold a duplicate key).

The expected texts are kube-apiserver's: create/update fail with 400 BadRequest
`<Kind> in version "v1" cannot be handled as a <Kind>: strict decoding error: ...`, patches with
422 Invalid on field "patch", Warn answers `Warning: 299 - "unknown field \\"spec.bogus\\""`.
"""

import json
import time
import unittest

import harness

NS = "default"
K = "1.33"


def service(name, **spec_extra):
    spec = {"selector": {"app": "fv"}, "ports": [{"port": 80, "targetPort": 8080}]}
    spec.update(spec_extra)
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name}, "spec": spec}


class FieldValidation(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.srv, cls.api = harness.start_with_client(["--event-ttl", "2s"])

    @classmethod
    def tearDownClass(cls):
        cls.api.close()
        cls.srv.cleanup()

    # --- helpers -------------------------------------------------------------------------------

    def request(self, method, path, body, content_type="application/json", query=""):
        """A raw request with the client's credentials; returns (status, json body, warnings)."""
        url = self.api.configuration.host + path + (("?" + query) if query else "")
        if not isinstance(body, (str, bytes)):
            body = json.dumps(body)
        headers = {"Content-Type": content_type, "Accept": "application/json"}
        self.api.update_params_for_auth(headers, [], ["BearerToken"])  # the kubeconfig's token
        r = self.api.rest_client.pool_manager.request(method, url, body=body, headers=headers)
        warnings = r.headers.getlist("Warning") if hasattr(r.headers, "getlist") else \
            [v for k, v in r.headers.items() if k.lower() == "warning"]
        return r.status, json.loads(r.data), warnings

    def create(self, body, query="", **kw):
        return self.request("POST", "/api/v1/namespaces/%s/services" % NS, body, query=query, **kw)

    def k(self, *args, **kw):
        return self.srv.kubectl(K, *args, **kw)

    # --- create / update -----------------------------------------------------------------------

    def test_strict_create_lists_every_problem(self):
        # Raw text: a duplicate key cannot be written from a dict.
        body = ('{"apiVersion":"v1","kind":"Service","spec":{"bogus":1,"ports":[{"port":80,'
                '"nodePortz":1}]},"metadata":{"name":"fv-strict","name":"fv-strict"}}')
        status, st, _ = self.create(body, "fieldValidation=Strict")
        self.assertEqual(status, 400, st)
        self.assertEqual(st["reason"], "BadRequest")
        self.assertEqual(st["message"],
                         'Service in version "v1" cannot be handled as a Service: strict decoding '
                         'error: unknown field "spec.bogus", unknown field "spec.ports[0].nodePortz",'
                         ' duplicate field "metadata.name"')
        status, _, _ = self.request("GET", "/api/v1/namespaces/%s/services/fv-strict" % NS, "")
        self.assertEqual(status, 404)

    def test_strict_checks_what_the_model_keeps_raw(self):
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "fv-raw"},
               "spec": {"containers": [{"name": "c", "image": "nginx",
                                        "resources": {"limits": {"cpu": "1"}, "limitz": {}},
                                        "livenessProbe": {"httpGet": {"port": 80, "pathh": "/"}}}],
                        "volumes": [{"name": "v", "emptyDir": {"sizeLimitt": "1Gi"}}]}}
        status, st, _ = self.request("POST", "/api/v1/namespaces/%s/pods" % NS, pod,
                                     query="fieldValidation=Strict")
        self.assertEqual(status, 400, st)
        self.assertEqual(st["message"],
                         'Pod in version "v1" cannot be handled as a Pod: strict decoding error: '
                         'unknown field "spec.containers[0].resources.limitz", unknown field '
                         '"spec.containers[0].livenessProbe.httpGet.pathh", unknown field '
                         '"spec.volumes[0].emptyDir.sizeLimitt"')

    def test_warn_is_the_default(self):
        for name, query in (("fv-warn-default", ""), ("fv-warn", "fieldValidation=Warn")):
            status, obj, warnings = self.create(service(name, bogus=1), query)
            self.assertEqual(status, 201, obj)
            self.assertEqual(warnings, ['299 - "unknown field \\"spec.bogus\\""'])
            # Dropped, as upstream's decoder drops what its types do not have.
            self.assertNotIn("bogus", obj["spec"])

    def test_ignore_accepts_silently(self):
        status, obj, warnings = self.create(service("fv-ignore", bogus=1), "fieldValidation=Ignore")
        self.assertEqual(status, 201, obj)
        self.assertEqual(warnings, [])
        self.assertNotIn("bogus", obj["spec"])

    def test_unsupported_directive_is_invalid(self):
        status, st, _ = self.create(service("fv-bad"), "fieldValidation=strict")
        self.assertEqual(status, 422, st)
        self.assertEqual(st["reason"], "Invalid")
        self.assertEqual(st["message"],
                         'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported '
                         'value: "strict": supported values: "", "Ignore", "Strict", "Warn"')

    def test_strict_update(self):
        status, created, _ = self.create(service("fv-update"))
        self.assertEqual(status, 201, created)
        created["spec"]["bogus"] = True
        path = "/api/v1/namespaces/%s/services/fv-update" % NS
        status, st, _ = self.request("PUT", path, created, query="fieldValidation=Strict")
        self.assertEqual(status, 400, st)
        self.assertEqual(st["message"], 'Service in version "v1" cannot be handled as a Service: '
                                        'strict decoding error: unknown field "spec.bogus"')
        status, obj, warnings = self.request("PUT", path, created)
        self.assertEqual(status, 200, obj)
        self.assertEqual(warnings, ['299 - "unknown field \\"spec.bogus\\""'])

    def test_yaml_duplicate_keys_are_go_yaml_errors(self):
        body = ("apiVersion: v1\nkind: Service\nmetadata:\n  name: fv-yaml\n  name: fv-yaml\n"
                "spec:\n  bogus: 1\n  ports:\n  - port: 80\n")
        status, st, _ = self.create(body, "fieldValidation=Strict", content_type="application/yaml")
        self.assertEqual(status, 400, st)
        self.assertEqual(st["message"],
                         'Service in version "v1" cannot be handled as a Service: strict decoding '
                         'error: error converting YAML to JSON: yaml: unmarshal errors:\n'
                         '  line 5: key "name" already set in map, unknown field "spec.bogus"')
        status, obj, warnings = self.create(body, content_type="application/yaml")
        self.assertEqual(status, 201, obj)
        self.assertEqual(warnings, ['299 - "line 5: key \\"name\\" already set in map"',
                                    '299 - "unknown field \\"spec.bogus\\""'])

    # --- patch ---------------------------------------------------------------------------------

    def test_strict_patches(self):
        status, _, _ = self.create(service("fv-patch"))
        self.assertEqual(status, 201)
        path = "/api/v1/namespaces/%s/services/fv-patch" % NS
        cases = [
            ("application/merge-patch+json", '{"spec":{"bogus":1}}',
             ['unknown field "spec.bogus"']),
            ("application/strategic-merge-patch+json", '{"spec":{"bogus":1},"spec":{"x":2}}',
             ['duplicate field "spec"', 'unknown field "spec.x"']),
            ("application/json-patch+json", '[{"op":"add","path":"/spec/bogus","value":1,"z":0}]',
             ['json patch unknown field "[0].z"', 'unknown field "spec.bogus"']),
        ]
        for ctype, patch, problems in cases:
            with self.subTest(ctype):
                status, st, _ = self.request("PATCH", path, patch, content_type=ctype,
                                             query="fieldValidation=Strict")
                self.assertEqual(status, 422, st)
                self.assertEqual(st["reason"], "Invalid")
                self.assertTrue(st["message"].startswith(' "" is invalid: patch: Invalid value: '),
                                st["message"])
                self.assertTrue(st["message"].endswith(
                    ": strict decoding error: " + ", ".join(problems)), st["message"])
                self.assertEqual(st["details"]["causes"][0]["field"], "patch")
                self.assertFalse(st["details"].get("kind"))  # as upstream: no kind, no name
                self.assertFalse(st["details"].get("name"))
                status, obj, warnings = self.request("PATCH", path, patch, content_type=ctype)
                self.assertEqual(status, 200, obj)
                self.assertNotIn("bogus", obj["spec"])
                self.assertEqual(warnings, ['299 - "%s"' % p.replace('"', '\\"')
                                            for p in problems])
        # The strategic merge patch's value is the patch map as Go prints it.
        status, st, _ = self.request("PATCH", path, '{"spec":{"bogus":1}}',
                                     content_type="application/strategic-merge-patch+json",
                                     query="fieldValidation=Strict")
        self.assertEqual(status, 422, st)
        self.assertEqual(st["message"], ' "" is invalid: patch: Invalid value: '
                                        '"map[spec:map[bogus:1]]": strict decoding error: '
                                        'unknown field "spec.bogus"')

    # --- kubectl 1.33 --------------------------------------------------------------------------

    def test_kubectl_create_and_apply_reject_unknown_fields(self):
        for verb in ("create", "apply"):
            with self.subTest(verb):
                manifest = json.dumps(service("fv-kubectl-" + verb, bogus=1))
                p = self.k(verb, "-f", "-", input=manifest, check=False)
                self.assertNotEqual(p.returncode, 0)
                self.assertIn('Error from server (BadRequest): error when creating "STDIN": '
                              'Service in version "v1" cannot be handled as a Service: strict '
                              'decoding error: unknown field "spec.bogus"', p.stderr)

    def test_kubectl_validate_false_and_warn(self):
        p = self.k("create", "--validate=false", "-f", "-",
                   input=json.dumps(service("fv-kubectl-novalidate", bogus=1)))
        self.assertIn("service/fv-kubectl-novalidate created", p.stdout)
        self.assertNotIn("unknown field", p.stderr)
        p = self.k("apply", "--validate=warn", "-f", "-",
                   input=json.dumps(service("fv-kubectl-warn", bogus=1)))
        self.assertIn("service/fv-kubectl-warn created", p.stdout)
        self.assertIn('Warning: unknown field "spec.bogus"', p.stderr)

    def test_kubectl_apply_to_an_existing_object(self):
        self.k("apply", "-f", "-", input=json.dumps(service("fv-kubectl-existing")))
        p = self.k("apply", "-f", "-", check=False,
                   input=json.dumps(service("fv-kubectl-existing", bogus=1)))
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("The request is invalid: patch: Invalid value:", p.stderr)
        self.assertIn('strict decoding error: unknown field "spec.bogus"', p.stderr)

    # --- event TTL -----------------------------------------------------------------------------

    def test_events_expire_after_the_ttl(self):
        ev = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "fv-ttl"},
              "involvedObject": {"kind": "Pod", "namespace": NS, "name": "p"},
              "reason": "Started", "message": "started", "type": "Normal",
              "source": {"component": "itest"}}
        path = "/api/v1/namespaces/%s/events" % NS
        status, _, _ = self.request("POST", path, ev)
        self.assertEqual(status, 201)
        created = time.monotonic()
        status, _, _ = self.request("GET", path + "/fv-ttl", "")
        self.assertEqual(status, 200)
        deadline = created + 15
        while time.monotonic() < deadline:
            status, _, _ = self.request("GET", path + "/fv-ttl", "")
            if status == 404:
                break
            time.sleep(0.2)
        self.assertEqual(status, 404, "event still there 15 s after a 2 s TTL")
        # Not before the TTL: it was there for at least ~2 s (the sweep runs every 0.5 s).
        self.assertGreaterEqual(time.monotonic() - created, 1.9)


if __name__ == "__main__":
    unittest.main()
