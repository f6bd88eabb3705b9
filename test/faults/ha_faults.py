#!/usr/bin/python3
"""Seeded fault harness for HA svcplane (issue 21; spec etcd-backend-and-ha.md §5.4, §5.5).

Starts examples/ha/start.sh (3 etcd members, 3 `svcplane serve --store etcd` on 127.0.0.2-4
advertising 192.0.2.11-13, HAProxy on 127.0.0.1), runs a recorded workload, injects one fault at
a time chosen by a seed, quiesces, then checks the §5.5 invariants that are practical here and
writes a report to stdout and to a file.

Workload (all in namespace `faults`, unique names, nothing retried):
  * N writers (SVCPLANE_FAULTS_WRITERS, 4) through HAProxy: create / update (PUT with the last
    acked resourceVersion) / delete of ClusterIP and NodePort Services and of Pods. Every
    operation is logged with its result: `ok` (with RV and uid), `failed` (a definite 4xx Status:
    the write was not applied) or `unknown` (timeout, connection reset, 5xx/429: it may or may
    not have been applied). After an `unknown` the writer never touches that object again.
    Total write rate SVCPLANE_FAULTS_RATE (default 25/s, capped at 200/s: with the reader's
    LISTs the long form stays near spec §5.4's bound of 20 k requests).
  * 4 informers (Services via server-1 and server-2 directly, Pods via server-3 and HAProxy):
    LIST then WATCH (bookmarks on) resuming from the last RV, relisting on 410.
  * 1 consistent reader: LIST Services and Pods through HAProxy with RV unset.
  * a Lease sampler (kube-system/svcplane-controller-manager every 0.5 s).

Faults (one at a time, a gap of 10-20 s between them, order and victims from the seed):
  etcd-kill   kill -9 of an etcd member (the leader with p=0.5), restart after 5 s, same argv
  etcd-stop   SIGSTOP of an etcd member for 8 s
  server-kill kill -9 of a svcplane server (the controller leader with p=0.5), restart, same argv
  server-stop SIGSTOP of a server for 20 s
  quorum-loss SIGSTOP of 2 etcd members for 10 s

Invariants (spec §5.5 numbering, reduced to what is practical on one 2-core machine):
  1 no lost acked write: final state by LIST through HAProxy and by a raw etcd range (keys +
    mod_revision) agree with the last acked write per key; nothing exists that was never
    (possibly) created
  2 consistent reads contain every write acked before they started; LIST RVs non-decreasing
    per reader and not below any RV acked before the LIST started
  3 informer event RVs never go backwards without a relist; final caches equal the final state
  4 no two Services share a ClusterIP or a (protocol, nodePort), in the final state and in
    every consistent read
  5 `kubernetes` Endpoints and EndpointSlice list exactly the live servers within 45 s after the
    last fault
  6 after kill -9 of the controller leader a new holder appears within 20 s + 10 s slack
  7 writes succeed again within ~3 s after an etcd member's death: measured and reported,
    not asserted (the machine is shared and loaded; spec: latency asserts only in quiet phases)

Not covered (yet): spec §5.4's "restart of all etcd members" and full-disk faults; Leases and
the 20x10 Ready-flipping Pods in the workload; §5.5 (3)'s comparison with a harness-owned etcd
watch from revision 1 (approximated: every acked create/update must reach each informer as an
event with exactly its RV unless a relist covered it); (4)'s bitmap-equals-set-in-use check; (5)
per server death (only after the last fault); (6) "at most one holder at any revision" beyond
0.5 s sampling; (8) compaction (compact_rev_key's version is only reported).

Run:
  short (CI, ctest -R faults_ha_short): 60 s of faults, seed 30 (kill -9 of the etcd leader,
  kill -9 of the controller leader, then quorum loss; about 3 minutes in all)
      SVCPLANE_BIN=build/bin/svcplane /usr/bin/python3 test/faults/ha_faults.py
  long:
      SVCPLANE_FAULTS_SECONDS=600 SVCPLANE_FAULTS_SEED=7 SVCPLANE_BIN=build/bin/svcplane \
          /usr/bin/python3 test/faults/ha_faults.py
Other environment: SVCPLANE_FAULTS_REPORT (report file; default $TMPDIR/svcplane-faults-
report-<seed>.txt), SVCPLANE_FAULTS_KEEP=1 (keep the cluster folder with logs),
SVCPLANE_FAULTS_RATE, SVCPLANE_FAULTS_WRITERS. Exit status 0 iff invariants 1-6 hold.
"""

import atexit
import base64
import bisect
import collections
import json
import os
import random
import shutil
import signal
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.request

import urllib3
from kubernetes import client, config

urllib3.disable_warnings()

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "test", "integration"))
import harness  # noqa: E402  (free_run, shared with the integration tests)
START = os.path.join(ROOT, "examples", "ha", "start.sh")
STOP = os.path.join(ROOT, "examples", "ha", "stop.sh")
SERVER_IPS = ["192.0.2.11", "192.0.2.12", "192.0.2.13"]
NS = "faults"
LEASE_NS, LEASE_NAME = "kube-system", "svcplane-controller-manager"

SECONDS = float(os.environ.get("SVCPLANE_FAULTS_SECONDS", "60"))
SEED = int(os.environ.get("SVCPLANE_FAULTS_SEED", "30"))
# The final state is taken once two LISTs SETTLE_QUIET seconds apart agree (at most SETTLE_MAX).
SETTLE_QUIET = 3.0
SETTLE_MAX = 70.0
RATE = min(200.0, float(os.environ.get("SVCPLANE_FAULTS_RATE", "25")))
WRITERS = int(os.environ.get("SVCPLANE_FAULTS_WRITERS", "4"))
SVCPLANE = os.environ.get("SVCPLANE_BIN") or os.environ.get("SVCPLANE") or os.path.join(
    ROOT, "build", "bin", "svcplane")
REPORT = os.environ.get("SVCPLANE_FAULTS_REPORT") or os.path.join(
    tempfile.gettempdir(), "svcplane-faults-report-%d.txt" % SEED)

T0 = time.monotonic()


def now():
    return time.monotonic() - T0


def log(msg):
    print("[%7.2f] %s" % (now(), msg), flush=True)


