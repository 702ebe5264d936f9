import numpy as np
import pytest

from companion.vision.motion import MotionGate, MotionParams, SceneState


def frames(seq):
    for v in seq:
        img = np.full((180, 320, 3), 90, np.uint8)
        if v:
            img[40:140, 100 + v:200 + v] = 230  # a "hand" that moves
        yield img


def test_settles_after_n_still_frames_and_moves_again():
    gate = MotionGate(MotionParams(settle_frames=3))
    states = [gate.update(f) for f in frames([0, 0, 0, 0, 0, 20, 40, 40, 40, 40])]
    assert states[:5] == [SceneState.MOVING, SceneState.SETTLING, SceneState.SETTLING, SceneState.SETTLED,
                          SceneState.SETTLED]
    assert states[5] == SceneState.MOVING and states[6] == SceneState.MOVING
    assert states[-1] == SceneState.SETTLED


def test_just_settled_fires_once_per_settle():
    gate = MotionGate(MotionParams(settle_frames=2))
    fired = []
    for f in frames([0] * 5 + [30] + [0] * 5):
        gate.update(f)
        fired.append(gate.just_settled)
    assert sum(fired) == 2


def test_noise_below_threshold_does_not_unsettle():
    rng = np.random.default_rng(0)
    gate = MotionGate(MotionParams(settle_frames=2))
    base = np.full((180, 320, 3), 120, np.uint8)
    states = []
    for _ in range(20):
        noisy = np.clip(base + rng.normal(0, 3, base.shape), 0, 255).astype(np.uint8)
        states.append(gate.update(noisy))
    assert states[-1] == SceneState.SETTLED and SceneState.MOVING not in states[3:]


@pytest.mark.parametrize("kw, needle", [
    ({"width": 4}, "motion width"), ({"blur": 4}, "odd kernel"), ({"still_threshold": 3, "move_threshold": 2}, "still_threshold"),
    ({"settle_frames": 0}, "settle_frames"),
])
def test_params_are_validated(kw, needle):
    with pytest.raises(ValueError, match=needle):
        MotionParams(**kw)
