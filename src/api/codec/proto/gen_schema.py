#!/usr/bin/python3
"""Writes our .proto text for the messages reachable from the kinds svcplane serves.

The source of truth is upstream's schema as compiled into a kubectl binary: gogo-generated Go
code registers each generated.proto as a gzipped FileDescriptorProto, so the field numbers, names
and types are exactly the ones kubectl puts on the wire. We decode those descriptors with a small
wire reader (no protobuf package needed) and print proto2 text of our own layout: one file per
package, messages sorted by name, fields in declaration order (= Go struct order = JSON order),
maps as map<K, V>, and `// +inline` on the embedded structs Go's JSON writes inline.

  gen_schema.py /usr/lib/google-cloud-sdk/bin/kubectl.1.33 src/api/codec/proto
"""
import re
import sys
import zlib

ROOTS = [
    "k8s.io.api.core.v1." + k for k in
    ["Namespace", "Service", "Pod", "Node", "Endpoints", "Event", "NamespaceList", "ServiceList",
     "PodList", "NodeList", "EndpointsList", "EventList", "Binding", "ConfigMap",
     "ConfigMapList", "Secret", "SecretList", "ServiceAccount", "ServiceAccountList"]
] + [
    "k8s.io.api.discovery.v1.EndpointSlice", "k8s.io.api.discovery.v1.EndpointSliceList",
    "k8s.io.api.coordination.v1.Lease", "k8s.io.api.coordination.v1.LeaseList",
] + [
    "k8s.io.api.rbac.v1." + k for k in
    ["Role", "RoleList", "ClusterRole", "ClusterRoleList", "RoleBinding", "RoleBindingList",
     "ClusterRoleBinding", "ClusterRoleBindingList"]
] + [
    "k8s.io.api.apps.v1." + k for k in
    ["Deployment", "DeploymentList", "ReplicaSet", "ReplicaSetList"]
] + [
    "k8s.io.api.autoscaling.v1.Scale",
] + [
    "k8s.io.apimachinery.pkg.apis.meta.v1.Status", "k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent",
    "k8s.io.apimachinery.pkg.runtime.Unknown",
]

# Fields whose Go struct is embedded with `json:",inline"` (from the struct tags in the same
# binary: strings kubectl | grep 'json:",inline"').
INLINE = {"volumeSource", "handler", "localObjectReference", "ephemeralContainerCommon",
          "persistentVolumeSource", "typeMeta"}

OUT_FILES = {
    "k8s.io.api.apps.v1": "apps_v1.proto",
    "k8s.io.api.autoscaling.v1": "autoscaling_v1.proto",
    "k8s.io.api.core.v1": "core_v1.proto",
    "k8s.io.api.discovery.v1": "discovery_v1.proto",
    "k8s.io.api.coordination.v1": "coordination_v1.proto",
    "k8s.io.api.rbac.v1": "rbac_v1.proto",
    "k8s.io.apimachinery.pkg.apis.meta.v1": "meta_v1.proto",
    "k8s.io.apimachinery.pkg.runtime": "runtime.proto",
    "k8s.io.apimachinery.pkg.runtime.schema": "runtime_schema.proto",
    "k8s.io.apimachinery.pkg.util.intstr": "intstr.proto",
    "k8s.io.apimachinery.pkg.api.resource": "resource.proto",
}

TYPES = {1: "double", 2: "float", 3: "int64", 4: "uint64", 5: "int32", 6: "fixed64",
         7: "fixed32", 8: "bool", 9: "string", 12: "bytes", 13: "uint32", 15: "sfixed32",
         16: "sfixed64", 17: "sint32", 18: "sint64"}


def varint(b, i):
    r = s = 0
    while True:
        c = b[i]
        i += 1
        r |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return r, i


def fields(b):
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(b, i)
        elif wt == 2:
            n, i = varint(b, i)
            v, i = b[i:i + n], i + n
        elif wt == 1:
            v, i = b[i:i + 8], i + 8
        elif wt == 5:
            v, i = b[i:i + 4], i + 4
        else:
            raise ValueError("wire type %d" % wt)
        yield num, v