# --- the cluster ----------------------------------------------------------------------------

class Cluster:
    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="svcplane-faults-")
        self.env = dict(os.environ)
        self.lb_port = harness.free_run(1)
        self.server_port = harness.free_run(1, ("127.0.0.2", "127.0.0.3", "127.0.0.4"))
        self.etcd_port = harness.free_run(6)
        self.env.update({
            "SVCPLANE": SVCPLANE,
            "HA_LB_PORT": str(self.lb_port),
            "HA_SERVER_PORT": str(self.server_port),
            "HA_ETCD_PORT": str(self.etcd_port),
            "HA_SERVER_ARGS": "--etcd-compaction-interval=30s",
            "HOME": self.dir,
        })
        self.env.pop("KUBECONFIG", None)
        self.kubeconfig = None
        self.spawned = []  # every pid this harness started (for the final kill -9)
        self.lock = threading.Lock()
        self.stopped = False
        atexit.register(self.stop)

    def start(self):
        p = subprocess.run(["bash", START, self.dir], env=self.env, capture_output=True,
                           text=True, timeout=300)
        self.spawned += list(self.pids().values())
        if p.returncode != 0:
            raise RuntimeError("start.sh failed:\n%s\n%s" % (p.stdout, p.stderr))
        self.kubeconfig = p.stdout.strip().splitlines()[-1]

    def stop(self):
        if self.stopped:
            return
        self.stopped = True
        for pid in self.spawned + list(self.pids().values()):  # wake anything stopped
            try:
                os.kill(pid, signal.SIGCONT)
            except OSError:
                pass
        try:
            subprocess.run(["bash", STOP, self.dir], timeout=120, capture_output=True)
        except Exception as e:  # noqa: BLE001 - cleanup must go on
            log("stop.sh: %s" % e)
        for pid in set(self.spawned) | set(self.pids().values()):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        if os.environ.get("SVCPLANE_FAULTS_KEEP") == "1":
            log("cluster folder kept: %s" % self.dir)
        else:
            shutil.rmtree(self.dir, ignore_errors=True)

    def pids(self):
        out = {}
        try:
            with open(os.path.join(self.dir, "pids")) as f:
                for line in f:
                    if line.strip():
                        name, pid = line.split()
                        out[name] = int(pid)
        except OSError:
            pass
        return out

    def set_pid(self, name, pid):
        with self.lock:
            pids = self.pids()
            pids[name] = pid
            with open(os.path.join(self.dir, "pids"), "w") as f:
                for n, p in pids.items():
                    f.write("%s %d\n" % (n, p))

    def argv(self, name):
        pid = self.pids()[name]
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return pid, [a.decode() for a in f.read().split(b"\0") if a]

    def respawn(self, name, argv):
        logf = open(os.path.join(self.dir, name + ".log"), "ab")
        proc = subprocess.Popen(argv, stdout=logf, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, env=self.env)
        logf.close()
        # Reap it when it exits: stop.sh's `kill -0` sees a zombie child as alive and would wait
        # its full 30 s for every respawned process.
        threading.Thread(target=proc.wait, daemon=True).start()
        self.spawned.append(proc.pid)
        self.set_pid(name, proc.pid)
        return proc

    def etcd_client(self, i):  # i in 1..3
        return "http://127.0.0.1:%d" % (self.etcd_port + 2 * i - 2)

    def etcd_post(self, i, path, body, timeout=3):
        req = urllib.request.Request(self.etcd_client(i) + path, data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return json.loads(r.read())

    def etcd_leader(self):
        """The etcd member number (1..3) that is leader, or None."""
        for i in (1, 2, 3):
            try:
                st = self.etcd_post(i, "/v3/maintenance/status", {})
            except Exception:  # noqa: BLE001 - a dead member
                continue
            if st.get("leader") and st["leader"] == st["header"].get("member_id"):
                return i
        return None

    def etcd_range(self, prefix):
        """{key: mod_revision} of every key under prefix (linearizable range, keys only)."""
        end = prefix[:-1] + chr(ord(prefix[-1]) + 1)
        body = {"key": base64.b64encode(prefix.encode()).decode(),
                "range_end": base64.b64encode(end.encode()).decode(), "keys_only": True}
        last = None
        for _ in range(20):
            for i in (1, 2, 3):
                try:
                    r = self.etcd_post(i, "/v3/kv/range", body, timeout=10)
                    return {base64.b64decode(kv["key"]).decode(): int(kv["mod_revision"])
                            for kv in r.get("kvs", [])}
                except Exception as e:  # noqa: BLE001
                    last = e
            time.sleep(1)
        raise RuntimeError("etcd range %s: %s" % (prefix, last))

    def etcd_get_version(self, key):
        body = {"key": base64.b64encode(key.encode()).decode()}
        for i in (1, 2, 3):
            try:
                r = self.etcd_post(i, "/v3/kv/range", body, timeout=10)
                kvs = r.get("kvs", [])
                return int(kvs[0].get("version", 0)) if kvs else 0
            except Exception:  # noqa: BLE001
                pass
        return None

    def server_kubeconfig(self, i):
        return os.path.join(self.dir, "server-%d" % i, "kubeconfig")

    def server_ready(self, i, timeout=2):
        ctx = ssl.create_default_context()
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        try:
            url = "https://127.0.0.%d:%d/readyz" % (i + 1, self.server_port)
            with urllib.request.urlopen(url, timeout=timeout, context=ctx) as r:
                return r.status == 200
        except Exception:  # noqa: BLE001
            return False

    def controller_identities(self):
        """{identity: server name} from the servers' "controller manager <id> starting" lines."""
        out = {}
        for i in (1, 2, 3):
            try:
                with open(os.path.join(self.dir, "server-%d.log" % i), errors="replace") as f:
                    for line in f:
                        k = line.find("controller manager ")
                        if k >= 0 and " starting" in line[k:]:
                            ident = line[k + len("controller manager "):].split()[0]
                            out[ident] = "server-%d" % i
            except OSError:
                pass
        return out

    def tail_logs(self, n=2500):
        out = ""
        for name in sorted(os.listdir(self.dir)):
            if name.endswith(".log"):
                with open(os.path.join(self.dir, name), "rb") as f:
                    f.seek(0, 2)
                    f.seek(max(0, f.tell() - n))
                    out += "--- %s (tail)\n%s\n" % (name, f.read().decode(errors="replace"))
        return out


def make_api(kubeconfig):
    cfg = client.Configuration()
    config.load_kube_config(config_file=kubeconfig, client_configuration=cfg)
    cfg.retries = False  # urllib3 must not silently retry a DELETE whose reply was lost
    cfg.verify_ssl = True
    return client.CoreV1Api(client.ApiClient(cfg))


def raw_json(resp):
    return json.loads(resp.data)


def classify(exc):
    """('failed', code) for a definite error Status, ('unknown', why) otherwise."""
    if isinstance(exc, client.exceptions.ApiException):
        if exc.status and 400 <= exc.status < 500 and exc.status not in (408, 429):
            return "failed", exc.status
        if exc.status:
            return "unknown", exc.status
        # status 0: the client's wrapper of a transport error (reset, timeout, TLS EOF)
        return "unknown", "transport: " + str(exc.reason).split("(")[0][:40]
    return "unknown", type(exc).__name__


# --- the recorded workload -----------------------------------------------------------------

class Recorder:
    def __init__(self):
        self.lock = threading.Lock()
        self.ops = []  # dicts: writer, kind, name, op, start, end, result, rv, uid, err
        self.max_ack_rv = []  # (end, rv) in append order

    def add(self, rec):
        with self.lock:
            self.ops.append(rec)
            if rec["result"] == "ok" and rec.get("rv"):
                self.max_ack_rv.append((rec["end"], rec["rv"]))


class Writer(threading.Thread):
    def __init__(self, idx, kubeconfig, rec, stop, rnd):
        super().__init__(daemon=True, name="writer-%d" % idx)
        self.idx, self.rec, self.stop_ev, self.rnd = idx, rec, stop, rnd
        self.api = make_api(kubeconfig)
        self.n = 0
        self.live = {"svc": {}, "pod": {}}  # name -> last acked object (dict)

    def run(self):
        period = WRITERS / RATE
        while not self.stop_ev.is_set():
            t = time.monotonic()
            try:
                result = self.one()
            except Exception:  # noqa: BLE001 - a harness bug must not kill the thread
                log("writer %d: %s" % (self.idx, traceback.format_exc()))
                result = None
            # Back off after an unknown outcome: hammering a cluster without quorum only
            # abandons objects (and weakens invariant 1) without testing anything more.
            pause = 1.0 if result == "unknown" else period
            time.sleep(max(0.0, pause - (time.monotonic() - t)))

    def one(self):
        r = self.rnd.random()
        svcs, pods = self.live["svc"], self.live["pod"]
        if len(svcs) < 5 or (r < 0.25 and len(svcs) < 30):
            return self.create_svc()
        elif r < 0.45:
            return self.update("svc", self.rnd.choice(sorted(svcs)))
        elif r < 0.6 or len(svcs) >= 30:
            return self.delete("svc", self.rnd.choice(sorted(svcs)))
        elif len(pods) < 20 and r < 0.8:
            return self.create_pod()
        elif pods and r < 0.9:
            return self.update("pod", self.rnd.choice(sorted(pods)))
        elif pods:
            return self.delete("pod", self.rnd.choice(sorted(pods)))
        else:
            return self.create_pod()

    def call(self, kind, name, op, fn):
        rec = {"writer": self.idx, "kind": kind, "name": name, "op": op, "start": now()}
        try:
            obj = raw_json(fn())
            rec.update(result="ok", end=now())
            md = obj.get("metadata") or {}
            rec["rv"] = int(md["resourceVersion"]) if md.get("resourceVersion") else None
            rec["uid"] = md.get("uid")
            if kind == "svc" and op != "delete":
                spec = obj.get("spec") or {}
                rec["ip"] = spec.get("clusterIP")
                rec["ports"] = [(p.get("protocol", "TCP"), p.get("nodePort"))
                                for p in spec.get("ports") or [] if p.get("nodePort")]
            if op == "delete":
                self.live[kind].pop(name, None)
            else:
                self.live[kind][name] = obj
        except Exception as e:  # noqa: BLE001
            result, why = classify(e)
            rec.update(result=result, end=now(), err=str(why))
            if isinstance(e, client.exceptions.ApiException) and e.body:
                rec["body"] = str(e.body)[:300]
            if result == "unknown" or op == "create" or (result == "failed" and why == 404):
                self.live[kind].pop(name, None)  # never touch it again
            if result == "failed" and why in (404, 409) and op != "create":
                rec["anomaly"] = True  # our own object, acked, only we write it
        self.rec.add(rec)
        return rec["result"]

    def create_svc(self):
        self.n += 1
        name = "w%d-s%d" % (self.idx, self.n)
        nodeport = self.rnd.random() < 0.5
        body = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name},
                "spec": {"type": "NodePort" if nodeport else "ClusterIP",
                         "selector": {"app": name},
                         "ports": [{"port": 80, "targetPort": 8080, "protocol": "TCP"}]}}
        return self.call("svc", name, "create", lambda: self.api.create_namespaced_service(
            NS, body, _preload_content=False, _request_timeout=(3, 10)))

    def create_pod(self):
        self.n += 1
        name = "w%d-p%d" % (self.idx, self.n)
        body = {"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": name, "labels": {"app": "w%d" % self.idx}},
                "spec": {"containers": [{"name": "c", "image": "x"}]}}
        return self.call("pod", name, "create", lambda: self.api.create_namespaced_pod(
            NS, body, _preload_content=False, _request_timeout=(3, 10)))

    def update(self, kind, name):
        obj = json.loads(json.dumps(self.live[kind][name]))
        labels = obj["metadata"].setdefault("labels", {})
        labels["gen"] = str(int(labels.get("gen", "0")) + 1)
        fn = self.api.replace_namespaced_service if kind == "svc" else \
            self.api.replace_namespaced_pod
        return self.call(kind, name, "update", lambda: fn(name, NS, obj, _preload_content=False,
                                                   _request_timeout=(3, 10)))

    def delete(self, kind, name):
        fn = self.api.delete_namespaced_service if kind == "svc" else \
            self.api.delete_namespaced_pod
        return self.call(kind, name, "delete", lambda: fn(name, NS, _preload_content=False,
                                                   _request_timeout=(3, 10)))


