#!/usr/bin/env python3
"""Bulk flows for bench/mptcp-baseline: sockets as an application makes them.

  bulkflows.py recv PORT WARM SECS   bytes each peer address sent between WARM
                                     and WARM+SECS after the first connection,
                                     as JSON {address: bytes}; an MPTCP
                                     listener, which serves plain TCP too
  bulkflows.py send ADDR PORT tcp|mptcp SECS [SRC]   sendall() for SECS
"""
import json
import socket
import sys
import threading
import time

IPPROTO_MPTCP = 262


def recv(port, warm, secs):
    lsn = socket.socket(socket.AF_INET, socket.SOCK_STREAM, IPPROTO_MPTCP)
    lsn.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsn.bind(("0.0.0.0", port))
    lsn.listen(16)
    lsn.settimeout(0.05)
    got, lock = {}, threading.Lock()

    def serve(conn, peer):
        while True:
            b = conn.recv(1 << 16)
            if not b:
                return
            with lock:
                got[peer] += len(b)

    start = mark = None
    while True:
        try:
            conn, addr = lsn.accept()
            with lock:
                got.setdefault(addr[0], 0)
            threading.Thread(target=serve, args=(conn, addr[0]), daemon=True).start()
            start = start or time.monotonic()
        except socket.timeout:
            pass
        if start is None:
            continue
        now = time.monotonic() - start
        if mark is None and now >= warm:
            with lock:
                mark = dict(got)
        if now >= warm + secs:
            with lock:
                print(json.dumps({a: n - mark.get(a, 0) for a, n in got.items()}))
            return


def send(addr, port, kind, secs, src=None):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, IPPROTO_MPTCP if kind == "mptcp" else 0)
    if src:
        s.bind((src, 0))
    s.connect((addr, port))
    buf, end = b"x" * (1 << 16), time.monotonic() + secs
    try:
        while time.monotonic() < end:
            s.sendall(buf)
    except OSError:
        pass  # the receiver is done


if __name__ == "__main__":
    a = sys.argv
    if len(a) == 5 and a[1] == "recv":
        recv(int(a[2]), float(a[3]), float(a[4]))
    elif len(a) in (6, 7) and a[1] == "send" and a[4] in ("tcp", "mptcp"):
        send(a[2], int(a[3]), a[4], float(a[5]), a[6] if len(a) == 7 else None)
    else:
        sys.exit(__doc__)
