"""A throwaway PostgreSQL cluster of the test's own (issue 22): ``initdb`` in
a temporary directory, the server on a free loopback port with trust
authentication, stopped and removed at the end, even on failure.  Never
the machine's shared server.

    with own_postgres() as pg:          # skips the test when initdb/pg_ctl are missing
        url = pg.create_database("tapis")    # postgresql://postgres@127.0.0.1:<port>/tapis
        pg.stop(); pg.start()               # a clean restart
        pg.crash(); pg.start()              # an immediate stop: recovery at the next start
        pg.run("pg_dump", "-Fc", "-f", path, "tapis")   # the cluster's own client tools

The binaries are the newest ``/usr/lib/postgresql/<major>/bin`` that has
``initdb``, ``pg_ctl`` and ``postgres`` (Debian's layout), else ``initdb``
and ``pg_ctl`` on the PATH.  ``initdb`` refuses to run as root: under
uid 0 the server's commands run as the ``postgres`` user (``runuser -u
postgres --``), in a directory made under the system's temporary directory
and given to that user (pytest's ``tmp_path`` is private to root).  The
superuser of the cluster is ``postgres`` whoever runs it; clients connect
over TCP to 127.0.0.1 without a password.

``fsync`` is off by default (faster; a stopped or killed server loses
nothing, only a machine crash would); commits are still synchronous.
"""

from __future__ import annotations

import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

#: The server's OS user when the tests run as root.
SERVER_USER = "postgres"
#: The cluster's superuser (initdb -U), whoever runs the server.
SUPERUSER = "postgres"
_TOOLS = ("initdb", "pg_ctl", "postgres")


class PostgresUnavailable(RuntimeError):
    """The cluster cannot be made here (binaries or the server's user
    missing); the message says why."""


def find_bindir() -> Path:
    """The directory of ``initdb``, ``pg_ctl`` and ``postgres``.  Raises
    :class:`PostgresUnavailable` when there is none."""
    debian = sorted(Path("/usr/lib/postgresql").glob("*/bin"),
                    key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else -1, reverse=True)
    for bindir in debian:
        if all((bindir / tool).is_file() for tool in _TOOLS):
            return bindir
    found = [shutil.which(tool) for tool in ("initdb", "pg_ctl")]
    if all(found):
        bindir = Path(os.path.realpath(found[0] or "")).parent
        if all((bindir / tool).is_file() for tool in _TOOLS):
            return bindir
    raise PostgresUnavailable(
        "initdb / pg_ctl / postgres not found (Debian package postgresql-15; .ci/run installs it)")


