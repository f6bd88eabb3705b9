"""Node simulation against the real `svcplane serve`: src/sim's sim_runner registers simulated
nodes through the kubeconfig, schedules Pods, runs them, and marks a silent zone not ready.

The lifecycle timings are shortened (heartbeat 2 s, grace 6 s, monitor period 1 s) so the test
stays fast; the logic is the one that runs with the 10 s / 40 s / 5 s defaults.
"""

import ipaddress
import os
import subprocess
import threading
import time
import unittest

from kubernetes import client

import harness

SIM_RUNNER = os.environ.get("SIM_RUNNER_BIN", "")
NS = "default"
NODES = 50
PODS = 500
GRACE_S = 6
PERIOD_S = 1
ZONES = ["zone-a", "zone-b", "zone-c"]


def ready(pod):
    for c in pod.status.conditions or []:
        if c.type == "Ready":
            return c.status == "True"
    return False


def node_ready(node):
    for c in node.status.conditions or []:
        if c.type == "Ready":
            return c.status
    return None


class Runner:
    """sim_runner with a line-based control channel on stdin/stdout."""

    def __init__(self, kubeconfig, log_path, *args):
        self.log = open(log_path, "ab")
        self.proc = subprocess.Popen(
            [SIM_RUNNER, "--kubeconfig", kubeconfig] + list(args),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, text=True, bufsize=1)
        self.lock = threading.Lock()

    def expect_line(self, want, timeout=60.0):
        result = []
        t = threading.Thread(target=lambda: result.append(self.proc.stdout.readline()))
        t.daemon = True
        t.start()
        t.join(timeout)
        if not result:
            raise AssertionError("sim_runner said nothing for %.0fs" % timeout)
        line = result[0].strip()
        if want is not None and line != want:
            raise AssertionError("sim_runner said %r, want %r" % (line, want))
        return line

    def command(self, line):
        with self.lock:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
            return self.expect_line(None, 30.0)

    def stop(self):
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write("quit\n")
                self.proc.stdin.flush()
                self.proc.wait(20)
            except (BrokenPipeError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait(20)
        self.log.close()


def wait_until(fn, timeout, step=0.25):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = fn()
        if last is True:
            return True
        time.sleep(step)
    return last


@unittest.skipUnless(SIM_RUNNER, "set SIM_RUNNER_BIN to the sim_runner binary")
class Simulation(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.srv = harness.Server()
        cls.srv.start()
        cls.runner = Runner(cls.srv.kubeconfig, os.path.join(cls.srv.data_dir, "sim.log"),
                            "--nodes", str(NODES), "--heartbeat-interval-ms", "2000",
                            "--node-monitor-grace-ms", str(GRACE_S * 1000),
                            "--node-monitor-period-ms", str(PERIOD_S * 1000),
                            "--pod-create-delay-ms", "250", "--pod-ready-delay-ms", "250",
                            "--pod-terminate-delay-ms", "500")
        cls.runner.expect_line("ready", 60.0)
        cls.api = cls.srv.api_client()
        cls.core = client.CoreV1Api(cls.api)
        cls.coord = client.CoordinationV1Api(cls.api)

    @classmethod
    def tearDownClass(cls):
        cls.runner.stop()
        cls.api.close()
        cls.srv.cleanup()

    def nodes(self):
        return {n.metadata.name: n for n in self.core.list_node().items}

    def pods(self):
        return self.core.list_namespaced_pod(NS).items

    def test_1_nodes_are_registered_as_kwok_marks_them(self):
        nodes = self.nodes()
        self.assertEqual(len(nodes), NODES)
        zones = {}
        cidrs = set()
        for name, n in nodes.items():
            self.assertRegex(name, r"^sim-node-\d{4}$")
            self.assertEqual(n.metadata.annotations["kwok.x-k8s.io/node"], "fake")
            self.assertEqual(n.metadata.labels["type"], "kwok")
            self.assertEqual(n.metadata.labels["kubernetes.io/hostname"], name)
            self.assertEqual(n.metadata.labels["topology.kubernetes.io/region"], "region-1")
            zone = n.metadata.labels["topology.kubernetes.io/zone"]
            zones[zone] = zones.get(zone, 0) + 1
            self.assertEqual([(t.key, t.value, t.effect) for t in n.spec.taints],
                             [("kwok.x-k8s.io/node", "fake", "NoSchedule")])
            net = ipaddress.ip_network(n.spec.pod_cidr)
            self.assertTrue(net.subnet_of(ipaddress.ip_network("10.244.0.0/16")))
            self.assertEqual(net.prefixlen, 24)
            cidrs.add(n.spec.pod_cidr)
            self.assertEqual(n.status.allocatable["pods"], "110")
            self.assertEqual(node_ready(n), "True")
            self.assertIn("InternalIP", [a.type for a in n.status.addresses])
        self.assertEqual(zones, {"zone-a": 17, "zone-b": 17, "zone-c": 16})
        self.assertEqual(len(cidrs), NODES)

        def leases_renewed():
            leases = self.coord.list_namespaced_lease("kube-node-lease").items
            return len(leases) == NODES and all(
                l.spec.holder_identity == l.metadata.name and l.spec.renew_time is not None and
                [(o.kind, o.name, o.uid) for o in l.metadata.owner_references or []] ==
                [("Node", l.metadata.name, nodes[l.metadata.name].metadata.uid)]
                for l in leases) or len(leases)
        self.assertIs(wait_until(leases_renewed, 30), True)

    def test_2_pods_are_scheduled_and_become_ready(self):
        t0 = time.monotonic()
        errors = []

        def create(lo, hi):
            for i in range(lo, hi):
                body = client.V1Pod(
                    metadata=client.V1ObjectMeta(name="p-%03d" % i, labels={"app": "sim"}),
                    spec=client.V1PodSpec(containers=[client.V1Container(
                        name="c", image="nginx", ports=[client.V1ContainerPort(
                            container_port=8080)])]))
                try:
                    self.core.create_namespaced_pod(NS, body)
                except Exception as e:  # noqa: BLE001 - reported below
                    errors.append(e)
        threads = [threading.Thread(target=create, args=(k * 100, k * 100 + 100))
                   for k in range(PODS // 100)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])

        def all_ready():
            pods = self.pods()
            n = sum(1 for p in pods if ready(p))
            return (len(pods) == PODS and n == PODS) or n
        result = wait_until(all_ready, 180, 1.0)
        self.assertIs(result, True, "ready: %s\n%s" % (result, self.runner.command("stats")))
        print("\n%d pods Ready in %.1fs" % (PODS, time.monotonic() - t0))

        nodes = self.nodes()
        ips = set()
        per_node = {}
        for p in self.pods():
            node = nodes[p.spec.node_name]
            self.assertEqual(p.status.phase, "Running")
            self.assertIn(ipaddress.ip_address(p.status.pod_ip),
                          ipaddress.ip_network(node.spec.pod_cidr))
            self.assertEqual(p.status.host_ip, [a.address for a in node.status.addresses
                                                if a.type == "InternalIP"][0])
            conds = {c.type: c.status for c in p.status.conditions}
            for t in ("PodScheduled", "Initialized", "ContainersReady", "Ready"):
                self.assertEqual(conds.get(t), "True", t)
            cs = p.status.container_statuses[0]
            self.assertTrue(cs.ready and cs.started and cs.state.running is not None)
            ips.add(p.status.pod_ip)
            per_node[p.spec.node_name] = per_node.get(p.spec.node_name, 0) + 1
        self.assertEqual(len(ips), PODS)
        # Least-loaded placement: 500 Pods over 50 nodes is 10 each (a node whose lease renewal
        # was late on a loaded machine may have been skipped for a moment).
        self.assertEqual(len(per_node), NODES)
        self.assertLessEqual(max(per_node.values()) - min(per_node.values()), 2, per_node)

    def test_3_killing_a_zones_heartbeats_makes_its_pods_not_ready(self):
        nodes = self.nodes()
        zone_a = {n for n, o in nodes.items()
                  if o.metadata.labels["topology.kubernetes.io/zone"] == "zone-a"}
        self.assertEqual(self.runner.command("stop zone-a"), "ok")
        t0 = time.monotonic()

        def zone_a_down():
            pods = self.pods()
            down = [p for p in pods if p.spec.node_name in zone_a and not ready(p)]
            want = sum(1 for p in pods if p.spec.node_name in zone_a)
            return (want > 0 and len(down) == want) or len(down)
        # The lease may have just been renewed: grace + one monitor period + writes (slack for
        # the loaded machine; the measured time is printed).
        budget = GRACE_S + 2 * 2 + PERIOD_S + 15
        result = wait_until(zone_a_down, budget)
        self.assertIs(result, True, "not ready: %s\n%s" % (result, self.runner.command("stats")))
        print("\nzone-a pods not Ready %.1fs after its heartbeats stopped (grace %ds)"
              % (time.monotonic() - t0, GRACE_S))
        self.assertGreaterEqual(time.monotonic() - t0, GRACE_S - 2.5)  # not before the grace
        for name, n in self.nodes().items():
            want = "Unknown" if name in zone_a else "True"
            self.assertEqual(node_ready(n), want, name)
            if name in zone_a:
                r = [c for c in n.status.conditions if c.type == "Ready"][0]
                self.assertEqual(r.reason, "NodeStatusUnknown")
        others = [p for p in self.pods() if p.spec.node_name not in zone_a]
        self.assertTrue(others and all(ready(p) for p in others))

        self.assertEqual(self.runner.command("resume zone-a"), "ok")

        def all_ready():
            n = sum(1 for p in self.pods() if ready(p))
            return n == PODS or n
        result = wait_until(all_ready, 60)
        self.assertIs(result, True, "ready: %s" % result)
        self.assertTrue(all(node_ready(n) == "True" for n in self.nodes().values()))

    def test_4_deleted_pod_terminates_then_disappears(self):
        pod = self.pods()[0]
        name = pod.metadata.name
        self.core.delete_namespaced_pod(name, NS)  # default grace: 30 s
        p = self.core.read_namespaced_pod(name, NS)
        self.assertIsNotNone(p.metadata.deletion_timestamp)
        # Ready until the kubelet stand-in deletes it (spec workloads.md §5).
        self.assertTrue(ready(p))

        def gone():
            try:
                p = self.core.read_namespaced_pod(name, NS)
                return "still there, ready=%s" % ready(p)
            except client.exceptions.ApiException as e:
                return e.status == 404
        self.assertIs(wait_until(gone, 30), True)
        self.assertRegex(self.runner.command("stats"), r" deleted=[1-9]")

        # The kubelet's Killing event, written through the REST client.
        def killing():
            events = self.core.list_namespaced_event(NS).items
            return [e for e in events if e.reason == "Killing" and
                    e.involved_object.uid == pod.metadata.uid] or None
        found = wait_until(lambda: killing() is not None or None, 15)
        self.assertIs(found, True, "no Killing event for %s" % name)
        e = killing()[0]
        self.assertEqual((e.type, e.message, e.source.component, e.source.host),
                         ("Normal", "Stopping container c", "kubelet", pod.spec.node_name))

    def test_5_unschedulable_pods_wait_and_other_schedulers_are_left_alone(self):
        other = client.V1Pod(
            metadata=client.V1ObjectMeta(name="other-sched"),
            spec=client.V1PodSpec(scheduler_name="my-scheduler",
                                  containers=[client.V1Container(name="c", image="x")]))
        picky = client.V1Pod(
            metadata=client.V1ObjectMeta(name="picky"),
            spec=client.V1PodSpec(node_selector={"topology.kubernetes.io/zone": "zone-x"},
                                  containers=[client.V1Container(name="c", image="x")]))
        self.core.create_namespaced_pod(NS, other)
        self.core.create_namespaced_pod(NS, picky)
        time.sleep(3)
        for n in ("other-sched", "picky"):
            p = self.core.read_namespaced_pod(n, NS)
            self.assertIsNone(p.spec.node_name, n)
            self.core.delete_namespaced_pod(n, NS)

    def test_6_annotating_a_node_kills_its_kubelet(self):
        name = "sim-node-0002"
        on_node = [p.metadata.name for p in self.pods() if p.spec.node_name == name]
        self.assertTrue(on_node)
        self.core.patch_node(name, {"metadata": {"annotations": {
            "sim.svcplane.io/heartbeats": "stopped"}}})

        def down():
            pods = [p for p in self.pods() if p.spec.node_name == name]
            return all(not ready(p) for p in pods) and \
                node_ready(self.core.read_node(name)) == "Unknown"
        self.assertIs(wait_until(down, GRACE_S + 2 + PERIOD_S + 15), True)
        others = [p for p in self.pods() if p.spec.node_name != name and p.spec.node_name]
        self.assertTrue(all(ready(p) for p in others))

        self.core.patch_node(name, {"metadata": {"annotations": {
            "sim.svcplane.io/heartbeats": None}}})

        def up():
            pods = [p for p in self.pods() if p.spec.node_name == name]
            return all(ready(p) for p in pods) and \
                node_ready(self.core.read_node(name)) == "True"
        self.assertIs(wait_until(up, 30), True)


if __name__ == "__main__":
    unittest.main()
