#!/usr/bin/env python3
"""Userspace link impairment for network-namespace tests: delay and random loss through NFQUEUE.

The kernel here has no sch_netem, so `tc qdisc ... netem delay 20ms loss 5%` is not available. Instead an nftables
rule hands packets to a netfilter queue (`queue num N`), and this program, bound to that queue, holds every packet
for --delay-ms and then accepts it, after dropping a --loss fraction of them at once (seeded, so a run can be
repeated). Every packet gets the same delay, so packets are never reordered.

It speaks nfnetlink_queue over a raw AF_NETLINK socket (only the Python standard library), with packet copies
turned off (COPY_META): it never reads or rewrites payloads. Packets the kernel segments (GSO) arrive as one queue
entry per segment, so the loss is per wire packet.

Bounded life: it exits when its standard input reaches end of file (the parent test ended or closed the pipe), on
SIGTERM/SIGINT, or after --timeout seconds, whichever comes first. On exit it prints one `stats:` line. It prints
`ready queue=N` once bound, so a caller can wait for that line before sending traffic, or `unsupported: ...` and
exits with code 77 when the queue cannot be bound (no nfnetlink_queue, no permission, queue already taken).

Usage (inside the namespace whose forward chain has the queue rule):
    nfq_delay.py --queue 0 --delay-ms 20 --loss 0.05 --seed 42 --timeout 600
"""
import argparse
import collections
import errno
import os
import random
import select
import signal
import socket
import struct
import sys
import time

# <linux/netlink.h>, <linux/netfilter/nfnetlink.h>, <linux/netfilter/nfnetlink_queue.h>, <linux/netfilter.h>
EXIT_UNSUPPORTED = 77                  # as automake's "skipped"
NETLINK_NETFILTER = 12
SOL_NETLINK = 270
NETLINK_NO_ENOBUFS = 5
SO_RCVBUFFORCE = 33
NLM_F_REQUEST = 0x1
NLM_F_ACK = 0x4
NLMSG_ERROR = 0x2
NLMSG_DONE = 0x3
NFNL_SUBSYS_QUEUE = 3
NFQNL_MSG_PACKET = 0
NFQNL_MSG_VERDICT = 1
NFQNL_MSG_CONFIG = 2
NFQNL_MSG_VERDICT_BATCH = 3
NFQA_PACKET_HDR = 1
NFQA_VERDICT_HDR = 2
NFQA_CFG_CMD = 1
NFQA_CFG_PARAMS = 2
NFQA_CFG_QUEUE_MAXLEN = 3
NFQNL_CFG_CMD_BIND = 1
NFQNL_CFG_CMD_UNBIND = 2
NFQNL_COPY_META = 1
NF_DROP = 0
NF_ACCEPT = 1

NLMSGHDR = struct.Struct("=IHHII")      # length, type, flags, sequence, port id (host order)
NFGENMSG = struct.Struct("!BBH")        # family, version, resource id = queue number (big endian)
NLATTR = struct.Struct("=HH")           # length, type (host order)


def align4(n):
    return (n + 3) & ~3


def attr(kind, payload):
    head = NLATTR.pack(NLATTR.size + len(payload), kind)
    return head + payload + b"\0" * (align4(len(payload)) - len(payload))


