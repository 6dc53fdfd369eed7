"""The system calls a run may make: a seccomp filter with a list of what is allowed (Linux).

Runs share one kernel, and the kernel keeps counters and tables for the whole
machine that no namespace or Landlock rule splits: key serial numbers, perf
event ids, AF_VSOCK ports, shmem inode numbers, io_uring and more. Each red
team that found one used it as a register: the first runs stored the shipped
function's answers there and every later run compared its own with them, so
a test that checks nothing killed every mutant. Refusing the calls one by one
(what this filter did until red team 22) left every call nobody had thought of
open. A run may now make the calls in :data:`_CALLS` only, the ones an honest
test, pytest, coverage and the programs a test starts make; any other number
is answered ENOSYS, as a kernel without the call would (glibc and Python fall
back on that answer: ``clone3`` to ``clone``, ``pidfd_open`` to waiting).

Some allowed calls are refused for some argument values
(:data:`_REFUSALS`), and extended attributes may be read but not set. The
filter holds for the process and every child, and cannot be lifted.
``docs/security.md`` lists what is left out and why.
"""

from __future__ import annotations

import errno
import functools
import platform
import struct
import sys
from collections.abc import Iterable
from typing import NamedTuple

# The C library's calls as confinement makes them (one copy of the ctypes plumbing).
from pytest_quest.confine import _PR_SET_NO_NEW_PRIVS, _prctl
from pytest_quest.syscalls import calls

__all__ = ["Condition", "Refusal", "allowed", "install", "program"]

