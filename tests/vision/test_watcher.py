"""The watcher's event logic on rendered games, read by the oracle recogniser (the true visible cards).

The oracle path checks the logic independently of recognition accuracy: every correctly read game
must give exactly the recording's (event, verdict) sequence and outcome, mistakes included.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from companion.cards import Card
from companion.synth.scene import CARD_H, Scene, card_corners
from companion.track import track
from companion.vision.detections import Detections
from companion.vision.layout import LayoutError
from companion.vision.oracle import OracleRecogniser, RenderedGame, truth_layout
from companion.vision.sources import Frame
from companion.vision.table_model import TableCard, ViewGeometry, quad_sizes
from companion.vision.watcher import ChangeGate, DetectorNoise, GameView, Watcher, WatcherParams


def _run(game: RenderedGame, variant: str = "standard", recognise=None, layout=None, **kw):
    res = track(game.frames(), recognise or game.oracle, layout=layout or game.layout, variant=variant, **kw)
    got = [(ln["event"], ln["verdict"]) for ln in res.events() if ln["verdict"] != "ask"]
    return res, got


def _assert_same(got, want):
    if got != want:
        i = next((k for k, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
        raise AssertionError(f"first difference at {i}: got {got[i:i + 3]}, want {want[i:i + 3]} "
                             f"({len(got)} vs {len(want)} events)")


# -- settings -------------------------------------------------------------------------------------
@pytest.mark.parametrize("kw, word", [
    ({"moving_every": 0}, "moving_every"), ({"window": 3, "agree": 4}, "agree"), ({"min_confidence": 1.5}, "min_confidence"),
    ({"still_reads": 1}, "still_reads"), ({"max_lying_scale": 0.9}, "max_lying_scale"), ({"vanish_reads": 0}, "vanish_reads"),
    ({"ask_after_s": -1.0}, "ask_after_s"), ({"top_radius": 2.0}, "top_radius"), ({"settle_frames": 0}, "settle_frames"),
    ({"motion": "fast"}, "motion"), ({"fused_confidence": 0.3}, "fused_confidence"), ({"fuse_floor": 0.0}, "fuse_floor"),
    ({"fd_reach": 0.0}, "fd_reach"), ({"confirm_every": 0}, "confirm_every"),
    ({"moving_every": 2, "confirm_every": 3}, "confirm_every"),
    ({"lifted_scale": 1.1, "max_lying_scale": 1.05}, "lifted_scale"),
])
def test_params_are_validated(kw, word):
    with pytest.raises(ValueError, match=word):
        WatcherParams(**kw)


def test_change_gate_settles_on_still_frames_and_moves_with_a_hand():
    gate = ChangeGate(WatcherParams(settle_frames=2))
    still = np.full((180, 320, 3), 90, np.uint8)
    assert [gate.update(still) for _ in range(4)] == [False, False, True, True]
    moved = still.copy()
    moved[40:90, 100:160] = 200  # a hand-sized change: a mean difference would hardly notice it
    assert gate.update(moved) is False and gate.changed > 3


# -- geometry -------------------------------------------------------------------------------------
# the last two: the scenes of fresh games 8404 (2.4 degrees of tilt) and 8413 (8.1), where the focal length
# estimated from the clock ran to 5x and 3x the image width and put a card lifted from one pile on another
@pytest.mark.parametrize("seed, tilt", [(5, 35.0), (8, 30.0), (11, 0.0), (8404, None), (8413, None)])
def test_a_card_held_above_a_pile_is_put_back_on_it(seed, tilt):
    """The first sighting of a lifted card is up to a card height off in a tilted view; the view
    geometry (from the clock's layout) puts it back above its pile, also when the camera looks nearly
    straight down (the clock then says almost nothing of the focal length)."""
    scene = Scene.random(seed, width=640, height=360, tilt=tilt)
    lay = truth_layout(scene)
    L = scene.layout
    stacks = np.array([scene.cam.project(card_corners(*L.stack_pose(p, 3)[:3], 0.0, math.pi)) for p in range(1, 14)])
    geo = ViewGeometry(lay, sizes=quad_sizes(stacks))  # the stacks' sizes, as the watcher learns them
    for p in range(1, 14):
        x, y, a, _ = L.stack_pose(p, 3)
        for z in (20.0, 45.0):
            q = scene.cam.project(card_corners(x, y, a, z, math.pi))
            g, s = geo.ground(q.mean(0), float(quad_sizes(q[None])[0]))
            assert s >= 1.0
            assert lay.locate(g) == p, (p, z)


# -- whole games, oracle recogniser -----------------------------------------------------------------
GAMES = [
    # seed, build options, variant: a whole short game with every mistake kind (115 ends after 11 moves)
    pytest.param(115, {"mistakes": 3}, "standard", id="whole-game-builtin"),
    pytest.param(5, {"mistakes": 3, "tilt": 35.0, "max_moves": 14}, "standard", id="tilt-35"),
    pytest.param(11, {"mistakes": 3, "tilt": 0.0, "max_moves": 14, "rests": 2}, "standard", id="overhead-resting-hand"),
    # its WRONG_SIDE card lies on top of the stack 0.21 card heights askew (it was taken for no lying card)
    pytest.param(1000, {"mistakes": 3}, "standard", id="askew-on-top"),
    # its card put on top is slid beneath with no sighting in the hand: a move, not a card settling
    pytest.param(7000, {"mistakes": 3}, "watch", id="slid-beneath-unseen"),
]


@pytest.mark.parametrize("seed, kw, variant", GAMES)
def test_oracle_game_gives_the_recordings_verdicts(seed, kw, variant):
    game = RenderedGame(seed, variant=variant, **kw)
    res, got = _run(game, variant)
    _assert_same(got, game.expected())
    assert res.asks == 0
    if game.truth["outcome"] is not None:
        assert res.outcome == {k: game.truth["outcome"][k] for k in ("won", "face_up", "last_card")}
    else:
        assert res.outcome == "unfinished"


# Cases found on fresh seeds, played to a quiet moment just past what went wrong (at 640x360, as found).
# The recording's events before the cut must be the watcher's first events, exactly; the watcher may
# give the next one before the cut too (its verdicts come up to 27 frames before the recording's frame,
# which is the hand gone: with opencv-python 5.1 8308's card put beneath 9 is judged at 264, a frame
# before the cut, where 5.0 judged it after).
OPENINGS = [
    # the card in the hand lay exactly over a table card and was taken for a misreading of it
    pytest.param(8302, 560, id="hand-card-over-a-table-card"),
    # a card taken by mistake, turned back face down on its own stack, was judged put down beneath it
    pytest.param(8308, 265, id="turned-back-on-its-own-stack"),
    # a camera nearly straight down: a card lifted at 2 o'clock was put above the centre (focal length)
    pytest.param(8404, 185, id="nearly-straight-down"),
    # a card taken by mistake and put back still held up in a 27-degree view looked nearest the next
    # stack: where it was last seen face down is grounded before the nearest stack is chosen
    pytest.param(8118, 810, id="put-back-seen-held-up"),
    # a card lifted where play is, first seen held up between two stacks, nearer that one's but in the
    # other's zone as the hand hid the other: turned where play is (thirty-sixth session's fresh range)
    pytest.param(9680, 760, id="held-up-between-two-stacks"),
]


@pytest.mark.parametrize("seed, cut", OPENINGS)
def test_fresh_seed_openings_give_the_recordings_verdicts(seed, cut):
    game = RenderedGame(seed, resolution=(640, 360), mistakes=3)
    res = track(game.frames(limit=cut + 40), game.oracle, layout=game.layout)
    got = [(ln["event"], ln["verdict"]) for ln in res.events() if ln["verdict"] != "ask" and ln["frame"] < cut]
    want = [(e["event"], e["verdict"]) for e in game.truth["events"] if e["frame"] < cut]
    assert len(want) >= 6 and len(got) >= len(want)
    _assert_same(got, game.expected()[:len(got)])  # (the next events may come early)


def test_watch_exchange_game():
    game = RenderedGame(115, variant="watch", mistakes=2, exchange=True)
    assert game.truth["exchange"] is not None
    res, got = _run(game, "watch")
    _assert_same(got, game.expected())
    assert res.outcome == {k: game.truth["outcome"][k] for k in ("won", "face_up", "last_card")}


def test_gnome_deck_game():
    from companion.synth.decks import list_decks

    if not any(d.name == "anglo" and d.available for d in list_decks()):
        pytest.skip("gnome-cards-data is not installed")
    game = RenderedGame(3, deck="anglo", mistakes=3, max_moves=10)
    _, got = _run(game)
    _assert_same(got, game.expected())


def test_lamp_switched_mid_game_keeps_the_verdicts_exact():
    """The light drops by 40% in one frame (a lamp switched off) in the middle of the game and stays so:
    the change gate sees one frame of change everywhere, nothing is re-registered or put down by it,
    and the verdicts stay exact."""
    probe = RenderedGame(4, mistakes=3, max_moves=10)
    at = probe.truth["events"][len(probe.truth["events"]) // 2]["frame"] + 5

    def lamp(i, img):
        return img if i < at else (img.astype(np.float32) * 0.6).astype(np.uint8)

    game = RenderedGame(4, mistakes=3, max_moves=10, transform=lamp)
    res, got = _run(game)
    _assert_same(got, game.expected())
    assert res.reregistrations == 0
    want = game.truth["outcome"]
    assert res.outcome == ({k: want[k] for k in ("won", "face_up", "last_card")} if want else "unfinished")


@pytest.mark.xfail(reason="known limitation: with misreads and missed corners a card can be first read only "
                          "after it was carried away; its source is then taken from where it was first read", strict=False)
def test_lighting_change_and_misreads():
    """The light dims by a third over the game and the reader misreads 15% and misses 5% of the
    corners: hysteresis (2 of the last 3 readings) keeps the verdicts exact."""
    def dim(i, img):
        return (img.astype(np.float32) * (1.0 - min(i / 600.0, 1.0) / 3)).astype(np.uint8)

    game = RenderedGame(4, mistakes=3, max_moves=10, transform=dim)
    noisy = OracleRecogniser(game.scene, game.director.frames, misread=0.15, drop=0.05, seed=1)
    _, got = _run(game, recognise=noisy)
    _assert_same(got, game.expected())


def _unreadable(game: RenderedGame, secret: Card) -> OracleRecogniser:
    """The game's oracle, with ``secret`` never read (rank and suit unknown, 0.4 sure) wherever it shows."""

    class Blind(OracleRecogniser):
        def detect(self, index: int) -> Detections:
            d = super().detect(index)
            for i in range(len(d)):
                if d.card(i) == secret:
                    d.rank[i], d.suit[i] = 0, -1
                    d.rank_confidence[i] = d.suit_confidence[i] = 0.4
            return d

    return Blind(game.scene, game.director.frames)


def test_a_card_that_cannot_be_read_gives_an_ask_not_a_guess():
    game = RenderedGame(3, mistakes=0, max_moves=4)
    secret = Card.parse(game.truth["moves"][1]["card"])
    res, got = _run(game, recognise=_unreadable(game, secret))
    asks = [ln for ln in res.events() if ln["verdict"] == "ask"]
    assert asks and asks[0]["event"][0] == "ask"
    assert all(ev[0] != "see" or ev[1] != str(secret) for ev, _ in got)
    # everything before the unreadable card is exact
    want = game.expected()
    k = next(i for i, (ev, _) in enumerate(want) if ev == ["see", str(secret)])
    assert got[:k - 1] == want[:k - 1]


def test_truncated_game_is_unfinished_with_the_state_so_far():
    game = RenderedGame(3, mistakes=1, max_moves=8)
    n = game.truth["events"][10]["frame"] + 1
    res = track(game.frames(limit=n), game.oracle, layout=game.layout)
    assert res.outcome == "unfinished"
    last = res.lines[-1]
    assert last["outcome"] == "unfinished" and last["state"]["face_up"] >= 3


def test_auto_layout_from_the_first_frames_and_its_failure():
    game = RenderedGame(3, mistakes=0, max_moves=2)
    res = track(game.frames(limit=40), game.oracle, layout=None)
    assert np.abs(res.layout.centres - game.layout.centres).max() < 0.25 * game.layout.card_h
    with pytest.raises(LayoutError, match="face-down"):
        track(game.frames(limit=40), lambda f: Detections.empty(), layout=None)


def test_watcher_never_reads_a_card_twice():
    """A reading of a card the game already has face up is not believed (it stays unread)."""
    game = RenderedGame(3, mistakes=0, max_moves=3)
    first = Card.parse(game.truth["moves"][0]["card"])
    w = Watcher(game.layout, game.oracle)
    view = GameView(face_up=frozenset({first}))
    out = []
    for fr in game.frames(limit=game.truth["events"][2]["frame"]):
        out += w.update(fr, view)
    assert ["see", str(first)] not in [o.event for o in out]


def test_camera_bumped_mid_game_is_re_registered():
    """The whole view shifts by (9, 6) px while the hand rests; the tracker re-registers the layout
    at the next settled frame and the verdicts stay exact."""
    import cv2

    probe = RenderedGame(3, mistakes=1, max_moves=8, rests=1)
    start, end = probe.truth["rests"][0]
    at = start + (end - start) // 2
    shift = np.float32([[1, 0, 9], [0, 1, 6]])

    def bump(i, img):
        if i < at:
            return img
        return cv2.warpAffine(img, shift, (img.shape[1], img.shape[0]), borderMode=cv2.BORDER_REPLICATE)

    game = RenderedGame(3, mistakes=1, max_moves=8, rests=1, transform=bump)

    class Shifted(OracleRecogniser):
        def detect(self, index: int) -> Detections:
            d = super().detect(index)
            if index >= at and len(d):
                d.quads += np.float32([9, 6])
                d.index_boxes += np.float32([9, 6, 9, 6])
            return d

    res, got = _run(game, recognise=Shifted(game.scene, game.director.frames))
    _assert_same(got, game.expected())
    assert np.allclose(res.layout.centres, game.layout.centres)  # the layout it started with


# -- unsure readings and the recogniser's scatter ----------------------------------------------------
def _unsure(recognise, rank_conf: float = 0.6, suit_conf: float = 0.7):
    """Every reading made unsure (below the thresholds, so unknown) but still leaning the right way, as a
    trained reader reads a small or blurred corner."""
    def run(frame):
        d = recognise(frame)
        known = d.face_up & (d.rank > 0) & (d.suit >= 0)
        rp = np.where(known[:, None], (1 - rank_conf) / 12, d.rank_probabilities()).astype(np.float32)
        sp = np.where(known[:, None], (1 - suit_conf) / 3, d.suit_probabilities()).astype(np.float32)
        rows = np.nonzero(known)[0]
        rp[rows, d.rank[rows] - 1] = rank_conf
        sp[rows, d.suit[rows]] = suit_conf
        return Detections(quads=d.quads, index_boxes=d.index_boxes, rank=np.where(known, 0, d.rank).astype(np.int8),
                          suit=np.where(known, -1, d.suit).astype(np.int8),
                          rank_confidence=np.where(known, rank_conf, d.rank_confidence).astype(np.float32),
                          suit_confidence=np.where(known, suit_conf, d.suit_confidence).astype(np.float32),
                          face_up=d.face_up, angle=d.angle, rank_probs=rp, suit_probs=sp)
    return run


def test_unsure_readings_that_agree_are_added_up():
    """No single reading is sure enough (rank 0.6, suit 0.7), but three looks at the card in the hand
    leaning the same way name it: the game is followed exactly. Without adding them up (a fused
    confidence no reading can reach) the cards are never read and the game is not followed."""
    game = RenderedGame(4, mistakes=3, max_moves=10)
    _, got = _run(game, recognise=_unsure(game.oracle))
    _assert_same(got, game.expected())
    _, got = _run(game, recognise=_unsure(game.oracle), params=WatcherParams(fused_confidence=1.0))
    assert not any(e[0] == "see" for e, _ in got)


def test_detector_noise_widens_the_tolerances_only_by_what_it_measured():
    p = WatcherParams()
    exact = DetectorNoise(min_samples=5)
    for _ in range(20):
        exact.stack_sighting(3, 0.01, 60.0)
        exact.card_sighting(0.0, 1.0)
    assert exact.widen(p) == p  # an exact recogniser leaves the settings alone
    noisy = DetectorNoise(min_samples=5)
    rng = np.random.default_rng(0)
    for _ in range(50):
        noisy.stack_sighting(3, float(rng.uniform(0.0, 0.12)), float(60.0 * rng.uniform(0.9, 1.1)))
        noisy.card_sighting(float(rng.uniform(0.0, 0.1)), float(rng.uniform(0.95, 1.25)))
    wide = noisy.widen(p)
    assert 0.15 < wide.off_stack <= 0.18  # the 95th percentile of 0..0.12, plus 0.05
    assert 1.2 < wide.max_lying_scale < 1.3  # cards lying there look up to 1.25 times the size expected
    assert 0.04 < wide.still_tolerance <= 0.1  # its 95th percentile: two looks at a lying card differ
    assert 1.2 < wide.lifted_scale <= wide.max_lying_scale  # held up: bigger than 9 in 10 lying cards look
    assert DetectorNoise(min_samples=5).widen(p) == p  # too few samples: nothing changes


# -- a table card seen from one index or the other -----------------------------------------------------
def _lying(w: Watcher, pile: int, along: float, across: float, index_end: float, card: Card | None):
    """One face-up detection lying ``along``/``across`` card heights from ``pile``'s stack, its long side
    along the fan, the index box read at the outer (+1) or inner (-1) end; ``card`` None: read unknown."""
    c = w.layout.centres[pile - 1] + w.h * (along * w.layout.outward[pile - 1]
                                             + across * np.array([-w.layout.outward[pile - 1][1], w.layout.outward[pile - 1][0]]))
    size = w.geometry.pile_size_at(pile, c)
    u = np.asarray(w.layout.outward[pile - 1], np.float64)
    v = np.array([-u[1], u[0]])
    long_, short = size / math.sqrt(0.714), size * math.sqrt(0.714)
    quad = [c + a * u * long_ / 2 + b * v * short / 2 for a, b in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
    ix = c + index_end * 0.4 * long_ * u
    box = (ix[0] - 6, ix[1] - 8, ix[0] + 6, ix[1] + 8)
    rank = int(card.rank.value) if card else 0
    suit = "CDHS".index(card.suit.value) if card else -1
    return (quad, box, rank, suit, 0.99 if card else 0.3, 0.99 if card else 0.3, True, 0.0)


def test_a_table_card_seen_by_its_other_index_keeps_both_places():
    """A card half covered shows one index or the other, and the centre the detector gives for each
    differs: read at a second place by its other index, the card keeps the first place too, so an
    unsure look there is still that card, not a new card in the hand. Read by the same index at a
    second place, it has moved: only the new place counts."""
    pts = [(640 + 250 * math.sin(math.radians(30 * k)), 360 - 250 * math.cos(math.radians(30 * k))) for k in range(1, 13)]
    from companion.vision.layout import layout_from_points
    layout = layout_from_points(pts + [(640, 360)], (1280, 720), card_h=100.0)
    three = Card.parse("3C")
    view = GameView(face_up=frozenset({three}), expected_pile=5)
    for other_end, kept in ((-1.0, True), (1.0, False)):
        w = Watcher(layout, recognise=lambda f: Detections.empty())
        w.table.put(TableCard(three, 3, "under", w.layout.centres[2] + w.h * 0.6 * w.layout.outward[2], 0, 0))
        first = w.table.cards[three].centre.copy()
        w._observe(1, 0.0, Detections.from_rows([_lying(w, 3, 0.6, 0.0, 1.0, three)]), view)
        w._observe(2, 0.1, Detections.from_rows([_lying(w, 3, 0.6, 0.15, other_end, three)]), view)
        tc = w.table.cards[three]
        assert tc.missing == 0 and tc.centre[1] != first[1]  # refreshed to where it is read now
        assert (tc.also_at is not None) == kept
        w._observe(3, 0.2, Detections.from_rows([_lying(w, 3, 0.6, 0.0, 1.0, None)]), view)
        assert (w.hand is None) == kept, "an unsure look at its first place"


def _clock_watcher(expected: int) -> Watcher:
    from companion.vision.layout import layout_from_points
    pts = [(640 + 250 * math.sin(math.radians(30 * k)), 360 - 250 * math.cos(math.radians(30 * k))) for k in range(1, 13)]
    w = Watcher(layout_from_points(pts + [(640, 360)], (1280, 720), card_h=100.0), recognise=lambda f: Detections.empty())
    w._view = GameView(expected_pile=expected)
    return w


def _sighting(w: Watcher, frame: int, pile: int, along: float, both: bool, card: Card | None = None):
    from companion.vision.watcher import _Sighting
    c = w.layout.centres[pile - 1] + w.h * along * w.layout.outward[pile - 1]
    return _Sighting(frame, frame / 30, card, 0.99 if card else 0.2, c, w.geometry.pile_size_at(pile, c), 0.0, both)


@pytest.mark.parametrize("off, at_4", [(0.1, True), (0.2, True), (0.45, False)])
def test_a_back_seen_lifted_on_a_stacks_place_is_at_that_stack(off, at_4):
    """A back seen twice a card's size (held up, or the stack half under a hand), 0.1-0.2 card heights
    from 4's stack towards 5: its size alone would put it far in, over the centre; it is at 4 (9184 at
    1080p, models: the JS lifted at 4 judged taken at 5 that way). Further out, its size has the say."""
    w = _clock_watcher(expected=4)
    c4, c5 = w.layout.centres[3], w.layout.centres[4]
    centre = c4 + (c5 - c4) / np.linalg.norm(c5 - c4) * off * w.h
    assert w._pile_at(w._ground(centre, 2.0 * w.h)) != 4
    assert (w._back_pile(centre, 2.0 * w.h) == 4) is at_4


def test_a_held_turn_is_judged_from_the_stacks_as_they_were_when_it_was_held():
    """A turn judged at 4, away from where play is (13), waits for the stacks. Compared from frame 100
    (the last card put down before it was held) the centre lost its card and 4 did not: taken from the
    centre. The card is then put down itself (frame 200): compared from there nothing changed anywhere,
    which must not decide it for 4 (9042's 4C, TD and 6C)."""
    from companion.vision.watcher import Observation, _Hand
    w = _clock_watcher(expected=13)
    h = _Hand(first_frame=120)
    h.card = Card.parse("5S")
    w.stack_looks.change_since = lambda pile, frame, settled_after=None: \
        (15.0 if pile == 13 and frame < 110 else 0.5)
    w._last_put = 200
    assert w._source_by_stacks(4, h, since=100) == (13, True)
    assert w._source_by_stacks(4, h) == (4, True)  # from after its own placement: nothing shows
    w.hand = h
    w._held = [Observation(130, 4.3, ["turn", 4]), Observation(130, 4.3, ["see", "5S"])]
    w._held_for, w._held_since = h, 100
    out = w._release([], 210)
    assert [o.event for o in out] == [["turn", 13], ["see", "5S"]]


@pytest.mark.parametrize("both, source", [(True, 9), (False, 8)])
def test_a_card_first_seen_held_by_a_stack_was_turned_there(both, source):
    """First seen by pile 9's stack (0.28 card heights out) and shown there with both indices, a card
    was turned over at 9, even out of turn and carried off before it was read; without that (perhaps
    lying there, slid in unseen) nothing says where it came from: where play is (8)."""
    from companion.vision.watcher import _Hand
    w = _clock_watcher(expected=8)
    h = _Hand(first_frame=1)
    h.sightings = [_sighting(w, 1, 9, 0.28, False), _sighting(w, 4, 9, 0.3, both),
                   _sighting(w, 20, 5, 0.6, False, Card.parse("5S"))]
    h.card = Card.parse("5S")
    assert w._source(h) == source


@pytest.mark.parametrize("both, source", [(False, 8), (True, 11)])
def test_a_card_first_seen_slid_beneath_a_pile_came_from_where_play_is(both, source):
    """First seen lying out in pile 11's fan, one index showing (the inner one covered by the stack),
    while a card is lifted face down at 11: it was put there unseen, and the card lifted is the next
    one; it came from where play is (8). Shown there with both indices it lies above the fan, turned
    over where the card was lifted."""
    from companion.vision.watcher import _Hand
    w = _clock_watcher(expected=8)
    h = _Hand(first_frame=1)
    s0 = _sighting(w, 1, 11, 0.6, both, Card.parse("JD"))
    h.sightings, h.card = [s0], Card.parse("JD")
    h.fd_points = [(11, w.layout.centres[10] + w.h * 0.3 * w.layout.outward[10])]
    assert w._source(h) == source


def test_a_look_surely_read_as_another_card_is_not_where_this_one_came_from():
    """A trail begun by a look read as another card (a misreading of the card just put beneath 8, as
    8C), then carrying a card turned by pile 9 and shown there with both indices: the card was turned
    at 9, not at 8 where the misread look was."""
    from companion.vision.watcher import _Hand
    w = _clock_watcher(expected=8)
    h = _Hand(first_frame=1)
    h.sightings = [_sighting(w, 1, 8, 0.25, False, Card.parse("8C")), _sighting(w, 12, 9, 0.28, False),
                   _sighting(w, 18, 9, 0.3, True, Card.parse("7S"))]
    h.card = Card.parse("7S")
    assert w._source(h) == 9
    h.sightings[0] = _sighting(w, 1, 8, 0.25, False, Card.parse("7S"))  # read as this card: it counts
    assert w._source(h) == 8


def _one_up(w: Watcher, point, card: Card | None = None, size: float | None = None):
    """A face-up detection centred at ``point`` (upright, lying-card size unless ``size``)."""
    s = size or float(np.median(w.geometry.sizes))
    long_, short = s / math.sqrt(0.714), s * math.sqrt(0.714)
    x, y = float(point[0]), float(point[1])
    quad = [(x - short / 2, y - long_ / 2), (x + short / 2, y - long_ / 2), (x + short / 2, y + long_ / 2),
            (x - short / 2, y + long_ / 2)]
    rank = int(card.rank.value) if card else 0
    suit = "CDHS".index(card.suit.value) if card else -1
    conf = 0.99 if card else 0.2
    return (quad, (x - 6, y - long_ / 2, x + 6, y - long_ / 2 + 16), rank, suit, conf, conf, True, 0.0)


def _read_at_the_centre(code: str):
    """A watcher (play at the centre) whose hand card ``code`` was read twice as it was turned over there.
    Returns the watcher, its view and the card."""
    w = _clock_watcher(expected=13)
    view = GameView(expected_pile=13)
    card = Card.parse(code)
    centre, out = w.layout.centres[12], w.layout.outward[12]
    for f in (1, 2):
        w._observe(f, f / 30, Detections.from_rows([_one_up(w, centre + 0.05 * w.h * out, card)]), view)
    return w, view, card


def _still_frames(w: Watcher, n: int = 3) -> None:
    """Feed ``n`` identical frames to the change gate (nothing moves anywhere)."""
    img = np.full((720, 1280, 3), 90, np.uint8)
    for _ in range(n):
        w.gate.update(img)
        w._pile_motion_update(img)


def _hand_moves_over(w: Watcher, point) -> None:
    """One frame in which something changes around ``point`` (a hand moving over it)."""
    img = np.full((720, 1280, 3), 90, np.uint8)
    x, y = int(point[0]), int(point[1])
    img[y - 30:y + 30, x - 30:x + 30] = 200
    w.gate.update(img)
    w._pile_motion_update(img)


@pytest.mark.parametrize("where, starts", [("off", False), ("fan", True)])
def test_an_unread_shape_off_every_pile_with_nothing_moving_starts_no_hand(where, starts):
    """A detector's phantom on a striped cloth (unread, where no card could lie, nothing moving by it) is
    no card in a hand; an unread card lying out in a pile's fan is (it may need an ask)."""
    w = _clock_watcher(expected=13)
    _still_frames(w)
    q = 9
    along = 0.6 if where == "fan" else -0.9
    c = w.layout.centres[q - 1] + w.h * along * w.layout.outward[q - 1]
    w._observe(10, 0.3, Detections.from_rows([_one_up(w, c)]), GameView())
    assert (w.hand is not None) == starts
    # the same shape read as a card is a card, wherever it is
    w = _clock_watcher(expected=13)
    _still_frames(w)
    w._observe(10, 0.3, Detections.from_rows([_one_up(w, c, Card.parse("JD"))]), GameView())
    assert w.hand is not None


def _with_phantom(recognise, point, size: float):
    """Every look also finds an unread face-up shape at ``point``, as a detector may on a striped cloth."""
    def run(frame):
        d = recognise(frame)
        x, y = float(point[0]), float(point[1])
        long_, short = size / math.sqrt(0.714), size * math.sqrt(0.714)
        quad = [(x - short / 2, y - long_ / 2), (x + short / 2, y - long_ / 2), (x + short / 2, y + long_ / 2),
                (x - short / 2, y + long_ / 2)]
        ghost = Detections.from_rows([(quad, (x - 6, y - long_ / 2, x + 6, y - long_ / 2 + 16), 0, -1,
                                       0.2, 0.2, True, 0.0)])
        return Detections.concat([d, ghost])
    return run


def test_an_unread_shape_there_from_the_first_frame_is_dropped_as_a_phantom(monkeypatch):
    """An unread face-up shape lies between two piles from the first frame on (9039 at 1080p: on the
    striped cloth by pile 9). Nothing had moved yet, so it was taken for a card in a hand, and, never
    read and never moving, it held that place while the first cards were played and read elsewhere.
    Once a card is read away from it, it is dropped as the detector's phantom and the game is followed
    exactly; without that rule not one card is reported."""
    import companion.vision.watcher as wm
    game = RenderedGame(4, mistakes=0, max_moves=8)
    lay = game.layout
    a, b = lay.centres[8], lay.centres[9]  # piles 9 and 10: half way between, a little further out
    at = (a + b) / 2 + 0.4 * lay.card_h * (lay.outward[8] + lay.outward[9]) / 2
    ghostly = _with_phantom(game.oracle, at, 0.85 * lay.card_h)
    want = game.expected()
    _, got = _run(game, recognise=ghostly)
    _assert_same(got, want)
    monkeypatch.setattr(wm, "PHANTOM_LOOKS", 10 ** 6)
    _, got = _run(game, recognise=ghostly)
    assert got != want


def test_detector_noise_starts_from_the_recognisers_own_figure():
    """Before any placed card has been measured, the recogniser's figure (``Detections.meta``) sets the
    tolerances; once enough are measured, what was measured counts; without a figure (the exact
    renderer's truth) nothing changes."""
    p = WatcherParams()
    noise = DetectorNoise(min_samples=5)
    assert noise.widen(p) == p
    noise.told({"position": 0.1, "size": 0.13})
    told = noise.widen(p)
    assert told.still_tolerance == pytest.approx(0.1)
    assert told.max_lying_scale == pytest.approx(math.exp(0.13) * 1.02)
    assert 1.0 < told.lifted_scale < told.max_lying_scale
    for _ in range(10):
        noise.card_sighting(0.06, 1.05)
    measured = noise.widen(p)
    assert measured.still_tolerance == pytest.approx(0.06)
    assert measured.max_lying_scale < told.max_lying_scale
    noise.told(None)
    assert DetectorNoise(min_samples=5).widen(p) == p


def test_the_watcher_takes_the_figure_from_the_detections():
    w = _clock_watcher(expected=13)
    d = Detections.empty()
    d.meta["scatter"] = {"position": 0.11, "size": 0.1}
    w.recognitions = 1  # the first look (update() counts them)
    w._observe(1, 0.0, d, GameView())
    assert w.eff.still_tolerance == pytest.approx(0.11)


def _read_once_at_1_then_lost():
    """A 6C held up at pile 1 read once (not yet believed), then out of sight for four looks:
    (watcher, view, where it was, its size, the hand card lost)."""
    w = _clock_watcher(expected=1)
    view = GameView(expected_pile=1)
    at1 = w.layout.centres[0] + w.h * 0.35 * w.layout.outward[0]
    big = 1.1 * float(np.median(w.geometry.sizes))
    w._observe(3, 0.1, Detections.from_rows([_one_up(w, at1, Card.parse("6C"), size=big)]), view)
    lost = w.hand
    assert lost is not None and lost.card is None  # one reading: not believed yet
    for f in (5, 7, 9, 11):
        w._observe(f, f / 30, Detections.empty(), view)
    assert w.hand is None
    return w, view, at1, big, lost


@pytest.mark.parametrize("read_as, same", [("6C", True), ("7D", False)])
def test_a_card_lost_from_sight_and_read_again_far_off_is_the_same_card(read_as, same):
    """Read once at pile 1 (not yet believed), lost from sight, then read again as the same card at pile
    6, out of any hand's reach for the time between: the same card, carried fast (its trail, and so
    where it came from, is kept); read as another card there, it is another card."""
    w, view, at1, big, first = _read_once_at_1_then_lost()
    at6 = w.layout.centres[5] + w.h * 0.3 * w.layout.outward[5]
    # 9 frames later, 4.8 card heights off: further than a hand carries a card in that time
    assert float(np.linalg.norm(at6 - at1)) > w._hand_reach(3, 12, 2.5)
    w._observe(12, 0.4, Detections.from_rows([_one_up(w, at6, Card.parse(read_as))]), view)
    assert (w.hand is first) == same


@pytest.mark.parametrize("lying_still, followed", [(True, False), (False, True)])
def test_an_unread_shape_a_card_height_off_a_card_lying_still_is_not_that_card(lying_still, followed):
    """A 7D read by pile 10, then missed, while an unread shape shows 0.9 card heights off, by pile 11.
    Lying still at its last two looks, the card has not leapt there in a frame (9059 at 1080p: a TC lying
    by 10 was taken for an unread JH lying at 11 and judged put down there, a false flag); carried
    towards 10 at a hand's pace, it may have."""
    w = _clock_watcher(expected=5)
    view = GameView(expected_pile=5)
    card = Card.parse("7D")
    at10 = w.layout.centres[9] + w.h * 0.3 * w.layout.outward[9]
    step = w.layout.centres[10] - w.layout.centres[9]
    towards_11 = step / np.linalg.norm(step)
    shape = at10 + 0.9 * w.h * towards_11
    looks = [at10, at10] if lying_still else [at10 - 0.3 * w.h * towards_11, at10]
    for f, at in zip((1, 2), looks):
        w._observe(f, f / 30, Detections.from_rows([_one_up(w, at, card)]), view)
    h = w.hand
    assert h is not None and h.card == card and (h.still >= 2) == lying_still
    w._observe(3, 3 / 30, Detections.from_rows([_one_up(w, shape, None)]), view)
    assert (float(np.linalg.norm(h.last.centre - shape)) < 1.0) == followed


@pytest.mark.parametrize("read_as, off, gap, same", [("TD", 0.15, 1, True), ("TD", 0.15, 3, True), ("9C", 0.15, 1, True),
                                                     ("TD", 0.5, 1, False), ("TD", 0.15, 6, False),
                                                     ("TD kin", 0.15, 1, False)])
def test_a_card_read_as_another_where_the_hand_card_lay_a_look_before_is_the_hand_card(read_as, off, gap, same):
    """A 9D read twice lying beneath 9, then, at the next look, not seen, while a card read surely as
    ``read_as`` shows ``off`` card heights further out along 9's fan: the 9D misread as it slides beneath the
    stack (9244 at 1080p, models: a TD judged put down and taken for the next card, a phantom; 9240's 7S
    read as 7C). Further off, or looks later, it may be another card; and with a ten lying unseen in 9's fan
    ("kin": put there by mistake), the reading may be that card, a little off its place."""
    from companion.vision.table_model import TableCard
    w = _clock_watcher(expected=13)
    view = GameView(expected_pile=13)
    nine = Card.parse("9D")
    out9 = w.layout.outward[8]
    at9 = w.layout.centres[8] + 0.3 * w.h * out9
    if read_as.endswith(" kin"):
        read_as = read_as.split()[0]
        w.table.put(TableCard(Card.parse("TC"), 9, "under", w.layout.centres[8] + 0.9 * w.h * out9, 0, 0))
    for f in (1, 2):
        w._observe(f, f / 30, Detections.from_rows([_one_up(w, at9, nine)]), view)
    h = w.hand
    assert h is not None and h.card == nine and h.announced and h.last_pos is not None and h.last_pos[0] == 9
    f = 2 + gap
    out = w._observe(f, f / 30, Detections.from_rows([_one_up(w, at9 + off * w.h * out9, Card.parse(read_as))]), view)
    assert (w.hand is h) == same
    assert h.card == nine and any(o.event[0] == "place" for o in out) != same
    if same:
        assert h.last.frame == f and h.last.card is None  # followed there as an unread look of the 9D


def test_a_card_just_turned_over_on_its_own_stack_must_lie_still_longer():
    """Turned over at the centre and shown there, still for three frames: not yet put down on top of its
    own stack (a slow hand within the detector's scatter); still for six, it lies there."""
    w = _clock_watcher(expected=13)
    view = GameView(expected_pile=13)
    nine = Card.parse("9D")
    at = w.layout.centres[12].copy()
    for f in (1, 4):
        w._observe(f, f / 30, Detections.from_rows([_one_up(w, at, nine)]), view)
    assert w.hand is not None and w.hand.announced and w.hand.source == 13
    assert w.hand.lying_at is None
    w._observe(7, 7 / 30, Detections.from_rows([_one_up(w, at, nine)]), view)
    assert w.hand.lying_at == (13, "top")


@pytest.mark.parametrize("looks, placed", [(3, False), (8, False), (18, True)])
def test_a_card_shown_on_its_own_stack_then_carried_off_was_never_put_there(looks, placed):
    """Turned over at the centre and shown there, still for a few looks, then carried off towards pile 9:
    it was never put on top of the centre (9037's 7S at 1080p was, and flagged). Shown there for eight
    looks (six lying), more than ``side_wait``, it is still in the hand (9175's 6C at 1080p, models: shown
    on 1's stack for 17 frames, judged put there as it was turned back, a false WRONG_TARGET_PILE); lying
    there ``SHOWN_ON_STACK_LOOKS`` regular looks, it was put there (a mistake, on top)."""
    w = _clock_watcher(expected=13)
    view = GameView(expected_pile=13)
    nine = Card.parse("9D")
    at = w.layout.centres[12].copy()
    out = []
    f = 1
    for _ in range(looks):
        out += w._observe(f, f / 30, Detections.from_rows([_one_up(w, at, nine)]), view)
        f += 3
    assert any(o.event[0] == "place" for o in out) is placed
    if placed:
        return
    assert w.hand.lying_at == (13, "top")
    towards = at + 0.5 * (w.layout.centres[8] - at)
    out += w._observe(f, f / 30, Detections.from_rows([_one_up(w, towards, nine)]), view)
    assert not any(o.event[0] == "place" for o in out)
    assert w.hand is not None and w.hand.card == nine and w.hand.lying_at is None


@pytest.mark.parametrize("code, at_once", [("KD", True), ("9D", False)])
def test_a_card_of_its_own_piles_rank_shown_on_it_is_put_there_at_once(code, at_once):
    """A king turned over at the centre and lying there, on top (a mistake: kings go beneath), still, the
    stack hidden, the hand leaving it after its second look: put there as before, without waiting
    ``side_wait`` looks (the flag comes at once: 8921 at 640x360 waited 300 ms longer for a 9 put on top of
    9 when it did). A 9D there waits."""
    w = _clock_watcher(expected=13)
    view = GameView(expected_pile=13)
    card = Card.parse(code)
    at = w.layout.centres[12].copy()
    out = []
    for f in (1, 4, 7, 10, 13):
        if f == 7:  # the hand letting go, leaving by the card (``_note_stirred``, as every frame does)
            _hand_moves_over(w, at + np.array([0.0, 0.6 * w.h]))
            w._note_stirred(f - 1)
        _still_frames(w)
        out += w._observe(f, f / 30, Detections.from_rows([_one_up(w, at, card)]), view)
    assert (["place", 13, "top"] in [o.event for o in out]) is at_once


def _king_put_on_the_centre(w: Watcher, moving, last: int, creep_before: int = 0, after=None) -> list[int]:
    """A KD turned over at the centre and left on top of its stack, seen there at every frame up to ``last``
    (0.06 card heights off before frame ``creep_before``), a hand moving over it at the frames where
    ``moving(f)``, nothing moving at the others; ``after(f)`` runs after each look. Returns the frames it was
    judged put on top at."""
    view = GameView(expected_pile=13)
    king = Card.parse("KD")
    at = w.layout.centres[12].copy()
    placed = []
    for f in range(1, last + 1):
        if moving(f):
            _hand_moves_over(w, at + (f % 2) * 25)
        else:
            _still_frames(w, 1)
        w._note_stirred(f)  # (as every frame does)
        seen_at = at + np.array([0.0, -0.06 * w.h if f < creep_before else 0.0])
        out = w._observe(f, f / 30, Detections.from_rows([_one_up(w, seen_at, king)]), view)
        placed += [f for o in out if o.event == ["place", 13, "top"]]
        if after is not None:
            after(f)
    return placed


def test_a_card_on_top_of_its_own_stack_is_judged_on_the_second_look_after_the_hand_leaves():
    """A king turned over at the centre and left lying on top of it (a mistake), the hand moving over the
    stack meanwhile: put there on the second still look after the hand has gone (two looks with the
    stack hidden and nothing moving around it), not waiting for a third (8921's and 8967's cards put on
    top of their own piles at 640x360 came 167 ms after they settled, against the 150 ms target)."""
    w = _clock_watcher(expected=13)

    def lying_not_judged(f: int) -> None:
        if f == 7:
            assert w.hand is not None and w.hand.lying_at == (13, "top")  # lying there, not yet judged

    # a hand moving about over it until frame 7; gone: frame 8 still differs from the last with the hand,
    # 9 on are all alike
    assert _king_put_on_the_centre(w, lambda f: f <= 7, 12, after=lying_not_judged) == [10]


@pytest.mark.parametrize("moving_until, placed_at", [(5, [8]), (9, [12])])
def test_a_card_let_go_on_top_of_the_stack_it_was_turned_at_needs_no_doubled_wait(moving_until, placed_at):
    """A king turned over at the centre and put on top of it (a mistake), creeping a little as it comes to
    rest (frame 4), a hand moving by it until ``moving_until``: it lies still twice as long as elsewhere only
    while no hand has let go of it. The hand leaving at frame 5 (it stirred by the card, and nothing moved by
    it or over its stack after): judged at frame 8, not 10 (oracle 10032 at 640x360: a 4S put on
    top of 4, 167 ms after it settled). A hand moving over it until frame 9: two still looks after that."""
    w = _clock_watcher(expected=13)
    moving = lambda f: f in (1, 2, 3) or 5 <= f <= moving_until  # noqa: E731
    assert _king_put_on_the_centre(w, moving, 15, creep_before=4) == placed_at


def test_a_card_sized_like_one_held_up_lies_beneath_a_stack_that_shows_whole():
    """Out in pile 3's fan, 1.3 times the size of a lying card (the detector sizes a card mostly covered
    by the stack too big): it lies beneath when the stack shows whole, its inner index does not and
    nothing moves; shown with both indices, or with the stack hidden, or when the recogniser does not
    say which indices show, it is held up (not lying)."""
    from companion.vision.watcher import _Sighting
    w = _clock_watcher(expected=3)
    _still_frames(w)
    c = w.layout.centres[2] + w.h * 0.35 * w.layout.outward[2]
    big = 1.3 * w.geometry.pile_size_at(3, c)

    def lying(both: bool, stack_seen: bool, known: bool):
        w._stacks_seen = {3} if stack_seen else set()
        w._both_known = known
        return w._lying_position(_Sighting(1, 0.0, None, 0.2, c, big, 0.0, both))

    assert lying(False, True, True) is not None and lying(False, True, True)[0] == 3
    assert lying(True, True, True) is None
    assert lying(False, False, True) is None
    assert lying(False, True, False) is None


@pytest.mark.parametrize("first, last, placed_at", [(0.15, 0.6, 9), (0.55, 0.6, 13)])
def test_a_card_last_seen_carried_fast_is_not_put_down_where_it_passed(first, last, placed_at):
    """A 9D read at the centre, then seen unread twice a frame apart out along the centre's fan (``first``
    and ``last`` card heights out), then lost from sight; the next card is read by pile 10. Carried there
    half a card height a frame, it only passed the centre's fan: lost on its way, it went beneath its own
    pile unseen (9104 at 1080p, models: the first card, a 9D carried from the centre to 9, was judged put
    beneath 13, a false WRONG_TARGET_PILE). Seen still out there, it was put down there."""
    w, view, card = _read_at_the_centre("9D")
    centre, out = w.layout.centres[12], w.layout.outward[12]
    assert w.hand is not None and w.hand.card == card and w.hand.source == 13
    for f, along in ((3, first), (4, last)):
        w._observe(f, f / 30, Detections.from_rows([_one_up(w, centre + along * w.h * out)]), view)
    assert w.hand.last_pos == (13, "under")
    events = []
    for f in range(7, 20, 3):
        events += [o.event for o in w._observe(f, f / 30, Detections.empty(), view)]
    at10 = w.layout.centres[9] + 0.2 * w.h * w.layout.outward[9]
    events += [o.event for o in w._observe(21, 21 / 30, Detections.from_rows([_one_up(w, at10, Card.parse("TS"))]), view)]
    assert [e for e in events if e[0] == "place"] == [["place", placed_at, "under"]]


@pytest.mark.parametrize("code, placed", [("7D", False), ("KD", True)])
def test_a_card_lost_from_sight_on_the_stack_it_came_from_was_not_put_down_there(code, placed):
    """A card read twice as it was turned over at the centre, then lost from sight there (a hand carrying
    it fast); an unread shape shows three card heights off. A 7D was never seen leave the stack it came
    from: it is not put down on it (9177 at 1080p, models: the 7D turned at 11, carried fast to 7 and next
    seen half way as an unread shape, was judged put beneath 11 the moment that shape showed, a false
    WRONG_TARGET_PILE). A KD, whose own pile that is, may have been put down there, as before."""
    w, view, card = _read_at_the_centre(code)
    assert w.hand is not None and w.hand.card == card and w.hand.source == 13 and not w.hand.left_source
    events = []
    for f in (5, 8):
        events += [o.event for o in w._observe(f, f / 30, Detections.empty(), view)]
    far = w.layout.centres[12] + 3.0 * w.h * w.layout.outward[6]
    events += [o.event for o in w._observe(9, 9 / 30, Detections.from_rows([_one_up(w, far)]), view)]
    assert any(e[0] == "place" for e in events) == placed, events


@pytest.mark.parametrize("off, new_hand", [(0.15, False), (0.6, True)])
def test_an_unread_shape_by_a_table_card_while_the_hand_holds_a_card_is_that_table_card(off, new_hand):
    """A 3H taken from the centre is carried off (not fast) and seen once out along the centre's fan; the
    next look misses it and shows one shape ``off`` card heights from the KS lying beneath the centre, a
    little big, its K read but not its suit (so not the 3H). So close, it is the KS, seen with the stack as
    one shape, and the 3H is still in the hand (9106 at 1080p, models: the 3H was judged put beneath 13, a
    false WRONG_TARGET_PILE); further off it is a new card, and the 3H was put down where last seen."""
    from companion.vision.table_model import TableCard
    w = _clock_watcher(expected=13)
    view = GameView(expected_pile=13)
    centre, out = w.layout.centres[12], w.layout.outward[12]
    ks_at = centre + 0.3 * w.h * out
    w.table.put(TableCard(Card.parse("KS"), 13, "under", ks_at.copy(), 0, 0))
    card = Card.parse("3H")
    for f in (1, 2):
        w._observe(f, f / 30, Detections.from_rows([_one_up(w, centre - 0.05 * w.h * out, card)]), view)
    w._observe(8, 8 / 30, Detections.from_rows([_one_up(w, centre + 0.65 * w.h * out)]), view)
    h = w.hand
    assert h is not None and h.card == card and h.last_pos == (13, "under")
    shape = ks_at + off * w.h * np.array([-out[1], out[0]])
    _hand_moves_over(w, shape)
    row = list(_one_up(w, shape, size=1.1 * float(np.median(w.geometry.sizes))))
    row[2], row[4] = 13, 0.99  # K read surely, the suit not
    events = [o.event for o in w._observe(11, 11 / 30, Detections.from_rows([tuple(row)]), view)]
    assert (["place", 13, "under"] in events) is new_hand
    assert (w.hand is h) is not new_hand


@pytest.mark.parametrize("read_as, adopted", [("6C", True), ("7D", False)])
def test_a_card_lost_from_sight_and_found_unread_then_read_is_the_same_card(read_as, adopted):
    """Read once at pile 1, lost from sight, seen again unread by pile 6 out of any hand's reach (so a
    new hand card), then read there as the card the lost one was read as: it is that card, and keeps
    the lost one's trail (where it came from); read as another card, it is another card."""
    w, view, at1, big, lost = _read_once_at_1_then_lost()
    at6 = w.layout.centres[5] + w.h * 0.6 * w.layout.outward[5]
    w._observe(14, 14 / 30, Detections.from_rows([_one_up(w, at6, None, size=big)]), view)
    found = w.hand
    assert found is not None and found is not lost and found.first_frame == 14
    w._observe(15, 15 / 30, Detections.from_rows([_one_up(w, at6, Card.parse(read_as), size=big)]), view)
    assert w.hand is found
    assert (found.first_frame == 3) == adopted
    assert (found.sightings[0].frame == 3) == adopted


@pytest.mark.parametrize("gap, placed", [(6, True), (24, False)])
def test_an_unread_shape_found_again_after_a_while_must_lie_still_again(gap, placed):
    """An unread shape seen once beneath 8, lost from sight, and found again at the same place ``gap``
    frames later, then read twice as the KH. Found again soon, it has lain there all along: put down at
    once when read. Found again after a while, where it lay then says nothing of now (9047 at 1080p: the
    KH being turned over at 8 was taken for that shape and put beneath 8 the moment it was read)."""
    w = _clock_watcher(expected=8)
    view = GameView(expected_pile=8)
    at8 = w.layout.centres[7] + w.h * 0.5 * w.layout.outward[7]
    w._observe(3, 3 / 30, Detections.from_rows([_one_up(w, at8, None)]), view)
    for f in range(4, 3 + gap):
        w._observe(f, f / 30, Detections.empty(), view)
    lost = w._orphan
    assert w.hand is None and lost is not None
    f = 3 + gap
    w._observe(f, f / 30, Detections.from_rows([_one_up(w, at8, None)]), view)
    assert w.hand is lost  # found again
    out = []
    for k in (1, 2):
        out += w._observe(f + k, (f + k) / 30, Detections.from_rows([_one_up(w, at8, Card.parse("KH"))]), view)
    assert [o.event for o in out][:2] == [["turn", 8], ["see", "KH"]]
    assert (["place", 8, "under"] in [o.event for o in out]) is placed


@pytest.mark.parametrize("seen_moving", [False, True])
def test_an_unread_shape_seen_at_one_place_only_is_not_found_again_far_off(seen_moving):
    """An unread shape seen out in 5's fan, lost from sight, and 15 frames later an unread shape by 8, 4.2
    card heights off. Seen at one place only, never read, it was never seen carried: the shape by 8 is a
    new card (9161 at 1080p, models: the 5H beneath 5, seen once as an unread shape as the arm went by,
    was "found again" as the 8H turned out of turn at 10, whose source was then judged from that first look).
    Seen moving, it was a card carried, and a hand carries a card that far in 15 frames: found again."""
    w = _clock_watcher(expected=7)
    view = GameView(expected_pile=7)
    u5, u8 = w.layout.outward[4], w.layout.outward[7]
    at5, by8 = w.layout.centres[4] + 0.5 * w.h * u5, w.layout.centres[7] + 0.5 * w.h * u8
    _still_frames(w)
    w._observe(3, 3 / 30, Detections.from_rows([_one_up(w, at5, None)]), view)
    if seen_moving:
        w._observe(4, 4 / 30, Detections.from_rows([_one_up(w, at5 + 0.5 * w.h * u5, None)]), view)
    for f in range(5, 12):
        w._observe(f, f / 30, Detections.empty(), view)
    lost = w._orphan
    assert w.hand is None and lost is not None
    assert 2.5 * w.h < float(np.linalg.norm(by8 - lost.last.centre)) < 0.35 * 15 * w.h
    w._observe(lost.last.frame + 15, 0.6, Detections.from_rows([_one_up(w, by8, None)]), view)
    assert w.hand is not None
    assert (w.hand is lost) is seen_moving


def _lying_beneath(pile: int, code: str, moving: bool):
    """A watcher with ``code`` lying beneath ``pile`` (play at the next pile), still frames, and a hand
    moving over the card when ``moving``: (watcher, view, the card's place, the card)."""
    from companion.vision.table_model import TableCard
    w = _clock_watcher(expected=pile % 12 + 1)
    place = w.layout.centres[pile - 1] + w.h * 0.3 * w.layout.outward[pile - 1]
    card = Card.parse(code)
    w.table.put(TableCard(card, pile, "under", place.copy(), 1, 1))
    _still_frames(w)
    if moving:
        _hand_moves_over(w, place)
    return w, GameView(expected_pile=pile % 12 + 1), place, card


@pytest.mark.parametrize("moving", [False, True])
def test_a_table_card_read_off_its_place_with_nothing_moving_is_still_that_card(moving):
    """A card lying beneath pile 11, seen 0.3 card heights off its place (the detector's other guess at
    a partly covered card's quad), surely read or unread: with nothing moving by it, it is the table
    card (no hand card starts, its place stays); with a hand moving there, it is being picked up."""
    w, view, place, jd = _lying_beneath(11, "JD", moving)
    off = place + np.array([0.3 * w.h, 0.0])
    for f, card in ((10, jd), (11, None)):
        w._observe(f, f / 30, Detections.from_rows([_one_up(w, off, card)]), view)
        assert (w.hand is not None) == moving
        if not moving:
            kept = next(tc for tc in w.table if tc.card == jd)
            assert float(np.linalg.norm(kept.centre - place)) < 1e-6  # not drifted to the far guess


@pytest.mark.parametrize("both_read", [True, False])
def test_two_fan_cards_lying_close_are_each_matched_to_their_own_reading(both_read):
    """9H and 9C both beneath pile 9, their places 0.03 card heights apart (the model's centres of a
    fan's cards). The 9C read at the 9C's place is no misreading of the 9H, which is read a little off
    its own place: each detection is its own card, none is left over to start a hand card (9072 at
    1080p: the 9C's reading was taken for the 9H, the 9H's reading was left over, taken for a card in
    the hand lying still, and held play up for the rest of the game). With the 9H read in no look, the
    9C's reading is its own card still."""
    w, view, place, nine_h = _lying_beneath(9, "9H", moving=False)
    nine_c = Card.parse("9C")
    c_place = place + np.array([0.03 * w.h, 0.0])
    w.table.put(TableCard(nine_c, 9, "under", c_place.copy(), 2, 2))
    view = GameView(expected_pile=10, face_up=frozenset({nine_h, nine_c}))
    rows = [_one_up(w, c_place + np.array([1.0, 0.0]), nine_c)]
    if both_read:
        rows.append(_one_up(w, place - np.array([0.09 * w.h, 0.0]), nine_h))
    for f in (10, 13, 16):
        w._observe(f, f / 30, Detections.from_rows(rows), view)
        assert w.hand is None
        c = next(tc for tc in w.table if tc.card == nine_c)
        assert c.missing == 0 and c.last_seen == f


@pytest.mark.parametrize("moving", [False, True])
def test_a_table_card_taken_for_picked_up_that_never_left_its_place_is_let_go(moving):
    """A TC beneath pile 10, read in the hand while a hand turned the next card there, but seen four
    looks in a row no further than its detector scatter from its place: once nothing moves by it, it
    was never picked up (the hand is let go, the card stays on the table); while a hand still moves
    there, it may yet be carried off."""
    from companion.vision.watcher import _Hand, _Sighting
    w, view, place, tc = _lying_beneath(10, "TC", moving)
    off = place + np.array([0.25 * w.h, 0.0])
    size = w.geometry.pile_size_at(10, off)
    h = w.hand = _Hand(first_frame=2, card=tc, from_table=tc)
    h.sightings = [_Sighting(f, f / 30, tc, 0.99, off.copy(), size) for f in (2, 5, 8, 11)]
    w._observe(14, 14 / 30, Detections.from_rows([_one_up(w, off, tc)]), view)
    assert (w.hand is h) == moving
    assert tc in w.table


def _clock_frame(w: Watcher, askew: dict[int, int] | None = None, hand_at: int | None = None,
                 frame: int = 0) -> np.ndarray:
    """The clock's thirteen stacks as light rectangles; ``askew`` shifts a stack's top card by that many
    pixels (its top card taken: the next one lies a little differently); ``hand_at`` covers a pile with
    a hand (never quite still: it moves with ``frame``)."""
    img = np.full((720, 1280, 3), 90, np.uint8)
    for k, (x, y) in enumerate(w.layout.centres, start=1):
        dx = (askew or {}).get(k, 0)
        img[int(y) - 45:int(y) + 45, int(x) - 32 + dx:int(x) + 32 + dx] = 170
    if hand_at is not None:
        x, y = w.layout.centres[hand_at - 1] + (frame % 3) * 10
        img[int(y) - 30:int(y) + 30, int(x) - 30:int(x) + 30] = 220
    return img


def _taken_from(taken: int, hand_over: int | None, frames: int = 12):
    """A clock watcher where play is at 8 and the last card came to rest at frame 5; the stack of
    ``taken`` then loses its top card (a hand over it, frames 6-9), a card is first seen at frame 10
    and, from then, a hand stays over ``hand_over``; ``frames`` frames in all. Returns it and the hand."""
    from companion.vision.watcher import _Hand
    w = _clock_watcher(expected=8)
    w._last_put = 5
    for f in range(frames):
        if f < 6:
            img = _clock_frame(w)
        elif f < 10:
            img = _clock_frame(w, hand_at=taken, frame=f)
        else:
            img = _clock_frame(w, askew={taken: 8}, hand_at=hand_over, frame=f)
        w.stack_looks.update(img, f)
    h = _Hand(first_frame=10)
    return w, h


@pytest.mark.parametrize("taken, hand_over, want", [
    (8, None, (8, True)),   # where play is lost its top card, 9 untouched: taken at 8
    (9, None, (9, True)),   # 9 lost it: a card taken out of turn at 9 (the mistake is kept)
    (8, 9, (9, False)),     # a hand over 9 since the card showed: 9 may be where it was taken; wait
    (9, 8, (9, True)),      # 9 lost its top card, a hand still over 8: taken at 9
    (10, 8, (8, True)),     # 9 untouched since the card showed, a hand still over 8: not taken at 9
])
def test_a_source_away_from_play_is_checked_against_the_stacks(taken, hand_over, want):
    """A card judged taken from 9 (say: first seen there) while play is at 8: the stacks' looks since
    the last card came to rest decide where it came from, and say so only when they can tell."""
    w, h = _taken_from(taken, hand_over, frames=16)
    assert w._source_by_stacks(9, h) == want
    assert w._source_by_stacks(8, h) == (8, True), "a source where play is is never questioned"


@pytest.mark.parametrize("taken, hand_over, code, want", [
    (8, 9, "5S", (9, False)),  # a 5S: the hand over 9 may be where it was taken; wait
    (8, 9, "9S", (8, True)),   # a 9S, going beneath its own pile (the hand there): taken where play is
    (8, None, "9S", (8, True)),
    (9, None, "9S", (9, True)),  # 8 untouched, 9 lost its top card: a 9S truly taken out of turn at 9
])
def test_a_card_judged_taken_from_its_own_pile_was_carried_there(taken, hand_over, code, want):
    """A card judged taken from 9 (first seen there) while play is at 8. A 9S is put beneath 9, which
    changes or hides that stack as a card taken from it would: when 8 lost its top card, the 9S was
    carried from 8 (9042's 4C, 9014's 9S). Only where play is untouched does its own pile stay the source."""
    w, h = _taken_from(taken, hand_over, frames=16)
    h.card = Card.parse(code)
    assert w._source_by_stacks(9, h) == want


@pytest.mark.parametrize("backs_at_9, backs_elsewhere, want", [
    (0, 0, (8, True)), (1, 0, (9, False)), (2, 0, (9, False)), (1, 1, (8, True)), (2, 1, (9, False))])
def test_a_card_seen_lifted_face_down_at_its_own_pile_is_not_taken_for_carried_there(backs_at_9, backs_elsewhere,
                                                                                     want):
    """A 9S first seen at 9 while play is at 8, whose stack changed (there: a card just put beneath 8
    changes it too, and so does an arm lying still over it as the hand turns a card at 9), the hand over
    9. Seen lifted face down at 9 twice before its face showed (8993's AS at 640x360, turned at 1 out of
    turn and put back), or once and nowhere else (9370's 3D, turned at 3 while play was at 4, the arm
    reaching across the stack of 4), it was turned over there: the stacks must decide, it is not taken at
    once for one carried from 8. Seen face down nowhere, or once at 9 and also elsewhere, it is."""
    w, h = _taken_from(8, 9, frames=16)
    h.card = Card.parse("9S")
    h.fd_points = [(9, w.layout.centres[8].copy()) for _ in range(backs_at_9)] + \
        [(7, w.layout.centres[6].copy()) for _ in range(backs_elsewhere)]
    assert w._source_by_stacks(9, h) == want


@pytest.mark.parametrize("out, both, back_at_8, want", [
    (0.0, True, False, (9, False)),   # held up on its own stack, both indices, no back seen: turned there
    (0.0, False, False, (8, True)),   # one index showing: perhaps slid beneath, carried from 8
    (0.9, True, False, (8, True)),    # first seen out in the fan, not on the stack
    (0.0, True, True, (8, True)),     # a back seen at 8 first: carried from there
])
def test_a_card_first_shown_on_its_own_stack_was_turned_there(out, both, back_at_8, want):
    """A 9S first seen at 9 while play is at 8, the stack of 8 "changed" (a hand held still beside it
    covers a corner of its look) and the hand over 9. First shown held up on the stack of 9 with both
    indices, no back of it seen anywhere, it was turned over there out of turn (oracle 9455's 6S): the
    stacks must decide. Otherwise it may have been carried from 8 unread to go beneath 9."""
    w, h = _taken_from(8, 9, frames=16)
    h.card = Card.parse("9S")
    h.sightings = [_sighting(w, 10, 9, out, both, h.card)]
    if back_at_8:
        h.fd_points = [(8, w.layout.centres[7].copy())]
    assert w._source_by_stacks(9, h) == want


@pytest.mark.parametrize("expected, want", [(8, (9, False)), (6, (6, True)), (13, (13, True))])
def test_only_a_neighbours_change_is_doubted_for_a_card_first_shown_on_its_own_stack(expected, want):
    """A 9S first shown held up on the stack of 9 with both indices, no back seen, the stack of 9 hidden,
    the stack where play is changed by 7.9 grey levels. The neighbour 8 (1.3 card heights off) may have
    been "changed" by the hand holding the card at 9: wait for the stacks (oracle 9455). Piles 6 and 13,
    2.5 card heights off, no such hand reaches: the card was carried from there unseen (9083 at 1080p: a
    KC carried from 4 to the centre, first shown there; judged taken at 13, a false WRONG_SOURCE_PILE)."""
    from companion.vision.watcher import _Hand
    w = _clock_watcher(expected=expected)
    w._last_put = 5
    w.stack_looks.change_since = lambda pile, frame, settled_after=None: {expected: 7.9}.get(pile)
    h = _Hand(first_frame=10)
    h.card = Card.parse("9S")
    h.sightings = [_sighting(w, 10, 9, 0.0, True, h.card)]
    assert w._source_by_stacks(9, h) == want


@pytest.mark.parametrize("code, want", [("9S", (9, False)), ("5S", (9, True))])
def test_a_card_at_its_own_pile_waits_for_the_stack_where_play_is(code, want):
    """A card first seen at 9 while play is at 8; the stack of 9 changed, the hand still hides 8. A 5S was
    taken at 9. A 9S may have been carried from 8 and put beneath 9, which changes that stack as much: it
    waits for the stack of 8 (9014's 5C at 1080p, judged taken at 5, a false WRONG_SOURCE_PILE)."""
    w, h = _taken_from(9, 8, frames=16)
    h.card = Card.parse(code)
    assert w._source_by_stacks(9, h) == want


@pytest.mark.parametrize("taken, want", [(8, (8, True)), (9, (9, True))])
def test_the_games_first_card_is_checked_against_the_stacks_first_looks(taken, want):
    """The game's first card, a 9S first seen at 9 while play is at 8: no stack had a settled look at
    frame 0 (the first card's "last put" frame), so the stacks' first settled looks are the ones compared
    (9042 at 1080p: its first card, carried from the centre to 5, was judged taken at 5)."""
    w, h = _taken_from(taken, None, frames=16)
    w._last_put = 0
    h.card = Card.parse("9S")
    assert w.stack_looks.first_settled(8) > 0  # (so frame 0 has no look of its own)
    assert w._source_by_stacks(9, h) == want


def _judged_at_9_with_changes(changes: dict, code: str):
    """``_source_by_stacks`` for a card ``code`` judged taken from 9 while play is at 8, the stacks having
    changed (grey levels) as ``changes`` says since the last card came to rest (others: 0)."""
    from companion.vision.watcher import _Hand
    w = _clock_watcher(expected=8)
    w._last_put = 5
    w.stack_looks.change_since = lambda pile, frame, settled_after=None: changes.get(pile, 0.0)
    h = _Hand(first_frame=10)
    h.card = Card.parse(code)
    return w._source_by_stacks(9, h)


@pytest.mark.parametrize("where_play_is, its_own, want", [(53.1, 60.3, 9), (17.2, 9.0, 8)])
def test_a_card_whose_own_stack_changed_more_was_taken_there(where_play_is, its_own, want):
    """Both stacks changed: a 9S whose own stack (9) changed more than the one where play is (8) was taken
    at 9 out of turn, a hand sweeping over both (8937 at 640x360: a 3S turned at 3 and put back, 60.3
    grey levels there, 53.1 where play was); changed less, it was carried to 9 from 8."""
    assert _judged_at_9_with_changes({8: where_play_is, 9: its_own}, "9S") == (want, True)


@pytest.mark.parametrize("where_play_is, judged, want", [
    (3.4, 0.3, 8),     # 9172's 5C at 1080p, models: the judged stack untouched, where play is changed a little
    (1.5, 0.3, 9),     # neither stack changed: nothing to go on, the judged pile stays
    (3.5, 2.5, 9),     # the judged stack changed, where play is too little to say it lost its top card
    (100.8, 50.0, 9),  # oracle 8118's 4H at 640x360, truly taken out of turn: the arm reached across both
    (54.2, 56.9, 9),   # 9172's 4H at 1080p, models: likewise
    (14.1, 0.6, 8),    # where play is lost its top card, the judged stack untouched
])
def test_a_judged_stack_that_looks_untouched_was_not_taken_from(where_play_is, judged, want):
    """A 5S judged taken from 9 (first seen there) while play is at 8. A judged stack that looks untouched
    (under STACK_UNTOUCHED) was not where the card was taken when the stack where play is changed at all, as
    when a hand still hides that stack; a stack that lost its top card changes by 2.6 grey levels at the
    least. A judged stack that changed was where the card was taken, out of turn (the mistake is kept),
    unless where play is changed four times as much or more."""
    assert _judged_at_9_with_changes({8: where_play_is, 9: judged}, "5S") == (want, True)


@pytest.mark.parametrize("lying, want", [(None, 9), ((9, "near"), 8), ((9, "under"), 8), ((9, "top"), 9)])
def test_a_card_lying_beneath_its_own_stack_is_no_sign_it_was_taken_there(lying, want):
    """Both stacks changed, the 9S's own (9) more than the one where play is (8). Lying out beneath 9 as
    it is judged, the 9S is itself in that stack's look, so the change there says nothing: it was carried
    from 8 (9083 at 1080p: a 2S read only as it came to lie beneath 2, 10.2 grey levels there, 7.7 at 1,
    judged taken at 2). Not lying there (or lying on top), as before: taken at 9 (8937's sweep)."""
    from companion.vision.watcher import _Hand
    w = _clock_watcher(expected=8)
    w._last_put = 5
    w.stack_looks.change_since = lambda pile, frame, settled_after=None: {8: 7.7, 9: 10.2}.get(pile, 0.0)
    h = _Hand(first_frame=10)
    h.card, h.lying_at = Card.parse("9S"), lying
    assert w._source_by_stacks(9, h) == (want, True)


def test_a_turn_waiting_for_the_stacks_comes_out_first_and_amended():
    """A turn judged away from play that the stacks cannot yet settle is held back (the reading with
    it); it comes out, amended, when the stacks decide, before anything else, or after SOURCE_WAIT."""
    from companion.vision.watcher import SOURCE_WAIT, Observation
    w, h = _taken_from(8, 9, frames=16)
    w.hand = h
    announced = [Observation(16, 0.5, ["turn", 9]), Observation(16, 0.5, ["see", "5S"], 0.99)]
    w._holding = True
    assert w._release(list(announced), 16) == []
    for f in range(17, 22):  # the hand leaves 9: its stack settles, untouched
        assert w._release([], f) == [] or f == 21
        w.stack_looks.update(_clock_frame(w, askew={8: 8}), f)
    out = w._release([], 21)
    assert [o.event for o in out] == [["turn", 8], ["see", "5S"]] and h.source == 8
    # undecided, then the card is put down: the held pair comes out first, with the stacks' final word:
    # 9 never seen settled since the card showed, while 8 lost its top card: taken at 8 (9042's TD)
    w, h = _taken_from(8, 9, frames=16)
    w.hand, w._holding = h, True
    w._release(list(announced), 16)
    later = [Observation(18, 0.6, ["place", 5, "under"])]
    assert [o.event for o in w._release(list(later), 18)] == [["turn", 8], ["see", "5S"], ["place", 5, "under"]]
    # ... but a card put back face down was held where it was judged taken, hiding that stack: taken there
    # (the GNOME-deck game 3's 9H, turned out of turn at 11 and put back)
    w, h = _taken_from(8, 9, frames=16)
    w.hand, w._holding = h, True
    w._release(list(announced), 16)
    back = [Observation(18, 0.6, ["return", 9])]
    assert [o.event for o in w._release(list(back), 18)] == [["turn", 9], ["see", "5S"], ["return", 9]]
    # ... and where play changed too little to say a card was taken there: as judged
    w, h = _taken_from(8, 9, frames=16)
    w.stack_looks.change_since = lambda pile, frame, settled_after=None: {8: 3.0}.get(pile)
    w.hand, w._holding = h, True
    w._release(list(announced), 16)
    assert [o.event for o in w._release(list(later), 18)][0] == ["turn", 9]
    # undecided until SOURCE_WAIT frames have passed, then as judged: the card may still be held where it
    # was taken (oracle game 8921's 3S, turned out of turn at 4, put back a frame after)
    w, h = _taken_from(8, 9, frames=16)
    w.hand, w._holding = h, True
    w._release(list(announced), 16)
    assert w._release([], 16 + SOURCE_WAIT - 1) == []
    assert [o.event for o in w._release([], 16 + SOURCE_WAIT)][0] == ["turn", 9]


@pytest.mark.parametrize("backs_at_9, final, want", [
    (0, True, (8, False)),   # put down, nothing seen of either stack nor of a back: where play is
    (1, True, (9, False)),   # its back seen at 9 before its face: turned there, as judged
    (0, False, (9, False)),  # not put down yet: wait for the stacks, as judged meanwhile
])
def test_a_card_put_down_with_no_stack_seen_and_no_back_seen_came_from_where_play_is(backs_at_9, final, want):
    """A 5S judged taken at 9 only because it was first read there, play at 8, and neither stack seen settled
    since the last card came to rest (the hand over both). Put down so, the turn can wait no longer, and
    where it was first read says nothing of where it was taken: a card carried fast from the pile where play
    is and read only on its way (9173 at 1080p, models: a 2C turned at 4, first read passing 3 on its way to
    2, judged taken at 2, a false WRONG_SOURCE_PILE; 9178's AS likewise). A back seen at 9 is evidence."""
    w, h = _taken_from(8, 9, frames=16)
    w.stack_looks.change_since = lambda pile, frame, settled_after=None: None
    h.card = Card.parse("5S")
    h.fd_points = [(9, w.layout.centres[8].copy()) for _ in range(backs_at_9)]
    assert w._source_by_stacks(9, h, final=final) == want


def test_a_turn_read_and_put_down_in_one_look_gets_the_stacks_final_word():
    """A card named and put down in the same look (read only as it came to lie beneath its own pile): its
    turn, judged away from where play is and undecided by the stacks, is never held, as the card is already
    down; the stacks' final word is asked at once (9173 at 1080p, models: the 2C turned at 4, read only
    lying beneath 2, judged taken at 2 with neither stack seen: a false WRONG_SOURCE_PILE)."""
    from companion.vision.watcher import Observation
    w, h = _taken_from(8, 9, frames=16)
    w.stack_looks.change_since = lambda pile, frame, settled_after=None: None
    h.card = Card.parse("5S")
    w._holding, w._holding_for, w._holding_since = True, h, 5
    out = [Observation(16, 0.5, ["turn", 9]), Observation(16, 0.5, ["see", "5S"], 0.99),
           Observation(16, 0.5, ["place", 5, "under"])]
    assert [o.event for o in w._release(out, 16)] == [["turn", 8], ["see", "5S"], ["place", 5, "under"]]
    assert h.source == 8 and not w._held


@pytest.mark.parametrize("rank_conf", [0.99, 0.88, None])
def test_a_shape_whose_rank_is_read_as_another_is_not_the_hand_card(rank_conf):
    """A 5C carried from pile 9 towards 5 across the clock; the next look shows it unread further on, and
    nearer the hand's last place a card with its rank read as a king (suit unread): that is another card
    (the king at the centre), not the 5C, even when the reading (0.88) is too unsure to count as a card's
    (9058 at 1080p: the 5D lying at 5 read so was taken for the 7D just turned there). Read as nothing at
    all, it could be."""
    rank_read = rank_conf is not None
    w = _clock_watcher(expected=9)
    view = GameView(expected_pile=9)
    big = 1.1 * float(np.median(w.geometry.sizes))
    five = Card.parse("5C")
    start = np.array([560.0, 420.0])
    for f in (3, 6):
        w._observe(f, f / 30, Detections.from_rows([_one_up(w, start, five, size=big)]), view)
    assert w.hand is not None and w.hand.card == five
    king_at = np.array([610.0, 400.0])  # nearer the hand's last place than the 5C is now
    on = np.array([700.0, 430.0])
    king = list(_one_up(w, king_at, size=big))
    king[2], king[4] = (13, rank_conf) if rank_read else (0, 0.2)
    w._observe(9, 0.3, Detections.from_rows([tuple(king), _one_up(w, on, size=big)]), view)
    assert w.hand is not None and w.hand.card == five
    took = w.hand.last.centre
    assert np.allclose(took, on) == rank_read and np.allclose(took, king_at) == (not rank_read)


@pytest.mark.parametrize("rank, rank_conf, starts", [(10, 0.99, False), (10, 0.5, True), (9, 0.99, True)])
def test_a_shape_read_as_a_rank_all_face_up_starts_no_hand_card(rank, rank_conf, starts):
    """All four tens lie face up. An unread shape by pile 10 whose rank alone is read surely as a ten is
    one of them, not a new card in the hand (9064 at 1080p: such a shape held the hand, lying still, for
    the rest of the game). Read unsurely, or as a rank not all face up, it may be a new card."""
    w = _clock_watcher(expected=5)
    view = GameView(face_up=frozenset(Card.parse(f"T{s}") for s in "CDHS"), expected_pile=5)
    shape = list(_one_up(w, w.layout.centres[9] + w.h * 0.3 * w.layout.outward[9]))
    shape[2], shape[4] = rank, rank_conf
    w._observe(1, 1 / 30, Detections.from_rows([tuple(shape)]), view)
    assert (w.hand is not None) == starts


def test_a_shape_of_the_hand_cards_own_rank_may_be_the_hand_card():
    """The TD in the hand is the fourth ten face up: an unread shape by it, its rank read as a ten, is
    still followed as the TD."""
    w = _clock_watcher(expected=11)
    ten = Card.parse("TD")
    others = frozenset(Card.parse(f"T{s}") for s in "CHS")
    big = 1.1 * float(np.median(w.geometry.sizes))
    start, on = np.array([560.0, 420.0]), np.array([600.0, 430.0])
    for f in (3, 6):
        w._observe(f, f / 30, Detections.from_rows([_one_up(w, start, ten, size=big)]),
                   GameView(face_up=others, expected_pile=11))
    assert w.hand is not None and w.hand.card == ten and w.hand.announced
    view = GameView(face_up=others | {ten}, expected_pile=10, in_hand=ten)  # as the referee tells it now
    shape = list(_one_up(w, on, size=big))
    shape[2], shape[4] = 10, 0.99
    w._observe(9, 0.3, Detections.from_rows([tuple(shape)]), view)
    assert w.hand is not None and w.hand.card == ten and np.allclose(w.hand.last.centre, on)


def test_a_second_turn_held_back_lets_the_first_out_before_it():
    """A held turn is never lost: when the next card's turn is held too (the first card put down, the
    next one taken, in one look), the first pair comes out, then the put-down; the new pair waits."""
    from companion.vision.watcher import Observation, _Hand
    w, h = _taken_from(8, 9, frames=16)
    w.hand, w._holding = h, True
    first = [Observation(16, 0.5, ["turn", 9]), Observation(16, 0.5, ["see", "5S"], 0.99)]
    assert w._release(list(first), 16) == []
    w.hand, w._holding = _Hand(first_frame=18), True
    second = [Observation(18, 0.6, ["place", 5, "under"]), Observation(18, 0.6, ["turn", 5]),
              Observation(18, 0.6, ["see", "7D"], 0.99)]
    out = w._release(list(second), 18)
    assert [o.event[0] for o in out] == ["turn", "see", "place"] and out[1].event == ["see", "5S"]
    assert [o.event for o in w._held] == [["turn", 5], ["see", "7D"]]
    # at the end of the source it comes out, its pile as the stacks say (8 lost its top card, 5 did not)
    assert [o.event for o in w.finish(19, 0.7)][:2] == [["turn", 8], ["see", "7D"]]


def _blind(recognise, only: Card | None = None):
    """No face-up card (or only the card ``only``) ever read (rank and suit unknown), as a whole frame
    shrunk for the detector leaves a small card unread."""
    def run(frame):
        d = recognise(frame)
        d = d[np.arange(len(d))]
        up = d.face_up.copy()
        if only is not None:
            up &= np.array([d.card(i) == only for i in range(len(d))], bool)
        d.rank[up], d.suit[up] = 0, -1
        d.rank_confidence[up] = d.suit_confidence[up] = 0.3
        d.rank_probs = d.suit_probs = None
        return d
    return run


def _oracle_zoom(game: RenderedGame, boxes: list):
    """A zoom that reads the true visible cards whose centre lies in the box (and keeps the boxes)."""
    def zoom(frame, box):
        boxes.append(box)
        d = game.oracle(frame)
        c = d.centres
        inside = (c[:, 0] >= box[0]) & (c[:, 0] < box[2]) & (c[:, 1] >= box[1]) & (c[:, 1] < box[3])
        return d[np.nonzero(inside)[0]]
    return zoom


def test_a_card_unread_in_the_whole_frame_is_read_through_the_zoom():
    """The whole frame never reads a face-up card; a closer look at the part of the frame around the card
    in play does (here the true cards whose centre lies in that part). With it the game is followed
    exactly; without it no card is read. (A card moved from the table is not looked at again: no mistakes.)"""
    game = RenderedGame(4, mistakes=0, max_moves=8)
    boxes: list = []
    zoom = _oracle_zoom(game, boxes)
    _, got = _run(game, recognise=_blind(game.oracle), zoom=zoom)
    _assert_same(got, game.expected())
    side = boxes[0][2] - boxes[0][0]
    assert 3.5 * game.layout.card_h < side < 4.5 * game.layout.card_h
    _, got = _run(game, recognise=_blind(game.oracle))
    assert not any(e[0] == "see" for e, _ in got)


@pytest.mark.parametrize("scale, taken", [(1.15, True), (1.8, False)])
def test_a_card_found_through_the_zoom_bigger_than_one_held_up_is_not_taken(scale, taken):
    """The card in play, unread, lies beneath 12; the zoom reads a QC there. Found the size of a card held
    up it is taken; found 1.8 x a card lying there (its quad guessed from its index alone, half hidden by the
    next card turned over it: 9015's QC at 1080p) it is not: no card is that big there."""
    from companion.vision.watcher import _Hand
    w = _clock_watcher(expected=12)
    h = _Hand(first_frame=5)
    s = _sighting(w, 10, 12, 0.3, False)
    h.sightings = [s]
    w.hand = h
    size = scale * w.geometry.pile_size_at(12, s.centre)
    w.zoom = lambda frame, box: Detections.from_rows([_one_up(w, s.centre, Card.parse("QC"), size=size)])
    got = w._zoomed(None, Detections.empty())
    assert (len(got) == 1 and got.card(0) == Card.parse("QC")) is taken
    assert taken or len(got) == 0


def test_a_card_played_unseen_is_found_beneath_the_pile_the_next_card_came_from():
    """The AD is never read in the whole frame (neither in the hand nor lying beneath 1), so the 5H
    turned from 1 seems taken out of turn. The stack where play was (4) lost its card too, so the watcher
    looks beneath 1 through the zoom (the hand card's own zoom is off), reads the AD lying there and
    reports its turn, reading and place first: the game is followed exactly. Without the zoom nothing
    reads it and a false wrong-source flag is raised (what this rule removes)."""
    game = RenderedGame(4, mistakes=0, max_moves=8)
    blind_ad = _blind(game.oracle, only=Card.parse("AD"))
    boxes: list = []
    zoom = _oracle_zoom(game, boxes)
    want = game.expected()
    assert (["see", "AD"], "ok") in want and (["turn", 1], "ok") in want
    _, got = _run(game, recognise=blind_ad, zoom=zoom, zoom_hand=False)
    _assert_same(got, want)
    pile_1 = game.layout.centres[0]
    assert boxes and all(b[0] < pile_1[0] < b[2] and b[1] < pile_1[1] < b[3] for b in boxes)
    _, got = _run(game, recognise=blind_ad)
    assert (["turn", 1], "WRONG_SOURCE_PILE") in got


@pytest.mark.parametrize("side, turned", [("under", False), ("top", True)])
def test_a_card_lifted_face_down_where_the_hand_card_lay_beneath_is_the_next_card(side, turned):
    """The 3C, read, was last seen lying out beneath pile 3 (then gone: slid under, a sliver showing),
    and a card is lifted face down from 3 twice: that is the next card taken there, not the 3C turned
    face down to be put back. Last seen on top of 3's stack instead, it was turned down there."""
    from companion.vision.watcher import _Hand
    w = _clock_watcher(expected=3)
    h = _Hand(first_frame=1)
    s = _sighting(w, 10, 3, 0.35 if side == "under" else 0.0, False, Card.parse("3C"))
    h.sightings, h.card, h.announced, h.source = [s], Card.parse("3C"), True, 13
    h.last_pos, h.missing = (3, side), 2
    stack = w.layout.centres[2]
    w.fd_recent.extend([(14, 3, stack), (17, 3, stack)])
    w._fd_now = False
    assert w._turned_down_here(h) is turned


@pytest.mark.parametrize("code, source, event", [
    ("3C", 13, ["place", 3, "under"]),  # at its own pile, away from its source: slid beneath it unseen
    ("5S", 3, ["return", 3]),           # back where it was taken from: put back face down
    ("5S", 13, ["return", 3])])         # at neither: a mistake the referee flags
def test_a_card_gone_face_down_at_its_own_pile_went_beneath_it(code, source, event):
    """A read card is lost from sight on pile 3's stack while the next card is read elsewhere. Seen last at
    its own pile, not the one it came from, it went beneath that pile unseen (no player puts a card back
    face down there: 12 of the 14 such "returns" in the 1080p dev games were cards truly put beneath);
    at the pile it came from, or at a third pile, it was turned face down there."""
    from companion.vision.watcher import _Hand
    w = _clock_watcher(expected=3)
    h = _Hand(first_frame=1)
    s = _sighting(w, 10, 3, 0.3, False, Card.parse(code))  # out along its fan (square on it: see below)
    h.sightings, h.card, h.announced, h.source = [s], Card.parse(code), True, source
    h.missing = 6
    w.hand = h
    out = w._vanished(h, 30, 1.0, w._view, force=True)
    assert [o.event for o in out] == [event]
    assert w.hand is None
    assert (Card.parse(code) in w.table.cards) is (event[0] == "place")


@pytest.mark.parametrize("seen, looks, placed", [(2, 8, True), (2, 7, False), (0, 8, False), (0, 12, True)])
def test_a_card_seen_beneath_a_stack_that_showed_is_put_down_sooner_once_covered(seen, looks, placed):
    """A KS seen lying out beneath the centre's stack (0.45 card heights out), not long enough to count as
    lying, then unseen (an unread sliver). The stack seen past it at two looks, it is put beneath after
    eight looks unseen (9085 at 1080p: a KS unseen for ten looks there was still the hand card when the
    next card was lifted over it, and that card was followed as the KS); otherwise after twelve, as before."""
    from companion.vision.watcher import _Hand
    w = _clock_watcher(expected=13)
    h = _Hand(first_frame=1)
    card = Card.parse("KS")
    h.sightings = [_sighting(w, 10, 13, 0.45, False, card)]
    h.card, h.announced, h.source, h.left_source = card, True, 10, True
    h.last_pos, h.stack_seen = (13, "under"), seen
    w.hand = h
    view = GameView(expected_pile=13, face_down={13: 3})
    out = []
    for k in range(looks):
        out += w._observe(20 + 3 * k, (20 + 3 * k) / 30, Detections.empty(), view)
    assert ([o.event for o in out] == [["place", 13, "under"]]) is placed


def _lost_hand_card(code: str = "5S", along: float = 0.0, size: float = 1.0):
    """A watcher (play at the centre) whose hand card ``code``, taken from the centre, was last seen face up
    at pile 3 (``along`` card heights out, ``size`` times a lying card's size) and has been out of sight
    for six looks. Returns it and the hand card."""
    from dataclasses import replace as dc_replace
    from companion.vision.watcher import _Hand
    w = _clock_watcher(expected=13)
    h = _Hand(first_frame=1)
    s = _sighting(w, 10, 3, along, False, Card.parse(code))
    h.sightings = [dc_replace(s, height=size * s.height)]
    h.card, h.announced, h.source, h.left_source = Card.parse(code), True, 13, True
    h.missing = 6
    w.hand = h
    return w, h


@pytest.mark.parametrize("seen_down_at, held_up, event", [
    ([], False, ["place", 5, "under"]),  # nothing says it was turned face down: put beneath its pile unseen
    ([13], False, ["return", 13]),       # its back seen where it came from: put back there
    ([], True, ["place", 5, "under"])])  # last seen held up by 3, neither where it came from nor its own
    # pile: carried (a card is put back where it came from; 9034's 2H, held up by 3 on its way to 2)
def test_a_card_gone_when_the_next_is_read_went_beneath_its_pile_unless_seen_turned_down(
        seen_down_at, held_up, event):
    """A 5S taken from the centre, last seen lying face up by 3, is gone when the next card is read: with
    no sign it was turned face down it was put down unseen, beneath its own pile (9042's TC at 1080p,
    put beneath 10 and taken for one put back face down at 2, where the next card was carried)."""
    w, h = _lost_hand_card(size=1.4 if held_up else 1.0)
    for k, q in enumerate(seen_down_at):
        w.fd_recent.append((11 + k, q, w.layout.centres[q - 1].copy()))
    out = w._vanished(h, 30, 1.0, w._view, force=True, new_card=True)
    assert [o.event for o in out] == [event]
    assert w.hand is None
    assert (Card.parse("5S") in w.table.cards) is (event[0] == "place")


@pytest.mark.parametrize("play_at, next_card_read, event", [
    (8, False, ["return", 13]),         # turned out of turn: the back at 8 is the next card, lifted where play is
    (5, False, None),                   # a legal turn: the back at 8 is a shape seen as the 5S is carried on
    (5, True, ["place", 5, "under"])])  # ... and the next card is read: the 5S went beneath its pile unseen
def test_a_back_seen_at_another_pile_is_not_the_card_put_back(play_at, next_card_read, event):
    """A 5S taken from the centre, last seen by 3, is lost from sight; a face-down card is then seen at 8,
    neither the pile it came from nor its own. A card is put back face down where it came from: when it was
    turned out of turn and 8 is where play is, the back is the next card lifted there and the 5S went back
    unseen (9051's 4C and 9049's 7D at 1080p, "returned" to 5 and 8); after a legal turn it is something
    seen as the card is carried on (9045's QH past 4 on its way to 12): wait for the card, and when the
    next card is read, it went beneath its own pile."""
    w, h = _lost_hand_card()
    w._view = GameView(expected_pile=play_at)
    w.fd_recent.append((12, 8, w.layout.centres[7].copy()))
    out = w._vanished(h, 30, 1.0, w._view, force=next_card_read, new_card=next_card_read)
    if event is None:
        assert out == [] and w.hand is h  # still waiting for it
    else:
        assert [o.event for o in out] == [event]
        assert w.hand is None


@pytest.mark.parametrize("seen_there_before, event", [(True, ["place", 5, "under"]), (False, ["return", 13])])
def test_a_face_down_shape_seen_there_before_is_not_the_card_turned_down(seen_there_before, event):
    """A 5S taken from the centre, last seen by 3, is gone when the next card is read; a face-down shape is
    then seen twice off the centre, two card heights from where the 5S was. Seen at that same place before
    the 5S was last seen, it is the detector's recurring false find, not the 5S turned face down (9039 at
    1080p): the 5S went beneath its pile unseen. Never seen there before, it was turned down there."""
    w, h = _lost_hand_card()
    spot = w.layout.centres[12] + np.array([0.0, -0.5 * w.h])
    assert float(np.linalg.norm(spot - h.last.centre)) > 2 * w.h
    for f in ([5, 8] if seen_there_before else []) + [13, 16]:
        w.fd_recent.append((f, 13, spot.copy()))
    w._fd_last = (16, spot.copy(), float(w.h))
    out = w._vanished(h, 30, 1.0, w._view, force=True, new_card=True)
    assert [o.event for o in out] == [event]


@pytest.mark.parametrize("along, side", [(0.0, "top"), (0.1, "under"), (0.15, "under")])
def test_a_card_lying_square_on_a_stack_seen_past_it_is_on_top(along, side):
    """A KD lying still at the centre, the stack seen while it lay there. Square on the stack (0.0 card
    heights out) it covers the stack, so the stack was seen past it as it came down: on top (9044 at 1080p:
    put on top of the centre, judged beneath it, a WRONG_SIDE missed). A little out (0.1: 9025's 2D rested
    0.116 out while slid beneath) or further, the stack seen says beneath, as before."""
    from companion.vision.watcher import _Hand
    w = _clock_watcher(expected=11)
    h = _Hand(first_frame=1)
    h.sightings = [_sighting(w, 10, 13, along, False, Card.parse("KD"))]
    h.card, h.announced, h.source, h.left_source = Card.parse("KD"), True, 11, True
    h.lying_at, h.stack_seen = (13, "top" if along < 0.1 else "near"), 3
    w._view = GameView(expected_pile=11, face_down={13: 3})
    out = w._place(h, 12, 0.4, "seen")
    assert [o.event for o in out] == [["place", 13, side]]


@pytest.mark.parametrize("along, hidden, moved, both, side", [
    (0.2, 2, False, True, "top"), (0.2, 1, False, True, "under"), (0.2, 0, False, True, "under"),
    (0.35, 2, False, True, "under"), (0.2, 2, True, True, "under"), (0.2, 2, False, False, "under")])
def test_a_card_askew_on_a_stack_it_keeps_hidden_lies_on_top(along, hidden, moved, both, side):
    """An 8H lying still 0.2 card heights out from the stack of 8 (past ``under_sure``), the stack never
    seen while it lay there. Hidden at two looks with nothing over it, the card lies on top, askew (oracle
    9436: put on top by mistake, judged beneath, a WRONG_SIDE missed); hidden at fewer looks, or the card
    further out than a card on top strays, its place says beneath. A table card "moved" there keeps to its
    place: the next card lifted from that stack hides it (9086's TD at 1080p). So does a card showing one
    index only: a card on top is in full view (9089's QS at 1080p, being slid beneath 12)."""
    from companion.vision.watcher import _Hand
    w = _clock_watcher(expected=8)
    h = _Hand(first_frame=1)
    card = Card.parse("8H")
    h.sightings = [_sighting(w, 10, 8, along, both, card)]
    h.card, h.announced, h.source, h.left_source = card, True, 7, True
    h.lying_at, h.stack_hidden = (8, "near"), hidden
    if moved:
        h.from_table = card
        w.table.put(TableCard(card, 7, "under", w.layout.centres[6].copy(), 1, 1))
    w._view = GameView(expected_pile=8, face_down={8: 2})
    out = w._place(h, 12, 0.4, "seen")
    assert [o.event for o in out] == ([["move", "8H", 8, side]] if moved else [["place", 8, side]])


@pytest.mark.parametrize("along, looks, both, known, moved, side", [
    (0.19, 2, (True, True), True, False, "top"),     # in full view at each look of its rest: above the stack
    (0.19, 2, (True, False), True, False, "under"),  # one index hidden at a look: its inner end under the stack
    (0.19, 1, (True,), True, False, "under"),        # at rest one look only: its place decides, as before
    (0.35, 2, (True, True), True, False, "under"),   # beyond where a card beneath hides an index
    (0.19, 2, (True, True), False, False, "under"),  # a recogniser that does not say which indices show
    (0.19, 2, (True, True), True, True, "under")])   # a table card moved keeps to its place
def test_a_card_at_rest_by_a_stack_in_full_view_lies_on_top(along, looks, both, known, moved, side):
    """A 7H lying still 0.19 card heights out from the stack of 7 (past ``under_sure``), nothing yet seen of
    the stack. Both its indices showing at every look of its rest (two at least), it lies above the stack:
    a card that far in beneath it has its inner index under the stack (oracle 9874 at 640x360: put on top
    by mistake, at rest askew 0.20-0.18 out while still creeping in, judged beneath: a WRONG_SIDE missed).
    An index hidden at a look, a single look, a card further out, a recogniser that cannot tell, or a table
    card moved there: its place decides (beneath), as before."""
    from companion.vision.watcher import _Hand
    w = _clock_watcher(expected=7)
    w._both_known = known
    card = Card.parse("7H")
    h = _Hand(first_frame=1)
    h.sightings = [_sighting(w, 10 + 3 * k, 7, along, b, card) for k, b in enumerate(both)]
    h.card, h.announced, h.source, h.left_source = card, True, 3, True
    h.lying_at = h.last_pos = (7, "near" if along < 0.35 else "under")
    h.still = looks
    if moved:
        h.from_table = card
        w.table.put(TableCard(card, 3, "under", w.layout.centres[2].copy(), 1, 1))
    w._view = GameView(expected_pile=7, face_down={7: 4})
    w.hand = h
    out = w._place(h, 20, 20 / 30, "seen")
    assert [o.event for o in out] == ([["move", "7H", 7, side]] if moved else [["place", 7, side]])


@pytest.mark.parametrize("along, size, side", [(0.03, 1.0, "top"), (0.03, 1.3, "under"), (0.3, 1.0, "under")])
def test_a_card_last_seen_square_on_its_own_stack_went_on_top_unseen(along, size, side):
    """A 3C from the centre, last seen at its own pile 3 and gone when the next card is read. Last seen
    lying square on that stack, it was put on top of it (9037's 7C at 1080p, judged slid beneath unseen:
    a WRONG_SIDE missed); held up over it (1.3 times a lying card's size), or out along its fan, beneath."""
    w, h = _lost_hand_card("3C", along, size)
    out = w._vanished(h, 30, 1.0, w._view, force=True, new_card=True)
    assert [o.event for o in out] == [["place", 3, side]]


@pytest.mark.parametrize("seen_down_at, last_down_by, event", [
    ([5, 5], 4, ["place", 5, "under"]),       # face down at its own pile after, never at its source: beneath it
    ([2, 4, 5, 6], 6, ["place", 5, "under"]),  # its back seen on the way there (9046's QH)
    ([13, 5], 4, ["return", 4]),              # face down where it came from too: turned down, put by 4
    ([4, 4], 4, ["return", 4])])              # at neither: a mistake the referee flags
def test_a_card_seen_face_down_at_its_own_pile_after_went_beneath_it(seen_down_at, last_down_by, event):
    """A 5S taken from the centre is last seen face up at 3, then lost from sight; the face-down cards seen
    just after say where it went: to its own pile (5) and never back at the centre, it was slid beneath 5,
    wherever the last of them lay (9025's KD at 1080p, seen face down twice at the centre, last nearer 4,
    and taken for one put back at 4)."""
    w, h = _lost_hand_card()
    for k, q in enumerate(seen_down_at):
        w.fd_recent.append((11 + k, q, w.layout.centres[q - 1].copy()))
    w._fd_last = (20, w.layout.centres[last_down_by - 1].copy(), float(w.layout.pile_card_h[last_down_by - 1]))
    out = w._vanished(h, 30, 1.0, w._view, force=True)
    assert [o.event for o in out] == [event]
    assert (Card.parse("5S") in w.table.cards) is (event[0] == "place")


@pytest.mark.parametrize("pace, follows", [(0.3, "ahead"), (0.0, "behind")])
def test_a_card_carried_fast_is_followed_along_its_way_not_to_a_shape_it_passed(pace, follows):
    """A 2C read twice by pile 6, carried towards 2 at ``pace`` card heights a frame; the next look
    shows two unread shapes: one 0.7 card heights behind its last place (a table card it passed, half
    hidden by the arm), one 0.9 card heights ahead, where its pace takes it. Carried, it is the one ahead
    (9069 at 1080p: the 6H lying by 6 was taken for the 2C carried to 2, and the 2C, seen again further
    on, for a new card: the 2C was judged put beneath 6); and two looks on, 1.8 card heights further
    along its way, further from its last place than a hand carries a card in that time, it is still
    followed. Lying still, it is the nearer shape (no pace to keep)."""
    w = _clock_watcher(expected=6)
    view = GameView(expected_pile=6)
    card = Card.parse("2C")
    step = w.layout.centres[1] - w.layout.centres[5]
    way = step / np.linalg.norm(step)
    at6 = w.layout.centres[5] + w.h * 0.3 * w.layout.outward[5]
    for f in (1, 2):
        w._observe(f, f / 30, Detections.from_rows([_one_up(w, at6 + (f - 2) * pace * w.h * way, card)]), view)
    h = w.hand
    assert h is not None and h.card == card
    behind, ahead = at6 - 0.7 * w.h * way, at6 + 0.9 * w.h * way
    w._observe(4, 4 / 30, Detections.from_rows([_one_up(w, behind), _one_up(w, ahead)]), view)
    assert w.hand is h
    want = ahead if follows == "ahead" else behind
    assert float(np.linalg.norm(h.last.centre - want)) < 1.0
    if follows == "ahead":
        further = ahead + 1.8 * w.h * way
        assert float(np.linalg.norm(further - ahead)) > w._hand_reach(4, 7, 1.5)
        out = w._observe(7, 7 / 30, Detections.from_rows([_one_up(w, further)]), view)
        assert w.hand is h and not [o for o in out if o.event[0] == "place"]
        assert float(np.linalg.norm(h.last.centre - further)) < 1.0


@pytest.mark.parametrize("sure, three, want", [(None, -11.0, "TH"), ("TH", -11.0, "TH"), ("3H", -11.0, None),
                                                 ("3H", -20.0, "TH")])
def test_unsure_looks_added_up_do_not_outweigh_a_sure_reading_of_another_card(sure, three, want):
    """Four looks at the hand card that add up to TH, 0.99 sure (blurred looks leaning to 10 as it is
    carried). With no sure reading, or a sure one of TH, it is the TH. Read surely once as 3H (as it was
    turned over), it is neither while the looks put 10 only 5 nats ahead of 3: blurred looks err alike
    and are no independent evidence against a sure reading; the card waits for a second sure one (9072 at
    1080p: a 3H announced as TH, a false flag). 14 nats ahead, they name it (9073's KS: many looks, one
    sure reading of the next card turned beside it)."""
    from companion.vision.watcher import _Hand
    w = _clock_watcher(expected=13)
    h = _Hand(first_frame=1)
    h.reads.extend([None, None, None] if sure is None else [Card.parse(sure), None, None, None])
    h.rank_ev = np.full(13, -16.0)
    h.rank_ev[9], h.rank_ev[2] = -6.0, three  # 10 ahead of 3
    h.suit_ev = np.array([-12.0, -12.0, -0.5, -12.0])
    h.looks, h.leant_ranks, h.leant_suits = 4, {9}, {2}
    w._believe(h, GameView(expected_pile=13), set())
    assert h.card == (Card.parse(want) if want else None)


@pytest.mark.parametrize("code, placed", [("AH", None), ("3C", 4)])
def test_a_card_shown_in_its_source_fan_is_not_put_down_there_at_once(code, placed):
    """A card turned at 3 (where play is) and held still for five frames a third of a card height out in
    3's fan, as it is shown, then carried off. An AH (another pile's rank) must lie there twice as long
    as a card put down to count as put down, so it is not (9072 at 1080p: an AH turned at 3 and held for
    two looks over the 3H lying beneath 3 was judged put beneath 3, a false WRONG_TARGET_PILE); a 3C,
    whose own pile it is, is put down beneath 3 as soon as it has lain still."""
    w = _clock_watcher(expected=3)
    view = GameView(expected_pile=3)
    card = Card.parse(code)
    at = w.layout.centres[2] + w.h * 0.3 * w.layout.outward[2]
    places = []
    for f in range(1, 6):
        out = w._observe(f, f / 30, Detections.from_rows([_one_up(w, at, card)]), view)
        places += [f for o in out if o.event[0] == "place"]
    assert places == ([] if placed is None else [placed])
    if placed is None:
        away = at + 1.0 * w.h * (w.layout.centres[0] - w.layout.centres[2]) / np.linalg.norm(
            w.layout.centres[0] - w.layout.centres[2])
        out = w._observe(6, 6 / 30, Detections.from_rows([_one_up(w, away, card)]), view)
        assert w.hand is not None and w.hand.card == card and not [o for o in out if o.event[0] == "place"]


@pytest.mark.parametrize("next_at, side", [(4, "under"), (6, "top")])
def test_a_card_by_a_stack_when_the_next_card_is_turned_there_lies_beneath_it(next_at, side):
    """A 4H lying still by pile 4, 0.05 card heights out (on top, by its place alone), out of sight as
    the next card, a 6S, is read. Turned at 4's stack, the 6S shows the 4H does not cover that stack: it
    lies beneath (a card put on top is moved off before the next card is taken there; 9072 at 1080p, a
    false WRONG_SIDE). Read at another pile, nothing says so: its place decides (on top)."""
    from companion.vision.watcher import _Hand
    w = _clock_watcher(expected=4)
    view = GameView(expected_pile=4)
    h = _Hand(first_frame=1)
    h.sightings = [_sighting(w, 10, 4, 0.05, False, Card.parse("4H"))]
    h.card, h.announced, h.source, h.left_source = Card.parse("4H"), True, 9, True
    h.lying_at = h.last_pos = (4, "top")
    w.hand = h
    at = w.layout.centres[next_at - 1] + w.h * 0.1 * w.layout.outward[next_at - 1]
    out = w._observe(12, 0.4, Detections.from_rows([_one_up(w, at, Card.parse("6S"))]), view)
    assert [o.event for o in out if o.event[0] == "place"] == [["place", 4, side]]


@pytest.mark.parametrize("both, seen, side", [(False, 3, "under"), (True, 3, "top"), (False, 2, "top")])
def test_a_corner_beside_a_stack_whose_back_shows_lies_beneath_it(both, seen, side):
    """A 4H lying still square on the stack of 4 by its quad (0.02 card heights out) for three looks.
    The stack's back seen at all three, and one index only showing at each, it lies beneath with a corner
    out, its quad guessed over the stack (9069's AH at 1080p, a false WRONG_SIDE); showing both indices
    it lies on top, in full view (9044's KD, the back seen past it too); the back seen at two looks only,
    its place decides (on top)."""
    from companion.vision.watcher import _Hand
    w = _clock_watcher(expected=4)
    w._both_known = True
    h = _Hand(first_frame=1)
    h.sightings = [_sighting(w, f, 4, 0.02, both, Card.parse("4H")) for f in (10, 11, 12)]
    h.card, h.announced, h.source, h.left_source = Card.parse("4H"), True, 9, True
    h.lying_at = h.last_pos = (4, "top")
    h.still, h.stack_seen = 3, seen
    w.hand = h
    out = w._place(h, 13, 13 / 30)
    assert [o.event for o in out] == [["place", 4, side]]


@pytest.mark.parametrize("how", ["seen", "newcard"])
@pytest.mark.parametrize("along, side", [(-0.12, "top"), (-0.05, "under"), (0.02, "under")])
def test_a_card_lying_inward_of_a_stack_whose_back_shows_lies_on_top(along, side, how):
    """A 4H lying still ``along`` card heights out from the stack of 4 (inward where negative), the stack's
    back seen past it at four looks and one index only found at each. A card beneath lies outward, so 0.12
    inward it lies on top, the back seen its outer edge (9175 at 1080p, models: a JC put on top of 11 by
    mistake 0.12 inward was judged beneath, its WRONG_SIDE missed), whether put down as it lay still or as
    the next card showed. Nearly square on the stack it lies beneath as before (9069's AH: its quad guessed
    over the stack from its one corner out)."""
    from companion.vision.watcher import _Hand
    w = _clock_watcher(expected=4)
    w._both_known = True
    h = _Hand(first_frame=1)
    h.sightings = [_sighting(w, f, 4, along, False, Card.parse("4H")) for f in (10, 11, 12, 13)]
    h.card, h.announced, h.source, h.left_source = Card.parse("4H"), True, 9, True
    h.lying_at = h.last_pos = (4, "top")
    h.still, h.stack_seen = 4, 4
    w.hand = h
    out = w._place(h, 14, 14 / 30, how)
    assert [o.event for o in out] == [["place", 4, side]]


@pytest.mark.parametrize("off, placed", [(0.27, False), (0.6, True)])
def test_a_table_card_seen_off_its_place_while_the_hand_holds_another_is_no_new_card(off, placed):
    """The QH just turned at 6 is held over 6's stack; the 6S lying beneath 6 is read 0.27 card heights off
    its place as the hand moves over it, and the QH is not seen this look. The 6S is no new card turned:
    the QH is not judged put down (9076 at 1080p: put beneath 6 on its way to 12, then "moved"). A card read
    as the 6S 0.6 card heights off, beyond where a still card's quad strays, is taken as before (the QH put
    beneath 6 as the next card shows). (The QH was seen carried off 6 and back: one never seen leave the
    stack it came from is not put down on it, ``test_a_card_lost_from_sight_on_the_stack_it_came_from...``.)"""
    from companion.vision.watcher import _Hand
    w = _clock_watcher(expected=6)
    view = GameView(expected_pile=6, face_up=frozenset({Card.parse("6S")}))
    six = Card.parse("6S")
    place = w.layout.centres[5] + 0.35 * w.h * w.layout.outward[5]
    w.table.put(TableCard(six, 6, "under", place.copy(), 1, 1))
    h = _Hand(first_frame=5)
    h.sightings = [_sighting(w, 8, 6, 0.0, False, Card.parse("QH"))]
    h.card, h.announced, h.source, h.left_source = Card.parse("QH"), True, 6, True
    h.last_pos = (6, "top")
    w.hand = h
    tangent = np.array([-w.layout.outward[5][1], w.layout.outward[5][0]])
    seen = place + off * w.h * tangent
    _hand_moves_over(w, seen)
    out = w._observe(10, 10 / 30, Detections.from_rows([_one_up(w, seen, six)]), view)
    assert bool([o for o in out if o.event[0] == "place"]) == placed
    assert (w.hand is h) == (not placed)


@pytest.mark.parametrize("pile, side, to, event", [(5, "under", "top", None), (7, "under", "top", ["move", "5S", 5, "top"]),
                                                    (5, "top", "under", ["move", "5S", 5, "under"])])
def test_a_card_lying_where_it_belongs_is_never_moved_onto_its_own_stack(pile, side, to, event):
    """The 5S lies beneath 5, where it belongs, and is seen over 5's stack (taken for picked up and put on
    top) as the next card is turned there: a correction puts a card right, never wrong, so it stays where
    it lay, no event (9076 at 1080p: a false WRONG_SIDE, then "moved" back; the KC beneath 13 alike), and
    the new place is one of its own. Lying at another pile (put there by mistake), a move onto 5's stack is
    reported as before, as is a card on top of 5 slid beneath it (the correction of a WRONG_SIDE)."""
    from companion.vision.watcher import _Hand
    w = _clock_watcher(expected=5)
    w._view = GameView(expected_pile=5)
    five = Card.parse("5S")
    place = w.layout.centres[pile - 1] + 0.35 * w.h * w.layout.outward[pile - 1]
    w.table.put(TableCard(five, pile, side, place.copy(), 1, 1))
    h = _Hand(first_frame=20, card=five, from_table=five)
    h.sightings = [_sighting(w, 20, 5, 0.02 if to == "top" else 0.4, False, five)]
    h.lying_at = (5, to)
    out = w._place(h, 22, 22 / 30)
    assert [o.event for o in out] == ([] if event is None else [event])
    if event is None:
        tc = w.table.cards[five]
        assert (tc.pile, tc.side) == (5, "under") and tc.also_at is not None
        assert tc.distance(h.last.centre) < 1.0 and tc.distance(place) < 1.0


@pytest.mark.parametrize("first_off, twice, returned", [(1.2, True, False), (1.8, False, False), (0.1, True, True),
                                                         (None, False, True)])
def test_a_card_seen_as_a_back_leaving_its_stack_is_carried_not_put_back(first_off, twice, returned):
    """The QH turned at 6, last seen over 6's stack, missing since, that stack's back seen again. Shapes
    seen face down 1.2 and then 2.8 card heights on towards 12, a look apart, or once 1.8 on: it is being
    carried (seen as a back through the blur of a fast hand), not put back face down on 6 (9076 at 1080p with
    the zoom: a false "return", then the QH "turned" at 6 again; 9078's AH alike). Seen face down where it
    was (0.1 card heights off), it was turned down there, as before (and one back seen further than a hand
    carries a card is the next card lifted there: the test above). With no shape seen at all, only once it has
    been gone as long as a card turned face down anywhere (four looks, not two: 9117's 4S, carried off fast)."""
    from companion.vision.watcher import _Hand
    w = _clock_watcher(expected=6)
    view = GameView(expected_pile=6)
    h = _Hand(first_frame=5)
    h.sightings = [_sighting(w, 10, 6, 0.0, False, Card.parse("QH"))]
    h.card, h.announced, h.source, h.missing = Card.parse("QH"), True, 6, 2
    h.last_pos = (6, "top")
    w.hand = h
    w._stacks_seen, w._fd_now = {6}, False
    way = (w.layout.centres[11] - w.layout.centres[5]) / np.linalg.norm(w.layout.centres[11] - w.layout.centres[5])
    if first_off is not None:
        for f, off in ((13, first_off), (16, first_off + 1.6))[:2 if twice else 1]:
            w.fd_recent.append((f, w._nearest_pile(h.last.centre + off * w.h * way), h.last.centre + off * w.h * way))
    if first_off is None:
        assert not w._turned_down_here(h)
        h.missing = 4
    assert w._turned_down_here(h) == returned
    if not returned:
        assert w._vanished(h, 19, 19 / 30, view) == [] and w.hand is h


@pytest.mark.parametrize("along, pos", [(-0.21, (9, "top")), (-0.3, (9, "top")), (-0.5, None), (0.1, (9, "top"))])
def test_a_card_askew_on_a_stack_towards_the_middle_lies_on_top(along, pos):
    """A card dropped on 9's stack lies askew, 0.19 card heights across and ``along`` out (negative: towards
    the middle of the clock, where no fan runs). Up to 0.35 inward it lies on top (oracle 9425: a 9S put on
    top by mistake 0.21 inward lay at no pile, and its WRONG_SIDE was never flagged); half a card inward it is
    at no pile."""
    w = _clock_watcher(expected=9)
    s = _sighting(w, 10, 9, along, False, Card.parse("9S"))
    u = w.layout.outward[8]
    s.centre = s.centre + 0.19 * w.h * np.array([-u[1], u[0]])
    assert w._lying_position(s) == pos


@pytest.mark.parametrize("back_off, returned", [(3.2, False), (0.1, True)])
def test_a_back_seen_far_off_after_the_stack_showed_is_the_card_carried_on(back_off, returned):
    """The 3C turned at 8, last seen over 8's stack, missing since; 8's stack is seen "held" twice (the hand
    over it), then a back 3.2 card heights on towards 3: the 3C carried across the clock, seen through the
    blur, not put back face down (9091 at 1080p, models: "returned" to 5, then "turned" at 8 again). With
    that last back by 8 it was turned face down there, as before."""
    from companion.vision.watcher import _Hand
    w = _clock_watcher(expected=8)
    h = _Hand(first_frame=5)
    h.sightings = [_sighting(w, 10, 8, 0.0, False, Card.parse("3C"))]
    h.card, h.announced, h.source, h.missing = Card.parse("3C"), True, 8, 3
    w.hand = h
    w._stacks_seen, w._fd_now = set(), False
    stack = w.layout.centres[7]
    w.fd_recent.append((13, 8, stack + np.array([0.3, 0.0]) * w.h))
    w.fd_recent.append((16, 8, stack.copy()))
    way = (w.layout.centres[2] - stack) / np.linalg.norm(w.layout.centres[2] - stack)
    back = stack + back_off * w.h * way
    w.fd_recent.append((19, w._pile_at(back), back))
    w._fd_last = (19, back.copy(), float(np.median(w.geometry.sizes)))
    assert w._turned_down_here(h) == returned


@pytest.mark.parametrize("code, carried, turned_down", [("TS", False, True), ("TS", True, False), ("JS", False, False)])
def test_a_card_held_still_on_the_stack_it_came_from_then_gone_was_turned_down(code, carried, turned_down):
    """The TS turned at 11 out of turn lay still over 11's stack for six looks (so it lies "on top" there),
    then was gone, 11's stack showing again: it was turned face down to be put back (9091 at 1080p, models:
    judged put on top of 11, a false WRONG_TARGET_PILE in place of the return). Carried off first and
    brought back, it lies where it was put; and a jack lies on top of its own pile (a WRONG_SIDE), as before."""
    from companion.vision.watcher import _Hand
    w = _clock_watcher(expected=10)
    h = _Hand(first_frame=5)
    h.sightings = [_sighting(w, 10, 11, 0.0, False, Card.parse(code))]
    h.card, h.announced, h.source, h.missing = Card.parse(code), True, 11, 3
    h.lying_at = h.last_pos = (11, "top")
    h.still, h.left_source = 6, carried
    w.hand = h
    w._stacks_seen, w._fd_now = {11}, False
    assert w._turned_down_here(h) == turned_down



@pytest.mark.parametrize("backs_at, source", [(12, 12), (11, 11), (None, 11)])
def test_a_card_first_seen_over_a_fan_by_its_own_back_was_lifted_there(backs_at, source):
    """A 2C first seen face up out along pile 12's fan (where a card slid beneath 12 would lie) while play is
    at 11. Its back seen just before, 0.2 card heights off, at 12: it was lifted at 12 out of turn and turned
    over there (9107 at 1080p, models: judged taken from 11, then put beneath 12, a WRONG_SOURCE_PILE and its
    return missed). Backs seen only where play is, or none: it lay there already, put down unseen, and the
    card lifted is the next one (2001's JD): it came from where play is."""
    from companion.vision.watcher import _Hand
    w = _clock_watcher(expected=11)
    h = _Hand(first_frame=10)
    card = Card.parse("2C")
    s0 = _sighting(w, 10, 12, 0.4, False, card)
    h.sightings, h.card = [s0], card
    if backs_at is not None:
        back = s0.centre - 0.2 * w.h * w.layout.outward[backs_at - 1] if backs_at == 12 else \
            w.layout.centres[backs_at - 1].copy()
        h.fd_points = [(backs_at, back)]
    assert w._lying_position(s0) == (12, "under")
    assert w._source(h) == source


@pytest.mark.parametrize("source, stray, turned_down", [(12, True, True), (12, False, True), (13, False, False)])
def test_a_card_shown_over_the_fan_of_the_pile_it_came_from_then_seen_face_down_there_went_back(
        source, stray, turned_down):
    """A 2C turned at 12 out of turn, last seen face up out along 12's fan, then seen face down there twice:
    it was turned face down to be put back, also when the last face-down shape since was 6's stack, far off,
    seen "held" as a hand passed (9107 at 1080p, models: judged carried on, then put beneath 12 when the next
    card was read; the return missed, a false WRONG_TARGET_PILE). Taken from the centre instead, it lay
    beneath 12 and the backs there are the next card lifted at 12 (9034's 3C), as before."""
    from companion.vision.watcher import _Hand
    w = _clock_watcher(expected=11)
    h = _Hand(first_frame=5)
    card = Card.parse("2C")
    s = _sighting(w, 10, 12, 0.4, False, card)
    h.sightings, h.card, h.announced, h.source, h.missing = [s], card, True, source, 5
    h.last_pos, h.left_source = (12, "under"), source != 12
    w.hand = h
    w._stacks_seen, w._fd_now = set(), False
    for f, along in ((12, 0.3), (15, 0.15)):
        w.fd_recent.append((f, 12, w.layout.centres[11] + along * w.h * w.layout.outward[11]))
    last = (15, w.fd_recent[-1][2].copy(), float(np.median(w.geometry.sizes)))
    if stray:
        w.fd_recent.append((21, 6, w.layout.centres[5].copy()))
        last = (21, w.layout.centres[5].copy(), float(np.median(w.geometry.sizes)))
    w._fd_last = last
    assert w._turned_down_here(h) == turned_down
    if turned_down:
        assert [o.event for o in w._vanished(h, 24, 0.8, GameView(expected_pile=11), force=True)] == [["return", 12]]


@pytest.mark.parametrize("left_source, want", [(False, 4), (True, 3)])
def test_a_card_never_carried_off_the_pile_it_came_from_goes_back_there(left_source, want):
    """A 2H turned at 4 out of turn (play is at 12) and shown out in 4's fan, never carried off, is gone;
    in one look its back is seen at 4 and at the neighbouring stack of 3, the last one at 4 held up, which
    the tilted view grounds nearest 3. It went back on 4, where it came from (9174 at 1080p, models:
    "returned" to 3, a false WRONG_TARGET_PILE, and the next card's turn at 4 a false WRONG_SOURCE_PILE).
    Once carried off the pile, the backs say where it went, as before."""
    from companion.vision.watcher import _Hand
    w = _clock_watcher(expected=12)
    h = _Hand(first_frame=5)
    card = Card.parse("2H")
    h.sightings = [_sighting(w, 10, 4, 0.24, False, card)]
    h.card, h.announced, h.source, h.missing, h.left_source = card, True, 4, 3, left_source
    w.hand = h
    w._stacks_seen, w._fd_now = set(), False
    at_3, at_4 = w.layout.centres[2].copy(), w.layout.centres[3] + 0.1 * w.h * w.layout.outward[3]
    w.fd_recent.extend([(13, 3, at_3), (13, 4, at_4.copy())])
    big = 1.3 * float(np.median(w.geometry.sizes))
    w._fd_last = (13, at_4.copy(), big)
    w._ground = lambda c, height: at_3.copy() if height >= big else np.asarray(c, np.float64)  # a tilted view
    out = w._vanished(h, 16, 16 / 30, GameView(expected_pile=12), force=True)
    assert [o.event for o in out] == [["return", want]]


@pytest.mark.parametrize("hand_off, explained", [(1.1, True), (0.5, False)])
def test_a_table_card_read_off_its_place_while_the_hand_holds_another_card_far_off_is_still_that_card(
        hand_off, explained):
    """The 3C lies beneath 3; a hand moves by it, and the hand card (unread) was seen at the last look
    ``hand_off`` card heights from where the 3C is read now, 0.33 card heights off its place. Far from the
    hand card, the motion is the hand's, holding that card: the reading is the 3C lying there (9112 at
    1080p, models: it was taken for the next card, and two cards judged taken from the wrong piles). Near
    the hand card, it may be the 3C being picked up: not explained by the table."""
    from companion.vision.watcher import _Hand
    w, view, place, c3 = _lying_beneath(3, "3C", moving=True)
    across = np.array([-w.layout.outward[2][1], w.layout.outward[2][0]])
    read_at = place + 0.33 * w.h * across
    h = _Hand(first_frame=1)
    hand_at = read_at + hand_off * w.h * w.layout.outward[2]
    h.sightings = [_sighting(w, 9, 3, 0.0, False)]
    h.sightings[0].centre = hand_at
    w.hand = h
    w._observe(10, 10 / 30, Detections.from_rows([_one_up(w, read_at, c3), _one_up(w, hand_at, None)]), view)
    tc = w.table.cards[c3]
    assert (tc.missing == 0) is explained
    assert float(np.linalg.norm(tc.centre - place)) < 1e-6  # its place is kept either way
    # ... and where it was read is one of its places from now on (9118: else a later unsure look there was
    # taken for a new card)
    assert (tc.also_at is not None and float(np.linalg.norm(tc.also_at - read_at)) < 1e-6) is explained


@pytest.mark.parametrize("backs_after_read, source", [(True, 2), (False, 4)])
def test_a_card_showing_as_the_last_one_is_judged_down_keeps_the_backs_seen_since_that_one_was_read(
        backs_after_read, source):
    """The 2D, read and lying beneath 2, is judged put down at the very look the next card first shows,
    unread, by 2's stack. Backs were seen lifted at 2 after the 2D was read: they were the next card lifted
    there, and it came from 2 (9112 at 1080p, models: the 4C was judged taken from 4, where it was first
    read). Backs seen only before the 2D was read were the 2D's own: nothing says where the next came from."""
    from companion.vision.watcher import _Hand
    w = _clock_watcher(expected=2)
    view = GameView(expected_pile=2)
    d2 = Card.parse("2D")
    h = _Hand(first_frame=5)
    h.sightings = [_sighting(w, 20, 2, 0.4, False, d2)]
    h.card, h.announced, h.source, h.left_source = d2, True, 7, True
    h.lying_at = h.last_pos = (2, "under")
    h.still, h.still_from, h.still_at = 5, 20, h.sightings[0].centre.copy()
    w.hand = h
    stack = w.layout.centres[1]
    frames = (24, 26) if backs_after_read else (12, 14)
    w.fd_recent.extend([(f, 2, stack + 0.1 * w.h * w.layout.outward[1]) for f in frames])
    at4 = w.layout.centres[3] + 0.6 * w.h * w.layout.outward[3]
    rows = [_one_up(w, h.sightings[0].centre, d2), _one_up(w, stack - 0.3 * w.h * w.layout.outward[1], None)]
    out = w._observe(28, 28 / 30, Detections.from_rows(rows), view)
    assert [o.event for o in out] == [["place", 2, "under"]]
    new = w.hand
    assert new is not None and new is not h
    assert ([pl for pl, _ in new.fd_points] == [2, 2]) is backs_after_read
    new.sightings.append(_sighting(w, 40, 4, 0.6, False, Card.parse("4C")))
    new.sightings[-1].centre = at4
    new.card = Card.parse("4C")
    assert w._source(new) == source


@pytest.mark.parametrize("code, looks, drift, placed", [
    ("4H", 10, 0.0, True), ("4H", 9, 0.0, False), ("4H", 10, 0.04, False), ("9H", 10, 0.0, False)])
def test_a_read_card_lying_still_by_its_own_stack_at_no_lying_place_is_put_down_there(code, looks, drift, placed):
    """A 4H read lying still 0.23 card heights out from 4's stack and 0.33 across its fan, where its quad
    fits no lying place (the detector's quad of a card slid well beneath a stack, one corner showing), for
    ``looks`` readings four frames apart: ten, over thirty frames, and it was put down beneath 4 (9119 at
    1080p, models: it lay read for a hundred frames while the next card was turned at 4, judged taken
    from 8). Fewer, or creeping by ``drift`` card heights a look, it is not. A 9H held so by 4, not its own
    pile, is a hand pausing on its way (9164 at 1080p, models: a 9H held 1.3 s over 8 on its way to 9 was
    judged put beneath 8, a false WRONG_TARGET_PILE)."""
    from companion.vision.watcher import _Hand, _Sighting
    w = _clock_watcher(expected=4)
    view = GameView(expected_pile=4)
    card = Card.parse(code)
    h = _Hand(first_frame=1)
    h.card, h.announced, h.source, h.left_source = card, True, 8, True
    h.sightings = [_sighting(w, 2, 6, 1.0, False, card)]  # carried from 8 by way of 6
    w.hand = h
    u = w.layout.outward[3]
    at = w.layout.centres[3] + w.h * (0.23 * u + 0.33 * np.array([-u[1], u[0]]))
    assert w._lying_position(_Sighting(10, 0.3, card, 0.99, at, w.geometry.pile_size_at(4, at))) is None
    out = []
    for k in range(looks):
        f = 10 + 4 * k
        out += w._observe(f, f / 30, Detections.from_rows([_one_up(w, at + k * drift * w.h * u, card)]), view)
    assert ([o.event for o in out] == [["place", 4, "under"]]) is placed


@pytest.mark.parametrize("leaning, source", [(True, 11), (False, 6)])
def test_a_card_first_seen_unsure_but_leaning_to_it_came_from_where_that_look_was(leaning, source):
    """A 6C first seen over 11's stack, its look unsure (0.85) but leaning to 6C, then read surely at 6,
    far off: that first look was the card, and it came from 11 (9114 at 1080p, models: judged taken from
    6, then from 13 by the stacks' looks). A first look leaning to nothing says nothing of it."""
    from companion.vision.watcher import _Hand
    w = _clock_watcher(expected=13)
    h = _Hand(first_frame=1)
    s0 = _sighting(w, 1, 11, 0.0, False)
    s0.leans = Card.parse("6C") if leaning else None
    h.sightings = [s0, _sighting(w, 20, 6, 0.6, False, Card.parse("6C"))]
    h.card = Card.parse("6C")
    assert w._source(h) == source


@pytest.mark.parametrize("conf, lost_at, found", [(0.98, 11, True), (0.8, 11, False), (0.98, 5, False)])
def test_a_card_read_once_and_lost_by_the_pile_the_next_came_from_was_the_card_played_unseen(conf, lost_at, found):
    """A JD read once (``conf``) over pile ``lost_at``, never announced, lost from sight (slid beneath 11,
    a sliver showing); the next card, a 6C, is taken from 11 while the centre's stack, where play was, lost
    its card too, and nothing is read lying beneath 11. Read surely and lost by 11, the JD was the card
    played unseen: its turn, reading and place come first (9114 at 1080p, models: the 6C's turn was judged
    out of turn). Unsure, or lost elsewhere, nothing is found."""
    from companion.vision.watcher import _Hand
    w = _clock_watcher(expected=13)
    w._last_put = 0
    w.stack_looks.change_since = lambda pile, frame, settled_after=None: 15.0 if pile == 13 else 0.5
    lost = _Hand(first_frame=20)
    jd = Card.parse("JD")
    lost.sightings = [_sighting(w, 28, lost_at, 0.0, False, jd)]
    lost.sightings[0].conf = conf
    w._lost.append(lost)
    h = _Hand(first_frame=80)
    h.sightings = [_sighting(w, 88, 11, 0.0, False, Card.parse("6C"))]
    h.card, h.source = Card.parse("6C"), 11
    out = w._missed_card(h, 90, 3.0, GameView(expected_pile=13))
    want = [["turn", 13], ["see", "JD"], ["place", 11, "under"]] if found else []
    assert [o.event for o in out] == want


@pytest.mark.parametrize("leans, adopted", [("6C", True), ("7D", False)])
def test_a_card_lost_from_sight_leaning_to_a_card_is_that_card_when_read(leans, adopted):
    """Seen once over pile 1, unsure (0.85) but leaning to ``leans``, lost from sight; seen again unread by
    pile 6 out of any hand's reach (a new hand card), then read there as the 6C. Leaning to the 6C, the lost
    look was this card and its trail is kept (9114 at 1080p, models: a 6C first seen over 11); leaning to
    another card, it was another card."""
    w = _clock_watcher(expected=1)
    view = GameView(expected_pile=1)
    at1 = w.layout.centres[0] + w.h * 0.35 * w.layout.outward[0]
    row = list(_one_up(w, at1, Card.parse(leans)))
    row[4] = row[5] = 0.85  # below the reading threshold, leaning to it
    w._observe(3, 0.1, Detections.from_rows([tuple(row)]), view)
    lost = w.hand
    assert lost is not None and lost.card is None and lost.sightings[0].leans == Card.parse(leans)
    for f in (5, 7, 9, 11):
        w._observe(f, f / 30, Detections.empty(), view)
    assert w.hand is None
    at6 = w.layout.centres[5] + w.h * 0.6 * w.layout.outward[5]
    w._observe(14, 14 / 30, Detections.from_rows([_one_up(w, at6, None)]), view)
    found = w.hand
    assert found is not None and found is not lost
    w._observe(15, 15 / 30, Detections.from_rows([_one_up(w, at6, Card.parse("6C"))]), view)
    assert w.hand is found and (found.first_frame == 3) is adopted


@pytest.mark.parametrize("early, want", [(2, 7), (0, 11)])
def test_backs_seen_before_the_last_card_was_judged_down_do_not_say_a_card_was_turned_at_its_own_pile(early, want):
    """A JS judged taken from 11, its own pile, while play is at 7 and 7's stack lost its card: carried there
    to be put beneath it. Seen face down at 11 twice after the card before it was judged put down, it was
    turned over there, out of turn (8993). Those backs seen before that card was judged down (it lay a while
    first) may be the JS carried face down from 7, already on its way: they do not say so (9116 at 1080p,
    models: a false WRONG_SOURCE_PILE)."""
    from companion.vision.watcher import _Hand
    w = _clock_watcher(expected=7)
    w._last_put = 100
    w.stack_looks.change_since = lambda pile, frame, settled_after=None: 15.0 if pile == 7 else None
    h = _Hand(first_frame=120)
    h.card = Card.parse("JS")
    h.sightings = [_sighting(w, 120, 11, 0.1, False, h.card)]
    back = w.layout.centres[10] + 0.1 * w.h * w.layout.outward[10]
    h.fd_points, h.fd_early = [(11, back), (11, back)], early
    assert w._source_by_stacks(11, h)[0] == want


@pytest.mark.parametrize("lay_still, missing, backs, turned_down", [
    (False, 2, 0, False), (True, 2, 0, True), (False, 2, 1, True), (False, 4, 0, True)])
def test_a_card_shown_on_its_source_stack_and_gone_two_looks_was_not_yet_turned_down(lay_still, missing, backs,
                                                                                     turned_down):
    """A 4S turned at 12, where play is, shown on 12's stack, never lying still there, then gone for two looks
    with 12's stack showing again: carried off fast, it may be seen again elsewhere (9117 at 1080p, models: it
    was judged put back face down, then read again at 4). It was turned face down there when it had lain still
    there, when its back was seen there since, or when gone as long as a card turned face down anywhere."""
    from companion.vision.watcher import _Hand
    w = _clock_watcher(expected=12)
    h = _Hand(first_frame=5)
    card = Card.parse("4S")
    h.sightings = [_sighting(w, 10, 12, 0.0, False, card)]
    h.card, h.announced, h.source, h.missing = card, True, 12, missing
    h.last_pos = (12, "top")
    h.lying_at = (12, "top") if lay_still else None
    w.hand = h
    w._stacks_seen, w._fd_now = {12}, False
    stack = w.layout.centres[11]
    w.fd_recent.extend([(12 + k, 12, stack.copy()) for k in range(backs)])
    assert w._turned_down_here(h) == turned_down


@pytest.mark.parametrize("put_at, across, settled", [(100, 0.0, True), (100, 1.0, False), (40, 0.0, False)])
def test_a_shape_come_to_rest_by_the_card_just_put_down_there_is_that_card(put_at, across, settled):
    """The 2H was judged put beneath 2 at frame ``put_at`` as it slid in, its place taken ``across`` card
    heights to the side of its fan; an unread shape then lies still beneath 2, 0.55 card heights further out,
    for four looks from frame 105, the 2H unseen since. It is the 2H come to rest: the hand lets it go and the
    2H's place moves there (9113 at 1080p, models: the AS turned at 2 next continued the shape's trail, judged
    taken from 3 and put beneath 2). More than a card height off, or the 2H put down long before the shape
    came to rest, it is not."""
    from companion.vision.table_model import TableCard
    w = _clock_watcher(expected=2)
    view = GameView(expected_pile=2, face_up=frozenset({Card.parse("2H")}))
    u = w.layout.outward[1]
    side = np.array([-u[1], u[0]])
    place = w.layout.centres[1] + 0.35 * w.h * u + across * w.h * side
    w.table.put(TableCard(Card.parse("2H"), 2, "under", place.copy(), put_at, put_at))
    shape = w.layout.centres[1] + 0.9 * w.h * u
    _still_frames(w)
    for k in range(6):
        f = 105 + 3 * k
        w._observe(f, f / 30, Detections.from_rows([_one_up(w, shape, None)]), view)
    tc = w.table.cards[Card.parse("2H")]
    assert (w.hand is None) is settled
    assert (float(np.linalg.norm(tc.centre - shape)) < 0.01) is settled


@pytest.mark.parametrize("then, want", [
    ("turned down", [["turn", 8], ["see", "AS"], ["return", 8]]),
    ("carried off", [["turn", 8], ["see", "AS"]]),
    ("stays", [["turn", 8], ["see", "AS"], ["place", 8, "under"]])])
def test_a_card_shown_out_in_the_fan_of_the_pile_it_came_from_is_not_put_down_there_until_it_stays(then, want):
    """An AS lifted face down at 8 (its back seen there) is held still half a card height out in 8's fan for
    nine looks as it is shown, then,
    turning over, seen unread there with a second unread shape 0.4 card heights off, then gone with backs
    seen at 8: it was put back face down on 8 (9123 at 1080p, models: an AS turned at 8 out of turn, held
    there 0.4 s, was judged put beneath 8 after three looks, a false WRONG_TARGET_PILE, the return missed).
    Carried off from there, it never lay there. No card is put beneath the pile it was just taken from out
    of turn unless it stays: one lying there ``side_wait`` looks, the hand gone from it, is put down there.
    (A card first seen already lying there, nothing seen of where it came from, is put down at once: see
    ``test_an_unread_shape_found_again_after_a_while_must_lie_still_again``.)"""
    w = _clock_watcher(expected=8)
    view = GameView(expected_pile=8)
    card = Card.parse("AS")
    u = w.layout.outward[7]
    at = w.layout.centres[7] + 0.5 * w.h * u
    _still_frames(w)
    w.fd_recent.append((0, 8, w.layout.centres[7] + 0.2 * w.h * u))
    events = []
    for f in range(1, 10):
        events += [o.event for o in w._observe(f, f / 30, Detections.from_rows([_one_up(w, at, card)]), view)]
    assert events == want[:2]
    if then == "turned down":
        turning = at + 0.4 * w.h * np.array([-u[1], u[0]])
        rows = [_one_up(w, at, None), _one_up(w, turning, None)]
        events += [o.event for o in w._observe(10, 10 / 30, Detections.from_rows(rows), view)]
        for f in range(11, 20):
            if f in (13, 16):
                w.fd_recent.append((f, 8, at.copy()))
            events += [o.event for o in w._observe(f, f / 30, Detections.empty(), view)]
    elif then == "carried off":
        towards_1 = (w.layout.centres[0] - at) / np.linalg.norm(w.layout.centres[0] - at)
        for k, f in enumerate(range(10, 13)):
            c = at + 0.4 * (k + 1) * w.h * towards_1
            events += [o.event for o in w._observe(f, f / 30, Detections.from_rows([_one_up(w, c, card)]), view)]
        assert w.hand is not None and w.hand.card == card and w.hand.from_table is None
    else:
        _hand_moves_over(w, at + np.array([0.0, 0.6 * w.h]))  # the hand letting go of it, leaving
        w._note_stirred(10)
        for f in range(10, 20):
            events += [o.event for o in w._observe(f, f / 30, Detections.from_rows([_one_up(w, at, card)]), view)]
    assert events == want


@pytest.mark.parametrize("play_at, want", [
    (7, [["turn", 8], ["see", "AS"], ["return", 8]]),
    (8, [["turn", 8], ["see", "AS"], ["place", 8, "under"]])])
def test_a_card_turned_out_of_turn_and_shown_in_that_piles_fan_is_not_put_down_there(play_at, want):
    """An AS first seen held up by 8's stack with both indices (turned over there; no back seen), then lying
    0.4 card heights out in 8's fan for four looks, then turning over and gone with backs seen at 8. Play was
    at 7: it was turned out of turn and shown there, then put back face down (9163 at 1080p, models: a QC
    turned at 11 by mistake lay so in 11's fan and was judged put beneath 11 after three looks, a false
    WRONG_TARGET_PILE and the return missed). Play was at 8: a card taken where play is and lying still
    beneath that same pile, not its own, was put there by mistake, flagged as soon as it lies still and the
    hand has let go of it (``_still_held``)."""
    w = _clock_watcher(expected=play_at)
    view = GameView(expected_pile=play_at)
    card = Card.parse("AS")
    u = w.layout.outward[7]
    held, lying = w.layout.centres[7] + 0.3 * w.h * u, w.layout.centres[7] + 0.4 * w.h * u
    _still_frames(w)
    events = []
    for f in (3, 6):  # a look every third frame, as while a hand moves
        events += [o.event for o in w._observe(f, f / 30, Detections.from_rows([_one_up(w, held, card) + (True,)]), view)]
    for f in (9, 12, 15, 18):
        if f == 15:  # the hand moving by it (letting go of it, or about to turn it over)
            _hand_moves_over(w, lying + np.array([0.0, 0.6 * w.h]))
            w._note_stirred(14)
        events += [o.event for o in w._observe(f, f / 30, Detections.from_rows([_one_up(w, lying, card) + (False,)]), view)]
    turning = lying + 0.4 * w.h * np.array([-u[1], u[0]])
    rows = [_one_up(w, lying, None) + (False,), _one_up(w, turning, None) + (False,)]
    events += [o.event for o in w._observe(21, 21 / 30, Detections.from_rows(rows), view)]
    for f in range(24, 60, 3):
        if f in (27, 30):
            w.fd_recent.append((f, 8, lying.copy()))
        events += [o.event for o in w._observe(f, f / 30, Detections.empty(), view)]
    assert events == want


@pytest.mark.parametrize("first_sure, named", [(True, None), (False, "2C")])
def test_a_look_read_surely_as_a_card_lends_its_rank_to_no_other_card(first_sure, named):
    """The 2H lies face up beneath 2. A hand card's first look is read surely as 2H (the hand passing over
    it), then three blurred looks lean to a 2 a little and to clubs much: added up with the 2H's rank they
    would name the hand card 2C (9126 at 1080p, models: the 8S lifted at 2 over the 2H just put there was
    announced as 2C). A sure reading leans to its own card alone, and no look leaned to a 2 of another
    suit: no card is named. An unsure first look, leaning to 2H, lends its 2 as before."""
    from companion.vision.table_model import TableCard
    from companion.vision.watcher import _Hand
    w = _clock_watcher(expected=2)
    two_h = Card.parse("2H")
    view = GameView(expected_pile=2, face_up=frozenset({two_h}))
    w.table.put(TableCard(two_h, 2, "under", w.layout.centres[1] + 0.35 * w.h * w.layout.outward[1], 5, 5))
    h = w.hand = _Hand(first_frame=10)
    rank_sure, suit_sure = np.full(13, 0.02 / 12), np.full(4, 0.02 / 3)
    rank_sure[1], suit_sure[2] = 0.98, 0.98
    rank_lean, suit_lean = np.full(13, 0.4 / 12), np.full(4, 0.4 / 3)
    rank_lean[1], suit_lean[2] = 0.6, 0.6
    rank_blur, suit_blur = np.full(13, 0.7 / 12), np.array([0.9, 0.04, 0.02, 0.04])
    rank_blur[1] = 0.3
    at = w.layout.centres[1] + 1.5 * w.h * w.layout.outward[1]
    first = ((two_h, 0.98), rank_sure, suit_sure) if first_sure else ((None, 0.6), rank_lean, suit_lean)
    looks = [first] + [((None, 0.2), rank_blur, suit_blur)] * 3
    for k, (read, rank_p, suit_p) in enumerate(looks):
        c = at + 0.5 * k * w.h * np.array([1.0, 0.0])
        w._track(h, 10 + 3 * k, (10 + 3 * k) / 30, read, c, 100.0, view, set(), 0.714, rank_p, suit_p)
    assert h.card == (None if named is None else Card.parse(named))


def _six_carried_towards_9(w: Watcher, view: GameView):
    """A 6S read at the centre (two looks) and carried half way to a place 0.25 card heights inward of pile
    9's stack, a hand moving over it at each look. Returns the card, that place and the events so far."""
    return _six_carried_to(w, view, w.layout.centres[8] - 0.25 * w.h * w.layout.outward[8])


def _six_carried_to(w: Watcher, view: GameView, rest):
    """A 6S read at the centre (two looks) and carried half way to ``rest``, a hand moving over it at each
    look. Returns the card, ``rest`` and the events so far."""
    six = Card.parse("6S")
    centre = w.layout.centres[12]
    out = []
    for f, at in ((1, centre), (2, centre), (3, (centre + rest) / 2)):
        _hand_moves_over(w, at)
        out += w._observe(f, f / 30, Detections.from_rows([_one_up(w, at, six)]), view)
    return six, rest, out


def _rows_at(w: Watcher, rest, card: Card, both: bool | None) -> Detections:
    """``card`` seen at ``rest``; ``both``: whether both its indices show (None: the recogniser does not say)."""
    row = _one_up(w, rest, card)
    return Detections.from_rows([row if both is None else (*row, both)])


def _rest_still(w: Watcher, view: GameView, card: Card, rest, looks: int = 8, first: int = 4,
                both: bool | None = None):
    """``card`` seen at ``rest`` for ``looks`` looks three frames apart from frame ``first``, nothing moving
    anywhere (each frame's ``_note_stirred`` as the watcher's loop does). Returns the observations."""
    out = []
    for k in range(looks):
        f = first + 3 * k
        _still_frames(w, 1)
        w._note_stirred(f)
        out += w._observe(f, f / 30, _rows_at(w, rest, card, both), view)
    return out


def _let_go(w: Watcher, view: GameView, card: Card, rest, frame: int = 28, both: bool | None = None):
    """Something moves by ``rest`` at ``frame`` (the hand letting go of ``card`` and leaving), then a still
    look at ``frame + 1`` sees the card there. Returns the observations."""
    _hand_moves_over(w, rest + np.array([0.0, 0.6 * w.h]))
    w._note_stirred(frame)
    _still_frames(w, 1)
    return w._observe(frame + 1, (frame + 1) / 30, _rows_at(w, rest, card, both), view)


@pytest.mark.parametrize("then", ["nothing", "stirs"])
def test_a_card_come_to_rest_inward_of_a_stack_with_nothing_stirring_is_still_held(then):
    """A 6S read at the centre, carried off and come to rest 0.25 card heights inward of pile 9's stack,
    with nothing moving anywhere: a hand pausing on its way holds it there (9130 at 1080p, models: the 6S
    held 2 s by the stack of 6 on its way, judged put on top of 6, a false WRONG_SIDE). Not put down for as
    long as nothing stirs by it; something moving by it after it came to rest (the hand letting go) and it
    is put there at the next look."""
    w = _clock_watcher(expected=13)
    view = GameView(expected_pile=13)
    six, rest, out = _six_carried_towards_9(w, view)
    assert w.hand is not None and w.hand.card == six and w.hand.source == 13
    out += _rest_still(w, view, six, rest)  # 0.8 s still by the stack, its stack hidden
    assert not any(o.event[0] == "place" for o in out)
    if then == "nothing":
        return
    out += _let_go(w, view, six, rest)
    assert [o.event for o in out if o.event[0] == "place"] == [["place", 9, "top"]]


@pytest.mark.parametrize("pile, along, side", [(9, 0.6, "under"), (6, 0.0, "top"), (9, 0.0, "top"),
                                              (6, 0.6, None)])
@pytest.mark.parametrize("then", ["nothing", "stirs"])
def test_a_read_card_come_to_rest_where_a_pause_looks_like_a_put_down_is_held_until_something_stirs(
        pile, along, side, then):
    """A 6S read at the centre and carried off comes to rest, nothing moving anywhere: out in another
    pile's fan (9's), or square on top of a stack (its own, 6's, or 9's). A hand pausing there on its way
    looks the same as one that put it down (9171 at 1080p, models: an 8D held 1.8 s over 7's fan on its way
    to 8, judged put beneath 7, a false WRONG_TARGET_PILE; 9178's 3S held 1.8 s above its own stack, judged
    put on top, a false WRONG_SIDE): still held for as long as nothing stirs by it, put there at the next
    look once something does (the hand letting go). Out beneath its own pile (``side`` None) it is put
    down as it comes to rest, stirring or not."""
    w = _clock_watcher(expected=13)
    view = GameView(expected_pile=13)
    rest = w.layout.centres[pile - 1] + along * w.h * w.layout.outward[pile - 1]
    six, rest, out = _six_carried_to(w, view, rest)
    assert w.hand is not None and w.hand.card == six and w.hand.source == 13
    out += _rest_still(w, view, six, rest)
    placed = [o.event for o in out if o.event[0] == "place"]
    assert placed == ([] if side is not None else [["place", 6, "under"]])
    if then == "nothing" or side is None:
        return
    out += _let_go(w, view, six, rest)
    assert [o.event for o in out if o.event[0] == "place"] == [["place", pile, side]]


@pytest.mark.parametrize("both", [True, False])
@pytest.mark.parametrize("then", ["nothing", "stirs"])
def test_a_card_held_close_over_its_own_stack_is_held_until_something_stirs(then, both):
    """A 6S read at the centre and carried off comes to rest 0.25 card heights out from its own stack, both
    its indices showing at every look (above the stack, in full view), nothing moving anywhere: a hand
    pausing there before sliding it beneath looks like one that put it on top (9177 at 1080p, models: a 9C
    held 2 s 0.24 card heights out over its stack, both indices showing, then slid beneath it, a false
    WRONG_SIDE). Held while nothing stirs by it; once something does (the hand letting go), put on top at
    the next look. Showing one index only it lies beneath, and is put down as it comes to rest."""
    w = _clock_watcher(expected=13)
    view = GameView(expected_pile=13)
    rest = w.layout.centres[5] + 0.25 * w.h * w.layout.outward[5]
    six, rest, out = _six_carried_to(w, view, rest)
    out += _rest_still(w, view, six, rest, both=both)
    assert w.hand is None or w.hand.last_pos == (6, "near")
    placed = [o.event for o in out if o.event[0] == "place"]
    assert placed == ([] if both else [["place", 6, "under"]])
    if then == "nothing" or not both:
        return
    out += _let_go(w, view, six, rest, both=both)
    assert [o.event for o in out if o.event[0] == "place"] == [["place", 6, "top"]]


@pytest.mark.parametrize("along", [0.0, 0.6])
def test_a_card_held_still_on_its_way_then_lost_from_sight_was_not_put_down_there(along):
    """A 6S read at the centre, carried off and held still at 7 (on its stack, or out in its fan), nothing
    stirring by it; then gone from sight as an unread shape shows elsewhere, and read beneath its own pile
    next: it was carried on, never put down at 7 (9184 at 1080p, models: a JS held 1.4 s over the centre on
    its way from 4 to 11, judged put beneath 13 when it showed half way to 11, a false WRONG_TARGET_PILE;
    9175's AS likewise at 11 on its way to 1)."""
    w = _clock_watcher(expected=13)
    view = GameView(expected_pile=13)
    rest = w.layout.centres[6] + along * w.h * w.layout.outward[6]
    six, rest, out = _six_carried_to(w, view, rest)
    out += _rest_still(w, view, six, rest)
    assert w.hand is not None and w.hand.card == six and not any(o.event[0] == "place" for o in out)
    _hand_moves_over(w, rest)  # carried on: gone from 7, an unread shape at 3
    w._note_stirred(28)
    out += w._observe(28, 28 / 30, Detections.from_rows(
        [_one_up(w, w.layout.centres[2] + 0.6 * w.h * w.layout.outward[2])]), view)
    beneath_6 = w.layout.centres[5] + 0.6 * w.h * w.layout.outward[5]
    for f in range(31, 47, 3):
        _still_frames(w, 1)
        w._note_stirred(f)
        out += w._observe(f, f / 30, Detections.from_rows([_one_up(w, beneath_6, six)]), view)
    assert [o.event for o in out if o.event[0] in ("place", "move")] == [["place", 6, "under"]]


def _lying_still_in(w: Watcher, view: GameView, picture: np.ndarray, card: Card, rest) -> list:
    """``card`` seen at ``rest`` at a look every three frames from frame 4 to 25, each frame ``picture``
    (nothing moving). Returns the observations."""
    out = []
    for f in range(4, 28, 3):
        for _ in range(2):  # (the same picture again: nothing moves)
            w.gate.update(picture)
            w._pile_motion_update(picture)
        w._note_stirred(f)
        out += w._observe(f, f / 30, Detections.from_rows([_one_up(w, rest, card)]), view)
    return out


@pytest.mark.parametrize("hand_there", [True, False])
def test_a_card_come_to_rest_with_no_hand_by_it_is_not_held(hand_there):
    """A 6S read at the centre and carried off comes to rest out in 7's fan, nothing moving anywhere. With a
    hand beside it that was not there when the card was first seen (taken at the centre), a hand
    pausing with it holds it: not put down. With the table around it as it was when the card was first
    seen, the hand has gone (it left as the card came to rest): put down as it comes to rest (oracle 10018
    at 640x360: a KH put beneath 11 by mistake, held 0.9 s until the next hand came by, a verdict 900 ms
    late)."""
    w = _clock_watcher(expected=13)
    view = GameView(expected_pile=13)
    rest = w.layout.centres[6] + 0.6 * w.h * w.layout.outward[6]
    six, rest, out = _six_carried_to(w, view, rest)
    table = np.full((720, 1280, 3), 90, np.uint8)
    w.gate.update(table)
    w._greys.append((w.hand.first_frame, w.gate.prev))  # (as ``update`` keeps every frame's)
    now = table.copy()
    if hand_there:  # a hand by the card, 1.2 card heights from its centre
        x, y = (rest + 1.2 * w.h * np.array([1.0, 0.0])).astype(int)
        now[y - 50:y + 50, x - 30:x + 30] = 200
    out += _lying_still_in(w, view, now, six, rest)
    assert [o.event for o in out if o.event[0] == "place"] == ([] if hand_there else [["place", 7, "under"]])


@pytest.mark.parametrize("hand_there", [False, True])
def test_an_arm_across_the_card_s_place_as_it_was_taken_does_not_keep_it_held(hand_there):
    """A 6S read at the centre and carried off comes to rest out in 7's fan, nothing moving anywhere. Since
    the last card was put down the table by 7 was bare a while, then an arm reached across it, still there
    in the frame the 6S was first seen in; before that last put a hand stood where one stands now by the
    card. With the table bare by the card now it looks as it did once since the last put: the hand has gone,
    and the card is put down (oracle 10056 at 640x360: a 6S taken at 10, the arm reaching for 10 across the
    table by 7 in its first look, held 533 ms beneath 7). With a hand by it, it looks as it did only before
    the last put (another card's hand pausing there, which says nothing of this one's): still held."""
    w = _clock_watcher(expected=13)
    view = GameView(expected_pile=13)
    rest = w.layout.centres[6] + 0.6 * w.h * w.layout.outward[6]
    six, rest, out = _six_carried_to(w, view, rest)
    table = np.full((720, 1280, 3), 90, np.uint8)
    with_hand, with_arm = table.copy(), table.copy()
    x, y = (rest + 1.2 * w.h * np.array([1.0, 0.0])).astype(int)  # a hand by the card
    with_hand[y - 50:y + 50, x - 30:x + 30] = 200
    x0, x1 = (rest[0] + np.array([0.9, 1.5]) * w.h).astype(int)  # an arm across the table by it
    with_arm[:int(rest[1] + 2 * w.h), x0:x1] = 200
    first = w.hand.first_frame
    w._last_put = first - 20
    for f, picture in [(first - 30 + k, with_hand) for k in range(10)] + [
            (first - 20 + k, table) for k in range(10)] + [(first - 10 + k, with_arm) for k in range(11)]:
        w.gate.update(picture)
        w._greys.append((f, w.gate.prev))  # (as ``update`` keeps every frame's)
    now = with_hand if hand_there else table
    out += _lying_still_in(w, view, now, six, rest)
    assert [o.event for o in out if o.event[0] == "place"] == ([] if hand_there else [["place", 7, "under"]])


@pytest.mark.parametrize("first_seen_out", [0.6, 2.6, 3.6])
def test_a_card_first_seen_where_it_comes_to_rest_is_held_by_the_hand_seen_with_it(first_seen_out):
    """A 6S first seen and read ``first_seen_out`` card heights out along 7's axis, held by a hand that does
    not move (the same picture throughout), then seen at rest 0.6 card heights out in 7's fan. First seen
    there, the picture it was first seen in has the hand holding it too: that the table looks the same says
    nothing of the hand having gone, and it is held, not put down (9183 at 1080p, models: a 2S held 1.8 s
    over the centre's fan where it was first seen, on its way to 2, judged put beneath 13, a false
    WRONG_TARGET_PILE). First seen two or three card heights off (beyond the ring), that picture shows the
    table there bare: put down (the hand in the picture now never moved, but it is no hand by the card;
    oracle 10051's KH, let go 2.1 card heights from its first look)."""
    w = _clock_watcher(expected=13)
    view = GameView(expected_pile=13)
    six = Card.parse("6S")
    rest = w.layout.centres[6] + 0.6 * w.h * w.layout.outward[6]
    first = w.layout.centres[6] + first_seen_out * w.h * w.layout.outward[6]
    picture = np.full((720, 1280, 3), 90, np.uint8)
    x, y = (first + 1.2 * w.h * np.array([1.0, 0.0])).astype(int)  # the hand holding it where first seen
    picture[max(y - 50, 0):y + 50, max(x - 30, 0):x + 30] = 200
    out = []
    for f in range(1, 28):
        w.gate.update(picture)
        w._pile_motion_update(picture)
        w._greys.append((f, w.gate.prev))  # (as ``update`` keeps every frame's)
        w._note_stirred(f)
        if f <= 2 or f % 3 == 1:
            at = first if f <= 2 else rest
            out += w._observe(f, f / 30, Detections.from_rows([_one_up(w, at, six)]), view)
    assert [o.event for o in out if o.event[0] == "place"] == ([] if first_seen_out < 1 else [["place", 7, "under"]])


@pytest.mark.parametrize("moved", [False, True])
def test_a_table_card_being_moved_is_not_held_as_a_pause_on_the_way(moved):
    """A card at rest on top of a stack, nothing stirring by it since: the card in play is still held (a pause
    on its way); a table card being moved is not (9181 at 1080p, models: the 8S lying on top of its own stack,
    taken for moved as a hand passed over it and held so, changed the start of the next card's trail, and the
    4H turned next out of turn was judged taken where play was)."""
    from companion.vision.watcher import _Hand
    w = _clock_watcher(expected=13)
    six = Card.parse("6S")
    _still_frames(w, 2)  # (motion measured: nothing moving)
    h = _Hand(first_frame=1, card=six, from_table=six if moved else None, announced=True)
    h.rest_t = 0.1
    assert w._still_held(h, (9, "top"), 0.5) is not moved


@pytest.mark.parametrize("moving_looks, placed", [(1, False), (3, True)])
def test_motion_as_a_card_comes_to_rest_is_no_hand_letting_go(moving_looks, placed):
    """A 6S read at the centre, carried off and come to rest 0.25 card heights inward of pile 9's stack,
    something moving by it at its first look there only (the hand slowing into a pause, or turning the card
    over where it pauses), nothing after: still held (9172 at 1080p, models: a 4H shown 0.28 inward of 10's
    stack, "stirred" by its own turning over, judged put on top of 10). Something still moving by it once it
    has been seen lying still (the hand letting go and leaving): put there."""
    w = _clock_watcher(expected=13)
    view = GameView(expected_pile=13)
    six, rest, out = _six_carried_towards_9(w, view)
    f = 4
    for k in range(8):
        if k < moving_looks:
            _hand_moves_over(w, rest + np.array([0.0, 0.3 * w.h]))
        else:
            _still_frames(w, 1)
        w._note_stirred(f)
        out += w._observe(f, f / 30, Detections.from_rows([_one_up(w, rest, six)]), view)
        f += 3
    assert any(o.event == ["place", 9, "top"] for o in out) is placed


@pytest.mark.parametrize("seed", [3, 4])
def test_play_going_on_past_a_card_asked_for_is_followed(seed):
    """The second card of the game cannot be read at all: the watcher asks for it, and the player goes on
    without showing it. Every card after it is still followed, in order (9136 and 9142 at 1080p, models:
    an unread shape lying at 12 held the hand to the end, and the game was left unfinished; here, seed 4
    was followed no further than its first card)."""
    game = RenderedGame(seed, mistakes=0, max_moves=10)
    secret = Card.parse(game.truth["moves"][1]["card"])
    res, got = _run(game, recognise=_unreadable(game, secret))
    assert any(ln["event"][0] == "ask" for ln in res.events())
    seen = [ev[1] for ev, _ in got if ev[0] == "see"]
    want = [ev[1] for ev, _ in game.expected() if ev[0] == "see" and ev[1] != str(secret)]
    assert seen == want


@pytest.mark.parametrize("rest_looks, next_looks, face_up_already, placed",
                         [(6, 2, False, True), (6, 1, False, False), (6, 2, True, False), (2, 2, False, False)])
def test_the_next_card_read_turning_at_a_stack_puts_down_a_hand_card_that_never_lay_still(
        rest_looks, next_looks, face_up_already, placed):
    """A TD read beneath 10, 0.9 card heights out, but seen 0.1 card heights about at every look (half
    under the hand that turns the next card there), so never lying still, for ``rest_looks`` looks three
    frames apart; then the KD is read at 10's stack in ``next_looks`` looks. Twice, after the TD rested there
    18 frames, the next card is being turned: the TD was put down beneath 10, and the KD's turn comes from
    10 (9142 at 1080p, models: the TD was held to the end of its pause, and the KD, by then carried towards
    13, judged taken from 13). Once may be a table card misread; a card face up already is no next card; a
    hand card come there 6 frames before may still be on its way (9131's TH, two frames after it was read)."""
    from companion.vision.watcher import _Hand
    w = _clock_watcher(expected=10)
    kd, td = Card.parse("KD"), Card.parse("TD")
    view = GameView(expected_pile=10, face_up=frozenset({td, kd} if face_up_already else {td}))
    h = _Hand(first_frame=1)
    h.card, h.announced, h.source, h.left_source = td, True, 3, True
    h.sightings = [_sighting(w, 2, 11, 1.0, False, td)]  # carried from 3 by way of 11
    w.hand = h
    u = w.layout.outward[9]
    across = np.array([-u[1], u[0]])
    out, f = [], 10
    for k in range(rest_looks + next_looks + 3):
        at = w.layout.centres[9] + w.h * (0.9 * u + (0.1 if k % 2 else -0.1) * across)
        rows = [_one_up(w, at, td)]
        if rest_looks <= k < rest_looks + next_looks:  # turned over at 10's stack
            rows.append(_one_up(w, w.layout.centres[9] + 0.25 * w.h * u, kd))
        elif k >= rest_looks + next_looks and next_looks > 1:  # then carried on towards 13
            rows.append(_one_up(w, w.layout.centres[9] - 0.5 * (k - rest_looks - next_looks + 1.5) * w.h * u, kd))
        out += w._observe(f, f / 30, Detections.from_rows(rows), view)
        f += 3
    events = [o.event for o in out]
    assert (["place", 10, "under"] in events) is placed
    if placed:
        assert events[events.index(["place", 10, "under"]) + 1] == ["turn", 10]


@pytest.mark.parametrize("read_at, placed", [(7, False), (8, True)])
def test_a_table_card_read_off_its_place_in_its_own_fan_does_not_put_down_a_card_held_still(read_at, placed):
    """A 9S held still between the piles on its way from 5 to 9 (at no lying place) while the 7S, lying
    beneath 7 where the table model has it 1.05 card heights out, is read 0.35 card heights out in 7's fan:
    that is the 7S seen off its place, not the next card, and the 9S is not judged put down (9136 at 1080p,
    models: put beneath 7, a false WRONG_TARGET_PILE). Read so in 8's fan, it stays what it was: a card
    read elsewhere, and the card held still is put down at the pile nearest it, as before."""
    from companion.vision.watcher import _Hand, _Sighting
    w = _clock_watcher(expected=9)
    seven, nine = Card.parse("7S"), Card.parse("9S")
    view = GameView(expected_pile=9, face_up=frozenset({seven, nine}))
    u7 = w.layout.outward[6]
    w.table.put(TableCard(seven, 7, "under", w.layout.centres[6] + 1.05 * w.h * u7, 1, 1))
    h = _Hand(first_frame=1)
    h.card, h.announced, h.source, h.left_source = nine, True, 5, True
    h.sightings = [_sighting(w, 2, 6, 1.0, False, nine)]
    w.hand = h
    held = w.layout.centres[6] - 0.6 * w.h * u7  # inward of 7's stack, towards the centre
    assert w._lying_position(_Sighting(10, 0.3, nine, 0.99, held, w.geometry.pile_size_at(7, held))) is None
    out = []
    for k in range(4):
        out += w._observe(10 + 3 * k, (10 + 3 * k) / 30, Detections.from_rows([_one_up(w, held, nine)]), view)
    assert w.hand is h and h.idle >= 3 and not out
    seen = w.layout.centres[read_at - 1] + 0.35 * w.h * w.layout.outward[read_at - 1]
    out = w._observe(22, 22 / 30, Detections.from_rows([_one_up(w, held, nine), _one_up(w, seen, seven)]), view)
    assert bool([o for o in out if o.event[0] == "place"]) is placed


def _nine_held_still(face_up: frozenset):
    """A clock watcher (play at 9) whose hand holds a 9S taken from 5, seen carried off and then held still for
    four looks inward of 7's stack, at no lying place. Returns the watcher, its view, the hand and where it is held."""
    from companion.vision.watcher import _Hand
    w = _clock_watcher(expected=9)
    nine = Card.parse("9S")
    view = GameView(expected_pile=9, face_up=face_up)
    h = _Hand(first_frame=1)
    h.card, h.announced, h.source, h.left_source = nine, True, 5, True
    h.sightings = [_sighting(w, 2, 6, 1.0, False, nine)]
    w.hand = h
    held = w.layout.centres[6] - 0.6 * w.h * w.layout.outward[6]
    for k in range(4):
        assert not w._observe(10 + 3 * k, (10 + 3 * k) / 30, Detections.from_rows([_one_up(w, held, nine)]), view)
    assert w.hand is h and h.idle >= 3
    return w, view, h, held


def test_a_card_held_still_then_missing_from_its_place_is_not_put_down_by_the_next_card_read():
    """A 9S held still between the piles on its way from 5 to 9, then missing from its place at the look
    where another card is read in 8's fan: it may have been carried on and be the card read (9174 at 1080p,
    models: a 5H held 2.3 s between the piles, then carried on and read once as 6H, was judged put beneath
    6, a false WRONG_TARGET_PILE). Not put down; seen at its place again with the other card read, it is
    put down at the pile nearest it, as before."""
    seven = Card.parse("7S")
    w, view, h, held = _nine_held_still(frozenset({seven, Card.parse("9S")}))
    nine = h.card
    seen = w.layout.centres[7] + 0.35 * w.h * w.layout.outward[7]
    out = w._observe(22, 22 / 30, Detections.from_rows([_one_up(w, seen, seven)]), view)
    assert not [o for o in out if o.event[0] == "place"] and w.hand is h
    out = w._observe(25, 25 / 30, Detections.from_rows([_one_up(w, held, nine), _one_up(w, seen, seven)]), view)
    assert [o.event for o in out if o.event[0] == "place"] == [["place", 7, "under"]]


@pytest.mark.parametrize("off, placed", [(0.2, False), (1.0, True)])
def test_a_card_read_right_by_the_card_held_still_is_that_card_misread(off, placed):
    """A 9S held still between the piles on its way from 5 to 9; at the next look a second shape ``off``
    card heights from it is read surely as 6H (a card that can be new). So close, it is the 9S misread and
    the 9S is not put down (9189 at 1080p, models: a 5H held 2 s beside 4 on its way to 5, read once as 6H
    0.2 card heights off, was judged put beneath 4, a false WRONG_TARGET_PILE). A card height off, it is
    the next card read, and the 9S was put down at the pile nearest it, as before."""
    w, view, h, held = _nine_held_still(frozenset({Card.parse("9S")}))
    nine, six = h.card, Card.parse("6H")
    other = held + off * w.h * np.array([1.0, 0.0])
    out = w._observe(22, 22 / 30, Detections.from_rows([_one_up(w, held, nine), _one_up(w, other, six)]), view)
    assert bool([o for o in out if o.event[0] == "place"]) is placed


def _one_down(w: Watcher, point):
    """A face-down detection centred at ``point`` (upright, lying-card size)."""
    row = list(_one_up(w, point))
    row[2:7] = [0, -1, 0.0, 0.0, False]
    return tuple(row)


def _qd_put_back_at_2(w: Watcher, stack_3_shows: bool) -> list:
    """A QD turned at 2 out of turn (play is at 1), last seen face up half a card height out over 2's stack,
    then turned face down and laid back there: its back seen 0.5, 0.3, 0.2 and 0.05 card heights out over
    four looks, and (``stack_3_shows``) 3's stack coming back into view 0.17 card heights off its place in
    the second and third, listed after it. Returns the events."""
    from companion.vision.watcher import _Hand
    qd = Card.parse("QD")
    h = _Hand(first_frame=1)
    h.sightings = [_sighting(w, 10, 2, 0.5, False, qd)]
    h.card, h.announced, h.source = qd, True, 2
    w.hand = h
    u2, u3 = w.layout.outward[1], w.layout.outward[2]
    out = []
    for k, along in enumerate((0.5, 0.3, 0.2, 0.05)):
        rows = [_one_down(w, w.layout.centres[1] + along * w.h * u2)]
        if stack_3_shows and k in (1, 2):
            rows.append(_one_down(w, w.layout.centres[2] + 0.17 * w.h * u3))
        f = 13 + 3 * k
        out += w._observe(f, f / 30, Detections.from_rows(rows), w._view)
    return [o.event for o in out]


@pytest.mark.parametrize("stack_3_shows", [False, True])
def test_a_card_put_back_is_followed_by_its_own_back_not_a_stack_come_into_view(stack_3_shows):
    """The QD laid back face down on 2 is put back at 2, whether or not 3's stack, hidden by the hand till
    then, is seen "held" beside it in the same looks (9147 at 1080p, models: "returned" to 3, a false
    WRONG_TARGET_PILE, and the QD's later turn at 2 a false DUPLICATE_CARD)."""
    w = _clock_watcher(expected=1)
    assert _qd_put_back_at_2(w, stack_3_shows) == [["return", 2]]


@pytest.mark.parametrize("gap, source", [(3, 1), (24, 2)])
def test_a_back_settling_where_a_card_was_just_put_back_is_not_the_next_card_lifted(gap, source):
    """``gap`` frames after the QD was put back at 2, a back is seen 0.3 card heights off 2's stack, and the
    next card is first seen unread between 1 and 2 (in 1's zone, within reach of that back), then read as
    the 3H by 1, where play is. Three frames after, the back is the QD settling: the 3H's turn comes from 1
    (9147 at 1080p, models: judged taken from 2, a false WRONG_SOURCE_PILE). 24 frames after, it is a card
    lifted at 2, as before: the turn is judged from 2."""
    w = _clock_watcher(expected=1)
    assert _qd_put_back_at_2(w, False) == [["return", 2]]
    back = w.layout.centres[1] + 0.3 * w.h * w.layout.outward[1]
    first = w.layout.centres[0] + 0.45 * w.h * (back - w.layout.centres[0]) / np.linalg.norm(back - w.layout.centres[0])
    assert w._pile_at(first) == 1 and np.linalg.norm(first - back) < w.h
    f = 22 + gap
    out = w._observe(f, f / 30, Detections.from_rows([_one_down(w, back)]), w._view)
    out += w._observe(f + 3, (f + 3) / 30, Detections.from_rows([_one_up(w, first)]), w._view)
    three = Card.parse("3H")
    for k in range(2, 5):
        out += w._observe(f + 3 * k, (f + 3 * k) / 30, Detections.from_rows(
            [_one_up(w, w.layout.centres[0] + 0.3 * w.h * w.layout.outward[0], three)]), w._view)
    assert [o.event for o in out if o.event[0] == "turn"][:1] == [["turn", source]]


@pytest.mark.parametrize("sure_looks, named", [(2, "QC"), (1, "QD")])
def test_a_card_named_by_its_blurred_looks_waits_and_two_sure_readings_correct_it(sure_looks, named):
    """Three blurred looks at the card just turned at the centre lean to a queen and to diamonds: added up
    they name it QD, which is announced but held. Two sure readings of QC follow as it is carried to 12:
    the held announcement is corrected to QC before it is released (9153 at 1080p, models: the QC named
    QD this way was reported so, and the QC read where it then lay was taken for the next card turned at
    12; its 4C likewise, named 4D). One sure reading alone is not enough against the looks: QD stands,
    released when a turn waiting for the stacks would be."""
    from companion.vision.watcher import _Hand
    w = _clock_watcher(expected=13)
    view = GameView(expected_pile=13)
    w._view = view
    h = w.hand = _Hand(first_frame=10)
    rank_blur, suit_blur = np.full(13, 0.4 / 12), np.full(4, 0.3 / 3)
    rank_blur[11], suit_blur[1] = 0.6, 0.7  # Q, diamonds
    rank_sure, suit_sure = np.full(13, 0.02 / 12), np.full(4, 0.02 / 3)
    rank_sure[11], suit_sure[0] = 0.98, 0.98  # Q, clubs
    qc = Card.parse("QC")
    looks = [((None, 0.3), rank_blur, suit_blur)] * 3 + [((qc, 0.98), rank_sure, suit_sure)] * sure_looks
    toward_12 = (w.layout.centres[11] - w.layout.centres[12]) / np.linalg.norm(w.layout.centres[11] - w.layout.centres[12])
    out = []
    for k, (read, rank_p, suit_p) in enumerate(looks):
        c = w.layout.centres[12] + 0.35 * (k + 1) * w.h * toward_12
        f = 10 + 3 * k
        out += w._release(w._track(h, f, f / 30, read, c, 100.0, view, set(), 0.714, rank_p, suit_p), f,
                          looked=True)
        if k == 2:
            assert h.announced and h.card == Card.parse("QD") and out == []  # announced, held
    assert h.card == Card.parse(named)
    if named == "QD":
        assert w._release([], 39) == []  # still waiting for a sure reading ...
    out += w._release([], 40)  # ... as long as a turn waits for the stacks (SOURCE_WAIT), no longer
    assert [o.event for o in out] == [["turn", 13], ["see", named]]  # released once, corrected or not


@pytest.mark.parametrize("read_at_13, moved", [(False, False), (True, True)])
def test_a_table_card_is_moved_only_when_read_away_from_its_own_pile(read_at_13, moved):
    """The 4C lies beneath 4. Read at its place there, it is taken up as a table card being moved, but
    the shape followed from there comes to rest by the centre unread: it was not the 4C, and nothing is
    moved (9159 at 1080p, models: the 4C "moved" to 13 and back five times, each a false flag). Read
    surely as the 4C where it lies by the centre, it was moved (so it is when a look there only leans to
    it: ``test_unsure_readings_that_agree_are_added_up`` moves a card no look reads surely)."""
    from companion.vision.table_model import TableCard
    from companion.vision.watcher import _Hand, _Sighting
    w = _clock_watcher(expected=8)
    w._view = GameView(expected_pile=8, face_up=frozenset({Card.parse("4C")}))
    four = Card.parse("4C")
    home = w.layout.centres[3] + 0.35 * w.h * w.layout.outward[3]
    w.table.put(TableCard(four, 4, "under", home.copy(), 5, 5))
    h = w.hand = _Hand(first_frame=20, card=four, from_table=four, announced=True)
    by_13 = w.layout.centres[12] + 0.4 * w.h * w.layout.outward[3]
    for f, c, card in ((20, home, four), (23, (home + by_13) / 2, None), (26, by_13, None),
                       (29, by_13, four if read_at_13 else None)):
        h.sightings.append(_Sighting(f, f / 30, card, 0.99 if card else 0.2, c, 100.0, 0.714))
    h.lying_at = (13, "under")
    out = w._place(h, 30, 1.0)
    assert [o.event for o in out] == ([["move", "4C", 13, "under"]] if moved else [])
    assert w.table.cards[four].pile == (13 if moved else 4)


@pytest.mark.parametrize("pile, still_until, placed, along", [
    (8, 10, True, 0.6),    # still beneath its own pile three looks over two frames, then covered: put down now
    (8, 10, True, 0.25),   # ... so close to the stack only its place says beneath (9817 at 640x360, oracle)
    (8, 9, False, 0.6),    # covered a frame sooner, before it lay still as long as a seen card must: not yet
    (9, 10, False, 0.6)])  # beneath another pile: it may still be in the hand (a seen card there is judged as before)
def test_a_card_lying_still_beneath_its_pile_then_covered_is_put_down_at_once(pile, still_until, placed, along):
    """An 8D taken from the centre is slid out beneath ``pile`` and lies still there until frame
    ``still_until``; the next regular look misses it (the palm that let go covers it on its way to the
    stack). Beneath its own pile, after lying still as long as a card seen there waits, it is put down at
    that look, not when the hand has gone (9797 at 640x360, oracle: 267 ms late)."""
    w, view, card = _read_at_the_centre("8D")
    centre = w.layout.centres[12]
    beneath = w.layout.centres[pile - 1] + along * w.h * w.layout.outward[pile - 1]
    w._observe(5, 5 / 30, Detections.from_rows([_one_up(w, (centre + beneath) / 2, card)]), view)
    events = []
    for f in range(8, still_until + 1):
        events += [o.event for o in w._observe(f, f / 30, Detections.from_rows(
            [_lying(w, pile, along, 0.0, 1.0, card)]), view)]
    assert w.hand is not None and w.hand.last_pos == (pile, "under" if along > 0.5 else "near")
    assert not any(e[0] == "place" for e in events)
    events = [o.event for o in w._observe(still_until + 1, (still_until + 1) / 30, Detections.empty(), view)]
    assert (events == [["place", pile, "under"]]) is placed
    assert (w.hand is None) is placed


@pytest.mark.parametrize("named_at", [10, 8])
def test_a_card_first_named_far_from_the_unread_shape_it_was_followed_as_was_never_put_down_there(named_at):
    """A TD read once by 7 (not yet named: one reading) is followed as an unread shape that comes to lie
    still beneath 8, then is read surely lying beneath ``named_at``. Read beneath 10, far from that shape,
    the shape was not the TD: it was never put down at 8, and goes beneath 10 (9128 at 1080p, models: judged
    put beneath 8 and moved to 10, a false WRONG_TARGET_PILE). Read where the shape lay, it is the shape."""
    w = _clock_watcher(expected=7)
    view = GameView(expected_pile=7)
    card = Card.parse("TD")
    at7 = w.layout.centres[6] + 0.3 * w.h * w.layout.outward[6]
    w._observe(1, 1 / 30, Detections.from_rows([_one_up(w, at7, card)]), view)
    at8 = w.layout.centres[7] + 0.6 * w.h * w.layout.outward[7]
    w._observe(4, 4 / 30, Detections.from_rows([_one_up(w, (at7 + at8) / 2)]), view)
    for f in range(7, 17, 3):
        w._observe(f, f / 30, Detections.from_rows([_lying(w, 8, 0.6, 0.0, 1.0, None)]), view)
    assert w.hand is not None and not w.hand.announced and w.hand.lying_at == (8, "under")
    events = []
    for f in range(19, 32, 3):  # (far off, a new shape: taken for the hand card at the third look)
        events += [o.event for o in w._observe(
            f, f / 30, Detections.from_rows([_lying(w, named_at, 0.6, 0.0, 1.0, card)]), view)]
    places = [e for e in events if e[0] in ("place", "move")]
    assert places[:1] == [["place", named_at, "under"]]
    assert len(places) == 1


@pytest.mark.parametrize("read_at, unread_last", [(3, False), (5, False), (3, True)])
def test_a_card_read_lying_beneath_its_own_pile_is_not_followed_off_as_an_unread_shape(read_at, unread_last):
    """A 3D, taken at 7 unseen, is read surely at two looks out in the fan of ``read_at`` (its place jittering,
    so never lying still by count), missed a look, and then an unread shape shows 1.0 card heights off.
    Read beneath its own pile (3), it was put down there: the shape is another card, and the 3D is put
    beneath 3 as it shows (9128 at 1080p, models: the 3D was taken for the 4H turned next
    at 3 and carried, unread, and judged put beneath 4). Read beneath 5, it may still be carried. Seen
    unread in that fan after its two sure readings, the same (9169 at 1080p, models: a 3C so seen beneath 3
    was taken for the next card's shape and judged put beneath 5)."""
    w = _clock_watcher(expected=7)
    view = GameView(expected_pile=7)
    card = Card.parse("3D")
    looks = ((10, 0.5, card), (13, 0.62, card)) + (((14, 0.56, None),) if unread_last else ())
    for f, along, read in looks:
        w._observe(f, f / 30, Detections.from_rows([_lying(w, read_at, along, 0.0, 1.0, read)]), view)
    h = w.hand
    assert h is not None and h.announced and h.card == card and h.left_source
    w._observe(16, 16 / 30, Detections.empty(), view)
    u = w.layout.outward[read_at - 1]
    shape = h.last.centre + 1.0 * w.h * np.array([-u[1], u[0]])
    events = [o.event for o in w._observe(17, 17 / 30, Detections.from_rows([_one_up(w, shape)]), view)]
    assert (w.hand is h and float(np.linalg.norm(h.last.centre - shape)) < 1) is (read_at != 3)
    assert (events == [["place", 3, "under"]]) is (read_at == 3)


@pytest.mark.parametrize("first_along, last_along, beneath, scatter", [
    (0.21, 0.185, False, None), (0.21, 0.21, True, None), (0.26, 0.2, True, 0.1)])
def test_a_card_still_sliding_in_towards_the_stack_is_not_yet_beneath(first_along, last_along, beneath, scatter):
    """A 9S carried from the centre comes to lie 0.21 card heights out from 9's stack, then ``last_along``
    a look later. Slid in 0.025 (slower than a card moves, just beyond ``under_sure``), it is still on its
    way onto the stack, not beneath (9816 at 640x360, oracle: put askew on top at 0.16, judged beneath at
    0.18 and the WRONG_SIDE missed); lying where it was, it is beneath. With a detector whose places scatter
    0.1 card heights between looks, a slide of 0.06 cannot be told from scatter: beneath, as before (9156 at
    1080p, models: a KD on top of 13, its quad jumping, was never at rest there)."""
    w, view, card = _read_at_the_centre("9S")
    if scatter is not None:
        w.noise.told({"position": scatter})
        w.eff = w.noise.widen(w.params)
    w._observe(5, 5 / 30, Detections.from_rows([_lying(w, 9, -1.0, 0.0, 1.0, card)]), view)
    events = []
    for f, along in ((8, first_along), (11, last_along)):
        events += [o.event for o in w._observe(f, f / 30, Detections.from_rows([_lying(w, 9, along, 0.0, 1.0, card)]),
                                               view)]
    assert (["place", 9, "under"] in events) is beneath


@pytest.mark.parametrize("kings_lying, ks_seen_since, ks_where, named", [
    (("KS", "KH", "KD"), True, "centre", "KC"),  # three kings lie in their places: the fourth is the KC
    (("KS", "KH", "KD"), False, "centre", "KC"),  # the KS out of sight since (cards beneath hide each other)
    (("KS", "KH", "KD"), True, "first", None),  # the KS lies where the hand card was first seen: it may be it
    (("KS", "KH", "KD"), False, "first", None),
    (("KS", "KH"), True, "centre", None),  # two kings still to come: the rank does not name the card
])
def test_the_last_card_of_a_rank_is_named_by_its_rank_alone(kings_lying, ks_seen_since, ks_where, named):
    """Blurred looks at the card just turned at the centre all give a king, and lean to spades: added up
    they name the KS, which lies beneath the centre, seen there at each look, so it cannot be this card.
    When the other three kings lie on the table away from where it was first seen (seen lately or not: cards
    beneath the centre hide each other), the unseen set names it: the KC (9176 at 1080p, models: the last king, never named over 20 looks, and the end of the game
    never seen). Not while two kings could still come, nor while a king lies where the card was first seen
    (it may be that king picked up, or a second shape of it: 9179's fan of three aces beneath 1, named AD)."""
    from companion.vision.table_model import TableCard
    from companion.vision.watcher import _Hand
    w = _clock_watcher(expected=13)
    lying = [Card.parse(c) for c in kings_lying]
    toward_12 = (w.layout.centres[11] - w.layout.centres[12]) / np.linalg.norm(w.layout.centres[11] - w.layout.centres[12])
    for k, king in enumerate(lying):
        seen = 40 if ks_seen_since or king != Card.parse("KS") else 5
        place = w.layout.centres[12] + (1.0 + 0.2 * k) * w.h * np.array([0.0, 1.0])  # away from 12
        if ks_where == "first" and king == Card.parse("KS"):
            place = w.layout.centres[12] + 0.35 * w.h * toward_12
        w.table.put(TableCard(king, 13, "under", place, 1, seen))
    view = GameView(expected_pile=13, face_up=frozenset(lying))
    w._view = view
    h = w.hand = _Hand(first_frame=10)
    rank_p, suit_p = np.full(13, 0.3 / 12), np.full(4, 0.3 / 3)
    rank_p[12], suit_p[3] = 0.7, 0.7  # a king, spades
    for k in range(5):
        c = w.layout.centres[12] + 0.35 * (k + 1) * w.h * toward_12
        f = 10 + 3 * k
        w._track(h, f, f / 30, (None, 0.3), c, 100.0, view, set(lying), 0.714, rank_p, suit_p)
    assert h.card == (Card.parse(named) if named else None)
    assert h.announced == (named is not None)


@pytest.mark.parametrize("lying_reads, named", [(4, "8C"), (1, "TC")])
def test_a_card_whose_sure_readings_disagree_waits_for_the_most_of_them(lying_reads, named):
    """The first card is read surely as the 8C as it is turned at the centre, then surely as TC at three
    looks as it is carried towards 8: TC is announced, but held, as another sure reading contests it. Read
    surely as the 8C four more times as it comes to rest by 8, it was the 8C: the held announcement is corrected,
    and those readings are the same card, not the next one turned (9180 at 1080p, models: TC reported, the
    8C lying there taken for a card turned at 8, a false WRONG_TARGET_PILE and WRONG_SOURCE_PILE). Read so
    once more only, TC has the most sure readings and stands."""
    w = _clock_watcher(expected=13)
    view = GameView(expected_pile=13)
    w._view = view
    eight, ten = Card.parse("8C"), Card.parse("TC")
    centre, by_8 = w.layout.centres[12], w.layout.centres[7] + 0.35 * w.h * w.layout.outward[7]
    coming_to_rest = [by_8 + d * w.h * w.layout.outward[7] for d in (0.3, 0.15, 0.0, 0.0)]
    looks = [(centre + 0.05 * w.h * w.layout.outward[12], eight)] + \
        [(centre + (by_8 - centre) * k / 4, ten) for k in (1, 2, 3)] + [(c, eight) for c in coming_to_rest[:lying_reads]]
    out = []
    for k, (c, card) in enumerate(looks):
        f = 1 + 3 * k
        out += w._release(w._observe(f, f / 30, Detections.from_rows([_one_up(w, c, card)]), view), f, looked=True)
    out += w._release([], 60)  # released when a turn waiting for the stacks would be, at the latest
    assert [o.event for o in out if o.event[0] in ("turn", "see")] == [["turn", 13], ["see", named]]


@pytest.mark.parametrize("first_at, lies_at, named", [
    (6, 13, True),    # carried from 6, read once beneath the centre, its own pile: the KS
    (13, 13, False),  # seen there only: may be a card lying there misread
    (6, 5, False)])   # read once lying beneath another pile: not where a KS goes, left unnamed
def test_a_card_read_surely_once_where_it_lies_at_its_own_pile_and_lost_there_is_named(first_at, lies_at, named):
    """A card in play is followed unread from ``first_at``, read surely once as the KS as it comes to lie
    beneath ``lies_at``, then never seen again (the fan of kings beneath the centre looks like one card to
    the detector): carried to its own pile, it is named and put down there when it is lost (9173 at 1080p,
    models: the last king never named, the end of the game never seen)."""
    w = _clock_watcher(expected=13)
    view = GameView(expected_pile=13)
    w._view = view
    ks = Card.parse("KS")
    start = w.layout.centres[first_at - 1] + 0.2 * w.h * w.layout.outward[first_at - 1]
    rest = w.layout.centres[lies_at - 1] + 0.35 * w.h * w.layout.outward[lies_at - 1]
    looks = [(start, None), (start + (rest - start) / 2, None), (rest, ks)]
    out = []
    for k, (c, card) in enumerate(looks):
        f = 1 + 3 * k
        out += w._release(w._observe(f, f / 30, Detections.from_rows([_one_up(w, c, card)]), view), f, looked=True)
    for f in range(10, 40, 3):
        out += w._release(w._observe(f, f / 30, Detections.empty(), view), f, looked=True)
    events = [o.event for o in out]
    assert (["see", "KS"] in events and ["place", lies_at, "under"] in events) is named
    assert w.hand is None or not named


@pytest.mark.parametrize("lying_reads, step, placed", [(1, 0.06, False), (1, 0.3, True), (5, 0.06, True)])
def test_a_card_jostled_as_it_settles_is_not_picked_up(lying_reads, step, placed):
    """A 9S turned at 5 lies still 0.15 card heights out from 9's stack, the stack hidden: on top so far,
    not yet put down. One look later it is seen 0.06 card heights further in, something moving by: after
    one look lying there, a step that small (under twice the still tolerance) is the card settling, not the
    child picking it up; it is not put down on top (9200 at 1080p, models: a false WRONG_SIDE, "moved"
    beneath four looks later). A step of 0.3 card heights is a pickup, and so is any step once it has lain
    ``side_wait`` looks: put down on top as before."""
    from companion.vision.watcher import _Hand
    w = _clock_watcher(expected=9)
    view = GameView(expected_pile=9)
    nine = Card.parse("9S")
    h = _Hand(first_frame=10)
    h.sightings = [_sighting(w, f, 9, 0.15, False, nine) for f in (10, 11, 12, 13)]
    h.reads = [nine] * 4
    h.card, h.announced, h.source, h.left_source = nine, True, 5, True
    h.lying_at = h.last_pos = (9, "top")
    h.lying_reads, h.still = lying_reads, 4
    w.hand = h
    s = _sighting(w, 14, 9, 0.15 - step, False, nine)
    out = w._track(h, 14, 14 / 30, (nine, 0.99), s.centre, s.height, view, set(), 0.714)
    assert [o.event for o in out] == ([["place", 9, "top"]] if placed else [])
    assert (w.hand is h) == (not placed)


@pytest.mark.parametrize("still_looks, since", [(19, 960), (2, 1015)])
def test_play_goes_on_from_where_a_card_came_to_rest_at_no_lying_place(still_looks, since):
    """A 7C carried from 11 lies still beneath 7 from frame 960, at no lying place its quad fits (a trained
    detector sized it 11% over 7's stack), and is put down only at 1015 as the next card shows. The stacks'
    looks are compared from 960, where it came to rest: the next card was taken from 7 at 992, and from 1015
    the stack of 7 looked untouched (9200 at 1080p, models: the 2H turned at 7 was judged taken at 2, a false
    WRONG_SOURCE_PILE). Seen still at two looks only, it is judged from the look it is put down, as before."""
    from companion.vision.watcher import _Hand
    w = _clock_watcher(expected=7)
    seven = Card.parse("7C")
    h = _Hand(first_frame=930)
    frames = [1014 - 3 * k for k in range(still_looks)][::-1]
    h.sightings = [_sighting(w, 930, 11, 0.5, False, seven), _sighting(w, 950, 7, 1.2, False, seven)] + \
        [_sighting(w, f, 7, 0.4, False, seven) for f in frames]
    h.reads = [seven] * len(h.sightings)
    h.card, h.announced, h.source, h.left_source = seven, True, 11, True
    h.lying_at = (7, "under")
    w.hand = h
    w._place(h, 1015, 1015 / 30, "newcard")
    assert w._last_put == (frames[0] if still_looks > 2 else 1015) == since


@pytest.mark.parametrize("moving", [False, True])
def test_a_king_lying_still_beneath_the_centre_with_both_indices_showing_is_put_down(moving):
    """A KH read twice as it is turned at the centre, then slid beneath the centre 0.21 card heights out,
    where both its indices still show, the stack seen past it: it lies still for eight looks with nothing moving anywhere, so it was
    let go of, not held over the stack it came from to be turned over; put down beneath 13 as it lies (oracle
    10133 at 640x360: unplaced for 30 frames, the verdict 300 ms after it settled). With a hand moving over it
    at every look it is held there as before: nothing put down."""
    w = _clock_watcher(expected=13)
    view = GameView(expected_pile=13)
    king = Card.parse("KH")
    centre = w.layout.centres[12]
    rest = centre + 0.21 * w.h * w.layout.outward[12]
    out = []
    for f in (1, 2):
        _hand_moves_over(w, centre)
        out += w._observe(f, f / 30, Detections.from_rows([_one_up(w, centre, king)]), view)
    for k in range(8):  # the stack of 13 seen past it at each look
        f = 4 + 3 * k
        _still_frames(w, 1)
        if moving:
            _hand_moves_over(w, rest)
        w._note_stirred(f)
        rows = [(*_one_up(w, rest, king), True), (*_one_down(w, centre), False)]
        out += w._observe(f, f / 30, Detections.from_rows(rows), view)
    assert [o.event for o in out if o.event[0] == "place"] == ([] if moving else [["place", 13, "under"]])


@pytest.mark.parametrize("table_card_seen", [True, False])
def test_a_hand_card_read_as_a_table_card_seen_lying_in_its_place_is_not_that_card(table_card_seen):
    """A 6S turned at 9 is carried towards 6; two looks read it surely as 8C while the 8C lies in view
    beneath 8, then it is read 6S. The 8C readings named a card seen lying in its own place at those very
    looks: misreadings, so the hand card is the 6S (9220 at 1080p, models: it was believed the 8C picked
    up and judged "moved" beneath 6, a false WRONG_TARGET_PILE). With the 8C not seen at its place then
    (covered, or truly picked up), the readings stand: the 8C is being moved."""
    w = _clock_watcher(expected=9)
    view = GameView(expected_pile=9)
    eight, six = Card.parse("8C"), Card.parse("6S")
    at8 = w.layout.centres[7] + 0.6 * w.h * w.layout.outward[7]
    w.table.put(TableCard(eight, 8, "under", at8.copy(), 0, 0))
    c9, c6 = w.layout.centres[8], w.layout.centres[5]
    path = [c9 + k * (c6 - c9) for k in (0.3, 0.4, 0.5, 0.6, 0.7)]
    for n, (point, read) in enumerate(zip(path, (None, eight, eight, six, six))):
        if n == 3 and not table_card_seen:
            break
        rows = [_one_up(w, point, read)]
        if table_card_seen and n in (1, 2):
            rows.append(_one_up(w, at8, eight))
        _hand_moves_over(w, point)
        w._observe(3 * n + 1, (3 * n + 1) / 30, Detections.from_rows(rows), view)
    h = w.hand
    assert h is not None
    if table_card_seen:
        assert h.card == six and h.from_table is None and eight not in h.reads
    else:
        assert h.card == eight and h.from_table == eight


@pytest.mark.parametrize("back_out, returned", [(0.25, True), (0.55, False)])
def test_a_back_seen_heading_away_from_the_stack_a_card_was_shown_on_is_not_that_card_put_back(back_out, returned):
    """A 5H turned at 7 (where play is) is shown on 7's stack, then gone; one look sees a back ``back_out``
    card heights out along 7's fan, the next shows the stack again. By the stack, the card was turned face
    down to be put back: "return 7". Heading away from the stack (0.45 card heights further out than its
    face was), it is the card carried off, seen through the blur of a fast hand (9226 at 1080p, models: a 5H
    so judged put back face down at 7, then read face up at 5 and "turned" at 7 again): no return."""
    w = _clock_watcher(expected=7)
    view = GameView(expected_pile=7)
    c7, out7 = w.layout.centres[6], w.layout.outward[6]
    five = Card.parse("5H")
    stack = list(_one_up(w, c7))
    stack[6] = False
    events = []
    for f in (1, 4):
        events += [o.event for o in w._observe(f, f / 30, Detections.from_rows([_one_up(w, c7 + 0.1 * w.h * out7, five)]), view)]
    assert ["see", "5H"] in events and w.hand is not None and w.hand.source == 7
    back = list(_one_up(w, c7 + back_out * w.h * out7))
    back[6] = False
    _hand_moves_over(w, c7 + back_out * w.h * out7)
    events += [o.event for o in w._observe(7, 7 / 30, Detections.from_rows([tuple(back)]), view)]
    for f in (10, 13):
        events += [o.event for o in w._observe(f, f / 30, Detections.from_rows([tuple(stack)]), view)]
    assert (["return", 7] in events) is returned


@pytest.mark.parametrize("first_along, source", [(0.2, 7), (0.9, 11)])
def test_a_card_first_seen_unread_over_the_stack_where_play_is_was_turned_there(first_along, source):
    """A JC first seen unread and held up ``first_along`` card heights out from 7's stack (where play is), carried fast and
    read only beneath 11, four card heights off. Right over 7's stack it was turned there (9224 at 1080p,
    models: judged taken at 11, a false WRONG_SOURCE_PILE); first seen further off, that shape may have been
    another, and the card is judged from where it was read, as before."""
    from companion.vision.watcher import _Hand
    w = _clock_watcher(expected=7)
    h = _Hand(first_frame=1)
    first = _sighting(w, 1, 7, first_along, False)
    first.height *= 1.3  # held up as it was turned over: no lying place
    assert w._lying_position(first) is None
    h.sightings = [first, _sighting(w, 16, 11, 0.5, False, Card.parse("JC"))]
    h.card = Card.parse("JC")
    assert w._source(h) == source


def _carried_hand(card: Card, source: int, sightings: list):
    """A hand card read as ``card``, taken from ``source`` and carried off it, seen at ``sightings``."""
    from companion.vision.watcher import _Hand
    h = _Hand(first_frame=sightings[0].frame)
    h.sightings = list(sightings)
    h.card, h.announced, h.source, h.left_source = card, True, source, True
    return h


@pytest.mark.parametrize("edge, placed", [(0, True), (2, True), (20, False)])
def test_a_card_laid_by_a_stack_it_hides_under_a_hand_holding_still_is_on_top(edge, placed):
    """A JS carried from 3 and laid 0.137 card heights out on 11's stack (where its place cannot tell the
    side), the stack never showing past it, a few pixels changing around that stack at its first two looks
    (the edge of the fingers holding still on the card), then the hand stirring over it. That hand hid the
    stack no more than a still one: the card hides it, and lies on top, judged as the hand stirs (oracle
    10205 at 640x360: the palm then rested on the card, which was judged only after ``side_wait`` looks out
    of sight, 467 ms after it settled). A hand moving there (more than ``STACK_FAINT`` of the box) may be
    what hides the stack: not yet."""
    w = _clock_watcher(expected=11)
    view = GameView(expected_pile=11)
    card = Card.parse("JS")
    h = w.hand = _carried_hand(card, 3, [_sighting(w, 1, 3, 0.5, True, card)])
    at = w.layout.centres[10] + w.h * 0.137 * w.layout.outward[10]
    _still_frames(w)
    out = []
    for f in (4, 7, 10):
        if f < 10:
            _still_frames(w, 1)
            w._motion_hist[-1][10] = edge  # changed pixels around 11's stack (its box: about 12 x 12)
        else:
            _hand_moves_over(w, at)
            w._note_stirred(f)  # (as every frame does)
        out += w._observe(f, f / 30, Detections.from_rows([_one_up(w, at, card)]), view)
    assert ([o.event for o in out] == [["place", 11, "top"]]) is placed
    if not placed:
        assert out == [] and w.hand is h and h.lying_at == (11, "top")


@pytest.mark.parametrize("toward_2, code, source", [(0.02, "6H", 1), (0.2, "6H", 2), (0.02, "AH", 2)])
def test_a_card_first_seen_midway_between_two_stacks_was_turned_at_the_one_it_is_read_by(toward_2, code, source):
    """A card first seen unread and held up between the stacks of 1 and 2 (play is at 5), ``toward_2`` card
    heights off the midpoint towards 2, then read lying by 1's stack. Midway (its distances to the two
    stacks within ``SOURCE_TIE``), where it is shown says which it was turned at: 1 (9225 at 1080p, models:
    a 6H turned at 1 by mistake, first seen 0.72 / 0.73 card heights from 1 and 2, held by 1 for 20 frames
    and put back, was judged taken and put back at 2, its WRONG_SOURCE_PILE missed). Nearer 2, it was
    turned at 2, as before; so was an ace, which goes to 1 however it came there."""
    from companion.vision.watcher import _Hand
    w = _clock_watcher(expected=5)
    c1, c2 = w.layout.centres[0], w.layout.centres[1]
    mid = (c1 + c2) / 2 + toward_2 * w.h * (c2 - c1) / np.linalg.norm(c2 - c1)
    first = _sighting(w, 1, 1, 0.0, False)
    first.centre = mid
    first.height = 1.3 * w.geometry.pile_size_at(2, mid)  # held up as it was turned over: no lying place
    assert w._lying_position(first) is None
    card = Card.parse(code)
    read = _sighting(w, 10, 1, 0.05, True, card)
    assert w._lying_position(read) is not None and w._lying_position(read)[1] != "under"
    h = _Hand(first_frame=1)
    h.sightings = [first, read]
    h.card = card
    assert w._source(h) == source


@pytest.mark.parametrize("index_along, seen, hidden, stack_at, side", [
    (-0.18, 0, 1, 0, "top"),       # its inner index read over the stack, which never showed: on top
    (0.62, 0, 1, 10, "under"),     # its outer index only: as a card beneath shows it
    (-0.18, 1, 1, 10, "under"),    # the stack showed past it: beneath, slid out sideways
    (-0.18, 0, 0, 10, "under"),    # a hand moved around the stack at every look: it may be what hid it
    (-0.18, 0, 1, -30, "under"),   # the stack last seen 40 frames before the card was: it may be gone
    (-0.18, 0, 1, None, "under")])  # ... or never
def test_a_card_whose_inner_index_shows_over_a_hidden_stack_lies_on_top(index_along, seen, hidden, stack_at, side):
    """A TS at rest 0.21 card heights out from the stack of 10 (past ``under_sure``), one index read (a
    hand's fingers over the other). Its inner index, over the stack, read while that stack never showed
    and nothing moved around it at a look: that end is uncovered, on top of the stack (oracle 10212 at
    640x360: put on top by mistake, askew, judged beneath, a WRONG_SIDE missed). Its outer index, the stack
    seen past it, a hand moving about the stack at every look, or a stack not seen for over a second before
    the card was first seen (it may be used up, leaving the cards beneath it uncovered: 9239 at 1080p,
    models): its place
    decides (beneath), as before."""
    w = _clock_watcher(expected=10)
    card = Card.parse("TS")
    h = _carried_hand(card, 4, [_sighting(w, 10 + 3 * k, 10, 0.21, False, card) for k in range(3)])
    for x in h.sightings:
        x.index_at = w.layout.centres[9] + w.h * index_along * w.layout.outward[9]
    h.lying_at = h.last_pos = (10, "near")
    h.still, h.stack_seen, h.stack_hidden = 3, seen, hidden
    if stack_at is not None:
        w._stack_seen_at[10] = stack_at  # seen just before the card was first seen (frame 10)
    w._view = GameView(expected_pile=10, face_down={10: 3})
    w.hand = h
    out = w._place(h, 20, 20 / 30, "seen")
    assert [o.event for o in out] == [["place", 10, side]]


@pytest.mark.parametrize("table, placed", [("still", True), ("moving", False)])
def test_a_card_lost_from_sight_just_after_it_lay_with_the_table_still_since_was_left_there(table, placed):
    """A JC carried from 5 and seen lying 0.42 card heights out beneath 10 for two looks, then once a little
    off with no lying place (a look too big), then never again. The whole table still since, the hand
    is gone and left it where it lay: put beneath 10, after ``2 x vanish_reads`` looks (9230 at 1080p,
    models: put there by mistake and unseen for 35 still frames in the fan, it was judged only where it was
    moved to next, the WRONG_TARGET_PILE missed). Something moving on the table meanwhile: a hand may
    still hold it, and it waits."""
    w = _clock_watcher(expected=11)
    view = GameView(expected_pile=11)  # (taken at 5, the JC sends play to 11)
    card = Card.parse("JC")
    off = _sighting(w, 7, 10, 0.42, False, card)
    off.centre = off.centre + 0.25 * w.h * np.array([w.layout.outward[9][1], -w.layout.outward[9][0]])
    off.height *= 1.3
    assert w._lying_position(off) is None
    h = w.hand = _carried_hand(card, 5, [_sighting(w, 1, 10, 0.42, False, card),
                                         _sighting(w, 4, 10, 0.42, False, card), off])
    _still_frames(w)
    out = []
    for k in range(14):
        f = 10 + 3 * k
        if table == "still":
            _still_frames(w, 3)
        else:
            _hand_moves_over(w, w.layout.centres[2] + (k % 2) * 25)
        out += w._observe(f, f / 30, Detections.empty(), view)
    assert ([o.event for o in out] == [["place", 10, "under"]]) is placed
    if not placed:
        assert out == [] and w.hand is h


@pytest.mark.parametrize("looks_by, named", [("the kings", None), ("12", "KC")])
def test_a_rank_given_only_by_looks_beside_a_card_of_that_rank_names_no_card(looks_by, named):
    """A card first seen unread by 7, then at five blurred looks leaning to a king: the KS, KH and KD lie on
    the table, so the rank alone would name the KC. Those looks lay by the kings beneath the centre: they
    may be those kings (9237 at 1080p, models: a QD, lost under the arm, followed as the shape by the kings,
    named KD, the last king: the game ended 14 cards early). Looks away from every king still name it."""
    from companion.vision.table_model import TableCard
    from companion.vision.watcher import _Hand
    w = _clock_watcher(expected=7)
    lying = [Card.parse(c) for c in ("KS", "KH", "KD")]
    for k, king in enumerate(lying):
        w.table.put(TableCard(king, 13, "under", w.layout.centres[12] + (1.0 + 0.2 * k) * w.h * np.array([0.0, 1.0]),
                              1, 40))
    view = GameView(expected_pile=7, face_up=frozenset(lying))
    w._view = view
    h = w.hand = _Hand(first_frame=1)
    flat_r, flat_s = np.full(13, 1 / 13), np.full(4, 0.25)
    w._track(h, 1, 1 / 30, (None, 0.1), w.layout.centres[6].copy(), 100.0, view, set(lying), 0.714, flat_r, flat_s)
    rank_p, suit_p = np.full(13, 0.3 / 12), np.full(4, 0.3 / 3)
    rank_p[12], suit_p[3] = 0.7, 0.7  # a king, spades
    toward_12 = (w.layout.centres[11] - w.layout.centres[12]) / np.linalg.norm(w.layout.centres[11] - w.layout.centres[12])
    for k in range(5):
        if looks_by == "the kings":
            c = w.layout.centres[12] + (1.1 + 0.02 * k) * w.h * np.array([0.0, 1.0])
        else:
            c = w.layout.centres[12] + 0.35 * (k + 1) * w.h * toward_12
        f = 4 + 3 * k
        w._track(h, f, f / 30, (None, 0.3), c, 100.0, view, set(lying), 0.714, rank_p, suit_p)
    assert h.card == (Card.parse(named) if named else None)


@pytest.mark.parametrize("gap, stack_shows, source", [(True, False, 2), (False, False, 3), (True, True, 3)])
def test_unread_shapes_in_a_fan_far_from_where_a_card_is_first_read_say_nothing_of_its_source(gap, stack_shows, source):
    """Two looks at an unread shape lying in 5's fan, then, the hand lost a while, a 6S read held over 2's
    stack (0.25 card heights out), still there a look later, the stack of 2 hidden since: the shape was a table
    card seen as an arm went by, and the 6S hides the stack it was turned at (seen before), so it came from 2
    (9258 at 1080p, models: judged "first seen lying out in a fan", taken where play was, 3). Read a look after
    the shape (no gap), the shape was the card's first look: it came from where play is; so it did when 2's
    stack showed past it (lying beneath 2, put there unseen)."""
    from companion.vision.watcher import _Hand
    w = _clock_watcher(expected=3)
    six = Card.parse("6S")
    h = _Hand(first_frame=1)
    first_read = 16 if gap else 7
    h.sightings = [_sighting(w, 1, 5, 0.6, False), _sighting(w, 4, 5, 0.6, False),
                   _sighting(w, first_read, 2, 0.25, False, six), _sighting(w, first_read + 3, 2, 0.27, False, six)]
    h.card = six
    w._stack_seen_at[2] = first_read + 1 if stack_shows else 0  # (seen before the card came, at least)
    assert w._source(h) == source


@pytest.mark.parametrize("off, put_down", [(0.41, False), (0.9, True)])
def test_a_table_card_read_a_little_off_its_place_beside_the_hand_card_is_no_new_card(off, put_down):
    """A 6S is held still over 2's stack (0.25 card heights out), the hand by it stirring. The AD beneath 1 is read
    ``off`` card heights from its place, towards 2, at a look that also sees the 6S where it was: that is the
    AD seen off its place, not a card picked up, so the 6S is not put down (9258 at 1080p, models: judged put
    beneath 2 that way, a false WRONG_TARGET_PILE, its return face down missed). Read much further off, the AD
    is being moved, and the card lying still at 2 was put down."""
    w = _clock_watcher(expected=3)
    view = GameView(expected_pile=3, face_up=frozenset({Card.parse("AD")}))
    ace, six = Card.parse("AD"), Card.parse("6S")
    c1, out1 = w.layout.centres[0], w.layout.outward[0]
    at1 = c1 + 0.5 * w.h * out1
    w.table.put(TableCard(ace, 1, "under", at1.copy(), 0, 0))
    held = w.layout.centres[1] + 0.25 * w.h * w.layout.outward[1]
    w._stack_seen_at[2] = 0  # 2's stack was seen before the 6S hid it: turned there, out of turn
    events = []
    for f in (1, 4, 7, 10):
        _hand_moves_over(w, held)
        events += [o.event for o in w._observe(f, f / 30, Detections.from_rows([_one_up(w, held, six)]), view)]
    assert w.hand is not None and w.hand.card == six and not any(e[0] == "place" for e in events)
    w.hand.stirred = True  # the hand by it stirs (about to turn it face down): no longer held as it paused
    towards_2 = (held - at1) / np.linalg.norm(held - at1)
    _hand_moves_over(w, held)
    rows = [_one_up(w, held, six), _one_up(w, at1 + off * w.h * towards_2, ace)]
    events += [o.event for o in w._observe(13, 13 / 30, Detections.from_rows(rows), view)]
    assert any(e[0] == "place" for e in events) is put_down


@pytest.mark.parametrize("read_away, moved", [(False, False), (True, True)])
def test_a_table_card_moved_nowhere_leaves_the_stacks_compared_from_the_last_card_put_down(read_away, moved):
    """The 8D beneath 8, "picked up" (a 4C turned over it was followed as it) and carried to 4, where the trail
    comes to rest, never read as the 8D away from 8: no move, and nothing was put down, so the stacks' looks
    are still compared from the last card put down, frame 100 (9257 at 1080p, models: compared from the
    trail's end, 8's stack had not changed, and the 4C was judged taken at 4, a false WRONG_SOURCE_PILE). Read
    as the 8D at 4, it was moved there: the stacks are compared from where it came to rest."""
    from companion.vision.watcher import _Hand
    w = _clock_watcher(expected=8)
    eight = Card.parse("8D")
    at8 = w.layout.centres[7] + 0.5 * w.h * w.layout.outward[7]
    w.table.put(TableCard(eight, 8, "under", at8.copy(), 90, 100))
    w._last_put = 100
    h = _Hand(first_frame=110, card=eight, from_table=eight, announced=True, confidence=0.95)
    h.sightings = [_sighting(w, 110, 8, 0.5, False, eight), _sighting(w, 125, 4, 0.5, False),
                   _sighting(w, 140, 4, 0.5, False, eight if read_away else None)]
    h.still_from, h.still_at, h.lying_at = 140, h.sightings[-1].centre.copy(), (4, "under")
    w.hand = h
    out = w._place(h, 146, 146 / 30)
    assert bool(out) is moved and (out[0].event[0] == "move" if out else True)
    assert w._last_put == (140 if moved else 100)


@pytest.mark.parametrize("lifted, source, put_down", [(True, 1, False), (False, 1, True), (True, 8, True)])
def test_a_card_last_seen_lifted_over_its_source_then_lost_was_not_put_down_there(lifted, source, put_down):
    """The KS turned out of turn at 1, last seen half a card height out in 1's fan but bigger than a card
    lying there (held up, being shown), then lost from sight: it was turned face down to be put back, not
    put beneath 1 (9245 at 1080p, models: judged put beneath 1 when an unread shape showed elsewhere, a
    false WRONG_TARGET_PILE and the return missed). Last seen lying there at its own size, it lies there;
    lifted over a pile it was not turned at, it was coming down there as the hand hid it (9249's JS)."""
    from companion.vision.watcher import _Hand
    w = _clock_watcher(expected=5)
    h = _Hand(first_frame=100, card=Card.parse("KS"), announced=True, confidence=0.95)
    h.source, h.left_source = source, True
    h.sightings = [_sighting(w, 100, source, 0.2, False, h.card), _sighting(w, 115, 1, 0.5, False, h.card),
                   _sighting(w, 120, 1, 0.5, False, h.card)]
    h.last_pos, h.lifted, h.missing = (1, "under"), lifted, 2
    assert (w._put_down_at(h) == (1, "under")) is put_down
