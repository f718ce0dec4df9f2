"""The equity network: inputs, suit canonicalisation, masking, learning, checkpoints, CLI.

Tiny networks on a tiny dataset keep this fast; the checks still fail on real mistakes:
a training run must lower the validation error, a run killed between checkpoints and
resumed must end bit-for-bit where the uninterrupted run ends, and checkpoints must load
with ``weights_only=True``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from typer.testing import CliRunner

from poolshark.cards.card import N_CARDS, CardError
from poolshark.cards.isomorphism import CARD_PERMUTATIONS, COMBO_PERMUTATIONS
from poolshark.cli import app
from poolshark.equity_net.data import (
    NO_CARD,
    EquityDataset,
    generate_dataset,
    random_samples,
    save_dataset,
)
from poolshark.equity_net.model import (
    EMBEDDING_SIZE,
    IMPROVED_INPUTS,
    SEED_INPUTS,
    ImprovedEquityNet,
    SeedEquityNet,
    build_model,
    masked_mse,
    possible_combos,
    slot_one_hots,
    sorted_cards,
)
from poolshark.equity_net.train import (
    CHECKPOINT_FORMAT,
    EquityTrainConfig,
    TrainingError,
    evaluate,
    evaluate_checkpoint,
    load_equity_net,
    to_samples,
    train_equity,
)
from poolshark.training.common import precision_warning
from poolshark.training.tensorboard import read_scalars

runner = CliRunner()
torch.manual_seed(0)
SMALL_IMPROVED = ImprovedEquityNet(width=32, blocks=1, head=32).eval()
"""An untrained narrow network: symmetry must hold for any weights."""


@pytest.fixture(scope="module")
def dataset() -> EquityDataset:
    """600 exact samples (all streets); generated once for the module."""
    return generate_dataset(600, seed=11, threads=1)


@pytest.fixture(scope="module")
def data_file(dataset: EquityDataset, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The module dataset on disk."""
    return save_dataset(dataset, tmp_path_factory.mktemp("data") / "equity.npz")


def tensors(holes: np.ndarray, boards: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
    """Card arrays as long tensors."""
    return torch.from_numpy(holes.astype(np.int64)), torch.from_numpy(boards.astype(np.int64))


def tiny_config(data: Path, out: Path, **changes: object) -> EquityTrainConfig:
    """A run small enough for a unit test: a narrow improved net, one thread."""
    fields: dict[str, object] = {
        "data": data,
        "out": out,
        "arch": "improved",
        "width": 32,
        "blocks": 1,
        "head": 32,
        "epochs": 6,
        "batch_size": 32,
        "learning_rate": 1e-2,
        "threads": 1,
        "val_fraction": 0.2,
        "log_every": 5,
        "checkpoint_every": 7,
    }
    fields.update(changes)
    return EquityTrainConfig.model_validate(fields)


def test_slot_encoding_has_one_rank_and_one_suit_per_slot_and_marks_absent_cards() -> None:
    """133 inputs; each slot one rank and one suit; undealt board slots use the last bits."""
    holes, boards = tensors(*random_samples(50, seed=1))
    encoded = slot_one_hots(sorted_cards(holes, boards)).reshape(50, 7, 19)
    assert SEED_INPUTS == 133
    assert (encoded[:, :, :14].sum(dim=2) == 1).all()
    assert (encoded[:, :, 14:].sum(dim=2) == 1).all()
    absent = boards >= N_CARDS
    assert torch.equal(encoded[:, 2:, 13].bool(), torch.sort(absent.long(), dim=1).values.bool())
    assert torch.equal(encoded[:, 2:, 18].bool(), encoded[:, 2:, 13].bool())


def test_card_order_does_not_matter() -> None:
    """Shuffling hole and board cards leaves both networks' outputs unchanged."""
    holes, boards = tensors(*random_samples(20, seed=2, street_mix=(0, 0, 1)))
    torch.manual_seed(0)
    for model in (SeedEquityNet(), ImprovedEquityNet(width=32, blocks=1, head=32)):
        model.eval()
        expected = model(holes, boards)
        shuffled = model(holes.flip(1), boards[:, torch.tensor([4, 2, 0, 3, 1])])
        torch.testing.assert_close(shuffled, expected)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), renaming=st.integers(0, 23))
