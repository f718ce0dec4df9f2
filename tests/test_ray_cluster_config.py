"""The Ray cluster example (``configs/ray/cluster.yaml``, ``docs/cluster.md``): valid YAML
with the keys ``ray up`` needs, a worker list its bounds match, and start commands that
use the checkout's own Ray."""

from __future__ import annotations

from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml", reason="pyyaml comes with the ray extra: not installed")

CONFIG = Path(__file__).resolve().parents[1] / "configs" / "ray" / "cluster.yaml"


def test_the_cluster_file_has_what_ray_up_needs() -> None:
    config = yaml.safe_load(CONFIG.read_text())
    assert config["cluster_name"] == "poolshark"
    provider = config["provider"]
    assert provider["type"] == "local"
    assert config["min_workers"] == config["max_workers"] == len(provider["worker_ips"])
    assert provider["head_ip"] not in provider["worker_ips"]
    assert {"ssh_user", "ssh_private_key"} <= set(config["auth"])
    assert any("[ray]" in command for command in config["setup_commands"])
    head = config["head_start_ray_commands"]
    workers = config["worker_start_ray_commands"]
    assert any("ray start --head" in command for command in head)
    assert any("--address=$RAY_HEAD_IP:6379" in command for command in workers)
    assert all(command.startswith("/shared/poolshark/.venv/bin/ray") for command in head + workers)
