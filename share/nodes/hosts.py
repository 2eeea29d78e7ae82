"""Emulated hosts on one machine: network + UTS namespaces on a private bridge, a rate limit per
host, and Open MPI launching ranks into them (docs/nodes.md).

Each host <prefix>-n<i> (prefix "aijhn") is a network namespace with one interface, eth0 (a veth
pair whose other end, <prefix>-v<i>, is a port of the bridge <prefix>-br in the root namespace),
address <subnet>.<10+i>/24 and no default route; commands run in it in a new UTS namespace whose host
name is the namespace's name. Open MPI starts its daemons there through share/nodes/agent.sh (its
rsh agent) and mpirun itself runs on host 0, so MPI_COMM_TYPE_SHARED groups the ranks by emulated
host, shared memory (vader) carries messages inside a host and TCP (restricted to the subnet) the
rest.

Safety: the bridge has no address in the root namespace and no port but the hosts' veths, the hosts
have no default route and IPv6 off, and the root namespace does not forward: traffic stays between
the namespaces made here. Everything made carries the prefix; setup first removes leftovers of an
interrupted run (processes in those namespaces, the namespaces, the links), under a lock that one
emulation holds at a time (/run/lock/aijhybrid-nodes.lock).

Rate limit (tc htb, both directions of every host: its eth0 and its bridge port) and the counters
read from it: on eth0 (what the host sends) three classes, 1:10 pure TCP ACKs (IPv4, TCP, 52-byte
packets: headers with timestamps, no payload), 1:20 the other TCP segments (data), 1:30 anything else
(none is expected: static neighbour entries, no IPv6); tc counts a segmentation-offloaded packet
as its segments, with their headers. Bytes are Ethernet frames without the frame check sequence.

No PETSc here: nodes.py, the tests and the records driver import it.
"""

import contextlib
import fcntl
import ipaddress
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
AGENT = HERE / "agent.sh"
PREFIX = "aijhn"
SUBNET = "10.213.0"  # <SUBNET>.0/24, host i at <SUBNET>.<10+i>
LOCK = "/run/lock/aijhybrid-nodes.lock"
DEV = "eth0"  # the interface of every host
ACK_BYTES = 66  # a pure ACK frame: Ethernet 14 + IPv4 20 + TCP 20 + timestamps option 12
SEG_OVERHEAD = 66  # the same headers on every data segment
MTU = 1500
MSS = MTU - 20 - 32  # TCP payload per segment (IPv4, TCP with timestamps): 1448
DATA_CLASS = 0x100  # tc class 1:<0x100 + j>: TCP segments other than pure ACKs to host j


class Unsupported(RuntimeError):
    """This machine or user cannot emulate hosts (not root, no network namespaces, a tool missing)."""


class Interrupted(BaseException):
    """A signal ended the run (SIGTERM, SIGHUP; SIGINT is KeyboardInterrupt): cleanup follows."""


def _run(cmd, check=True, capture=True, timeout=60, input=None):
    p = subprocess.run(cmd, capture_output=capture, text=True, timeout=timeout, input=input)
    if check and p.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(map(shlex.quote, cmd)), p.returncode, (p.stderr or "").strip()[-2000:]))
    return p


def log(msg):
    print("nodes: %s" % msg, flush=True)


# ------------------------------------------------------------------------------------------------
# can this machine do it?


