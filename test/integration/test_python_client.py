"""The official Python client (Debian python3-kubernetes) against `svcplane serve`."""

import json
import threading
import unittest

from kubernetes import client, watch
from kubernetes.client.rest import ApiException

import harness

NS = "default"
HISTORY = 8  # --watch-history-events for the 410 server


def svc(name, labels):
    return client.V1Service(
        metadata=client.V1ObjectMeta(name=name, labels=labels),
        spec=client.V1ServiceSpec(selector={"app": "x"},
                                  ports=[client.V1ServicePort(port=80, target_port=8080)]))


def lease(name, holder="a", labels=None):
    return client.V1Lease(metadata=client.V1ObjectMeta(name=name, labels=labels or {}),
                          spec=client.V1LeaseSpec(holder_identity=holder))


class PythonClient(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.srv, cls.api = harness.start_with_client(["--watch-history-events", str(HISTORY)])
        cls.core = client.CoreV1Api(cls.api)
        cls.coord = client.CoordinationV1Api(cls.api)

    @classmethod
    def tearDownClass(cls):
        cls.api.close()
        cls.srv.cleanup()

    def test_create_and_list_with_selectors(self):
        for i in range(6):
            tier = "front" if i % 2 else "back"
            self.core.create_namespaced_service(NS, svc("sel-%d" % i,
                                                        {"suite": "sel", "tier": tier}))
        got = self.core.list_namespaced_service(NS, label_selector="suite=sel,tier=front")
        self.assertEqual(sorted(s.metadata.name for s in got.items), ["sel-1", "sel-3", "sel-5"])
        got = self.core.list_namespaced_service(NS, label_selector="suite=sel,tier notin (front)")
        self.assertEqual(sorted(s.metadata.name for s in got.items), ["sel-0", "sel-2", "sel-4"])
        got = self.core.list_namespaced_service(NS, label_selector="suite=sel",
                                                field_selector="metadata.name=sel-2")
        self.assertEqual([s.metadata.name for s in got.items], ["sel-2"])
        # chunked list: limit + continue covers everything exactly once
        names, cont = [], None
        while True:
            page = self.core.list_namespaced_service(NS, label_selector="suite=sel", limit=2,
                                                     _continue=cont)
            names += [s.metadata.name for s in page.items]
            cont = page.metadata._continue
            if not cont:
                break
        self.assertEqual(sorted(names), ["sel-%d" % i for i in range(6)])
        created = self.core.read_namespaced_service("sel-0", NS)
        self.assertEqual(created.spec.ports[0].port, 80)
        self.assertTrue(created.metadata.uid)

    def test_patch(self):
        self.coord.create_namespaced_lease(NS, lease("patched"))
        # dict body: the client sends a merge/strategic patch
        out = self.coord.patch_namespaced_lease("patched", NS,
                                                {"metadata": {"labels": {"a": "1"}},
                                                 "spec": {"holderIdentity": "b"}})
        self.assertEqual(out.spec.holder_identity, "b")
        self.assertEqual(out.metadata.labels["a"], "1")
        # list body: JSON patch
        out = self.coord.patch_namespaced_lease(
            "patched", NS, [{"op": "replace", "path": "/spec/holderIdentity", "value": "c"}])
        self.assertEqual(out.spec.holder_identity, "c")
        with self.assertRaises(ApiException) as cm:
            self.coord.patch_namespaced_lease(
                "patched", NS, [{"op": "test", "path": "/spec/holderIdentity", "value": "zz"}])
        self.assertIn(cm.exception.status, (409, 422))
        with self.assertRaises(ApiException) as cm:
            self.coord.patch_namespaced_lease("missing", NS, {"spec": {"holderIdentity": "x"}})
        self.assertEqual(cm.exception.status, 404)

    def test_pod_binding(self):
        pod = client.V1Pod(metadata=client.V1ObjectMeta(name="bind-me"),
                           spec=client.V1PodSpec(containers=[
                               client.V1Container(name="c", image="nginx:1.25")]))
        uid = self.core.create_namespaced_pod(NS, pod).metadata.uid
        body = client.V1Binding(metadata=client.V1ObjectMeta(name="bind-me"),
                                target=client.V1ObjectReference(api_version="v1", kind="Node",
                                                                name="node-a"))
        # The answer is a Status, which the client would try to read as a V1Binding (a known
        # client quirk, also against kube-apiserver): read it raw.
        resp = self.core.create_namespaced_pod_binding("bind-me", NS, body,
                                                       _preload_content=False)
        self.assertEqual(resp.status, 201)
        status = json.loads(resp.data)
        self.assertEqual((status["kind"], status["status"], status["code"]),
                         ("Status", "Success", 201))
        got = self.core.read_namespaced_pod("bind-me", NS)
        self.assertEqual(got.metadata.uid, uid)  # bound in place, not recreated
        self.assertEqual(got.spec.node_name, "node-a")
        scheduled = [c for c in got.status.conditions if c.type == "PodScheduled"]
        self.assertEqual([c.status for c in scheduled], ["True"])
        with self.assertRaises(ApiException) as cm:
            self.core.create_namespaced_pod_binding("bind-me", NS, body,
                                                    _preload_content=False)
        self.assertEqual(cm.exception.status, 409)
        self.assertEqual(json.loads(cm.exception.body)["message"],
                         'Operation cannot be fulfilled on pods/binding "bind-me": '
                         'pod bind-me is already assigned to node "node-a"')
        with self.assertRaises(ApiException) as cm:
            self.core.create_namespaced_pod_binding(
                "nobody", NS, client.V1Binding(metadata=client.V1ObjectMeta(name="nobody"),
                                               target=client.V1ObjectReference(name="node-a")),
                _preload_content=False)
        self.assertEqual(cm.exception.status, 404)

    def test_watch_resume_from_resource_version(self):
        start_rv = self.coord.list_namespaced_lease(NS).metadata.resource_version
        for i in range(3):
            self.coord.create_namespaced_lease(NS, lease("w-%d" % i, labels={"suite": "w"}))
        w = watch.Watch()
        seen = []
        # The first watch runs to its server-side timeout (see test_watch_after_abandoned_watch
        # for why it is not stopped early).
        for ev in w.stream(self.coord.list_namespaced_lease, NS, label_selector="suite=w",
                           resource_version=start_rv, timeout_seconds=2):
            seen.append((ev["type"], ev["object"].metadata.name,
                         ev["object"].metadata.resource_version))
        self.assertEqual([(t, n) for t, n, _ in seen],
                         [("ADDED", "w-0"), ("ADDED", "w-1"), ("ADDED", "w-2")])
        last_rv = seen[-1][2]
        # more writes while nobody watches, then resume from the last RV seen: exactly those
        self.coord.patch_namespaced_lease("w-1", NS, {"spec": {"holderIdentity": "z"}})
        self.coord.delete_namespaced_lease("w-0", NS)
        resumed = []
        for ev in watch.Watch().stream(self.coord.list_namespaced_lease, NS,
                                       label_selector="suite=w", resource_version=last_rv,
                                       timeout_seconds=2):
            resumed.append((ev["type"], ev["object"].metadata.name))
        self.assertEqual(resumed, [("MODIFIED", "w-1"), ("DELETED", "w-0")])

    @unittest.skip("known server bug: a watch the client dropped mid-stream, until the server "
                   "notices, delays events of new watches from a past RV by seconds")
    def test_watch_after_abandoned_watch(self):
        rv = self.coord.list_namespaced_lease(NS).metadata.resource_version
        self.coord.create_namespaced_lease(NS, lease("ab-0", labels={"suite": "ab"}))
        w = watch.Watch()
        for _ in w.stream(self.coord.list_namespaced_lease, NS, label_selector="suite=ab",
                          resource_version=rv, timeout_seconds=20):
            w.stop()  # the client goes away; the server-side watch lives on for 20 s
        last = self.coord.read_namespaced_lease("ab-0", NS).metadata.resource_version
        self.coord.patch_namespaced_lease("ab-0", NS, {"spec": {"holderIdentity": "z"}})
        got = []
        w = watch.Watch()
        for ev in w.stream(self.coord.list_namespaced_lease, NS, label_selector="suite=ab",
                           resource_version=last, timeout_seconds=1):
            got.append(ev["type"])
        self.assertEqual(got, ["MODIFIED"])

    def test_watch_gets_410_and_relists(self):
        old_rv = self.coord.list_namespaced_lease(NS).metadata.resource_version
        for i in range(HISTORY * 3):  # pushes old_rv out of the shrunken history
            self.coord.create_namespaced_lease(NS, lease("gone-%d" % i, labels={"suite": "g"}))
        self.srv.forget_history()
        # The raw stream: an ERROR event carrying a 410 Expired Status.
        resp = self.coord.list_namespaced_lease(NS, watch=True, resource_version=old_rv,
                                                timeout_seconds=5, _preload_content=False)
        try:
            buf = b""
            for chunk in resp.stream(amt=None):
                buf += chunk
                if b"\n" in buf:
                    break
            first = json.loads(buf.split(b"\n")[0])
        finally:
            resp.close()  # never hand a half-read stream back to the pool
            resp.release_conn()
        self.assertEqual(first["type"], "ERROR")
        self.assertEqual(first["object"]["code"], 410)
        self.assertEqual(first["object"]["reason"], "Expired")
        # watch.Watch retries once on 410 with the same RV, then raises: the client relists.
        with self.assertRaises(ApiException) as cm:
            for _ in watch.Watch().stream(self.coord.list_namespaced_lease, NS,
                                          resource_version=old_rv, timeout_seconds=5):
                pass
        self.assertEqual(cm.exception.status, 410)
        relist = self.coord.list_namespaced_lease(NS, label_selector="suite=g")
        self.assertEqual(len(relist.items), HISTORY * 3)
        rv = relist.metadata.resource_version
        done = threading.Event()

        def write_later():
            done.wait(0.3)
            self.coord.create_namespaced_lease(NS, lease("after-relist",
                                                         labels={"suite": "g"}))
        t = threading.Thread(target=write_later)
        t.start()
        events = []
        # Runs to its timeout instead of stopping early: see test_watch_after_abandoned_watch.
        for ev in watch.Watch().stream(self.coord.list_namespaced_lease, NS,
                                       label_selector="suite=g", resource_version=rv,
                                       timeout_seconds=2):
            events.append((ev["type"], ev["object"].metadata.name))
        t.join()
        self.assertEqual(events, [("ADDED", "after-relist")])


if __name__ == "__main__":
    unittest.main()
