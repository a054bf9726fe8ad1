"""Machine fingerprint: what a runner is, and how it is tuned, for results.json.

Two results are only comparable when they were measured on the same kind of machine in the
same state, so the fingerprint records both the hardware (CPU, memory, disk, filesystem) and the
knobs that move timings (frequency governor, turbo, SMT, transparent huge pages, swappiness,
kernel mitigations). `id` hashes the fields that make timings comparable; it leaves out what
changes without changing speed (hostname, free memory, the exact kilobytes the kernel reserves
at boot).

The parse_* functions are pure: they take the text of a /proc or /sys file and return values,
so they are tested on captured file contents. `collect` does the reading.
"""

import hashlib
import json
import os
import platform
import re
import socket
import subprocess
from pathlib import Path

from . import counted_malloc

# Fields whose difference makes two timings incomparable. Order does not matter (the hash is
# over sorted keys) but the list is explicit so that adding a field to the output never changes
# the id of old results by accident.
COMPARABLE_FIELDS = (
    "cpu_model", "cores", "memory_gib", "kernel", "virtualized", "governor", "turbo", "smt",
    "thp", "swappiness", "mitigations", "disk", "filesystem_type",
)


# ---------------------------------------------------------------------------------- parsing

def parse_cpuinfo(text):
    """Model name, logical CPU count and whether a hypervisor flag is set, from /proc/cpuinfo."""
    model = None
    processors = 0
    hypervisor = False
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if not sep:
            continue
        key = key.strip()
        value = value.strip()
        if key == "processor":
            processors += 1
        elif key in ("model name", "Model", "cpu model") and model is None:
            model = value
        elif key == "flags" and "hypervisor" in value.split():
            hypervisor = True
    return {"cpu_model": model or "unknown", "cores": processors, "hypervisor": hypervisor}


def parse_meminfo(text):
    """MemTotal in bytes from /proc/meminfo."""
    for line in text.splitlines():
        if line.startswith("MemTotal:"):
            fields = line.split()
            amount = int(fields[1])
            unit = fields[2].lower() if len(fields) > 2 else "b"
            return amount * 1024 if unit == "kb" else amount
    raise ValueError("/proc/meminfo: no MemTotal line")


def parse_bracketed_choice(text):
    """The selected value of a sysfs choice file such as 'always [madvise] never'."""
    if text is None:
        return None
    for word in text.split():
        if word.startswith("[") and word.endswith("]"):
            return word[1:-1]
    stripped = text.strip()
    return stripped or None


def parse_turbo(intel_no_turbo=None, cpufreq_boost=None):
    """'on' / 'off' from intel_pstate/no_turbo (1 = off) or cpufreq/boost (1 = on); None when the
    host exposes neither (as in most VMs and containers)."""
    if intel_no_turbo is not None and intel_no_turbo.strip() in ("0", "1"):
        return "off" if intel_no_turbo.strip() == "1" else "on"
    if cpufreq_boost is not None and cpufreq_boost.strip() in ("0", "1"):
        return "on" if cpufreq_boost.strip() == "1" else "off"
    return None


def parse_governors(texts):
    """One governor name when all CPUs agree, 'mixed:a,b' when they do not, None when absent."""
    names = sorted({t.strip() for t in texts if t and t.strip()})
    if not names:
        return None
    return names[0] if len(names) == 1 else "mixed:" + ",".join(names)


def parse_mitigations(files):
    """{vulnerability: state} from the contents of /sys/devices/system/cpu/vulnerabilities/*."""
    return {name: " ".join(text.split()) for name, text in sorted(files.items()) if text is not None}


def summarize_mitigations(mitigations):
    """Counts of vulnerabilities by kind of state: a short line for people, not for the id."""
    counts = {"not_affected": 0, "mitigated": 0, "vulnerable": 0, "other": 0}
    for state in mitigations.values():
        lowered = state.lower()
        if lowered.startswith("not affected"):
            counts["not_affected"] += 1
        elif lowered.startswith("mitigation"):
            counts["mitigated"] += 1
        elif lowered.startswith("vulnerable"):
            counts["vulnerable"] += 1
        else:
            counts["other"] += 1
    return counts


def _unescape_mount_field(field):
    # mountinfo escapes space, tab, newline and backslash as octal (\040 ...).
    out, i = [], 0
    while i < len(field):
        digits = field[i + 1:i + 4]
        if field[i] == "\\" and len(digits) == 3 and digits.isdigit():
            out.append(chr(int(field[i + 1:i + 4], 8)))
            i += 4
        else:
            out.append(field[i])
            i += 1
    return "".join(out)


def parse_mountinfo(text):
    """Mounts from /proc/self/mountinfo: [{mount_point, fstype, source, options, dev}]."""
    mounts = []
    for line in text.splitlines():
        if " - " not in line:
            continue
        left, right = line.split(" - ", 1)
        lf = left.split()
        rf = right.split()
        if len(lf) < 6 or len(rf) < 2:
            continue
        mounts.append({
            "mount_point": _unescape_mount_field(lf[4]),
            "dev": lf[2],
            "fstype": rf[0],
            "source": _unescape_mount_field(rf[1]),
            "options": rf[2] if len(rf) > 2 else "",
        })
    return mounts


