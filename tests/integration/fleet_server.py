# SPDX-License-Identifier: GPL-2.0
"""ClickHouse servers for the fleet's tests (ntprof-fleet(7), DEPLOYMENT).

Each server is a clickhouse-server process (Debian's, 18.16) on loopback
ports, with a config file of its own and its data in a temporary directory,
started and stopped by the tests.  Nothing outside the machine is used.

    s = Server(tmp, "one"); s.start(); s.query("SELECT 1"); s.stop()
    a, b = two_shards(tmp)       # a cluster "two" of both, a Distributed table's shards
"""

import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

SERVER = shutil.which("clickhouse-server") or "/usr/sbin/clickhouse-server"
CLUSTER = "two"
# a user with a password, for the authentication tests: sha256("ntprof-test-secret")
PASSWORD = "ntprof-test-secret"


def free_ports(n):
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def missing():
    """Why no server can run here, or None."""
    if not Path(SERVER).is_file():
        return (f"{SERVER} missing: the fleet's tests need Debian's clickhouse-server "
                "(apt-get install clickhouse-server clickhouse-client, or make deps)")
    return None


class Server:
    def __init__(self, tmp, name, ports=None, cluster_tcp=(), https=None, query_log=False):
        """ports: (http, tcp, https), else free ones; cluster_tcp: the shards' TCP ports;
        query_log: every query logged in system.query_log (its time, its peak memory)"""
        import hashlib
        self.dir = Path(tmp) / name
        self.dir.mkdir(parents=True, exist_ok=True)
        self.http, self.tcp, self.https_port = ports or free_ports(3)
        self.proc = None
        digest = hashlib.sha256(PASSWORD.encode()).hexdigest()
        shards = "".join(f"<shard><replica><host>127.0.0.1</host><port>{p}</port></replica></shard>"
                         for p in cluster_tcp)
        remote = f"<remote_servers><{CLUSTER}>{shards}</{CLUSTER}></remote_servers>" if shards else ""
        tls = ""
        if https:
            cert, key = https
            tls = (f"<https_port>{self.https_port}</https_port><openSSL><server>"
                   f"<certificateFile>{cert}</certificateFile><privateKeyFile>{key}</privateKeyFile>"
                   "<verificationMode>none</verificationMode></server></openSSL>")
        log = "<log_queries>1</log_queries>" if query_log else ""
        qlog = ("<query_log><database>system</database><table>query_log</table>"
                "<flush_interval_milliseconds>1000</flush_interval_milliseconds></query_log>"
                if query_log else "")
        self.config = self.dir / "config.xml"
        self.config.write_text(f"""<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><console>1</console></logger>
  <http_port>{self.http}</http_port><tcp_port>{self.tcp}</tcp_port>{tls}
  <listen_host>127.0.0.1</listen_host>
  <path>{self.dir}/data/</path><tmp_path>{self.dir}/tmp/</tmp_path>
  <mark_cache_size>67108864</mark_cache_size>
  <users>
    <default><password></password><networks><ip>127.0.0.1</ip></networks><profile>default</profile><quota>default</quota></default>
    <fleet><password_sha256_hex>{digest}</password_sha256_hex><networks><ip>127.0.0.1</ip></networks><profile>default</profile><quota>default</quota></fleet>
  </users>
  <profiles><default>{log}</default></profiles>{qlog}
  <quotas><default></default></quotas>
  {remote}
</yandex>
""")

    @property
    def url(self):
        return f"http://127.0.0.1:{self.http}"

    @property
    def https_url(self):
        return f"https://127.0.0.1:{self.https_port}"

    def start(self, timeout=60):
        self.log = open(self.dir / "server.log", "ab")
        self.proc = subprocess.Popen([SERVER, f"--config-file={self.config}"], stdout=self.log,
                                     stderr=subprocess.STDOUT, cwd=self.dir,
                                     start_new_session=True)
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise RuntimeError(f"clickhouse-server exited {self.proc.returncode}: "
                                   f"{(self.dir / 'server.log').read_text()[-2000:]}")
            try:
                if urllib.request.urlopen(self.url + "/ping", timeout=2).read() == b"Ok.\n":
                    return self
            except (urllib.error.URLError, ConnectionError, OSError):
                pass
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"clickhouse-server did not answer on {self.url} in {timeout} s")

    def stop(self, kill=True):
        """killed (its data is the tests' and thrown away, or read again by a restart, as
        after a crash), or with kill=False shut down as an operator would (about 10 s)"""
        if self.proc and self.proc.poll() is None:
            if kill:
                self.proc.kill()
            else:
                self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None
        if getattr(self, "log", None):
            self.log.close()
            self.log = None

    def query(self, sql, database=None):
        """The result of sql as text (TabSeparated), or RuntimeError with the server's message."""
        url = self.url + ("/?database=" + database if database else "/")
        try:
            return urllib.request.urlopen(urllib.request.Request(url, data=sql.encode()),
                                          timeout=120).read().decode()
        except urllib.error.HTTPError as e:
            raise RuntimeError(e.read().decode()) from None

    def rows(self, sql, database=None):
        return [line.split("\t") for line in self.query(sql, database).splitlines()]


def two_shards(tmp, **kw):
    """Two servers (not started), each with the cluster CLUSTER of both as its shards; kw as
    Server's."""
    ports = free_ports(6)
    first, second = tuple(ports[:3]), tuple(ports[3:])
    tcp = (first[1], second[1])
    return (Server(tmp, "shard1", first, cluster_tcp=tcp, **kw),
            Server(tmp, "shard2", second, cluster_tcp=tcp, **kw))