def test_improved_net_treats_suit_renamed_deals_alike(seed: int, renaming: int) -> None:
    """Renaming suits gives the same canonical cards and embedding; outputs follow combos."""
    holes, boards = random_samples(8, seed)
    perm = np.full(256, NO_CARD, dtype=np.uint8)
    perm[:N_CARDS] = CARD_PERMUTATIONS[renaming]
    model = SMALL_IMPROVED
    original = tensors(holes, boards)
    renamed = tensors(perm[holes], perm[boards])
    canonical, _ = model.canonical(*original)
    assert torch.equal(model.canonical(*renamed)[0], canonical)
    torch.testing.assert_close(model.embed(*renamed), model.embed(*original))
    combos = torch.as_tensor(COMBO_PERMUTATIONS[renaming].astype(np.int64))
    torch.testing.assert_close(model(*renamed)[:, combos], model(*original))


def test_embeddings_are_100_wide_and_outputs_cover_every_combo() -> None:
    """embed gives (n, 100), forward (n, 1326); improved outputs lie in (0, 1)."""
    holes, boards = tensors(*random_samples(10, seed=3))
    for model in (SeedEquityNet().eval(), ImprovedEquityNet(width=32, blocks=1, head=32).eval()):
        assert model.embed(holes, boards).shape == (10, EMBEDDING_SIZE)
        assert model(holes, boards).shape == (10, 1326)
    out = ImprovedEquityNet(width=32, blocks=1, head=32).eval()(holes, boards)
    assert ((out > 0) & (out < 1)).all()
    assert ImprovedEquityNet(width=32).stem.in_features == IMPROVED_INPUTS


def test_possible_combos_match_the_dataset_mask(dataset: EquityDataset) -> None:
    """The mask recomputed from cards equals the stored one."""
    holes, boards = tensors(dataset.holes, dataset.boards)
    assert torch.equal(possible_combos(holes, boards), torch.from_numpy(dataset.mask))


@pytest.mark.parametrize(
    ("holes", "boards", "message"),
    [
        ([[0, 52]], [[1, 2, 3, 255, 255]], "0..51"),
        ([[0, 1]], [[-1, 2, 3, 255, 255]], "board cards"),
        ([[0, 1, 2]], [[3, 4, 5, 6, 7]], r"\(n, 2\)"),
        ([[0, 1]], [[3, 4, 5]], r"\(n, 5\)"),
    ],
)
def test_bad_card_tensors_raise_card_errors(
    holes: list[list[int]], boards: list[list[int]], message: str
) -> None:
    """Out-of-range cards and wrong shapes are refused before any lookup."""
    with pytest.raises(CardError, match=message):
        SMALL_IMPROVED(torch.tensor(holes), torch.tensor(boards))


def test_masked_mse_ignores_impossible_combos() -> None:
    """Changing predictions where the mask is False leaves the loss unchanged."""
    generator = torch.Generator().manual_seed(0)
    predicted = torch.rand(4, 1326, generator=generator)
    target = torch.rand(4, 1326, generator=generator)
    mask = torch.rand(4, 1326, generator=generator) > 0.3
    loss = masked_mse(predicted, target, mask)
    expected = ((predicted - target)[mask] ** 2).mean()
    torch.testing.assert_close(loss, expected)
    scrambled = torch.where(mask, predicted, predicted + 100.0)
    torch.testing.assert_close(masked_mse(scrambled, target, mask), loss)


