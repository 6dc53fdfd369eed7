"""The system calls a run may make (seccomp): every refusal fires and stays quiet where it
should, read off the filter program by a small interpreter of classic BPF; the table against
the kernel's own headers; and, in a real process, what honest code does still works."""

from __future__ import annotations

import errno
import os
import platform
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_quest import seccomp

MACHINES = sorted(seccomp.AUDIT_ARCH)
ALLOW = seccomp._ALLOW


def answer(machine: str, name: str | int, *args: int, arch: int | None = None) -> int:
    """What the filter for ``machine`` answers a call: ALLOW, or the errno it returns."""
    number = name if isinstance(name, int) else seccomp.allowed(machine)[name]
    data = {seccomp._NR: number, seccomp._ARCH: seccomp.AUDIT_ARCH[machine] if arch is None
            else arch}
    padded = (*args, *(0,) * (6 - len(args)))
    data.update({seccomp._ARGS + 8 * i: value & 0xFFFFFFFF for i, value in enumerate(padded)})
    ops, at, accumulator = seccomp.program(machine), 0, 0
    while True:
        code, jt, jf, k = ops[at]
        if code == seccomp._RET:
            return ALLOW if k == ALLOW else k - seccomp._ERRNO
        if code == seccomp._LD_W_ABS:
            accumulator = data[k]
        elif code == seccomp._AND:
            accumulator &= k
        elif code == seccomp._JA:
            at += k
        else:
            taken = {seccomp._JEQ: accumulator == k, seccomp._JGE: accumulator >= k,
                     seccomp._JGT: accumulator > k}[code]
            at += jt if taken else jf
        at += 1


# =============================================================== the list of allowed calls
@pytest.mark.parametrize("machine", MACHINES)
def test_every_allowed_call_without_refusals_is_allowed(machine: str) -> None:
    for name in seccomp.allowed(machine):
        if name not in seccomp._REFUSALS:
            assert answer(machine, name, 1, 2, 3, 4, 5, 6) == ALLOW, name


@pytest.mark.parametrize("machine", MACHINES)
def test_a_call_not_in_the_list_is_not_implemented(machine: str) -> None:
    """Red teams 11-22 each found one more counter of the whole kernel behind a call nobody
    refused; a call not listed now answers ENOSYS, new kernels' calls included."""
    known = set(seccomp.allowed(machine).values())
    for number in range(0, 520):
        if number not in known:
            assert answer(machine, number) == errno.ENOSYS, number


@pytest.mark.parametrize(("machine", "numbers"), [
    ("x86_64", {"keyctl": 250, "perf_event_open": 298, "bpf": 321, "memfd_create": 319,
                "io_uring_setup": 425, "pidfd_open": 434, "clone3": 435, "inotify_init1": 294,
                "shmget": 29, "unshare": 272, "cachestat": 451, "listmount": 458}),
    ("aarch64", {"keyctl": 219, "perf_event_open": 241, "bpf": 280, "memfd_create": 279,
                 "io_uring_setup": 425, "pidfd_open": 434, "clone3": 435, "inotify_init1": 26,
                 "shmget": 194, "unshare": 97, "cachestat": 451, "listmount": 458}),
])
def test_the_relays_red_teams_used_are_not_implemented(machine: str,
                                                        numbers: dict[str, int]) -> None:
    for name, number in numbers.items():
        assert answer(machine, number) == errno.ENOSYS, name


def test_another_abi_is_refused_whole() -> None:
    """i386 and x32 calls on x86_64 would name other calls by the same numbers."""
    assert answer("x86_64", "read", arch=0x40000003) == errno.EPERM  # AUDIT_ARCH_I386
    assert answer("x86_64", 0x40000000) == errno.EPERM  # x32's read
    assert answer("aarch64", "read", arch=0x40000028) == errno.EPERM  # AUDIT_ARCH_ARM