def mount_for_path(mounts, path):
    """The mount holding `path` (an absolute, resolved path): the longest matching mount point;
    the last one listed wins among equals, as later mounts hide earlier ones."""
    best = None
    for m in mounts:
        mp = m["mount_point"]
        inside = path == mp or mp == "/" or path.startswith(mp.rstrip("/") + "/")
        if inside and (best is None or len(mp) >= len(best["mount_point"])):
            best = m
    return best


def comparable_view(fp):
    """The fields of a fingerprint that decide whether timings can be compared."""
    view = {}
    for key in COMPARABLE_FIELDS:
        if key == "memory_gib":
            # MemTotal shifts by a few MiB between boots and kernels; whole GiB do not.
            view[key] = round(fp.get("memory_bytes", 0) / 2**30)
        elif key == "disk":
            disk = fp.get("disk") or {}
            view[key] = {k: disk.get(k) for k in ("model", "rotational")}
        elif key == "filesystem_type":
            view[key] = (fp.get("filesystem") or {}).get("type")
        elif key == "virtualized":
            view[key] = (fp.get("virtualization") or {}).get("virtualized")
        else:
            view[key] = fp.get(key)
    return view


def hardware_class(cores, memory_bytes):
    """A short runner label such as '2c-24g' (logical CPUs, whole GiB of memory): workflows pick
    runners of one class so that a suite's limits fit the hardware it runs on."""
    return f"{cores}c-{round(memory_bytes / 2**30)}g"