@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_a_short_run_lowers_the_validation_error_and_checkpoints_load_weights_only(
    data_file: Path, dataset: EquityDataset, tmp_path: Path, precision: str
) -> None:
    """Six short epochs beat the untrained network (which predicts about 0.5 everywhere) by
    a clear margin on held-out samples, in float32 and in bfloat16 mixed precision; best.pt
    loads with weights_only=True and holds float32 weights."""
    config = tiny_config(data_file, tmp_path / "run", precision=precision)
    torch.manual_seed(config.seed)
    untrained = build_model("improved", config.model_hyperparameters())
    val = to_samples(dataset, slice(480, 600), "cpu")
    before = evaluate(untrained, val).mse
    result = train_equity(config)
    losses = [entry["train_loss"] for entry in result.history]
    assert losses[-1] < 0.85 * losses[0]
    assert result.best_val is not None
    assert result.best_val.mse < 0.9 * before
    payload = torch.load(tmp_path / "run" / "best.pt", weights_only=True)
    assert payload["format"] == CHECKPOINT_FORMAT
    assert payload["data_fingerprint"] == dataset.fingerprint
    assert payload["config"]["arch"] == "improved"
    assert payload["config"]["precision"] == precision
    assert all(t.dtype == torch.float32 for t in payload["model"].values() if t.is_floating_point())
    model, _ = load_equity_net(tmp_path / "run" / "best.pt")
    assert evaluate(model, val).mse == pytest.approx(result.best_val.mse)
    report, info = evaluate_checkpoint(tmp_path / "run" / "best.pt", data_file)
    assert info["same_data_as_training"] is True
    assert report.samples == 600
    tags = {
        tag
        for path in (tmp_path / "run" / "tensorboard").iterdir()
        for tag, _, _ in read_scalars(path)
    }
    assert {"train/loss", "epoch/val_mse", "epoch/train_loss"} <= tags


class KilledError(Exception):
    """Stands in for a run killed between two checkpoints."""


@pytest.mark.parametrize(
    ("arch", "precision"), [("seed", "fp32"), ("improved", "fp32"), ("improved", "bf16")]
)
def test_a_killed_run_resumes_to_the_same_weights(
    data_file: Path, tmp_path: Path, arch: str, precision: str
) -> None:
    """Kill after step 10 (checkpoint at step 7), resume: weights equal an unbroken run's."""
    changes: dict[str, object] = {"arch": arch, "epochs": 2, "precision": precision}
    straight = train_equity(tiny_config(data_file, tmp_path / "straight", **changes))

    def kill(step: int, _total: int) -> None:
        if step == 10:
            raise KilledError

    broken = tiny_config(data_file, tmp_path / "broken", **changes)
    with pytest.raises(KilledError):
        train_equity(broken, on_step=kill)
    resumed = train_equity(broken, resume=True)
    assert resumed.history == straight.history
    final = torch.load(tmp_path / "straight" / "last.pt", weights_only=True)["model"]
    again = torch.load(tmp_path / "broken" / "last.pt", weights_only=True)["model"]
    assert final.keys() == again.keys()
    for name in final:
        assert torch.equal(final[name], again[name]), name


def test_resume_refuses_missing_foreign_or_changed_runs(data_file: Path, tmp_path: Path) -> None:
    """Resuming needs last.pt and the same config; a new run will not overwrite one."""
    config = tiny_config(data_file, tmp_path / "run", epochs=1)
    with pytest.raises(TrainingError, match="no equity-network checkpoint"):
        train_equity(config, resume=True)
    train_equity(config)
    with pytest.raises(TrainingError, match="exists"):
        train_equity(config)
    changed = tiny_config(data_file, tmp_path / "run", epochs=1, learning_rate=5e-2)
    with pytest.raises(TrainingError, match="learning_rate"):
        train_equity(changed, resume=True)