def test_riscv_has_its_own_calls_and_the_generic_table() -> None:
    assert seccomp.allowed("riscv64")["riscv_flush_icache"] == 259
    assert "riscv_flush_icache" not in seccomp.allowed("aarch64")
    assert seccomp.allowed("aarch64")["openat"] == seccomp.allowed("riscv64")["openat"] == 56
    assert seccomp.allowed("sparc64") == {}


def test_no_filter_where_the_architecture_is_not_in_the_table(monkeypatch) -> None:
    """An unknown architecture gets no filter rather than one with the wrong numbers (a number
    means another call there); doctor says so."""
    monkeypatch.setattr(platform, "machine", lambda: "sparc64")
    assert seccomp.install() is False


def _header_numbers(path: Path) -> dict[str, int]:
    text = path.read_text()
    numbers = {m[2]: int(m[3]) for m in re.finditer(r"#define __NR(3264)?_(\w+)\s+(\d+)", text)}
    numbers.setdefault("newfstatat", numbers.get("fstatat", -1))
    return numbers


@pytest.mark.parametrize(("machine", "header"), [
    ("x86_64", "/usr/include/x86_64-linux-gnu/asm/unistd_64.h"),
    ("aarch64", "/usr/include/asm-generic/unistd.h"),
])
def test_the_table_agrees_with_the_kernel_headers(machine: str, header: str) -> None:
    """Each number the table gives is the one the kernel's own header gives that name (calls
    newer than the header here excepted)."""
    if not os.path.exists(header):
        pytest.skip(f"{header} is not here (Debian's linux-libc-dev installs it)")
    known = _header_numbers(Path(header))
    compared = 0
    for name, number in seccomp.allowed(machine).items():
        if name in known:
            assert known[name] == number, name
            compared += 1
    assert compared > 200


# ================================================================ refused by arguments
@pytest.mark.parametrize("machine", MACHINES)
def test_extended_attributes_can_be_read_but_not_set(machine: str) -> None:
    """Red team 11: runs left answers in the attributes of a file they all share."""
    for name in ("setxattr", "fsetxattr", "lremovexattr", "setxattrat"):
        assert answer(machine, name) == errno.EOPNOTSUPP, name
    assert answer(machine, "getxattr") == answer(machine, "flistxattr") == ALLOW


@pytest.mark.parametrize("machine", MACHINES)
def test_advice_that_drops_shared_pages_is_refused(machine: str) -> None:
    """Red team 14: pages dropped from the machine's page cache marked files."""
    assert answer(machine, "madvise", 0, 4096, 20) == errno.EPERM  # MADV_COLD
    assert answer(machine, "madvise", 0, 4096, 21) == errno.EPERM  # MADV_PAGEOUT
    assert answer(machine, "madvise", 0, 4096, 3) == ALLOW  # MADV_WILLNEED
    assert answer(machine, "fadvise64", 3, 0, 0, 4) == errno.EPERM  # DONTNEED
    assert answer(machine, "fadvise64", 3, 0, 0, 5) == errno.EPERM  # NOREUSE
    assert answer(machine, "fadvise64", 3, 0, 0, 3) == ALLOW  # WILLNEED


@pytest.mark.parametrize("machine", MACHINES)
def test_shared_anonymous_memory_is_refused_private_memory_is_not(machine: str) -> None:
    """Red team 17: a shared anonymous mapping takes a number from shmem's counters."""
    assert answer(machine, "mmap", 0, 4096, 3, 0x21, -1, 0) == errno.EPERM
    assert answer(machine, "mmap", 0, 4096, 3, 0x23, -1, 0) == errno.EPERM  # SHARED_VALIDATE
    assert answer(machine, "mmap", 0, 4096, 3, 0x22, -1, 0) == ALLOW  # private anonymous
    assert answer(machine, "mmap", 0, 4096, 1, 0x01, 5, 0) == ALLOW  # a file, shared
    assert answer(machine, "mmap", 0, 4096, 3, 0x100021, -1, 0) == errno.EPERM  # more flags


