"""Server lifecycle for MariaDB and MySQL/Percona: datadir, my.cnf, start, readiness, shutdown.

Command lines and my.cnf text are built by pure functions so that the MySQL/Percona paths,
which cannot run on every machine, are still tested. Only `Server` touches processes and files.
"""
import hashlib
import os
import shutil
import pwd
import re
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pymysql

from . import children

SERVER_BINARY_CANDIDATES = ("sbin/mariadbd", "sbin/mysqld", "bin/mariadbd", "bin/mysqld", "libexec/mysqld")
INSTALL_DB_CANDIDATES = ("bin/mariadb-install-db", "scripts/mariadb-install-db",
                         "bin/mysql_install_db", "scripts/mysql_install_db")
# sun_path is 108 bytes including the terminating NUL.
SOCKET_PATH_LIMIT = 107
START_TIMEOUT = 180.0
SHUTDOWN_TIMEOUT = 90.0
INIT_TIMEOUT = 300.0


class ServerError(Exception):
    """A server step failed; carries the step and the tail of the server's log."""

    def __init__(self, step: str, message: str, log_tail: str = ""):
        super().__init__(message)
        self.step = step
        self.message = message
        self.log_tail = log_tail


def find_server_binary(basedir: Path) -> Path | None:
    for rel in SERVER_BINARY_CANDIDATES:
        p = Path(basedir) / rel
        if p.is_file() and os.access(p, os.X_OK):
            return p
    return None


def find_install_db(basedir: Path) -> Path | None:
    for rel in INSTALL_DB_CANDIDATES:
        p = Path(basedir) / rel
        if p.is_file():
            return p
    return None


def parse_version(text: str) -> tuple[str, str]:
    """(flavor, version) from the first line of `mysqld --version`."""
    m = re.search(r"\bVer\s+(\S+)", text)
    if not m:
        raise ValueError(f"no 'Ver <version>' in {text.strip()[:200]!r}")
    version = m.group(1)
    if "mariadb" in text.lower():
        return "mariadb", version
    if "percona" in text.lower():
        return "percona", version
    return "mysql", version


def settle_flavor(detected: tuple[str, str], built_as: str | None) -> tuple[str, str]:
    """(flavor, version) of a server whose build recipe may be known. MariaDB and Percona's own
    packages say who they are in --version; a Percona Server built from source says only
    "(Source distribution)", as MySQL does, so the recipe it was built with (`built_as`, from
    plan.json) names it then. What --version says otherwise stands."""
    flavor, version = detected
    if flavor == "mysql" and built_as == "percona":
        return "percona", version
    return detected


def detect_version(binary: Path) -> tuple[str, str]:
    try:
        out = children.run([str(binary), "--no-defaults", "--version"], capture_output=True, text=True, timeout=60)
    except OSError as e:
        raise ValueError(f"cannot run {binary} --version: {e.strerror}") from None
    if out.returncode != 0:
        tail = (out.stderr or out.stdout).strip().splitlines()[-1:] or [""]
        raise ValueError(f"{binary} --version exited with code {out.returncode}: {tail[0]}")
    return parse_version(out.stdout)


# How long a killed server may take to be reaped after its clients saw their connections drop.
EXIT_SETTLE_SECONDS = 5.0


@dataclass(frozen=True)
class Layout:
    """Where one side's server keeps its files, all under <run>/servers/<side>/ except a long socket."""
    dir: Path
    datadir: Path
    tmpdir: Path
    cnf: Path
    socket: Path
    pid_file: Path
    error_log: Path
    stdout_log: Path
    marker: Path
    loaded_copy: Path  # the tables as loaded, kept while a plan's writes change them


def socket_path(side_dir: Path, side: str) -> Path:
    preferred = Path(side_dir) / "mysqld.sock"
    if len(str(preferred)) <= SOCKET_PATH_LIMIT - 8:  # room for the ".lock" file MySQL adds
        return preferred
    digest = hashlib.sha1(str(Path(side_dir).resolve()).encode()).hexdigest()[:12]
    return Path("/tmp") / f"perfgate-{digest}" / f"{side}.sock"