def unsupported_reason():
    """None if this process can emulate hosts, else why not (a sentence)."""
    if os.geteuid() != 0:
        return "needs root (network namespaces, veth pairs, a bridge and tc rate limits); run make test-nodes as root"
    for tool in ("ip", "tc", "unshare", "hostname", "mpirun"):
        if shutil.which(tool) is None:
            return "%s not found (share/nodes/setup.sh installs iproute2, util-linux, hostname, openmpi-bin)" % tool
    probe = "%s-probe" % PREFIX
    try:
        if os.path.exists("/run/netns/" + probe):
            _run(["ip", "netns", "del", probe], check=False)
        p = _run(["ip", "netns", "add", probe], check=False)
        if p.returncode != 0:
            return "cannot create a network namespace (ip netns add: %s)" % p.stderr.strip()
        p = _run(["ip", "netns", "exec", probe, "unshare", "--uts", "hostname", probe], check=False)
        if p.returncode != 0:
            return "cannot create a UTS namespace inside a network namespace (unshare --uts: %s)" % p.stderr.strip()
        p = _run(["ip", "link", "add", probe + "-a", "type", "veth", "peer", "name", "eth9", "netns", probe], check=False)
        if p.returncode != 0:
            return "cannot create a veth pair (ip link add type veth: %s)" % p.stderr.strip()
        p = _run(["ip", "-n", probe, "link", "set", "eth9", "up"], check=False)
        tcp = _run(["ip", "netns", "exec", probe, "tc", "qdisc", "add", "dev", "eth9", "root", "handle", "1:", "htb"], check=False)
        if tcp.returncode != 0:
            return "cannot set a tc htb rate limit (%s)" % tcp.stderr.strip()
    finally:
        _run(["ip", "link", "del", probe + "-a"], check=False)
        _run(["ip", "netns", "del", probe], check=False)
    return None


# ------------------------------------------------------------------------------------------------
# the lock, leftovers


@contextlib.contextmanager
def lock(wait=1800):
    """One emulation at a time on this machine (other worktrees' make test run it too)."""
    os.makedirs(os.path.dirname(LOCK), exist_ok=True)
    f = open(LOCK, "a+")
    t0, said = time.time(), False
    while True:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            if not said:
                f.seek(0)
                log("waiting for another emulation to finish (%s holds %s)" % (f.read().strip() or "a process", LOCK))
                said = True
            if time.time() - t0 > wait:
                f.close()
                raise RuntimeError("another emulation held %s for more than %d s" % (LOCK, wait))
            time.sleep(2)
    f.seek(0)
    f.truncate()
    f.write("pid %d" % os.getpid())
    f.flush()
    try:
        yield
    finally:
        fcntl.flock(f, fcntl.LOCK_UN)
        f.close()


def our_namespaces(prefix=PREFIX):
    out = _run(["ip", "netns", "list"], check=False).stdout
    return [l.split()[0] for l in out.splitlines() if l.split() and re.fullmatch(r"%s-n\d+" % re.escape(prefix), l.split()[0])]


def our_links(prefix=PREFIX):
    out = _run(["ip", "-o", "link", "show"], check=False).stdout
    names = []
    for l in out.splitlines():
        m = re.match(r"\d+: ([^:@]+)", l)
        if m and re.fullmatch(r"%s-(br|v\d+)" % re.escape(prefix), m.group(1)):
            names.append(m.group(1))
    return names


def kill_namespace_processes(ns, grace=3.0):
    """End the processes running in namespace ns (all of them were started by this tool), by pid."""
    def pids():
        out = _run(["ip", "netns", "pids", ns], check=False).stdout
        return [int(p) for p in out.split() if p.isdigit() and int(p) != os.getpid()]

    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 2.0)):
        ps = pids()
        if not ps:
            return
        for p in ps:
            try:
                os.kill(p, sig)
            except ProcessLookupError:
                pass
        t0 = time.time()
        while pids() and time.time() - t0 < wait:
            time.sleep(0.1)


def cleanup(prefix=PREFIX, quiet=False):
    """Remove everything with this prefix (idempotent): processes in the namespaces, namespaces, links."""
    nss, links = our_namespaces(prefix), our_links(prefix)
    if (nss or links) and not quiet:
        log("removing %s" % ", ".join(nss + links))
    for ns in nss:
        kill_namespace_processes(ns)
    for ns in nss:
        _run(["ip", "netns", "del", ns], check=False)
    for l in links:
        _run(["ip", "link", "del", l], check=False)
    t0 = time.time()  # veth pairs and namespaces go away asynchronously
    while (our_namespaces(prefix) or our_links(prefix)) and time.time() - t0 < 10:
        time.sleep(0.2)
    left = our_namespaces(prefix) + our_links(prefix)
    if left:
        raise RuntimeError("could not remove %s" % ", ".join(left))


