"""The machine a run measured: CPU, cores, OS, memory, and the clock for cycles/byte."""

from __future__ import annotations

import os
import platform
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# The CPU flags worth recording for simdcrypt's kernels.
INTERESTING_FLAGS = (
    "sse2",
    "ssse3",
    "sse4_1",
    "avx",
    "avx2",
    "bmi2",
    "avx512f",
    "avx512vl",
    "avx512bw",
    "avx512dq",
    "avx512vbmi",
    "sha_ni",
    "gfni",
    "vaes",
    "asimd",
    "sha2",
)


def _cpuinfo() -> list[dict[str, str]]:
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    cpus = []
    for block in text.split("\n\n"):
        entry = {}
        for line in block.splitlines():
            key, sep, value = line.partition(":")
            if sep:
                entry[key.strip()] = value.strip()
        if entry:
            cpus.append(entry)
    return cpus


def cores() -> int:
    """CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def memory_available() -> int | None:
    """MemAvailable from /proc/meminfo, in bytes."""
    try:
        for line in Path("/proc/meminfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


@dataclass(frozen=True)
class Clock:
    """The CPU frequency used for cycles/byte and where it came from."""

    mhz: float | None
    source: str

    def cycles_per_byte(self, mb_per_s: float) -> float | None:
        if self.mhz is None or mb_per_s <= 0:
            return None
        return self.mhz / mb_per_s  # (cycles/s) / (bytes/s), both in millions


def clock(override_mhz: float | None = None) -> Clock:
    """The clock for cycles/byte: --cpu-mhz, else the mean "cpu MHz" of /proc/cpuinfo,
    else the cpufreq driver's maximum. Turbo and power saving make any of them an
    approximation: the report says which one it used."""
    if override_mhz is not None:
        return Clock(override_mhz, "given with --cpu-mhz")
    values = []
    for cpu in _cpuinfo():
        try:
            values.append(float(cpu["cpu MHz"]))
        except (KeyError, ValueError):
            continue
    if values:
        return Clock(
            sum(values) / len(values),
            f'/proc/cpuinfo "cpu MHz" (mean over {len(values)} CPUs, read at start; '
            "the clock may boost or throttle while measuring)",
        )
    try:
        khz = int(Path("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq").read_text().strip())
        return Clock(khz / 1000, "cpufreq cpuinfo_max_freq (the nominal maximum)")
    except (OSError, ValueError):
        return Clock(None, 'unknown (no /proc/cpuinfo "cpu MHz"; pass --cpu-mhz)')


def describe() -> dict[str, Any]:
    """The machine description recorded with every result."""
    cpus = _cpuinfo()
    first = cpus[0] if cpus else {}
    flags = set(first.get("flags", first.get("Features", "")).split())
    mem = None
    try:
        for line in Path("/proc/meminfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("MemTotal:"):
                mem = int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        load: list[float] | None = list(os.getloadavg())
    except OSError:
        load = None
    return {
        "cpu_model": first.get("model name") or platform.processor() or platform.machine(),
        "cpu_flags": sorted(f for f in INTERESTING_FLAGS if f in flags),
        "cores": cores(),
        "memory_bytes": mem,
        "os": platform.platform(),
        "python": sys.version.split()[0],
        "load_average": load,
    }
