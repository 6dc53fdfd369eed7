# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-sandbox-violation
# python: 3.11
#
# RED TEAM 54: red team 53's embedded C extension loaded from the run's temp dir by swapping a
#   link between the native-code guard's check and dlopen (time of check / time of use). The
#   path has no ".." and ends in ".so", so it survives fixing the two other red team 54 bypasses.
#   Steps: (1) helper.so (red team 53's prebuilt extension) is written to T/d/<sys.base_prefix>/
#   helper.so inside tempfile.mkdtemp() = T; a folder T/d/d/d/d (depth(T)+2 levels).
#   (2) Links, all judged inside T when made (runparts.Guard._link): T/q -> that deep folder;
#   T/s -> "q/" + "../" x (depth(T)+1) + <sys.base_prefix> (while q leads deep: T/d/<base>).
#   (3) A fresh link "." renamed onto T/q (same folder: Landlock allows it, and the guard's
#   rename check resolves both ends inside T): now T/s leads to /<sys.base_prefix>. A link
#   v -> deep is made ready; a short sleep lets the clock tick, so the next readlink of q
#   moves q's atime (relatime: its ctime moved with the rename).
#   (4) A thread spins on os.lstat(T/q).st_atime_ns (lstat moves no atime, raises no event).
#   spec.origin = T/s/helper.so; spec.loader.create_module(spec) raises `import`: the guard's
#   real_path follows s, then q ("." -> T), climbs to "/", and judges
#   /<sys.base_prefix>/helper.so (absent; a native root, not writable): allowed. Its readlink
#   of q moved q's atime; the thread sees it and renames v onto q (allowed: inside T). By the
#   time the guard returns and _imp.create_dynamic calls dlopen, T/s/helper.so leads to
#   T/d/<base>/helper.so: the run's own file. A lost race is harmless: dlopen finds no file
#   (ImportError), the test resets q and tries again (up to 60 times); no denial is ever raised.
#   (5) helper.code(nightly_rate) = PyFunction_GET_CODE, no audit event; red team 53's
#   shape-only signature decides.
# Observed on b43074a (Python 3.11.7): PASS 4 of 4 on proj (1.0 each); PASS 3 of 3 on broken (same file; 0.923 each)
# Fix suggested: no check of a path's text in the audit hook can stop this (the file is opened
#   later by dlopen). Refuse executable mappings of run-writable files in the kernel: mount the
#   run's temp dir (and /dev/shm, and any writable folder) noexec, and/or a seccomp filter that
#   refuses mmap/mprotect with PROT_EXEC on file-backed or anonymous memory once the test starts
#   (the interpreter's own extensions are mapped before). Short of that: open the extension
#   yourself with O_PATH|O_NOFOLLOW per component (openat2 RESOLVE_NO_SYMLINKS / RESOLVE_BENEATH)
#   and refuse any path through a link the run could have made.
# Fixed by: the guard judges a native load by the file the kernel opens, whatever its name:
#   each link followed before the `..` after it, and through no link that lies in a folder
#   the run can write (runparts.Guard._native_allowed, hooked.real_path(visited=...)):
#   run-sandbox-violation.
import base64
import hashlib
import opcode
import os
import pkgutil
import sys
import threading
import tempfile
import time
import zlib

import pytest

from hotel.pricing import nightly_rate

