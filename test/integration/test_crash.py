"""kill -9 of `svcplane serve` in the middle of a stream of writes, then restart on the same dir.

Writers (several threads) create Leases and bump one counter Lease each as fast as they can and
record every acknowledged write. After each kill -9 + restart: every acknowledged create is
there with its content and RV, every counter is at least its last acknowledged value, new RVs
are above every RV seen, and a watch resumes from the last RV it saw before the crash.
"""

import random
import threading
import time
import unittest

from kubernetes import client, watch

import harness

NS = "default"
THREADS = 4
ROUNDS = 5


class Writer(threading.Thread):
    def __init__(self, srv, tid, round_no):
        super().__init__(daemon=True)
        self.api = srv.api_client()
        self.api.configuration.retries = False  # an error must never turn into a silent retry
        self.coord = client.CoordinationV1Api(self.api)
        self.tid, self.round_no = tid, round_no
        self.stop = threading.Event()
        self.acked = {}  # name -> (rv, holder)
        self.counter_acked = 0
        self.max_rv = 0

    def run(self):
        seq = 0
        counter = "counter-%d" % self.tid
        while not self.stop.is_set():
            seq += 1
            name = "c-%d-%d-%d" % (self.round_no, self.tid, seq)
            holder = "h-" + name
            try:
                if seq % 4 == 0:
                    value = self.round_no * 1_000_000 + seq  # grows across rounds too
                    out = self.coord.patch_namespaced_lease(
                        counter, NS, {"spec": {"leaseTransitions": value}}, _request_timeout=10)
                    self.counter_acked = value
                else:
                    out = self.coord.create_namespaced_lease(
                        NS, client.V1Lease(metadata=client.V1ObjectMeta(
                            name=name, labels={"crash": "1"}),
                            spec=client.V1LeaseSpec(holder_identity=holder)),
                        _request_timeout=10)
                    self.acked[name] = (int(out.metadata.resource_version), holder)
                self.max_rv = max(self.max_rv, int(out.metadata.resource_version))
            except Exception:  # server killed: connection refused/reset until we are stopped
                time.sleep(0.02)
        self.api.close()


class Watcher(threading.Thread):
    """Watches crash=1 Leases and remembers the last RV it received."""

    def __init__(self, srv, rv):
        super().__init__(daemon=True)
        self.api = srv.api_client()
        self.coord = client.CoordinationV1Api(self.api)
        self.last_rv = rv
        self.names = set()

    def run(self):
        try:
            for ev in watch.Watch().stream(self.coord.list_namespaced_lease, NS,
                                           label_selector="crash=1",
                                           resource_version=self.last_rv, timeout_seconds=30,
                                           _request_timeout=60):
                self.names.add(ev["object"].metadata.name)
                self.last_rv = ev["object"].metadata.resource_version
        except Exception:
            pass  # the server died under us
        self.api.close()


class Crash(unittest.TestCase):
    def setUp(self):
        self.srv = harness.Server()
        self.addCleanup(self.srv.cleanup)
        self.srv.start()

    def coord(self):
        api = self.srv.api_client()
        self.addCleanup(api.close)
        return client.CoordinationV1Api(api)

    def test_kill9_during_writes(self):
        rng = random.Random(42)
        coord = self.coord()
        for t in range(THREADS):
            coord.create_namespaced_lease(NS, client.V1Lease(
                metadata=client.V1ObjectMeta(name="counter-%d" % t),
                spec=client.V1LeaseSpec(lease_transitions=0)))
        acked, counters, max_rv = {}, {}, 0
        watch_rv = coord.list_namespaced_lease(NS).metadata.resource_version
        total = 0
        for r in range(ROUNDS):
            watcher = Watcher(self.srv, watch_rv)
            watcher.start()
            writers = [Writer(self.srv, t, r) for t in range(THREADS)]
            for w in writers:
                w.start()
            time.sleep(rng.uniform(0.4, 1.2))
            self.srv.kill9()
            for w in writers:
                w.stop.set()
            for w in writers:
                w.join(30)
                self.assertFalse(w.is_alive())
                acked.update(w.acked)
                counters[w.tid] = max(counters.get(w.tid, 0), w.counter_acked)
                max_rv = max(max_rv, w.max_rv)
            watcher.join(30)
            round_acked = sum(len(w.acked) for w in writers)
            total += round_acked
            self.assertGreater(round_acked, 0, "no write acknowledged in round %d" % r)

            self.srv.start()
            coord = self.coord()
            listed = coord.list_namespaced_lease(NS, label_selector="crash=1")
            have = {i.metadata.name: i for i in listed.items}
            missing = sorted(set(acked) - set(have))
            self.assertEqual(missing, [], "acknowledged creates lost after kill -9 (round %d)" % r)
            for name, (rv, holder) in acked.items():
                self.assertEqual(int(have[name].metadata.resource_version), rv, name)
                self.assertEqual(have[name].spec.holder_identity, holder, name)
            for t, seq in counters.items():
                got = coord.read_namespaced_lease("counter-%d" % t, NS).spec.lease_transitions
                self.assertGreaterEqual(got or 0, seq, "counter-%d went back" % t)
            self.assertGreaterEqual(int(listed.metadata.resource_version), max_rv)
            out = coord.create_namespaced_lease(NS, client.V1Lease(
                metadata=client.V1ObjectMeta(name="after-%d" % r),
                spec=client.V1LeaseSpec(holder_identity="x")))
            self.assertGreater(int(out.metadata.resource_version), max_rv)

            # A watch from before the crash resumes (the store's history survives kill -9);
            # a watch from a fresh list's RV sees the next write.
            for _ in watch.Watch().stream(coord.list_namespaced_lease, NS,
                                          label_selector="crash=1",
                                          resource_version=watcher.last_rv,
                                          timeout_seconds=1):
                pass
            rv = coord.list_namespaced_lease(NS).metadata.resource_version
            coord.create_namespaced_lease(NS, client.V1Lease(
                metadata=client.V1ObjectMeta(name="seen-%d" % r, labels={"crash": "1"})))
            w = watch.Watch()
            names = []
            for ev in w.stream(coord.list_namespaced_lease, NS, label_selector="crash=1",
                               resource_version=rv, timeout_seconds=5):
                names.append(ev["object"].metadata.name)
                w.stop()
            self.assertEqual(names, ["seen-%d" % r])
            watch_rv = listed.metadata.resource_version
        print("\n%d acknowledged creates over %d kill -9 rounds" % (total, ROUNDS))

    def test_watch_resumes_across_restart(self):
        # The watch cache's history starts at its first list, but the persistent store's does
        # not: a watch from before a kill -9 resumes from the store instead of getting 410.
        coord = self.coord()
        coord.create_namespaced_lease(NS, client.V1Lease(metadata=client.V1ObjectMeta(name="a")))
        rv = coord.list_namespaced_lease(NS).metadata.resource_version
        coord.create_namespaced_lease(NS, client.V1Lease(metadata=client.V1ObjectMeta(name="b")))
        self.srv.kill9()
        self.srv.start()
        coord = self.coord()
        w = watch.Watch()
        names = []
        for ev in w.stream(coord.list_namespaced_lease, NS, resource_version=rv,
                           timeout_seconds=2):
            names.append(ev["object"].metadata.name)
            w.stop()
        self.assertEqual(names, ["b"])


if __name__ == "__main__":
    unittest.main()