def list_kind(api, kind, timeout=(3, 15)):
    fn = api.list_namespaced_service if kind == "svc" else api.list_namespaced_pod
    return raw_json(fn(NS, _preload_content=False, _request_timeout=timeout))


def summarize(obj, kind):
    md = obj["metadata"]
    out = {"rv": int(md["resourceVersion"]), "uid": md.get("uid")}
    if kind == "svc":
        spec = obj.get("spec") or {}
        out["ip"] = spec.get("clusterIP")
        out["ports"] = [(p.get("protocol", "TCP"), p.get("nodePort"))
                        for p in spec.get("ports") or [] if p.get("nodePort")]
    return out


class Reader(threading.Thread):
    """Consistent reader: LIST (RV unset) of Services and Pods through HAProxy."""

    def __init__(self, kubeconfig, stop):
        super().__init__(daemon=True, name="reader")
        self.api = make_api(kubeconfig)
        self.stop_ev = stop
        self.reads = []  # kind, start, end, rv, items {name: summary}
        self.errors = 0

    def run(self):
        while not self.stop_ev.is_set():
            for kind in ("svc", "pod"):
                start = now()
                try:
                    lst = list_kind(self.api, kind)
                except Exception:  # noqa: BLE001
                    self.errors += 1
                    continue
                self.reads.append({
                    "kind": kind, "start": start, "end": now(),
                    "rv": int(lst["metadata"]["resourceVersion"]),
                    "items": {o["metadata"]["name"]: summarize(o, kind) for o in lst["items"]}})
            time.sleep(0.3)


