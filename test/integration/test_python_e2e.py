"""The Python client's own end-to-end flows over the kinds svcplane serves (issue 24, "Show it").

kubernetes-client/python's e2e suite (kubernetes/e2e_test) is not shipped by Debian's
python3-kubernetes, so its scenarios that need only our kinds are written here against the
client's public API, as a user of the client would: `kubernetes.utils.create_from_yaml` /
`create_from_dict` with single objects, multi-document files, `kind: List` / `XxxList` files
(including items without kind), conflicts reported as `FailToCreateError` whose text is the
server's Status byte for byte, a Deployment in a namespace created by the previous file,
ConfigMap CRUD through CoreV1Api and the DynamicClient, and a watch of ConfigMaps. Left out as
the issue says: ReplicationControllers, APIServices, exec and port-forward.
"""

import json
import os
import tempfile
import threading
import unittest

import harness

DEPLOYMENT_YAML = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx-app
  labels:
    app: nginx
spec:
  replicas: 3
  selector:
    matchLabels:
      app: nginx
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
      - name: nginx
        image: nginx:1.15.4
        ports:
        - containerPort: 80
"""

LIST_YAML = """apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Service
  metadata:
    name: list-service
    labels:
      app: list-deployment
  spec:
    ports:
    - port: 80
    selector:
      app: list-deployment
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: list-deployment
  spec:
    replicas: 1
    selector:
      matchLabels:
        app: list-deployment
    template:
      metadata:
        labels:
          app: list-deployment
      spec:
        containers:
        - name: nginx
          image: nginx:1.15.4
"""

NAMESPACE_LIST_YAML = """apiVersion: v1
kind: NamespaceList
items:
- metadata:
    name: e2e-ns-1
    labels:
      name: e2e-ns-1
- metadata:
    name: e2e-ns-2
    labels:
      name: e2e-ns-2
"""

# Three documents: the same Deployment three times; the second and third fail with 409.
TRIPLE_YAML = "---\n".join([DEPLOYMENT_YAML.replace("nginx-app", "triple")] * 3)

# A PodList (items without kind) and a Deployment in one multi-document file.
PODLIST_AND_DEPLOYMENT_YAML = """apiVersion: v1
kind: PodList
items:
- metadata:
    name: mock-pod-0
    labels:
      app: mock-pod-0
  spec:
    containers:
    - name: mock-pod-0
      image: busybox
- metadata:
    name: mock-pod-1
    labels:
      app: mock-pod-1
  spec:
    containers:
    - name: mock-pod-1
      image: busybox