class Queue:
    """One bound nfnetlink_queue on a raw netlink socket."""

    def __init__(self, number, max_len):
        self.number = number
        self.seq = 0
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_NETFILTER)
        try:
            self.sock.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 8 << 20)
        except OSError:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
        # A full socket buffer then drops queue messages silently instead of failing recv() with ENOBUFS.
        self.sock.setsockopt(SOL_NETLINK, NETLINK_NO_ENOBUFS, 1)
        self.sock.bind((0, 0))
        self.buf = bytearray(1 << 16)
        self.config(attr(NFQA_CFG_CMD, struct.pack("!BxH", NFQNL_CFG_CMD_BIND, socket.AF_UNSPEC)))
        self.config(attr(NFQA_CFG_PARAMS, struct.pack("!IB", 0, NFQNL_COPY_META))
                    + attr(NFQA_CFG_QUEUE_MAXLEN, struct.pack("!I", max_len)))

    def _send(self, msg_type, flags, attrs):
        self.seq += 1
        body = NFGENMSG.pack(socket.AF_UNSPEC, 0, self.number) + attrs
        kind = (NFNL_SUBSYS_QUEUE << 8) | msg_type
        self.sock.send(NLMSGHDR.pack(NLMSGHDR.size + len(body), kind, NLM_F_REQUEST | flags, self.seq, 0) + body)
        return self.seq

    def config(self, attrs):
        """Sends a configuration message and waits for its acknowledgement; raises OSError on a refusal."""
        seq = self._send(NFQNL_MSG_CONFIG, NLM_F_ACK, attrs)
        while True:
            n = self.sock.recv_into(self.buf)
            for kind, _flags, mseq, payload in self.messages(memoryview(self.buf)[:n]):
                if kind == NLMSG_ERROR and mseq == seq:
                    code = struct.unpack_from("=i", payload)[0]
                    if code != 0:
                        raise OSError(-code, "nfnetlink_queue config refused: " + os.strerror(-code))
                    return

    @staticmethod
    def messages(data):
        off = 0
        while off + NLMSGHDR.size <= len(data):
            length, kind, flags, seq, _pid = NLMSGHDR.unpack_from(data, off)
            if length < NLMSGHDR.size or off + length > len(data):
                return
            yield kind, flags, seq, data[off + NLMSGHDR.size:off + length]
            off += align4(length)

    def packet_ids(self):
        """Reads the queued packets' ids now waiting on the socket (non-blocking)."""
        ids = []
        while True:
            try:
                n = self.sock.recv_into(self.buf, len(self.buf), socket.MSG_DONTWAIT)
            except BlockingIOError:
                return ids
            except OSError as e:
                if e.errno == errno.ENOBUFS:
                    continue
                raise
            for kind, _flags, _seq, payload in self.messages(memoryview(self.buf)[:n]):
                if kind != (NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET:
                    continue
                off = NFGENMSG.size
                while off + NLATTR.size <= len(payload):
                    alen, akind = NLATTR.unpack_from(payload, off)
                    if alen < NLATTR.size:
                        break
                    if akind & 0x3FFF == NFQA_PACKET_HDR:
                        ids.append(struct.unpack_from("!I", payload, off + NLATTR.size)[0])
                        break
                    off += align4(alen)

    def verdict(self, packet_id, verdict):
        self._send(NFQNL_MSG_VERDICT, 0, attr(NFQA_VERDICT_HDR, struct.pack("!II", verdict, packet_id)))

    def accept_through(self, packet_id):
        """Accepts every packet still queued with an id up to packet_id (one message for many packets)."""
        self._send(NFQNL_MSG_VERDICT_BATCH, 0, attr(NFQA_VERDICT_HDR, struct.pack("!II", NF_ACCEPT, packet_id)))


def main():
    p = argparse.ArgumentParser(description="Delay and drop packets of an nftables queue.")
    p.add_argument("--queue", type=int, default=0, help="queue number of the nft `queue num N` rule")
    p.add_argument("--delay-ms", type=float, default=20.0, help="how long each packet is held")
    p.add_argument("--loss", type=float, default=0.0, help="fraction of packets dropped, 0 to 1")
    p.add_argument("--seed", type=int, default=1, help="seed of the loss decisions")
    p.add_argument("--timeout", type=float, default=600.0, help="exit after this many seconds")
    p.add_argument("--max-queue", type=int, default=16384, help="kernel queue length")
    a = p.parse_args()
    if not 0.0 <= a.loss <= 1.0 or a.delay_ms < 0 or a.timeout <= 0:
        p.error("need 0 <= --loss <= 1, --delay-ms >= 0 and --timeout > 0")

    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append("SIGTERM"))
    signal.signal(signal.SIGINT, lambda *_: stop.append("SIGINT"))
    rng = random.Random(a.seed)
    delay = a.delay_ms / 1000.0
    try:
        q = Queue(a.queue, a.max_queue)
    except OSError as e:
        # No nfnetlink_queue in this kernel or namespace, no permission, or the queue is taken: the caller skips.
        print("unsupported: cannot bind netfilter queue %d: %s" % (a.queue, e), flush=True)
        sys.exit(EXIT_UNSUPPORTED)
    print("ready queue=%d delay_ms=%g loss=%g seed=%d" % (a.queue, a.delay_ms, a.loss, a.seed), flush=True)

    held = collections.deque()          # (due time, packet id), due times ascending
    seen = dropped = accepted = max_held = 0
    end = time.monotonic() + a.timeout
    stdin_open = True
    reason = "timeout"
    while not stop:
        now = time.monotonic()
        if now >= end:
            break
        wait = min(end - now, 1.0) if not held else max(0.0, held[0][0] - now)
        watched = [q.sock, sys.stdin] if stdin_open else [q.sock]
        try:
            readable, _, _ = select.select(watched, [], [], wait)
        except InterruptedError:
            continue
        if sys.stdin in readable:
            if not os.read(sys.stdin.fileno(), 4096):
                reason = "stdin closed"
                break
        if q.sock in readable:
            now = time.monotonic()
            for packet_id in q.packet_ids():
                seen += 1
                if a.loss > 0 and rng.random() < a.loss:
                    q.verdict(packet_id, NF_DROP)
                    dropped += 1
                else:
                    held.append((now + delay, packet_id))
            max_held = max(max_held, len(held))
        now = time.monotonic()
        last = None
        while held and held[0][0] <= now:
            last = held.popleft()[1]
            accepted += 1
        if last is not None:
            q.accept_through(last)
    if stop:
        reason = stop[0]
    print("stats: seen=%d dropped=%d accepted=%d max_held=%d exit=%s" % (seen, dropped, accepted, max_held, reason),
          flush=True)


if __name__ == "__main__":
    main()