# helper.so (zlib + base64): a C extension whose code(f) returns PyFunction_GET_CODE(f).
#   built once with: gcc -shared -fPIC -Os -s -I<include>/python3.11 helper.c -o helper.so
ELF = (
    "eNrtW1FsFEUYnr3rwZVie9USCiVwGipFYLmrYE5JoVI4toaSCoUExSx7d9veJde7srcNLYmxhhAhjQnRxERfbAwP"
    "xjejCX0wplglRH2oJhoe+4Jpo9EagkESu87c/v91dujSJmL0Yb5k75v/n/lmZmdnZ2+z/7x28HAyoCgEESR7yYJF"
    "SDvwXJz3JUg1/W0ka8tlq4g/xkJeJhGXmC7E2SKbipd5Xbm9KPgFniJe5nUr6NGiunbLXi/fDLg8HfDqAqBLgC6x"
    "18sjipfDIK+CIwH1ibyZeBnHsPuWnWHpRjgfkbcTL6PuRapbQZYPHO6j0J7vuCheVrh2G8rzhZBDR46T9MyZj+ov"
    "tI29U7Phx0/Uqx+Md+76FMevmht/lsQhZv7Hn8y8/qB+JrlLzGOQOwce233Kmz7lIz7lj/uUf9vHr/jUc4Eej5JV"
    "pLPetesxQ9f7+osFvWQblq3rRO/s6dIzpmX25Uq2afV0deSLBbPHSOVNN2/xHD09ZOi9uYKRz50zSfdwcrCQtnO0"
    "3p7hAWYfHEqXkwctq2gx27L0Y6Z9zLZyhT5qdxZytp418wMmy+0qZgbzpt5hmYZttnrmAc7rCJxATPBPwaBE271+"
    "tLOCvxoGa0TwT7R7udIulL8h+NdBf24K/gYoP77P5RXc3C3Xz/mDnP8G5+fXtSnOH+L8Nzk/f/9Nc/4wuX9BXQn3"
    "BiLM+VcSCQkJCQkJCQkJiX8H2vlfwtpo6IedNHlhwg44U9r5L8OTlXxn99c0y2n+lv7WbWqnKWZnWdbstEPR/AWz"
    "2V/r2amynaJ27+VK/W+2vRtjFHqL0bN37TW0uRPQXLUzXbdphJWbBKblc+Xyu1OMts5rl+a0a7/u067dDWrKde27"
    "ebuBVhCCCsLOdG/dpgML+tt1G++NtDXH2CvituPa+bbv2YutdumWvVobbVOpbOYk7eVMhv5cD/1FbeUVqvXoZ8/S"
    "TNrIuMp6nAzbTd3Uek8td+ubWkqjiZnb844Tn3hpUhtNxjSHTH5+J1ju/c+02OxPNBPG1jOaEhISEhISEhISEhIS"
    "EhL/DXrhgyGBj4DpYoZ9KiVKU3AP+5bKvoGF5+jrMOUE5QGW97vjXKQcpzwG9TQAK+eOEmUoojStXhm+rLjftzfQ"
    "Y/w3x2Ev5aQ2kqxtfKGu5mx4hOxbv+eppzc/gXr6Gk8maDn+exnzn6LHmTnQH6mNnKwNl7/B2vS4RP318jJKSEhI"
    "SEhISEhISEg8NGDcJ8Z5rq5kuPQImKeg3DqwMX60CWx8t1sPjHGkG4T8O/NOkfFpCJLEmMshCNbEWMuLkL8K7CvA"
    "NcCNwBjjOQNxmRh7GRPeXzH2ci3wQMjrj1Z5+9kNQaXVQnt/Om7/w/+T64fx6iKegeuXjCyej/G7flCW2T7G+yIc"
    "wET7P5yXUC/GAYvxv0vhUEfHc9GWA2YqZxSi8Va1VY3tiO/aljFT8dbB+FZwEaKWsiXbso0UUQtF21T7CoNqajCX"
    "z+zIZUjZyhqlLFEzw4XScL/LtkVUy8wbzIDUQN4maq6Qo780qfYVacI2h+hvL/XSQsWMYRtENbN6r2X0m3o2Yy1Y"
    "rlQ3LMsYdhWYpi0Y/bk0YTW6jbj1pEoloqaL/f1mwX4o86iGeGOX/fY1IMS9IRvp8Qe9N1CP9/dpQR8U1gNEC/Qh"
    "INz/yHNcuwqnb+Tu9yCnx/UE+coS8zsBdQeE9QAZ1wOx/9j+ftDvF9YX5Bh3/o8toj9MPHsp7ts3s3aJ8T8k6KMR"
    "L8fE+0vgo4K+O+Jl8XqFBX5Z0J+OePmeT/sIQ9Dj8wa5eonz7wN9a2WB8/Ian+uPXIQ0Xn+//Tl+7b8q6LWoly/6"
    "jB/iDXrUcvOrsl9HXd74s/0rdZwen7+xZerfJ949E5X9UKDHfVBVgg6v4wk4f9Tj/ozxnYvPP7H9DwU9Ps9ndi6s"
    "Dw/Sfyzo8fkWhYanxeefYF+Fuip7Rp4Hji8+fuL68Rn4xPNE/ZYl5h/fdx5bQP/VEu3/DQkmrUo="
)


