"""Authentication against `svcplane serve` (issue 22, spec authn-authz-audit §2, §7 items 3-10).

One server with --client-ca-file (a test CA), --token-auth-file and --anonymous-auth=true;
certificates made here with the `cryptography` module: jane (CN=jane, O=dev, O=ops), one with a
UID attribute, an expired one, one with only the serverAuth usage, one without CN, and one from a
rogue CA with jane's subject. Clients: real kubectl 1.27 (JSON) and 1.33 (protobuf), and raw
HTTPS requests for the exact headers and bodies.

The server runs with --authorization-mode=AlwaysAllow: what a user may do is test_authz.py's
subject; here, who the server thinks the caller is shows through SelfSubjectReview (`kubectl auth
whoami`).
"""

import datetime
import hashlib
import http.client
import json
import os
import shutil
import ssl
import subprocess
import tempfile
import unittest

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

import harness
from protowire import parse

PB = "application/vnd.kubernetes.protobuf"
SSR_V1 = "/apis/authentication.k8s.io/v1/selfsubjectreviews"
SSR_V1BETA1 = "/apis/authentication.k8s.io/v1beta1/selfsubjectreviews"
# As kube-apiserver writes it: Go's json.Encoder ends the document with a newline.
UNAUTHORIZED = ('{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",'
                '"message":"Unauthorized","reason":"Unauthorized","code":401}\n')
EXTRA_SPACE_WARNING = ('299 - "the provided Authorization header contains extra space before '
                       'the bearer token, and is ignored"')
TOKENS = """admintok,admin,u-admin,"system:masters"
janetok,jane,u-jane,"dev"
bobtok,bob,u-bob
dup,first,u-1
dup,second,u-2
"""

# --- certificates --------------------------------------------------------------------------


def _name(cn=None, orgs=(), uids=()):
    attrs = []
    if cn is not None:
        attrs.append(x509.NameAttribute(NameOID.COMMON_NAME, cn))
    attrs += [x509.NameAttribute(NameOID.ORGANIZATION_NAME, o) for o in orgs]
    attrs += [x509.NameAttribute(NameOID.USER_ID, u) for u in uids]
    return x509.Name(attrs)


def make_ca(cn):
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(_name(cn)).issuer_name(_name(cn))
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(hours=1))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(True, False, False, False, False, True, True, False,
                                         False), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()),
                           critical=False)
            .sign(key, hashes.SHA256()))
    return cert, key


def make_leaf(ca, subject, eku=ExtendedKeyUsageOID.CLIENT_AUTH, expired=False):
    ca_cert, ca_key = ca
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.timezone.utc)
    start, end = now - datetime.timedelta(hours=1), now + datetime.timedelta(days=1)
    if expired:
        start, end = now - datetime.timedelta(days=3), now - datetime.timedelta(days=1)
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(ca_cert.subject)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(start).not_valid_after(end)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([eku]), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(
                ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))
    return cert, key


def write_pair(d, name, pair):
    cert, key = pair
    crt, pem_key = os.path.join(d, name + ".crt"), os.path.join(d, name + ".key")
    with open(crt, "wb") as f:
        f.write(cert.public_bytes(serialization.Encoding.PEM))
    with open(pem_key, "wb") as f:
        f.write(key.private_bytes(serialization.Encoding.PEM,
                                  serialization.PrivateFormat.TraditionalOpenSSL,
                                  serialization.NoEncryption()))
    return crt, pem_key


# --- protobuf ------------------------------------------------------------------------------


def varint(n):
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def ld(field, payload):
    return varint(field << 3 | 2) + varint(len(payload)) + payload


def envelope(api_version, kind, raw):
    type_meta = ld(1, api_version.encode()) + ld(2, kind.encode())
    return b"k8s\x00" + ld(1, type_meta) + ld(2, raw) + ld(3, b"") + ld(4, b"")


def unwrap(body):
    """(apiVersion, kind, raw) of an enveloped protobuf object."""
    assert body[:4] == b"k8s\x00", body[:16]
    fields = {f: v for f, _, v in parse(body[4:])}
    tm = {f: v for f, _, v in parse(fields[1])}
    return tm[1].decode(), tm[2].decode(), fields[2]