def layout_for(run_dir: Path, side: str) -> Layout:
    d = Path(run_dir).resolve() / "servers" / side
    return Layout(dir=d, datadir=d / "data", tmpdir=d / "tmp", cnf=d / "my.cnf", socket=socket_path(d, side),
                  pid_file=d / "mysqld.pid", error_log=d / "error.log", stdout_log=d / "mysqld.out",
                  marker=d / "data.json", loaded_copy=d / "data.loaded")


def _cnf_value(value) -> str | None:
    if value is None:
        return None
    if value is True:
        return "ON"
    if value is False:
        return "OFF"
    return str(value)


def server_options(profile_options: dict, layout: Layout, basedir: Path, port: int, run_as: str | None,
                   flavor: str = "mariadb") -> dict:
    """The [mysqld] options as written to my.cnf: the profile, then what perfgate owns."""
    options = {k: _cnf_value(v) for k, v in profile_options.items()}
    options.update({
        "basedir": str(basedir),
        "datadir": str(layout.datadir),
        # A private tmpdir: servers bootstrapping at the same time in a shared /tmp have been
        # seen to lose each other's temporary tables.
        "tmpdir": str(layout.tmpdir),
        "socket": str(layout.socket),
        "port": str(port),
        "bind_address": "127.0.0.1",
        "pid_file": str(layout.pid_file),
        "log_error": str(layout.error_log),
    })
    if run_as:
        # mysqld refuses to run as root unless told to.
        options["user"] = run_as
    if flavor in ("mysql", "percona"):
        # MySQL 8 loads the X plugin on the fixed port 33060, which the second server could not
        # bind; loose_ keeps 5.7 (no X plugin by default) from refusing the option.
        options["loose_mysqlx"] = "OFF"
    return options


# How MariaDB and MySQL say that a write found the disk full: error 28 is ENOSPC.
DISK_FULL = re.compile(r"No space left on device|[Dd]isk is full|\b(?:OS )?errno:? 28\b|\berror (?:number )?28\b|\bENOSPC\b")


def disk_full_note(log_tail: str, directory: Path) -> str | None:
    """What to add to a server failure whose log says the disk was full; None otherwise."""
    if not DISK_FULL.search(log_tail or ""):
        return None
    try:
        free = f" ({shutil.disk_usage(directory).free // 2**20} MiB free now)"
    except OSError:
        free = ""
    return f"the disk holding {directory} is full{free}: free space there and run again"


def render_cnf(options: dict) -> str:
    lines = ["# written by perfgate: the profile's options, then the paths of this run", "[mysqld]"]
    for key, value in options.items():
        lines.append(key if value is None else f"{key} = {value}")
    return "\n".join(lines) + "\n"


def current_root_user() -> str | None:
    return pwd.getpwuid(0).pw_name if os.geteuid() == 0 else None


def init_command(flavor: str, binary: Path, install_db: Path | None, basedir: Path, layout: Layout) -> list[str]:
    """The command that creates a fresh datadir with the same my.cnf the server will use."""
    if flavor == "mariadb":
        if install_db is None:
            raise ValueError(f"no mariadb-install-db under {basedir} ({', '.join(INSTALL_DB_CANDIDATES)})")
        return [str(install_db), f"--defaults-file={layout.cnf}", f"--basedir={basedir}",
                f"--datadir={layout.datadir}", "--auth-root-authentication-method=normal", "--skip-test-db"]
    # MySQL and Percona 5.7+ initialize with the server binary itself; --defaults-file must come first.
    return [str(binary), f"--defaults-file={layout.cnf}", "--initialize-insecure",
            f"--basedir={basedir}", f"--datadir={layout.datadir}"]