def free_port() -> int:
    """A loopback TCP port nothing listens on now (the kernel's pick)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PostgresCluster:
    """One cluster in ``datadir`` served on ``127.0.0.1:port`` (see module
    doc).  ``as_user``: the OS user the server's commands run as (None:
    the current one)."""

    def __init__(self, datadir: Path, port: int, bindir: Path, *, as_user: str | None = None,
                 settings: Sequence[str] = ()) -> None:
        self.datadir = datadir
        self.port = port
        self.bindir = bindir
        self.as_user = as_user
        self.settings = list(settings)
        self.logfile = datadir.parent / "server.log"

    # -- plumbing ----------------------------------------------------------
    def _server_cmd(self, tool: str, *args: str) -> list[str]:
        cmd = [str(self.bindir / tool), *args]
        return ["runuser", "-u", self.as_user, "--", *cmd] if self.as_user else cmd

    def _server(self, tool: str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        res = subprocess.run(self._server_cmd(tool, *args), capture_output=True, text=True, timeout=timeout,
                             check=False, cwd=self.datadir.parent)
        if res.returncode != 0:
            raise RuntimeError(f"{tool} {' '.join(args)} failed ({res.returncode}):\n{res.stdout}{res.stderr}\n"
                               f"{self.log_tail()}")
        return res

    def log_tail(self, lines: int = 30) -> str:
        """The end of the server's log (for failure messages)."""
        try:
            return "\n".join(self.logfile.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    # -- life cycle --------------------------------------------------------
    def init(self) -> None:
        """``initdb``: trust authentication, superuser ``postgres``, UTF-8,
        locale C; then this cluster's settings in ``postgresql.conf``."""
        self._server("initdb", "-D", str(self.datadir), "-U", SUPERUSER, "--auth=trust", "--encoding=UTF8",
                     "--locale=C", "--no-sync", "--no-instructions")
        conf = [f"port = {self.port}", "listen_addresses = '127.0.0.1'",
                f"unix_socket_directories = '{self.datadir}'", "max_connections = 50", "shared_buffers = 32MB",
                "logging_collector = off", *self.settings]
        with (self.datadir / "postgresql.conf").open("a") as f:
            f.write("\n# tests/pg_cluster.py\n" + "\n".join(conf) + "\n")

    def start(self, timeout: float = 60) -> None:
        """Start the server and wait until it accepts connections."""
        self._server("pg_ctl", "-D", str(self.datadir), "-l", str(self.logfile), "-w", "-t", str(int(timeout)),
                     "start", timeout=timeout + 10)
        self.wait_ready(timeout)

    def wait_ready(self, timeout: float = 60) -> None:
        """Wait until a client connects and runs ``SELECT 1``."""
        import psycopg

        deadline = time.monotonic() + timeout
        while True:
            try:
                with psycopg.connect(self.url(), connect_timeout=2) as conn:
                    conn.execute("SELECT 1")
                return
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)

    def stop(self, mode: str = "fast", timeout: float = 60) -> None:
        """``pg_ctl stop -m <mode>``: ``fast`` (clients disconnected, a
        checkpoint), ``smart`` (waits for clients) or ``immediate`` (no
        checkpoint: the next start recovers from the WAL, as after a crash)."""
        self._server("pg_ctl", "-D", str(self.datadir), "-m", mode, "-w", "-t", str(int(timeout)), "stop",
                     timeout=timeout + 10)

    def crash(self) -> None:
        """Stop the server as a crash would (``-m immediate``)."""
        self.stop("immediate")

    def kill(self) -> None:
        """SIGKILL the postmaster and every process it started, and wait
        until they are gone (the next :meth:`start` recovers)."""
        pid = self.pid
        if pid is None:
            return
        victims = [pid, *_children(pid)]
        for p in victims:
            try:
                os.kill(p, signal.SIGKILL)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + 30
        while any(process_alive(p) for p in victims):
            if time.monotonic() > deadline:
                raise RuntimeError(f"PostgreSQL processes {victims} did not die")
            time.sleep(0.05)
        # A killed postmaster nobody reaps (a container whose init does not)
        # stays a zombie, which the next start would take for a live server
        # holding the lock files: they are stale, remove them.
        for lock in (self.datadir / "postmaster.pid", *self.datadir.glob(".s.PGSQL.*.lock")):
            lock.unlink(missing_ok=True)

    @property
    def pid(self) -> int | None:
        """The postmaster's pid (from ``postmaster.pid``), None when not running."""
        try:
            pid = int((self.datadir / "postmaster.pid").read_text().split("\n", 1)[0])
        except (OSError, ValueError):
            return None
        return pid if process_alive(pid) else None

    @property
    def running(self) -> bool:
        """True while the postmaster runs."""
        return self.pid is not None

    # -- clients -----------------------------------------------------------
    def url(self, database: str = "postgres") -> str:
        """``postgresql://postgres@127.0.0.1:<port>/<database>``."""
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/{database}"

    def execute(self, sql: str, database: str = "postgres") -> None:
        """Run ``sql`` (autocommit: CREATE/DROP DATABASE work)."""
        import psycopg

        with psycopg.connect(self.url(database), connect_timeout=5, autocommit=True) as conn:
            conn.execute(sql.encode())  # statements the tests write themselves

    def create_database(self, name: str) -> str:
        """Create database ``name`` and return its URL."""
        _check_name(name)
        self.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def drop_database(self, name: str) -> None:
        """Drop database ``name`` (its connections closed) if it exists."""
        _check_name(name)
        self.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def client_env(self) -> dict[str, str]:
        """The environment of a client tool run against this cluster
        (``PGHOST``, ``PGPORT``, ``PGUSER``; no password needed)."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
        env.update(PGHOST="127.0.0.1", PGPORT=str(self.port), PGUSER=SUPERUSER)
        return env

    def tool(self, name: str) -> str:
        """The path of client tool ``name`` (``pg_dump``, ``pg_restore``,
        ``psql``): the cluster's own version, else the PATH's."""
        own = self.bindir / name
        return str(own) if own.is_file() else (shutil.which(name) or name)

    def run(self, name: str, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        """Run client tool ``name`` with ``args`` against this cluster, as
        the current user; raises ``RuntimeError`` with its output when it
        fails."""
        res = subprocess.run([self.tool(name), *args], env=self.client_env(), capture_output=True, text=True,
                             timeout=timeout, check=False)
        if res.returncode != 0:
            raise RuntimeError(f"{name} {' '.join(args)} failed ({res.returncode}):\n{res.stdout}{res.stderr}")
        return res


def _check_name(name: str) -> None:
    if not re.fullmatch(r"[a-z_][a-z0-9_]{0,62}", name):
        raise ValueError(f"not a plain database name: {name!r}")


def process_alive(pid: int) -> bool:
    """True while process ``pid`` runs (a zombie counts as dead)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie is dead for our purpose
        return Path(f"/proc/{pid}/stat").read_text().split(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:  # gone meanwhile
        return False
    except (OSError, IndexError):  # no /proc to tell: it answered kill(0)
        return True


def _children(pid: int) -> list[int]:
    """The pids whose parent is ``pid`` (from /proc)."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().split(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


def server_user() -> str | None:
    """The OS user the server must run as: None (the current user) unless
    running as root, then :data:`SERVER_USER`.  Raises
    :class:`PostgresUnavailable` when root has no such user or no ``runuser``."""
    if os.geteuid() != 0:
        return None
    try:
        pwd.getpwnam(SERVER_USER)
    except KeyError:
        raise PostgresUnavailable(f"running as root and there is no '{SERVER_USER}' user to run initdb as") from None
    if shutil.which("runuser") is None:
        raise PostgresUnavailable("running as root and runuser is missing (initdb refuses root)")
    return SERVER_USER


@contextmanager
def own_postgres(*, fsync: bool = False, settings: Sequence[str] = (), start: bool = True,
                 base_dir: str | None = None) -> Iterator[PostgresCluster]:
    """A throwaway cluster (see module doc), started unless ``start`` is
    false; at the end the server is stopped (killed if it will not stop)
    and its directory removed, whatever happened.  ``settings``: extra
    ``postgresql.conf`` lines.  Raises :class:`PostgresUnavailable` when it
    cannot be made here (use :func:`postgres_cluster_missing` to skip)."""
    bindir = find_bindir()
    user = server_user()
    root = Path(tempfile.mkdtemp(prefix="tapis-pg-", dir=base_dir))
    cluster: PostgresCluster | None = None
    try:
        if user is not None:
            shutil.chown(root, user)
        extra = [] if fsync else ["fsync = off", "full_page_writes = off"]
        cluster = PostgresCluster(root / "data", free_port(), bindir, as_user=user, settings=[*extra, *settings])
        cluster.init()
        if start:
            for attempt in range(3):  # the port may be taken between its pick and the start
                try:
                    cluster.start()
                    break
                except RuntimeError:
                    if attempt == 2 or "could not bind" not in cluster.log_tail().lower():
                        raise
                    cluster.port = free_port()
                    with (cluster.datadir / "postgresql.conf").open("a") as f:
                        f.write(f"port = {cluster.port}\n")
        yield cluster
    finally:
        if cluster is not None and cluster.running:
            try:
                cluster.stop("immediate", timeout=30)
            except (RuntimeError, subprocess.TimeoutExpired):
                cluster.kill()
        shutil.rmtree(root, ignore_errors=True)


def postgres_cluster_missing() -> str | None:
    """Why :func:`own_postgres` cannot run here, or None when it can."""
    try:
        find_bindir()
        server_user()
    except PostgresUnavailable as exc:
        return str(exc)
    return None