def check_subnet_free(subnet=SUBNET):
    net = ipaddress.ip_network(subnet + ".0/24")
    out = _run(["ip", "-4", "-o", "addr", "show"], check=False).stdout + _run(["ip", "-4", "route", "show", "table", "all"], check=False).stdout
    for m in re.finditer(r"(\d+\.\d+\.\d+\.\d+(?:/\d+)?)", out):
        try:
            other = ipaddress.ip_network(m.group(1), strict=False)
        except ValueError:
            continue
        if other.prefixlen > 0 and other.overlaps(net) and not other.is_loopback:
            raise RuntimeError("the subnet %s is in use on this machine (%s): choose another with --subnet" % (net, m.group(1)))


# ------------------------------------------------------------------------------------------------
# the hosts


def rate_bits(rate):
    """'1gbit', '200mbit', '1e9' -> bits per second"""
    m = re.fullmatch(r"\s*([\d.eE+]+)\s*([kmg]?)(bit)?\s*", str(rate).lower())
    if not m:
        raise ValueError("rate %r: use e.g. 1gbit, 200mbit" % rate)
    return float(m.group(1)) * {"": 1, "k": 1e3, "m": 1e6, "g": 1e9}[m.group(2)]


class Hosts:
    """N emulated hosts (use as a context manager: set up on entry, torn down on exit, signals included)."""

    def __init__(self, n=4, rate="1gbit", subnet=SUBNET, prefix=PREFIX, lock_wait=1800):
        if not 1 <= n <= 99:
            raise ValueError("1 to 99 hosts")
        self.n, self.rate, self.subnet, self.prefix, self.lock_wait = n, rate, subnet, prefix, lock_wait
        self.rate_bps = rate_bits(rate)
        self.names = ["%s-n%d" % (prefix, i) for i in range(n)]
        self.addrs = ["%s.%d" % (subnet, 10 + i) for i in range(n)]
        self.bridge = "%s-br" % prefix
        self.ports = ["%s-v%d" % (prefix, i) for i in range(n)]
        self._lock = None
        self._old = {}
        self.tmp = None

    # -- lifetime
    def __enter__(self):
        reason = unsupported_reason()
        if reason:
            raise Unsupported(reason)
        self._lock = lock(self.lock_wait)
        self._lock.__enter__()
        try:
            for s in (signal.SIGTERM, signal.SIGHUP):
                self._old[s] = signal.signal(s, self._on_signal)
            cleanup(self.prefix)
            check_subnet_free(self.subnet)
            self.tmp = tempfile.mkdtemp(prefix="aijhn-")
            self.setup()
        except BaseException:
            self.__exit__(*sys.exc_info())
            raise
        return self

    def _on_signal(self, signum, frame):
        raise Interrupted("signal %d" % signum)

    def __exit__(self, *exc):
        try:
            cleanup(self.prefix, quiet=True)
            log("hosts removed")
        finally:
            if self.tmp:
                shutil.rmtree(self.tmp, ignore_errors=True)
            for s, h in self._old.items():
                signal.signal(s, h)
            self._old = {}
            if self._lock is not None:
                self._lock.__exit__(None, None, None)
                self._lock = None
        return False

    def setup(self):
        b = self.bridge
        _run(["ip", "link", "add", b, "type", "bridge"])
        _run(["ip", "link", "set", b, "mtu", str(MTU), "up"])  # no address: the root namespace is not on the subnet
        macs = []
        for name, port, addr in zip(self.names, self.ports, self.addrs):
            _run(["ip", "netns", "add", name])
            ns = ["ip", "netns", "exec", name]
            for k, v in (("net.ipv6.conf.all.disable_ipv6", "1"), ("net.ipv6.conf.default.disable_ipv6", "1"), ("net.ipv4.tcp_autocorking", "0"), ("net.ipv4.tcp_early_retrans", "0"), ("net.ipv4.tcp_slow_start_after_idle", "0")):
                _run(ns + ["sysctl", "-q", "-w", "%s=%s" % (k, v)], check=False)
            _run(["ip", "link", "add", port, "mtu", str(MTU), "type", "veth", "peer", "name", DEV, "netns", name])
            _run(["ip", "link", "set", port, "master", b, "up"])
            _run(["ip", "-n", name, "addr", "add", addr + "/24", "dev", DEV])
            _run(["ip", "-n", name, "link", "set", DEV, "mtu", str(MTU), "up"])
            _run(["ip", "-n", name, "link", "set", "lo", "up"])
            macs.append(json.loads(_run(["ip", "-n", name, "-j", "link", "show", DEV]).stdout)[0]["address"])
            self._shape(ns, DEV, classify=True)
            self._shape([], port, classify=False)  # what the host receives
        for name in self.names:  # static neighbours: no ARP on the wire
            for addr, mac in zip(self.addrs, macs):
                _run(["ip", "-n", name, "neigh", "replace", addr, "lladdr", mac, "dev", DEV, "nud", "permanent"])
        log("%d hosts %s on bridge %s, %s.0/24, %s per host each way" % (self.n, ", ".join(self.names), b, self.subnet, self.rate))

    def _shape(self, ns, dev, classify):
        r = "%dbit" % int(self.rate_bps)
        burst = "%db" % max(2 * (MTU + 14), int(self.rate_bps / 8 * 1e-4))  # 100 us of the rate, at least 2 frames: close to a link
        tc = ns + ["tc"]
        leaf = ["htb", "rate", "%dbit" % int(self.rate_bps / (self.n + 2)), "ceil", r, "burst", burst, "cburst", burst, "quantum", str(MTU + 14)]
        _run(tc + ["qdisc", "add", "dev", dev, "root", "handle", "1:", "htb", "default", "30" if classify else "1"])
        _run(tc + ["class", "add", "dev", dev, "parent", "1:", "classid", "1:1", "htb", "rate", r, "ceil", r, "burst", burst, "cburst", burst, "quantum", str(MTU + 14)])
        if not classify:
            return
        for minor in ["10", "30"] + ["%x" % (DATA_CLASS + j) for j in range(self.n)]:
            _run(tc + ["class", "add", "dev", dev, "parent", "1:1", "classid", "1:" + minor] + leaf)
        # pure ACKs: IPv4, TCP, total length 52 (20 IP + 20 TCP + 12 timestamps, no payload)
        _run(tc + ["filter", "add", "dev", dev, "parent", "1:", "protocol", "ip", "prio", "1", "u32", "match", "ip", "protocol", "6", "0xff", "match", "u16", "52", "0xffff", "at", "2", "flowid", "1:10"])
        for j, addr in enumerate(self.addrs):  # the other TCP segments, by destination host
            _run(tc + ["filter", "add", "dev", dev, "parent", "1:", "protocol", "ip", "prio", "2", "u32", "match", "ip", "protocol", "6", "0xff", "match", "ip", "dst", addr + "/32", "flowid", "1:%x" % (DATA_CLASS + j)])

    # -- running things
    def ns_cmd(self, i, argv, own_sysfs=True):
        """argv run on host i (its network namespace, a UTS namespace with its name); own_sysfs False:
        entered with nsenter, keeping this machine's /sys (and its cgroup file systems, which slurmd needs)
        instead of the namespace's own sysfs that ip netns exec mounts"""
        name = self.names[i]
        enter = ["ip", "netns", "exec", name] if own_sysfs else ["nsenter", "--net=/run/netns/" + name]
        return enter + ["unshare", "--uts", "/bin/sh", "-c", 'hostname "$0" && exec "$@"', name] + [str(a) for a in argv]

    def counters(self):
        """{host: {"ack": [bytes, packets], "data": [...], "other": [...], "tcp": {OutSegs, RetransSegs, ...}}}: what each host sent"""
        return {name: counters_here(["ip", "netns", "exec", name]) for name in self.names}

    def hostfile(self, slots):
        path = os.path.join(self.tmp, "hostfile-%d" % slots)
        with open(path, "w") as f:
            for name in self.names:
                f.write("%s slots=%d\n" % (name, slots))
        return path

    def mpirun_argv(self, ranks_per_host, nranks=None, threads=1, env=None, hosts=None):
        """The mpirun command (run it with ns_cmd(0, ...)): ranks_per_host ranks on each of the first
        `hosts` hosts (nranks in all, default all slots), filled host by host."""
        hosts = hosts or self.n
        nranks = nranks or ranks_per_host * hosts
        hf = os.path.join(self.tmp, "hostfile-%d-%d" % (hosts, ranks_per_host))
        with open(hf, "w") as f:
            for name in self.names[:hosts]:
                f.write("%s slots=%d\n" % (name, ranks_per_host))
        net = "%s.0/24" % self.subnet
        argv = ["mpirun", "--allow-run-as-root", "--hostfile", hf, "-n", str(nranks), "--map-by", "slot", "--bind-to", "none",
                "--mca", "plm_rsh_agent", str(AGENT), "--mca", "plm_rsh_no_tree_spawn", "1",
                "--mca", "btl", "tcp,self,vader", "--mca", "btl_tcp_if_include", net, "--mca", "oob_tcp_if_include", net,
                "--mca", "btl_vader_single_copy_mechanism", "none", "--mca", "rmaps_base_oversubscribe", "1",
                "--mca", "mpi_yield_when_idle", "1"]  # more ranks than cores: a waiting rank yields its core
        env = dict(env or {})
        env.setdefault("OMP_NUM_THREADS", str(threads))
        env.setdefault("OMP_WAIT_POLICY", "passive")
        for k, v in sorted(env.items()):
            argv += ["-x", "%s=%s" % (k, v)]
        return argv

    def mpirun(self, argv, ranks_per_host, nranks=None, threads=1, env=None, hosts=None, timeout=600, cwd=None):
        """Run argv under mpirun on the hosts; (returncode, stdout, stderr, seconds). A timeout ends mpirun and
        every process on the hosts."""
        full = self.ns_cmd(0, self.mpirun_argv(ranks_per_host, nranks, threads, env, hosts) + [str(a) for a in argv])
        penv = {k: v for k, v in os.environ.items() if not k.startswith(("OMPI_", "PMIX_"))}
        penv.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", AIJHN_PREFIX=self.prefix)
        t0 = time.time()
        p = subprocess.Popen(full, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, env=penv, cwd=cwd, start_new_session=True)
        try:
            out, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            for ns in self.names:
                kill_namespace_processes(ns, grace=1.0)
            out, err = p.communicate()
            err += "\nnodes: TIMED OUT after %d s: every process on the hosts ended" % timeout
        return p.returncode, out, err, time.time() - t0