@pytest.mark.parametrize("machine", MACHINES)
def test_socket_cookies_and_peer_pidfds_are_refused(machine: str) -> None:
    for option in (57, 71, 77):  # SO_COOKIE, SO_NETNS_COOKIE, SO_PEERPIDFD
        assert answer(machine, "getsockopt", 3, 1, option) == errno.EPERM, option
    assert answer(machine, "getsockopt", 3, 1, 3) == ALLOW  # SO_TYPE


@pytest.mark.parametrize("machine", MACHINES)
def test_socket_options_refused_at_their_level_only(machine: str) -> None:
    """Red team 20: a socket's own port range (SOL_IP 51); SO_PASSPIDFD (SOL_SOCKET 76)."""
    assert answer(machine, "setsockopt", 3, 0, 51) == errno.EPERM
    assert answer(machine, "setsockopt", 3, 1, 76) == errno.EPERM
    assert answer(machine, "setsockopt", 3, 6, 51) == ALLOW  # IPPROTO_TCP's option 51
    assert answer(machine, "setsockopt", 3, 0, 1) == ALLOW  # IP_TOS
    assert answer(machine, "setsockopt", 3, 1, 2) == ALLOW  # SO_REUSEADDR
    assert answer(machine, "setsockopt", 3, 0, 76) == ALLOW  # SOL_IP 76 is another option


@pytest.mark.parametrize("machine", MACHINES)
def test_socket_families_are_a_list_of_three(machine: str) -> None:
    """Red team 21: AF_VSOCK numbers its ports from one counter of the kernel; red team 23:
    netlink answers the neighbour tables' statistics, which are the whole kernel's."""
    for call in ("socket", "socketpair"):
        for family in (1, 2, 10):  # UNIX, INET, INET6
            assert answer(machine, call, family, 1, 0) == ALLOW, (call, family)
        for family in (16, 40, 17, 38, 0x100000001):  # NETLINK, VSOCK, PACKET, ALG; high bits
            expected = ALLOW if family == 0x100000001 else errno.EAFNOSUPPORT
            assert answer(machine, call, family, 3, 0) == expected, (call, family)


@pytest.mark.parametrize("machine", MACHINES)
def test_namespace_requests_are_refused_other_ioctls_are_not(machine: str) -> None:
    """Red team 24: NS_GET_PID_IN_PIDNS on a descriptor of the harness's PID namespace."""
    for request in (0x8004B708, 0xB701, 0xB702, 0x8008B705):  # PID_IN_PIDNS, USERNS, PARENT, ID
        assert answer(machine, "ioctl", 3, request) == errno.EPERM, hex(request)
    for request in (0x5401, 0x541B, 0x8004B608, 0xC0189436):  # TCGETS, FIONREAD, others
        assert answer(machine, "ioctl", 3, request) == ALLOW, hex(request)


@pytest.mark.parametrize("machine", MACHINES)
def test_clone_may_not_hand_out_a_pidfd(machine: str) -> None:
    assert answer(machine, "clone", 0x01200011) == ALLOW  # what glibc's fork passes
    assert answer(machine, "clone", 0x01201011) == errno.EPERM  # with CLONE_PIDFD


def test_every_jump_of_the_program_lands_inside_it() -> None:
    for machine in MACHINES:
        ops = seccomp.program(machine)
        for at, (code, jt, jf, k) in enumerate(ops):
            if code == seccomp._JA:
                assert at + 1 + k < len(ops)
            elif code in (seccomp._JEQ, seccomp._JGE, seccomp._JGT):
                assert at + 1 + max(jt, jf) < len(ops)
        assert ops[-1][0] == seccomp._RET


