"""The run's cgroups on cgroup v2, against a fake cgroup file system.

This machine's kernel decides the real thing: ``test_confine`` and ``test_harden``
make real cgroups (v1 here; v2 where the memory controller is on the unified
hierarchy). These tests pin the rules of cgroup v2 that the code must follow
wherever it runs: a cgroup whose children take limits holds no process
("no internal processes"), and the caller never moves a process but its own.
The fake kernel below refuses what the real one refuses, with the same errno.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from pytest_quest import cgroups

ME = str(os.getpid())
REAL_MKDIR = os.mkdir


class FakeCgroupfs:
    """A folder tree that answers like cgroup v2 for the files the code touches."""

    def __init__(self, root: Path, reclaim: bool = True) -> None:
        self.root = root
        self.reclaim = reclaim
        self.populate(root, "cpu memory pids")

    def populate(self, folder: Path, controllers: str) -> None:
        (folder / "cgroup.controllers").write_text(controllers)
        (folder / "cgroup.subtree_control").write_text("")
        (folder / "cgroup.procs").write_text("")
        if "memory" in controllers.split():
            (folder / "memory.max").write_text("max")
            if self.reclaim:
                (folder / "memory.reclaim").write_text("")
        if "pids" in controllers.split():
            (folder / "pids.max").write_text("max")

    def mkdir(self, path: str, mode: int = 0o777) -> None:
        folder = Path(path)
        REAL_MKDIR(folder)  # the real call, then what the kernel puts in a new cgroup
        self.populate(folder, (folder.parent / "cgroup.subtree_control").read_text())

    def procs(self, folder: Path) -> set[str]:
        return set((folder / "cgroup.procs").read_text().split())

    def write(self, path: str, text: str) -> None:
        target = Path(path)
        folder, name = target.parent, target.name
        if name == "cgroup.subtree_control":
            wanted = [word[1:] for word in text.split() if word.startswith("+")]
            if wanted and self.procs(folder):
                raise OSError(errno.EBUSY, os.strerror(errno.EBUSY))
            enabled = set(target.read_text().split())
            enabled |= set(wanted)
            enabled -= {word[1:] for word in text.split() if word.startswith("-")}
            target.write_text(" ".join(sorted(enabled)))
        elif name == "cgroup.procs":
            if (folder / "cgroup.subtree_control").read_text().split():
                raise OSError(errno.EBUSY, os.strerror(errno.EBUSY))
            for other in self.root.rglob("cgroup.procs"):
                other.write_text(" ".join(sorted(self.procs(other.parent) - {text})))
            target.write_text(" ".join(sorted(self.procs(folder) | {text})))
        else:
            target.write_text(text)


@pytest.fixture
def fake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeCgroupfs:
    fs = FakeCgroupfs(tmp_path)
    monkeypatch.setattr(cgroups, "_write", fs.write)
    monkeypatch.setattr(cgroups.os, "mkdir", fs.mkdir)
    return fs


def test_alone_in_its_cgroup_the_caller_moves_into_a_leaf_and_the_run_gets_a_runs_cgroup(
        fake: FakeCgroupfs) -> None:
    (fake.root / "cgroup.procs").write_text(ME)
    limits = cgroups._cgroup_v2(str(fake.root), "pytest-quest-1-0", 32, 1 << 26)
    leaf = fake.root / f"pytest-quest-{ME}-self"
    assert fake.procs(leaf) == {ME} and not fake.procs(fake.root)
    assert (fake.root / "cgroup.subtree_control").read_text() == "memory pids"
    folder = fake.root / "pytest-quest-1-0"
    assert (folder / "pids.max").read_text() == "32"
    assert (folder / "memory.max").read_text() == str(1 << 26)
    # The harness and the runs each get a leaf: the run's cgroup, whose children take memory
    # limits, holds no process of its own.
    assert limits == cgroups.ProcessLimits(
        "cgroup", (str(folder / "harness"),), str(folder / "runs"),
        (str(folder / "runs"), str(folder / "harness"), str(folder)))
    assert (folder / "cgroup.subtree_control").read_text() == "memory"
    assert (folder / "runs" / "memory.reclaim").exists()
    # A second run of the same caller starts from the leaf it moved into: the parent again.
    again = cgroups._cgroup_v2(str(leaf), "pytest-quest-1-1", 32, 1 << 26)
    assert again.runs == str(fake.root / "pytest-quest-1-1" / "runs")


def test_the_caller_never_moves_another_process_and_doctor_learns_why(
        fake: FakeCgroupfs) -> None:
    (fake.root / "cgroup.procs").write_text(f"1 {ME}")  # a shell beside pytest-quest
    with pytest.raises(cgroups._NoCgroup, match=r"1 other process.*systemd-run --user --scope"):
        cgroups._cgroup_v2(str(fake.root), "pytest-quest-1-0", 32, 1 << 26)
    assert fake.procs(fake.root) == {"1", ME}
    assert not list(fake.root.glob("pytest-quest-*"))


def test_controllers_not_delegated_are_named(fake: FakeCgroupfs) -> None:
    (fake.root / "cgroup.controllers").write_text("cpu pids")
    with pytest.raises(cgroups._NoCgroup, match="does not delegate memory"):
        cgroups._cgroup_v2(str(fake.root), "pytest-quest-1-0", 32, 1 << 26)


def test_without_memory_reclaim_the_harness_joins_the_run_cgroup_itself(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fs = FakeCgroupfs(tmp_path, reclaim=False)
    monkeypatch.setattr(cgroups, "_write", fs.write)
    monkeypatch.setattr(cgroups.os, "mkdir", fs.mkdir)
    limits = cgroups._cgroup_v2(str(tmp_path), "pytest-quest-1-0", 32, 1 << 26)
    folder = str(tmp_path / "pytest-quest-1-0")
    assert (limits.cgroups, limits.runs, limits.made) == ((folder,), "", (folder,))
    assert "memory.reclaim" in limits.why and limits.evictor() is None


def test_a_failed_v2_setup_falls_back_with_its_reason(
        fake: FakeCgroupfs, monkeypatch: pytest.MonkeyPatch) -> None:
    (fake.root / "cgroup.procs").write_text(f"1 {ME}")
    monkeypatch.setattr(cgroups, "_cgroup_mounts", lambda: {"unified": str(fake.root)})
    limits = cgroups.process_limits(32, 64)
    assert limits.kind == "rlimit" and "other process" in limits.why
    assert limits.evictor() is None


def test_evict_takes_a_partial_reclaim_for_all_there_was(tmp_path: Path) -> None:
    """cgroup v2's memory.reclaim says EAGAIN when it freed less than asked: nothing was left.
    Any other refusal is a failure."""
    read, write = os.pipe()
    try:
        os.set_blocking(write, False)
        with pytest.raises(BlockingIOError):
            while True:
                os.write(write, b"x" * 65536)
        assert cgroups.evict(write)  # EAGAIN
        os.close(read)
        read = -1
        assert not cgroups.evict(write)  # EPIPE
    finally:
        os.close(write)
        if read >= 0:
            os.close(read)
    knob = tmp_path / "memory.reclaim"
    knob.write_text("")
    fd = os.open(knob, os.O_WRONLY)
    try:
        assert cgroups.evict(fd)
    finally:
        os.close(fd)
    assert knob.read_bytes() == str(1 << 40).encode()
