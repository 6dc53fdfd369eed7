"""The recipes of docs/ci.md and docs/agents.md, run by the tools that run them for a user.

A GitHub Actions workflow cannot run here, so it is validated against
GitHub's workflow schema (``check-jsonschema`` ships it) and the shell of its
commit step runs in a scanned clone; the pre-commit hook is installed and run
by ``pre-commit`` itself on a real ``git push``. The recipes are read out of
the documents (``tests/test_docs.py`` parses them), so a test can only pass
for what the reader sees.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.test_docs import REPO, Block, blocks, clone_as_a_user, reader_environment

CI = REPO / "docs" / "ci.md"
AGENTS = REPO / "docs" / "agents.md"


def _workflows() -> list[Block]:
    return [b for doc in (CI, AGENTS) for b in blocks(doc)
            if b.info == "yaml" and b.text.startswith("# .github/workflows/")]


def _check_jsonschema() -> str:
    found = shutil.which("check-jsonschema")
    if found is None:
        pytest.skip("check-jsonschema is not installed (pip install -e '.[test]' installs it)")
    return found


def _validate(tool: str, path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([tool, "--builtin-schema", "vendor.github-workflows", str(path)],
                          capture_output=True, text=True, timeout=120, check=False)


def test_the_docs_hold_two_whole_workflows() -> None:
    assert [b.text.splitlines()[0] for b in _workflows()] == [
        "# .github/workflows/quest.yml", "# .github/workflows/quests.yml"]


@pytest.mark.slow
@pytest.mark.parametrize("block", _workflows(), ids=lambda b: b.name)
def test_the_workflow_is_valid_for_github(block: Block, tmp_path: Path) -> None:
    tool = _check_jsonschema()
    workflow = tmp_path / "workflow.yml"
    workflow.write_text(block.text)
    done = _validate(tool, workflow)
    assert done.returncode == 0, done.stdout + done.stderr
    # The schema is strict enough to catch a real slip: a job without runs-on.
    workflow.write_text(block.text.replace("runs-on: ubuntu-latest", "runs_on: ubuntu-latest"))
    assert _validate(tool, workflow).returncode == 1


def _commit_step() -> str:
    yaml = pytest.importorskip("yaml", reason="PyYAML (pre-commit's dependency) reads the workflow")
    (workflow,) = [b for b in _workflows() if b.name.startswith("docs/ci.md")]
    steps = yaml.safe_load(workflow.text)["jobs"]["update"]["steps"]
    (step,) = [s for s in steps if s.get("name") == "commit the ledger"]
    return str(step["run"])


def _git(cwd: Path, env: dict[str, str], *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          check=True).stdout


@pytest.mark.slow
def test_the_update_job_commits_a_ledger_that_has_no_attempts_log(project: Path,
                                                                  tmp_path: Path) -> None:
    env = reader_environment(tmp_path, tmp_path)
    quest_dir = project / ".quest"
    kept = tmp_path / "kept-quest"
    shutil.move(quest_dir, kept)  # the clone holds the sources; the bare scan comes after
    clone_as_a_user(project, env)
    shutil.move(kept, quest_dir)
    (quest_dir / "runs").mkdir(exist_ok=True)
    (quest_dir / "runs" / "local.log").write_text("local state, not for review\n")
    assert not (quest_dir / "attempts.jsonl").exists()
    done = subprocess.run(["bash", "-eo", "pipefail", "-c", _commit_step()], cwd=project, env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    pushed = _git(project, env, "ls-tree", "-r", "--name-only", "origin/main", ".quest")
    assert pushed.split() == [".quest/.gitignore", ".quest/ledger.json"]
    log = _git(project, env, "log", "-1", "--format=%an: %s", "origin/main")
    assert log.strip() == "quest-bot: quest: lock newly covered functions"


def _hook_config() -> str:
    (config,) = [b for b in blocks(CI) if b.file == ".pre-commit-config.yaml"]
    return config.text


@pytest.mark.slow
def test_the_pre_push_hook_passes_a_green_push_and_blocks_a_lost_lock(project: Path,
                                                                       tmp_path: Path) -> None:
    if shutil.which("pre-commit") is None:
        pytest.skip("pre-commit is not installed (pip install -e '.[test]' installs it)")
    env = reader_environment(tmp_path, tmp_path)
    env["PRE_COMMIT_HOME"] = str(tmp_path / "pre-commit-cache")
    clone_as_a_user(project, env)
    (project / ".pre-commit-config.yaml").write_text(_hook_config())
    _git(project, env, "add", ".pre-commit-config.yaml")
    _git(project, env, "commit", "-q", "-m", "the quest hook")
    installed = subprocess.run(["pre-commit", "install", "--hook-type", "pre-push"], cwd=project,
                               env=env, capture_output=True, text=True, timeout=120, check=False)
    assert installed.returncode == 0, installed.stdout + installed.stderr

    def push() -> subprocess.CompletedProcess[str]:
        return subprocess.run(["git", "push", "origin", "main"], cwd=project, env=env,
                              capture_output=True, text=True, timeout=600, check=False)

    green = push()
    assert green.returncode == 0, green.stdout + green.stderr
    assert "quest ratchet (locked functions stay covered)" in green.stderr + green.stdout
    pushed = _git(project, env, "rev-parse", "origin/main")
    # The suite's only test of the pricing module goes: its locked functions lose coverage.
    _git(project, env, "rm", "-q", "tests/test_pricing.py")
    _git(project, env, "commit", "-q", "-m", "drop the pricing tests")
    blocked = push()
    output = blocked.stdout + blocked.stderr
    assert blocked.returncode != 0, output
    assert "hotel/pricing.py" in output and "coverage-lines" in output
    assert _git(project, env, "rev-parse", "origin/main") == pushed  # nothing reached origin


def test_the_pynguin_recipe_is_the_script_the_slow_test_runs() -> None:
    (doc,) = [b for b in blocks(AGENTS) if b.text.startswith("# tools/pynguin_quest.sh")]
    script = (REPO / "tests" / "agents" / "pynguin_agent.sh").read_text()
    body = [line for line in script.splitlines() if not line.startswith("#")]
    assert doc.text.splitlines()[1:] == body