class Informer(threading.Thread):
    def __init__(self, name, kind, kubeconfig, stop):
        super().__init__(daemon=True, name=name)
        self.kind, self.stop_ev = kind, stop
        self.api = make_api(kubeconfig)
        self.cache = {}  # name -> rv
        self.rv = None
        self.relists = 0
        self.resumes = 0
        self.events = 0
        self.backwards = []  # (time, name, event rv, previous rv)
        self.last_event_rv = 0
        self.errors = collections.Counter()
        self.seen = set()  # (name, rv) of every ADDED/MODIFIED event
        self.relist_rvs = []  # list RV of every relist, the first one included

    def relist(self):
        lst = list_kind(self.api, self.kind)
        self.cache = {o["metadata"]["name"]: int(o["metadata"]["resourceVersion"])
                      for o in lst["items"]}
        self.rv = int(lst["metadata"]["resourceVersion"])
        self.last_event_rv = self.rv
        self.relists += 1
        self.relist_rvs.append(self.rv)

    def run(self):
        fn = self.api.list_namespaced_service if self.kind == "svc" else \
            self.api.list_namespaced_pod
        while not self.stop_ev.is_set():
            try:
                if self.rv is None:
                    self.relist()
                resp = fn(NS, watch=True, resource_version=str(self.rv),
                          allow_watch_bookmarks=True, timeout_seconds=20,
                          _preload_content=False, _request_timeout=(3, 40))
                self.resumes += 1
                try:
                    for line in resp:
                        if self.stop_ev.is_set():
                            break
                        if not line.strip():
                            continue
                        self.event(json.loads(line))
                finally:
                    resp.release_conn()
            except Gone:
                self.errors["410"] += 1
                self.rv = None
            except client.exceptions.ApiException as e:
                self.errors[str(e.status)] += 1
                if e.status == 410:
                    self.rv = None
                time.sleep(0.5)
            except Exception as e:  # noqa: BLE001 - connection errors: resume
                self.errors[type(e).__name__] += 1
                time.sleep(0.5)

    def event(self, ev):
        typ, obj = ev.get("type"), ev.get("object") or {}
        if typ == "ERROR":
            if obj.get("code") == 410:
                raise Gone()
            raise client.exceptions.ApiException(status=obj.get("code") or 500,
                                                 reason=obj.get("message"))
        rv = int(obj["metadata"]["resourceVersion"])
        if typ == "BOOKMARK":
            if rv < self.last_event_rv:
                self.backwards.append((now(), "(bookmark)", rv, self.last_event_rv))
            self.rv = max(self.rv, rv)
            return
        name = obj["metadata"]["name"]
        self.events += 1
        if rv <= self.last_event_rv:
            self.backwards.append((now(), name, rv, self.last_event_rv))
        self.last_event_rv = max(self.last_event_rv, rv)
        self.rv = max(self.rv, rv)
        if typ == "DELETED":
            self.cache.pop(name, None)
        else:
            self.cache[name] = rv
            self.seen.add((name, rv))


class Gone(Exception):
    pass


class LeaseSampler(threading.Thread):
    def __init__(self, kubeconfig, stop):
        super().__init__(daemon=True, name="lease")
        self.stop_ev = stop
        self.coord = client.CoordinationV1Api(make_api(kubeconfig).api_client)
        self.samples = []  # (time, holder, rv, transitions)

    def run(self):
        while not self.stop_ev.is_set():
            try:
                lease = raw_json(self.coord.read_namespaced_lease(
                    LEASE_NAME, LEASE_NS, _preload_content=False, _request_timeout=(2, 5)))
                spec = lease.get("spec") or {}
                self.samples.append((now(), spec.get("holderIdentity"),
                                     int(lease["metadata"]["resourceVersion"]),
                                     spec.get("leaseTransitions")))
            except Exception:  # noqa: BLE001
                pass
            time.sleep(0.5)

    def holder(self):
        return self.samples[-1][1] if self.samples else None


# --- faults ----------------------------------------------------------------------------------