def start_command(binary: Path, layout: Layout, pin_cpus: str | None, wrapper: tuple = ()) -> list[str]:
    """`wrapper` runs the server under another program (e.g. valgrind), which taskset then pins too."""
    cmd = [*wrapper, str(binary), f"--defaults-file={layout.cnf}"]
    return (["taskset", "-c", pin_cpus] + cmd) if pin_cpus else cmd


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def tail(path: Path, lines: int = 30) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - 64 * 1024))
            text = f.read().decode("utf-8", "replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def process_cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
    except OSError:
        return ""


def socket_answers(path: Path) -> bool:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(2)
        try:
            s.connect(str(path))
        except OSError:
            return False
    return True


def remove_private_socket_dir(layout: Layout) -> None:
    """A socket moved to /tmp/perfgate-<digest>/ (its run folder's path was too long for a
    socket) takes that folder with it once the server is down."""
    if layout.socket.parent != layout.dir and layout.socket.parent.name.startswith("perfgate-"):
        shutil.rmtree(layout.socket.parent, ignore_errors=True)


def clean_stale_files(layout: Layout) -> list[str]:
    """Removes pid and socket files an earlier run left behind; returns what it removed.

    A process that is still alive is never touched: when a live server holds our pid file or
    socket, it was not started by this run and the user must decide what to do with it.
    """
    removed = []
    if layout.pid_file.exists():
        try:
            pid = int(layout.pid_file.read_text().strip() or "0")
        except ValueError:
            pid = 0
        if pid > 0 and pid_alive(pid) and (str(layout.cnf) in process_cmdline(pid)
                                           or str(layout.datadir) in process_cmdline(pid)):
            raise ServerError("start", f"a server (pid {pid}) not started by this run is still running on "
                                       f"{layout.datadir}; perfgate does not stop servers it did not start: "
                                       f"stop it (kill {pid}) and run again")
        layout.pid_file.unlink()
        removed.append(str(layout.pid_file))
    for path in (layout.socket, Path(str(layout.socket) + ".lock")):
        if path.exists() or path.is_socket():
            if path == layout.socket and socket_answers(path):
                raise ServerError("start", f"socket {path} belongs to a live server not started by this run; "
                                           "perfgate does not stop servers it did not start: stop it and run again")
            path.unlink()
            removed.append(str(path))
    return removed


class Server:
    """One side's server process, started and stopped by this run only."""

    def __init__(self, side: str, basedir: Path, binary: Path, flavor: str, version: str,
                 layout: Layout, profile_options: dict, pin_cpus: str | None = None, wrapper: tuple = ()):
        self.side = side
        self.basedir = Path(basedir)
        self.binary = Path(binary)
        self.flavor = flavor
        self.version = version
        self.layout = layout
        self.profile_options = profile_options
        self.pin_cpus = pin_cpus
        self.wrapper = tuple(wrapper)
        self.port = None
        self.options = None
        self.proc = None
        self.crashed = None  # message once the process died under us

    # --- files ---------------------------------------------------------------------------
    def write_cnf(self, port: int) -> None:
        self.port = port
        self.options = server_options(self.profile_options, self.layout, self.basedir, port, current_root_user(),
                                      self.flavor)
        self.layout.dir.mkdir(parents=True, exist_ok=True)
        self.layout.tmpdir.mkdir(exist_ok=True)
        self.layout.socket.parent.mkdir(parents=True, exist_ok=True)
        self.layout.cnf.write_text(render_cnf(self.options), encoding="utf-8")

    def log_tail(self, lines: int = 30) -> str:
        parts = [tail(self.layout.error_log, lines)]
        out = tail(self.layout.stdout_log, 10)
        if out.strip():
            parts.append(out)
        return "\n".join(p for p in parts if p.strip())

    # --- lifecycle ---------------------------------------------------------------------------
    def initialize(self) -> None:
        if self.layout.datadir.exists():
            shutil.rmtree(self.layout.datadir)
        self.layout.marker.unlink(missing_ok=True)
        self.write_cnf(free_port())
        cmd = init_command(self.flavor, self.binary, find_install_db(self.basedir), self.basedir, self.layout)
        log = self.layout.dir / "init.log"
        with open(log, "wb") as f:
            try:
                rc = children.run(cmd, stdout=f, stderr=subprocess.STDOUT, timeout=INIT_TIMEOUT).returncode
            except subprocess.TimeoutExpired:
                raise ServerError("init", f"{self.side}: initializing the datadir took over {INIT_TIMEOUT:.0f} s",
                                  tail(log) + "\n" + tail(self.layout.error_log)) from None
        if rc != 0:
            raise ServerError("init", f"{self.side}: initializing the datadir failed (exit code {rc}): "
                                      f"{' '.join(cmd)}", (tail(log, 15) + "\n" + tail(self.layout.error_log, 15)).strip())

    def start(self, timeout: float = START_TIMEOUT, attempts: int = 3) -> None:
        clean_stale_files(self.layout)
        for attempt in range(attempts):
            self.write_cnf(free_port())
            log_size = self.layout.error_log.stat().st_size if self.layout.error_log.exists() else 0
            with open(self.layout.stdout_log, "ab") as out:
                self.proc = children.popen(start_command(self.binary, self.layout, self.pin_cpus, self.wrapper),
                                             stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
            try:
                self._wait_ready(timeout)
                return
            except ServerError as e:
                # Another program may take the port between our probe and mysqld's bind.
                new_log = read_from(self.layout.error_log, log_size)
                if "already in use" in new_log and attempt + 1 < attempts:
                    continue
                raise e

    def _wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        last_error = ""
        while time.monotonic() < deadline:
            rc = self.proc.poll()
            if rc is not None:
                raise ServerError("start", f"{self.side}: mysqld exited with code {rc} before it was ready",
                                  self.log_tail())
            try:
                self.connect(connect_timeout=2).close()
                return
            except pymysql.err.OperationalError as e:
                last_error = str(e)
            time.sleep(0.2)
        self._kill()
        raise ServerError("start", f"{self.side}: mysqld was not ready within {timeout:.0f} s ({last_error})",
                          self.log_tail())

    def connect(self, connect_timeout: float = 10, **kw):
        return pymysql.connect(unix_socket=str(self.layout.socket), user="root", password="",
                               connect_timeout=connect_timeout, autocommit=True, **kw)

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def exit_description(self, settle: float = 0.0) -> str:
        """"running", or how the process ended. With `settle`, waits that long for a process that
        may be dying: a client sees its connection drop before the kernel has reaped it."""
        rc = self.proc.poll() if self.proc else None
        if rc is None and self.proc is not None and settle > 0:
            try:
                rc = self.proc.wait(timeout=settle)
            except subprocess.TimeoutExpired:
                rc = None
        if rc is None:
            return "running"
        if rc < 0:
            return f"killed by signal {signal.Signals(-rc).name}"
        return f"exited with code {rc}"

    def shutdown(self, timeout: float = SHUTDOWN_TIMEOUT) -> str | None:
        """Stops the server; returns a problem description when it did not stop cleanly."""
        try:
            return self._stop(timeout)
        finally:
            remove_private_socket_dir(self.layout)

    def _stop(self, timeout: float) -> str | None:
        if self.proc is None or self.proc.poll() is not None:
            return None
        try:
            conn = self.connect(connect_timeout=5)
            try:
                conn.cursor().execute("SHUTDOWN")
            finally:
                try:
                    conn.close()
                except Exception:
                    pass
        except pymysql.err.MySQLError:
            # The SQL path failed (server hung or lost): ask the process directly.
            self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout)
            return None
        except subprocess.TimeoutExpired:
            self._kill()
            return f"{self.side}: mysqld did not stop within {timeout:.0f} s and was killed"

    def _kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def read_from(path: Path, offset: int) -> str:
    """What `path` holds from byte `offset` on ("" when it cannot be read)."""
    try:
        with open(path, "rb") as f:
            f.seek(offset)
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""
