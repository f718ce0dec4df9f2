"""The SLURM examples: valid bash, every #SBATCH line explained, and the exact
``poolshark league train`` command, run against stand-in ``sbatch`` and ``poolshark``."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts" / "slurm"
DEVICES = {"league-gpu.slurm": "cuda", "league-cpu.slurm": "cpu"}
TRAIN_OPTIONS = {"--config", "--out", "--resume-latest", "--device", "--threads"}
"""What ``poolshark league train`` accepts from a SLURM script."""

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


def fake_commands(folder: Path, record: Path) -> dict[str, str]:
    """Executables that append their name and arguments to ``record``; the environment
    that puts them first on PATH."""
    folder.mkdir()
    for name in ("sbatch", "poolshark", "squeue", "scontrol"):
        tool = folder / name
        tool.write_text(f'#!/bin/bash\necho "{name} $*" >> "{record}"\n')
        tool.chmod(0o755)
    environment = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_")}
    environment.pop("JOB_NAME", None)
    environment.pop("CONFIG", None)
    environment["PATH"] = f"{folder}{os.pathsep}{environment['PATH']}"
    environment["VENV"] = str(folder / "no-venv")
    return environment


@pytest.mark.parametrize("name", sorted(DEVICES))
def test_script_is_valid_bash_with_every_sbatch_line_explained(name: str) -> None:
    path = SCRIPTS / name
    subprocess.run(["bash", "-n", str(path)], check=True)
    assert os.access(path, os.X_OK)
    lines = path.read_text().splitlines()
    directives = [i for i, line in enumerate(lines) if line.startswith("#SBATCH")]
    assert len(directives) >= 8
    for index in directives:
        assert lines[index - 1].startswith("# "), f"{lines[index]} has no comment above it"
    first_command = next(
        i for i, line in enumerate(lines) if line.strip() and not line.startswith("#")
    )
    assert directives[-1] < first_command, "sbatch stops reading #SBATCH at the first command"
    assert ("#SBATCH --gres=gpu:1" in lines) == (DEVICES[name] == "cuda")


@pytest.mark.parametrize("name", sorted(DEVICES))
def test_script_names_only_the_train_commands_options(name: str) -> None:
    text = (SCRIPTS / name).read_text()
    command = re.search(r"^poolshark league train(.*?)&$", text, re.MULTILINE | re.DOTALL)
    assert command is not None
    assert set(re.findall(r"--[a-z-]+", command.group(1))) == TRAIN_OPTIONS


@pytest.mark.parametrize("name", sorted(DEVICES))
def test_launcher_makes_the_log_folder_and_submits_itself(name: str, tmp_path: Path) -> None:
    record = tmp_path / "calls.txt"
    environment = fake_commands(tmp_path / "bin", record)
    environment["JOB_NAME"] = "league-a"
    subprocess.run(
        ["bash", str(SCRIPTS / name)], cwd=tmp_path, env=environment, check=True, timeout=30
    )
    assert (tmp_path / "slurm_outputs" / "league-a").is_dir()
    calls = record.read_text().splitlines()
    assert calls[0].startswith("squeue ")
    assert calls[1] == (
        "sbatch --job-name=league-a --output=slurm_outputs/league-a/%j.out --export=ALL "
        f"{SCRIPTS / name}"
    )


def test_launcher_refuses_a_second_job_of_the_same_name(tmp_path: Path) -> None:
    record = tmp_path / "calls.txt"
    environment = fake_commands(tmp_path / "bin", record)
    (tmp_path / "bin" / "squeue").write_text("#!/bin/bash\necho '123 gpu league-a'\n")
    environment["JOB_NAME"] = "league-a"
    result = subprocess.run(
        ["bash", str(SCRIPTS / "league-gpu.slurm")],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 1
    assert "already queued or running" in result.stderr
    assert not record.exists()


@pytest.mark.parametrize("name", sorted(DEVICES))
def test_job_runs_the_trainer_with_resume_and_threads(name: str, tmp_path: Path) -> None:
    record = tmp_path / "calls.txt"
    environment = fake_commands(tmp_path / "bin", record)
    environment.update(SLURM_JOB_ID="77", SLURM_CPUS_PER_TASK="14", SLURM_SUBMIT_DIR=str(tmp_path))
    subprocess.run(["bash", str(SCRIPTS / name)], env=environment, check=True, timeout=30)
    assert (tmp_path / "slurm_outputs" / "poolshark-league").is_dir()
    assert record.read_text().splitlines() == [
        "poolshark league train --config configs/league.toml --out runs/poolshark-league "
        f"--resume-latest --device {DEVICES[name]} --threads 12"
    ]


def test_job_fails_when_the_trainer_fails(tmp_path: Path) -> None:
    record = tmp_path / "calls.txt"
    environment = fake_commands(tmp_path / "bin", record)
    (tmp_path / "bin" / "poolshark").write_text("#!/bin/bash\nexit 3\n")
    environment.update(SLURM_JOB_ID="77", SLURM_CPUS_PER_TASK="2", JOB_NAME="x", CONFIG="c.toml")
    result = subprocess.run(
        ["bash", str(SCRIPTS / "league-cpu.slurm")], env=environment, cwd=tmp_path, timeout=30
    )
    assert result.returncode == 3


def test_usr1_before_the_time_limit_requeues_the_job(tmp_path: Path) -> None:
    """Slurm's warning signal (``--signal=B:USR1@300``) makes the script requeue its job,
    then it still waits for the trainer and passes on its exit status."""
    record = tmp_path / "calls.txt"
    environment = fake_commands(tmp_path / "bin", record)
    ready = tmp_path / "trainer-started"
    (tmp_path / "bin" / "poolshark").write_text(f'#!/bin/bash\ntouch "{ready}"\nsleep 2\nexit 0\n')
    environment.update(SLURM_JOB_ID="77", SLURM_CPUS_PER_TASK="4", SLURM_SUBMIT_DIR=str(tmp_path))
    job = subprocess.Popen(["bash", str(SCRIPTS / "league-gpu.slurm")], env=environment)
    try:
        for _ in range(200):
            if ready.exists():
                break
            time.sleep(0.05)
        job.send_signal(signal.SIGUSR1)
        assert job.wait(timeout=30) == 0
    finally:
        job.kill()
    assert record.read_text().splitlines() == ["scontrol requeue 77"]