def counters_here(prefix_cmd=()):
    """The counters of this namespace's eth0 and its TCP statistics (prefix_cmd: enter another namespace):
    {"ack": [bytes, packets], "data": [...] (all destinations), "to": {j: [...]} (data to host j),
    "other": [...], "tcp": {OutSegs, InSegs, RetransSegs, ActiveOpens, PassiveOpens}}"""
    out = _run(list(prefix_cmd) + ["tc", "-s", "class", "show", "dev", DEV]).stdout
    res = {"ack": [0, 0], "data": [0, 0], "other": [0, 0], "to": {}}
    for m in re.finditer(r"class htb 1:([0-9a-f]+) .*?\n\s*Sent (\d+) bytes (\d+) pkt", out):
        minor, c = int(m.group(1), 16), [int(m.group(2)), int(m.group(3))]
        if minor == 0x10:
            res["ack"] = c
        elif minor == 0x30:
            res["other"] = c
        elif minor >= DATA_CLASS:
            res["to"][minor - DATA_CLASS] = c
            res["data"] = [res["data"][0] + c[0], res["data"][1] + c[1]]
    if prefix_cmd:
        snmp = _run(list(prefix_cmd) + ["cat", "/proc/net/snmp"]).stdout.splitlines()
    else:
        with open("/proc/net/snmp") as f:  # this process's network namespace
            snmp = f.read().splitlines()
    tcp = {}
    for a, b in zip(snmp, snmp[1:]):
        if a.startswith("Tcp:") and b.startswith("Tcp:") and not b.split()[1].isalpha():
            tcp = dict(zip(a.split()[1:], (int(x) for x in b.split()[1:])))
    res["tcp"] = {k: tcp.get(k, 0) for k in ("OutSegs", "InSegs", "RetransSegs", "ActiveOpens", "PassiveOpens")}
    return res


def diff_counters(a, b):
    """b - a, per host and field (counters() / counters_here() results, keyed by host)"""
    def d(x, y):
        if isinstance(y, dict):
            return {k: d(x.get(k, [0, 0] if isinstance(y[k], list) else 0), y[k]) for k in y}
        if isinstance(y, list):
            return [y[0] - x[0], y[1] - x[1]]
        return y - x

    return {h: d(a[h], b[h]) for h in b}
