"""Several svcplane servers on one etcd, behind HAProxy: examples/ha/start.sh as a user runs it.

3 etcd members (Debian etcd-server), 3 `svcplane serve --store etcd` joined with one --token,
and HAProxy (Debian haproxy) in front, all on loopback (servers on 127.0.0.2-4, advertising
TEST-NET addresses 192.0.2.11-13 that nothing dials). Driven with kubectl 1.33 and the Python
client through HAProxy and through each server directly. Checks spec etcd-backend-and-ha.md §4:
shared CA and credentials, the `kubernetes` endpoints list exactly the live servers, identity
leases, one controller leader, no duplicate ClusterIP or NodePort across servers, kill -9 of a
server behind the load balancer, SIGTERM hand-over.
"""

import concurrent.futures
import hashlib
import base64
import json
import os
import shutil
import signal
import struct
import subprocess
import tempfile
import time
import unittest

import yaml

import harness

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
START = os.path.join(ROOT, "examples", "ha", "start.sh")
STOP = os.path.join(ROOT, "examples", "ha", "stop.sh")
KUBECTL = harness.kubectl_path("1.33")
SERVER_IPS = ["192.0.2.11", "192.0.2.12", "192.0.2.13"]


def identity_lease_name(hostname):
    data = struct.pack(">H", len(hostname)) + hostname.encode()
    data += struct.pack(">H", len("kube-apiserver")) + b"kube-apiserver"
    digest = hashlib.sha256(data).digest()[:16]
    return "apiserver-" + base64.b32encode(digest).decode().rstrip("=").lower()


class HaClusterTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="svcplane-ha-")
        cls.env = dict(os.environ)
        cls.env.update({
            "SVCPLANE": harness.SVCPLANE,
            "HA_LB_PORT": str(harness.free_run(1)),
            "HA_SERVER_PORT": str(harness.free_run(1, ("127.0.0.2", "127.0.0.3", "127.0.0.4"))),
            "HA_ETCD_PORT": str(harness.free_run(6)),
            "HOME": cls.dir,
        })
        cls.env.pop("KUBECONFIG", None)
        try:
            p = subprocess.run(["bash", START, cls.dir], env=cls.env, capture_output=True,
                               text=True, timeout=240)
            if p.returncode != 0:
                raise AssertionError("start.sh failed:\n%s\n%s\n%s" % (p.stdout, p.stderr,
                                                                        cls.logs()))
            cls.kubeconfig = p.stdout.strip().splitlines()[-1]
        except BaseException:
            cls.stop_all()
            raise

    @classmethod
    def tearDownClass(cls):
        cls.stop_all()

    @classmethod
    def stop_all(cls):
        subprocess.run(["bash", STOP, cls.dir], timeout=120, capture_output=True)
        for pid in cls.pids().values():  # anything left, and restarted servers
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        shutil.rmtree(cls.dir, ignore_errors=True)

    @classmethod
    def pids(cls):
        out = {}
        try:
            with open(os.path.join(cls.dir, "pids")) as f:
                for line in f:
                    name, pid = line.split()
                    out[name] = int(pid)
        except OSError:
            pass
        return out

    @classmethod
    def set_pid(cls, name, pid):
        pids = cls.pids()
        pids[name] = pid
        with open(os.path.join(cls.dir, "pids"), "w") as f:
            for n, p in pids.items():
                f.write("%s %d\n" % (n, p))

    @classmethod
    def logs(cls):
        out = ""
        for name in ("server-1.log", "server-2.log", "server-3.log", "haproxy.log"):
            try:
                with open(os.path.join(cls.dir, name), "rb") as f:
                    out += "--- %s\n%s\n" % (name, f.read()[-3000:].decode(errors="replace"))
            except OSError:
                pass
        return out

    def kubectl(self, *args, kubeconfig=None, check=True, timeout=60):
        p = subprocess.run([KUBECTL, "--kubeconfig", kubeconfig or self.kubeconfig] + list(args),
                           capture_output=True, text=True, env=self.env, timeout=timeout)
        if check and p.returncode != 0:
            raise AssertionError("kubectl %s: %s%s\n%s" % (" ".join(args), p.stdout, p.stderr,
                                                           self.logs()))
        return p

    def kubectl_json(self, *args, kubeconfig=None):
        return json.loads(self.kubectl(*args, "-o", "json", kubeconfig=kubeconfig).stdout)

    def server_kubeconfig(self, i):
        return os.path.join(self.dir, "server-%d" % i, "kubeconfig")

    def endpoint_ips(self):
        ep = self.kubectl_json("get", "endpoints", "kubernetes", "-n", "default")
        return sorted(a["ip"] for s in ep.get("subsets") or [] for a in s.get("addresses") or [])

    def slice_ips(self):
        sl = self.kubectl_json("get", "endpointslice", "kubernetes", "-n", "default")
        return sorted(a for e in sl.get("endpoints") or [] for a in e["addresses"])

    def wait_for(self, what, fn, timeout):
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            try:
                last = fn()
                if last:
                    return last
            except (AssertionError, subprocess.TimeoutExpired) as e:
                last = e
            time.sleep(0.2)
        self.fail("timed out after %ss waiting for %s (last: %s)\n%s"
                  % (timeout, what, last, self.logs()))

    # --- one cluster, three servers --------------------------------------------------------

    def test_a_servers_share_ca_and_credentials_but_not_certificates(self):
        configs = []
        for i in (1, 2, 3):
            with open(self.server_kubeconfig(i)) as f:
                configs.append(yaml.safe_load(f))
        cas = {c["clusters"][0]["cluster"]["certificate-authority-data"] for c in configs}
        tokens = {c["users"][0]["user"]["token"] for c in configs}
        self.assertEqual(len(cas), 1)
        self.assertEqual(len(tokens), 1)
        # Each server's kubeconfig points at its own listen address, never the advertised one.
        servers = [c["clusters"][0]["cluster"]["server"] for c in configs]
        self.assertEqual(servers, ["https://127.0.0.%d:%s" % (i + 1, self.env["HA_SERVER_PORT"])
                                   for i in (1, 2, 3)])
        certs = set()
        for i in (1, 2, 3):
            with open(os.path.join(self.dir, "server-%d" % i, "pki", "apiserver.crt")) as f:
                certs.add(f.read())
        self.assertEqual(len(certs), 3)
        for i in (1, 2, 3):
            self.kubectl("get", "--raw", "/readyz", kubeconfig=self.server_kubeconfig(i))

    def test_b_kubernetes_endpoints_list_every_server(self):
        self.wait_for("3 servers in the kubernetes endpoints",
                      lambda: self.endpoint_ips() == SERVER_IPS, 30)
        self.wait_for("3 servers in the kubernetes slice",
                      lambda: self.slice_ips() == SERVER_IPS, 30)

    def test_c_identity_leases_count_the_servers(self):
        want = sorted(identity_lease_name("svcplane-%d" % i) for i in (1, 2, 3))

        def names():
            leases = self.kubectl_json("get", "leases", "-n", "kube-system", "-l",
                                       "apiserver.kubernetes.io/identity=kube-apiserver")
            return sorted(l["metadata"]["name"] for l in leases["items"]) == want
        self.wait_for("3 identity leases", names, 30)

    def test_d_one_controller_leader_whose_controllers_work(self):
        def holder():
            lease = self.kubectl_json("get", "lease", "svcplane-controller-manager",
                                      "-n", "kube-system")
            return lease["spec"].get("holderIdentity")
        self.assertTrue(self.wait_for("a controller leader", holder, 60))
        self.kubectl("create", "service", "clusterip", "ha-web", "--tcp=80:8080")
        # The slice controller skips Pods whose Node it cannot find, as upstream's does.
        node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "ha-node"}}
        pod = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": "ha-web-0", "labels": {"app": "ha-web"}},
               "spec": {"nodeName": "ha-node", "containers": [{"name": "c", "image": "x"}]}}
        for obj in (node, pod):
            p = subprocess.run([KUBECTL, "--kubeconfig", self.kubeconfig, "create", "-f", "-"],
                               input=json.dumps(obj), capture_output=True, text=True,
                               env=self.env, timeout=60)
            self.assertEqual(p.returncode, 0, p.stderr)
        status = {"status": {"podIP": "10.244.0.7", "podIPs": [{"ip": "10.244.0.7"}],
                             "phase": "Running",
                             "conditions": [{"type": "Ready", "status": "True"}]}}
        self.kubectl("patch", "pod", "ha-web-0", "--subresource=status", "--type=merge", "-p",
                     json.dumps(status))

        def sliced():
            slices = self.kubectl_json("get", "endpointslices", "-l",
                                       "kubernetes.io/service-name=ha-web")
            return [a for s in slices["items"] for e in s.get("endpoints") or []
                    for a in e["addresses"]] == ["10.244.0.7"]
        self.wait_for("the leader's EndpointSlice for ha-web", sliced, 30)

    def test_e_no_duplicate_cluster_ip_or_node_port_across_servers(self):
        def create(i, n):
            return self.kubectl("create", "service", "nodeport", "dup-%d-%d" % (i, n),
                                "--tcp=80:80", kubeconfig=self.server_kubeconfig(i))
        with concurrent.futures.ThreadPoolExecutor(max_workers=6) as pool:
            list(pool.map(lambda a: create(*a), [(i, n) for i in (1, 2, 3) for n in range(8)]))
        svcs = [s for s in self.kubectl_json("get", "services")["items"]
                if s["metadata"]["name"].startswith("dup-")]
        self.assertEqual(len(svcs), 24)
        ips = [s["spec"]["clusterIP"] for s in svcs]
        ports = [p["nodePort"] for s in svcs for p in s["spec"]["ports"]]
        self.assertEqual(len(set(ips)), 24, ips)
        self.assertEqual(len(set(ports)), 24, ports)

    # --- faults (last: they change the cluster) ---------------------------------------------

    def restart_argv(self, name):
        pid = self.pids()[name]
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return pid, [a.decode() for a in f.read().split(b"\0") if a]

    def respawn(self, name, argv):
        log = open(os.path.join(self.dir, name + ".log"), "ab")
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL)
        self.set_pid(name, proc.pid)
        return proc

    def test_w_svcplane_client_fails_over_between_servers_without_a_load_balancer(self):
        """`svcplane controllers --server S3 --server S2` (issue 21, spec §4.6 b): kill -9 of S3,
        the server it sticks to, and its informer resumes on S2 from its resourceVersion and its
        writes go to S2. S3 is restarted afterwards (the next tests kill S1 and S2)."""
        port = self.env["HA_SERVER_PORT"]
        s3, s2 = "https://127.0.0.4:%s" % port, "https://127.0.0.3:%s" % port
        lease = "failover-probe"
        # lease-holder-logger follows one Lease through the shared informer and records an
        # Event on every holder change: a watch and a create, both through the failover client.
        argv = [harness.SVCPLANE, "controllers", "--kubeconfig", self.server_kubeconfig(3),
                "--server", s3, "--server", s2, "--secure-port", "0", "--leader-elect=false",
                "--controllers", "lease-holder-logger",
                "--leader-elect-resource-name", lease]
        log_path = os.path.join(self.dir, "failover-controllers.log")
        with open(log_path, "ab") as log:
            proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL)

        def stop():
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)
        self.addCleanup(stop)

        def read_log():
            with open(log_path) as f:
                return f.read()

        def hold(holder):
            obj = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                   "metadata": {"name": lease, "namespace": "kube-system"},
                   "spec": {"holderIdentity": holder}}
            # Straight to S1, which stays up: what is under test is the other client.
            p = subprocess.run([KUBECTL, "--kubeconfig", self.server_kubeconfig(1), "apply",
                                "-f", "-"], input=json.dumps(obj), capture_output=True,
                               text=True, env=self.env, timeout=60)
            self.assertEqual(p.returncode, 0, p.stderr)

        def observed(holder):
            return ("lease-holder-logger: kube-system/%s held by %s" % (lease, holder)
                    in read_log())

        def event(holder):
            events = self.kubectl_json("get", "events", "-n", "kube-system",
                                       kubeconfig=self.server_kubeconfig(1))["items"]
            return any(e.get("reason") == "LeaseHolderObserved"
                       and e.get("message") == "lease held by " + holder for e in events)

        self.wait_for("controllers started", lambda: "all controllers started" in read_log(), 30)
        hold("before")
        self.wait_for("the holder seen through S3", lambda: observed("before"), 15)
        self.wait_for("the Event written through S3", lambda: event("before"), 15)
        self.assertNotIn("switching to", read_log())

        pid, server_argv = self.restart_argv("server-3")
        os.kill(pid, signal.SIGKILL)
        killed = time.monotonic()
        try:
            hold("after")
            self.wait_for("the holder seen through S2", lambda: observed("after"), 15)
            print("\nkill -9 of the server a --server client used: its informer saw the next "
                  "change %.2f s later" % (time.monotonic() - killed))
            self.wait_for("the Event written through S2", lambda: event("after"), 15)
            text = read_log()
            self.assertIn("client: API server %s failed (" % s3, text)
            self.assertIn("switching to %s" % s2, text)
            self.assertNotIn("relisting", text)  # S2 had the resourceVersion: a plain re-watch
            self.assertIsNone(proc.poll(), text)
        finally:
            self.respawn("server-3", server_argv)
            self.wait_for("server-3 ready again", lambda: self.kubectl(
                "get", "--raw", "/readyz", kubeconfig=self.server_kubeconfig(3), check=False,
                timeout=10).returncode == 0, 60)

    def test_x_kill9_of_a_server_behind_haproxy(self):
        pid, argv = self.restart_argv("server-1")
        os.kill(pid, signal.SIGKILL)
        killed = time.monotonic()
        # kubectl and the Python client work again through HAProxy within 3 s.
        self.wait_for("kubectl through HAProxy",
                      lambda: self.kubectl("get", "namespaces", check=False,
                                           timeout=10).returncode == 0, 10)
        kubectl_back = time.monotonic() - killed
        from kubernetes import client, config
        cfg = client.Configuration()
        config.load_kube_config(config_file=self.kubeconfig, client_configuration=cfg)
        api = client.CoreV1Api(client.ApiClient(cfg))
        self.wait_for("the Python client through HAProxy",
                      lambda: api.list_namespace(_request_timeout=5).items, 10)
        python_back = time.monotonic() - killed
        print("\nkill -9 of a server: kubectl back after %.2f s, Python client after %.2f s"
              % (kubectl_back, python_back))
        self.assertLess(kubectl_back, 3.0)
        self.assertLess(python_back, 3.0)
        # Its address leaves the kubernetes endpoints when its master lease expires (15 s TTL
        # + 10 s interval, spec §4.2).
        self.wait_for("192.0.2.11 gone from the endpoints",
                      lambda: self.endpoint_ips() == SERVER_IPS[1:], 45)
        print("kill -9 of a server: its address left the endpoints after %.1f s"
              % (time.monotonic() - killed))
        # Restarted, it rejoins with the same data folder and the shared secrets.
        self.respawn("server-1", argv)
        self.wait_for("192.0.2.11 back in the endpoints",
                      lambda: self.endpoint_ips() == SERVER_IPS, 60)

    def test_y_sigterm_hands_over(self):
        pid, _ = self.restart_argv("server-2")
        os.kill(pid, signal.SIGTERM)
        stopped = time.monotonic()
        # Its address leaves the endpoints at once (not after the lease TTL).
        self.wait_for("192.0.2.12 gone from the endpoints",
                      lambda: self.endpoint_ips() == [SERVER_IPS[0], SERVER_IPS[2]], 10)
        gone_after = time.monotonic() - stopped
        # Clients through HAProxy never notice.
        for _ in range(10):
            self.kubectl("get", "namespaces")
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                os.kill(pid, 0)
            except OSError:
                break
            time.sleep(0.1)
        else:
            self.fail("server-2 did not exit within 30 s of SIGTERM\n" + self.logs())
        print("\nSIGTERM: address left the endpoints after %.1f s, process exited after %.1f s"
              % (gone_after, time.monotonic() - stopped))
        with open(os.path.join(self.dir, "server-2.log")) as f:
            self.assertIn("received SIGTERM", f.read())
        # Whoever led, a leader holds the controllers' lease afterwards.
        def leader():
            return self.kubectl_json("get", "lease", "svcplane-controller-manager", "-n",
                                     "kube-system")["spec"].get("holderIdentity")
        self.assertTrue(self.wait_for("a controller leader after SIGTERM", leader, 30))


if __name__ == "__main__":
    unittest.main()