class Faults:
    KINDS = ["etcd-kill", "etcd-stop", "server-kill", "server-stop", "quorum-loss"]

    def __init__(self, cl, lease, seed, probe_api):
        self.cl, self.lease, self.probe_api = cl, lease, probe_api
        self.kinds_rnd = random.Random("kinds-%d" % seed)  # the order of the faults
        self.rnd = random.Random("victims-%d" % seed)  # victims, leader or not
        self.log = []  # dicts: kind, target, start, end, notes
        self.write_recovery = []  # seconds after an etcd member's death
        self.leader_failover = []  # seconds after kill -9 of the controller leader
        self.probe_n = 0
        self.bag = []
        self.readyz = []  # quorum loss: ({server: s to failing}, {server: s to passing})

    def next_kind(self):
        if not self.bag:
            self.bag = list(self.KINDS)
            self.kinds_rnd.shuffle(self.bag)
        return self.bag.pop()

    def probe_write(self, timeout=(2, 3)):
        self.probe_n += 1
        body = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                "metadata": {"name": "probe-%d" % self.probe_n}, "spec": {}}
        coord = client.CoordinationV1Api(self.probe_api.api_client)
        coord.create_namespaced_lease(NS, body, _preload_content=False, _request_timeout=timeout)

    def measure_write_recovery(self, since, limit=30):
        while now() - since < limit:
            try:
                self.probe_write()
                return now() - since
            except Exception:  # noqa: BLE001
                time.sleep(0.1)
        return None

    def inject(self, kind):
        f = {"kind": kind, "start": now(), "notes": ""}
        self.log.append(f)
        log("FAULT %s begins" % kind)
        try:
            getattr(self, kind.replace("-", "_"))(f)
        finally:
            f["end"] = now()
            log("FAULT %s ends: %s %s" % (kind, f.get("target"), f["notes"]))

    def etcd_kill(self, f):
        leader = self.cl.etcd_leader()
        want_leader = self.rnd.random() < 0.5
        i = leader if (want_leader and leader) else self.rnd.choice([1, 2, 3])
        name = "etcd-%d" % i
        f["target"] = name + (" (leader)" if i == leader else "")
        pid, argv = self.cl.argv(name)
        os.kill(pid, signal.SIGKILL)
        killed = now()
        rec = self.measure_write_recovery(killed, limit=5)
        self.write_recovery.append((f["target"], rec))
        f["notes"] = "writes back after %s" % ("%.2f s" % rec if rec is not None else "> 5 s")
        time.sleep(max(0.0, killed + 5 - now()))
        self.cl.respawn(name, argv)
        deadline = now() + 30
        while now() < deadline:
            try:
                urllib.request.urlopen(self.cl.etcd_client(i) + "/health", timeout=2).read()
                break
            except Exception:  # noqa: BLE001
                time.sleep(0.2)
        f["notes"] += "; restarted, healthy after %.1f s" % (now() - killed)

    def etcd_stop(self, f):
        i = self.rnd.choice([1, 2, 3])
        pid = self.cl.pids()["etcd-%d" % i]
        f["target"] = "etcd-%d" % i + (" (leader)" if self.cl.etcd_leader() == i else "")
        os.kill(pid, signal.SIGSTOP)
        try:
            time.sleep(8)
        finally:
            os.kill(pid, signal.SIGCONT)

    def quorum_loss(self, f):
        members = self.rnd.sample([1, 2, 3], 2)
        pids = [self.cl.pids()["etcd-%d" % i] for i in members]
        f["target"] = "etcd-%d, etcd-%d" % tuple(members)
        for p in pids:
            os.kill(p, signal.SIGSTOP)
        stopped = now()
        failing = {}
        try:
            while now() - stopped < 10:
                for i in (1, 2, 3):
                    if i not in failing and not self.cl.server_ready(i, timeout=0.5):
                        failing[i] = now() - stopped
                time.sleep(0.2)
        finally:
            for p in pids:
                os.kill(p, signal.SIGCONT)
        resumed = now()
        rec = self.measure_write_recovery(resumed, limit=30)
        passing = {}
        while now() - resumed < 30 and len(passing) < 3:
            for i in (1, 2, 3):
                if i not in passing and self.cl.server_ready(i, timeout=1):
                    passing[i] = now() - resumed
            time.sleep(0.2)
        self.readyz.append((failing, passing))
        f["notes"] = "readyz failing after %s; writes back %s after SIGCONT; readyz passing " \
            "after %s" % ({k: round(v, 1) for k, v in failing.items()},
                          "%.2f s" % rec if rec is not None else "> 30 s",
                          {k: round(v, 1) for k, v in passing.items()})

    def server_kill(self, f):
        holder = self.lease.holder()
        idents = self.cl.controller_identities()
        leader = idents.get(holder)
        want_leader = self.rnd.random() < 0.5
        name = leader if (want_leader and leader) else "server-%d" % self.rnd.choice([1, 2, 3])
        is_leader = name == leader
        f["target"] = name + (" (controller leader %s)" % holder if is_leader else "")
        pid, argv = self.cl.argv(name)
        os.kill(pid, signal.SIGKILL)
        killed = now()
        if is_leader:
            got = None
            while now() - killed < 40:
                h = self.lease.holder()
                if h and h != holder:
                    got = now() - killed
                    break
                time.sleep(0.2)
            self.leader_failover.append(got)
            f["notes"] = "new holder after %s" % ("%.1f s" % got if got is not None else "> 40 s")
        else:
            time.sleep(5)
        self.cl.respawn(name, argv)
        i = int(name.split("-")[1])
        deadline = now() + 90
        while now() < deadline and not self.cl.server_ready(i):
            time.sleep(0.5)
        f["notes"] += "; restarted, ready after %.1f s" % (now() - killed)

    def server_stop(self, f):
        i = self.rnd.choice([1, 2, 3])
        name = "server-%d" % i
        pid = self.cl.pids()[name]
        holder = self.lease.holder()
        is_leader = self.cl.controller_identities().get(holder) == name
        f["target"] = name + (" (controller leader)" if is_leader else "")
        os.kill(pid, signal.SIGSTOP)
        try:
            time.sleep(20)
        finally:
            os.kill(pid, signal.SIGCONT)


# --- checks ----------------------------------------------------------------------------------

def key_of(kind, name):
    return ("/registry/services/specs/%s/%s" if kind == "svc" else "/registry/pods/%s/%s") % (
        NS, name)