def parse_field(b):
    f = {"label": 1}
    for n, v in fields(b):
        if n == 1: f["name"] = v.decode()
        elif n == 3: f["number"] = v
        elif n == 4: f["label"] = v
        elif n == 5: f["type"] = v
        elif n == 6: f["type_name"] = v.decode()
    return f


def parse_message(b, prefix, out):
    m = {"fields": [], "map_entry": False}
    nested = []
    for n, v in fields(b):
        if n == 1: m["name"] = v.decode()
        elif n == 2: m["fields"].append(parse_field(v))
        elif n == 3: nested.append(v)
        elif n == 7:
            for on, ov in fields(v):
                if on == 7: m["map_entry"] = bool(ov)
    full = prefix + "." + m["name"]
    out[full] = m
    for nb in nested:
        parse_message(nb, full, out)


def load(binary):
    data = open(binary, "rb").read()
    msgs, pkg_of = {}, {}
    for mt in re.finditer(rb"\x1f\x8b\x08\x00\x00\x00\x00\x00", data):
        try:
            raw = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(data[mt.start():mt.start() + (1 << 21)])
            fd = dict()
            name = pkg = None
            body = []
            for n, v in fields(raw):
                if n == 1: name = v.decode()
                elif n == 2: pkg = v.decode()
                elif n == 4: body.append(v)
        except Exception:
            continue
        if not name or not name.startswith("k8s.io/") or pkg not in OUT_FILES:
            continue
        for mb in body:
            before = set(msgs)
            parse_message(mb, pkg, msgs)
            for k in set(msgs) - before:
                pkg_of[k] = pkg
    return msgs, pkg_of


def main():
    binary, outdir = sys.argv[1], sys.argv[2]
    msgs, pkg_of = load(binary)
    seen, todo = set(), list(ROOTS)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        if name not in msgs:
            sys.exit("missing message " + name)
        seen.add(name)
        for f in msgs[name]["fields"]:
            if f.get("type") == 11:
                todo.append(f["type_name"].lstrip("."))

    def type_ref(f, pkg):
        if f["type"] != 11:
            return TYPES[f["type"]]
        t = f["type_name"].lstrip(".")
        m = msgs[t]
        if m["map_entry"]:
            k, v = m["fields"][0], m["fields"][1]
            return "map<%s, %s>" % (type_ref(k, pkg), type_ref(v, pkg))
        return t[len(pkg) + 1:] if t.startswith(pkg + ".") and "." not in t[len(pkg) + 1:] else "." + t

    files = {}
    for name in sorted(seen):
        m = msgs[name]
        if m["map_entry"]:
            continue
        pkg = pkg_of[name]
        lines = ["message %s {" % name[len(pkg) + 1:]]
        for f in m["fields"]:
            t = type_ref(f, pkg)
            label = "" if t.startswith("map<") else ("repeated " if f["label"] == 3 else "optional ")
            note = "  // +inline" if f["name"] in INLINE and f.get("type") == 11 else ""
            lines.append("  %s%s %s = %d;%s" % (label, t, f["name"], f["number"], note))
        lines.append("}")
        files.setdefault(pkg, []).append("\n".join(lines))
    for pkg, blocks in files.items():
        deps = sorted({OUT_FILES[pkg_of[f["type_name"].lstrip(".")]]
                       for name in seen if pkg_of[name] == pkg
                       for f in msgs[name]["fields"] if f.get("type") == 11
                       and pkg_of[f["type_name"].lstrip(".")] != pkg})
        head = ["// Generated by gen_schema.py from the descriptors in kubectl 1.33; do not edit.",
                "// The wire schema of upstream's %s, reduced to the messages reachable from"
                % pkg,
                "// the kinds svcplane serves. `// +inline`: Go embeds the struct inline in JSON.",
                'syntax = "proto2";', "", "package %s;" % pkg, ""]
        head += ['import "%s";' % d for d in deps if d != OUT_FILES[pkg]]
        with open("%s/%s" % (outdir, OUT_FILES[pkg]), "w") as out:
            out.write("\n".join(head) + "\n\n" + "\n\n".join(blocks) + "\n")
        print(OUT_FILES[pkg], len(blocks), "messages")


if __name__ == "__main__":
    main()
