"""`svcplane controllers` against the real `svcplane serve`: leader election between two
processes (one leads, the other stays standby; kill -9 of the leader hands over within the lease
duration plus one retry), /livez /readyz /healthz /metrics over HTTPS on --secure-port (a
self-signed certificate made in memory, or --tls-cert-file), the deprecated plain-HTTP --port,
clean release on SIGTERM, flags.

Every controllers process started here is tracked and killed at exit, like the servers.
"""

import atexit
import http.client
import os
import re
import signal
import ssl
import subprocess
import tempfile
import time
import unittest
import urllib.error
import urllib.request

from cryptography import x509
from cryptography.x509.oid import NameOID
from kubernetes import client

import harness

LEASE_NS = "kube-system"
LEASE_NAME = "svcplane-controller-manager"
# Short timings so the suite stays fast; kcm's defaults are 15s/10s/2s.
LEASE_DURATION = 3.0
RENEW_DEADLINE = 2.0
RETRY_PERIOD = 0.5
ELECTION_FLAGS = [
    "--leader-elect-lease-duration", "%gs" % LEASE_DURATION,
    "--leader-elect-renew-deadline", "%gs" % RENEW_DEADLINE,
    "--leader-elect-retry-period", "%gs" % RETRY_PERIOD,
]

_procs = set()


def _kill_all():
    for p in list(_procs):
        if p.poll() is None:
            p.kill()
            p.wait(10)


atexit.register(_kill_all)


def _unverified():
    """What a kubelet probe or `curl -k` does: TLS without checking the certificate."""
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    return ctx


class Controllers:
    """One `svcplane controllers` process with its own HTTPS health port and log file."""

    def __init__(self, srv, extra_args=(), name="c", ssl_context=None):
        self.port = harness.free_port()
        self.ssl_context = ssl_context or _unverified()
        self.log_path = os.path.join(srv.data_dir, "%s-%d.log" % (name, self.port))
        self._log = open(self.log_path, "ab")
        args = [harness.SVCPLANE, "controllers", "--kubeconfig", srv.kubeconfig,
                "--secure-port", str(self.port)] + list(extra_args)
        self.proc = subprocess.Popen(args, stdout=self._log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL)
        _procs.add(self.proc)

    def log(self):
        with open(self.log_path, "rb") as f:
            return f.read().decode(errors="replace")

    def identity(self, timeout=20):
        """The leader election identity the process logged at start ("<host>_<uuid>")."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            m = re.search(r"controller manager (\S+) starting", self.log())
            if m:
                return m.group(1)
            if self.proc.poll() is not None:
                raise AssertionError("controllers exited (%d):\n%s"
                                     % (self.proc.returncode, self.log()))
            time.sleep(0.05)
        raise AssertionError("no identity logged:\n" + self.log())

    def get(self, path, url=None):
        """(status, body) of GET https://127.0.0.1:port/path (or of `url`)."""
        try:
            with urllib.request.urlopen(url or "https://127.0.0.1:%d%s" % (self.port, path),
                                        timeout=10, context=self.ssl_context) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()

    def wait_http(self, timeout=20):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                return self.get("/livez")
            except (urllib.error.URLError, ConnectionError):
                if self.proc.poll() is not None:
                    raise AssertionError("controllers exited (%d):\n%s"
                                         % (self.proc.returncode, self.log()))
                time.sleep(0.05)
        raise AssertionError("health endpoint never answered:\n" + self.log())

    def served_certificate(self):
        """The certificate the HTTPS port presents, parsed."""
        pem = ssl.get_server_certificate(("127.0.0.1", self.port), timeout=10)
        return x509.load_pem_x509_certificate(pem.encode())

    def master_status(self):
        _, body = self.get("/metrics")
        m = re.search(r'leader_election_master_status\{name="%s"\} (\d+)' % LEASE_NAME, body)
        return int(m.group(1)) if m else None

    def stop(self, timeout=30):
        self.proc.send_signal(signal.SIGTERM)
        rc = self.proc.wait(timeout)
        _procs.discard(self.proc)
        return rc

    def kill9(self):
        self.proc.kill()
        self.proc.wait(10)
        _procs.discard(self.proc)

    def cleanup(self):
        if self.proc.poll() is None:
            self.kill9()
        self._log.close()