#: The calls a run may make, by name: their numbers on x86_64 and in the generic table
#: (aarch64, riscv64), None where that table has no such call. Left out, with why:
#: - counters and tables of the whole kernel that a run could store answers in: keyrings
#:   (``add_key``, ``request_key``, ``keyctl``), ``perf_event_open``, ``bpf``, ``io_uring_*``,
#:   ``memfd_create``, ``memfd_secret``, SysV IPC and POSIX message queues, ``inotify_*`` (rename
#:   cookies), ``pidfd_open`` and ``pidfd_*`` (pidfs numbers every process of the machine),
#:   ``name_to_handle_at`` (inode generations), ``cachestat`` (the page cache), ``statmount``,
#:   ``listmount``; and every call newer than this table;
#: - calls on other processes: ``ptrace``, ``process_vm_*``, ``kcmp``, ``process_madvise``,
#:   ``process_mrelease``, ``migrate_pages``;
#: - calls that change the machine, or namespaces, or need a capability no run has:
#:   ``mount`` and the new mount API, ``unshare``, ``setns``, ``chroot``, ``pivot_root``,
#:   modules, ``kexec_*``, ``reboot``, ``swap*``, clocks and host names, ``acct``, ``quotactl*``,
#:   ``syslog``, ``fanotify_*``, ``userfaultfd``, ``open_by_handle_at``, ``lookup_dcookie``;
#: - ``clone3``: its flags are behind a pointer no filter can read (``CLONE_PIDFD`` among them);
#:   glibc falls back to ``clone``, whose flags the filter reads;
#: - the Linux AIO calls (``io_setup`` and the rest; libaio users get ENOSYS), and the calls
#:   the kernel no longer implements.
_CALLS: dict[str, tuple[int | None, int | None]] = {
    "read": (0, 63), "write": (1, 64), "open": (2, None), "close": (3, 57), "stat": (4, None),
    "fstat": (5, 80), "lstat": (6, None), "poll": (7, None), "lseek": (8, 62), "mmap": (9, 222),
    "mprotect": (10, 226), "munmap": (11, 215), "brk": (12, 214), "rt_sigaction": (13, 134),
    "rt_sigprocmask": (14, 135), "rt_sigreturn": (15, 139), "ioctl": (16, 29), "pread64": (17, 67),
    "pwrite64": (18, 68), "readv": (19, 65), "writev": (20, 66), "access": (21, None),
    "pipe": (22, None), "select": (23, None), "sched_yield": (24, 124), "mremap": (25, 216),
    "msync": (26, 227), "mincore": (27, 232), "madvise": (28, 233), "dup": (32, 23),
    "dup2": (33, None), "pause": (34, None), "nanosleep": (35, 101), "getitimer": (36, 102),
    "alarm": (37, None), "setitimer": (38, 103), "getpid": (39, 172), "sendfile": (40, 71),
    "socket": (41, 198), "connect": (42, 203), "accept": (43, 202), "sendto": (44, 206),
    "recvfrom": (45, 207), "sendmsg": (46, 211), "recvmsg": (47, 212), "shutdown": (48, 210),
    "bind": (49, 200), "listen": (50, 201), "getsockname": (51, 204), "getpeername": (52, 205),
    "socketpair": (53, 199), "setsockopt": (54, 208), "getsockopt": (55, 209), "clone": (56, 220),
    "fork": (57, None), "vfork": (58, None), "execve": (59, 221), "exit": (60, 93),
    "wait4": (61, 260), "kill": (62, 129), "uname": (63, 160), "fcntl": (72, 25),
    "flock": (73, 32), "fsync": (74, 82), "fdatasync": (75, 83), "truncate": (76, 45),
    "ftruncate": (77, 46), "getdents": (78, None), "getcwd": (79, 17), "chdir": (80, 49),
    "fchdir": (81, 50), "rename": (82, None), "mkdir": (83, None), "rmdir": (84, None),
    "creat": (85, None), "link": (86, None), "unlink": (87, None), "symlink": (88, None),
    "readlink": (89, None), "chmod": (90, None), "fchmod": (91, 52), "chown": (92, None),
    "fchown": (93, 55), "lchown": (94, None), "umask": (95, 166), "gettimeofday": (96, 169),
    "getrlimit": (97, 163), "getrusage": (98, 165), "sysinfo": (99, 179), "times": (100, 153),
    "getuid": (102, 174), "getgid": (104, 176), "setuid": (105, 146), "setgid": (106, 144),
    "geteuid": (107, 175), "getegid": (108, 177), "setpgid": (109, 154), "getppid": (110, 173),
    "getpgrp": (111, None), "setsid": (112, 157), "setreuid": (113, 145), "setregid": (114, 143),
    "getgroups": (115, 158), "setgroups": (116, 159), "setresuid": (117, 147),
    "getresuid": (118, 148), "setresgid": (119, 149), "getresgid": (120, 150),
    "getpgid": (121, 155), "setfsuid": (122, 151), "setfsgid": (123, 152), "getsid": (124, 156),
    "capget": (125, 90), "capset": (126, 91), "rt_sigpending": (127, 136),
    "rt_sigtimedwait": (128, 137), "rt_sigqueueinfo": (129, 138), "rt_sigsuspend": (130, 133),
    "sigaltstack": (131, 132), "utime": (132, None), "mknod": (133, None),
    "personality": (135, 92), "statfs": (137, 43), "fstatfs": (138, 44), "getpriority": (140, 141),
    "setpriority": (141, 140), "sched_setparam": (142, 118), "sched_getparam": (143, 121),
    "sched_setscheduler": (144, 119), "sched_getscheduler": (145, 120),
    "sched_get_priority_max": (146, 125), "sched_get_priority_min": (147, 126),
    "sched_rr_get_interval": (148, 127), "mlock": (149, 228), "munlock": (150, 229),
    "mlockall": (151, 230), "munlockall": (152, 231), "prctl": (157, 167),
    "arch_prctl": (158, None), "setrlimit": (160, 164), "sync": (162, 81), "gettid": (186, 178),
    "readahead": (187, 213), "setxattr": (188, 5), "lsetxattr": (189, 6), "fsetxattr": (190, 7),
    "getxattr": (191, 8), "lgetxattr": (192, 9), "fgetxattr": (193, 10), "listxattr": (194, 11),
    "llistxattr": (195, 12), "flistxattr": (196, 13), "removexattr": (197, 14),
    "lremovexattr": (198, 15), "fremovexattr": (199, 16), "tkill": (200, 130), "time": (201, None),
    "futex": (202, 98), "sched_setaffinity": (203, 122), "sched_getaffinity": (204, 123),
    "epoll_create": (213, None), "getdents64": (217, 61), "set_tid_address": (218, 96),
    "restart_syscall": (219, 128), "fadvise64": (221, 223), "timer_create": (222, 107),
    "timer_settime": (223, 110), "timer_gettime": (224, 108), "timer_getoverrun": (225, 109),
    "timer_delete": (226, 111), "clock_gettime": (228, 113), "clock_getres": (229, 114),
    "clock_nanosleep": (230, 115), "exit_group": (231, 94), "epoll_wait": (232, None),
    "epoll_ctl": (233, 21), "tgkill": (234, 131), "utimes": (235, None), "mbind": (237, 235),
    "set_mempolicy": (238, 237), "get_mempolicy": (239, 236), "waitid": (247, 95),
    "ioprio_set": (251, 30), "ioprio_get": (252, 31), "openat": (257, 56), "mkdirat": (258, 34),
    "mknodat": (259, 33), "fchownat": (260, 54), "futimesat": (261, None), "newfstatat": (262, 79),
    "unlinkat": (263, 35), "renameat": (264, 38), "linkat": (265, 37), "symlinkat": (266, 36),
    "readlinkat": (267, 78), "fchmodat": (268, 53), "faccessat": (269, 48), "pselect6": (270, 72),
    "ppoll": (271, 73), "set_robust_list": (273, 99), "get_robust_list": (274, 100),
    "splice": (275, 76), "tee": (276, 77), "sync_file_range": (277, 84), "vmsplice": (278, 75),
    "move_pages": (279, 239), "utimensat": (280, 88), "epoll_pwait": (281, 22),
    "signalfd": (282, None), "timerfd_create": (283, 85), "eventfd": (284, None),
    "fallocate": (285, 47), "timerfd_settime": (286, 86), "timerfd_gettime": (287, 87),
    "accept4": (288, 242), "signalfd4": (289, 74), "eventfd2": (290, 19),
    "epoll_create1": (291, 20), "dup3": (292, 24), "pipe2": (293, 59), "preadv": (295, 69),
    "pwritev": (296, 70), "rt_tgsigqueueinfo": (297, 240), "recvmmsg": (299, 243),
    "prlimit64": (302, 261), "syncfs": (306, 267), "sendmmsg": (307, 269), "getcpu": (309, 168),
    "sched_setattr": (314, 274), "sched_getattr": (315, 275), "renameat2": (316, 276),
    "seccomp": (317, 277), "getrandom": (318, 278), "execveat": (322, 281),
    "membarrier": (324, 283), "mlock2": (325, 284), "copy_file_range": (326, 285),
    "preadv2": (327, 286), "pwritev2": (328, 287), "pkey_mprotect": (329, 288),
    "pkey_alloc": (330, 289), "pkey_free": (331, 290), "statx": (332, 291), "rseq": (334, 293),
    "close_range": (436, 436), "openat2": (437, 437), "faccessat2": (439, 439),
    "epoll_pwait2": (441, 441), "landlock_create_ruleset": (444, 444),
    "landlock_add_rule": (445, 445), "landlock_restrict_self": (446, 446),
    "futex_waitv": (449, 449), "fchmodat2": (452, 452), "map_shadow_stack": (453, 453),
    "futex_wake": (454, 454), "futex_wait": (455, 455), "futex_requeue": (456, 456),
    "mseal": (462, 462), "setxattrat": (463, 463), "getxattrat": (464, 464),
    "listxattrat": (465, 465), "removexattrat": (466, 466),
}
#: Calls of one architecture alone: riscv64 asks the kernel about the CPU (glibc at start-up)
#: and flushes the instruction cache (JITs, libffi's closures) with calls of its own.
_MACHINE_CALLS: dict[str, dict[str, int]] = {
    "riscv64": {"riscv_hwprobe": 258, "riscv_flush_icache": 259},
}
_GENERIC = ("aarch64", "riscv64")
AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7, "riscv64": 0xC00000F3}