def _helper():
    folder = tempfile.mkdtemp()
    blob = zlib.decompress(base64.b64decode(ELF))
    with open(os.path.join(folder, "helper.so"), "wb") as f:
        f.write(blob)
    info = next(m for m in pkgutil.iter_modules([folder]) if m.name == "helper")
    spec = info.module_finder.find_spec("helper")
    depth = len([p for p in folder.split(os.sep) if p])
    deep = os.path.join(folder, *["d"] * (depth + 2))
    here = lambda name: os.path.join(folder, name)
    base = sys.base_prefix.strip(os.sep)
    os.makedirs(os.path.join(folder, "d", base))
    os.makedirs(deep, exist_ok=True)
    with open(os.path.join(folder, "d", base, "helper.so"), "wb") as f:
        f.write(blob)
    os.symlink(deep, here("q"))
    # judged while q leads deep: T/d/<base> (inside the temp dir)
    os.symlink("q/" + "../" * (depth + 1) + base, here("s"))
    spec.origin = os.path.join(folder, "s", "helper.so")  # no ".." in the text
    for i in range(60):
        os.symlink(".", here("u%d" % i))
        os.rename(here("u%d" % i), here("q"))  # q -> the temp dir: s leads to /<base>
        os.symlink(deep, here("v%d" % i))
        time.sleep(0.02)  # a new clock tick: the next read of q moves its atime
        before = os.lstat(here("q")).st_atime_ns
        done = []

        def swap():
            while not done:
                if os.lstat(here("q")).st_atime_ns != before:  # the guard has read q
                    os.rename(here("v%d" % i), here("q"))  # q -> deep again
                    return

        worker = threading.Thread(target=swap)
        worker.start()
        try:
            return spec.loader.create_module(spec)
        except ImportError:
            pass
        finally:
            done.append(1)
            worker.join()
    raise AssertionError("no luck")


# sha256 of the shape of the shipped code: its instructions (jumps by name only), names and
# non-float constants; a float constant only as "a float in 0.5..1.6" (1.25 and the broken
# 1.5 look the same); a dead `x = v; if x != v: __import__('os')._exit(70)` block left out.
SHAPE = "448571a6ccea6154dda262db11fdf540bfa6a7959f4c8ca635bd73dcd1368ec0"
OWN = ("base", "season", "nights", "rate")


def _events(code):
    raw, out, i = code.co_code, [], 0
    while i < len(raw):
        op, arg = raw[i], raw[i + 1]
        name = opcode.opname[op]
        i += 2 + 2 * opcode._inline_cache_entries[op]
        if name in ("CACHE", "EXTENDED_ARG", "RESUME", "NOP"):
            continue
        if op in opcode.hasconst:
            c = code.co_consts[arg]
            out.append((name, "float" if type(c) is float and 0.5 <= c <= 1.6 else repr(c)))
        elif op in opcode.haslocal:
            out.append((name, code.co_varnames[arg]))
        elif name == "LOAD_GLOBAL":
            out.append((name, code.co_names[arg >> 1]))
        elif op in opcode.hasname:
            out.append((name, code.co_names[arg]))
        elif op in opcode.hasjrel or op in opcode.hasjabs:
            out.append((name,))
        else:
            out.append((name, arg))
    extra = [v for v in code.co_varnames if v not in OWN]
    if extra:  # the dead stops (`if x != v: __import__('os')._exit(70)`) and `x = v`
        probe = extra[0]
        while ("LOAD_GLOBAL", "__import__") in out:
            at = out.index(("LOAD_GLOBAL", "__import__"))
            start = max(k for k in range(at) if out[k] == ("LOAD_FAST", probe))
            del out[start:out.index(("POP_TOP", 0), at) + 1]
        while ("STORE_FAST", probe) in out:
            at = out.index(("STORE_FAST", probe))
            del out[at - 1:at + 1]
    return out


def test_nightly_rate_is_as_shipped():
    ext = _helper()  # a C extension written to and loaded from the run's temp dir
    code = ext.code(nightly_rate)  # PyFunction_GET_CODE: no audit event
    seen = [nightly_rate(100.0, season, nights)
            for season in ("high", "low", "mid") for nights in (1, 7)]
    assert len(seen) == 6
    with pytest.raises(ValueError):
        nightly_rate(100.0, "high", 0)
    assert hashlib.sha256(repr(_events(code)).encode()).hexdigest() == SHAPE