def fingerprint_id(fp):
    """Stable short hash of comparable_view(fp)."""
    canonical = json.dumps(comparable_view(fp), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def parse_readelf_strings(text):
    """The strings of `readelf -p <section>` output: lines like '  [     0]  GCC: (Debian ...) 12.2.0'."""
    out = []
    for line in text.splitlines():
        m = re.match(r"^\s*\[\s*[0-9a-f]+\]\s+(.*\S)\s*$", line)
        if m:
            out.append(m.group(1))
    return out


def compiler_of_comment(strings):
    """The compiler that a binary's .comment section names (GCC or clang), or None. Linked-in
    objects add their own lines; the server's own compiler comes first for GCC builds."""
    for s in strings:
        if s.startswith("GCC: ") or "clang version" in s:
            return s
    return None


def parse_sysbench_version(text):
    """'1.0.20' from `sysbench --version` ('sysbench 1.0.20', possibly with a git suffix)."""
    m = re.search(r"^sysbench\s+(\S+)", text.strip(), re.MULTILINE)
    return m.group(1) if m else None


def build_options(record):
    """cmake options of a build record (build.json of `perfgate build`): the -D flags of the
    recipe, then what the configured tree's CMakeCache.txt says (build type and its flags)."""
    return {**record.get("cmakeFlags", {}), **record.get("cmakeCache", {})}


def describe_build(version_line, comment_strings, record, record_problem=None):
    """What is known of how a server was built, from its `--version` line, the strings of its
    .comment section (None: readelf could not run) and the build record beside its prefix
    (None when there is none). Pure."""
    compiler = compiler_of_comment(comment_strings or [])
    compiler_from = ".comment section" if compiler else None
    if compiler is None and record and record.get("compiler"):
        c = record["compiler"]
        compiler = " ".join(x for x in (c["id"], c.get("version"), f"({c['path']})" if c.get("path") else None) if x)
        compiler_from = "build.json"
    build = {
        "version_line": version_line,
        "compiler": compiler,
        "compiler_from": compiler_from,
        "cmake_options": build_options(record) if record else None,
        "cmake_from": "build.json" if record else None,
    }
    missing = []
    if compiler is None:
        missing.append("the compiler (.comment section stripped, as distribution packages do)"
                       if comment_strings is not None else "the compiler (readelf could not read the binary)")
    if record is None:
        missing.append("the cmake options (no build.json of perfgate build beside the prefix"
                       + (f": {record_problem}" if record_problem else "") + ")")
    if missing:
        build["unknown"] = "; ".join(missing)
    return build


# ---------------------------------------------------------------------------------- reading

def _read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return None


def _read_int(path):
    text = _read(path)
    try:
        return int(text.strip()) if text is not None else None
    except ValueError:
        return None


def _cpu_dirs(root):
    base = os.path.join(root, "sys/devices/system/cpu")
    try:
        names = os.listdir(base)
    except OSError:
        return []
    return [os.path.join(base, n) for n in sorted(names) if n.startswith("cpu") and n[3:].isdigit()]


def _block_device(root, dev):
    """Disk facts for a mount's major:minor: the whole disk (not the partition), rotational,
    model and I/O scheduler. None for filesystems without a block device (tmpfs, overlay)."""
    link = os.path.join(root, "sys/dev/block", dev)
    if not os.path.exists(link):
        return None
    node = os.path.realpath(link)
    if os.path.exists(os.path.join(node, "partition")):
        node = os.path.dirname(node)
    rotational = _read_int(os.path.join(node, "queue/rotational"))
    model = _read(os.path.join(node, "device/model"))
    return {
        "device": os.path.basename(node),
        "model": model.strip() if model else None,
        "rotational": None if rotational is None else bool(rotational),
        "scheduler": parse_bracketed_choice(_read(os.path.join(node, "queue/scheduler"))),
    }


def _container(root):
    if os.path.exists(os.path.join(root, ".dockerenv")) or os.path.exists(os.path.join(root, "run/.containerenv")):
        return True
    environ = _read(os.path.join(root, "proc/1/environ")) or ""
    return "container=" in environ


def _run(cmd):
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout if out.returncode == 0 else None


def sysbench_version():
    text = _run(["sysbench", "--version"])
    return parse_sysbench_version(text) if text else None


def _build_record(basedir):
    """(build.json beside a `perfgate build` prefix, or None; why it was not used, or None).
    A record that breaks its schema is not read: the results must not carry a hand-edited or
    corrupt file's claims."""
    from . import schema  # the schema module reads schema/, which a fingerprint alone does not need
    prefix = Path(basedir)
    file = prefix.parent / "build.json"
    if prefix.name != "prefix" or not file.is_file():
        return None, None
    try:
        record = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        return None, f"{file} cannot be read: {e}"
    problems = schema.schema_errors("build", record)
    if problems:
        return None, f"{file} breaks schema/build.schema.json: {problems[0]}"
    return record, None


def server_build(binary, basedir):
    """How one side's server was built: its --version line, compiler and cmake options (see
    describe_build), for results.json's sides."""
    version = _run([str(binary), "--no-defaults", "--version"])
    # The line starts with the binary's path, which says nothing the results do not hold already.
    version_line = re.sub(r"^\S*/", "", version.strip().splitlines()[0]) if version and version.strip() else None
    comment = _run(["readelf", "-p", ".comment", str(binary)])
    record, problem = _build_record(basedir)
    return describe_build(version_line, parse_readelf_strings(comment) if comment is not None else None, record, problem)


def collect(data_dir=None, root="/"):
    """Read the machine's fingerprint. `data_dir` is where the servers keep their data (its
    filesystem and disk are recorded); `root` lets tests point at a captured tree."""
    p = lambda *parts: os.path.join(root, *parts)  # noqa: E731 - a short path builder
    cpu = parse_cpuinfo(_read(p("proc/cpuinfo")) or "")
    cpus = _cpu_dirs(root)
    vuln_dir = p("sys/devices/system/cpu/vulnerabilities")
    try:
        vuln_files = {n: _read(os.path.join(vuln_dir, n)) for n in os.listdir(vuln_dir)}
    except OSError:
        vuln_files = {}

    data_path = os.path.realpath(data_dir or os.getcwd())
    mounts = parse_mountinfo(_read(p("proc/self/mountinfo")) or "")
    mount = mount_for_path(mounts, data_path)

    kernel = (_read(p("proc/sys/kernel/osrelease")) or platform.release()).strip()
    hostname = (_read(p("proc/sys/kernel/hostname")) or socket.gethostname()).strip()
    mitigations = parse_mitigations(vuln_files)
    fp = {
        "cpu_model": cpu["cpu_model"],
        "cores": cpu["cores"] or (os.cpu_count() or 0),
        "memory_bytes": parse_meminfo(_read(p("proc/meminfo")) or "MemTotal: 0 kB"),
        "kernel": kernel,
        "hostname": hostname,
        "virtualization": {"virtualized": cpu["hypervisor"], "container": _container(root)},
        "governor": parse_governors([_read(os.path.join(c, "cpufreq/scaling_governor")) for c in cpus]),
        "turbo": parse_turbo(_read(p("sys/devices/system/cpu/intel_pstate/no_turbo")),
                             _read(p("sys/devices/system/cpu/cpufreq/boost"))),
        "smt": (_read(p("sys/devices/system/cpu/smt/control")) or "").strip() or None,
        "thp": parse_bracketed_choice(_read(p("sys/kernel/mm/transparent_hugepage/enabled"))),
        "thp_defrag": parse_bracketed_choice(_read(p("sys/kernel/mm/transparent_hugepage/defrag"))),
        "swappiness": _read_int(p("proc/sys/vm/swappiness")),
        # The load generator's version: recorded, not in the id (adding it would change the id
        # of every earlier result).
        "sysbench": sysbench_version() if root == "/" else None,
        # What counted servers run on here (counted_malloc.py); recorded, not in the id either.
        "counted_malloc": counted_malloc.locate().record() if root == "/" else None,
        "isolated_cpus": (_read(p("sys/devices/system/cpu/isolated")) or "").strip() or None,
        "mitigations": mitigations,
        "mitigations_summary": summarize_mitigations(mitigations),
        "disk": _block_device(root, mount["dev"]) if mount else None,
        "filesystem": {
            "path": data_path,
            "type": mount["fstype"] if mount else None,
            "source": mount["source"] if mount else None,
            "options": mount["options"] if mount else None,
        },
    }
    fp["hardware_class"] = hardware_class(fp["cores"], fp["memory_bytes"])
    fp["id"] = fingerprint_id(fp)
    return fp