class Condition(NamedTuple):
    """One argument's test: the low 32 bits of argument ``argument`` (0-5), and-ed with ``mask``, is
    one of ``values`` (``among`` True) or none of them (``among`` False)."""

    argument: int
    values: tuple[int, ...]
    among: bool = True
    mask: int = 0xFFFFFFFF


class Refusal(NamedTuple):
    """An allowed call answered ``error`` when every one of its ``conditions`` holds."""

    error: int
    conditions: tuple[Condition, ...] = ()


_EPERM, _UNSUPPORTED = errno.EPERM, errno.EOPNOTSUPP
#: Allowed calls refused for some arguments; the first refusal whose conditions hold answers.
_REFUSALS: dict[str, tuple[Refusal, ...]] = {
    # Extended attributes may be read, never set or removed: runs shared the capture file's and
    # shared folders' (red team 11). "Not supported", as a file system without them would
    # answer, which tools such as ``cp -a`` take in their stride ("not permitted" failed them).
    **{name: (Refusal(_UNSUPPORTED),) for name in (
        "setxattr", "lsetxattr", "fsetxattr", "removexattr", "lremovexattr", "fremovexattr",
        "setxattrat", "removexattrat")},
    # Pages out of the page cache of the whole machine marked files for later runs (red team
    # 14): MADV_COLD, MADV_PAGEOUT; POSIX_FADV_DONTNEED, POSIX_FADV_NOREUSE. Other advice goes on.
    "madvise": (Refusal(_EPERM, (Condition(2, (20, 21)),)),),
    "fadvise64": (Refusal(_EPERM, (Condition(3, (4, 5)),)),),
    # A shared anonymous mapping (MAP_SHARED or MAP_SHARED_VALIDATE with MAP_ANONYMOUS) is a
    # shmem file numbered from the same per-CPU counters as memfd_create (red team 17, 02).
    # Private memory and shared mappings of files (multiprocessing's) go on.
    "mmap": (Refusal(_EPERM, (Condition(3, (0x21, 0x23), mask=0x23),)),),
    # Socket cookies (SO_COOKIE, SO_NETNS_COOKIE) come from per-CPU counters of the machine that
    # nothing else moves; SO_PEERPIDFD hands out a pidfd, numbered by pidfs for the machine.
    "getsockopt": (Refusal(_EPERM, (Condition(2, (57, 71, 77)),)),),
    # SO_PASSPIDFD (pidfds in messages, SOL_SOCKET) and a socket's own ephemeral port range
    # (IP_LOCAL_PORT_RANGE, SOL_IP), which would give every run's connections one width again
    # (red team 20).
    "setsockopt": (Refusal(_EPERM, (Condition(1, (1,)), Condition(2, (76,)))),
                   Refusal(_EPERM, (Condition(1, (0,)), Condition(2, (51,))))),
    # UNIX, IPv4 and IPv6 sockets only, as a kernel without the others would answer: AF_VSOCK
    # numbers its ports from one counter of the kernel (red team 21), and netlink answers
    # statistics of the whole kernel (the neighbour tables' lookups, which a run moved at will:
    # red team 23) besides socket cookies (NETLINK_SOCK_DIAG). glibc's getaddrinfo goes on
    # without netlink; getifaddrs and socket.if_nameindex fail.
    "socket": (Refusal(errno.EAFNOSUPPORT, (Condition(0, (1, 2, 10), among=False),)),),
    "socketpair": (Refusal(errno.EAFNOSUPPORT, (Condition(0, (1, 2, 10), among=False),)),),
    # The namespace file system's requests (type 0xB7: a namespace's parent, owner, id, a pid
    # translated into it): a namespace a run holds is no business of its test (red team 24
    # translated its pids into the harness's namespace, whose counter every run moves).
    "ioctl": (Refusal(_EPERM, (Condition(1, (0xB700,), mask=0xFF00),)),),
    # CLONE_PIDFD: a pidfd of the child, numbered by pidfs for the machine.
    "clone": (Refusal(_EPERM, (Condition(0, (0x1000,), mask=0x1000),)),),
}


