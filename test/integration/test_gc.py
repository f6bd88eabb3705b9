"""Garbage collection by ownerReferences against `svcplane serve` (the Python client).

A dependent whose every owner (of a kind we serve) is gone is deleted; "Orphan" propagation
strips the owner from its dependents and keeps them; "Foreground" deletes the dependents before
the owner; an owner of a kind we do not serve keeps its dependent. Services own Pods here, the
only pairing our kinds allow besides Service -> EndpointSlice.
"""

import time
import unittest

import harness
from kubernetes import client

NS = "gc"
TIMEOUT = 30


class GarbageCollectionTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.srv, cls.api = harness.start_with_client()
        cls.core = client.CoreV1Api(cls.api)
        cls.core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=NS)))

    @classmethod
    def tearDownClass(cls):
        cls.srv.cleanup()

    def service(self, name):
        svc = client.V1Service(
            metadata=client.V1ObjectMeta(name=name),
            spec=client.V1ServiceSpec(selector={"app": name},
                                      ports=[client.V1ServicePort(port=80)]))
        return self.core.create_namespaced_service(NS, svc)

    def pod(self, name, owners):
        refs = [client.V1OwnerReference(api_version=a, kind=k, name=n, uid=u)
                for a, k, n, u in owners]
        pod = client.V1Pod(
            metadata=client.V1ObjectMeta(name=name, owner_references=refs),
            spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="pause")]))
        return self.core.create_namespaced_pod(NS, pod)

    def owned_by(self, svc):
        return ("v1", "Service", svc.metadata.name, svc.metadata.uid)

    def exists(self, read, name):
        try:
            return read(name, NS)
        except client.ApiException as e:
            if e.status == 404:
                return None
            raise

    def wait(self, what, cond):
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            if cond():
                return
            time.sleep(0.1)
        self.fail("%s not within %d s%s" % (what, TIMEOUT, self.srv.died()))

    def delete_service(self, name, policy):
        self.core.delete_namespaced_service(
            name, NS, body=client.V1DeleteOptions(propagation_policy=policy))

    def test_background_deletes_dependents_of_a_deleted_owner(self):
        svc = self.service("bg")
        self.pod("bg-pod", [self.owned_by(svc)])
        self.delete_service("bg", "Background")
        self.wait("bg-pod deleted",
                  lambda: self.exists(self.core.read_namespaced_pod, "bg-pod") is None)

    def test_a_dependent_with_one_live_owner_stays(self):
        gone, live = self.service("gone"), self.service("live")
        self.pod("two-owners", [self.owned_by(gone), self.owned_by(live)])
        self.pod("only-gone", [self.owned_by(gone)])
        self.delete_service("gone", "Background")
        self.wait("only-gone deleted",
                  lambda: self.exists(self.core.read_namespaced_pod, "only-gone") is None)
        self.assertIsNotNone(self.exists(self.core.read_namespaced_pod, "two-owners"))

    def test_orphan_keeps_dependents_without_the_owner(self):
        svc = self.service("orphaner")
        self.pod("orphan", [self.owned_by(svc)])
        self.delete_service("orphaner", "Orphan")
        self.wait("orphaner deleted",
                  lambda: self.exists(self.core.read_namespaced_service, "orphaner") is None)
        pod = self.exists(self.core.read_namespaced_pod, "orphan")
        self.assertIsNotNone(pod)
        self.assertFalse(pod.metadata.owner_references)

    def test_foreground_deletes_dependents_then_the_owner(self):
        svc = self.service("fg")
        self.pod("fg-pod", [self.owned_by(svc)])
        self.delete_service("fg", "Foreground")
        self.wait("fg-pod and fg deleted",
                  lambda: self.exists(self.core.read_namespaced_pod, "fg-pod") is None
                  and self.exists(self.core.read_namespaced_service, "fg") is None)

    def test_an_owner_of_a_kind_not_served_keeps_its_dependent(self):
        self.pod("rs-pod", [("batch/v1", "Job", "web-abc", "0f0f0f0f-aaaa-bbbb-cccc-1234")])
        svc = self.service("kick")  # a DELETE runs a collection pass at once
        self.pod("kick-pod", [self.owned_by(svc)])
        self.delete_service("kick", "Background")
        self.wait("kick-pod deleted",
                  lambda: self.exists(self.core.read_namespaced_pod, "kick-pod") is None)
        self.assertIsNotNone(self.exists(self.core.read_namespaced_pod, "rs-pod"))

    def test_a_missing_replicaset_owner_is_collected_now_that_replicasets_are_served(self):
        self.pod("orphan-of-rs",
                 [("apps/v1", "ReplicaSet", "gone", "0f0f0f0f-aaaa-bbbb-cccc-5678")])
        svc = self.service("kick2")
        self.pod("kick2-pod", [self.owned_by(svc)])
        self.delete_service("kick2", "Background")
        self.wait("orphan-of-rs deleted",
                  lambda: self.exists(self.core.read_namespaced_pod, "orphan-of-rs") is None)


if __name__ == "__main__":
    unittest.main()