class ControllersTest(unittest.TestCase):
    def setUp(self):
        self.srv = harness.Server()
        self.addCleanup(self.srv.cleanup)
        self.srv.start()
        api = self.srv.api_client()
        self.addCleanup(api.close)
        self.coord = client.CoordinationV1Api(api)
        self.core = client.CoreV1Api(api)

    def start(self, *extra, name="c", ssl_context=None):
        c = Controllers(self.srv, extra, name, ssl_context)
        self.addCleanup(c.cleanup)
        return c

    def lease(self):
        try:
            return self.coord.read_namespaced_lease(LEASE_NAME, LEASE_NS)
        except client.exceptions.ApiException as e:
            if e.status == 404:
                return None
            raise

    def holder(self):
        lease = self.lease()
        return lease.spec.holder_identity if lease else None

    def wait_holder(self, identity, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.holder() == identity:
                return
            time.sleep(0.05)
        self.fail("lease holder is %r, not %r after %.1fs" % (self.holder(), identity, timeout))

    def test_one_leads_the_other_follows_and_takes_over_after_kill9(self):
        args = ELECTION_FLAGS + ["--controllers", "*,lease-holder-logger"]
        a = self.start(*args, name="a")
        a_id = a.identity()
        self.wait_holder(a_id, 20)
        b = self.start(*args, name="b")
        b_id = b.identity()
        self.assertNotEqual(a_id, b_id)
        b.wait_http()

        # B stays standby for well over a lease duration while A renews.
        time.sleep(2 * LEASE_DURATION)
        lease = self.lease()
        self.assertEqual(lease.spec.holder_identity, a_id)
        self.assertEqual(lease.spec.lease_duration_seconds, int(LEASE_DURATION))
        transitions = lease.spec.lease_transitions or 0
        self.assertEqual(a.master_status(), 1)
        self.assertEqual(b.master_status(), 0)
        for c in (a, b):
            for path in ("/livez", "/readyz", "/healthz"):
                self.assertEqual(c.get(path), (200, "ok"), path)
        status, body = b.get("/readyz?verbose")
        self.assertIn("[+]leaderElection ok", body)
        self.assertIn("lease-holder-logger: %s/%s held by %s" % (LEASE_NS, LEASE_NAME, a_id),
                      a.log())
        self.assertNotIn("starting lease-holder-logger", b.log())

        # kill -9: no release; B must wait out the lease it last saw renewed.
        a.kill9()
        killed = time.monotonic()
        self.wait_holder(b_id, 30)
        takeover = time.monotonic() - killed
        print("\ntakeover after kill -9: %.2fs (lease %.1fs, retry %.1fs)"
              % (takeover, LEASE_DURATION, RETRY_PERIOD))
        # Bound: the lease duration plus one jittered retry (2.2 x retry), plus scheduling slack
        # on a loaded 2-core machine.
        self.assertLessEqual(takeover, LEASE_DURATION + 2.2 * RETRY_PERIOD + 2.0)
        lease = self.lease()
        self.assertEqual(lease.spec.lease_transitions, transitions + 1)
        deadline = time.monotonic() + 10
        while b.master_status() != 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertEqual(b.master_status(), 1)
        self.assertEqual(b.get("/livez"), (200, "ok"))

        # The LeaderElection events are real core/v1 Events on the Lease.
        deadline = time.monotonic() + 10
        messages = set()
        while time.monotonic() < deadline:
            events = self.core.list_namespaced_event(LEASE_NS).items
            messages = {e.message for e in events if e.reason == "LeaderElection"}
            if "%s became leader" % b_id in messages:
                break
            time.sleep(0.1)
        self.assertIn("%s became leader" % a_id, messages)
        self.assertIn("%s became leader" % b_id, messages)

        # A clean stop releases the lease at once.
        self.assertEqual(b.stop(), 0)
        lease = self.lease()
        self.assertEqual(lease.spec.holder_identity or "", "")
        self.assertEqual(lease.spec.lease_duration_seconds, 1)

    def test_released_lease_is_taken_at_the_next_retry(self):
        a = self.start(*ELECTION_FLAGS, name="a")
        a_id = a.identity()
        self.wait_holder(a_id, 20)
        b = self.start(*ELECTION_FLAGS, name="b")
        b_id = b.identity()
        time.sleep(1)
        self.assertEqual(a.stop(), 0)
        stopped = time.monotonic()
        self.wait_holder(b_id, 20)
        # No waiting out the lease: the released record is free immediately.
        self.assertLess(time.monotonic() - stopped, LEASE_DURATION)

    def test_leader_exits_when_it_cannot_renew(self):
        a = self.start(*ELECTION_FLAGS, name="a")
        self.wait_holder(a.identity(), 20)
        self.srv.kill9()  # the API server is gone: renewals fail
        killed = time.monotonic()
        rc = a.proc.wait(30)
        gave_up = time.monotonic() - killed
        self.assertEqual(rc, 1, a.log())
        self.assertIn("leaderelection lost", a.log())
        # Leadership ends once renewing has failed for the renew deadline (plus the retry in
        # flight and the connection timeouts of a dead server).
        self.assertLessEqual(gave_up, RENEW_DEADLINE + 2 * RETRY_PERIOD + 5.0)

    def test_without_leader_election_no_lease_is_taken(self):
        c = self.start("--leader-elect=false", "--controllers", "lease-holder-logger")
        c.identity()
        self.assertEqual(c.wait_http(), (200, "ok"))
        deadline = time.monotonic() + 10
        while "all controllers started" not in c.log() and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertIn("starting lease-holder-logger", c.log())
        self.assertIsNone(self.lease())
        self.assertEqual(c.get("/readyz"), (200, "ok"))
        self.assertEqual(c.stop(), 0)

    def test_kube_api_content_type_json_and_protobuf(self):
        # Leader election reads and writes the Lease in either encoding (protobuf is the
        # default, as kube-controller-manager's).
        for ct in ("application/json", "application/vnd.kubernetes.protobuf"):
            c = self.start("--kube-api-content-type", ct, *ELECTION_FLAGS,
                           name=ct.rsplit("/", 1)[1])
            self.wait_holder(c.identity(), 20)
            self.assertEqual(c.wait_http(), (200, "ok"))
            self.assertEqual(c.stop(), 0)
        bad = self.start("--kube-api-content-type", "application/yaml", name="bad")
        self.assertNotEqual(bad.proc.wait(30), 0)
        self.assertIn("--kube-api-content-type", bad.log())

    def test_health_is_https_with_a_self_signed_certificate_and_port_is_plain_http(self):
        insecure = harness.free_port()
        c = self.start("--leader-elect=false", "--port", str(insecure))
        self.assertEqual(c.wait_http(), (200, "ok"))
        # As kube-controller-manager without --tls-cert-file: "localhost@<unix time>", signed by
        # an in-memory "localhost-ca@<unix time>", valid for localhost and 127.0.0.1.
        cert = c.served_certificate()
        cn = cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)[0].value
        issuer = cert.issuer.get_attributes_for_oid(NameOID.COMMON_NAME)[0].value
        self.assertRegex(cn, r"^localhost@\d+$")
        self.assertEqual(issuer, cn.replace("@", "-ca@"))
        sans = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
        self.assertIn("localhost", sans.get_values_for_type(x509.DNSName))
        self.assertIn("127.0.0.1", [str(ip) for ip in sans.get_values_for_type(x509.IPAddress)])
        # A client that verifies refuses it (nobody's CA signed it).
        with self.assertRaises(urllib.error.URLError):
            urllib.request.urlopen("https://127.0.0.1:%d/livez" % c.port, timeout=10)
        # Plain HTTP on the secure port gets no answer.
        with self.assertRaises((urllib.error.URLError, ConnectionError,
                                http.client.HTTPException)):
            urllib.request.urlopen("http://127.0.0.1:%d/livez" % c.port, timeout=10)
        # The deprecated insecure --port serves the same answers without TLS.
        self.assertEqual(c.get(None, "http://127.0.0.1:%d/livez" % insecure), (200, "ok"))
        status, body = c.get(None, "http://127.0.0.1:%d/metrics" % insecure)
        self.assertEqual(status, 200)
        self.assertIn("# TYPE workqueue_adds_total counter", body)
        self.assertIn("--port is deprecated", c.log())
        self.assertEqual(c.stop(), 0)

    def test_tls_cert_file_is_served_and_verifies(self):
        d = tempfile.mkdtemp(dir=self.srv.data_dir)
        crt, key = os.path.join(d, "tls.crt"), os.path.join(d, "tls.key")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                        "ec_paramgen_curve:P-256", "-nodes", "-keyout", key, "-out", crt,
                        "-days", "1", "-subj", "/CN=kcm-test",
                        "-addext", "subjectAltName=IP:127.0.0.1"],
                       check=True, capture_output=True)
        verified = ssl.create_default_context(cafile=crt)
        c = self.start("--leader-elect=false", "--tls-cert-file", crt,
                       "--tls-private-key-file", key, ssl_context=verified)
        self.assertEqual(c.wait_http(), (200, "ok"))
        cn = c.served_certificate().subject.get_attributes_for_oid(NameOID.COMMON_NAME)[0].value
        self.assertEqual(cn, "kcm-test")
        self.assertEqual(c.stop(), 0)

    def test_kube_controller_manager_names_since_1_28_are_accepted(self):
        c = self.start("--leader-elect=false", "--controllers",
                       "endpoints-controller,endpointslice-mirroring-controller")
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and "all controllers started" not in c.log():
            time.sleep(0.1)
        self.assertIn("starting endpoint-controller", c.log())
        self.assertIn("starting endpointslicemirroring-controller", c.log())
        self.assertNotIn("starting endpointslice-controller", c.log())
        self.assertEqual(c.stop(), 0)

    def test_bad_flags_are_refused(self):
        for args, text in [
            (["--tls-cert-file", self.srv.kubeconfig],
             "--tls-cert-file and --tls-private-key-file must be given together"),
            (["--controllers", "*,-nope"], '"nope" is not in the list of known controllers'),
            (["--leader-elect-lease-duration", "2s"],
             "--leader-elect-lease-duration must be greater than --leader-elect-renew-deadline"),
            (["--leader-elect-retry-period", "2"], "missing unit"),
        ]:
            c = self.start(*args)
            rc = c.proc.wait(30)
            self.assertEqual(rc, 2, c.log())
            self.assertIn(text, c.log())