@functools.cache
def allowed(machine: str) -> dict[str, int]:
    """The calls a run may make on ``machine``, by name: their numbers (empty: not known)."""
    if machine not in AUDIT_ARCH:
        return {}
    column = 1 if machine in _GENERIC else 0
    numbers = {name: pair[column] for name, pair in _CALLS.items()}
    return {name: number for name, number in numbers.items() if number is not None} | (
        _MACHINE_CALLS.get(machine, {}))


# BPF, classic: load a word of seccomp_data; jump if equal, greater or equal, greater (against
# a constant), always; and the accumulator with a constant; return a constant.
_LD_W_ABS, _JEQ, _JGE, _JGT, _JA, _AND, _RET = 0x20, 0x15, 0x35, 0x25, 0x05, 0x54, 0x06
_ALLOW, _ERRNO = 0x7FFF0000, 0x00050000
_X32_BIT = 0x40000000
_NR, _ARCH, _ARGS = 0, 4, 16  # offsets in seccomp_data


def _runs(numbers: Iterable[int]) -> list[tuple[int, int]]:
    """Sorted numbers as runs of consecutive ones: (first, last)."""
    runs: list[tuple[int, int]] = []
    for number in sorted(numbers):
        if runs and runs[-1][1] + 1 == number:
            runs[-1] = (runs[-1][0], number)
        else:
            runs.append((number, number))
    return runs


