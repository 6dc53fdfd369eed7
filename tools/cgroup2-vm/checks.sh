#!/bin/bash
# The VM's facts the project's sandbox relies on; run it as a command:
#   run.sh [--user] -- /vmrun/checks.sh
echo "id: $(id)"
echo "kernel: $(uname -r)"
echo "lsm: $(cat /sys/kernel/security/lsm 2>&1)"
echo "cgroup mounts: $(grep cgroup /proc/self/mounts | tr '\n' ';')"
echo "own cgroup: $(cat /proc/self/cgroup)"
w=/sys/fs/cgroup/work
echo "root subtree_control: $(cat /sys/fs/cgroup/cgroup.subtree_control)"
echo "work controllers: $(cat $w/cgroup.controllers)"
echo "work owner: $(stat -c %U $w), procs file owner: $(stat -c %U $w/cgroup.procs)"
if [ -e $w/memory.reclaim ]; then echo "memory.reclaim: present"; else echo "memory.reclaim: MISSING"; fi
python3 - <<'PY'
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
abi = libc.syscall(444, None, 0, 1)  # landlock_create_ruleset(NULL, 0, VERSION)
print("landlock ABI (raw syscall):", abi if abi >= 0 else "error %s" % os.strerror(ctypes.get_errno()))
PY
echo "landlock ABI (pytest_quest): $(python -c 'from pytest_quest import confine; print(confine.landlock_abi())' 2>&1 | tail -1)"
if unshare -Ur true 2>/dev/null; then echo "unshare -Ur: ok"; else echo "unshare -Ur: FAILED ($(unshare -Ur true 2>&1))"; fi
if unshare -Urmpf --mount-proc true 2>/dev/null; then echo "unshare -Urmpf --mount-proc: ok"; else echo "unshare -Urmpf: FAILED ($(unshare -Urmpf --mount-proc true 2>&1))"; fi
echo "seccomp: $(grep Seccomp: /proc/self/status | tr -s '\t ' ' ')"
echo "python: $(python --version) at $(command -v python)"
echo "loopback: $(ip -brief addr show lo 2>&1 | tr -s ' ')"
# A delegated child cgroup: make one under work (a leaf move first, controllers after).
probe=$w/probe-$$
if mkdir $probe 2>/dev/null; then
  echo "mkdir under work: ok ($(cat $probe/cgroup.controllers 2>/dev/null || echo none) available)"
  rmdir $probe
else
  echo "mkdir under work: FAILED"
fi
