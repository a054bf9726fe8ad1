"""I/O per query, as the posts' iostat columns (r/o, rKB/o, wKB/o): the device that holds a
datadir, from /proc/diskstats, sampled around the same window as the server's own bytes
(procstat.Sample.read_bytes / write_bytes, from /proc/<pid>/io).

The two sources say different things. The server's own bytes are mysqld's alone. The device's
counts are everyone's on that device: the other side's server (idle between its rounds but
still flushing and purging what its last round left), the runner's other jobs. The device is
the only source of read requests, though: /proc/<pid>/io counts bytes, and its syscr counts
every read call, socket reads from sysbench included.

Pure functions take the text of a /proc file; `device_of` and `sample` do the reading.
"""
import os
from dataclasses import dataclass
from pathlib import Path

from .fingerprint import mount_for_path, parse_mountinfo
from .procstat import Sample

SECTOR_BYTES = 512  # /proc/diskstats counts 512-byte sectors whatever the device's own size


@dataclass(frozen=True)
class Device:
    name: str   # as /proc/diskstats names it: vda, sda1, nvme0n1p2, dm-0
    dev: str    # major:minor


@dataclass(frozen=True)
class DeviceSample:
    reads: int          # read requests completed
    read_sectors: int
    writes: int         # write requests completed
    write_sectors: int


def parse_diskstats(text: str, dev: str) -> DeviceSample | None:
    """The counters of device `dev` (major:minor) in /proc/diskstats; None when it is not listed.

    Fields: major, minor, name, reads completed, reads merged, sectors read, ms reading,
    writes completed, writes merged, sectors written, ...
    """
    for line in text.splitlines():
        f = line.split()
        if len(f) < 10 or f"{f[0]}:{f[1]}" != dev:
            continue
        return DeviceSample(reads=int(f[3]), read_sectors=int(f[5]), writes=int(f[7]), write_sectors=int(f[9]))
    return None


def device_name(text: str, dev: str) -> str | None:
    for line in text.splitlines():
        f = line.split()
        if len(f) >= 3 and f"{f[0]}:{f[1]}" == dev:
            return f[2]
    return None


def backing_dev(st_dev: int, path: str, mountinfo_text: str, stat=os.stat) -> str | None:
    """major:minor of the block device holding `path`. Filesystems without one of their own
    report an anonymous device (major 0: btrfs, overlay, tmpfs); for those the mount's source,
    when it is a /dev node, names the device instead."""
    if os.major(st_dev) != 0:
        return f"{os.major(st_dev)}:{os.minor(st_dev)}"
    mount = mount_for_path(parse_mountinfo(mountinfo_text), path)
    if not mount or not mount["source"].startswith("/dev/"):
        return None
    try:
        rdev = stat(mount["source"]).st_rdev
    except OSError:
        return None
    return f"{os.major(rdev)}:{os.minor(rdev)}" if rdev else None


def device_of(path: Path, proc: Path = Path("/proc")) -> Device | None:
    """The device of /proc/diskstats that holds `path`, or None (tmpfs, an overlay over no
    block device, no /proc/diskstats)."""
    real = os.path.realpath(path)
    try:
        dev = backing_dev(os.stat(real).st_dev, real, (proc / "self" / "mountinfo").read_text())
        if dev is None:
            return None
        name = device_name((proc / "diskstats").read_text(), dev)
    except OSError:
        return None
    return Device(name, dev) if name else None


def sample(device: Device | None, proc: Path = Path("/proc")) -> DeviceSample | None:
    if device is None:
        return None
    try:
        return parse_diskstats((proc / "diskstats").read_text(), device.dev)
    except OSError:
        return None


def per_query(before: Sample, after: Sample, device_before: DeviceSample | None,
              device_after: DeviceSample | None, queries: int) -> dict:
    """The round's I/O per query: the server's KB read and written (rKB/o, wKB/o), the device's
    read requests (r/o) and KB. A figure is None when its source was not readable or nothing
    was queried; 0 when nothing was read or written (a cached read-only round)."""
    figures = {"read_kb_per_query": None, "write_kb_per_query": None, "device_reads_per_query": None,
               "device_read_kb_per_query": None, "device_write_kb_per_query": None}
    if queries <= 0:
        return figures
    if before.read_bytes is not None and after.read_bytes is not None:
        figures["read_kb_per_query"] = (after.read_bytes - before.read_bytes) / 1024 / queries
        figures["write_kb_per_query"] = (after.write_bytes - before.write_bytes) / 1024 / queries
    if device_before is not None and device_after is not None:
        kb = lambda sectors: sectors * SECTOR_BYTES / 1024  # noqa: E731
        figures["device_reads_per_query"] = (device_after.reads - device_before.reads) / queries
        figures["device_read_kb_per_query"] = kb(device_after.read_sectors - device_before.read_sectors) / queries
        figures["device_write_kb_per_query"] = kb(device_after.write_sectors - device_before.write_sectors) / queries
    return figures