def program(machine: str) -> list[tuple[int, int, int, int]]:
    """The filter for ``machine`` as BPF instructions (code, jt, jf, k).

    Another ABI (i386 and x32 on x86_64) is refused whole. Calls with refusals jump to a block
    of their own; the other allowed calls are tested as runs of consecutive numbers (a few
    dozen tests, and the kernel caches the answer of a call that depends on its number alone);
    what is left is ENOSYS.
    """
    numbers = allowed(machine)
    ops: list[tuple[int, int | str, int | str, int | str]] = []  # jumps may name a label
    labels: dict[str, int] = {}

    def op(code: int, k: int | str = 0, jt: int | str = 0, jf: int | str = 0) -> None:
        ops.append((code, jt, jf, k))

    def label(name: str) -> None:
        labels[name] = len(ops)

    op(_LD_W_ABS, _ARCH)
    op(_JEQ, AUDIT_ARCH[machine], jt=1)
    op(_RET, _ERRNO | errno.EPERM)
    op(_LD_W_ABS, _NR)
    if machine == "x86_64":  # the x32 ABI numbers the same calls with a high bit
        op(_JGE, _X32_BIT, jf=1)
        op(_RET, _ERRNO | errno.EPERM)
    checked = {name: numbers[name] for name in _REFUSALS if name in numbers}
    for name, number in checked.items():  # far: an unconditional jump, whose offset is wide
        op(_JEQ, number, jf=1)
        op(_JA, f"call {name}")
    for first, last in _runs(set(numbers.values()) - set(checked.values())):
        op(_JGE, first, jf=2)  # below the run: the next run's test
        op(_JGT, last, jt=1)
        op(_RET, _ALLOW)
    op(_RET, _ERRNO | errno.ENOSYS)
    for name in checked:
        label(f"call {name}")
        for at, refusal in enumerate(_REFUSALS[name]):
            following = f"{name} {at + 1}"
            for nth, condition in enumerate(refusal.conditions):
                op(_LD_W_ABS, _ARGS + 8 * condition.argument)  # the argument's low word
                if condition.mask != 0xFFFFFFFF:
                    op(_AND, condition.mask)
                if condition.among:  # one of the values, or on to the next refusal
                    met = f"{name} {at} {nth} met"
                    for value in condition.values:
                        op(_JEQ, value, jt=met)
                    op(_JA, following)
                    label(met)
                else:  # none of the values
                    for value in condition.values:
                        op(_JEQ, value, jt=following)
            op(_RET, _ERRNO | refusal.error)
            label(following)
        op(_RET, _ALLOW)

    def resolve(at: int, target: int | str) -> int:
        return labels[target] - at - 1 if isinstance(target, str) else target

    resolved = [(code, resolve(at, jt), resolve(at, jf), resolve(at, k) if code == _JA else int(k))
                for at, (code, jt, jf, k) in enumerate(ops)]
    if any(not 0 <= jt < 256 or not 0 <= jf < 256 for _, jt, jf, _ in resolved):
        raise ValueError("a conditional jump of the seccomp filter is out of range")
    return resolved


def install() -> bool:
    """Put the filter on this process and its children, for good (no new privileges first).

    Returns False where it cannot apply: not Linux, or an architecture not in the table.
    """
    machine = platform.machine()
    if sys.platform != "linux" or machine not in AUDIT_ARCH:
        return False
    ops = program(machine)
    _prctl(_PR_SET_NO_NEW_PRIVS, 1)
    calls.seccomp_filter(b"".join(struct.pack("=HBBI", *op) for op in ops))  # sock_filter[]
    return True
