"""One change on an idle server reaches HTTPS watchers at once (issue 20).

Regression: the watch hub's workers and its 500 ms ticker shared one condition variable, so the
wake-up for a new event could be taken by the ticker and the event waited for the next tick:
every change after the first reached a watcher ~450 ms after its write was acknowledged. Here a
JSON and a protobuf watcher (separate HTTPS connections) must each see every one of 50
merge-patches within 10 ms of the PATCH's answer, with the server idle in between.
"""

import json
import struct
import threading
import time
import unittest

import harness

NS = "default"
SVC = "latency"
ROUNDS = 50
BOUND = 0.010  # seconds from the PATCH's answer to the event at the watcher
PB = "application/vnd.kubernetes.protobuf"


class Watcher(threading.Thread):
    """Reads one watch stream and records when each round's marker first arrives."""

    def __init__(self, response, protobuf):
        super().__init__(daemon=True)
        self.r = response
        self.protobuf = protobuf
        self.seen = {}  # marker bytes -> time.monotonic() of arrival
        self.ended = None
        self.cv = threading.Condition()

    def run(self):
        buf = b""
        try:
            for chunk in self.r.stream(1 << 16):
                now = time.monotonic()
                buf += chunk
                for event in self.split(buf):
                    buf = buf[len(event[1]):]
                    self.record(event[0], now)
        except Exception as e:  # the stream ends when the test closes it or the server stops
            self.ended = e

    def split(self, buf):
        """Whole events at the front of buf: [(payload, bytes consumed)]."""
        out = []
        while True:
            if self.protobuf:
                if len(buf) < 4:
                    return out
                (n,) = struct.unpack(">I", buf[:4])
                if len(buf) < 4 + n:
                    return out
                out.append((buf[4:4 + n], buf[:4 + n]))
                buf = buf[4 + n:]
            else:
                nl = buf.find(b"\n")
                if nl < 0:
                    return out
                out.append((buf[:nl], buf[:nl + 1]))
                buf = buf[nl + 1:]

    def record(self, payload, now):
        if self.protobuf:
            # The label value is a fixed-width marker; its bytes appear verbatim in the frame.
            start = payload.find(b"mark-")
            marker = payload[start:start + 8] if start >= 0 else None
        else:
            labels = json.loads(payload)["object"]["metadata"].get("labels", {})
            marker = labels.get("step", "").encode() or None
        if marker:
            with self.cv:
                self.seen.setdefault(marker, now)
                self.cv.notify_all()

    def wait_for(self, marker, timeout=5.0):
        with self.cv:
            self.cv.wait_for(lambda: marker in self.seen, timeout)
            return self.seen.get(marker)


class WatchLatencyTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.srv, cls.api = harness.start_with_client()

    @classmethod
    def tearDownClass(cls):
        cls.srv.cleanup()

    def request(self, method, path, **kwargs):
        return harness.raw_request(self.api, method, path, **kwargs)

    def test_each_change_on_an_idle_server_reaches_json_and_protobuf_watchers_within_10ms(self):
        base = "/api/v1/namespaces/%s/services" % NS
        svc = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": SVC},
               "spec": {"selector": {"app": SVC}, "ports": [{"port": 80}]}}
        r = self.request("POST", base, body=json.dumps(svc), content_type="application/json")
        self.assertEqual(r.status, 201, r.data)
        rv = json.loads(r.data)["metadata"]["resourceVersion"]
        path = "%s?watch=1&resourceVersion=%s&fieldSelector=metadata.name%%3D%s" % (base, rv, SVC)
        watchers = []
        for protobuf in (False, True):
            w = self.request("GET", path, accept=PB if protobuf else "application/json",
                             stream=True)
            self.assertEqual(w.status, 200)
            watchers.append(Watcher(w, protobuf))
        for w in watchers:
            w.start()
        time.sleep(0.2)  # both streams open and idle

        delays = {False: [], True: []}
        for i in range(ROUNDS):
            marker = b"mark-%03d" % i
            patch = {"metadata": {"labels": {"step": marker.decode()}}}
            r = self.request("PATCH", base + "/" + SVC, body=json.dumps(patch),
                             content_type="application/merge-patch+json")
            acked = time.monotonic()
            self.assertEqual(r.status, 200, r.data)
            for w in watchers:
                arrived = w.wait_for(marker)
                self.assertIsNotNone(arrived, "round %d: no event within 5 s (protobuf=%s)%s"
                                     % (i, w.protobuf, self.srv.died()))
                delays[w.protobuf].append(max(0.0, arrived - acked))
            time.sleep(0.05)  # the server goes idle again

        for protobuf, d in delays.items():
            worst = max(d)
            print("watch delay (%s): p50 %.2f ms, max %.2f ms over %d rounds"
                  % ("protobuf" if protobuf else "json", sorted(d)[len(d) // 2] * 1e3,
                     worst * 1e3, len(d)))
            late = [(i, round(x * 1e3, 2)) for i, x in enumerate(d) if x > BOUND]
            self.assertEqual(late, [], "rounds over 10 ms (protobuf=%s)" % protobuf)


if __name__ == "__main__":
    unittest.main()
