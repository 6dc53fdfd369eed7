"""``pytest-quest doctor``: what will judge a submission here, before anything is judged.

The verdict's evidence says which isolation judged it after the fact; doctor
says it up front (and in CI, with ``isolation = "strict"``, exits 2 when the
kernel offers nothing, so a pipeline can refuse to start on the wrong runner).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import click

from pytest_quest.cli.options import json_option, root_option
from pytest_quest.cli.terminal import Terminal

__all__ = ["command", "report"]

#: Prints the sandbox interpreter's version and pytest plugins (it may not be ours).
_INTERPRETER = """
import json, platform, sys
from importlib import metadata
plugins = []
for ep in metadata.entry_points(group="pytest11"):
    dist = getattr(ep, "dist", None)
    plugins.append({"name": ep.name, "package": dist.name if dist else None,
                    "version": dist.version if dist else None})
try:
    pytest_version = metadata.version("pytest")
except metadata.PackageNotFoundError:
    pytest_version = None
print(json.dumps({"executable": sys.executable, "version": platform.python_version(),
                  "implementation": platform.python_implementation(),
                  "pytest": pytest_version,
                  "plugins": sorted(plugins, key=lambda p: p["name"])}))
"""


def _interpreter(python: str) -> dict[str, Any]:
    """Version and pytest plugins of ``python``, the interpreter the sandbox runs."""
    try:
        done = subprocess.run([python, "-I", "-c", _INTERPRETER], capture_output=True,
                              text=True, timeout=60, check=False)
        return dict(json.loads(done.stdout))
    except (OSError, ValueError, subprocess.TimeoutExpired) as exc:
        return {"executable": python, "error": f"cannot run it: {exc}"}


def report(root: Path | None) -> dict[str, Any]:
    """Everything doctor shows, as the JSON document ``--json`` prints."""
    from pytest_quest import confine
    from pytest_quest.cli.options import settings_from

    settings = settings_from(root)
    isolation = confine.detect()
    strict = settings.isolation == "strict"
    return {
        **isolation.to_dict(),
        "kernel": isolation.kernel,
        "kernel_release": isolation.details.get("kernel"),
        "setting": settings.isolation,
        **_process_limits(isolation.kernel),
        "system_calls": _system_calls(),
        "ready": isolation.kernel or not strict,
        "interpreter": _interpreter(settings.python),
        "doctor_python": sys.executable,
    }


def _process_limits(kernel: bool) -> dict[str, str]:
    """What bounds a run's processes and memory here (a cgroup, RLIMIT_NPROC, or nothing),
    and why the page cache is not emptied between waves of runs, where it is not."""
    from pytest_quest import cgroups

    if not kernel:
        return {"process_limits": "none", "page_cache": "no kernel isolation"}
    limits = cgroups.process_limits(1, 64)
    limits.close()
    kind = limits.kind
    if kind == "rlimit" and os.getuid() == 0:
        kind = ""  # the kernel exempts uid 0 of the initial namespace from RLIMIT_NPROC
    if limits.runs:
        return {"process_limits": "cgroup+page-cache", "page_cache": ""}
    return {"process_limits": kind or "none", "page_cache": limits.why}


def _system_calls() -> dict[str, Any]:
    """The seccomp list a forked run gets here: its architecture and how many calls it allows
    (none: no filter, not Linux or an architecture the list does not know)."""
    import platform

    from pytest_quest import seccomp, syscalls

    machine = platform.machine()
    allowed = seccomp.allowed(machine) if sys.platform == "linux" else {}
    return {"machine": machine, "allowed": len(allowed),
            "made_by": "extension" if syscalls.NATIVE else "ctypes"}


_LIMITS = {
    "cgroup+page-cache": "a cgroup of its own per run (pids.max, memory limit); the runs of a "
                         "submission go in waves, and the page cache one wave faulted in is "
                         "emptied before the next (no run reads another's marks there)",
    "cgroup": "a cgroup of its own per run (pids.max, memory limit); the page cache is the "
              "machine's (a run's marks there reach later runs: docs/security.md)",
    "rlimit": "RLIMIT_NPROC above the current count; memory only per process (RLIMIT_AS)",
    "none": "per-process RLIMIT_AS only: no bound on the number of processes",
}


_EXPLAIN = {
    "landlock+namespaces": "each run has PID, mount and network namespaces of its own, sees "
                           "only an allowlist of folders, writes only its temp dir, reaches "
                           "only its own loopback",
    "landlock": "the kernel limits reads and writes (Landlock); no namespaces, so the network "
                "and leftover processes are left to the audit hook and the process-group kill",
    "namespaces": "each run has PID, mount and network namespaces of its own and sees only "
                  "read-only binds of an allowlist plus its writable sandbox; no Landlock "
                  "layer",
    "python-audit": "no kernel confinement: only the Python audit hook guards the run; it can "
                    "be walked around (ctypes, dir_fd, .pth files)",
}


@click.command("doctor")
@root_option
@json_option
@click.pass_context
def command(ctx: click.Context, root: Path | None, as_json: bool) -> None:
    """Name the isolation in force, the interpreter and its pytest plugins."""
    term = Terminal()
    data = report(root)
    if as_json:
        term.json(data)
    else:
        style = "pass" if data["kernel"] else "fail"
        term.print(f"isolation    [{style}]{data['isolation']}[/{style}]  "
                   f"(setting: {data['setting']})")
        term.data(f"             {_EXPLAIN[data['isolation']]}")
        abi = data["landlock_abi"]
        term.data(f"Landlock     {f'ABI {abi}' if abi else 'not available'}")
        term.data("namespaces   " + ("user, mount, PID, network, IPC" if data["namespaces"]
                                     else f"not available: {data['namespaces_error']}"))
        term.data(f"limits       {data['process_limits']}: {_LIMITS[data['process_limits']]}")
        if data["page_cache"]:
            term.data(f"             page cache not emptied between waves: {data['page_cache']}")
        calls = data["system_calls"]
        term.data("syscalls     " + (
            f"{calls['allowed']} allowed in each run ({calls['machine']}, seccomp); any other "
            "answers ENOSYS" if calls["allowed"] else
            f"no filter: no list of calls for {calls['machine']} on {data['system']}"))
        term.data("confined by  " + (
            "pytest_quest._kernel (no ctypes in a run's memory)" if calls["made_by"] ==
            "extension" else "ctypes: pytest_quest._kernel was not built (no C compiler at "
            "install), so a test can read a run's memory through ctypes; reinstall with one"))
        term.data(f"system       {data['system']} {data['kernel_release'] or ''}".rstrip())
        interp = data["interpreter"]
        if "error" in interp:
            term.data(f"interpreter  {interp['executable']}: {interp['error']}")
        else:
            term.data(f"interpreter  {interp['executable']} ({interp['implementation']} "
                      f"{interp['version']}), pytest {interp['pytest']}")
            plugins = ", ".join(f"{p['name']} ({p['package']} {p['version']})"
                                for p in interp["plugins"]) or "none"
            term.data(f"plugins      {plugins}")
        if not data["ready"]:
            term.print('[fail]isolation = "strict" cannot be met here: submissions are '
                       "refused[/fail]", err=True)
    if not data["ready"]:
        ctx.exit(2)