---
""" + DEPLOYMENT_YAML.replace("nginx-app", "mock")

SERVICE_LIST_JSON = {
    "apiVersion": "v1", "kind": "ServiceList",
    "items": [{"metadata": {"name": "svc-%d" % i, "labels": {"app": "svc-%d" % i}},
               "spec": {"ports": [{"port": 80}], "selector": {"app": "svc-%d" % i}}}
              for i in (3, 4, 3)],
}


def conflict_text(resource, name, group=None):
    """What FailToCreateError prints for one 409: 'Error from server (Conflict): ' and the body
    exactly as kube-apiserver writes it (field order, a trailing newline)."""
    details = {"name": name}
    if group:
        details["group"] = group
    details["kind"] = resource
    qualified = resource + ("." + group if group else "")
    body = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": '%s "%s" already exists' % (qualified, name),
            "reason": "AlreadyExists", "details": details, "code": 409}
    return "Error from server (Conflict): " + json.dumps(body, separators=(",", ":")) + "\n"


class PythonClientE2E(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.srv, cls.api = harness.start_with_client()
        cls.tmp = tempfile.mkdtemp(prefix="svcplane-pye2e-")

    @classmethod
    def tearDownClass(cls):
        cls.srv.cleanup()

    def write(self, name, text):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def apps(self):
        from kubernetes import client
        return client.AppsV1Api(self.api)

    def core(self):
        from kubernetes import client
        return client.CoreV1Api(self.api)

    def check_nginx(self, dep, name):
        c = dep.spec.template.spec.containers[0]
        self.assertEqual((dep.metadata.name, c.image, c.ports[0].container_port, c.name),
                         (name, "nginx:1.15.4", 80, "nginx"))
        self.assertEqual(dep.spec.template.metadata.labels["app"], "nginx")
        self.assertEqual(dep.spec.replicas, 3)

    # --- create_from_yaml / create_from_dict ------------------------------------------------

    def test_deployment_from_yaml_file_objects_and_dict(self):
        from kubernetes import utils
        import yaml
        path = self.write("deployment.yaml", DEPLOYMENT_YAML)
        created = utils.create_from_yaml(self.api, path)
        self.assertEqual(created[0][0].metadata.name, "nginx-app")
        self.check_nginx(self.apps().read_namespaced_deployment("nginx-app", "default"),
                         "nginx-app")
        self.apps().delete_namespaced_deployment("nginx-app", "default", body={})

        with open(path) as f:
            utils.create_from_yaml(self.api, yaml_objects=list(yaml.safe_load_all(f)),
                                   namespace="kube-public")
        self.check_nginx(self.apps().read_namespaced_deployment("nginx-app", "kube-public"),
                         "nginx-app")
        self.apps().delete_namespaced_deployment("nginx-app", "kube-public", body={})

        obj = yaml.safe_load(DEPLOYMENT_YAML)
        obj["metadata"]["name"] = "nginx-app-3"
        utils.create_from_dict(self.api, obj)
        self.check_nginx(self.apps().read_namespaced_deployment("nginx-app-3", "default"),
                         "nginx-app-3")
        self.apps().delete_namespaced_deployment("nginx-app-3", "default", body={})

    def test_list_and_namespace_list(self):
        from kubernetes import utils
        utils.create_from_yaml(self.api, self.write("list.yaml", LIST_YAML))
        svc = self.core().read_namespaced_service("list-service", "default")
        self.assertEqual(svc.spec.selector["app"], "list-deployment")
        dep = self.apps().read_namespaced_deployment("list-deployment", "default")
        self.assertEqual((dep.spec.replicas, dep.spec.template.spec.containers[0].image),
                         (1, "nginx:1.15.4"))
        self.core().delete_namespaced_service("list-service", "default", body={})
        self.apps().delete_namespaced_deployment("list-deployment", "default", body={})

        utils.create_from_yaml(self.api, self.write("nslist.yaml", NAMESPACE_LIST_YAML))
        for n in ("e2e-ns-1", "e2e-ns-2"):
            self.assertEqual(self.core().read_namespace(n).metadata.labels["name"], n)

    def test_deployment_in_a_namespace_from_the_previous_file(self):
        from kubernetes import utils
        utils.create_from_yaml(self.api, self.write("ns.yaml", (
            "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: dep\n")))
        dep_yaml = DEPLOYMENT_YAML.replace("  name: nginx-app\n",
                                           "  name: nginx-deployment\n  namespace: dep\n")
        utils.create_from_yaml(self.api, self.write("dep.yaml", dep_yaml))
        dep = self.apps().read_namespaced_deployment("nginx-deployment", "dep")
        self.assertEqual(dep.metadata.namespace, "dep")
        self.apps().delete_namespaced_deployment("nginx-deployment", "dep", body={})

    def test_podlist_and_deployment_in_one_file(self):
        from kubernetes import utils
        for ns in ("default", "kube-public"):
            utils.create_from_yaml(self.api, self.write("multi.yaml", PODLIST_AND_DEPLOYMENT_YAML),
                                   namespace=ns)
            for i in (0, 1):
                pod = self.core().read_namespaced_pod("mock-pod-%d" % i, ns)
                self.assertEqual((pod.metadata.labels["app"], pod.spec.containers[0].image),
                                 ("mock-pod-%d" % i, "busybox"))
            self.assertEqual(self.apps().read_namespaced_deployment("mock", ns).spec.replicas, 3)
            for i in (0, 1):
                self.core().delete_namespaced_pod("mock-pod-%d" % i, ns, body={})
            self.apps().delete_namespaced_deployment("mock", ns, body={})

    def test_conflicts_carry_the_servers_status_text(self):
        from kubernetes import utils
        with self.assertRaises(utils.FailToCreateError) as cm:
            utils.create_from_yaml(self.api, self.write("triple.yaml", TRIPLE_YAML))
        self.assertEqual(str(cm.exception), conflict_text("deployments", "triple", "apps") * 2)
        self.assertIsNotNone(self.apps().read_namespaced_deployment("triple", "default"))
        self.apps().delete_namespaced_deployment("triple", "default", body={})

        # A ServiceList whose items carry no kind; the third repeats the first.
        with self.assertRaises(utils.FailToCreateError) as cm:
            utils.create_from_dict(self.api, json.loads(json.dumps(SERVICE_LIST_JSON)))
        self.assertEqual(str(cm.exception), conflict_text("services", "svc-3"))
        for i in (3, 4):
            svc = self.core().read_namespaced_service("svc-%d" % i, "default")
            self.assertEqual(svc.metadata.labels["app"], "svc-%d" % i)
            self.core().delete_namespaced_service("svc-%d" % i, "default", body={})

    # --- ConfigMaps -------------------------------------------------------------------------

    def test_configmap_apis(self):
        core = self.core()
        cm = {"kind": "ConfigMap", "apiVersion": "v1", "metadata": {"name": "test-configmap"},
              "data": {"config.json": "{\"command\":\"/usr/bin/mysqld_safe\"}",
                       "frontend.cnf": "[mysqld]\nbind-address = 10.0.0.3\nport = 3306\n"}}
        self.assertEqual(core.create_namespaced_config_map("default", cm).metadata.name,
                         "test-configmap")
        self.assertEqual(core.read_namespaced_config_map("test-configmap", "default").data,
                         cm["data"])
        cm["data"]["config.json"] = "{}"
        patched = core.patch_namespaced_config_map("test-configmap", "default", cm)
        self.assertEqual(patched.data["config.json"], "{}")
        names = [c.metadata.name for c in core.list_namespaced_config_map("default").items]
        self.assertIn("test-configmap", names)
        core.delete_namespaced_config_map("test-configmap", "default", body={})
        names = [c.metadata.name for c in core.list_namespaced_config_map("default").items]
        self.assertNotIn("test-configmap", names)

    def test_configmap_through_the_dynamic_client(self):
        from kubernetes.dynamic import DynamicClient
        dyn = DynamicClient(self.api)
        api = dyn.resources.get(api_version="v1", kind="ConfigMap")
        body = {"kind": "ConfigMap", "apiVersion": "v1",
                "metadata": {"name": "dyn-configmap", "labels": {"e2e-test": "true"}},
                "data": {"config.json": "{}"}}
        self.assertEqual(api.create(body=body, namespace="default").metadata.name,
                         "dyn-configmap")
        got = api.get(namespace="default", label_selector="e2e-test=true")
        self.assertEqual([i.metadata.name for i in got.items], ["dyn-configmap"])
        api.delete(name="dyn-configmap", namespace="default")

    def test_watch_configmaps(self):
        from kubernetes import watch
        core = self.core()
        seen = []
        # From the list's resourceVersion: every later change is delivered, however late the
        # watch request reaches the server.
        rv = core.list_namespaced_config_map("default").metadata.resource_version

        def run():
            w = watch.Watch()
            for ev in w.stream(core.list_namespaced_config_map, "default",
                               label_selector="watched=yes", resource_version=rv,
                               timeout_seconds=20):
                seen.append((ev["type"], ev["object"].metadata.name,
                             (ev["object"].data or {}).get("k")))
                if ev["type"] == "DELETED":
                    w.stop()
        t = threading.Thread(target=run, daemon=True)
        t.start()
        meta = {"name": "watched", "labels": {"watched": "yes"}}
        core.create_namespaced_config_map("default", {"metadata": meta, "data": {"k": "1"}})
        core.patch_namespaced_config_map("watched", "default", {"data": {"k": "2"}})
        core.delete_namespaced_config_map("watched", "default")
        t.join(25)
        self.assertEqual(seen, [("ADDED", "watched", "1"), ("MODIFIED", "watched", "2"),
                                ("DELETED", "watched", "2")])


if __name__ == "__main__":
    unittest.main()
