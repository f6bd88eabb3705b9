#!/usr/bin/python3
"""Records how upstream apimachinery's labels.Parse answers a set of selector strings.

kubectl is a Go binary built from apimachinery; `kubectl set selector --local` runs
metav1.ParseToLabelSelector offline, which wraps labels.Parse errors as
  couldn't parse the selector string "<input>": <labels.Parse error>
so its stderr gives the exact upstream message. Anything else (YAML, or a later complaint such as
'"!=" is not a valid label selector operator') means the string parsed.

Output: label_parse_golden.tsv, one case per line: <escaped input> TAB OK|ERR TAB <escaped msg>.
Escaping: backslash doubled, bytes outside printable ASCII (and TAB) as \\xHH.
  src/api/selectors/testdata/gen_label_golden.py [path/to/kubectl]
"""
import os
import random
import subprocess
import sys
import tempfile

KUBECTL = sys.argv[1] if len(sys.argv) > 1 else "/usr/lib/google-cloud-sdk/bin/kubectl.1.33"
HERE = os.path.dirname(os.path.abspath(__file__))

SVC = b"""apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector:
    app: web
  ports:
  - port: 80
"""

HAND = [
    "", " ", "a", "!a", "a=b", "a==b", "a!=b", "a in (b)", "a notin (b)", "a>1", "a<1",
    "x=a,y=b,z=c", "x!=a,y=b", "x=", "x= ", "x=,z= ", "x= ,z= ", "x>1,z<5", "x=a||y=b",
    "x==a==b", "!x=a", "x<a", "app IN (a)", "x (", "x )", "x y", "x !", "!x in (a)", "a,",
    "a,,b", "a,=b", ",a", "(", "=a", "!", "!!x", "!=x", "x in a", "x in", "x in (a",
    "x in (a b)", "x in (=", "x in (", "x in (,=)", "x=(", "x!=)", "-a", "a/", "/a=b",
    "Foo.com/x", "a/b/c", "a=-b", "a in (ok,zz-)", "x>-1", "x>abc-", "x nott in (y)",
    "a in (xyz),", "a in (xyz)b notin ()", "a in (xyz abc)", "a notin(", "a (", "x>a",
    "x notin ( )", "x notin (, a)", "a in (x,y,notin, z,in)", "in in (in)", "notin=in",
    "x in (a,,b)", "x in (,)", "x in (,,)", "x in (,,,)", "x in (a,,)", "x in (a,,,b)",
    "x in (a,,,,b)", "x in (,a,,)", "x in ()", "a=b=c", "a==", "a!=", "a>", "a<",
    "a>>1", "a<<1", "a=>1", "a>=1", "a<=1", "a=!b", "a!==b", "a=(b)", "a in ((b))",
    "a in (b))", "a in (b),(c)", "a\tin\t(b)", "a\nin\n(b)", "a\rin\r(b)", "\ra", "a\x0b",
    "a=\u00e9", "\u00e9=a", "a=caf\u00e9", "k=\u00a0", "a in (\u00e9)", "x>9223372036854775808",
    "x>+1", "x<-0", "x>01", "x>0x1", "x>1_000", "a" * 64, "a=" + "b" * 64,
    "a" * 254 + "/b", "example.com/" + "n" * 64, "Example.com/abc", "example_com/abc",
    "example.com/", "a.b.c/d-e_f.G", "1234", "1234/5678", "-", "_", ".", "a.", ".a",
    "kubernetes.io/service-name=web", "!service.kubernetes.io/headless",
    "endpointslice.kubernetes.io/managed-by=endpointslice-controller.k8s.io",
    "app in (a,b),tier!=db", "x,y in (a)", "a=b,", "a=b,,", "a=b c", "a b=c", "a, b", " a , b ",
    "a=\"b\"", "a='b'", "a=b\\c", "a=\\", "\\=a", "a~b", "a=b~", "a|b", "a in (b|c)",
    "a=b;c=d", "a=b&c=d", "a%20=b", "a+b=c", "a=b+c", "a*", "a=*", "!a,!b,c", "!a b",
    "!(a)", "!,a", "a!", "a=!", "a notin", "a notin (", "a notin ()", "a notin ())",
    "in", "notin", "in=in", "in in (notin)", "notin notin (in)", "a in in", "a in (in",
    "IN", "Notin", "a NOTIN (b)", "a iN (b)", "a in(b)", "a notin(b)", "a in(b,c)",
]

ALPHABET = ["a", "b", "x", "k1", "in", "notin", "IN", "=", "==", "!=", "!", "(", ")", ",", ">",
            "<", " ", "  ", "1", "-1", "a.b/c", "-", "_a", "\u00e9", "a-", "9", ""]


def random_cases(n, seed=20260521):
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        k = rng.randint(1, 7)
        out.append("".join(rng.choice(ALPHABET) for _ in range(k)))
    return out


def escape(data: bytes) -> str:
    out = []
    for b in data:
        if b == 0x5C:
            out.append("\\\\")
        elif 0x20 <= b < 0x7F:
            out.append(chr(b))
        else:
            out.append("\\x%02x" % b)
    return "".join(out)


def probe(svc_path, selector: str):
    arg = selector.encode()
    res = subprocess.run([KUBECTL, "set", "selector", "--local", "-f", svc_path, "-o", "yaml",
                          "--", arg], capture_output=True)
    prefix = b"error: couldn't parse the selector string \"" + arg + b"\": "
    err = res.stderr
    if err.startswith(prefix):
        msg = err[len(prefix):]
        if msg.endswith(b"\n"):
            msg = msg[:-1]
        return "ERR", msg
    if b"couldn't parse" in err:
        raise SystemExit("unexpected kubectl output for %r: %r" % (selector, err))
    return "OK", b""


def main():
    cases = []
    seen = set()
    for c in HAND + random_cases(220):
        if c not in seen:
            seen.add(c)
            cases.append(c)
    with tempfile.TemporaryDirectory() as tmp:
        svc_path = os.path.join(tmp, "svc.yaml")
        with open(svc_path, "wb") as f:
            f.write(SVC)
        lines = []
        for c in cases:
            kind, msg = probe(svc_path, c)
            lines.append("%s\t%s\t%s\n" % (escape(c.encode()), kind, escape(msg)))
    with open(os.path.join(HERE, "label_parse_golden.tsv"), "w") as f:
        f.write("# Generated by gen_label_golden.py from %s; do not edit.\n"
                % os.path.basename(KUBECTL))
        f.writelines(lines)
    print("%d cases" % len(lines))


if __name__ == "__main__":
    main()
