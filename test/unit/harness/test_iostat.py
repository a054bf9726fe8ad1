import os
from pathlib import Path

import pytest

from perfgate_harness import iostat, procstat

# /proc/diskstats of this runner (kernel 6.18): a virtio disk, an empty zram and loop devices.
DISKSTATS = """\
   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
 254       0 vda 103860 14289 5063618 60175 37534 267879 21420456 213184 0 27336 281772 11532 112 1360096 6672 3805 1740
 253       0 zram0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
   8       1 sda1 4208 0 280338 1519 132 75 1648 78 0 1552 1598 0 0 0 0
"""
# /proc/<pid>/io of a mariadbd after a write round.
PROC_IO = """rchar: 183472019
wchar: 90113556
syscr: 1502112
syscw: 410331
read_bytes: 1245184
write_bytes: 80150528
cancelled_write_bytes: 4096
"""


def test_diskstats_fields_of_one_device():
    assert iostat.parse_diskstats(DISKSTATS, "254:0") == iostat.DeviceSample(
        reads=103860, read_sectors=5063618, writes=37534, write_sectors=21420456)
    assert iostat.parse_diskstats(DISKSTATS, "8:1") == iostat.DeviceSample(4208, 280338, 132, 1648)
    assert iostat.parse_diskstats(DISKSTATS, "8:0") is None
    assert iostat.device_name(DISKSTATS, "254:0") == "vda"


def test_proc_io_bytes():
    assert procstat.parse_io(PROC_IO) == (1245184, 80150528)
    with pytest.raises(ValueError, match="read_bytes/write_bytes"):
        procstat.parse_io("rchar: 1\nwchar: 2\n")


def test_a_real_block_device_is_used_as_is():
    assert iostat.backing_dev(os.makedev(254, 0), "/work", "") == "254:0"


def test_an_anonymous_device_falls_back_to_the_mount_source():
    # btrfs and overlays report st_dev 0:<n>; the mount's /dev source names the real device.
    mountinfo = "27 1 0:31 / / rw,relatime - btrfs /dev/nvme0n1p2 rw\n40 27 0:40 / /tmp rw - tmpfs tmpfs rw\n"
    nodes = {"/dev/nvme0n1p2": os.makedev(259, 2)}
    stat = lambda path: type("St", (), {"st_rdev": nodes[path]})  # noqa: E731
    assert iostat.backing_dev(os.makedev(0, 31), "/home/runner/run", mountinfo, stat) == "259:2"
    assert iostat.backing_dev(os.makedev(0, 40), "/tmp/run", mountinfo, stat) is None


def test_per_query_from_both_sources():
    before = procstat.Sample(1.0, 10, read_bytes=1024 * 100, write_bytes=0)
    after = procstat.Sample(2.0, 20, read_bytes=1024 * 300, write_bytes=1024 * 1000)
    dev_before = iostat.DeviceSample(reads=10, read_sectors=0, writes=0, write_sectors=0)
    dev_after = iostat.DeviceSample(reads=60, read_sectors=800, writes=5, write_sectors=4000)
    assert iostat.per_query(before, after, dev_before, dev_after, 100) == {
        "read_kb_per_query": 2.0, "write_kb_per_query": 10.0, "device_reads_per_query": 0.5,
        "device_read_kb_per_query": 4.0, "device_write_kb_per_query": 20.0}


def test_a_cached_read_round_is_zero_not_missing():
    s = procstat.Sample(1.0, 10, read_bytes=5, write_bytes=7)
    d = iostat.DeviceSample(1, 2, 3, 4)
    assert set(iostat.per_query(s, s, d, d, 1000).values()) == {0.0}


def test_unreadable_sources_and_no_queries_give_none():
    none = dict.fromkeys(["read_kb_per_query", "write_kb_per_query", "device_reads_per_query",
                          "device_read_kb_per_query", "device_write_kb_per_query"])
    unreadable = procstat.Sample(1.0, 10)
    assert iostat.per_query(unreadable, unreadable, None, None, 100) == none
    s = procstat.Sample(1.0, 10, 0, 0)
    assert iostat.per_query(s, s, None, None, 0) == none


def test_this_process_reads_its_own_io_and_the_device_of_a_real_folder(tmp_path):
    assert procstat.sample(os.getpid()).read_bytes is not None
    device = iostat.device_of(tmp_path)
    if Path("/proc/diskstats").read_text().strip() and os.major(os.stat(tmp_path).st_dev) != 0:
        assert device is not None and iostat.sample(device) is not None
    # A path on no block device (procfs) has no device.
    assert iostat.device_of(Path("/proc/self")) is None


def test_writes_to_a_real_file_show_in_write_bytes(tmp_path):
    before = procstat.sample(os.getpid())
    with open(tmp_path / "f", "wb") as f:
        f.write(b"x" * (1 << 20))
    after = procstat.sample(os.getpid())
    assert after.write_bytes - before.write_bytes >= 1 << 20
