"""Harness for integration tests: runs the real `svcplane serve` on 127.0.0.1 and real clients.

Every server started here is tracked and killed at exit (even when a test fails or raises),
and every temp data dir is removed. Timeouts are generous but bounded so a hang fails the
test instead of the whole ctest run.
"""

import atexit
import base64
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request

SVCPLANE = os.environ.get("SVCPLANE_BIN", "")
KUBECTL_DIR = "/usr/lib/google-cloud-sdk/bin"
START_TIMEOUT = 30.0
STOP_TIMEOUT = 30.0
KUBECTL_TIMEOUT = 60.0

_live = set()  # every Server with a running process
_live_etcds = set()  # every Etcd with a running process


def _kill_all():
    for srv in list(_live):
        srv.kill9()
    for etcd in list(_live_etcds):
        etcd.cleanup()


atexit.register(_kill_all)


def free_port():
    """A free loopback port: bind to port 0 and read it back (the kernel picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_free(host, port):
    """True if `port` can be bound on `host` now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
            return True
        except OSError:
            return False


def free_run(n, hosts=("127.0.0.1",)):
    """The first of `n` consecutive ports free on every host (several servers on 127.0.0.x
    share one port number; etcd members take consecutive ones)."""
    rnd = random.Random()
    for _ in range(500):
        base = rnd.randrange(20000, 60000)
        if all(port_free(h, base + k) for h in hosts for k in range(n)):
            return base
    raise RuntimeError("no run of %d free ports" % n)


def kubectl_path(version):
    return os.path.join(KUBECTL_DIR, "kubectl." + version)


ETCD = "/usr/bin/etcd"
# SVCPLANE_TEST_STORE=etcd runs every Server of a suite on its own real etcd (one member on free
# loopback ports) instead of the embedded store: the suites registered a second time with it
# show that clients see no difference.
TEST_STORE = os.environ.get("SVCPLANE_TEST_STORE", "embedded")


