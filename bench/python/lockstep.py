"""A fixed number of echoed messages, for counting what a server does per message
(bench/counts.sh): C connections, each sending SIZE bytes and waiting for the whole echo
before sending again (W5's lockstep), PER messages on each, then every connection closed.

    python3 bench/python/lockstep.py --addr 127.0.0.1:PORT --conns C --per N [--size 64]

`loadgen` runs for a time; this runs for a count, so that two runs differing only in the
count differ in the server by exactly that many messages. Every echoed byte is checked.
Prints one JSON line: the messages sent and echoed. Gives up after --timeout seconds
(default 300) with a one-line error.
"""

import argparse
import json
import selectors
import socket
import sys
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--addr", required=True)
    ap.add_argument("--conns", type=int, required=True)
    ap.add_argument("--per", type=int, required=True)
    ap.add_argument("--size", type=int, default=64)
    ap.add_argument("--timeout", type=float, default=300)
    a = ap.parse_args()
    if not (1 <= a.conns <= 10000 and 1 <= a.per <= 1_000_000 and 1 <= a.size <= 65536):
        sys.exit("lockstep.py: --conns 1..10000, --per 1..1000000, --size 1..65536")
    host, port = a.addr.rsplit(":", 1)
    deadline = time.monotonic() + a.timeout
    sel = selectors.DefaultSelector()
    message = bytes(i % 251 for i in range(a.size))
    socks = []
    # Blocking connects, one after another: the servers' backlogs hold them all.
    for _ in range(a.conns):
        s = socket.create_connection((host, int(port)), timeout=a.timeout)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.setblocking(False)
        socks.append(s)
    # state per connection: [messages left to send, bytes of the current echo received]
    state = {}
    for s in socks:
        s.sendall(message)  # 64 bytes into an empty socket buffer: never short
        state[s] = [a.per - 1, 0]
        sel.register(s, selectors.EVENT_READ)
    echoed = 0
    active = len(socks)
    while active:
        if time.monotonic() > deadline:
            sys.exit(f"lockstep.py: gave up after {a.timeout} s with {echoed} messages echoed")
        for key, _ in sel.select(timeout=1.0):
            s = key.fileobj
            data = s.recv(a.size)
            if not data:
                sys.exit("lockstep.py: the server closed a connection")
            st = state[s]
            if data != message[st[1]:st[1] + len(data)]:
                sys.exit("lockstep.py: the echo differs from the message sent")
            st[1] += len(data)
            if st[1] < a.size:
                continue
            echoed += 1
            st[1] = 0
            if st[0] == 0:
                sel.unregister(s)
                active -= 1
            else:
                st[0] -= 1
                s.sendall(message)
    for s in socks:
        s.close()
    print(json.dumps({"conns": a.conns, "per": a.per, "messages": echoed}))


if __name__ == "__main__":
    main()
