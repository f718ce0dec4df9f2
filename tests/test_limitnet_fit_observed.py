"""The observer refitted between the EM rounds (``FitConfig.observe``,
``limitnet.fit_observed``): off, the fit is unchanged; on, the records read the beliefs of
the observer refitted over the current model, warm-started from the last one, kept in the
checkpoint so a resumed fit reaches the same weights, and saved with the model by the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
from typer.testing import CliRunner

from limitnet_fixtures import pool_records
from poolshark.cli import app
from poolshark.limitnet.action_function import ActionFunction
from poolshark.limitnet.agent import load_player, model_from_payload, observer_from_payload
from poolshark.limitnet.fit import FitConfig, FitError, fit
from poolshark.limitnet.fit_observed import ObserveConfig, observer_seed
from poolshark.limitnet.observer import Observer
from poolshark.limitnet.public_beliefs import record_beliefs, with_record_beliefs
from poolshark.limitnet.records import LimitRecords

torch.set_num_threads(1)

runner = CliRunner()


@pytest.fixture(scope="module")
def split() -> tuple[LimitRecords, LimitRecords]:
    """Eight short matches of the shipped pool, split into training and held-out matches."""
    return pool_records(matches=8, deals=20, seed=3).split_matches(0.25, 0)


def config(every: int, rounds: int = 2, steps: int = 3, player_types: int = 0) -> FitConfig:
    """A tiny fit that refits a tiny observer after every ``every`` rounds."""
    observe = ObserveConfig(every=every, lines=200, steps=steps)
    return FitConfig(
        rounds=rounds, epochs=1, batch=256, seed=4, player_types=player_types, observe=observe
    )


def assert_same_weights(a: ActionFunction, b: ActionFunction) -> None:
    """Two models' weights are equal."""
    for x, y in zip(a.state_dict().values(), b.state_dict().values(), strict=True):
        torch.testing.assert_close(x, y, rtol=0, atol=0)


def test_without_refits_the_fit_is_unchanged(split: tuple[LimitRecords, LimitRecords]) -> None:
    """``every`` 0 leaves the records' beliefs (an ``--init`` observer's here) and the
    weights as a fit without the observe settings reaches them, and no round refits."""
    main, held = split
    start = ActionFunction(8, seed=4)
    observer = Observer(start, seed=1, init_scale=0.3)
    main, held = with_record_beliefs(main, observer), with_record_beliefs(held, observer)
    plain = FitConfig(rounds=2, epochs=1, batch=256, seed=4)
    before = fit(main, plain, holdout=held, model=ActionFunction(8, seed=4))
    after = fit(main, config(0), holdout=held, model=start, observer=observer)
    assert_same_weights(before.model, after.model)
    assert after.observed is not None
    assert after.observed.observer is observer
    assert after.observed.records is main
    assert [row.observer for row in after.history] == [None, None]
    assert [row.holdout_true_nll for row in after.history] == [
        row.holdout_true_nll for row in before.history
    ]


def saved_observer(path: Path) -> tuple[ActionFunction, Observer]:
    """The model and observer a fit's checkpoint keeps, read with ``weights_only=True``."""
    payload = torch.load(path, weights_only=True)
    model = model_from_payload(payload)
    observer = observer_from_payload(payload, model)
    assert observer is not None
    return model, observer


@pytest.mark.parametrize("player_types", [0, 2])
def test_refitted_beliefs_are_the_saved_observers_over_the_model(
    split: tuple[LimitRecords, LimitRecords], tmp_path: Path, player_types: int
) -> None:
    """After a refit round the records (and held-out records) carry exactly the beliefs
    the checkpoint's observer gives them over the checkpoint's model, and every refit
    keeps an observer at least as good on its held-out lines as its warm start."""
    main, held = split
    result = fit(
        main,
        config(1, player_types=player_types),
        holdout=held,
        checkpoint=tmp_path / "last.pt",
    )
    model, observer = saved_observer(tmp_path / "last.pt")
    assert_same_weights(model, result.model)
    assert result.observed is not None
    assert result.observed.holdout is not None
    np.testing.assert_array_equal(result.observed.records.beliefs, record_beliefs(main, observer))
    np.testing.assert_array_equal(result.observed.holdout.beliefs, record_beliefs(held, observer))
    if player_types:
        assert observer.type_prior is not None
        np.testing.assert_allclose(observer.type_prior, result.type_prior)
    for row in result.history:
        assert row.observer is not None
        assert row.observer["held_out"] >= row.observer["start_held_out"]