class Etcd:
    """One etcd member (Debian's etcd-server) on 127.0.0.1 with free ports and a temp data dir."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="svcplane-etcd-")
        self.client_port, self.peer_port = free_port(), free_port()
        self.url = "http://127.0.0.1:%d" % self.client_port
        peer = "http://127.0.0.1:%d" % self.peer_port
        self.log = open(os.path.join(self.dir, "etcd.log"), "wb")
        self.proc = subprocess.Popen(
            [ETCD, "--data-dir", os.path.join(self.dir, "data"), "--name", "default",
             "--listen-client-urls", self.url, "--advertise-client-urls", self.url,
             "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
             "--initial-cluster", "default=" + peer],
            stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        _live_etcds.add(self)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(self.url + "/health", timeout=1) as r:
                    if json.load(r).get("health") == "true":
                        return
            except OSError:
                pass
            if self.proc.poll() is not None:
                break
            time.sleep(0.1)
        self.cleanup()
        raise RuntimeError("etcd did not become healthy")

    def get(self, key):
        """The value etcd holds under `key` (bytes), or None, read through etcd's gateway."""
        body = json.dumps({"key": base64.b64encode(key.encode()).decode()}).encode()
        req = urllib.request.Request(self.url + "/v3/kv/range", data=body, method="POST")
        with urllib.request.urlopen(req, timeout=10) as r:
            kvs = json.load(r).get("kvs", [])
        return base64.b64decode(kvs[0]["value"]) if kvs else None

    def kv(self, key):
        """etcd's KeyValue for `key` as its gateway gives it (value and key base64), or None."""
        body = json.dumps({"key": base64.b64encode(key.encode()).decode()}).encode()
        req = urllib.request.Request(self.url + "/v3/kv/range", data=body, method="POST")
        with urllib.request.urlopen(req, timeout=10) as r:
            kvs = json.load(r).get("kvs", [])
        return kvs[0] if kvs else None

    def grant(self, ttl):
        """A new etcd lease of `ttl` seconds; returns its ID (a decimal string, as the gateway
        writes int64s)."""
        body = json.dumps({"TTL": ttl}).encode()
        req = urllib.request.Request(self.url + "/v3/lease/grant", data=body, method="POST")
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.load(r)["ID"]

    def put(self, key, value, lease=None):
        """Writes `value` (bytes) under `key` through etcd's gateway, as another writer would."""
        request = {"key": base64.b64encode(key.encode()).decode(),
                   "value": base64.b64encode(value).decode()}
        if lease is not None:
            request["lease"] = lease
        body = json.dumps(request).encode()
        req = urllib.request.Request(self.url + "/v3/kv/put", data=body, method="POST")
        with urllib.request.urlopen(req, timeout=10) as r:
            r.read()

    def compact(self):
        """Compacts etcd's history up to its current revision (as a compactor would)."""
        body = json.dumps({"key": base64.b64encode(b"/registry/health").decode()}).encode()
        req = urllib.request.Request(self.url + "/v3/kv/range", data=body, method="POST")
        with urllib.request.urlopen(req, timeout=10) as r:
            revision = int(json.load(r)["header"]["revision"])
        body = json.dumps({"revision": revision, "physical": True}).encode()
        req = urllib.request.Request(self.url + "/v3/kv/compaction", data=body, method="POST")
        with urllib.request.urlopen(req, timeout=10) as r:
            r.read()

    def cleanup(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        _live_etcds.discard(self)
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


class Server:
    """One `svcplane serve` on a temp data dir (kept across restarts until cleanup())."""

    def __init__(self, extra_args=(), data_dir=None):
        if not SVCPLANE:
            raise RuntimeError("set SVCPLANE_BIN to the svcplane binary")
        self.extra_args = list(extra_args)
        self.own_dir = data_dir is None
        self.data_dir = data_dir or tempfile.mkdtemp(prefix="svcplane-itest-")
        self.port = free_port()
        self.proc = None
        self.etcd = None  # SVCPLANE_TEST_STORE=etcd: this server's own etcd, kept across restarts
        self.log_path = os.path.join(self.data_dir, "server.log")
        self._log = None

    @property
    def kubeconfig(self):
        return os.path.join(self.data_dir, "kubeconfig")

    def spawn(self, port=None):
        """Starts the process without waiting for readiness; returns the Popen."""
        kc = self.kubeconfig
        if os.path.exists(kc):
            os.remove(kc)  # readiness is "the server wrote it again"
        if port is not None:
            self.port = port
        self._log = open(self.log_path, "ab")
        args = [SVCPLANE, "serve", "--data-dir", self.data_dir,
                "--listen", "127.0.0.1:%d" % self.port] + self.store_args() + self.extra_args
        self.proc = subprocess.Popen(args, stdout=self._log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL)
        _live.add(self)
        return self.proc

    def store_args(self):
        if TEST_STORE != "etcd" or "--store" in self.extra_args:
            return []
        if self.etcd is None:
            self.etcd = Etcd()
        # One server per etcd: no election to wait for after a restart (a killed server's
        # lease would hold the controllers back for 15 s), and no drain delay on SIGTERM.
        return ["--store", "etcd", "--etcd-servers", self.etcd.url, "--leader-elect=false",
                "--shutdown-delay-duration", "0s"]

    def start(self, timeout=START_TIMEOUT):
        for attempt in range(3):
            self.spawn()
            try:
                self.wait_ready(timeout)
                return self
            except PortTaken:
                # Another process grabbed our free port between bind(0) and serve: pick again.
                self.port = free_port()
        raise RuntimeError("could not start svcplane:\n" + self.log_tail())

    def wait_ready(self, timeout=START_TIMEOUT):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if os.path.exists(self.kubeconfig):
                return
            rc = self.proc.poll()
            if rc is not None:
                _live.discard(self)
                tail = self.log_tail()
                if "in use" in tail.lower() and "address" in tail.lower():
                    raise PortTaken()
                raise RuntimeError("svcplane exited with %d before ready:\n%s" % (rc, tail))
            time.sleep(0.05)
        self.kill9()
        raise RuntimeError("svcplane not ready after %.0fs:\n%s" % (timeout, self.log_tail()))

    def stop(self, timeout=STOP_TIMEOUT):
        """SIGTERM and wait; returns the exit code (kill -9 after the timeout)."""
        if self.proc is None or self.proc.poll() is not None:
            return None if self.proc is None else self.proc.returncode
        self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill9()
            raise RuntimeError("svcplane ignored SIGTERM for %.0fs" % timeout)
        _live.discard(self)
        return rc

    def kill9(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(STOP_TIMEOUT)
        _live.discard(self)

    def restart(self, hard=False):
        self.kill9() if hard else self.stop()
        return self.start()

    def cleanup(self):
        self.kill9()
        if self.etcd is not None:
            self.etcd.cleanup()
            self.etcd = None
        if self._log:
            self._log.close()
        if self.own_dir:
            shutil.rmtree(self.data_dir, ignore_errors=True)

    def forget_history(self):
        """On etcd, compacts it: a server on etcd serves watches older than its cache's history
        from etcd's own, so only a compaction there makes an old resourceVersion 410 Gone (on
        the embedded store, --watch-history-events alone does)."""
        if self.etcd is not None:
            self.etcd.compact()

    def died(self):
        """A note with the log tail if the server exited by itself, for failure messages."""
        if self.proc is not None and self.proc.poll() is not None and self in _live:
            return "\nSERVER EXITED (%d):\n%s" % (self.proc.returncode, self.log_tail())
        return ""

    def log_tail(self, n=4000):
        try:
            with open(self.log_path, "rb") as f:
                return f.read()[-n:].decode(errors="replace")
        except OSError:
            return ""

    # --- clients -------------------------------------------------------------------------

    def kubectl(self, version, *args, input=None, env=None, check=True, timeout=KUBECTL_TIMEOUT):
        """Runs kubectl.<version> --kubeconfig DIR/kubeconfig ARGS; returns CompletedProcess."""
        cmd = [kubectl_path(version), "--kubeconfig", self.kubeconfig] + list(args)
        full_env = dict(os.environ)
        full_env["HOME"] = self.data_dir  # no shared ~/.kube cache between runs
        full_env.pop("KUBECONFIG", None)
        if env:
            full_env.update(env)
        p = subprocess.run(cmd, input=input, capture_output=True, text=True, env=full_env,
                           timeout=timeout)
        if check and p.returncode != 0:
            raise AssertionError("%s failed (%d):\nstdout: %s\nstderr: %s%s"
                                 % (" ".join(cmd[0:1] + list(args)), p.returncode, p.stdout,
                                    p.stderr, self.died()))
        return p

    def kubectl_json(self, version, *args):
        return json.loads(self.kubectl(version, *args, "-o", "json").stdout)

    def api_client(self):
        from kubernetes import client, config
        cfg = client.Configuration()
        config.load_kube_config(config_file=self.kubeconfig, client_configuration=cfg)
        return client.ApiClient(cfg)


def bare_kubeconfig(srv, directory):
    """Writes, in `directory`, the server's CA (from its kubeconfig) and a kubeconfig with that
    cluster and no credentials, so that each kubectl call brings its own (--token, client
    certificate). Returns (ca_path, kubeconfig_path)."""
    import yaml
    with open(srv.kubeconfig) as f:
        cluster = yaml.safe_load(f)["clusters"][0]["cluster"]
    ca = os.path.join(directory, "server-ca.crt")
    with open(ca, "wb") as f:
        f.write(base64.b64decode(cluster["certificate-authority-data"]))
    path = os.path.join(directory, "bare.kubeconfig")
    with open(path, "w") as f:
        yaml.safe_dump({
            "apiVersion": "v1", "kind": "Config",
            "clusters": [{"name": "c", "cluster": {
                "server": cluster["server"], "certificate-authority": ca}}],
            "users": [{"name": "u", "user": {}}],
            "contexts": [{"name": "x", "context": {"cluster": "c", "user": "u"}}],
            "current-context": "x"}, f)
    return ca, path


def raw_request(api, method, path, body=None, accept="application/json", content_type=None,
                stream=False):
    """A request through the Python client's connection pool and credentials, with the body and
    headers as given (no model classes): for protobuf, watch streams and malformed bodies."""
    cfg = api.configuration
    headers = {"Accept": accept}
    if content_type:
        headers["Content-Type"] = content_type
    token = cfg.get_api_key_with_prefix("authorization")
    if token:
        headers["Authorization"] = token
    return api.rest_client.pool_manager.request(
        method, cfg.host + path, body=body, headers=headers, preload_content=not stream,
        timeout=30)


def start_with_client(extra_args=()):
    """A started Server and a Python-client ApiClient for it; the server is cleaned up if
    either fails, so a failing setUpClass leaves no process behind."""
    srv = Server(extra_args)
    try:
        srv.start()
        return srv, srv.api_client()
    except BaseException:
        srv.cleanup()
        raise


class PortTaken(Exception):
    pass
