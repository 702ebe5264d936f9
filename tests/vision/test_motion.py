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


def _stacks_frame(changed: dict[int, int] | None = None, hand_at: tuple[int, int] | None = None) -> np.ndarray:
    """Two stacks at (60, 60) and (180, 60), 40 px cards: grey table, lighter backs; ``changed`` moves a
    stack's top card by that many pixels (the next card lies a little askew); ``hand_at`` covers a patch."""
    img = np.full((120, 240, 3), 90, np.uint8)
    for k, (x, y) in enumerate([(60, 60), (180, 60)], start=1):
        dx = (changed or {}).get(k, 0)
        img[y - 20:y + 20, x - 14 + dx:x + 14 + dx] = 170
    if hand_at is not None:
        x, y = hand_at
        img[y - 25:y + 25, x - 25:x + 25] = 220
    return img


def _looks(**kw):
    from companion.vision.motion import StackLooks
    return StackLooks(np.array([[60.0, 60.0], [180.0, 60.0]]), np.array([40.0, 40.0]), **kw)


def test_stack_looks_tell_a_card_taken_from_a_hand_passing_over():
    looks = _looks(still_frames=3)
    f = 0
    for img in [_stacks_frame()] * 5 + [_stacks_frame(hand_at=(60, 60)), _stacks_frame(hand_at=(180, 60))] + \
            [_stacks_frame(changed={2: 6})] * 5:
        looks.update(img, f)
        f += 1
    assert looks.change_since(1, 4) < 1.0, "a hand passed over stack 1 and left it as it was"
    assert looks.change_since(2, 4) > 8.0, "stack 2's top card was taken: the next lies askew"
    assert looks.change_since(2, f - 1) < 1.0, "nothing since the last frame"


def test_stack_looks_say_nothing_while_a_hand_hides_the_stack():
    looks = _looks(still_frames=3)
    for f in range(5):
        looks.update(_stacks_frame(), f)
    for f in range(5, 10):
        looks.update(_stacks_frame(changed={1: 6}), f)  # taken, and settled again (from frame 8)
    for f in range(10, 12):
        looks.update(_stacks_frame(changed={1: 6}, hand_at=(60 + 3 * f, 60)), f)  # a hand over it now
    assert not looks.settled(1)
    assert looks.change_since(1, 4) is None, "not settled now: the hand may be taking a card"
    assert looks.change_since(1, 4, settled_after=5) > 8.0, "it settled after frame 5: that much shows"
    assert looks.change_since(1, 4, settled_after=8) is None
    assert _looks().change_since(1, 0) is None, "never seen"


@pytest.mark.parametrize("compare_looks, stack_1_changed", [(1, True), (2, False)])
def test_stack_looks_compare_with_the_look_before_one_a_hand_rested_in(compare_looks, stack_1_changed):
    """A hand rests still beside stack 1 (covering part of its look) as the last card is put down, long
    enough for that look to be kept; then it goes, and stack 2's top card is taken. Compared with the kept
    look alone, stack 1 "changed" (9180 at 1080p: 47 grey levels, the 6H judged taken there); compared
    with the look before as well, it did not. Stack 2 changed either way."""
    looks = _looks(still_frames=3, compare_looks=compare_looks)
    frames = [_stacks_frame()] * 5 + [_stacks_frame(hand_at=(85, 60))] * 5 + \
        [_stacks_frame(hand_at=(150, 60))] + [_stacks_frame(changed={2: 6})] * 5
    for f, img in enumerate(frames):
        looks.update(img, f)
    assert (looks.change_since(1, 9) > 8.0) is stack_1_changed
    assert looks.change_since(2, 9) > 8.0, "stack 2's top card was taken"


@pytest.mark.parametrize("kw, word", [({"reach": 0.0}, "reach"), ({"size": 2}, "size"), ({"still_frames": 0}, "still_frames"),
                                      ({"compare_looks": 0}, "compare_looks"), ({"compare_looks": 9, "keep": 8}, "compare_looks")])
def test_stack_looks_settings_are_validated(kw, word):
    with pytest.raises(ValueError, match=word):
        _looks(**kw)
