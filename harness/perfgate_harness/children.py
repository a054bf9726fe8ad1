"""The one way the harness starts a process: the child dies with the harness.

Every child gets a parent-death signal (SIGKILL, prctl PR_SET_PDEATHSIG), so a harness that is
killed outright (as it is when perfgate is) leaves no mysqld or sysbench behind.

The kernel sends that signal when the *thread* that forked the child ends, not the process.
Servers are started from worker threads that end with their pool, which would kill them after
every parallel start; so every child is forked by one thread that lives as long as the harness.
"""
import ctypes
import os
import queue
import signal
import subprocess
import threading

_PR_SET_PDEATHSIG = 1
_libc = ctypes.CDLL(None, use_errno=True)
_requests: queue.Queue = queue.Queue()
_forker = None
_forker_lock = threading.Lock()


def _die_with_parent(parent_pid: int):
    def set_signal():
        # Runs in the child between fork and exec: one system call, no Python objects made.
        _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent_pid:  # the harness died before the signal was set
            os._exit(1)
    return set_signal


def _serve():
    while True:
        args, kwargs, reply = _requests.get()
        try:
            reply.put((subprocess.Popen(*args, preexec_fn=_die_with_parent(os.getpid()), **kwargs), None))
        except BaseException as e:  # handed to the caller, raised in its thread
            reply.put((None, e))


def popen(*args, **kwargs) -> subprocess.Popen:
    """subprocess.Popen, forked by the harness's one long-lived forking thread."""
    global _forker
    with _forker_lock:
        if _forker is None:
            _forker = threading.Thread(target=_serve, name="children", daemon=True)
            _forker.start()
    # The harness's own stdin carries answers to its questions (progress.ask_more_rounds): no
    # child reads from it.
    kwargs.setdefault("stdin", subprocess.DEVNULL)
    reply: queue.Queue = queue.Queue(maxsize=1)
    _requests.put((args, kwargs, reply))
    proc, error = reply.get()
    if error is not None:
        raise error
    return proc


def run(cmd, *, timeout=None, capture_output=False, **kwargs) -> subprocess.CompletedProcess:
    """subprocess.run through popen(): the child is killed when the timeout passes or the caller
    is interrupted, and TimeoutExpired is raised as subprocess.run raises it."""
    if capture_output:
        kwargs["stdout"] = kwargs["stderr"] = subprocess.PIPE
    with popen(cmd, **kwargs) as proc:
        try:
            stdout, stderr = proc.communicate(timeout=timeout)
        except BaseException:
            proc.kill()
            proc.wait()
            raise
    return subprocess.CompletedProcess(cmd, proc.returncode, stdout, stderr)