# ===================================================================== in a real process
HONEST = """
import asyncio, ctypes, mmap, os, socket, sqlite3, subprocess, sys, threading
from pytest_quest import seccomp
print("installed", seccomp.install())
target = sys.argv[1]
def outcome(make):
    try:
        make()
        return "done"
    except OSError as exc:
        return errno_name(exc.errno)
def errno_name(code):
    import errno
    return errno.errorcode[code]
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def raw(number, *args):
    return "done" if libc.syscall(number, *args) >= 0 else errno_name(ctypes.get_errno())
machine = seccomp.allowed(__import__("platform").machine())
print("keyctl", raw(250 if "open" in machine else 219, 0, 0))
print("memfd", outcome(lambda: os.memfd_create("x")))
print("pidfd", outcome(lambda: os.pidfd_open(os.getpid())))
print("setxattr", outcome(lambda: os.setxattr(target, "user.note", b"answers")))
print("vsock", outcome(lambda: socket.socket(40, socket.SOCK_STREAM)))
print("netlink", outcome(lambda: socket.socket(16, socket.SOCK_RAW, 0)))
import fcntl
namespace = os.open("/proc/self/ns/pid", os.O_RDONLY)
print("nsfs", outcome(lambda: fcntl.ioctl(namespace, 0x8004B708, os.getpid())))
print("shared anonymous", outcome(lambda: mmap.mmap(-1, 4096)))
fd = os.open(target, os.O_RDONLY)
print("fadvise", outcome(lambda: os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)))
# What honest tests do:
os.chmod(target, 0o640)
os.utime(target, None)
print("file", oct(os.stat(target).st_mode & 0o777), outcome(lambda: os.listxattr(target)))
print("private", outcome(lambda: mmap.mmap(-1, 4096, flags=mmap.MAP_PRIVATE).close()))
print("shared file", outcome(lambda: mmap.mmap(fd, 0, prot=mmap.PROT_READ).close()))
box = []
thread = threading.Thread(target=lambda: box.append("thread done"))
thread.start(); thread.join()
print(*box)
print("db", sqlite3.connect(":memory:").execute("select 41 + 1").fetchone()[0])
found = socket.getaddrinfo("localhost", 80, flags=socket.AI_ADDRCONFIG)  # glibc asks netlink
print("getaddrinfo", len(found) > 0)
with socket.socket() as server:
    server.bind(("127.0.0.1", 0)); server.listen()
    with socket.create_connection(server.getsockname()) as client:
        peer, _ = server.accept(); client.sendall(b"ping")
        print("tcp", peer.recv(4).decode()); peer.close()
child = subprocess.run(["sh", "-c", "echo shell done"], capture_output=True, text=True)
print(child.stdout.strip())
child = subprocess.run([sys.executable, "-c", "import os; print('python', os.cpu_count() > 0)"],
                       capture_output=True, text=True)
print(child.stdout.strip(), child.stderr[-200:])
async def spawn():
    process = await asyncio.create_subprocess_exec("true")
    return await process.wait()
print("asyncio", asyncio.run(spawn()))
"""


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux" or not seccomp.allowed(platform.machine()),
                    reason="seccomp filters are Linux's, for the architectures in the table")
def test_a_filtered_process_refuses_relays_and_runs_honest_code(tmp_path: Path) -> None:
    """The filter on a real kernel, inherited by a shell and a Python it starts: the calls red
    teams relayed through answer ENOSYS (or their refusal), threads, sockets, SQLite, child
    processes and asyncio's child watcher (which falls back when pidfd_open is missing) work."""
    target = tmp_path / "shared.txt"
    target.write_text("x")
    done = subprocess.run([sys.executable, "-c", HONEST, str(target)], capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "installed True", "keyctl ENOSYS", "memfd ENOSYS", "pidfd ENOSYS",
        f"setxattr {errno.errorcode[errno.EOPNOTSUPP]}",
        "vsock EAFNOSUPPORT", "netlink EAFNOSUPPORT", "nsfs EPERM",
        "shared anonymous EPERM", "fadvise EPERM",
        "file 0o640 done", "private done", "shared file done", "thread done", "db 42",
        "getaddrinfo True", "tcp ping", "shell done", "python True ", "asyncio 0"]
    assert os.listxattr(target) == []