def test_each_refit_starts_from_the_last_observer(
    split: tuple[LimitRecords, LimitRecords],
) -> None:
    """With no steps a refit keeps its start: the first a fresh observer seeded by the
    fit's seed and round 0, the second that same observer (a warm start), not a fresh one
    seeded by round 1."""
    main, held = split
    settings = config(1, steps=0)
    result = fit(main, settings, holdout=held)
    assert result.observed is not None
    assert result.observed.observer is not None
    fresh = Observer(ActionFunction(8), seed=observer_seed(settings.seed, 0), init_scale=0.1)
    kept = result.observed.observer.state()
    for name, tensor in fresh.state().items():
        torch.testing.assert_close(kept[name], tensor)
    assert observer_seed(settings.seed, 0) != observer_seed(settings.seed, 1)


def test_a_resumed_observed_fit_reaches_the_straight_fits_weights(
    split: tuple[LimitRecords, LimitRecords], tmp_path: Path
) -> None:
    """Cut after round 3 of 4 (the observer last refitted after round 2, over older
    weights than the checkpoint's), resumed: the weights, the observer and the records'
    beliefs of a straight fit."""
    main, held = split
    settings = config(2, rounds=4)
    straight = fit(main, settings, holdout=held, checkpoint=tmp_path / "straight.pt")
    cut = FitConfig(**{**settings.model_dump(), "rounds": 3})
    fit(main, cut, holdout=held, checkpoint=tmp_path / "cut.pt")
    resumed = fit(main, settings, holdout=held, checkpoint=tmp_path / "cut.pt", resume=True)
    assert_same_weights(straight.model, resumed.model)
    assert [row.observer is None for row in resumed.history] == [True, False, True, False]
    last, again = straight.history[-1].observer, resumed.history[-1].observer
    assert last is not None
    assert again is not None
    assert (last["held_out"], last["best_step"]) == (again["held_out"], again["best_step"])
    assert straight.observed is not None
    assert resumed.observed is not None
    np.testing.assert_array_equal(
        straight.observed.records.beliefs, resumed.observed.records.beliefs
    )
    with pytest.raises(FitError, match="held-out"):
        fit(main, settings)


def check_saved_model(path: Path, main: LimitRecords) -> None:
    """A CLI fit's model file keeps an observer that reads the model it is saved with."""
    saved = load_player(path)
    assert saved.observer is not None
    assert saved.observer.emission.action_function is saved.model
    assert record_beliefs(main, saved.observer).shape == (main.decisions, 8)


def test_the_cli_refits_the_observer_and_saves_it(tmp_path: Path) -> None:
    """``limit fit --observe-every 1 --json``: a refit each round in the report, the model
    written with its observer (an agent spec), its beliefs those of the last round's."""
    records = tmp_path / "records.npz"
    recorded = runner.invoke(
        app, ["limit", "record", "--out", str(records), "--matches", "6", "--deals", "12"]
    )
    assert recorded.exit_code == 0, recorded.output
    out = tmp_path / "fit"
    args = ["--out", str(out), "--rounds", "2", "--observe-every", "1"]
    args += ["--observe-lines", "150", "--observe-steps", "2", "--json"]
    fitted = runner.invoke(app, ["limit", "fit", str(records), *args])
    assert fitted.exit_code == 0, fitted.output
    report = json.loads(fitted.stdout)
    assert report["beliefs"] is True
    assert report["config"]["observe"]["every"] == 1
    refits = [row["observer"] for row in report["rounds"]]
    assert all(refit["held_out"] >= refit["start_held_out"] for refit in refits)
    assert isinstance(report["holdout_true_nll_replayed_beliefs"], float)
    main, _ = LimitRecords.load(records).split_matches(0.2, 0)
    check_saved_model(out / "limitnet.pt", main)