def user_info_from_proto(raw):
    """SelfSubjectReview{metadata=1, status=2{userInfo=1}} → dict like the JSON userInfo."""
    status = [v for f, _, v in parse(raw) if f == 2][0]
    ui_raw = [v for f, _, v in parse(status) if f == 1][0]
    ui = {"groups": [], "extra": {}}
    for f, _, v in parse(ui_raw):
        if f == 1:
            ui["username"] = v.decode()
        elif f == 2:
            ui["uid"] = v.decode()
        elif f == 3:
            ui["groups"].append(v.decode())
        elif f == 4:
            entry = parse(v)
            key = [x for g, _, x in entry if g == 1][0].decode()
            items = [x for g, _, x in entry if g == 2][0]
            ui["extra"][key] = [x.decode() for g, _, x in parse(items) if g == 1]
    return ui


class AuthnTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="svcplane-authn-")
        d = cls.dir
        ca = make_ca("test-ca")
        rogue_ca = make_ca("test-ca")  # same name, other key
        with open(os.path.join(d, "ca.crt"), "wb") as f:
            f.write(ca[0].public_bytes(serialization.Encoding.PEM))
        cls.certs = {
            "jane": write_pair(d, "jane", make_leaf(ca, _name("jane", ["dev", "ops"]))),
            "janeuid": write_pair(d, "janeuid", make_leaf(ca, _name("jane", [], ["u-cert"]))),
            "twouids": write_pair(d, "twouids", make_leaf(ca, _name("jane", [], ["a", "b"]))),
            "expired": write_pair(d, "expired", make_leaf(ca, _name("jane"), expired=True)),
            "serverauth": write_pair(d, "serverauth", make_leaf(
                ca, _name("jane"), eku=ExtendedKeyUsageOID.SERVER_AUTH)),
            "nocn": write_pair(d, "nocn", make_leaf(ca, _name(None, ["system:masters"]))),
            "rogue": write_pair(d, "rogue", make_leaf(rogue_ca, _name("jane", ["dev", "ops"]))),
        }
        cls.tokens = os.path.join(d, "tokens.csv")
        with open(cls.tokens, "w") as f:
            f.write(TOKENS)
        cls.srv = harness.Server(["--client-ca-file", os.path.join(d, "ca.crt"),
                                  "--token-auth-file", cls.tokens, "--anonymous-auth=true",
                                  # Who the caller is, not what they may do (test_authz.py).
                                  "--authorization-mode=AlwaysAllow"])
        try:
            cls.srv.start()
            cls.srv.kubectl("1.33", "get", "namespaces")  # the admin token still works
        except BaseException:
            cls.srv.cleanup()
            shutil.rmtree(d, ignore_errors=True)
            raise
        # A kubeconfig with no credentials: each test adds its own on the command line.
        cls.server_ca, cls.bare_kubeconfig = harness.bare_kubeconfig(cls.srv, d)

    @classmethod
    def tearDownClass(cls):
        cls.srv.cleanup()
        shutil.rmtree(cls.dir, ignore_errors=True)

    # --- clients -----------------------------------------------------------------------------

    def request(self, method, path, headers=None, body=None, cert=None, srv=None):
        """(status, headers as a list of pairs, body bytes) of one raw HTTPS request."""
        srv = srv or self.srv
        ctx = ssl.create_default_context(cafile=self.server_ca)
        if cert:
            ctx.load_cert_chain(*self.certs[cert])
        conn = http.client.HTTPSConnection("127.0.0.1", srv.port, context=ctx, timeout=30)
        try:
            conn.request(method, path, body=body, headers=headers or {})
            r = conn.getresponse()
            return r.status, r.getheaders(), r.read()
        finally:
            conn.close()

    def whoami(self, headers=None, cert=None):
        """The userInfo of a JSON SelfSubjectReview, and the response headers."""
        h = {"Content-Type": "application/json", "Accept": "application/json"}
        h.update(headers or {})
        body = json.dumps({"kind": "SelfSubjectReview",
                           "apiVersion": "authentication.k8s.io/v1",
                           "metadata": {"creationTimestamp": None},
                           "status": {"userInfo": {}}})
        status, hdrs, out = self.request("POST", SSR_V1, h, body, cert)
        self.assertEqual(status, 201, out)
        doc = json.loads(out)
        self.assertEqual(doc["kind"], "SelfSubjectReview")
        return doc["status"]["userInfo"], hdrs

    def kubectl(self, version, *args, check=True):
        """kubectl with the credential-less kubeconfig (credentials come in `args`)."""
        env = dict(os.environ, HOME=self.dir)
        env.pop("KUBECONFIG", None)
        cmd = [harness.kubectl_path(version), "--kubeconfig", self.bare_kubeconfig] + list(args)
        p = subprocess.run(cmd, capture_output=True, text=True, env=env,
                           timeout=harness.KUBECTL_TIMEOUT)
        if check and p.returncode != 0:
            raise AssertionError("%s: %d\n%s\n%s%s" % (args, p.returncode, p.stdout, p.stderr,
                                                       self.srv.died()))
        return p

    def cert_args(self, name):
        crt, key = self.certs[name]
        return ["--client-certificate", crt, "--client-key", key]

    @staticmethod
    def header(hdrs, name):
        return [v for k, v in hdrs if k.lower() == name.lower()]

    # --- §2.1 and §7 items 4, 5 ---------------------------------------------------------------

    def test_no_credentials_is_anonymous(self):
        ui, hdrs = self.whoami()
        self.assertEqual(ui, {"username": "system:anonymous",
                              "groups": ["system:unauthenticated"]})
        self.assertEqual(len(self.header(hdrs, "Audit-ID")[0]), 36)  # a new UUID

    def test_unknown_token_is_401_even_with_anonymous_on(self):
        status, hdrs, body = self.request("GET", "/healthz",
                                          {"Authorization": "Bearer nope", "Audit-ID": "a-1"})
        self.assertEqual(status, 401)
        self.assertEqual(body.decode(), UNAUTHORIZED)
        self.assertEqual(self.header(hdrs, "Content-Type"), ["application/json"])
        self.assertEqual(self.header(hdrs, "Audit-ID"), ["a-1"])
        self.assertEqual(self.header(hdrs, "WWW-Authenticate"), [])
        p = self.kubectl("1.33", "--token=nope", "get", "pods", check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn("error: You must be logged in to the server (Unauthorized)", p.stderr)

    def test_401_is_protobuf_when_the_client_prefers_it(self):
        status, hdrs, body = self.request("GET", "/api/v1/pods", {
            "Authorization": "Bearer nope", "Accept": PB + ", application/json"})
        self.assertEqual(status, 401)
        self.assertEqual(self.header(hdrs, "Content-Type"), [PB])
        api_version, kind, raw = unwrap(body)
        self.assertEqual((api_version, kind), ("v1", "Status"))
        fields = {f: v for f, _, v in parse(raw)}
        self.assertEqual(fields[3], b"Unauthorized")  # message
        self.assertEqual(fields[4], b"Unauthorized")  # reason
        self.assertEqual(fields[6], 401)  # code

    def test_header_edge_cases(self):
        ui, hdrs = self.whoami({"Authorization": "Bearer  janetok"})
        self.assertEqual(ui["username"], "system:anonymous")
        self.assertEqual(self.header(hdrs, "Warning"), [EXTRA_SPACE_WARNING])
        for value in ("Basic amFuZTp4", "Bearer ", "Bearer\tjanetok", "bearerjanetok"):
            ui, hdrs = self.whoami({"Authorization": value})
            self.assertEqual(ui["username"], "system:anonymous", value)
            self.assertEqual(self.header(hdrs, "Warning"), [], value)
        ui, _ = self.whoami({"Authorization": "bearer janetok trailing words"})
        self.assertEqual(ui["username"], "jane")
        status, _, _ = self.request("GET", "/healthz",
                                    {"Authorization": "Bearer " + "x" * (32 << 10)})
        self.assertEqual(status, 401)

    # --- §7 items 6, 7, 8, 9: whoami -----------------------------------------------------------

    def test_kubectl_whoami_with_a_token(self):
        for version in ("1.33", "1.27"):
            out = self.kubectl(version, "--token=janetok", "auth", "whoami").stdout
            lines = [l.split() for l in out.strip().splitlines()]
            self.assertEqual(lines[0], ["ATTRIBUTE", "VALUE"], out)
            self.assertIn(["Username", "jane"], lines, out)
            self.assertIn(["UID", "u-jane"], lines, out)
            self.assertIn(["Groups", "[dev", "system:authenticated]"], lines, out)
            self.assertNotIn("Extra", out)
        doc = json.loads(self.kubectl("1.33", "--token=janetok", "auth", "whoami",
                                      "-o", "json").stdout)
        self.assertEqual(doc["apiVersion"], "authentication.k8s.io/v1")
        self.assertIsNotNone(doc["metadata"]["creationTimestamp"])

    def test_kubectl_127_uses_v1beta1(self):
        p = self.kubectl("1.27", "--token=janetok", "auth", "whoami", "-o", "json", "-v=6")
        self.assertIn("/apis/authentication.k8s.io/v1beta1/selfsubjectreviews 201", p.stderr)
        doc = json.loads(p.stdout)
        self.assertEqual(doc["apiVersion"], "authentication.k8s.io/v1beta1")
        self.assertEqual(doc["status"]["userInfo"]["username"], "jane")

    def test_kubectl_whoami_with_a_client_certificate(self):
        crt = self.certs["jane"][0]
        der = subprocess.run(["openssl", "x509", "-in", crt, "-outform", "der"],
                             capture_output=True, check=True).stdout
        want = "X509SHA256=" + hashlib.sha256(der).hexdigest()
        for version in ("1.33", "1.27"):
            doc = json.loads(self.kubectl(version, *self.cert_args("jane"), "auth", "whoami",
                                          "-o", "json").stdout)
            ui = doc["status"]["userInfo"]
            self.assertEqual(ui["username"], "jane")
            self.assertEqual(ui["groups"], ["dev", "ops", "system:authenticated"])
            self.assertEqual(ui["extra"], {"authentication.kubernetes.io/credential-id": [want]})
            self.assertNotIn("uid", ui)

    def test_certificate_combinations(self):
        # Rogue CA alone: the TLS handshake succeeds, then 401.
        status, _, body = self.request("GET", "/api", cert="rogue")
        self.assertEqual((status, body.decode()), (401, UNAUTHORIZED))
        ui, _ = self.whoami({"Authorization": "Bearer janetok"}, cert="rogue")
        self.assertEqual(ui["username"], "jane")
        self.assertEqual(ui["uid"], "u-jane")  # the token's user
        for bad in ("expired", "serverauth", "twouids"):
            status, _, body = self.request("GET", "/api", cert=bad)
            self.assertEqual((status, body.decode()), (401, UNAUTHORIZED), bad)
        # x509 is tried first.
        ui, _ = self.whoami({"Authorization": "Bearer bobtok"}, cert="jane")
        self.assertEqual(ui["username"], "jane")
        # No CN: no opinion, so the token, else anonymous (O=system:masters counts for nothing).
        ui, _ = self.whoami(cert="nocn")
        self.assertEqual(ui["username"], "system:anonymous")
        ui, _ = self.whoami({"Authorization": "Bearer bobtok"}, cert="nocn")
        self.assertEqual(ui, {"username": "bob", "uid": "u-bob",
                              "groups": ["system:authenticated"]})
        # The UID attribute.
        ui, _ = self.whoami(cert="janeuid")
        self.assertEqual(ui["uid"], "u-cert")
        # The failures are logged for the operator, with the certificate's identifiers.
        self.assertIn("verifying certificate SN=", self.srv.log_tail(200000))

    def test_kubectl_with_a_rogue_certificate_is_unauthorized(self):
        p = self.kubectl("1.33", *self.cert_args("rogue"), "get", "pods", check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn("error: You must be logged in to the server (Unauthorized)", p.stderr)

    def test_admin_credentials_keep_working(self):
        doc = self.srv.kubectl_json("1.33", "auth", "whoami")
        self.assertEqual(doc["status"]["userInfo"]["username"], "kubernetes-admin")
        self.assertEqual(doc["status"]["userInfo"]["groups"],
                         ["svcplane:cluster-admins", "system:authenticated"])
        ui, _ = self.whoami({"Authorization": "Bearer admintok"})
        self.assertEqual(ui, {"username": "admin", "uid": "u-admin",
                              "groups": ["system:masters", "system:authenticated"]})

    def test_duplicate_token_last_wins(self):
        ui, _ = self.whoami({"Authorization": "Bearer dup"})
        self.assertEqual((ui["username"], ui["uid"]), ("second", "u-2"))
        self.assertIn("duplicate token has been found in token file", self.srv.log_tail(200000))

    def test_protobuf_self_subject_review(self):
        raw = ld(1, b"") + ld(2, ld(1, b""))  # metadata {}, status {userInfo {}}
        for path, version in ((SSR_V1, "v1"), (SSR_V1BETA1, "v1beta1")):
            body = envelope("authentication.k8s.io/" + version, "SelfSubjectReview", raw)
            crt_status, hdrs, out = self.request(
                "POST", path, {"Content-Type": PB, "Accept": PB + ",application/json"}, body,
                cert="jane")
            self.assertEqual(crt_status, 201, out)
            self.assertEqual(self.header(hdrs, "Content-Type"), [PB])
            api_version, kind, obj = unwrap(out)
            self.assertEqual((api_version, kind),
                             ("authentication.k8s.io/" + version, "SelfSubjectReview"))
            ui = user_info_from_proto(obj)
            self.assertEqual(ui["username"], "jane")
            self.assertEqual(ui["groups"], ["dev", "ops", "system:authenticated"])
            self.assertEqual(list(ui["extra"]), ["authentication.kubernetes.io/credential-id"])
        status, _, out = self.request("POST", SSR_V1, {"Content-Type": PB}, b"k8s\x00\xff",
                                      cert="jane")
        self.assertEqual(status, 400, out)
        status, _, _ = self.request("GET", SSR_V1, cert="jane")
        self.assertEqual(status, 405)

    def test_audit_id_is_echoed(self):
        for headers in ({"Audit-ID": "abc"}, {"Audit-ID": "abc", "Authorization": "Bearer nope"}):
            _, hdrs, _ = self.request("GET", "/version", headers)
            self.assertEqual(self.header(hdrs, "Audit-ID"), ["abc"])

    # --- discovery and the authorization review kinds ------------------------------------------

    def test_discovery_lists_the_review_kinds(self):
        out = self.srv.kubectl("1.33", "api-resources", "--api-group=authentication.k8s.io",
                               "-o", "wide").stdout
        self.assertIn("selfsubjectreviews", out)
        self.assertIn("SelfSubjectReview", out)
        status, _, body = self.request("GET", "/apis/authentication.k8s.io",
                                       {"Authorization": "Bearer admintok"})
        group = json.loads(body)
        self.assertEqual([v["version"] for v in group["versions"]], ["v1", "v1beta1"])
        self.assertEqual(group["preferredVersion"]["version"], "v1")
        for gv, name, kind in (("authentication.k8s.io/v1beta1", "selfsubjectreviews",
                                "SelfSubjectReview"),
                               ("authorization.k8s.io/v1", "selfsubjectaccessreviews",
                                "SelfSubjectAccessReview"),
                               ("authorization.k8s.io/v1", "selfsubjectrulesreviews",
                                "SelfSubjectRulesReview")):
            status, _, body = self.request("GET", "/apis/" + gv,
                                           {"Authorization": "Bearer admintok"})
            self.assertEqual(status, 200)
            res = [r for r in json.loads(body)["resources"] if r["name"] == name]
            self.assertEqual(len(res), 1, body)
            self.assertEqual((res[0]["kind"], res[0]["namespaced"], res[0]["verbs"]),
                             (kind, False, ["create"]))
        status, _, body = self.request("GET", "/openapi/v3", {"Authorization": "Bearer admintok"})
        paths = json.loads(body)["paths"]
        for p in ("apis/authentication.k8s.io/v1", "apis/authentication.k8s.io/v1beta1",
                  "apis/authorization.k8s.io/v1"):
            self.assertIn(p, paths)

    def test_access_review_validation(self):
        def ssar(spec, metadata=None):
            body = {"kind": "SelfSubjectAccessReview", "apiVersion": "authorization.k8s.io/v1",
                    "metadata": metadata or {"creationTimestamp": None}, "spec": spec,
                    "status": {"allowed": False}}
            return self.request("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
                                {"Authorization": "Bearer janetok",
                                 "Content-Type": "application/json"}, json.dumps(body))
        status, _, body = ssar({"resourceAttributes": {"verb": "list", "resource": "pods"},
                                "nonResourceAttributes": {"path": "/healthz", "verb": "get"}})
        self.assertEqual(status, 422)
        doc = json.loads(body)
        self.assertEqual(doc["reason"], "Invalid")
        self.assertIn("cannot be specified in combination with resourceAttributes",
                      doc["message"])
        self.assertTrue(doc["message"].startswith(
            'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: '
            "spec.nonResourceAttributes: Invalid value: "), doc["message"])
        status, _, body = ssar({})
        self.assertEqual(status, 422)
        self.assertIn("exactly one of nonResourceAttributes or resourceAttributes must be "
                      "specified", json.loads(body)["message"])
        status, _, body = ssar({"nonResourceAttributes": {"path": "/healthz", "verb": "get"}},
                               {"name": "x"})
        self.assertEqual(status, 422)
        self.assertIn("metadata: Invalid value: ", json.loads(body)["message"])
        self.assertIn("must be empty", json.loads(body)["message"])
        status, _, body = ssar({"resourceAttributes": {"namespace": "demo", "verb": "list",
                                                       "resource": "pods"}})
        self.assertEqual(status, 201, body)
        doc = json.loads(body)
        self.assertEqual(doc["spec"]["resourceAttributes"]["resource"], "pods")
        self.assertIs(doc["status"]["allowed"], True)

    def test_rules_review_needs_a_namespace(self):
        path = "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews"
        h = {"Authorization": "Bearer janetok", "Content-Type": "application/json"}
        body = {"kind": "SelfSubjectRulesReview", "apiVersion": "authorization.k8s.io/v1",
                "spec": {"namespace": ""}}
        status, _, out = self.request("POST", path, h, json.dumps(body))
        self.assertEqual(status, 400)
        self.assertEqual(json.loads(out)["message"], "no namespace on request")
        body["spec"]["namespace"] = "demo"
        status, _, out = self.request("POST", path, h, json.dumps(body))
        self.assertEqual(status, 201, out)
        doc = json.loads(out)
        self.assertEqual(doc["spec"], {})
        self.assertIn("resourceRules", doc["status"])
        self.assertIn("nonResourceRules", doc["status"])

    def test_kubectl_can_i_reaches_the_review_endpoints(self):
        # Without an authorizer the server answers as upstream's AlwaysAllow mode.
        for version in ("1.33", "1.27"):
            p = self.kubectl(version, "--token=janetok", "auth", "can-i", "list", "pods",
                             "-n", "demo")
            self.assertEqual(p.stdout.strip(), "yes")
            p = self.kubectl(version, "--token=janetok", "auth", "can-i", "--list", "-n", "demo")
            self.assertIn("*.*", p.stdout)


class AuthnStartupTest(unittest.TestCase):
    """Servers started with other flags (§7 items 3 and 10)."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="svcplane-authn-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def test_token_file_with_two_columns_stops_the_server(self):
        path = os.path.join(self.dir, "tokens.csv")
        with open(path, "w") as f:
            f.write("good,user,uid\nonly,two\n")
        srv = harness.Server(["--token-auth-file", path])
        try:
            with self.assertRaises(RuntimeError) as ctx:
                srv.start()
            self.assertIn("token file '%s' must have at least 3 columns (token, user name, user "
                          "uid), found 2" % path, str(ctx.exception))
            self.assertNotEqual(srv.proc.returncode, 0)
        finally:
            srv.cleanup()

    def test_anonymous_auth_false_answers_401_everywhere(self):
        srv = harness.Server(["--anonymous-auth=false"])
        try:
            srv.start()
            ctx = ssl.create_default_context()
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
            for path in ("/healthz", "/livez", "/readyz", "/api", "/version"):
                conn = http.client.HTTPSConnection("127.0.0.1", srv.port, context=ctx,
                                                   timeout=30)
                conn.request("GET", path, headers={"Audit-ID": "zz"})
                r = conn.getresponse()
                body = r.read().decode()
                conn.close()
                self.assertEqual((r.status, body), (401, UNAUTHORIZED), path)
                self.assertEqual(r.getheader("Audit-ID"), "zz")
            srv.kubectl("1.33", "get", "pods")  # the admin credential still works
        finally:
            srv.cleanup()


if __name__ == "__main__":
    unittest.main()