def test_a_run_saved_before_a_config_key_existed_resumes_with_its_default(
    data_file: Path, tmp_path: Path
) -> None:
    """A checkpoint whose config lacks a key (it predates ``precision``) resumes when the
    key holds its default, and is refused when the key asks for something else."""
    config = tiny_config(data_file, tmp_path / "run", epochs=2)

    def kill(step: int, _total: int) -> None:
        if step == 10:
            raise KilledError

    with pytest.raises(KilledError):
        train_equity(config, on_step=kill)
    last = tmp_path / "run" / "last.pt"
    payload = torch.load(last, weights_only=True)
    del payload["config"]["precision"]
    torch.save(payload, last)
    bf16 = tiny_config(data_file, tmp_path / "run", epochs=2, precision="bf16")
    with pytest.raises(TrainingError, match="precision"):
        train_equity(bf16, resume=True)
    assert train_equity(config, resume=True).epochs_run == 2


def test_config_validation_and_toml(tmp_path: Path) -> None:
    """Bad values, unknown keys and bad TOML are refused; overrides replace file values."""
    base = {"data": "d.npz", "out": "runs/x"}
    for bad in (
        {"device": "tpu"},
        {"epochs": 0},
        {"batch_size": 1},
        {"val_fraction": 0.7},
        {"arch": "transformer"},
        {"surprise": 1},
        {"arch": "seed", "dropout": 0.3},
        {"precision": "fp16"},
    ):
        with pytest.raises(ValidationError):
            EquityTrainConfig.model_validate({**base, **bad})
    path = tmp_path / "run.toml"
    path.write_text('data = "d.npz"\nout = "runs/x"\narch = "seed"\nepochs = 4\n')
    config = EquityTrainConfig.from_toml(path, epochs=7, device=None)
    assert (config.arch, config.epochs, config.device) == ("seed", 7, "cpu")
    path.write_text("data = \n")
    with pytest.raises(TrainingError, match="not valid TOML"):
        EquityTrainConfig.from_toml(path)
    with pytest.raises(TrainingError, match="cannot read config"):
        EquityTrainConfig.from_toml(tmp_path / "missing.toml")
    with pytest.raises(ValueError, match="unknown equity network architecture"):
        build_model("lstm")


def test_cli_data_train_eval_round_trip(tmp_path: Path) -> None:
    """equity-net data, train and eval print one JSON object each; errors exit 2."""
    data = tmp_path / "equity.npz"
    result = runner.invoke(
        app, ["equity-net", "data", "--samples", "300", "--out", str(data), "--seed", "5", "--json"]
    )
    assert result.exit_code == 0, result.output
    made = json.loads(result.stdout)
    assert made["samples"] == 300
    assert sum(made["samples_by_street"].values()) == 300
    config = tmp_path / "run.toml"
    config.write_text("width = 32\nblocks = 1\nhead = 32\nbatch_size = 32\nthreads = 1\n")
    out = tmp_path / "run"
    args = ["equity-net", "train", "--config", str(config), "--data", str(data)]
    args += ["--out", str(out), "--epochs", "1", "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    trained = json.loads(result.stdout)
    assert trained["epochs_run"] == 1
    assert trained["best_val"]["mse"] > 0
    result = runner.invoke(
        app,
        ["equity-net", "eval", "--checkpoint", str(out / "best.pt"), "--data", str(data), "--json"],
    )
    assert result.exit_code == 0, result.output
    scored = json.loads(result.stdout)
    assert set(scored["mse_by_street"]) <= {"flop", "turn", "river"}
    assert scored["same_data_as_training"] is True
    result = runner.invoke(app, ["equity-net", "train", "--data", str(data), "--device", "tpu"])
    assert result.exit_code == 2
    assert "device" in result.output
    result = runner.invoke(
        app, ["equity-net", "eval", "--checkpoint", str(tmp_path / "none.pt"), "--data", str(data)]
    )
    assert result.exit_code == 2
    assert "no equity-network checkpoint" in result.output


def test_bf16_on_a_cpu_without_bfloat16_instructions_is_warned_about() -> None:
    assert precision_warning("cpu", "fp32") is None
    assert precision_warning("cuda", "bf16") is None
    warning = precision_warning("cpu", "bf16")
    assert (warning is None) == bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())
    if warning is not None:
        assert "--precision fp32" in warning