def check_final(rec, final, etcd, out):
    """Invariant 1. final: {kind: {name: summary}}; etcd: {kind: {key: mod_revision}}."""
    bad = []
    by_key = collections.defaultdict(list)
    for r in rec.ops:
        by_key[(r["kind"], r["name"])].append(r)
    stats = collections.Counter()
    for (kind, name), ops in by_key.items():
        ops.sort(key=lambda r: r["start"])
        live = [r for r in ops if r["result"] in ("ok", "unknown")]
        got = final[kind].get(name)
        raw = etcd[kind].get(key_of(kind, name))
        if got and raw is not None and raw != got["rv"]:
            bad.append("%s/%s: LIST rv %d but etcd mod_revision %d" % (kind, name, got["rv"], raw))
        if (got is None) != (raw is None):
            bad.append("%s/%s: in LIST %s, in etcd %s" % (kind, name, got is not None,
                                                          raw is not None))
        if not live:
            stats["never created"] += 1
            if got or raw is not None:
                bad.append("%s/%s exists but every write of it failed: %s" % (
                    kind, name, [(r["op"], r["result"], r.get("err")) for r in ops]))
            continue
        last = live[-1]
        if last["result"] == "unknown":
            stats["last write unknown (either legal)"] += 1
            continue
        if last["op"] == "delete":
            stats["acked delete"] += 1
            if got or raw is not None:
                bad.append("%s/%s: delete acked at %.2f (rv %s) but it exists (rv %s, etcd %s)" % (
                    kind, name, last["end"], last.get("rv"), got and got["rv"], raw))
        else:
            stats["acked create/update"] += 1
            if not got:
                bad.append("%s/%s: %s acked at %.2f with rv %s uid %s but it is gone "
                           "(etcd: %s)" % (kind, name, last["op"], last["end"], last["rv"],
                                           last.get("uid"), raw))
            elif got["rv"] < last["rv"] or got["uid"] != last.get("uid"):
                bad.append("%s/%s: acked rv %s uid %s, final rv %s uid %s" % (
                    kind, name, last["rv"], last.get("uid"), got["rv"], got["uid"]))
            elif got["rv"] != last["rv"]:
                stats["modified by someone else after the last ack"] += 1
    for kind in ("svc", "pod"):
        for name in final[kind]:
            if (kind, name) not in by_key:
                bad.append("%s/%s exists but was never written" % (kind, name))
    out["final-state stats"] = dict(stats)
    return bad


def check_reads(rec, reads):
    """Invariant 2. reads are in time order (one reader thread)."""
    bad = []
    per_key = collections.defaultdict(list)
    for r in rec.ops:
        per_key[(r["kind"], r["name"])].append(r)
    acks = sorted(rec.max_ack_rv)
    ack_ends = [a[0] for a in acks]
    prefix_max = []
    m = 0
    for _, rv in acks:
        m = max(m, rv)
        prefix_max.append(m)
    last_rv = {}
    deleted_at = {}  # key -> end of its acked delete
    for key, ops in per_key.items():
        for r in ops:
            if r["op"] == "delete" and r["result"] == "ok":
                deleted_at[key] = r["end"]
    for rd in reads:
        kind = rd["kind"]
        if rd["rv"] < last_rv.get(kind, 0):
            bad.append("LIST %s at %.2f: rv %d below the previous LIST's %d" % (
                kind, rd["start"], rd["rv"], last_rv[kind]))
        last_rv[kind] = max(last_rv.get(kind, 0), rd["rv"])
        k = bisect.bisect_left(ack_ends, rd["start"])
        if k and rd["rv"] < prefix_max[k - 1]:
            bad.append("LIST %s started %.2f has rv %d below rv %d acked before it" % (
                kind, rd["start"], rd["rv"], prefix_max[k - 1]))
        for name in rd["items"]:  # nothing whose delete was acked before the LIST began
            d = deleted_at.get((kind, name))
            if d is not None and d < rd["start"]:
                bad.append("LIST %s started %.2f (rv %d) has %s, deleted (acked) at %.2f" % (
                    kind, rd["start"], rd["rv"], name, d))
    starts = {kind: [rd["start"] for rd in reads if rd["kind"] == kind] for kind in ("svc", "pod")}
    by_kind = {kind: [rd for rd in reads if rd["kind"] == kind] for kind in ("svc", "pod")}
    for (kind, name), ops in per_key.items():
        ops.sort(key=lambda r: r["start"])
        oks = [r for r in ops if r["result"] == "ok" and r["op"] != "delete"]
        if not oks or oks[0]["op"] != "create":
            continue
        # Up to the first delete attempt (any result but a definite failure), the object must
        # be in every LIST that began after its create was acked, at an RV no older than the
        # last write acked before the LIST began.
        dels = [r["start"] for r in ops if r["op"] == "delete" and r["result"] != "failed"]
        until = dels[0] if dels else float("inf")
        lo = bisect.bisect_right(starts[kind], oks[0]["end"])
        for rd in by_kind[kind][lo:]:
            if rd["end"] >= until:
                break
            prior = [r for r in oks if r["end"] < rd["start"]]
            got = rd["items"].get(name)
            if not got:
                bad.append("LIST %s started %.2f (rv %d) misses %s, acked with rv %s at %.2f" % (
                    kind, rd["start"], rd["rv"], name, prior[-1]["rv"], prior[-1]["end"]))
            elif got["rv"] < prior[-1]["rv"]:
                bad.append("LIST %s started %.2f has %s at rv %d, rv %d acked at %.2f" % (
                    kind, rd["start"], name, got["rv"], prior[-1]["rv"], prior[-1]["end"]))
    return bad


def duplicates(items):
    """Invariant 4 on one {name: summary} of Services."""
    bad = []
    ips, ports = {}, {}
    for name, s in sorted(items.items()):
        ip = s.get("ip")
        if ip and ip != "None":
            if ip in ips:
                bad.append("ClusterIP %s of %s and %s" % (ip, ips[ip], name))
            ips[ip] = name
        for p in s.get("ports") or []:
            if p in ports and ports[p] != name:
                bad.append("nodePort %s/%s of %s and %s" % (p[0], p[1], ports[p], name))
            ports[p] = name
    return bad


# --- main ------------------------------------------------------------------------------------

def on_signal(signum, frame):
    raise SystemExit("signal %d" % signum)  # the finally below stops the cluster