class ServerFlagTest(unittest.TestCase):
    """--server URL, repeated or comma-separated, replaces the kubeconfig's server (whose CA and
    token stay) with several servers of one HA cluster: the client fails over between them
    (issue 21). Only one real server can run on one data dir, so the first URL is down."""

    DOWN = "https://127.0.0.1:1"  # nothing listens on port 1: connection refused

    def test_controllers_work_when_the_first_server_is_down(self):
        # The in-process EndpointSlice controller is off: the slices come from the process
        # under test.
        srv = harness.Server(["--controllers", "*,-endpointslice-controller"])
        self.addCleanup(srv.cleanup)
        srv.start()
        api = srv.api_client()
        self.addCleanup(api.close)
        core = client.CoreV1Api(api)
        discovery = client.DiscoveryV1Api(api)
        core.create_node(client.V1Node(metadata=client.V1ObjectMeta(name="node-a")))
        live = "https://127.0.0.1:%d" % srv.port
        for i, flags in enumerate((["--server", self.DOWN, "--server", live],
                                   ["--server", "%s,%s" % (self.DOWN, live)])):
            c = Controllers(srv, ["--leader-elect=false", "--controllers",
                                  "endpointslice-controller"] + flags, name="failover%d" % i)
            self.addCleanup(c.cleanup)
            name = "web%d" % i
            ip = "10.0.0.%d" % (i + 1)
            core.create_namespaced_service("default", client.V1Service(
                metadata=client.V1ObjectMeta(name=name),
                spec=client.V1ServiceSpec(selector={"app": name}, ports=[
                    client.V1ServicePort(name="http", port=80, target_port=8080)])))
            core.create_namespaced_pod("default", client.V1Pod(
                metadata=client.V1ObjectMeta(name=name, labels={"app": name}),
                spec=client.V1PodSpec(node_name="node-a", containers=[
                    client.V1Container(name="c", image="nginx:1.25")])))
            pod = core.read_namespaced_pod(name, "default")
            pod.status = client.V1PodStatus(
                phase="Running", pod_ip=ip, pod_i_ps=[client.V1PodIP(ip=ip)],
                conditions=[client.V1PodCondition(type="Ready", status="True")])
            core.replace_namespaced_pod_status(name, "default", pod)

            addresses = []
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline and addresses != [ip]:
                slices = discovery.list_namespaced_endpoint_slice(
                    "default", label_selector="kubernetes.io/service-name=" + name).items
                addresses = [a for s in slices for e in (s.endpoints or []) for a in e.addresses]
                time.sleep(0.1)
            self.assertEqual(addresses, [ip], c.log())
            log = c.log()
            self.assertIn("client: API server %s failed (dial tcp 127.0.0.1:1: Connection "
                          "refused); switching to %s" % (self.DOWN, live), log)
            self.assertEqual(c.get("/readyz"), (200, "ok"))
            self.assertEqual(c.stop(), 0)

    def test_bad_server_urls_are_refused(self):
        srv = harness.Server()
        self.addCleanup(srv.cleanup)
        srv.start()
        c = Controllers(srv, ["--server", "ftp://x"], name="bad")
        self.addCleanup(c.cleanup)
        self.assertEqual(c.proc.wait(30), 1)
        self.assertIn('--server "ftp://x": want http(s)://host[:port][/path]', c.log())


if __name__ == "__main__":
    unittest.main()