def main():
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    rnd = random.Random("workload-%d" % SEED)
    gaps = random.Random("gaps-%d" % SEED)
    report = []

    def out(line=""):
        report.append(line)
        print(line, flush=True)

    cl = Cluster()
    stop = threading.Event()
    results = collections.OrderedDict()  # invariant -> (ok, detail lines)
    threads = []
    try:
        log("starting the HA topology in %s (seed %d, %.0f s of faults)" % (cl.dir, SEED, SECONDS))
        cl.start()
        log("cluster up")
        api = make_api(cl.kubeconfig)
        deadline = time.monotonic() + 60
        while True:
            try:
                api.create_namespace({"metadata": {"name": NS}}, _request_timeout=(3, 10))
                break
            except client.exceptions.ApiException as e:
                if e.status == 409:
                    break
                if time.monotonic() > deadline:
                    raise
                time.sleep(1)
        lease = LeaseSampler(cl.kubeconfig, stop)
        rec = Recorder()
        wstop = threading.Event()  # writers and the reader stop first, informers later
        writers = [Writer(i, cl.kubeconfig, rec, wstop, random.Random(rnd.random()))
                   for i in range(WRITERS)]
        reader = Reader(cl.kubeconfig, wstop)
        informers = [Informer("inf-svc-server1", "svc", cl.server_kubeconfig(1), stop),
                     Informer("inf-svc-server2", "svc", cl.server_kubeconfig(2), stop),
                     Informer("inf-pod-server3", "pod", cl.server_kubeconfig(3), stop),
                     Informer("inf-pod-lb", "pod", cl.kubeconfig, stop)]
        threads = [lease, reader] + informers + writers
        for t in threads:
            t.start()
        deadline = time.monotonic() + 60
        while not lease.holder() and time.monotonic() < deadline:
            time.sleep(0.5)
        faults = Faults(cl, lease, SEED, make_api(cl.kubeconfig))
        work_start = now()
        time.sleep(5)  # a fault-free start
        end_at = work_start + SECONDS
        while now() < end_at:
            faults.inject(faults.next_kind())
            gap = gaps.uniform(10, 20)
            if now() + gap >= end_at:
                time.sleep(max(0.0, min(gap, end_at - now())))
                break
            time.sleep(gap)
        last_fault_end = faults.log[-1]["end"] if faults.log else now()
        log("quiescing")
        wstop.set()
        for t in writers + [reader]:
            t.join(30)
        pre_stop = now()

        # 5: the kubernetes endpoints list exactly the live servers (all three restarted).
        ep_ok, ep_when, ep_last = False, None, None
        core = make_api(cl.kubeconfig)
        disc = client.DiscoveryV1Api(core.api_client)
        while now() - last_fault_end < 45:
            try:
                ep = raw_json(core.read_namespaced_endpoints(
                    "kubernetes", "default", _preload_content=False, _request_timeout=(2, 5)))
                sl = raw_json(disc.read_namespaced_endpoint_slice(
                    "kubernetes", "default", _preload_content=False, _request_timeout=(2, 5)))
                ips = sorted(a["ip"] for s in ep.get("subsets") or []
                             for a in s.get("addresses") or [])
                sips = sorted(a for e in sl.get("endpoints") or [] for a in e["addresses"])
                ep_last = (ips, sips)
                if ips == SERVER_IPS and sips == SERVER_IPS:
                    ep_ok, ep_when = True, now() - last_fault_end
                    break
            except Exception as e:  # noqa: BLE001
                ep_last = repr(e)
            time.sleep(0.5)
        results["5 kubernetes endpoints = live servers within 45 s of the last fault"] = (
            ep_ok, ["converged %.1f s after the last fault ended" % ep_when if ep_ok
                    else "last seen: %s" % (ep_last,)])

        # Final state: LIST through HAProxy, then the raw etcd range; informers catch up.
        # A write whose client gave up during a fault (outcome "unknown") may still be inside a
        # server, waiting on etcd (the server's etcd write timeout is 60 s), and commit once the
        # members are back: the final state is the one that stayed the same for SETTLE_QUIET
        # seconds, so that such a late commit is not taken for an informer's extra object.
        def take_final():
            out, out_rv = {}, {}
            for kind in ("svc", "pod"):
                for attempt in range(30):
                    try:
                        lst = list_kind(core, kind)
                        break
                    except Exception:  # noqa: BLE001
                        time.sleep(1)
                out[kind] = {o["metadata"]["name"]: summarize(o, kind) for o in lst["items"]}
                out_rv[kind] = int(lst["metadata"]["resourceVersion"])
            return out, out_rv

        final, final_rv = take_final()
        late_changes, settle_start = 0, now()
        while now() - settle_start < SETTLE_MAX:
            time.sleep(SETTLE_QUIET)
            again, again_rv = take_final()
            if again == final:
                break
            late_changes += sum(1 for kind in final for n in set(final[kind]) | set(again[kind])
                                if final[kind].get(n) != again[kind].get(n))
            final, final_rv = again, again_rv
        if late_changes:
            log("final state settled after %.1f s: %d objects changed by writes that committed "
                "after the workload stopped" % (now() - settle_start, late_changes))
        etcd = {"svc": cl.etcd_range("/registry/services/specs/%s/" % NS),
                "pod": cl.etcd_range("/registry/pods/%s/" % NS)}
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and any(
                (inf.rv or 0) < final_rv[inf.kind] for inf in informers):
            time.sleep(0.5)
        time.sleep(1)
        stop.set()
        for t in informers + [lease]:
            t.join(45)

        # 1
        stats = {}
        bad = check_final(rec, final, etcd, stats)
        anomalies = [r for r in rec.ops if r.get("anomaly")]
        for r in anomalies:
            bad.append("%s %s/%s by writer %d at %.2f got %s: an object only this writer writes "
                       "and whose last write was acked" % (r["op"], r["kind"], r["name"],
                                                          r["writer"], r["start"], r["err"]))
        results["1 no lost acked write (LIST via HAProxy and raw etcd range)"] = (
            not bad, bad[:20] + ["keys: %s" % stats["final-state stats"]])
        # 2
        bad = check_reads(rec, reader.reads)
        results["2 consistent reads contain prior acked writes; RVs non-decreasing"] = (
            not bad, bad[:20] + ["%d LISTs checked, %d failed LISTs (faults)" % (
                len(reader.reads), reader.errors)])
        # 3
        bad, info = [], []
        for inf in informers:
            want = {n: s["rv"] for n, s in final[inf.kind].items()}
            if inf.cache != want:
                missing = sorted(set(want) - set(inf.cache))
                extra = sorted(set(inf.cache) - set(want))
                stale = sorted(n for n in want if n in inf.cache and inf.cache[n] != want[n])
                bad.append("%s cache != final state (rv %s vs %d): missing %s extra %s stale %s"
                           % (inf.name, inf.rv, final_rv[inf.kind], missing[:5], extra[:5],
                              [(n, inf.cache[n], want[n]) for n in stale[:5]]))
            for b in inf.backwards[:5]:
                bad.append("%s event rv went backwards without a relist: %s" % (inf.name, b))
            # Gap check: every acked create/update after the informer's first LIST reached it as
            # an event with exactly that RV, unless a relist (after a 410) covered it.
            missed = []
            first = inf.relist_rvs[0] if inf.relist_rvs else None
            later = max(inf.relist_rvs[1:] or [0])
            for r in rec.ops:
                if (r["kind"] != inf.kind or r["result"] != "ok" or r["op"] == "delete"
                        or first is None or r["rv"] <= first or r["rv"] <= later):
                    continue
                if (r["name"], r["rv"]) not in inf.seen:
                    missed.append((r["name"], r["op"], r["rv"], round(r["end"], 2)))
            if missed:
                bad.append("%s missed %d acked writes without a relist, e.g. %s" % (
                    inf.name, len(missed), missed[:5]))
            info.append("%s: %d events, %d relists, %d watch (re)starts, errors %s" % (
                inf.name, inf.events, inf.relists, inf.resumes, dict(inf.errors)))
        info.append("final state: %d objects changed by late commits before it settled"
                    % late_changes)
        results["3 informer RVs monotonic between relists; caches equal the final state"] = (
            not bad, bad + info)
        # 4
        bad = ["final state: " + b for b in duplicates(final["svc"])]
        for rd in reader.reads:
            if rd["kind"] == "svc":
                bad += ["LIST at %.2f: %s" % (rd["start"], b) for b in duplicates(rd["items"])]
        results["4 no two Services share a ClusterIP or a nodePort"] = (
            not bad, bad[:20] + ["%d Services in the final state" % len(final["svc"])])
        # 6 (sampled): the holder changes only with leaseTransitions growing; RVs never go back
        lease_bad = []
        for a, b in zip(lease.samples, lease.samples[1:]):
            if b[2] < a[2]:
                lease_bad.append("Lease rv went back at %.2f: %d -> %d" % (b[0], a[2], b[2]))
            if a[1] and b[1] and a[1] != b[1] and (b[3] or 0) <= (a[3] or 0):
                lease_bad.append("holder %s -> %s at %.2f without leaseTransitions growing" % (
                    a[1], b[1], b[0]))
        fo = faults.leader_failover
        results["6 new controller leader within 20 s (+10 s slack) of kill -9 of the leader"] = (
            all(x is not None and x <= 30 for x in fo) and not lease_bad,
            ["failovers measured: %s" % ["%.1f s" % x if x is not None else "none in 40 s"
                                         for x in fo] if fo else
             "the seed killed no controller leader in this run"] +
            ["holders seen: %s" % sorted({s[1] for s in lease.samples if s[1]})] + lease_bad)
        # 7 (measured, not asserted)
        wr = faults.write_recovery
        results["7 writes back within ~3 s of an etcd member's death (measured only)"] = (
            None, ["%s: %s" % (t, "%.2f s" % x if x is not None else "> 5 s") for t, x in wr]
            or ["the seed killed no etcd member in this run"])
        results["7b /readyz fails within 3 s of quorum loss, passes within 5 s (measured only)"] = (
            None, ["failing after %s, passing after %s (s per server)" % (
                {k: round(v, 1) for k, v in a.items()}, {k: round(v, 1) for k, v in b.items()})
                for a, b in faults.readyz] or ["the seed caused no quorum loss in this run"])

        # the report
        out("")
        out("=" * 78)
        out("svcplane HA fault report: seed %d, %.0f s of faults, %d writers at <= %.0f writes/s"
            % (SEED, SECONDS, WRITERS, RATE))
        out("cluster folder %s, workload %.1f s" % (cl.dir, pre_stop - work_start))
        out("-" * 78)
        out("faults injected (seconds since harness start):")
        for f in faults.log:
            out("  %7.2f-%7.2f  %-12s %s  %s" % (f["start"], f["end"], f["kind"],
                                                f.get("target"), f["notes"]))
        out("operations:")
        cnt = collections.Counter((r["kind"], r["op"], r["result"]) for r in rec.ops)
        for k in sorted(cnt):
            out("  %-4s %-7s %-8s %6d" % (k + (cnt[k],)))
        errs = collections.Counter((r["result"], r.get("err")) for r in rec.ops
                                   if r["result"] != "ok")
        out("  not ok by reason: %s" % dict(errs))
        out("  total %d writes, %d probe writes, %d consistent LISTs" % (
            len(rec.ops), faults.probe_n, len(reader.reads)))
        comp = cl.etcd_get_version("compact_rev_key")
        out("  compact_rev_key version at the end: %s (compaction interval 30 s)" % comp)
        out("  operation log: %s.ops.jsonl" % REPORT)
        out("invariants:")
        failed = False
        for name, (ok, lines) in results.items():
            tag = "MEASURED" if ok is None else ("PASS" if ok else "FAIL")
            failed |= ok is False
            out("  [%s] %s" % (tag, name))
            for line in lines:
                out("         %s" % line)
        out("result: %s" % ("FAIL" if failed else "PASS"))
        if failed:
            out("-" * 78)
            out(cl.tail_logs())
        out("=" * 78)
        with open(REPORT, "w") as f:
            f.write("\n".join(report) + "\n")
        with open(REPORT + ".ops.jsonl", "w") as f:
            for r in rec.ops:
                f.write(json.dumps(r) + "\n")
        log("report written to %s" % REPORT)
        return 1 if failed else 0
    except BaseException:
        traceback.print_exc()
        try:
            print(cl.tail_logs(), flush=True)
        except Exception:  # noqa: BLE001
            pass
        return 2
    finally:
        stop.set()
        cl.stop()


if __name__ == "__main__":
    sys.exit(main())
