"""The watcher: turns camera frames into observation events (what the referee judges).

Per frame it runs the cheap :class:`~companion.vision.motion.MotionGate`; the recogniser runs when the
scene has just settled, every ``settled_every`` frames while it stays settled, and every
``moving_every`` frames while it moves (a card is read in the hand, and the wrong-source mistake is
only visible while the card is held), and every ``confirm_every`` frame while the hand card looks
still at a pile (so a look covered by the hand just as it comes to rest costs one frame, not three).
From the recognitions it keeps a table model (the face-up cards lying on the table,
:mod:`companion.vision.table_model`) and a *hand track*: the one face-up card not explained by the
table model (the card being played or moved).

Events it produces (the referee's forms, :mod:`companion.rules.events`):

* ``["turn", p]`` + ``["see", card]``: a new card is read in the hand. The pile it came from is where
  the card was first seen lifted face down (the earliest face-down card seen off every stack, put
  back on the table with :class:`~companion.vision.table_model.ViewGeometry`), else where its face
  was first seen. Never from the pile the card goes to. A source judged away from where play is is
  checked against the stacks' settled looks (:class:`~companion.vision.motion.StackLooks`: a stack
  whose top card was taken looks different once the hand has gone): where play is lost its top card
  and the judged stack looks untouched, the card came from where play is. The turn (and the reading
  with it) waits up to ``SOURCE_WAIT`` frames for the stacks to settle; nothing else is reported first.
  When the stack where play is lost its top card too, a card was played unseen before this one: it is
  looked for lying beneath the pile this one came from (face up, never reported; through ``zoom``
  where there is one), for up to ``MISSED_WAIT`` frames, and when read there its own ``turn``,
  ``see`` and ``place`` come first.
* ``["place", q, "under"|"top"]``: the hand card lies still at a lying position of pile ``q``.
* ``["move", card, q, side]``: a card of the table model was picked up and lies still elsewhere.
* ``["return", q]``: the hand card vanished (turned face down) without being put down face up.
* ``["exchange", p]``: Watch, with the exchange possible: the last king was picked up and vanished
  face down at pile ``p``; the next card read needs no ``turn``.
* ``["ask", q]``: a card lies at pile ``q`` but cannot be read with confidence: show its corner.

Hysteresis: a reading is believed when ``agree`` of the last ``window`` readings of the card agree;
a card the game already has face up elsewhere cannot be read again (the caller passes the set of
face-up cards as plain data: :class:`GameView`). The watcher never uses the pile a card goes to as
evidence of what the card is.
"""

from __future__ import annotations

import math
from collections import Counter, deque
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Sequence

import cv2
import numpy as np

from ..cards import CENTRE, Card, Rank, Suit
from .detections import SUIT_CODES, Detections
from .layout import CARD_ASPECT, Layout
from .motion import MotionParams, StackLooks, small_grey
from .table_model import TableCard, TableModel, ViewGeometry, quad_sizes

__all__ = ["WatcherParams", "GameView", "Observation", "Watcher"]


#: A card lying this close (card heights) to where the hand card was first seen may be that card, picked up.
PICKED_UP_REACH = 1.0

#: A look leans to a card when it gives its rank and its suit at least these odds.
LEANING = 0.5
#: A hand card out of sight moves up to this many card heights a frame (at most HAND_REACH_MAX).
HAND_SPEED = 0.35
HAND_REACH_MAX = 6.0
#: A card first seen held up off every lying place, its nearest stack where play is and within this many card
#: heights of it, was turned there (``Watcher._source``).
SOURCE_NEAREST = 0.6
#: A stack seen at most this many frames before the hand card was first seen is there still
#: (``Watcher._inner_index_over_stack``).
STACK_RECENT_FRAMES = 30
#: A read hand card lost from sight, the whole table still for this many frames since, was left where it
#: last lay, within ``LEFT_NEAR`` card heights of its last look (``Watcher._left_where_it_lay``).
LEFT_STILL_FRAMES = 15
LEFT_NEAR = 0.5
#: A card first seen held up between two stacks whose distances (card heights) differ by less than this is
#: as near one as the other: where it is first read lying tells which (``Watcher._source``).
SOURCE_TIE = 0.05
#: Unsure looks added up name a card against a sure reading of another only this many nats (natural-log
#: units of likelihood) ahead of it (``Watcher._believe``).
FUSED_OVER_SURE = 6.0
#: Looks of a still run at which a card lying by a stack, one index showing, saw that stack's back: then
#: it lies beneath, even square on the stack by its quad (``Watcher._corner_beside_stack``).
STACK_SEEN_BENEATH = 3
#: The hand card's pace is that of its last two looks when they are at most this many frames apart; it is
#: kept up for at most CARRY_AHEAD frames (``Watcher._carried_to``).
CARRY_LOOKS_APART = 6
#: A hand card whose last two looks moved this many card heights a frame was being carried when last seen.
CARRIED_PACE = 0.25
CARRY_AHEAD = 9
#: A card this close to its stack's centre (card heights along the fan), slid beneath it, has its
#: inner index covered: seen with both, it lies above the stack.
BOTH_SHOW_ALONG = 0.6
#: A table card's index seen this many card heights from where it was seen before is its other index.
OTHER_INDEX = 0.5
#: How far (card heights) from a table card's place a still detection surely read as that card is still
#: that card lying there (the detector's second guess at a partly covered card's quad), not a card lifted.
STILL_REREAD_REACH = 0.4
#: How far (card heights) from a table card's place a reading of that card, while the hand card is seen elsewhere
#: or nothing moves by it, is still that card lying there (``Watcher._table_card_at_rest``; 9258's AD: 0.41 off).
TABLE_AT_REST_REACH = 0.6
#: How far (card heights) from a table card's place an unread shape is that card while the hand holds a named
#: card (0.1 otherwise).
UNREAD_BUSY_REACH = 0.2
#: ... when unread, and at least this far (card heights) from where the hand card was last seen (unread
#: ones counting or not: on dev games at 1080p 9014 120 / 122 pairs followed, 9015 67 / 69, 2001 106
#: both ways; they count because they explain 9015's unread ghosts of its JD).
HAND_CLEAR = 0.6
#: A table card read surely as itself within ``STILL_REREAD_REACH`` of its place, something moving by it, is
#: still that card lying there when the hand card was seen at the last look at least this far (card heights)
#: from it: the hand moves holding another card (9112 at 1080p, models: the 3C beneath 3, its place taken
#: 0.33 card heights off where it lies, read there as the 4C was carried by 1.07 away, was taken for the next
#: card, and the 4C and the JH after it judged taken from the wrong piles)
HAND_CLEAR_OF_TABLE = 0.8
#: card heights from where the hand card came to rest within which motion after it did is a hand letting go
LET_GO_REACH = 1.0
#: card heights: a hand card first named in a look this far from where the unread shape it was followed as
#: lay still was never that shape (see ``Watcher._track``)
NAMED_AWAY_JUMP = 1.5
#: card heights from a hand card's centre: the ring where a hand holding it shows (``Watcher._hand_gone``),
#: and the share of that ring changed since the card was first seen below which no hand is there (oracle: 0.00
#: once the hand had gone, 0.33-0.50 with a hand pausing with the card)
HAND_RING = (0.8, 1.6)
HAND_GONE_SHARE = 0.05
#: card heights a hand card must have come to rest from where it was first seen for that frame to show the
#: table there bare: beyond the ring (9183's 2S, held where first seen, 1.0 card heights off by the detector's
#: centres; oracle 10051's KH, let go 2.1 card heights from its first look, 10018's and 10010's 4.0 and 4.5)
HAND_GONE_FROM = HAND_RING[1]
#: pictures of the table from the last card put down to the hand card's first look that the ring is compared
#: with: one of them is likely to show the ring bare where an arm crossed it as the card was taken (oracle
#: 10056: a 6S taken at 10, the arm across the ring around 7 in its first look, held 533 ms beneath 7)
HAND_GONE_LOOKS = 8
#: frames of motion images kept (small grey pictures, 14 KB each at the default 160 px): a card held longer
#: than this since it was first seen is held as before
GREYS_KEPT = 300
#: card heights beyond ``under_sure`` within which a card still sliding in towards the stack is not at rest
SLIDE_BAND = 0.1
#: still tolerances a card that lay a few looks at a pile, not yet put down, may step there and still be
#: settling, not picked up (``Watcher._still_settling``)
SETTLING_STEP = 2.0
#: looks a card seen with both indices over the stack it came from must lie still, nothing moving by it, to be
#: taken for lying there, not held (``Watcher._left_lying``; oracle 10133 at 640x360: a KH slid beneath the
#: centre 0.21 card heights out, both indices showing, lay still 30 frames unplaced, its verdict 300 ms late)
LEFT_LYING_LOOKS = 3
#: seconds a card may rest with nothing stirring near it and still be in the hand, where a pause on the way
#: looks like a card put down (``Watcher._still_held``; the simulator's pauses last 1.2-2.5 s)
HELD_STILL_S = 3.0
#: ... for a card not yet read, only where it lies this far inward of a stack's centre, card heights (cards
#: put on top lie square on it: the 21 in 26 games at 1080p, models, 0.17 inward at most; pauses on the way
#: judged on top, 0.21-0.29 inward in five of seven)
HELD_INWARD = 0.2
#: card heights: looks of the hand card this close to where it came to rest are the detector's scatter about
#: a card at rest, not a move (9128 at 1080p, models: a 4D held still by 4 seen 0.1-0.2 apart look to look)
REST_SPREAD = 0.35
#: How far (card heights) an unread detection may lie from a hand card seen lying still at its last two
#: looks (off the pile it came from) and still be that card (more only when it was out of sight longer:
#: ``HAND_SPEED``).
STILL_HAND_REACH = 0.6
#: A detection whose rank is read as another than the hand card's at this confidence is not the hand card,
#: though too unsure to count as a reading (``min_confidence``): the recogniser's own threshold for
#: reporting a rank (9058 at 1080p: the 5D lying at 5, its rank read at 0.88, was taken for the 7D just
#: turned there, which was then judged put beneath 5)
OTHER_RANK_CONFIDENCE = 0.85
#: A detection read as another card (or its rank surely another) this near (card heights) the hand card's
#: place at the hand card's last look, no more than ``MISREAD_IN_PLACE_FRAMES`` before, its size within
#: ``MISREAD_IN_PLACE_SIZE`` of the hand card's, is the hand card misread as it slides beneath its pile
#: (``Watcher._misread_in_place``)
MISREAD_IN_PLACE_REACH = 0.25
MISREAD_IN_PLACE_FRAMES = 3
MISREAD_IN_PLACE_SIZE = 0.15
#: A face-up detection within this many pile card heights of a table card's place may be that card
#: (read as it, unread, or surely misread); ``Watcher._lies_at`` asks the same of a reading.
TABLE_MATCH_REACH = 0.12
#: A card lying this far (card heights) off a stack's centre towards the middle of the clock, askew, may lie on
#: top of it: nothing lies beneath a stack on that side (its fan runs outward), so only ``top_radius`` outward
#: bounds the top (oracle 9425: a 9S put on top of 9 by mistake, 0.21 inward and 0.19 across, lay at no pile
#: until moved beneath; its WRONG_SIDE was never flagged)
TOP_INWARD = 0.35
#: A card lying still this far (card heights) or more inward of a stack's centre lies on top of it, though the
#: stack's back shows past it and one index only was found: a card beneath lies outward, in the fan (9175 at
#: 1080p, models: a JC put on top of 11 by mistake, 0.12 inward, the stack's outer edge seen at four looks and
#: its inner index never found, was judged beneath, a WRONG_SIDE missed; that game's cards beneath lay 0.18 to
#: 0.33 out when put down; 9069's AH, beneath with one corner out, had its quad guessed square on the stack)
INWARD_ON_TOP = 0.1
#: How far (card heights) from where the hand card was last seen the first face-down shape after it lies when
#: that shape, and each after it further off, is the card carried away (seen as a back through the blur of a
#: fast hand), not turned face down there: a card turned over is seen face down where it was
CARRIED_OFF = 0.8
#: ... or, nearer, when it lies at least HEADED_OFF card heights further from the stack the card came from than
#: the card's face was last seen, and at least HEADED_FAR from that stack: heading away from it, not turned
#: face down over it to be put back (9226 and 9220 at 1080p, models: a 5H shown on 7's stack, then seen "face
#: down" once 0.29 card heights on, 0.25 further from the stack, the blur of a fast hand; a TC turned at 13,
#: so 0.68 on, 0.37 further; each was judged put back face down, then read again face up at the pile it was
#: carried to and "turned" again)
HEADED_OFF = 0.2
HEADED_FAR = 0.5
#: A hand card first seen (unread, held up) this close (card heights) to the stack where play is was turned over
#: there (``Watcher._source``), wherever it was first read.
FIRST_BY_PLAY = 0.4
#: A back seen this far (card heights) from where a hand card vanished, since, is that card being carried
#: on, not turned face down there (``Watcher._back_seen_far_off``).
CARRIED_FAR = 2.0
#: A face-down shape this close (card heights) to a stack's place is taken for that stack (its detector scatter).
ON_STACK = 0.25
#: A read hand card lying this many looks in a row, over at least STUCK_FRAMES frames, all within STUCK_SPREAD
#: card heights of where it lies, within STUCK_REACH card heights of a stack and no bigger than a card lying
#: there, at no lying place its quad fits, was put down at that stack (``Watcher._stuck_by``)
STUCK_LOOKS = 10
STUCK_FRAMES = 30
STUCK_SPREAD = 0.12
STUCK_REACH = 0.6
#: A face-down shape seen held within this many frames of the last one continues its trail (``_nearer_the_back_trail``)
BACK_TRAIL_FRAMES = 6
#: Frames after a card is judged put back face down in which a back held by that stack is that card settling
SETTLING_BACK_FRAMES = 15
#: A card read surely as one that can be new, this near (card heights) a stack with face-down cards left, in
#: two looks at most TURNED_NEXT_FRAMES apart, while the read hand card rests by a pile more than half a card
#: height off, resting there TURNED_NEXT_REST frames or more: the next card is being turned, so the hand card was
#: put down (see ``_turned_next``)
TURNED_NEXT_REACH = 0.6
TURNED_NEXT_FRAMES = 9
TURNED_NEXT_REST = 12
#: card heights: a card read further than this from the hand card (or from where it lies) is another card;
#: nearer, it is that card misread (``_read_away``)
READ_AWAY = 0.5
#: A card lost from sight never announced, last read at this confidence within LOST_REACH card heights of a
#: pile, at most LOST_FRAMES frames ago, may be the card missed beneath it (``Watcher._lost_at``)
LOST_CONFIDENCE = 0.9
LOST_REACH = 1.0
LOST_FRAMES = 150
#: A shape come to rest this many frames at most after the last card put down at its pile may be that card
#: (``Watcher._settled_table_card``)
SETTLE_FRAMES = 45
#: Looks in a row at its place that say a table card taken for picked up never left it.
NEVER_LEFT_LOOKS = 4
#: A back seen this close (card heights) to where a card's face first shows, just before, is that card lifted.
BACK_BY_FACE = 0.5
#: The first looks at a new hand card that may say it is held over a stack (both indices showing).
SOURCE_LOOKS = 3
#: A hand holding a card up on one stack reaches into the looks of stacks this close (card heights).
NEIGHBOUR_REACH = 1.6
#: A card lying still this close to a stack (card heights out along its fan) that hid the stack at two looks,
#: nothing moving over it, and never let it show, lies on top, however far out it lies in that reach: a
#: card beneath lies under the stack and leaves it in view (oracle 9436 at 640x360: an 8H put on top by
#: mistake rested askew 0.198 out, past ``under_sure``, and was judged beneath). In 24 dev games (oracle
#: 9420-9435 at 640x360, models 9069-9076 at 1080p), of the cards put down within 0.4 of a stack with cards
#: left, the stack never seen: 14 on top hid it at two looks or more, 16 beneath at one or none, and one
#: more at 13 in 9075 (models) at three, where the watcher took a KC for moved; and two on top rested
#: 0.20-0.21 out (9073, 9076: WRONG_SIDE missed). Not for a table card "moved": the next card taken from
#: that stack hides it (9086 at 1080p, models: a TD lying beneath 10, seen shifted as the next card was
#: lifted there, was judged moved on top; the KC of 9075 likewise). Only for a card last seen with both its
#: indices showing, as a card on top is, in full view (9089 at 1080p, models: a QS being slid beneath 12,
#: one index showing, 0.199 out, the stack hidden at three looks by the hand: judged on top, a false WRONG_SIDE)
HIDDEN_TOP_ALONG = 0.3
#: Regular looks a card turned over out of turn (not its own pile's) may lie on top of the stack it was taken
#: from and still be in the hand, shown there to be turned back and put back (``side_wait`` elsewhere): no
#: card is rightly put face up on the stack it came from, so waiting costs a true placement nothing. The
#: simulator's player shows such a card 0.3-0.7 s (9175 at 1080p, models: a 6C turned at 1 by mistake, shown
#: on 1's stack for 17 frames, was judged put on top of 1, a false WRONG_TARGET_PILE, on the look its turning
#: back began, the fifth regular one, and its return missed)
SHOWN_ON_STACK_LOOKS = 15
#: the share of the motion box around a stack that may change in a frame while a hand card seen lying there
#: still counts that stack as hidden by it (``Watcher._stack_quiet``): a hand's edge holding still
STACK_FAINT = 0.03
# grey levels (`StackLooks.change_since`) since the last card was put down: a stack that changed by at
# least STACK_TAKEN lost its top card (rendered games: 5-28 at the pile taken from, one turn in 23 at 2.6); one that changed
# by less than STACK_UNTOUCHED was not touched (about 1 elsewhere)
STACK_TAKEN = 4.0
STACK_UNTOUCHED = 2.0
# a stack's change is measured from the nearer of its last this-many settled looks before the last card was
# put down: the hand that put it down may have rested still on a neighbouring stack, and that look holds
# the hand (9180 at 1080p, models: the 6H taken from 3, where play was, was judged taken from 4, whose look
# with the hand on it differed by 47 grey levels from the bare stack after; the look before, by 1.1)
STACK_COMPARE_LOOKS = 2
# card heights: a back seen lifted this near a stack's place is at that stack
ON_STACK_PLACE = 0.25
# a card's turn judged away from where play is waits up to this many frames for the stacks to settle
# and show where it was taken from (the hand that took it still hides the stack when it is first read)
SOURCE_WAIT = 24
# a turn that follows a card seemingly played unseen waits up to this many frames while that card is
# looked for where this one was taken (the hand taking it hides it at first)
MISSED_WAIT = 45
# an unread hand card that stayed within PHANTOM_REACH card heights of one place (four looks in five) for
# PHANTOM_LOOKS looks, while another card is read elsewhere, was the detector's phantom (see _phantom_hand)
PHANTOM_LOOKS = 5
PHANTOM_REACH = 0.15
# a card in play that no look has read is looked at again through ``zoom``: a square this many card
# heights wide around it, which the detector sees at its full input size rather than as a corner of the
# whole frame shrunk (9034 at 1080p: a 3C carried sideways and slid beneath 3, never found in the whole
# frame, read in such a square in 5 of 10 looks)
ZOOM_SIDE = 4.0
#: ... and a card found there counts only up to this size (x a card lying there): one held up 110 mm above
#: the table, the camera 800 mm away, looks 1.16 x, and the detector's sizes scatter x1.145 (95th percentile)
ZOOM_MAX_SCALE = 1.45


@dataclass(frozen=True)
class WatcherParams:
    """Watcher settings; invalid values raise ``ValueError`` naming the setting and its range."""

    moving_every: int = 3  # recognise every Nth frame while the scene moves
    confirm_every: int = 1  # ... and every Nth while the hand card looks still at a pile, not yet judged
    # lying: a look the hand covers then delays the verdict by this many frames, not by moving_every
    settled_every: int = 15  # and every Nth frame while it stays settled
    window: int = 3  # readings considered for a belief
    agree: int = 2  # of which this many must name the same card
    min_confidence: float = 0.9  # readings below this count as unknown
    fused_confidence: float = 0.97  # ... but a card's unsure looks, added up, name it when this sure (1: never)
    fuse_floor: float = 0.02  # a look never counts a card less likely than this (looks are not independent)
    still_tolerance: float = 0.04  # card heights: a lying card moves less than this between recognitions
    still_reads: int = 2  # recognitions in a row at one place make a card lying still
    max_lying_scale: float = 1.04  # a card looking bigger than this (x a lying card there) is held up; also
    # the detector's size scatter the other size checks allow for (1.25 for quads +-20% in size)
    lifted_scale: float | None = None  # a card looking bigger than this (x a lying card there) is held just
    # above it; None: halfway to max_lying_scale (see :attr:`lifted`)
    top_radius: float = 0.17  # card heights along the fan: a card this close to the stack centre may lie on top
    top_across: float = 0.3  # ... and this close across it (a card dropped on a stack lies askew; a card
    # beside the stack lies a card width, about 0.7, across)
    vanish_reads: int = 4  # recognitions without the hand card before it counts as turned face down
    ask_after_s: float = 1.5  # a card lying unread this long gives an "ask"
    side_wait: int = 5  # recognitions a card close to a stack that stays hidden lies before it counts as on top
    top_sure: float = 0.12  # card heights along the fan: a card lying closer to the stack centre is on top
    under_sure: float = 0.18  # ... one lying at least this far out is beneath (between: the stack decides)
    off_stack: float = 0.15  # card heights: a face-down card this far from every stack is held
    fd_reach: float = 1.0  # card heights: a card held face down this far from where its face first shows names its source
    change_level: int = 6  # grey levels: a pixel of the small motion image changed by more than this...
    change_pixels: int = 3  # ...in more than this many pixels: the frame moved
    settle_frames: int = 3  # frames without change before the scene counts as settled
    motion: MotionParams = field(default_factory=MotionParams)  # size and blur of the motion image

    def __post_init__(self) -> None:
        def check(name: str, ok: bool, rng: str) -> None:
            if not ok:
                raise ValueError(f"watcher {name} must be {rng}, got {getattr(self, name)!r}")

        check("moving_every", isinstance(self.moving_every, int) and 1 <= self.moving_every <= 30, "1..30")
        check("confirm_every", isinstance(self.confirm_every, int) and 1 <= self.confirm_every <= self.moving_every,
              f"1..moving_every ({self.moving_every})")
        check("settled_every", isinstance(self.settled_every, int) and 1 <= self.settled_every <= 300, "1..300")
        check("window", isinstance(self.window, int) and 1 <= self.window <= 10, "1..10")
        check("agree", isinstance(self.agree, int) and 1 <= self.agree <= self.window, f"1..window ({self.window})")
        check("min_confidence", 0.0 < self.min_confidence < 1.0, "between 0 and 1")
        check("fused_confidence", 0.5 < self.fused_confidence <= 1.0, "in (0.5, 1]")
        check("fuse_floor", 0.0 < self.fuse_floor < 0.5, "in (0, 0.5)")
        check("still_tolerance", 0.0 < self.still_tolerance <= 0.5, "in (0, 0.5] card heights")
        check("still_reads", isinstance(self.still_reads, int) and 2 <= self.still_reads <= 20, "2..20")
        check("max_lying_scale", 1.0 < self.max_lying_scale <= 2.0, "in (1, 2]")
        check("lifted_scale", self.lifted_scale is None or 1.0 < self.lifted_scale <= self.max_lying_scale,
              "None or in (1, max_lying_scale]")
        check("top_radius", 0.0 < self.top_radius < 1.0, "in (0, 1) card heights")
        check("top_across", 0.0 < self.top_across < 0.7, "in (0, 0.7) card heights")
        check("vanish_reads", isinstance(self.vanish_reads, int) and 1 <= self.vanish_reads <= 50, "1..50")
        check("top_sure", 0.0 < self.top_sure <= self.under_sure, "in (0, under_sure] card heights")
        check("under_sure", 0.0 < self.under_sure < 1.0, "in (0, 1) card heights")
        check("side_wait", isinstance(self.side_wait, int) and 1 <= self.side_wait <= 100, "1..100")
        check("ask_after_s", 0.0 < self.ask_after_s <= 60.0, "in (0, 60] seconds")
        check("off_stack", 0.0 < self.off_stack < 1.0, "in (0, 1) card heights")
        check("fd_reach", 0.0 < self.fd_reach <= 10.0, "in (0, 10] card heights")
        check("change_level", isinstance(self.change_level, int) and 1 <= self.change_level <= 255, "1..255")
        check("change_pixels", isinstance(self.change_pixels, int) and 0 <= self.change_pixels, ">= 0")
        check("settle_frames", isinstance(self.settle_frames, int) and 1 <= self.settle_frames <= 300, "1..300")
        if not isinstance(self.motion, MotionParams):
            raise ValueError("watcher motion must be a MotionParams")

    @property
    def lifted(self) -> float:
        """The size (x a lying card there) above which a card is held just above a pile: ``lifted_scale``,
        or halfway to ``max_lying_scale`` (half the size scatter allowed for)."""
        return self.lifted_scale if self.lifted_scale is not None else 1.0 + (self.max_lying_scale - 1.0) / 2

    @property
    def held_scale(self) -> float:
        """The size (x a lying card there) above which a card is surely held up, not lying: the size
        scatter allowed for and half as much again."""
        return 1.0 + (self.max_lying_scale - 1.0) * 1.5


@dataclass(frozen=True)
class GameView:
    """What the watcher is told about the game (plain data from the caller, e.g. the referee)."""

    face_up: frozenset = frozenset()  # cards face up on the table or in the hand
    expected_pile: int | None = CENTRE  # the pile play is at (or most likely goes on from: see
    # ``Referee.play_on_pile``): never evidence of what a card is; the source of a card only when nothing was
    # seen of where it came from (see ``Watcher._source``)
    exchange_possible: bool = False  # Watch: the fourth king may be exchanged now
    last_king: Card | None = None
    face_down: dict | None = None  # pile -> face-down cards left (None: unknown)
    in_hand: Card | None = None  # the card the referee knows is in play (taken, not yet put down)


@dataclass
class Observation:
    """One observation: ``event`` is the referee's list form, or ``["ask", pile]``."""

    frame: int
    time_s: float
    event: list[Any]
    confidence: float | None = None
    note: str = ""

    @property
    def is_ask(self) -> bool:
        return self.event[0] == "ask"


@dataclass
class _Sighting:
    frame: int
    time_s: float
    card: Card | None
    conf: float
    centre: np.ndarray
    height: float  # size: sqrt of the quad's area
    aspect: float = 0.0  # short side / long side of the quad (0: unknown)
    both: bool = False  # its indices were seen at both ends
    leans: Card | None = None  # the card its look gave at least even odds (``LEANING``), read or not
    index_at: np.ndarray | None = None  # the centre of the printed index it was read by (None: unknown)
    rank_leans: int | None = None  # the rank index its look gave at least even odds (``LEANING``), read or not

    def shows(self, card: Card | None) -> bool:
        """Read as ``card``, or leaning to it."""
        return card is not None and card in (self.card, self.leans)


@dataclass
class _Hand:
    """The card being played or moved, seen face up off the table model."""

    first_frame: int
    reads: deque = field(default_factory=lambda: deque(maxlen=10))
    sightings: list[_Sighting] = field(default_factory=list)
    card: Card | None = None  # believed identity
    confidence: float = 0.0
    from_table: Card | None = None  # a table card being moved
    announced: bool = False  # turn/see (or exchange/see) emitted
    fused: bool = False  # the belief comes from its looks added up (``_fused``), no two sure readings agreeing
    provisional: bool = False  # announced on such a belief, the announcement held (``SOURCE_WAIT``) to be confirmed
    contested: bool = False  # two sure readings agree, but another card that can be new was read surely too
    rank_ev: np.ndarray = field(default_factory=lambda: np.zeros(13))  # summed log-probabilities of its looks
    suit_ev: np.ndarray = field(default_factory=lambda: np.zeros(4))
    looks: int = 0  # sightings that added to them
    leant_ranks: set = field(default_factory=set)  # rank ids some look gave at least even odds
    leant_suits: set = field(default_factory=set)  # ... and suit ids
    source: int | None = None
    play_was_at: int | None = None  # where play was when it was announced taken (its source elsewhere: out of turn)
    missing: int = 0
    still: int = 0  # recognitions in a row lying still
    still_from: int = 0  # frame of the first of them (lying still takes moving_every frames, however many looks)
    still_at: np.ndarray | None = None  # where it was then (a card creeping a little per look is not still)
    lifted: bool = False  # last seen bigger than a card lying where it is: held above the table
    lying_at: tuple[int, str] | None = None
    last_pos: tuple[int, str] | None = None  # lying position of the last sighting
    lying_since: float | None = None
    asked: bool = False
    fd_points: list = field(default_factory=list)  # (pile, centre) of face-down sightings before the face
    fd_early: int = 0  # how many of fd_points were seen before the card before it was judged put down
    stack_seen: int = 0  # recognitions, while lying still, where the stack of its pile showed
    lying_reads: int = 0  # recognitions lying still at lying_at
    stack_hidden: int = 0  # ... where its pile's stack did not show though nothing moved over it
    left_source: bool = False  # carried away from the pile it was taken from
    idle: int = 0  # sightings in a row without moving (lying or not)
    rest_from: int = -1  # the look it came to rest at rest_at (every look since within REST_SPREAD of it)
    rest_at: np.ndarray | None = None
    rest_t: float = 0.0  # ... and its time
    rest_alongs: list = field(default_factory=list)  # (pile, along) of its looks since that lay on top of a stack
    stirred: bool = False  # something moved near it after it came to rest: a hand letting go of it
    held: bool = False  # at its last look it rested where a hand pausing with it is taken for still holding it

    @property
    def last(self) -> _Sighting:
        return self.sightings[-1]

    def restart_still(self, index: int, at: np.ndarray | None = None) -> None:
        """Start counting lying still again from frame ``index``: at ``at`` (one look) or, None, not at a
        lying place; it lies nowhere until it has lain still again."""
        self.still = 0 if at is None else 1
        self.still_from, self.still_at = index, at
        self.lying_at = self.lying_since = None
        self.stack_seen = self.stack_hidden = 0


class DetectorNoise:
    """How much the recogniser's positions and sizes scatter for things known to lie still: the stacks
    on a settled table and the face-up cards it has placed. An exact recogniser (the renderer's truth)
    measures no scatter and leaves the settings alone; a trained one widens the watcher's tolerances to
    what it measured (:meth:`widen`), so its noise is not taken for cards lifted, held or moving. Until
    it has measured enough, it starts from the recogniser's own figure, when it gives one (:meth:`told`)."""

    def __init__(self, min_samples: int = 30, keep: int = 300) -> None:
        self.min_samples = min_samples
        self.stack_off: deque = deque(maxlen=keep)  # card heights from the stack's place
        self.stack_size: deque = deque(maxlen=keep)  # |log| of size over the stack's median size
        self.card_off: deque = deque(maxlen=keep)  # card heights from the face-up card's place
        self.card_size: deque = deque(maxlen=keep)  # log of size over a card lying there
        self._stack_hist = [deque(maxlen=15) for _ in range(13)]
        self.prior: dict | None = None  # the recogniser's figure (see :meth:`told`)

    def stack_sighting(self, pile: int, off: float, size: float) -> None:
        hist = self._stack_hist[pile - 1]
        hist.append(size)
        if len(hist) >= 3:
            self.stack_off.append(off)
            self.stack_size.append(abs(math.log(size / float(np.median(hist)))))

    def told(self, scatter: dict | None) -> None:
        """The recogniser's own figure for its scatter (``Detections.meta["scatter"]``): used until enough
        sightings are measured here (a game's first cards lie before any has lain long enough)."""
        self.prior = dict(scatter) if scatter else None

    def card_sighting(self, off: float, size_ratio: float) -> None:
        self.card_off.append(off)
        self.card_size.append(math.log(max(size_ratio, 1e-6)))

    def _q(self, values: deque, q: float) -> float | None:
        return float(np.percentile(np.fromiter(values, float), q)) if len(values) >= self.min_samples else None

    def widen(self, p: "WatcherParams") -> "WatcherParams":
        """``p`` with its tolerances raised to the scatter measured (never lowered)."""
        changes: dict[str, float] = {}
        off = self._q(self.stack_off, 95)
        if off is not None and off + 0.05 > p.off_stack:
            changes["off_stack"] = min(0.9, off + 0.05)
        prior = self.prior or {}
        card_size = self._q(self.card_size, 95)
        if card_size is None:
            card_size = prior.get("size")
        sizes = [v for v in (card_size, self._q(self.stack_size, 95)) if v is not None]
        if sizes and math.exp(max(sizes)) * 1.02 > p.max_lying_scale:
            changes["max_lying_scale"] = min(2.0, math.exp(max(sizes)) * 1.02)
        # held above a pile: bigger than nine in ten sightings of the cards lying on the table (a
        # trained detector sizes them 4-7% over the stacks at the median, and a fifth of them over
        # the old mark, halfway to ``max_lying_scale``: 2000's 5S lay beneath pile 5 unplaced)
        most = changes.get("max_lying_scale", p.max_lying_scale)
        lift = self._q(self.card_size, 90)
        if lift is None and "size" in prior:
            lift = 0.8 * prior["size"]  # the 90th percentile, roughly, of the prior's 95th
        if lift is not None and math.exp(lift) > replace(p, max_lying_scale=most).lifted:
            changes["lifted_scale"] = min(most, math.exp(lift))
        # the hand card is compared with its last sighting, two noisy positions: a fifth of a trained
        # detector's lying cards jump further between two looks than four in five lie off their place
        # (2000: a card lying beneath a pile went unplaced for 25 frames)
        still = self._q(self.card_off, 95)
        if still is None:
            still = prior.get("position")  # (9015: the first card, lying beneath pile 11, jumped 0.12
            # card heights between two looks, three times the exact default, and was never put down)
        if still is not None and still > p.still_tolerance:
            changes["still_tolerance"] = min(0.5, still)
        return replace(p, **changes) if changes else p


class ChangeGate:
    """Moving or settled, from the number of changed pixels in a small blurred grey image.

    (The mean difference of :class:`~companion.vision.motion.MotionGate` hardly moves when one hand
    crosses a whole table: 0.2-0.5 grey levels at 1280x720, under its noise thresholds; a count of
    changed pixels is 0 on still frames and tens to hundreds while a hand moves.)"""

    def __init__(self, params: "WatcherParams") -> None:
        self.p = params
        self.prev: np.ndarray | None = None
        self.still = 0
        self.settled = False
        self.just_settled = False
        self.changed = 0
        self.mask: np.ndarray | None = None

    def update(self, image: np.ndarray) -> bool:
        """Feed a frame; True when the scene is settled."""
        m = self.p.motion
        g = small_grey(image, m.width, m.blur)
        self.just_settled = False
        if self.prev is None or self.prev.shape != g.shape:
            self.prev, self.still, self.settled = g, 0, False
            return False
        diff = cv2.absdiff(g, self.prev)
        self.prev = g
        self.mask = diff > self.p.change_level
        self.changed = int(np.count_nonzero(self.mask))
        if self.changed > self.p.change_pixels:
            self.still = 0
            self.settled = False
        else:
            self.still += 1
            if not self.settled and self.still >= self.p.settle_frames:
                self.settled = True
                self.just_settled = True
        return self.settled


class Watcher:
    """``Watcher(layout, recognise)``; call :meth:`update` with each frame and the :class:`GameView`.

    ``recognise(frame) -> Detections`` is given the :class:`~companion.vision.sources.Frame` (wrap a
    :class:`~companion.vision.recogniser.Recogniser` as ``lambda f: rec(f.image)``). ``zoom(frame, box)``,
    optional, reads only the part ``box`` = (x0, y0, x1, y1) of the frame, in the frame's pixels (``lambda
    f, box: rec.read_region(f.image, box)``): a card in play that the whole frame leaves unread is looked
    at again through it."""

    def __init__(self, layout: Layout, recognise: Callable[[Any], Detections],
                 params: WatcherParams | None = None,
                 zoom: Callable[[Any, tuple[int, int, int, int]], Detections] | None = None,
                 zoom_hand: bool = True) -> None:
        self.params = params or WatcherParams()
        self.noise = DetectorNoise()
        self.eff = self.params  # the settings widened by the recogniser's measured scatter
        self.recognise = recognise
        self.zoom = zoom
        self.zoom_hand = zoom_hand
        self._frame: Any = None  # the frame being looked at (for ``zoom``)
        self.gate = ChangeGate(self.params)
        self.table = TableModel()
        self.hand: _Hand | None = None
        self.fd_recent: deque = deque(maxlen=12)  # (frame, pile, centre) of face-down cards seen off the stacks
        self._lost: deque = deque(maxlen=4)  # hand cards lost from sight never announced (``_missed_card``)
        self._fd_put: tuple[int, list] = (-1, [])  # the look a card was put down at, and the backs seen since it was read
        self.recognitions = 0
        self.frames = 0
        self._since_recognition = 10 ** 9
        self._since_regular = 10 ** 9  # frames since a look at the regular rate (confirming looks come between)
        self._exchange_pending = False  # an exchange was seen: the next card needs no turn
        self._stacks_seen: set[int] = set()
        self._stack_seen_at: dict[int, int] = {}  # pile -> the last look its stack showed at
        self._view: GameView | None = None
        self._boxes: Any = None
        self._motion_hist: deque = deque(maxlen=4)
        self._mask_hist: deque = deque(maxlen=4)  # the changed-pixel masks of the last frames
        self.last_detections: Detections | None = None
        self.view_shifts = 0
        self._orphan: _Hand | None = None
        self._passed_orphan: _Hand | None = None  # an orphan a new hand card did not seem to be (yet)
        self._fd_last: tuple[int, np.ndarray, float] | None = None  # (frame, centre, size): last face-down card held
        self._extra_look = False  # this recognition is a confirming look (see ``confirm_every``)
        self._fd_now = False  # one was seen held in this recognition
        self._both_known = False  # this recognition says whether each card's two indices show
        self._resumed: tuple[Card | None, int] | None = None  # a card already taken (resumed game)
        #: (frame, motion image) of the last ``GREYS_KEPT`` frames: where a hand holding a card would be, that
        #: hand's absence shows against the picture from before the card was taken (``_hand_gone``)
        self._greys: deque = deque(maxlen=GREYS_KEPT)
        self._to_find: dict[Card, tuple[int, str]] = {}  # face-up cards of a resumed game not yet seen
        self._last_put: int | None = None  # the frame the last card put down came to rest (or the first frame)
        self._last_read_put: int | None = None  # ... the last new card known (read) when put down
        self._held: list[Observation] = []  # a turn and a reading waiting for the stacks (``SOURCE_WAIT``)
        self._held_for: _Hand | None = None
        self._holding_for: _Hand | None = None  # the hand card whose turn ``_holding`` is about
        self._holding_since: int | None = None  # ... and ``_last_put`` when it was announced
        self._held_since: int | None = None  # ``_last_put`` when it was held (the card may be put down meanwhile)
        self._holding: bool = False  # the announcement just made waits
        self._seeking: bool = False  # ... while a card played unseen before it is looked for
        self._announced: set[Card] = set()  # every card reported read (put back face down or not)
        self._phantoms: list[np.ndarray] = []  # where an unread shape that never moved was taken for a hand card
        self._left_unread: list[np.ndarray] = []  # where an unread card asked for was left as play went on
        self._put_back: tuple[int, int] | None = None  # (frame, pile) of the last card judged put back face down
        self._next_read: tuple[Card, int] | None = None  # a card read turning at a stack while the hand is busy
        self.set_layout(layout)

    # -- layout ------------------------------------------------------------------------------------
    def set_layout(self, layout: Layout) -> None:
        """Use a new layout (after re-registration): table positions and learnt sizes move with it."""
        old = getattr(self, "layout", None)
        self.layout = layout
        self.h = float(np.median(layout.pile_card_h))
        self._boxes = None
        self.stack_looks = StackLooks(layout.centres, layout.pile_card_h,  # (a moved view: looks start again)
                                      compare_looks=STACK_COMPARE_LOOKS)
        if old is None:
            self.geometry = ViewGeometry(layout)
            self.stack_size = self.geometry.sizes.copy()
            self.stack_aspect = np.full(13, CARD_ASPECT)
            self._sizes_seen = np.zeros(13, bool)
            self._size_hist = [deque(maxlen=9) for _ in range(13)]
            return
        ratio = layout.pile_card_h / old.pile_card_h
        self.stack_size = self.stack_size * ratio
        self._size_hist = [deque((v * float(r) for v in hq), maxlen=9) for hq, r in zip(self._size_hist, ratio)]
        self.geometry = ViewGeometry(layout, sizes=self.stack_size)
        for tc in self.table:
            p = tc.pile
            k = layout.pile_card_h[p - 1] / old.pile_card_h[p - 1]
            tc.centre = (tc.centre - old.centres[p - 1]) * k + layout.centres[p - 1]
            if tc.also_at is not None:
                tc.also_at = (tc.also_at - old.centres[p - 1]) * k + layout.centres[p - 1]
            tc.index_at = None

    def restore(self, face_up: dict[Card, tuple[int, str]], in_hand: Card | None = None,
                source: int | None = None) -> None:
        """A resumed game: the face-up cards already on the table (card -> pile, side), and the card
        already taken from pile ``source`` (``in_hand``; None: not read yet), before this watcher
        started. Each table card is learnt where it is first read at its pile (a card hidden by the
        hand at first is learnt later, not taken for a new card); the next card taken up is the one
        in the hand: its turn (and its reading, when known) is not reported again."""
        self._to_find = dict(face_up)
        self._resumed = (in_hand, source) if source is not None else None
        self._announced.update(face_up)
        if in_hand is not None:
            self._announced.add(in_hand)

    # -- per frame ---------------------------------------------------------------------------------
    def update(self, frame: Any, view: GameView | None = None) -> list[Observation]:
        """Feed one frame; returns the observations it completes (usually none)."""
        view = view or GameView()
        self._view = view
        self.frames += 1
        settled = self.gate.update(frame.image)
        if self.gate.prev is not None:
            self._greys.append((frame.index, self.gate.prev))
        p = self.params
        self._pile_motion_update(frame.image)
        self._note_stirred(frame.index)
        self.stack_looks.update(frame.image, frame.index)
        if self._last_put is None:
            self._last_put = frame.index
        self._since_recognition += 1
        self._since_regular += 1
        # while a card is in play (taken, not yet judged put down) the scene may settle before its side is
        # known (a card put back on top of its own stack waits for the stack to stay hidden): keep looking
        # at the moving rate, not the settled one, or the verdict waits up to settled_every frames
        in_play = self.hand is not None
        due = (self.gate.just_settled
               or (settled and self._since_regular >= (p.moving_every if in_play else p.settled_every))
               or (not settled and self._since_regular >= p.moving_every))
        # the hand card looks still at a pile: look again soon, so one look covered by the hand (just as
        # the card comes to rest) does not hold the verdict back a whole moving_every
        extra = not due and self._confirming() and self._since_recognition >= p.confirm_every
        if not (due or extra):
            return self._release([], frame.index)
        self._extra_look = extra
        self._since_recognition = 0
        if due:
            self._since_regular = 0  # confirming looks add to the regular ones, never replace them: counts
            # kept in regular looks (a card missing, lying a while) keep their pace
        self._frame = frame
        dets = self._zoomed(frame, self.recognise(frame))
        self.last_detections = dets
        self.recognitions += 1
        return self._release(self._observe(frame.index, float(frame.time_s), dets, view), frame.index, looked=True)

    def _release(self, out: list[Observation], index: int, force: bool = False,
                 looked: bool = False) -> list[Observation]:
        """Hold back a turn judged away from where play is until the stacks show where the card came
        from; release it, its pile settled, before anything else is reported. While a card seems to have
        been played unseen before it (``_missed_card``), each look searches for that card, up to
        ``MISSED_WAIT`` frames."""
        hold = None
        if self._holding:
            self._holding = False
            if len(out) >= 2 and out[-2].event[0] == "turn" and out[-1].event[0] == "see":
                hold, out = out[-2:], out[:-2]
            else:
                # named and put down in one look (read only as it came to lie): the turn cannot be held, the
                # card is down; the stacks' final word at once, as for a held turn whose card is put down
                k = next((i for i in range(len(out) - 2, -1, -1)
                          if out[i].event[0] == "turn" and out[i + 1].event[0] == "see"), None)
                h = self._holding_for
                if k is not None and h is not None and any(o.event[0] == "place" for o in out[k + 2:]):
                    pile, _ = self._source_by_stacks(out[k].event[1], h, self._holding_since, final=True)
                    out[k] = replace(out[k], event=["turn", pile])
                    h.source = pile
        if self._held:
            turn = self._held[0]
            pile, decided = self._source_by_stacks(turn.event[1], self._held_for, self._held_since)
            h = self._held_for
            found: list[Observation] = []
            if self._seeking and looked and h is not None and self.hand is h and self._view is not None:
                h.source = pile
                found = self._missed_card(h, turn.frame, turn.time_s, self._view, self._held_since) or []
            expected = self._view.expected_pile if self._view is not None else None
            if decided and pile == expected:
                self._seeking = False  # the stacks say it came from where play is: nothing was missed
            wait = MISSED_WAIT if self._seeking else SOURCE_WAIT
            # (a belief its looks only add up to waits for a sure reading, as long as a turn waits for the
            # stacks: a prompt later than that helps no one)
            unsure = h is not None and h.provisional and self.hand is h
            if found or (decided and not self._seeking and not unsure) or force or out or hold is not None \
                    or self.hand is not h or index - turn.frame >= wait:
                held = self._held
                self._held, self._held_for, self._seeking = [], None, False
                if not decided and not found and any(o.event[0] == "place" for o in out):
                    # put down, the turn can wait no longer: the stacks' final word. Only then: a card put
                    # back face down was held where it was judged taken, hiding that stack, and was taken
                    # there (the GNOME-deck game 3: a 9H turned out of turn at 11 and put back, 4.8 grey
                    # levels of change where play was); so was one still held there when SOURCE_WAIT is up
                    # (oracle game 8921's 3S, taken out of turn at 4, put back a frame later)
                    pile, _ = self._source_by_stacks(turn.event[1], h, self._held_since, final=True)
                held[0] = replace(turn, event=["turn", pile])
                if h is not None:
                    h.source = pile
                out = found + held + out
        if hold is not None:
            self._held, self._held_for, self._held_since = hold, self.hand, self._last_put
        return out

    def _zoomed(self, frame: Any, dets: Detections) -> Detections:
        """The frame's detections, with the card in play looked at again through ``zoom`` when this look
        does not read it (not read yet, or read before and not found now: a card slid beneath a stack
        may show only a sliver): the nearest unread face-up detection to where it was last seen (or,
        none found, that place) is looked at in a square ``ZOOM_SIDE`` card heights wide, and the card
        read there (a card not face up already, or the card in play when it is known) replaces the
        unread detection where it lies, or joins the detections. Nothing else changes: the rest of the
        table is followed as the whole frame shows it."""
        h = self.hand
        if self.zoom is None or not self.zoom_hand or h is None or h.from_table is not None or not h.sightings:
            return dets
        view = self._view or GameView()

        def wanted(card: Card | None) -> bool:
            if card is None:
                return False
            if h.card is not None and not h.provisional:
                return card == h.card
            return card == h.card or not self._impossible(card, view)

        def nearest(rows: list[int], point: np.ndarray, reach: float) -> int | None:
            if not rows:
                return None
            d = np.linalg.norm(dets.centres[rows].astype(np.float64) - point, axis=1)
            k = int(np.argmin(d))
            return rows[k] if d[k] <= reach else None

        up = [i for i in range(len(dets)) if dets.face_up[i]]
        if any(wanted(dets.card(i)) for i in up):
            return dets  # read this time: nothing to add
        centre = h.last.centre.astype(np.float64)
        unread = nearest([i for i in up if dets.card(i) is None], centre, 1.5 * self.h)
        if unread is not None:
            centre = dets.centres[unread].astype(np.float64)
        z = self.zoom(frame, _square(centre, ZOOM_SIDE * self.h))
        found = [j for j in range(len(z)) if z.face_up[j] and wanted(z.card(j))]
        if found:
            # no bigger than a card held up there can look: the zoom's quad of a card read by its index
            # alone, half hidden under the next card turned over it, can come out far too big (9015 at
            # 1080p: the QC beneath 12 found 1.5-1.9 x a card there as the AS was turned over it, taken
            # for lifted, never judged put down, and "returned" to the centre)
            pile = self._nearest_pile(centre)
            most = ZOOM_MAX_SCALE * self.geometry.pile_size_at(pile, centre)
            sizes = quad_sizes(z.quads[found])
            found = [j for j, size in zip(found, sizes) if float(size) <= most]
        if not found:
            return dets
        best = min(found, key=lambda j: float(np.linalg.norm(z.centres[j] - centre)))  # two: the nearer
        here = nearest(up, z.centres[best].astype(np.float64), 0.35 * self.h)
        if here is not None and dets.card(here) is not None:
            return dets  # a reading there stands
        keep = [i for i in range(len(dets)) if i != here]
        return Detections.concat([dets[keep], z[[best]]])

    def _confirming(self) -> bool:
        """The hand card (read, or a table card being moved) was last seen still at a lying position, not
        held above it, and is not yet put down (its side may wait for its stack to stay hidden)."""
        h = self.hand
        return h is not None and (h.announced or h.from_table is not None) and h.still >= 1 \
            and h.last_pos is not None and not h.lifted and h.missing == 0

    def finish(self, index: int, time_s: float) -> list[Observation]:
        """At the end of the source: a hand card last seen lying at a pile is put down there."""
        out = self._release([], index, force=True)
        h = self.hand
        if h is not None:
            h.missing = max(h.missing, 1)
            down = self._put_down_at(h)
            if down is not None:
                h.lying_at = down
                return out + self._place(h, index, time_s)
            return out + self._named_where_lost(h, index, time_s)
        return out

    def _named_where_lost(self, h: _Hand, index: int, t: float) -> list[Observation]:
        """An unnamed hand card carried at least a card height, lost from sight (or the source ended) just
        after its one sure reading, as a card that can be new, seen lying at that card's own pile (never read
        surely as another): named so and put down there, its turn and reading first; no later look will name
        it (9173 at 1080p, models: the last king, the KS, read surely once as it came to lie beneath the
        centre, then lost in the fan of kings there, which the detector sees as one card; the end of the game
        never seen). Never for a shape seen at one place only: a card lying there misread (a first version
        named "4S" a shape read so once by 4, long before the 4S was turned, on the same game). [] otherwise."""
        view = self._view or GameView()
        sure = {c for c in h.reads if c is not None}
        if h.card is not None or h.from_table is not None or h.announced or len(sure) != 1 \
                or h.last_pos is None or h.last_pos[1] == "top":
            return []
        card, = sure
        if h.last.card != card or card.home_pile != h.last_pos[0] or self._impossible(card, view):
            return []
        if float(np.linalg.norm(h.last.centre - h.sightings[0].centre)) < self.h:
            return []  # never seen carried there: a misreading of a card lying there (9173's "4S" by 4)
        h.card = card
        h.confidence = h.last.conf
        out = self._announce(h, index, t, view)
        h.lying_at = h.last_pos
        return out + self._place(h, index, t)

    def _pile_motion_update(self, image: np.ndarray) -> None:
        """Changed pixels around each stack in the last few frames (a hand over a stack moves)."""
        m = self.gate.mask
        if m is None:
            return
        self._mask_hist.append(m)
        self._image_shape = image.shape[:2]
        if self._boxes is None or self._boxes[0] != m.shape:
            sy = m.shape[0] / image.shape[0]
            sx = m.shape[1] / image.shape[1]
            boxes = []
            for k in range(13):
                cx, cy = self.layout.centres[k]
                r = 0.45 * self.layout.pile_card_h[k]
                boxes.append((max(0, int((cy - r) * sy)), max(0, int((cy + r) * sy) + 1),
                              max(0, int((cx - r) * sx)), max(0, int((cx + r) * sx) + 1)))
            self._boxes = (m.shape, boxes)
        now = np.array([np.count_nonzero(m[a:b, c:d]) for a, b, c, d in self._boxes[1]])
        self._motion_hist.append(now)

    def _moving_near(self, point: np.ndarray, radius: float) -> bool:
        """Something moved within ``radius`` pixels of ``point`` in the last frames (a held card is in a
        hand, and a hand moves; a detector's noise at a still stack is not a card lifted there)."""
        if not self._mask_hist:
            return True  # no motion measured yet: cannot tell
        m = self._mask_hist[-1]
        return any(self._mask_near(mk, point, radius) for mk in self._mask_hist if mk.shape == m.shape)

    def _mask_near(self, m: np.ndarray, point: np.ndarray, radius: float) -> bool:
        """The changed-pixel mask ``m`` has a changed pixel within ``radius`` pixels of ``point``."""
        sy = m.shape[0] / self._image_shape[0]
        sx = m.shape[1] / self._image_shape[1]
        x, y = float(point[0]) * sx, float(point[1]) * sy
        rx, ry = radius * sx + 1, radius * sy + 1
        a, b = max(0, int(y - ry)), max(0, int(y + ry) + 1)
        c, d = max(0, int(x - rx)), max(0, int(x + rx) + 1)
        return bool(m[a:b, c:d].any())

    def _still_held(self, h: _Hand, pos: tuple[int, str], t: float) -> bool:
        """The hand card came to rest where a hand pausing with it on its way looks like one that put it down,
        and nothing has stirred near it since (``_note_stirred``), for less than ``HELD_STILL_S``: it is still
        held there, not put down (a hand lets go of a card it puts down and moves away, while the card stays).
        Such places, for a read card in play (not a table card being moved): another pile's (9171 at 1080p,
        models: an 8D held 1.8 s over 7's fan on its way to 8, judged put beneath 7, a false
        WRONG_TARGET_PILE; 9177's 9D over 7), and on top of a stack, its own too (9178's 3S held 1.8 s above
        its own stack, judged put on top, a false WRONG_SIDE), and close to its own stack hiding it, where it
        would be judged on top (9177: a 9C held 2 s 0.23-0.32 card heights out over its stack, hiding it, then
        slid beneath, a false WRONG_SIDE). For a card not yet read, only well inward of a
        stack, ``HELD_INWARD`` card heights or more, where no card put on top lies (9130: the first card, a
        6S, held 2 s 0.27 card heights inward of the stack of 6). Never beneath its own pile: a card slid out
        there is judged as it comes to rest, before the hand lets go. (A table card taken for moved while a
        hand passed over it, held so, changed the start of the next card's trail: 9181 at 1080p, models, an
        8S "moved" on top of its own stack; the 4H turned next out of turn was judged taken where play was.)"""
        if h.stirred or not self._mask_hist or t - h.rest_t >= HELD_STILL_S:
            return False  # (no motion measured: cannot tell)
        if h.card is not None and h.from_table is None and (pos[1] == "top" or not self._home_is(h, pos[0]) or (
                pos[1] == "near" and self._side_close_to(h, pos[0]) == "top")):
            held = True
        elif pos[1] != "top":
            return False
        else:
            alongs = [a for q, a in h.rest_alongs if q == pos[0]]
            # where it came to rest (its first looks there): the detector's quad of a card held in a hand drifts
            held = bool(alongs) and float(np.median(alongs[:3])) < -HELD_INWARD
        return held and not self._hand_gone(h)

    def _hand_gone(self, h: _Hand) -> bool:
        """Around the hand card (a ring ``HAND_RING`` card heights from its centre) the table looks as it did
        in one of ``HAND_GONE_LOOKS`` pictures from the last card put down to the frame this card was first
        seen in (being taken, elsewhere): no hand holds the card, it was let go. (Only the first-look picture
        held oracle 10056's 6S beneath 7 533 ms: the arm reaching for 10 crossed that ring then.) A hand
        leaving just as the card comes to rest moves by it before it has lain still, which is not taken for
        letting go (``_note_stirred``); after that nothing stirs (oracle 10018 and 10010 at
        640x360: a KH and a KS put beneath 11 by mistake, the hand gone within two looks, were held until
        the next hand came by: verdicts 900 and 767 ms late). A hand pausing with the card covers a third of
        that ring (9184's JS over the centre). A card come to rest less than ``HAND_GONE_FROM`` card heights
        from where it was first seen is held as before: the hand holding it then is in that ring (9183 at
        1080p, models: a 2S first seen held over the centre's fan, held there 1.8 s on its way to 2, the hand
        never moving, was "let go" there and judged put beneath 13, a false WRONG_TARGET_PILE). (2.6 card
        heights, a hand's reach beyond the ring, held oracle 10051's KH, put on top of 13 2.1 card heights
        from its first look, until a hand came by: 433 ms.)"""
        if not h.sightings or float(np.linalg.norm(h.sightings[0].centre - h.last.centre)) < HAND_GONE_FROM * self.h:
            return False
        now = self.gate.prev
        if now is None:
            return False
        since = self._last_put if self._last_put is not None else h.first_frame
        kept = [(i, g) for i, g in self._greys if i <= h.first_frame and g.shape == now.shape]
        window = [g for i, g in kept if i >= since] or [g for _, g in kept[-1:]]
        if not window:
            return False
        step = max(1, -(-len(window) // HAND_GONE_LOOKS))
        bares = window[::-1][::step]  # the frame the card was first seen in, and others spread back from it
        sx, sy = now.shape[1] / self._image_shape[1], now.shape[0] / self._image_shape[0]
        ys, xs = np.mgrid[:now.shape[0], :now.shape[1]]
        c = h.last.centre
        r = np.hypot((xs + 0.5) / sx - c[0], (ys + 0.5) / sy - c[1]) / self.h
        ring = (r >= HAND_RING[0]) & (r < HAND_RING[1])
        if not ring.any():
            return False
        level = 2 * self.params.change_level
        here = now[ring].astype(np.int16)
        return any(float((np.abs(here - bare[ring].astype(np.int16)) > level).mean()) < HAND_GONE_SHARE
                   for bare in bares)

    def _note_stirred(self, index: int) -> None:
        """Mark the hand card stirred when something moves within ``LET_GO_REACH`` card heights of where it
        came to rest, in a frame after it was seen lying still there (``still_reads`` looks; see
        ``_Hand.stirred``). Motion before that is the card coming to rest: the hand slowing into a pause, or
        turning the card face up where it pauses (9172 at 1080p, models: a 4H turned at 9 out of turn, shown
        held 0.28 card heights inward of 10's stack, "stirred" by its own turning over, was judged put on top
        of 10, a false WRONG_TARGET_PILE, and its return missed)."""
        h = self.hand
        if h is None or h.stirred or h.rest_at is None or index <= h.rest_from or self.gate.mask is None \
                or not self._mask_hist or h.still < self.eff.still_reads:
            return
        h.stirred = self._moving_by_rest(h)

    def _moving_by_rest(self, h: _Hand) -> bool:
        """Something moved, in the last frame, within ``LET_GO_REACH`` card heights of where the hand card
        came to rest."""
        m = self.gate.mask
        return m is not None and h.rest_at is not None and self._mask_near(m, h.rest_at, LET_GO_REACH * self.h)

    def _let_go(self, h: _Hand, pile: int) -> bool:
        """A hand stirred by the hand card after it came to rest, and now nothing moves by it or over the stack
        of ``pile``: that hand let go of it and left (see :meth:`_track`'s doubled wait at the source)."""
        return h.stirred and self._quiet_by(h, pile)

    def _left_lying(self, h: _Hand, pile: int) -> bool:
        """The hand card has stayed within the still tolerance for ``LEFT_LYING_LOOKS`` looks and nothing moves
        by it or over the stack of ``pile``: let go of, not held or being turned over there."""
        return h.idle >= LEFT_LYING_LOOKS and self._quiet_by(h, pile)

    def _quiet_by(self, h: _Hand, pile: int) -> bool:
        """In the last frame nothing moved by where the hand card came to rest, nor over the stack of ``pile``."""
        return self._stack_still(pile) and self.gate.mask is not None and not self._moving_by_rest(h)

    def _hand_elsewhere(self, point: np.ndarray, ph: float) -> bool:
        """The hand card was seen at the last look, at least ``HAND_CLEAR_OF_TABLE`` card heights from ``point``: the
        motion there is the hand's, holding that card, not a table card lying at ``point`` being moved."""
        h = self.hand
        return h is not None and h.from_table is None and bool(h.sightings) and h.missing == 0 and \
            float(np.linalg.norm(point - h.last.centre)) >= HAND_CLEAR_OF_TABLE * ph

    def _stack_still(self, pile: int) -> bool:
        """Nothing moved around the stack of ``pile`` in the last frame. (Two such looks with the stack
        hidden are asked for, ``stack_hidden >= 2``; asking two still frames of each look as well made a
        card put on top of its own pile wait a third frame after the hand left: 8921 and 8967 at 640x360,
        167 ms against the 150 ms target.)"""
        return len(self._motion_hist) > 0 and int(self._motion_hist[-1][pile - 1]) == 0

    def _stack_quiet(self, pile: int) -> bool:
        """At most a few changed pixels (``STACK_FAINT`` of the box) around the stack of ``pile`` in the last
        frame: the edge of a hand holding still on the card it has just laid there, which hides that stack
        (oracle 10205 at 640x360: a JS laid on top of 11, 0.137 card heights out, the fingers still on it
        for three looks, 2 and 1 pixels changing there, then the palm resting on it: judged after five
        looks out of sight, 467 ms after it settled)."""
        if not self._motion_hist or self._boxes is None:
            return False
        a, b, c, d = self._boxes[1][pile - 1]
        return int(self._motion_hist[-1][pile - 1]) <= STACK_FAINT * (b - a) * (d - c)

    # -- one recognition ---------------------------------------------------------------------------
    def _pile_h(self, pile: int) -> float:
        return float(self.layout.pile_card_h[pile - 1])

    def _read(self, dets: Detections, i: int) -> tuple[Card | None, float]:
        card = dets.card(i)
        conf = dets.confidence(i)
        if card is None or conf < self.params.min_confidence:
            return None, conf
        return card, conf

    def _observe(self, index: int, t: float, dets: Detections, view: GameView) -> list[Observation]:
        if self.recognitions % 5 == 1:
            self.noise.told(dets.meta.get("scatter"))
            self.eff = self.noise.widen(self.params)
        p = self.eff
        self._both_known = dets.both_indices is not None  # before any step asks _beneath_seen_stack
        out: list[Observation] = []
        up = [i for i in range(len(dets)) if dets.face_up[i]]
        centres = dets.centres.astype(np.float64) if len(dets) else np.zeros((0, 2))
        heights = quad_sizes(dets.quads) if len(dets) else np.zeros(0)
        aspects = _aspects(dets.quads) if len(dets) else np.zeros(0)
        index_at = dets.index_centres.astype(np.float64) if len(dets) else np.zeros((0, 2))
        reads = {i: self._read(dets, i) for i in up}
        rank_pp, suit_pp = dets.rank_probabilities(), dets.suit_probabilities()
        if self.hand is not None and self._never_left(self.hand):
            self.hand = None  # the table card it took for picked up lies where it lay (see _never_left)
        if self.hand is not None and self._settled_table_card(self.hand):
            self.hand = None  # the card just put down there, come to rest (see _settled_table_card)
        self._learn_stack_sizes(dets, centres, heights, aspects)
        self._follow_view(dets, centres, reads)
        # 1. face-up detections explained by the table model
        explained: set[int] = set()
        seen_table: set[Card] = set()
        for tc in self.table:
            if self.hand is not None and self.hand.from_table == tc.card:
                continue  # being moved: its old place says nothing now
            best, best_d = None, math.inf
            for i in up:
                if i in explained:
                    continue
                d = tc.distance(centres[i]) / self._pile_h(tc.pile)
                card = reads[i][0]
                # read as another card: a misreading of this one only when that card cannot be new
                # (it is face up already) and does not lie here itself (a fan's cards lie a few pixels
                # apart: the next card of the fan read rightly is no misreading of this one); an unseen
                # card read here is a new card (just turned over)
                in_hand = self.hand is not None and card is not None and card == self.hand.card
                if d < TABLE_MATCH_REACH and (card is None or card == tc.card or (d < 0.05 and self._impossible(card, view)
                                                                     and not in_hand
                                                                     and not self._lies_at(card, centres[i]))) \
                        and d < best_d:
                    best, best_d = i, d
            if best is None:
                # read as this card a little off its place, lying at the same pile: its place was
                # taken while it settled; refresh it (unless it now lies on the other side of the
                # stack: slid from on top to beneath, or back, it was moved: a correction)
                for i in up:
                    if i in explained or reads[i][0] != tc.card:
                        continue
                    d = float(np.linalg.norm(centres[i] - tc.centre)) / self._pile_h(tc.pile)
                    if d < 0.2:
                        sg = _Sighting(index, t, tc.card, reads[i][1], centres[i], float(heights[i]), float(aspects[i]))
                        pos = self._lying_position(sg)
                        side = self._side_by_place(tc.pile, centres[i])
                        if pos is not None and pos[0] == tc.pile and side in (None, tc.side):
                            best = i
                            # seen by its other index, it keeps the place it was seen at by the first
                            other = tc.index_at is not None and float(np.linalg.norm(
                                index_at[i] - tc.index_at)) > OTHER_INDEX * self._pile_h(tc.pile)
                            tc.also_at = tc.centre if other else None
                            tc.centre = centres[i].copy()
                            break
            scatter = False
            if best is None:
                # read surely as this card, further off its place than the refresh allows, with nothing
                # moving by it: the detector placing a partly covered card's quad two ways (9015 at
                # 1080p: a JD beneath 11 seen in turn at two centres 0.2 card heights apart, the far one
                # taken for a new card in the hand, which then hid the next card turned); a card picked
                # up to be moved moves with the hand. Its place is kept (no drift to the far mode).
                # Unread, likewise, unless it could be the hand card just put down by it.
                ph = self._pile_h(tc.pile)
                hand_at = self.hand.last.centre if self.hand is not None and self.hand.sightings else None
                near = []
                for i in up:
                    if i in explained or reads[i][0] not in (None, tc.card):
                        continue
                    d = tc.distance(centres[i]) / ph
                    moving = self._moving_near(centres[i], 0.6 * ph)
                    if d >= STILL_REREAD_REACH or moving and not (
                            reads[i][0] == tc.card and self._hand_elsewhere(centres[i], ph)):
                        continue
                    if reads[i][0] is None and hand_at is not None and \
                            float(np.linalg.norm(centres[i] - hand_at)) < HAND_CLEAR * ph:
                        continue
                    near.append((reads[i][0] is None, d, i, moving))  # surely read first, then the nearest
                if near:
                    _, _, best, moving = min(near)
                    scatter = True
                    if moving:
                        # read surely there as a hand goes by holding another card: it is seen there too
                        # (as by its other index), so an unsure look there later is that card as well
                        tc.also_at = centres[best].copy()
            if best is not None:
                if not scatter:  # (the far mode is not the scatter the tolerances widen to)
                    self.noise.card_sighting(tc.distance(centres[best]) / self._pile_h(tc.pile),
                                             float(heights[best]) / self.geometry.pile_size_at(tc.pile, centres[best]))
                    tc.index_at = index_at[best]
                explained.add(best)
                seen_table.add(tc.card)
                tc.last_seen = index
                tc.missing = 0
            else:
                tc.missing += 1
        self._find_restored(index, t, up, reads, centres, heights, aspects, explained, seen_table)
        # 2. face-down cards off every stack: a card lifted face down
        self._stacks_seen = set()
        self._fd_now = False
        prev_fd = self._fd_last if self._fd_last is not None and self._fd_last[0] >= index - BACK_TRAIL_FRAMES else None
        for i in range(len(dets)):
            if dets.face_up[i]:
                continue
            dist = np.linalg.norm(self.layout.centres - centres[i], axis=1) / self.layout.pile_card_h
            k = int(np.argmin(dist))
            if self.gate.settled and float(dist.min()) < 0.2:
                self.noise.stack_sighting(k + 1, float(dist.min()), float(heights[i]))
            held = float(dist.min()) > p.off_stack or (
                len(self._size_hist[k]) >= 3 and heights[i] > p.held_scale * self.stack_size[k])
            if float(dist.min()) < 0.12 and not held:
                self._stacks_seen.add(k + 1)
                self._stack_seen_at[k + 1] = index
            if held and not self._moving_near(centres[i], 0.6 * self._pile_h(k + 1)):
                continue  # nothing moves there: the detector's scatter at a stack, not a card in a hand
            if held:
                if not self._fd_now or self._nearer_the_back_trail(centres[i], prev_fd):
                    self._fd_last = (index, centres[i].copy(), float(heights[i]))
                self._fd_now = True
            if held and self._settling_back(index, k + 1):
                continue  # the card just put back face down there, coming to rest: no card lifted
            if held and abs(aspects[i] / float(self.stack_aspect[k]) - 1.0) <= 0.2:
                self.fd_recent.append((index, self._back_pile(centres[i], float(heights[i])), centres[i].copy()))
            elif held and float(dist.min()) < 0.6:
                # turning over (foreshortened: its size says nothing of its height) close by a stack
                self.fd_recent.append((index, k + 1, centres[i].copy()))
        # 3. the hand card, and maybe the next one
        # (never an unread shape where the detector's phantom was found: see _phantom_hand)
        h = self.hand
        spent = self._spent_ranks(view, h)
        cand = [i for i in up if i not in explained and not self._at_phantom(reads[i], centres[i])
                and not self._at_left_unread(reads[i], centres[i])
                and not (reads[i][0] is None and int(dets.rank[i]) in spent
                         and float(dets.rank_confidence[i]) >= OTHER_RANK_CONFIDENCE)]
        mine: int | None = None
        misread = False  # ``mine`` is the hand card read as another at its place: an unread look of it
        if h is not None and cand:
            same = [i for i in cand if h.card is not None and reads[i][0] == h.card]
            if same:
                mine = min(same, key=lambda i: float(np.linalg.norm(centres[i] - h.last.centre)))
            else:
                # unread, or its rank alone read: a rank read surely as another is another card (9028: the
                # king at the centre, suit unread, a little off its place, was taken for the 5C carried past
                # it, which was then judged put beneath the centre)
                # (a card announced on its looks added up, held: read surely as another card of its rank)
                # (or, its reading contested, read surely as the card that contests it)
                near = [i for i in cand if (reads[i][0] is None or h.card is None or (
                    h.provisional and not self._impossible(reads[i][0], view))) and not (
                    h.card is not None and int(dets.rank[i]) not in (0, int(h.card.rank.value))
                    and float(dets.rank_confidence[i]) >= OTHER_RANK_CONFIDENCE
                    and not (h.provisional and h.contested and reads[i][0] is not None and reads[i][0] in h.reads))]
                # a card lying still at its last looks, off the pile it came from, has not leapt off since
                # (9059 at 1080p: a TC lying by 10, missed one look, was taken for an unread JH lying at 11,
                # 1.45 card heights away, and judged put down there). One just turned over, still over its
                # stack, is about to be carried off
                lying_still = h.still >= 2 and h.left_source
                reach = self._hand_reach(h.last.frame, index, STILL_HAND_REACH if lying_still else 1.5)
                if self._read_lying_at_home(h):
                    # read lying beneath its own pile at its last two looks: put down there, however long
                    # it is unseen (9128 at 1080p, models: the 3D read twice beneath 3, its place jittering,
                    # then missed a look, was taken for the 4H turned over next at 3 and carried, unread,
                    # 1.3 card heights off, and judged put beneath 4, a false WRONG_TARGET_PILE)
                    lying_still, reach = True, STILL_HAND_REACH * self.h
                # where it is carried to (its last two looks' pace, kept on): a card carried fast is
                # nearer there than where it was, and an unread table card it passed (half hidden by the
                # arm, its quad off its place) nearer where it was (9069 at 1080p: the 6H lying by 6,
                # 0.7 card heights behind a 2C carried to 2, was taken for the 2C, which was then judged
                # put beneath 6 as it showed again further on)
                ahead = h.last.centre if lying_still else self._carried_to(h, index)
                near = [i for i in near if min(float(np.linalg.norm(centres[i] - h.last.centre)),
                                               float(np.linalg.norm(centres[i] - ahead))) < reach]
                if near:
                    mine = min(near, key=lambda i: float(np.linalg.norm(centres[i] - ahead)))
                else:
                    place = [i for i in cand if self._misread_in_place(h, index, reads[i][0], int(dets.rank[i]),
                                                                       centres[i], float(heights[i]), seen_table)]
                    if len(place) == 1:
                        mine, misread = place[0], True
        both = dets.both_indices if dets.both_indices is not None else np.zeros(len(dets), bool)
        if h is not None and mine is not None:
            read, rank_p, suit_p = ((None, 0.0), None, None) if misread else (reads[mine], rank_pp[mine], suit_pp[mine])
            out += self._track(h, index, t, read, centres[mine], float(heights[mine]), view, seen_table,
                               aspects[mine], rank_p, suit_p, bool(both[mine]), index_at[mine])
        elif h is not None and self._extra_look:
            pass  # a confirming look that missed the hand card counts nothing (counts are in regular looks)
        elif h is not None:
            h.missing += 1
            down = self._put_down_at(h)
            if self._turned_down_here(h):
                out += self._vanished(h, index, t, view, force=True)  # seen face down where it was: put back
            elif self._hidden_on_top(h):
                h.lying_at = (h.last_pos[0], "top")  # lay square on a stack, unread since, the stack hidden
                out += self._place(h, index, t)
            elif down is not None and self._exchanging(h) and h.missing >= p.vanish_reads:
                out += self._vanished(h, index, t, view, force=True)  # the king went out of sight at a pile
            elif down is not None and h.lying_at is not None and h.missing >= p.side_wait:
                out += self._place(h, index, t)  # it lay still at a pile, covered since: put down
            elif down is not None and h.lying_at is None and self._covered_as_it_settled(h, index, t, down):
                h.lying_at = down
                out += self._place(h, index, t)  # lay still beneath its own pile, then the hand covered it
            elif down is not None and h.lying_at is None and (h.missing >= 3 * p.vanish_reads or (
                    down[1] == "under" and h.stack_seen >= 2 and h.missing >= 2 * p.vanish_reads)):
                # slid beneath (or onto) a pile and covered since; sooner for one seen lying out beneath a
                # stack that showed past it (9085 at 1080p, models: a KS beneath 13, unseen for ten looks,
                # was still the hand card when the next card was lifted over it there, and that card was
                # followed as the KS to 5)
                h.lying_at = down
                out += self._place(h, index, t)
            elif down is None and h.lying_at is None and h.missing >= 2 * p.vanish_reads \
                    and (left := self._left_where_it_lay(h)) is not None:
                h.lying_at = left
                out += self._place(h, index, t)  # lay there a moment ago, the whole table still since: left there
            elif down is None and h.missing >= p.vanish_reads:
                named = self._named_where_lost(h, index, t)
                out += named if named else self._vanished(h, index, t, view)
        # a new hand card is not where a table card lies (that is a misreading of the table card); nor, while
        # the hand holds another card, a table card read as itself a little off its place (9076 at 1080p: the
        # 6S just put beneath 6, seen 0.27 card heights off its place as the QH turned at 6 was held over it,
        # was taken for the next card turned, and the QH judged put beneath 6 on its way to 12)
        # an unread shape within UNREAD_BUSY_REACH of a table card's place while the hand holds a named card is
        # that table card too (9106 at 1080p, models: the KS lying beneath the centre's stack, seen with the
        # stack as one shape 0.15 card heights off its place, its K read but not its suit, was taken for the
        # next card while the 3H was carried off unseen, and the 3H judged put beneath 13, a false
        # WRONG_TARGET_PILE)
        busy = self.hand is not None and self.hand.card is not None
        reach = UNREAD_BUSY_REACH if busy else 0.1
        others = [i for i in cand if i != mine and not (
            (reads[i][0] is None or self._impossible(reads[i][0], view)) and any(
                tc.distance(centres[i]) < reach * self._pile_h(tc.pile) for tc in self.table)) and not (
            busy and reads[i][0] not in (None, self.hand.card)
            and self._lies_at(reads[i][0], centres[i], STILL_REREAD_REACH)) and not self._table_card_at_rest(
            reads[i][0], centres[i], mine is not None)]
        if others and self.hand is not None and self.hand.missing >= p.vanish_reads \
                and self._put_down_at(self.hand) is None and any(reads[i][0] is not None for i in others):
            # a new card is read while the hand card is gone, never seen put down: it went back face down
            out += self._vanished(self.hand, index, t, view, force=True, new_card=True)
            if self.hand is not None and self.hand.missing >= p.vanish_reads:
                self.hand = None
        hd = self.hand
        if others and hd is not None and hd.announced and hd.from_table is None and hd.card is not None and \
                self._put_down_at(hd) is None and (hd.idle >= 3 and hd.missing == 0 and any(
                    reads[i][0] not in (None, hd.card) and not self._in_own_fan(reads[i][0], centres[i])
                    and self._read_away(centres[i], hd.last.centre) for i in others)
                    or self._turned_next(hd, index, others, reads, centres, view)):
            # stuck: the hand card lies still where no fan is, seen there at this look, and the next card is
            # read: it was put down at the pile nearest to it. (Not when the hand card is missing from its
            # place: carried on, it may be the card read; 9174 at 1080p, models: a 5H held 2.3 s between
            # the piles, then carried on and read once as 6H, was judged put beneath 6, a false
            # WRONG_TARGET_PILE.) (Even when the card read is face up already, a table card read off its
            # place: 9058 at 1080p, a TH held still over the centre on its way from 4 to 10 was judged put
            # beneath 13 when the 6H lying at 6 was read so. Asking for a card not face up mended that (3
            # pairs more there) but lost 26 pairs over ten other games, as many false flags)
            # (likewise when the next card is read turning over at a stack while the hand card, though it
            # stirs, rests by a pile: 9142 at 1080p, models: a TD beneath 10, half under the hand turning the KD
            # at 10 and seen 0.1 card heights about and 1.2 times a lying card's size, never lay still, and the
            # KD carried to 13 was judged taken from 13)
            # (a card read within READ_AWAY of the hand card is that card misread, as ``_turned_next`` has
            # it: 9189 at 1080p, models: a 5H held still 2 s beside 4 on its way to 5, read once as 6H 0.2
            # card heights off, was judged put beneath 4, a false WRONG_TARGET_PILE)
            q = self._nearest_pile(hd.last.centre)
            hd.lying_at = (q, "under")
            out += self._place(hd, index, t, "newcard")
        ghost = self._phantom_hand(self.hand, others, reads, centres, view) if self.hand is not None else None
        if ghost is not None:
            # the hand card was never read and never moved, and a card is read elsewhere: it was the
            # detector's phantom (9039: a shape on the striped cloth by pile 9, there from the first
            # frame, when nothing had moved yet, held the place of the hand card for 440 frames and
            # hid the first seven cards played). Forget it, and never start a hand card there again.
            self._phantoms.append(ghost)
            self.hand = None
        if self.hand is not None and self._left_behind(self.hand, others, reads, centres, view):
            # asked for and never shown, it was left lying unread as play went on: the hand is free for the
            # card read now, and the shape left there starts no hand while it lies still (9136 and 9142 at
            # 1080p, models: an unread shape lying at 12 held the hand to the end of the game, every card
            # played after it unseen and the game left unfinished)
            self._left_unread.append(self.hand.last.centre.copy())
            self.hand = None
        if self.hand is None:
            # an unread face-up shape off every lying place with nothing moving by it is the detector's
            # phantom (a striped cloth), not a card in a hand: it starts no hand (9015: one beside pile
            # 9 started the trail of the centre's first card, which was then judged taken from 9)
            others = [i for i in others if not self._phantom(index, t, reads[i], centres[i], float(heights[i]))]
        hd = self.hand
        if others and hd is not None and hd.card is not None and self._shown_at_source(hd) and all(
                reads[i][0] is None and float(np.linalg.norm(centres[i] - hd.last.centre)) < self.h
                for i in others):
            # the card shown at the pile it came from, turning over there, seen as two shapes: not a new card
            # (9123's AS, seen unread beside a second shape 0.4 card heights off, was judged put down)
            others = []
        if others and (self.hand is None or self._put_down_at(self.hand) is not None):
            # a new card in the hand; a hand card lying at a pile is put down
            if self.hand is not None and self._exchanging(self.hand):
                out += self._vanished(self.hand, index, t, view, force=True)  # the card taken in exchange
                self.hand = None
            elif self.hand is not None:
                down = self._put_down_at(self.hand)
                if down is not None and down[1] != "under" and any(
                        self._pile_at(centres[k]) == down[0] for k in others):
                    # the next card is turned at the stack it lies by: it does not cover that stack, so
                    # it lies beneath (a card put on top is moved off before the stack's next card can
                    # be taken; 9072 at 1080p: a 4H slid beneath 4, its quad over the stack, was judged
                    # put on top when the 6S was turned at 4, a false WRONG_SIDE)
                    down = (down[0], "under")
                self.hand.lying_at = down
                out += self._place(self.hand, index, t, "newcard")
            i = max(others, key=lambda i: (reads[i][0] is not None, dets.confidence(i)))
            o = self._orphan
            # found again: close enough to where it was lost, or read as a card it was read as (a card
            # carried fast across the clock, out of reach: 9016's 6C read at pile 1, next seen at 6
            # 12 frames later, was judged taken from 6)
            # (a shape never read nor leaning to a card, seen at one place only, was never seen carried: it
            # is found again only near where it lay, not as far as a carried card may go meanwhile; 9161 at
            # 1080p, models: the 5H lying beneath 5, seen once as an unread shape as the arm went by, was
            # "found again" as the 8H turned out of turn at 10, 5.5 card heights off 15 frames later, and
            # the 8H judged taken where play was, from its first look, and put beneath 10 at once)
            if o is not None and index - o.last.frame <= 30 and (
                    float(np.linalg.norm(centres[i] - o.last.centre)) < (
                        self._hand_reach(o.last.frame, index, 2.5) if self._seen_carried(o) else 2.5 * self.h)
                    or (reads[i][0] is not None and any(x.shows(reads[i][0]) for x in o.sightings))):
                h = self.hand = o  # the card lost from sight a moment ago, found again
                h.missing = 0
                if not h.announced and index - o.last.frame > 2 * self.params.moving_every:
                    # never read, and out of sight a while: where it lay then says nothing of now (9047 at
                    # 1080p: a shape by the 8H just put beneath 8, lost, "found again" as the KH turned over
                    # at 8 24 frames later, was put down beneath 8 the moment the KH was read)
                    h.restart_still(index)
            else:
                h = self.hand = _Hand(first_frame=index)
                self._passed_orphan = o if o is not None and index - o.last.frame <= 30 else None
                # the face-down sightings just before its face showed (lifted, then turned over: well
                # under 20 frames); older ones only when there are none (they may be another card's)
                # (and when the card before was judged put down at this same look, the backs seen since that card
                # was read: 9112 at 1080p, models: the 4C lifted at 2 as the 2D lay there, judged still only as
                # the 4C showed, was judged taken from 4, where it was first read, and the JH after it from 2)
                early = self._fd_put[1] if self._fd_put[0] == index else []
                recent = early + list(self.fd_recent)
                backs = [x for x in recent if x[1] is not None and x[0] >= index - 20] or \
                    [x for x in recent if x[1] is not None and x[0] >= index - 45]
                h.fd_points = [(pl, c) for _, pl, c in backs]
                h.fd_early = sum(1 for x in backs if any(x is e for e in early))
            self._orphan = None
            out += self._track(h, index, t, reads[i], centres[i], float(heights[i]), view, seen_table, aspects[i],
                               rank_pp[i], suit_pp[i], bool(both[i]))
        return out

    def _phantom(self, index: int, t: float, read: tuple[Card | None, float], centre: np.ndarray,
                 height: float) -> bool:
        """An unread face-up detection that could not be lying at any pile and has nothing moving near
        it: a card in a hand moves with the hand."""
        if read[0] is not None:
            return False
        if self._lying_position(_Sighting(index, t, None, read[1], centre, height)) is not None:
            return False
        return not self._moving_near(centre, 0.6 * self.h)

    @staticmethod
    def _home_is(h: _Hand, pile: int | None) -> bool:
        """The hand card is known, and ``pile`` is the pile of its rank."""
        return h.card is not None and h.card.home_pile == pile

    def _at_phantom(self, read: tuple[Card | None, float], centre: np.ndarray) -> bool:
        """Unread where the detector's phantom was found before (``_phantom_hand``): the same phantom,
        whether or not a hand moves by it."""
        return read[0] is None and self._near_any(centre, self._phantoms)

    def _near_any(self, centre: np.ndarray, places: list[np.ndarray]) -> bool:
        """``centre`` lies within twice ``PHANTOM_REACH`` card heights of one of ``places``."""
        return any(float(np.linalg.norm(centre - c)) < 2 * PHANTOM_REACH * self.h for c in places)

    def _at_left_unread(self, read: tuple[Card | None, float], centre: np.ndarray) -> bool:
        """Unread, lying still where an unread card was left as play went on (``_left_behind``): that card.
        (A card carried there moves with a hand: it is followed until it comes to rest.)"""
        return read[0] is None and self._near_any(centre, self._left_unread) \
            and not self._moving_near(centre, 0.6 * self.h)

    def _in_own_fan(self, card: Card, point: np.ndarray) -> bool:
        """``card`` lies face up on the table at the pile whose zone ``point`` is in: a reading there is that
        table card seen off its place (9136 at 1080p, models: the 7S beneath 7, its place in the table model
        0.85 card heights off, read as the 9S paused over 7 on its way to 9; the 9S was judged put beneath 7,
        a false WRONG_TARGET_PILE)."""
        tc = self.table.cards.get(card)
        return tc is not None and self._pile_at(point) == tc.pile

    def _turned_next(self, h: _Hand, index: int, others: list[int], reads: dict, centres: np.ndarray,
                     view: GameView) -> bool:
        """Another card, read surely as one that can be new, lies within ``TURNED_NEXT_REACH`` of a stack with
        face-down cards left, more than half a card height from the read hand card, and was read so at a look
        before (at most ``TURNED_NEXT_FRAMES`` frames back), while the hand card, off its source, has rested by
        a pile ``TURNED_NEXT_REST`` frames or more: the next card is being turned there, so the hand card was
        put down where it rests. (One look alone may be a table card misread; a card just turned is still on
        its way: 9131 at 1080p, models, the TH read at 1 two frames before a QS was read by 12.)"""
        if not h.left_source or self._exchanging(h) or self._pile_at(h.last.centre) is None:
            return False
        if h.rest_at is None or float(np.linalg.norm(h.last.centre - h.rest_at)) > REST_SPREAD * self.h \
                or index - h.rest_from < TURNED_NEXT_REST:
            return False
        turning = []
        for i in others:
            card = reads[i][0]
            if card is None or card == h.card or self._impossible(card, view):
                continue
            if not self._read_away(centres[i], h.last.centre):
                continue
            d = self._stack_distances(centres[i])
            k = int(np.argmin(d))
            if d[k] >= TURNED_NEXT_REACH or (view.face_down is not None and not view.face_down.get(k + 1)):
                continue
            turning.append(card)
        if not turning:
            return False
        before = self._next_read
        again = before is not None and before[0] in turning and 0 < index - before[1] <= TURNED_NEXT_FRAMES
        self._next_read = (before[0] if again else turning[0], index)
        return again

    def _read_away(self, centre: np.ndarray, at: np.ndarray) -> bool:
        """A card read at ``centre`` is more than ``READ_AWAY`` card heights from ``at`` (the hand card, or where
        it was): another card, not that one misread."""
        return float(np.linalg.norm(centre - at)) > READ_AWAY * self.h

    def _left_behind(self, h: _Hand, others: list[int], reads: dict, centres: np.ndarray,
                     view: GameView) -> bool:
        """The hand card was never read, lies at a pile, was asked for (``ask_after_s``), and another card
        is read, as one that can be new, well away from it: the player went on without showing it. (A
        watcher that waits for it blocks every card after it.)"""
        if h.card is not None or h.announced or h.from_table is not None or not h.asked or h.lying_at is None:
            return False
        return any(reads[i][0] is not None and not self._impossible(reads[i][0], view)
                   and self._read_away(centres[i], h.last.centre) for i in others)

    def _phantom_hand(self, h: _Hand, others: list[int], reads: dict, centres: np.ndarray,
                      view: GameView) -> np.ndarray | None:
        """The hand card was never read, never reported and never moved in ``PHANTOM_LOOKS`` looks (four
        in five within ``PHANTOM_REACH`` of where it mostly was, the first of them too: it appeared there), and
        another card is read, as one that can be new, well away from it: a real card is carried from
        its pile, and the next card comes after it, so the first was the detector's phantom. Returns
        where it was, or None."""
        if h.card is not None or h.announced or h.from_table is not None or len(h.sightings) < PHANTOM_LOOKS:
            return None
        at = np.median(np.array([s.centre for s in h.sightings]), axis=0)
        near = sum(float(np.linalg.norm(s.centre - at)) < PHANTOM_REACH * self.h for s in h.sightings)
        if near < 0.8 * len(h.sightings):  # (the detector's scatter may put one look in five further off)
            return None
        if float(np.linalg.norm(h.sightings[0].centre - at)) >= PHANTOM_REACH * self.h:
            return None  # it came there: a card played unread, carried and put down (9025's 9C, beneath 9)
        read_away = any(reads[i][0] is not None and not self._impossible(reads[i][0], view)
                        and self._read_away(centres[i], at) for i in others)
        return at if read_away else None

    def _beneath_seen_stack(self, s: _Sighting, pile: int, side: str) -> bool:
        """Beside pile ``pile``'s stack, sized like a card held up, but the stack shows whole, the card's
        inner index does not, and nothing moves by it: it lies beneath the stack, and the detector sized
        the covered card too big (9015: a 5S beneath pile 5, 1.3 times a lying card, never put down)."""
        if side not in ("under", "near") or pile not in self._stacks_seen or s.both or not self._both_known:
            return False  # (a recogniser that does not say whether both indices show: cannot tell)
        if s.height > 1.5 * self.geometry.pile_size_at(pile, s.centre):
            return False
        return not self._moving_near(s.centre, 0.6 * self._pile_h(pile))

    def _over_stack(self, s: _Sighting, pos: tuple[int, str]) -> bool:
        """Seen with both its indices, lying where the stack of pile ``pos`` would cover the inner one
        if it lay beneath: it lies above that stack (held, or being turned over there)."""
        return s.both and pos[1] != "top" and self._along(pos[0], s.centre) < BOTH_SHOW_ALONG

    def _seen_carried(self, h: _Hand) -> bool:
        """The hand card was read, or leant to a card, at some look, or was seen at places more than
        ``REST_SPREAD`` card heights apart: a card in a hand, not a shape seen at one place only."""
        first = h.sightings[0].centre
        return any(x.card is not None or x.leans is not None
                   or float(np.linalg.norm(x.centre - first)) > REST_SPREAD * self.h for x in h.sightings)

    def _hand_reach(self, last_frame: int, index: int, least: float) -> float:
        """How far (pixels) the hand card may have gone since it was last seen: ``least`` card heights,
        more the longer it was out of sight (a hand carries a card about a third of a card height a
        frame; an unread card carried fast, missed for three looks, was taken for a new one: 2001)."""
        return min(HAND_REACH_MAX, max(least, HAND_SPEED * (index - last_frame))) * self.h

    def _carried_to(self, h: _Hand, index: int) -> np.ndarray:
        """Where the hand card is now if it kept the pace of its last two looks (these no more than
        ``CARRY_LOOKS_APART`` frames apart, the pace at most ``HAND_SPEED`` card heights a frame, kept up
        for at most ``CARRY_AHEAD`` frames); where it was last seen when it has no such pace."""
        v = self._pace(h)
        if v is None:
            return h.last.centre
        b = h.last
        speed = float(np.linalg.norm(v))
        most = HAND_SPEED * self.h
        if speed > most:
            v = v * (most / speed)
        return b.centre + v * min(index - b.frame, CARRY_AHEAD)

    @staticmethod
    def _pace(h: _Hand) -> np.ndarray | None:
        """Pixels a frame the hand card moved between its last two looks, when these are at most
        ``CARRY_LOOKS_APART`` frames apart; None otherwise."""
        if len(h.sightings) < 2:
            return None
        a, b = h.sightings[-2], h.sightings[-1]
        gap = b.frame - a.frame
        return (b.centre - a.centre) / gap if 0 < gap <= CARRY_LOOKS_APART else None

    def _follow_view(self, dets: Detections, centres: np.ndarray, reads: dict) -> None:
        """The camera (or the table) shifted: the table's cards are all read a little off their places,
        by the same offset. Shift the layout with them (a re-registration from the cards themselves)."""
        offs = []
        for tc in self.table:
            for i, (card, _) in reads.items():
                if card == tc.card:
                    d = centres[i] - tc.centre
                    if float(np.linalg.norm(d)) < 0.6 * self._pile_h(tc.pile):
                        offs.append(d)
                    break
        if len(offs) < 3:
            return
        offs_a = np.array(offs)
        med = np.median(offs_a, axis=0)
        if float(np.linalg.norm(med)) < 0.06 * self.h:
            return
        agree = np.linalg.norm(offs_a - med, axis=1) < 0.04 * self.h
        if agree.sum() < max(3, 0.7 * len(offs)):
            return
        self.set_layout(self.layout.transformed(np.array([[1, 0, med[0]], [0, 1, med[1]]], np.float64)))
        self.view_shifts += 1

    def _learn_stack_sizes(self, dets: Detections, centres: np.ndarray, sizes: np.ndarray,
                           aspects: np.ndarray) -> None:
        """Face-down stacks seen where the layout has them: the card size of each pile (sqrt area)."""
        changed = False
        for i in range(len(dets)):
            if dets.face_up[i]:
                continue
            d = np.linalg.norm(self.layout.centres - centres[i], axis=1) / self.layout.pile_card_h
            k = int(np.argmin(d))
            tol = 1.25 * (self.eff.max_lying_scale - 1.0)
            if d[k] < 0.1 and (not self._sizes_seen[k] or abs(sizes[i] / self.stack_size[k] - 1.0) < tol):
                # the median of the last sightings (the detector's sizes scatter)
                self._size_hist[k].append(float(sizes[i]))
                self.stack_size[k] = float(np.median(self._size_hist[k]))
                self.stack_aspect[k] = (0.7 * self.stack_aspect[k] + 0.3 * aspects[i] if self._sizes_seen[k]
                                        else aspects[i])
                self._sizes_seen[k] = True
                changed = True
        if changed and self.recognitions % 5 == 1:
            self.geometry.set_sizes(self.stack_size)

    def _put_down_at(self, h: _Hand) -> tuple[int, str] | None:
        """Where the hand card lies, if it was last seen lying at a pile (still, or slid beneath one). Not where
        it was last seen held still (:meth:`_still_held`): lost from sight from there, the hand carried it on
        (9184 at 1080p, models: a JS held 1.4 s over the centre on its way from 4 to 11 was judged put beneath
        13 the moment it showed half way to 11, a false WRONG_TARGET_PILE, then "moved" to 11; 9175's AS
        held at 11 on its way to 1 likewise)."""
        if not (h.announced or h.from_table is not None):
            return None
        if h.lying_at is not None:
            return h.lying_at
        if h.missing > 0 and h.last_pos is not None and not self._carried_fast(h) and not self._lost_at_source(h) \
                and not h.held:
            return h.last_pos
        return None

    def _left_where_it_lay(self, h: _Hand) -> tuple[int, str] | None:
        """Where the hand card (read, in play, carried off the pile it came from) lay at one of its last two
        looks, if the last lies within ``LEFT_NEAR`` card heights of it and nothing at all has moved on the
        table for ``LEFT_STILL_FRAMES`` frames: the hand is gone, and left the card there, however its last look
        was misjudged and the detector now misses it (9230 at 1080p, models: a JC put beneath 10 by mistake,
        seen lying 0.42 card heights out, then once a little off with no lying place, then unseen for 35 still
        frames in the fan, was judged only where it was moved to next: the WRONG_TARGET_PILE missed)."""
        if not h.announced or h.card is None or h.from_table is not None or not h.left_source \
                or self.gate.still < LEFT_STILL_FRAMES or self._exchanging(h):
            return None
        for x in reversed(h.sightings[-2:]):
            pos = self._lying_position(x)
            if pos is not None and float(np.linalg.norm(x.centre - h.last.centre)) < LEFT_NEAR * self.h:
                return pos
        return None

    def _lost_at_source(self, h: _Hand) -> bool:
        """The hand card was last seen at the pile it was taken from (not its own pile) and lost from sight
        there: not put down there. Either never seen carried away and last seen on that pile's stack: lost
        as it was carried off (seen out in that pile's fan, it may have been put beneath it, a mistake to
        flag) (9177 at 1080p, models: the 7D turned at 11, carried fast to 7 and next seen as an unread shape
        half way, was judged put beneath 11 the moment that shape showed, a false WRONG_TARGET_PILE). Or last
        seen bigger than a card lying there (``lifted``), over that pile: held up there to be shown, then
        turned face down to be put back or carried off (9245: a KS turned out of turn at 1, last seen lifted
        half a card height out in 1's fan, was judged put beneath 1 when an unread shape showed elsewhere, a
        false WRONG_TARGET_PILE and its return missed). Lifted over another pile it is coming down there: the
        hand hides it as it lets go (9249's JS, turned at 1 and last seen lifted over 11's fan, lay beneath 11)."""
        if h.source is None or h.last_pos is None or h.last_pos[0] != h.source or self._home_is(h, h.source):
            return False
        return h.lifted or (not h.left_source and h.last_pos[1] == "top")

    def _stuck_by(self, h: _Hand) -> int | None:
        """The stack of its own pile a read hand card (off the pile it came from) has lain by for its last
        ``STUCK_LOOKS`` readings, over ``STUCK_FRAMES`` frames or more, within ``STUCK_SPREAD`` card heights of
        where it lies, no bigger than a card lying there, within ``STUCK_REACH`` card heights of that stack;
        else None."""
        if not h.announced or h.from_table is not None or h.card is None or not h.left_source or self._exchanging(h):
            return None
        run = [x for x in h.sightings if x.card == h.card][-STUCK_LOOKS:]
        if len(run) < STUCK_LOOKS or run[-1] is not h.last or run[-1].frame - run[0].frame < STUCK_FRAMES:
            return None
        at = np.mean([x.centre for x in run], axis=0)
        if any(float(np.linalg.norm(x.centre - at)) > STUCK_SPREAD * self.h for x in run):
            return None
        q = self._nearest_pile(at)
        if self._stack_distances(at)[q - 1] > STUCK_REACH:
            return None
        if not self._home_is(h, q):
            # by another pile's stack, a card held still is a hand pausing on its way (9164 at 1080p, models: a
            # 9H carried from 6 to 9, held 1.3 s over the stack of 8, its quads no bigger than a lying card's
            # to a trained detector, was judged put beneath 8, a false WRONG_TARGET_PILE); a card truly put
            # down there is put down when the next card is read (``_observe``'s "stuck" rule)
            return None
        if max(x.height for x in run) > self.eff.max_lying_scale * self.geometry.pile_size_at(q, at):
            return None
        return q

    def _read_lying_at_home(self, h: _Hand) -> bool:
        """The hand card, carried off the pile it came from, was read surely as itself at its last two sure
        readings, and every look since the first of them lay out in the fan of the pile of its rank
        (``_beneath``; its size not asked: a trained detector's quads of a card lying there scatter, and one
        a little big is taken for held up). Unread looks between them in that fan say nothing against it
        (9169 at 1080p, models: a 3C read beneath 3, then unread, read, unread there, its place jumping
        0.3 card heights, was taken for the next card's shape 2.6 card heights off and judged put beneath 5)."""
        if h.card is None or not h.left_source:
            return False
        sure = [k for k, x in enumerate(h.sightings) if x.card == h.card]
        if len(sure) < 2:
            return False
        home = h.card.home_pile
        return all(self._beneath(home, x.centre) for x in h.sightings[sure[-2]:])

    def _covered_as_it_settled(self, h: _Hand, index: int, t: float, down: tuple[int, str]) -> bool:
        """The hand card lay still beneath its own pile at its last looks, and the first regular look as long
        after it came to rest as a card seen there waits (``moving_every`` frames) misses it: the hand that
        let go covers it on its way to the stack, where the next card is turned. It is put down as that look
        would have judged it, not when the hand has gone (9797 at 640x360, oracle: an 8D slid beneath 8,
        still for two frames, then under the palm for six, was judged put down 267 ms late). Only beneath
        the pile of its rank, where a card held there is put down anyway; a card missed lying anywhere else
        may still be in the hand."""
        p = self.params
        pos = h.last_pos
        beneath = pos is not None and (pos[1] == "under" or pos[1] == "near" and self._side_by_place(
            pos[0], h.last.centre, h) == "under")  # (9817 at 640x360, oracle: a JD slid in to 0.25 card heights)
        return (h.missing == 1 and pos is not None and down == pos and beneath
                and self._home_is(h, pos[0]) and not (pos[0] == h.source and not h.left_source)
                and not h.lifted and not self._exchanging(h) and h.still >= p.still_reads
                and index - h.still_from >= p.moving_every and h.last.frame >= index - p.moving_every
                and not self._still_held(h, pos, t))

    def _carried_fast(self, h: _Hand) -> bool:
        """Its last two looks (at most ``CARRY_LOOKS_APART`` frames apart) say it was being carried, at
        least ``CARRIED_PACE`` card heights a frame and further than two of the detector's steps at a
        still card: where it was last seen is where it passed, not where it lies (9104 at 1080p, models:
        the first card, a 9D, carried from the centre to 9 half a card height a frame, last seen out along
        the centre's fan; lost from sight, it was judged put beneath 13 when a shape showed by 6)."""
        v = self._pace(h)
        if v is None:
            return False
        speed = float(np.linalg.norm(v)) / self.h
        step = float(np.linalg.norm(h.sightings[-1].centre - h.sightings[-2].centre)) / self.h
        return speed >= CARRIED_PACE and step >= 2 * self.eff.still_tolerance

    def _never_left(self, h: _Hand) -> bool:
        """A table card taken for picked up (read in the hand while a hand moved by it) whose last looks
        all lie within ``STILL_REREAD_REACH`` of its place, with nothing moving there now: it was never
        picked up. Without this the move waits for it forever, and the card really turned is never
        followed (2001 at 1080p: a TC beneath pile 10, seen 0.25 card heights off while the next card
        was turned there, held the hand for 500 frames)."""
        if h.from_table is None or h.announced or len(h.sightings) < NEVER_LEFT_LOOKS:
            return False
        tc = next((x for x in self.table if x.card == h.from_table), None)
        if tc is None:
            return False
        ph = self._pile_h(tc.pile)
        recent = h.sightings[-NEVER_LEFT_LOOKS:]
        if any(tc.distance(x.centre) / ph >= STILL_REREAD_REACH for x in recent):
            return False
        return not self._moving_near(recent[-1].centre, 0.6 * ph)

    def _settled_table_card(self, h: _Hand) -> bool:
        """A shape never read lying still at a pile for ``NEVER_LEFT_LOOKS`` looks, within a card height of
        where the card last put down at that pile was put (at most ``SETTLE_FRAMES`` frames before the shape
        came to rest), that card unseen since: it is that card, come to rest where it was still sliding when
        judged put down. Its place moves there (9113 at 1080p, models: a 2H judged put beneath 2 as it slid in,
        lying still 0.55 card heights from that place, unread, was taken for a card in the hand; the AS turned
        at 2 next continued its trail and was judged taken from 3 and put beneath 2)."""
        if h.announced or h.card is not None or h.from_table is not None or h.lying_at is None \
                or h.still < NEVER_LEFT_LOOKS or any(x.card is not None for x in h.sightings[-NEVER_LEFT_LOOKS:]):
            return False
        q = h.lying_at[0]
        latest = max((x.since for x in self.table), default=None)  # the last card put down, anywhere: at q, unseen
        tc = next((x for x in self.table if x.since == latest and x.pile == q and x.last_seen == x.since), None)
        if tc is None or not (h.still_from - SETTLE_FRAMES <= tc.since <= h.still_from) or \
                tc.distance(h.last.centre) > self._pile_h(q):
            return False
        tc.centre, tc.also_at, tc.index_at = h.last.centre.copy(), None, None
        tc.missing = 0
        return True

    def _adopt_orphan(self, h: _Hand, index: int, card: Card | None) -> None:
        """A new hand card first read surely as a card the hand card lost a moment ago was read as, is
        that card: it takes over the lost one's sightings (and so its source). Found again by place
        or by reading when first seen is the orphan rule; this is the same card first seen unread
        (9015 at 1080p: a 5S read once at pile 11, carried fast across the clock unseen, first seen
        again unread by pile 5 and read there a look later, was judged taken from 5)."""
        o = self._passed_orphan
        if o is None or o is h:
            return
        if index - o.last.frame > 30 or h.announced or h.from_table is not None:
            self._passed_orphan = None
            return
        if card is None or not any(x.shows(card) for x in o.sightings):
            return  # (leaning to it counts: 9114 at 1080p, a 6C first seen over 11 leaning 0.85 to 6C)
        self._passed_orphan = None
        h.first_frame = o.first_frame
        h.sightings[:0] = o.sightings
        h.reads = deque(list(o.reads) + list(h.reads), maxlen=h.reads.maxlen)
        h.rank_ev = h.rank_ev + o.rank_ev
        h.suit_ev = h.suit_ev + o.suit_ev
        h.looks += o.looks
        h.leant_ranks |= o.leant_ranks
        h.leant_suits |= o.leant_suits
        if o.fd_points:
            h.fd_points, h.fd_early = o.fd_points, o.fd_early

    def _misread_in_place(self, h: _Hand, index: int, card: Card | None, rank: int, centre: np.ndarray,
                          height: float, seen_table: set[Card]) -> bool:
        """A detection read as another card than the hand card, or its rank surely another, right where the
        hand card lay at its pile at the look just before, its size the same, the hand card seen nowhere at
        this look: the hand card itself, misread as it slides beneath the stack (its index half covered),
        not a new card (no card turned at a stack shows at a fan's place that soon). 9244 at 1080p, models:
        a 9D sliding beneath 9 read TD 0.2 card heights on, an 8S beneath 8 read as a ten; each was judged
        put down there and the misreading taken for the next card turned, a phantom card; 9242's TS beneath
        10 likewise, read as a 7, and the 4H then taken from 10 flagged out of turn; 9240's 7S beneath 7,
        read as 7C, then "turned" at 7 and "put back". Never where a card of the rank read, not seen at this
        look, lies within a card height (a table card read off its place: 9028's king); never at a stack's
        place (a card lifted there)."""
        if h.card is None or not h.announced or h.from_table is not None or not h.sightings \
                or h.last_pos is None or h.last_pos[1] == "top":
            return False
        last = h.last
        if index - last.frame > MISREAD_IN_PLACE_FRAMES or last.height <= 0 \
                or float(np.linalg.norm(centre - last.centre)) > MISREAD_IN_PLACE_REACH * self.h \
                or abs(height / last.height - 1.0) > MISREAD_IN_PLACE_SIZE:
            return False
        if card is None and rank in (0, int(h.card.rank.value)) or card == h.card:
            return False  # (unread, its rank unread or the hand card's, or read as it: the usual rules follow it)
        if self._on_a_stack(centre) is not None:
            return False
        read_rank = card.rank if card is not None else Rank(rank)
        return not any(tc.card.rank is read_rank and tc.card not in seen_table and tc.distance(centre) < self._pile_h(tc.pile)
                       for tc in self.table)

    def _track(self, h: _Hand, index: int, t: float, read: tuple[Card | None, float], centre: np.ndarray,
               height: float, view: GameView, seen_table: set[Card], aspect: float = 0.0,
               rank_p: np.ndarray | None = None, suit_p: np.ndarray | None = None,
               both: bool = False, index_at: np.ndarray | None = None) -> list[Observation]:
        p = self.eff
        out: list[Observation] = []
        card, conf = read
        h.missing = 0
        # read surely as a table card seen lying in its own place at this very look: a misreading of another
        # card, no evidence of any (9220 at 1080p, models: a 6S carried from 9 to 6 was read once as 8C
        # at 0.95 while the 8C lay in view beneath 8; its later looks unread, it was believed the 8C picked
        # up, its sure 6S reading then passed over as another card, and judged "moved" beneath 6: a false
        # WRONG_TARGET_PILE)
        if card is not None and card in seen_table and card != h.from_table:
            card, rank_p, suit_p = None, None, None
        s = _Sighting(index, t, card, conf, centre, height, aspect, both, index_at=index_at)
        if rank_p is not None and max(rank_p) >= LEANING:
            s.rank_leans = int(np.argmax(rank_p))
        if rank_p is not None and suit_p is not None and max(rank_p) >= LEANING and max(suit_p) >= LEANING:
            s.leans = Card(Rank(int(np.argmax(rank_p)) + 1), Suit(SUIT_CODES[int(np.argmax(suit_p))]))
        self._adopt_orphan(h, index, card)
        moved = float(np.linalg.norm(s.centre - h.last.centre)) / self.h if h.sightings else math.inf
        if rank_p is not None and suit_p is not None:
            h.rank_ev += np.log(np.maximum(np.asarray(rank_p, np.float64), p.fuse_floor))
            h.suit_ev += np.log(np.maximum(np.asarray(suit_p, np.float64), p.fuse_floor))
            h.looks += 1
            if card is None:
                # (a look read surely as a card leans to that card alone: see ``_fused``)
                h.leant_ranks.update(np.nonzero(np.asarray(rank_p) >= LEANING)[0].tolist())
                h.leant_suits.update(np.nonzero(np.asarray(suit_p) >= LEANING)[0].tolist())
        h.sightings.append(s)
        h.reads.append(card)
        known_before = h.announced or h.from_table is not None
        self._believe(h, view, seen_table)
        out += self._announce(h, index, t, view)
        h.idle = h.idle + 1 if moved < p.still_tolerance else 0
        pos = self._lying_position(s)
        # bigger than a card lying there (``lifted``): held above the pile, coming down (a card paused on
        # its way onto a stack, 0.19 out, was taken for one slid beneath: seed 8506)
        lifted = pos is not None and s.height > p.lifted * self.geometry.pile_size_at(pos[0], s.centre) \
            and not self._beneath_seen_stack(s, *pos)
        left_before = h.left_source
        if h.source is not None and not h.left_source:
            g = self._ground(s.centre, s.height)
            src = self.layout.centres[h.source - 1]
            h.left_source = float(np.linalg.norm(g - src)) > 0.6 * self._pile_h(h.source)
            if lifted and pos is not None and pos[1] == "top" and pos[0] == h.source and not h.left_source:
                pos, lifted = None, False  # still over the pile it came from, a little up: held there (to be put back)
            if pos is not None and pos[0] == h.source and self._over_stack(s, pos) and not self._left_lying(h, pos[0]):
                # both its indices show, over the stack it came from: a card slid beneath would have its
                # inner one covered. Held there (being turned over), not put down (2000: a 7 taken from
                # 3 was shown there, and judged put beneath 3)
                pos = None
                if h.lying_at is not None and h.lying_at[0] == h.source and not h.left_source:
                    # taken for lying there before its source was known: it never lay there
                    # (2000: a 7S turned by 9 out of turn, still there before it was read)
                    h.lying_at = None
        crept = h.still_at is not None and float(np.linalg.norm(s.centre - h.still_at)) / self.h >= p.still_tolerance
        # sliding in towards the stack from just beyond ``under_sure``, if slower than still_tolerance a look:
        # not at rest yet (9816 at 640x360, oracle: a 9S slid onto 9's stack askew, 0.23, 0.20, then 0.16 card
        # heights out, was judged beneath at 0.20 and the WRONG_SIDE missed). Only where the detector's places
        # scatter no more than ``still_tolerance`` allows unwidened: a trained detector's jitter looks like a
        # slide (9156 at 1080p, models: a KD put on top of 13, its quad jumping 0.1-0.25 card heights between
        # looks, was never at rest there and was judged beneath when it was picked up to be corrected)
        sliding_in = pos is not None and pos[1] != "top" and len(h.sightings) >= 2 \
            and p.still_tolerance <= self.params.still_tolerance \
            and self._along(pos[0], s.centre) < p.under_sure + SLIDE_BAND \
            and self._along(pos[0], h.sightings[-2].centre) - self._along(pos[0], s.centre) >= 0.5 * p.still_tolerance
        stays = pos is not None and not lifted and moved < p.still_tolerance and not crept and not sliding_in and \
            (h.lying_at is None or h.lying_at[0] == pos[0])
        if not stays and self._shown_at_source(h, left_before):
            # shown a moment on top of the stack it was just turned over at (or out in its fan), then carried
            # off: it was never put down there (9037's 7S, 9014's 9C, 9038's TH at 1080p: "put on top" of the
            # pile they came from, flagged, then moved to where they went). (A card of that pile's own rank
            # may truly be put on top of it, a mistake to flag at once: as before.)
            h.lying_at = None
        if h.lying_at is not None and not stays and not known_before and moved >= NAMED_AWAY_JUMP:
            # named first here, far from where the unread shape it was followed as lay still: that shape was
            # not this card, which was never put down there (9128 at 1080p, models: a TD read once by 7, then
            # followed as unread shapes to one lying by 8, was read lying beneath 10 and judged put beneath
            # 8 and moved to 10, a false WRONG_TARGET_PILE)
            h.lying_at = None
        if h.lying_at is not None and not stays and self._still_settling(h, pos, lifted, moved):
            # lay a few looks only, and now a step no bigger than twice the still tolerance, at the same pile,
            # not lifted: not picked up, still settling (9200 at 1080p, models: a 9S slid slowly beneath 9,
            # 0.10 to 0.23 card heights out, lay two looks at 0.155, then one look 0.12 card heights off as
            # something moved by: judged put on top, a false WRONG_SIDE, and "moved" beneath four looks later)
            h.lying_at = None
        if h.lying_at is not None and not stays and (h.announced or h.from_table is not None) \
                and not self._exchanging(h):
            # it lay at a pile and moves again: it was put down there, and is being picked up
            card = h.from_table or h.card
            out += self._place(h, index, t, "pickup")
            h = self.hand = _Hand(first_frame=index, card=card, from_table=card, announced=True,
                                  confidence=h.confidence)
            h.sightings.append(s)
            h.reads.append(s.card)
        h.last_pos, h.lifted = pos, lifted
        if stays:
            h.still += 1
        else:
            h.restart_still(index, s.centre.copy() if pos is not None else None)
        if h.rest_at is None or float(np.linalg.norm(s.centre - h.rest_at)) > REST_SPREAD * self.h:
            h.rest_from, h.rest_at, h.rest_t, h.rest_alongs, h.stirred = index, s.centre.copy(), t, [], False
        if pos is not None and pos[1] == "top":
            h.rest_alongs.append((pos[0], self._along(pos[0], s.centre)))
        if pos is not None and pos[0] in self._stacks_seen:
            h.stack_seen += 1
        elif pos is not None and self._stack_quiet(pos[0]):
            h.stack_hidden += 1
        # on top of the stack it was just turned over at, not yet carried off: it is shown there first,
        # so it must lie still twice as long (a trained detector's scatter hides a slow hand: 9017's
        # first card, held over the centre for three frames, was judged put on top and picked up)
        # Likewise a card of another pile's rank held out in its source's fan as it is shown (9072 at 1080p:
        # an AH turned at 3, held for two looks over the 3H lying beneath 3, was judged put beneath 3)
        # Not once a hand has stirred by it after it came to rest (``_Hand.stirred``) and now nothing moves by
        # it or over its stack: that hand let go of it and left (oracle 10032 at 640x360: a 4S turned at 4
        # and put on top of it, the hand gone a look after it came to rest, was judged 167 ms after it
        # settled). A hand still moving by it may be carrying it off (9175 at 1080p, models: a 9H shown on
        # top of 12, stirred as the hand began to carry it to 9, was judged put on top of 12)
        at_source = pos is not None and pos[0] == h.source and not h.left_source and (
            pos[1] == "top" or not self._home_is(h, pos[0]))
        wait = 2 * p.moving_every if at_source and not self._let_go(h, pos[0]) else p.moving_every
        h.held = pos is not None and not lifted and self._still_held(h, pos, t)
        if h.still >= p.still_reads + at_source and index - h.still_from >= wait and pos is not None and not lifted \
                and not h.held:
            if h.lying_at is None:
                h.lying_at = pos
                h.lying_since = t
                h.lying_reads = 0
            if not self._extra_look:
                h.lying_reads += 1  # side_wait counts regular looks
            # beneath, far out, or close to the stack while the stack shows: put down now; close to the
            # stack and the stack hidden: on top of it, once it has stayed hidden a while
            # (at the stack it was just turned over at, only once it has lain there a while (``_shown_looks``): the card
            # itself hides that stack while it is shown there; a card of that pile's rank at once. Out in that
            # stack's fan too: a card turned out of turn is shown there, then turned face down and put back;
            # 9123 at 1080p, models: an AS turned at 8, held 0.4 s half a card height out in 8's fan, was
            # judged put beneath 8 after three looks, a false WRONG_TARGET_PILE and the return missed)
            shown = at_source and not self._home_is(h, pos[0]) and self._turned_over_there(h, pos[1])
            if h.lying_reads >= (self._shown_looks(pos[1]) if shown else p.side_wait) or not shown and (
                    pos[1] == "under" or h.stack_seen > 0 or h.stack_hidden >= 2
                    or self._side_by_place(pos[0], s.centre, h) is not None):
                if not (self._exchanging(h) and h.lying_reads < 4 * p.side_wait):
                    out += self._try_place(h, index, t)
        elif pos is None and h.lying_at is None and self.hand is h:
            q = self._stuck_by(h)
            if q is not None:
                # read, and lying still by a stack a long while at no lying place the detector's quad fits:
                # put down there, its quad misplaced (9119 at 1080p, models: a 4H slid well beneath 4, one
                # corner showing, its quad 0.3 card heights across the fan, lay read for a hundred frames
                # while the KD was turned there; the KD was judged taken from 8)
                h.lying_at = (q, "near" if self._along(q, s.centre) < self.params.top_radius else "under")
                out += self._place(h, index, t, "stuck")
        return out

    # -- helpers -----------------------------------------------------------------------------------
    def _find_restored(self, index: int, t: float, up: list[int], reads: dict, centres: np.ndarray,
                       heights: np.ndarray, aspects: np.ndarray, explained: set[int], seen_table: set[Card]) -> None:
        """Learn where the face-up cards of a resumed game lie, as each is read at its own pile."""
        if not self._to_find:
            return
        for i in up:
            card = reads[i][0]
            if i in explained or card is None or card not in self._to_find or card in self.table:
                continue
            pile, side = self._to_find[card]
            sg = _Sighting(index, t, card, reads[i][1], centres[i], float(heights[i]), float(aspects[i]))
            pos = self._lying_position(sg)
            if self._pile_at(centres[i]) != pile and (pos is None or pos[0] != pile):
                continue  # not at its pile: being moved (a correction), or a misreading
            self.table.put(TableCard(card, pile, side, centres[i].copy(), index, index))
            del self._to_find[card]
            explained.add(i)
            seen_table.add(card)

    def stacks_matched(self, layout: Layout | None = None, dets: Detections | None = None) -> int:
        """How many piles of ``layout`` (default the current one) have a face-down stack detected at their
        centre in ``dets`` (default the last recognition): evidence for a layout."""
        lay = layout or self.layout
        d = dets if dets is not None else self.last_detections
        if d is None or len(d) == 0:
            return 0
        down = d.centres[~d.face_up.astype(bool)].astype(np.float64)
        if len(down) == 0:
            return 0
        dist = np.linalg.norm(lay.centres[:, None, :] - down[None], axis=2) / np.maximum(lay.pile_card_h, 1e-6)[:, None]
        return int((dist.min(axis=1) < 0.12).sum())

    def _ground(self, centre: np.ndarray, height: float) -> np.ndarray:
        """The table point beneath a card seen at ``centre`` with size ``height``: the card's own place
        unless it looks bigger than a card lying there by more than the detector's size scatter
        (``max_lying_scale``), so noisy sizes do not move lying cards."""
        c = np.asarray(centre, np.float64)
        if self.geometry.scale(c, height) <= self.eff.max_lying_scale:
            return c
        return self.geometry.ground(c, height)[0]

    def _hidden_on_top(self, h: _Hand) -> bool:
        """The hand card (read) was last seen lying square on a stack and is out of sight since (its
        corners covered) while that stack stays hidden with nothing moving over it: it lies on top."""
        if not (h.announced or h.from_table is not None) or h.last_pos is None or h.missing < 2:
            return False
        q = h.last_pos[0]
        if self._side_by_place(q, h.last.centre, h) != "top" or q in self._stacks_seen:
            return False
        if self._stack_still(q):
            h.stack_hidden += 1
        return h.stack_hidden >= 2

    def _exchanging(self, h: _Hand) -> bool:
        """Watch, exchange possible: the last king, picked up, is at a pile other than the centre. It is
        being exchanged (it will go face down there), not moved: it is not put down face up there unless
        it lies still a long while."""
        v = self._view
        if v is None or not v.exchange_possible or h.from_table is None or h.from_table.rank is not Rank.KING:
            return False
        pos = h.lying_at or h.last_pos
        q = pos[0] if pos is not None else self._pile_at(h.last.centre)
        return q is not None and q != CENTRE

    def _side_by_place(self, q: int, centre: np.ndarray, h: _Hand | None = None) -> str | None:
        """The side where the place alone tells it: a card lying within ``top_sure`` of the stack's centre
        is on top (a card beneath shows its index corner, so it lies further out: the recordings' first
        slot lies 0.165-0.28 card heights out with the built-in deck; about 0.14 is the least an index
        corner allows); one lying ``under_sure`` or more out is beneath (an askew card on top lies
        within about 0.07 of the centre, one time in ten beyond 0.12). None: too close to tell; the
        stack's showing (or staying hidden with no hand over it) decides; so it does for a card that has
        not left the pile it was taken from."""
        a = self._along(q, centre)
        if h is not None and h.source == q and not h.left_source and a < self.params.under_sure:
            return None  # still over the pile it was taken from: perhaps only held there (turned over)
        if abs(a) < self.params.top_sure:
            return "top"
        if a >= self.params.under_sure:
            return "under"
        return None

    def _turned_down_here(self, h: _Hand) -> bool:
        """The hand card (read, never lying still but on the stack it came from) is gone and a face-down card
        was seen held twice since, at the pile where it was last seen or was taken from, or the stack it lay on
        top of (the one it came from, not its home) shows its back again: it was turned face down (to be put
        back)."""
        # lying still on top of the stack it was taken from, never carried off, is held there (turned over
        # out of turn, to be put back: 9091 at 1080p, models: a TS turned at 11, held over 11's stack for
        # six looks, then seen face down there twice and the stack again, was judged put on top of 11)
        if not h.announced or h.from_table is not None or h.missing < 2 or (
                h.lying_at is not None and not self._shown_at_source(h)):
            return False
        if self._carried_off(h):
            return False
        last = h.last
        if self._on_source_stack(h, h.last_pos) and h.source in self._stacks_seen and not self._fd_now and (
                h.lying_at is not None or h.missing >= self.eff.vanish_reads
                or any(pl == h.source for _, pl in self._down_after(last))):
            # turned over on the stack it came from, gone since, and that stack's back shows again; it lay still
            # there, or was seen face down there since, or is gone as long as a card turned face down anywhere
            # (a card carried off fast shows the stack again too: 9117 at 1080p, models, a 4S shown on 12's
            # stack for three looks, never still, gone two, was judged put back there, then read again at 4)
            return True
        g = self._ground(last.centre, last.height)
        here = {self._pile_at(last.centre), self._pile_at(g), h.source} - {None}
        if h.last_pos is not None and h.last_pos[1] == "under" and (
                h.last_pos[0] != h.source or self._home_is(h, h.source)):
            # last seen lying out beneath a stack: a card lifted face down from that stack is the next one
            # taken there, not this one turned down (9034 at 1080p: a 3C slid beneath 3 showing a sliver,
            # judged put back face down on 3 when the TH was lifted from 3). Not the stack it was taken from
            # (not its own): no card is put beneath the pile it was just taken from out of turn, it was held
            # over that pile's fan (9107 at 1080p, models: a 2C turned at 12, shown above 12's fan, seen face
            # down there three times, was judged put beneath 12 when the next card was read)
            here.discard(h.last_pos[0])
        after = [pl for _, pl in self._down_after(last) if pl in here]
        if after and self._back_seen_far_off(last, here):
            return False
        # twice; once is enough when it was last seen face up at the pile it was taken from (turned
        # over there and put back at once)
        need = 1 if h.source is not None and self._pile_at(last.centre) == h.source else 2
        return len(after) >= need and not self._fd_now  # and it has come to lie (on a stack)

    def _shown_at_source(self, h: _Hand, left_source: bool | None = None) -> bool:
        """The hand card (not its own pile's) lies at the pile it was just taken from, on its stack or (its
        back seen there as it was lifted) out in its fan, never carried off (``left_source``: as it was
        before the look being followed; default ``h.left_source``), fewer than ``side_wait`` looks yet: shown
        there (turned over out of turn, to be put back), not yet put down."""
        left = h.left_source if left_source is None else left_source
        return h.lying_at is not None and h.from_table is None and h.lying_at[0] == h.source and not left \
            and h.lying_reads < self._shown_looks(h.lying_at[1]) and not self._home_is(h, h.source) \
            and self._turned_over_there(h, h.lying_at[1])

    def _still_since(self, h: _Hand, index: int) -> int:
        """The first look of the hand card's last run of looks all within the still tolerance of its last one,
        where it lay still at no lying place its quad fits (``h.still_at`` unset: a trained detector sizes
        some cards lying there over the allowance); ``index`` when that run is shorter than ``still_reads``
        looks after the first. Where play goes on is judged from the stacks' looks since then: the next card
        may be taken while the card lies there unplaced (9200 at 1080p, models: a 7C lay still beneath 7
        from frame 960, its quad 11% bigger than 7's stack, and was put down only at 1015 as the 2H turned at
        7 at 992 showed by 2; from 1015 the stack of 7 looked untouched, a false WRONG_SOURCE_PILE)."""
        if not h.sightings:
            return index
        last = h.last.centre
        run = 0
        for x in reversed(h.sightings):
            if float(np.linalg.norm(x.centre - last)) >= self.eff.still_tolerance * self.h:
                break
            run += 1
            first = x.frame
        return first if run > self.eff.still_reads else index

    def _still_settling(self, h: _Hand, pos: tuple[int, str] | None, lifted: bool, moved: float) -> bool:
        """Was the hand card, lying at ``h.lying_at`` and not yet put down, only jostled as it settled?
        It lay fewer than ``side_wait`` looks, is still at that pile, not lifted, and stepped less than
        ``SETTLING_STEP`` still tolerances: a card being picked up is carried further than that."""
        return h.lying_at is not None and pos is not None and pos[0] == h.lying_at[0] and not lifted \
            and h.from_table is None and h.lying_reads < self.eff.side_wait \
            and moved < SETTLING_STEP * self.eff.still_tolerance

    def _shown_looks(self, side: str) -> int:
        """Regular looks a card lying on ``side`` of the pile it was just turned over at (not its own pile's)
        is taken for shown there, in the hand: on the stack ``SHOWN_ON_STACK_LOOKS``, out in its fan
        ``side_wait`` (a card may truly be put beneath a neighbour of its own pile, by mistake, and that is
        judged after ``side_wait`` looks, as before)."""
        return SHOWN_ON_STACK_LOOKS if side == "top" else self.eff.side_wait

    def _turned_over_there(self, h: _Hand, side: str) -> bool:
        """The hand card lying on ``side`` of the pile it was taken from was turned over there, to be shown:
        on its stack, its back seen there as it was lifted, or judged taken out of turn (where play was not:
        a player who turned the wrong card puts it back; 9163 at 1080p, models: a QC turned at 11 by
        mistake, first seen held there with both indices, no back seen, lying 0.4 card heights out in 11's
        fan, was judged put beneath 11 after three looks, a false WRONG_TARGET_PILE and its return missed)."""
        return side == "top" or self._lifted_at_source(h) or h.play_was_at not in (None, h.source)

    @staticmethod
    def _lifted_at_source(h: _Hand) -> bool:
        """Its back was seen at the pile it was taken from before its face showed: it was turned over there
        (not first seen already lying out in that pile's fan, its source then where play was)."""
        return h.source is not None and any(pl == h.source for pl, _ in h.fd_points)

    @staticmethod
    def _on_source_stack(h: _Hand, pos: tuple[int, str] | None) -> bool:
        """``pos`` is on top of the stack the hand card was taken from, which it has not left, and that is
        not its own pile: held there, turned over (to be put back), not put down."""
        return pos is not None and pos == (h.source, "top") and not h.left_source and \
            h.card is not None and h.card.home_pile != h.source

    def _back_seen_far_off(self, last: _Sighting, here: set[int]) -> bool:
        """The last face-down shape held off the stacks since the hand card's last look lies more than
        ``CARRIED_FAR`` card heights from every pile in ``here``: the card is being carried across the
        clock, seen as a back through the blur (9091 at 1080p, models: a 3C turned at 8 and carried fast
        to 3, its stack at 8 seen "held" twice by the hand, then the 3C's back 3.2 card heights on, by 5,
        was judged put back face down at 5, a false WRONG_TARGET_PILE, and then turned at 8 again)."""
        fl = self._fd_last
        if fl is None or fl[0] <= last.frame:
            return False
        if self._on_a_stack(fl[1]):
            return False  # on a stack's place: that stack seen "held" (a hand by it), not a card carried (9107
            # at 1080p, models: a 2C seen face down three times by 12, where it was turned out of turn, then
            # 6's stack once, was judged carried on, and put beneath 12 when the next card was read)
        g = self._ground(fl[1], fl[2])
        return all(float(np.linalg.norm(g - self.layout.centres[q - 1])) > CARRIED_FAR * self._pile_h(q)
                   for q in here)

    def _settling_back(self, index: int, pile: int) -> bool:
        """A face-down shape held by ``pile``'s stack within ``SETTLING_BACK_FRAMES`` of a card judged put back
        face down there: that card coming to rest, not the next card lifted (9147 at 1080p, models: the QD
        put back on 2 was seen settling there 0.3 card heights off three frames after, and the 3H lifted at 1
        next, first seen unread half a card height from that back, was judged taken from 2)."""
        pb = self._put_back
        return pb is not None and pb[1] == pile and 0 <= index - pb[0] <= SETTLING_BACK_FRAMES

    def _nearer_the_back_trail(self, centre: np.ndarray, prev: tuple[int, np.ndarray, float] | None) -> bool:
        """Of two face-down shapes seen held in one look, ``centre`` is the card's, not the one kept so far in
        this look: nearer where a back was last seen held (within ``BACK_TRAIL_FRAMES``), else nearer the
        hand card's last look. (A stack coming back into view by the hand is seen "held" too; 9147 at 1080p,
        models: the QD turned face down over 2 and laid there, its back seen three looks on its way down,
        was judged put back at 3, whose stack showed again 0.15 card heights off in the same looks.)"""
        ref = prev[1] if prev is not None else (self.hand.last.centre if self.hand is not None and self.hand.sightings
                                                else None)
        if ref is None or self._fd_last is None:
            return True
        return float(np.linalg.norm(centre - ref)) < float(np.linalg.norm(self._fd_last[1] - ref))

    def _on_a_stack(self, point: np.ndarray) -> int | None:
        """The pile whose stack's place ``point`` lies on (within ``ON_STACK`` card heights), if any."""
        d = self._stack_distances(point)
        return int(np.argmin(d)) + 1 if float(d.min()) < ON_STACK else None

    def _carried_off(self, h: _Hand) -> bool:
        """The face-down shapes seen since the hand card's last look lead away from where it was: the first
        ``CARRIED_OFF`` card heights off or more within two moving looks, yet no further than a hand carries a
        card in that time (at least 2 card heights), each next one further. It is being carried, seen as a back
        through the blur of a fast hand (9076 at 1080p with the zoom: a QH turned at 6 and carried fast to 12,
        seen so 1.2 and then 2.8 card heights on, was judged put back face down, its stack seen again, then
        "turned" again at 6; 9078's AH on its way from 5 to 1, seen so once 1.8 card heights on, "returned"
        to 3). One back seen further off is the next card lifted there (see ``_vanished``)."""
        last = h.last
        trail = [(f, c) for f, _pl, c in self.fd_recent if f > last.frame]
        if not trail or trail[0][0] - last.frame > 2 * self.params.moving_every:
            return False
        away = [float(np.linalg.norm(c - last.centre)) / self.h for _, c in trail]
        reach = self._hand_reach(last.frame, trail[0][0], 2.0) / self.h
        if not (away[0] <= reach and all(b > a for a, b in zip(away, away[1:]))):
            return False
        if away[0] >= CARRIED_OFF:
            return True
        return self._headed_off(h, trail[0][1])

    def _headed_off(self, h: _Hand, back_at: np.ndarray) -> bool:
        """A back seen at ``back_at`` just after the hand card's last look lies ``HEADED_OFF`` card heights
        further from the stack the card came from than that look, and ``HEADED_FAR`` from it at least: the
        card heading away from that stack, not turned face down over it."""
        if h.source is None:
            return False
        face = float(self._stack_distances(h.last.centre)[h.source - 1])
        back = float(self._stack_distances(back_at)[h.source - 1])
        return back >= HEADED_FAR and back - face >= HEADED_OFF

    def _corner_beside_stack(self, h: _Hand) -> bool:
        """The hand card lay still by a stack whose back showed at ``STACK_SEEN_BENEATH`` looks, and no look
        of that still run showed both its indices: it lies beneath that stack with one corner showing,
        however square on the stack its quad (guessed from that corner) lies. A card on top shows both
        indices (9044's KD at 1080p, square on the centre, the stack's back seen at three looks too, was on
        top); 9069's AH at 1080p, slid beneath 1, its quad over the stack, was judged put on top."""
        if not self._both_known or h.stack_seen < STACK_SEEN_BENEATH or not h.sightings:
            return False
        return not any(x.both for x in h.sightings[-max(h.still, 1):])

    def _square_on(self, q: int, centre: np.ndarray) -> bool:
        """A card centred here lies square on the stack of pile ``q``, covering it: within half of
        ``top_sure`` of the stack's centre along its fan (and close across it)."""
        d = np.asarray(centre, np.float64) - self.layout.centres[q - 1]
        u = self.layout.outward[q - 1]
        across = abs(float(d[0] * u[1] - d[1] * u[0])) / self._pile_h(q)
        return abs(self._along(q, centre)) < 0.5 * self.params.top_sure and across < self.params.top_across

    def _unseen_side(self, h: _Hand, q: int) -> str:
        """The side of pile ``q`` the hand card went to unseen: beneath, unless it was last seen lying
        square on that stack (not held up over it): then on top (9037's 7C at 1080p, put on top of 7,
        last seen there 0.05 card heights from the stack's centre, was judged slid beneath it unseen: a
        WRONG_SIDE missed)."""
        last = h.last
        if self._pile_at(last.centre) != q or not self._square_on(q, last.centre):
            return "under"
        # held up: as for a face-down card held (the 7C was last seen 1.0015 times the size a lying card may be)
        held = last.height > self.eff.held_scale * self.geometry.pile_size_at(q, last.centre)
        return "under" if held or self._turning(last, q) else "top"

    def _down_after(self, last: _Sighting) -> list[tuple[int, int | None]]:
        """(frame, pile) of the face-down cards seen off the stacks since the hand card's last sighting
        ``last``; not a shape seen face down at the same place before it, far from where this card was
        last seen: the detector's recurring false find (9039 at 1080p: one by the centre, seen there before
        the 3H was read and after it was put beneath 3, two card heights off, was taken for the 3H turned
        face down at the centre it came from)."""
        before = [c for f, _, c in self.fd_recent if f <= last.frame]
        return [(f, pl) for f, pl, c in self.fd_recent if f > last.frame and not (
            float(np.linalg.norm(c - last.centre)) > self.h
            and any(float(np.linalg.norm(c - b)) < 0.25 * self.h for b in before))]

    def _spent_ranks(self, view: GameView, h: _Hand | None) -> set[int]:
        """Ranks all four of whose cards lie face up already (the hand card's own rank aside): a shape
        whose rank alone is read surely as one of them is a table card, never a new one in the hand
        (9064 at 1080p: an unread shape at 10, its rank read at 0.99 with all four tens face up, was taken
        for a card in the hand and held it, lying still, for the rest of the game: 23 pairs lost)."""
        own = {h.card.rank.value} if h is not None and h.card is not None else set()
        return {r.value for r in Rank if r.value not in own and all(self._impossible(Card(r, s), view) for s in Suit)}

    def _table_card_at_rest(self, card: Card | None, point: np.ndarray, hand_seen: bool) -> bool:
        """``card``, read surely, lies face up on the table within ``TABLE_AT_REST_REACH`` card heights of
        ``point``, and the hand card is seen at this look (``hand_seen``: the hand holds it, or it lies where it
        was put) or nothing has moved there in the last frames: that table card seen a little off its place,
        not a card picked up to be moved. (9258 at 1080p, models: the AD beneath 1, read 0.41 card heights off
        its place as a 6S was held over 2's stack beside it, began a new hand, and the 6S was judged put down
        beneath 2, a false WRONG_TARGET_PILE, its return face down missed.)"""
        return self._lies_at(card, point, TABLE_AT_REST_REACH) \
            and (hand_seen or not self._moving_near(point, 0.5 * self.h))

    def _lies_at(self, card: Card | None, point: np.ndarray, reach: float = TABLE_MATCH_REACH) -> bool:
        """Whether the table model has ``card`` lying at ``point`` (within ``reach`` card heights: by default
        the match reach of a table card)."""
        tc = self.table.cards.get(card) if card is not None else None
        return tc is not None and tc.distance(point) < reach * self._pile_h(tc.pile)

    def _impossible(self, card: Card | None, view: GameView) -> bool:
        """A reading that cannot be a new card: that card already lies face up (a misreading)."""
        return card is not None and (card in self.table or card in view.face_up)

    def _turning(self, s: _Sighting, pile: int) -> bool:
        """A quad much narrower (or wider) than a card lying at ``pile`` looks: a card turning over."""
        return bool(s.aspect) and abs(s.aspect / float(self.stack_aspect[pile - 1]) - 1.0) > 0.2

    def _along(self, q: int, point: np.ndarray) -> float:
        """How far out from pile ``q``'s stack centre ``point`` lies (card heights, along the fan)."""
        d = np.asarray(point, np.float64) - self.layout.centres[q - 1]
        return float(d @ self.layout.outward[q - 1]) / self._pile_h(q)

    def _pile_at(self, point: np.ndarray) -> int | None:
        q = self.layout.locate(point)
        if q is not None:
            return q
        d = self._stack_distances(point)
        k = int(np.argmin(d))
        return k + 1 if d[k] < 1.2 else None

    def _stack_distances(self, point: np.ndarray) -> np.ndarray:
        """Distance from ``point`` to each pile's centre, in that pile's card heights."""
        return np.linalg.norm(self.layout.centres - np.asarray(point), axis=1) / self.layout.pile_card_h

    def _nearest_pile(self, point: np.ndarray) -> int:
        """The pile at ``point`` (:meth:`_pile_at`), else the one whose centre is nearest, however far."""
        q = self._pile_at(point)
        if q is not None:
            return q
        return int(np.argmin(np.linalg.norm(self.layout.centres - np.asarray(point), axis=1))) + 1

    def _lying_position(self, s: _Sighting) -> tuple[int, str] | None:
        """(pile, side) if a card seen like this could be lying at a pile, else None. The pile is the one
        whose fan axis the card lies on (beneath: out along the axis; top or near: by the stack)."""
        best: tuple[float, int, str, float] | None = None
        for q in range(1, 14):
            c = self.layout.centres[q - 1]
            u = self.layout.outward[q - 1]
            hq = self._pile_h(q)
            d = s.centre - c
            along = float(d @ u) / hq
            across = abs(float(d[0] * u[1] - d[1] * u[0])) / hq
            n_under = sum(1 for tc in self.table.on_pile(q) if tc.side == "under")
            if -max(TOP_INWARD, self.params.top_radius) < along < self.params.top_radius and \
                    across < self.params.top_across:
                side = "top"
            elif along >= self.params.top_radius and across < 0.2 and along < 0.3 * (n_under + 1) + 0.35:
                side = "near" if along < 0.35 else "under"
            else:
                continue
            score = across + 0.5 * max(0.0, -along)
            if best is None or score < best[0]:
                best = (score, q, side, along)
        if best is None:
            return None
        _, q, side, _ = best
        # size: like a card lying there (the stack's own size, with the view's trend outward)
        expect = self.geometry.pile_size_at(q, s.centre)
        if s.height > self.eff.max_lying_scale * expect and not self._beneath_seen_stack(s, q, side):
            return None
        if self._turning(s, q):
            return None  # turning over (foreshortened): not lying
        return q, side

    def _believe(self, h: _Hand, view: GameView, seen_table: set[Card]) -> None:
        p = self.params
        # the last ``window`` confident readings (an unsure reading between two sure ones says nothing)
        recent = [c for c in h.reads if c is not None][-p.window:]
        card, n = Counter(recent).most_common(1)[0] if recent else (None, 0)
        fused = 0.0
        if n < p.agree:
            card, fused = self._fused(h)  # no two sure readings agree: what do its looks say together?
            if h.card is None and h.from_table is None and (card is None or card in seen_table):
                card, fused = self._pinned_by_rank(h, view)  # (a card seen lying in its place is not this one)
            if card is None:
                return
            if recent and card not in recent and any(
                    self._evidence(h, card) - self._evidence(h, c) < FUSED_OVER_SURE for c in set(recent)):
                # a few unsure looks barely outweighing a sure reading of another card: blurred looks err
                # alike, so they are no independent evidence; wait for a second sure reading (9072 at
                # 1080p: a 3H read surely once as it was turned, then three blurred looks leaning to 10 as
                # it was carried to 3, was announced as TH, a false WRONG_TARGET_PILE; 4.5 nats ahead).
                # Many looks far ahead still name it: 9073's KS lying beneath 13, 17 looks, the 8H turned
                # next read surely once beside it, 48 nats behind
                return
        if h.announced and h.provisional and h.contested:
            # contested: the card read surely most often over its last ten looks, not only the last few (9180 at
            # 1080p, models: the first card, an 8C, read surely once as it was turned, then three times as
            # TC as it was carried; TC announced, and the five sure 8C readings where it lay were taken for
            # the next card turned there: a false WRONG_TARGET_PILE and WRONG_SOURCE_PILE)
            tally = Counter(c for c in h.reads if c is not None and c != h.card and not self._impossible(c, view))
            rival = max(tally, key=lambda c: tally[c], default=None)
            if rival is not None and tally[rival] > sum(1 for c in h.reads if c == h.card):
                self._confirm_provisional(h, rival, view, seen_table)
            return
        if h.announced and h.provisional and n >= p.agree:
            self._confirm_provisional(h, card, view, seen_table)
            return
        if h.card is not None and card != h.card and h.announced:
            return  # keep the first belief (a later disagreement is a misread)
        r = self._resumed
        if r is not None and r[0] is not None and card == r[0] and h.from_table is None and not h.announced:
            h.card = card  # the card already in the hand when the game was resumed (face up in the view)
            h.confidence = max((s.conf for s in h.sightings if s.card == card), default=fused)
            return
        if card in self.table and card not in seen_table:
            h.from_table = card  # a table card picked up: a move
        elif card in self.table or (card in view.face_up and not h.announced and card != h.card):
            return  # already face up elsewhere: cannot be this card
        h.card = card
        h.fused = n < p.agree
        h.contested = not h.fused and any(c is not None and c != card and not self._impossible(c, view)
                                          for c in h.reads)
        h.confidence = max((s.conf for s in h.sightings if s.card == card), default=fused)

    def _confirm_provisional(self, h: _Hand, card: Card, view: GameView, seen_table: set[Card]) -> None:
        """Sure readings now agree on the card announced on its looks added up: confirmed, or, naming
        another card that can be this one, the held announcement is corrected before it is released.
        (9153 at 1080p, models: a QC's blurred looks added up to QD as it was turned; two sure QC
        readings followed as it was carried to 12, but the first belief was kept, and the QC read where
        it then lay was taken for the next card turned at 12; likewise its 4C, named 4D.)"""
        h.provisional = False
        if card == h.card:
            return
        held = self._held_for is h and len(self._held) >= 2 and self._held[1].event[0] == "see"
        if not held or card in self.table or card in seen_table or card in view.face_up \
                or card in self._announced:
            return  # already reported, or the reading cannot be this card: the first belief stands
        self._announced.discard(h.card)
        self._announced.add(card)
        h.card, h.fused = card, False
        h.confidence = max((s.conf for s in h.sightings if s.card == card), default=0.0)
        self._held[1] = replace(self._held[1], event=["see", str(card)], confidence=round(h.confidence, 3))

    @staticmethod
    def _evidence(h: _Hand, card: Card) -> float:
        """The hand card's looks' summed log-probability of ``card`` (its rank's and its suit's)."""
        return float(h.rank_ev[int(card.rank.value) - 1] + h.suit_ev[SUIT_CODES.index(card.suit.value)])

    def _fused(self, h: _Hand) -> tuple[Card | None, float]:
        """The card the hand card's looks name together (each look's probabilities multiplied, none below
        ``fuse_floor``), with how sure, when at least two looks make it ``fused_confidence`` sure and
        some look gave its rank, and some look its suit, at least ``LEANING`` (or some look read it surely)."""
        if h.looks < 2 or self.params.fused_confidence >= 1.0:
            return None, 0.0
        pr = np.exp(h.rank_ev - h.rank_ev.max())
        ps = np.exp(h.suit_ev - h.suit_ev.max())
        r, s = int(pr.argmax()), int(ps.argmax())
        conf = float(pr[r] / pr.sum() * (ps[s] / ps.sum()))
        if conf < self.params.fused_confidence:
            return None, 0.0
        named = Card(Rank(r + 1), Suit(SUIT_CODES[s]))
        if (r not in h.leant_ranks or s not in h.leant_suits) and named not in h.reads:
            # many looks that each say little add up to a sure answer no look gave (2001: 13 looks at
            # a JD, the J read at 0.24-0.25, added up to JS at 0.988): some look must have given the
            # rank even odds, and some look the suit. A look read surely as a card leans to that card alone:
            # its rank does not lend itself to another suit (9126 at 1080p, models: the 2H just put beneath 2,
            # read surely as the 8S was lifted over it, began the 8S's trail; its 2 and a few blurred looks
            # leaning to clubs named the 8S 2C)
            return None, 0.0
        return named, conf

    def _pinned_by_rank(self, h: _Hand, view: GameView) -> tuple[Card | None, float]:
        """The one card of a rank still to come, when the hand card's looks added up make that rank
        ``fused_confidence`` sure (some look gave it at least ``LEANING``) and it was first seen away from
        every card of the rank lying on the table: the unseen set names its suit. (9176 at 1080p, models:
        the last king, the KC, read K surely over 20 looks as it was carried from 10 and lay beneath the
        centre, its suit leaning to spades, the KS lying there: never named, and the game's end never seen.)
        First seen within ``PICKED_UP_REACH`` of a card of the rank, it may be that card: picked up to be
        moved, or the detector's second shape of it, or of a fan of them (9179: a shape over the three aces
        lying beneath 1, named AD this way, a false turn). Likewise when every look that leant to the rank
        was that close to one (9237: a QD read once, then followed as the unread shape by the kings beneath
        the centre, named KD, the last king: the game ended there)."""
        if h.looks < 2 or self.params.fused_confidence >= 1.0:
            return None, 0.0
        pr = np.exp(h.rank_ev - h.rank_ev.max())
        r = int(pr.argmax())
        conf = float(pr[r] / pr.sum())
        if conf < self.params.fused_confidence or r not in h.leant_ranks:
            return None, 0.0
        rank = Rank(r + 1)
        left = [c for c in (Card(rank, Suit(x)) for x in SUIT_CODES) if not self._impossible(c, view)]
        if len(left) != 1:
            return None, 0.0
        kin = [tc for tc in self.table if tc.card.rank is rank]

        def by_kin(x: _Sighting) -> bool:
            return any(tc.distance(x.centre) < PICKED_UP_REACH * self._pile_h(tc.pile) for tc in kin)

        if not h.sightings or by_kin(h.sightings[0]):
            return None, 0.0
        backing = [x for x in h.sightings if x.rank_leans == r or (x.card is not None and x.card.rank is rank)]
        if backing and all(by_kin(x) for x in backing):
            return None, 0.0  # every look that gave it the rank was by a card of that rank lying there: that card
        return left[0], conf

    def _announce(self, h: _Hand, index: int, t: float, view: GameView) -> list[Observation]:
        if h.card is None or h.announced or h.from_table is not None:
            return []
        h.announced = True
        self._announced.add(h.card)
        out = []
        if self._resumed is not None:
            known, src = self._resumed
            self._resumed = None
            if known is None or known == h.card:
                h.source, h.left_source = src, True
                if known is not None:
                    return []  # taken and read before the resume: nothing new
                return [Observation(index, t, ["see", str(h.card)], round(h.confidence, 3), "read in the hand")]
        if self._exchange_pending:
            self._exchange_pending = False
        else:
            h.source, decided = self._source_by_stacks(self._source(h), h)
            h.play_was_at = view.expected_pile
            missed = self._missed_card(h, index, t, view)
            if missed:
                out.extend(missed)
                self._holding = False
            else:
                self._seeking = missed is not None  # one seems missed, not found yet: look on while the turn waits
                # a belief its looks only add up to waits too, for sure readings to confirm or correct it
                # (and one that another sure reading contests, for the readings to come to outnumber it)
                h.provisional = h.fused or h.contested
                self._holding = not decided or self._seeking or h.provisional
                self._holding_for, self._holding_since = h, self._last_put
            out.append(Observation(index, t, ["turn", h.source], None, "taken"))
        out.append(Observation(index, t, ["see", str(h.card)], round(h.confidence, 3), "read in the hand"))
        return out

    def _missed_card(self, h: _Hand, index: int, t: float, view: GameView,
                     last_put: int | None = None) -> list[Observation] | None:
        """A card turned from a pile away from where play is, while the stack where play is lost its top
        card too since the last card came to rest: a card was taken there and put down unseen (too small
        or blurred to read in the hand), most likely beneath the pile this one came from. It is looked for
        lying there, face up and not seen before (in this look, and through ``zoom`` where there is one);
        one such card read there gives its turn, reading and place before this card's turn. Its place is
        where it is found, and its reading is its own: the pile is never evidence of what it is (dev
        games at 1080p: 10 of 89 wrong-source flags came after a card missed that way). Returns those
        three observations; [] when a card seems missed but is not found (the hand taking this card may
        still hide it); None when nothing seems missed."""
        expected, p = view.expected_pile, h.source
        last_put = self._last_put if last_put is None else last_put
        if expected is None or p is None or p == expected or last_put is None or h.card is None \
                or view.in_hand is not None:
            return None  # (a card the referee still holds was not put down: not this case)
        lifted = _lifted(h)
        # since the last card known when put down: a card put down unread (9034's 2S beneath 2) came after
        since = last_put if self._last_read_put is None else min(last_put, self._last_read_put)
        there = self._stack_change(expected, since, lifted)  # (the game's first card: its first settled look)
        if there is None or there < STACK_TAKEN:
            return None
        looks = [d for d in (self.last_detections,) if d is not None]
        if self.zoom is not None and self._frame is not None:
            centre = self.layout.centres[p - 1] + 0.5 * self._pile_h(p) * self.layout.outward[p - 1]
            looks.append(self.zoom(self._frame, _square(centre, ZOOM_SIDE * self._pile_h(p))))
        found: dict[Card, tuple[np.ndarray, float]] = {}
        for d in looks:
            for i in range(len(d)):
                card = d.card(i)
                if not d.face_up[i] or card is None or card == h.card or self._impossible(card, view) \
                        or card in self._announced:
                    continue  # (one reported before and put back since is not a card played unseen: 9015's 2S)
                centre = d.centres[i].astype(np.float64)
                if self._beneath(p, centre):
                    found[card] = (centre, float(min(d.rank_confidence[i], d.suit_confidence[i])))
        lost = not found
        if lost:
            found = self._lost_at(p, h, view, index)
        if len(found) != 1:
            return []  # none read there, or more than one: nothing to go on
        (card, (centre, conf)), = found.items()
        self.table.put(TableCard(card, p, "under", centre, index, index))
        self._announced.add(card)
        return [Observation(index, t, ["turn", expected], None, "taken unseen"),
                Observation(index, t, ["see", str(card)], round(conf, 3),
                            "read as it went out of sight there" if lost else "read where it lies"),
                Observation(index, t, ["place", p, "under"], None, "put down unseen")]

    def _lost_at(self, p: int, h: _Hand, view: GameView, index: int) -> dict[Card, tuple[np.ndarray, float]]:
        """For ``_missed_card``, none read lying beneath pile ``p``: a card lost from sight there since play
        was last known, read surely at its last reading, within ``LOST_REACH`` card heights of ``p``'s
        stack, never announced, not face up: it went beneath ``p`` out of sight (9114 at 1080p, models: the
        first card, a JD read once over 11, slid beneath 11 where only a sliver of it showed, was never seen
        again, and the 6C taken from 11 next was judged taken out of turn). Where it was last read."""
        found: dict[Card, tuple[np.ndarray, float]] = {}
        since = self._last_put if self._last_put is not None else -1
        for o in self._lost:
            if o is h or not o.sightings or o.last.frame < since or index - o.last.frame > LOST_FRAMES:
                continue
            x = next((x for x in reversed(o.sightings) if x.card is not None), None)
            if x is None or x.card == h.card or x.conf < LOST_CONFIDENCE or self._impossible(x.card, view) \
                    or x.card in self._announced:
                continue
            if self._stack_distances(x.centre)[p - 1] <= LOST_REACH:
                found[x.card] = (x.centre.copy(), x.conf)
        return found

    def _beneath(self, q: int, point: np.ndarray) -> bool:
        """``point`` could be the centre of a card lying beneath pile ``q``: out along its fan (to one card
        past those already there), near its axis. Looser than ``_lying_position``: the centre the detector
        gives a card half under a stack is off by a quarter of a card or so (9034's 2H beneath 2: 0.33
        out, 0.24 across)."""
        d = np.asarray(point, np.float64) - self.layout.centres[q - 1]
        u, hq = self.layout.outward[q - 1], self._pile_h(q)
        along, across = float(d @ u) / hq, abs(float(d[0] * u[1] - d[1] * u[0])) / hq
        n_under = sum(1 for tc in self.table.on_pile(q) if tc.side == "under")
        return 0.15 <= along < 0.3 * (n_under + 1) + 0.6 and across < 0.45

    def _back_pile(self, centre: np.ndarray, height: float) -> int | None:
        """The pile a card seen lifted face down is held over: where its size puts it on the table (a card
        held up looks bigger and lies nearer the camera than its place); but one seen right on a stack's
        place (``ON_STACK_PLACE``) is at that stack, whatever its size says (9184 at 1080p, models: the JS
        lifted at 4, where play was, its back seen 0.2 card heights from 4's stack and put by its height
        over 5, was judged taken from 5)."""
        dist = self._stack_distances(centre)
        k = int(np.argmin(dist))
        if float(dist[k]) < ON_STACK_PLACE:
            return k + 1
        return self._pile_at(self._ground(centre, height))

    def _source(self, h: _Hand) -> int:
        # a card lifted face down shows its face where it was held: a face-down sighting far from where
        # the face first showed was another card, or a stack the hand half hid
        # the card's face first seen (perhaps still turning over, unread); looks surely read as another
        # card are that card's, not this one's (2000: a misreading of the 8H just put beneath 8 as 8C
        # began the trail of the 7S then turned by 9, which was judged taken from 8)
        first = next((j for j, x in enumerate(h.sightings) if x.card is None or x.card == h.card), 0)
        sights = self._past_stray_shapes(h, h.sightings[first:])
        s0 = sights[0]
        expected = self._view.expected_pile if self._view is not None else None
        lying = self._lying_position(s0)
        # its back seen just before, right by where its face first shows, at a pile where play is not and
        # that is not its own: lifted there out of turn and turned over above that pile's fan (9107 at 1080p,
        # models: a 2C turned at 12, first seen face up 0.2 card heights from its back, out along 12's fan,
        # was judged taken from 11, where play was, and put beneath 12: a WRONG_SOURCE_PILE and its return
        # missed). A card of that pile lying in its fan was put there unseen (2001's JD, below)
        lifted_here = lying is not None and lying[0] != expected and h.card is not None \
            and h.card.home_pile != lying[0] and any(pl == lying[0] and float(np.linalg.norm(c - s0.centre))
                                                     <= BACK_BY_FACE * self.h for pl, c in h.fd_points)
        if expected is not None and lying is not None and lying[1] == "under" and not s0.both and not lifted_here:
            # first seen lying out in a pile's fan, slid beneath it (its inner index covered): it was
            # turned over and put down unseen, and a card lifted there now is the next one (2001: a JD
            # put beneath 11 unread, first read as the next card was lifted from 11, was judged taken
            # from 11). Nothing was seen of where it came from: where play is
            return expected
        near = [pl for pl, c in h.fd_points if float(np.linalg.norm(c - s0.centre)) <= self.params.fd_reach * self.h]
        if near:
            return near[0]
        if expected is not None and any(pl == expected for pl, _ in h.fd_points):
            # lifted face down where play is, and carried off before its face showed (2000: taken
            # from 9, turned over half way to 5, judged taken from 6, the pile it was first seen over)
            return expected
        held_by = lying is not None and lying[1] == "near" and any(
            x.both and float(np.linalg.norm(x.centre - s0.centre)) < 0.5 * self.h for x in sights[:SOURCE_LOOKS])
        if held_by:
            # first seen by a stack and held up there, both its indices showing: turned over there,
            # wherever it is carried before it is read (2000: a 7S turned by pile 9, out of turn, was
            # judged taken from 8, where play was; an 8H turned by 10, read only at 8, from 8)
            return lying[0]
        # first seen close by a stack, "near", and still there at a later look, that stack seen before and not
        # since: the card hides it, held over it, not slid beneath it (9258 at 1080p, models: a 6S turned at 2
        # out of turn, held 0.19-0.29 card heights out over 2's stack for 20 frames, one index showing, was
        # judged taken where play was, "first seen lying out in a fan": the WRONG_SOURCE_PILE missed)
        later = self._lying_position(h.last)
        hides_stack = lying is not None and lying[1] == "near" and h.last.frame > s0.frame \
            and later is not None and later[0] == lying[0] and later[1] != "under" \
            and -1 < self._stack_seen_at.get(lying[0], -1) < s0.frame
        if expected is not None and lying is not None and lying[1] != "top" and not hides_stack:
            # first seen already lying out in a pile's fan (not held up, not turning over, not on a stack
            # where it would have been turned over): nothing was seen of where it came from, so it came
            # from where play is (not the pile it lies at: that would judge its source by where it went)
            return expected
        first_read = next((k for k, x in enumerate(sights) if x.card == h.card), 0)
        s = sights[first_read]
        if expected is not None and s0 is not s and s0.card is None and s0.leans in (None, h.card) \
                and float(self._stack_distances(s0.centre)[expected - 1]) < FIRST_BY_PLAY \
                and s0.height > self.eff.lifted * self.geometry.pile_size_at(expected, s0.centre) \
                and not self._came_to_rest(sights[:first_read]):
            # first seen unread, held up right over the stack where play is, read only after it was carried off,
            # never at rest on the way: it was turned over there, however far off it was read (9224 at 1080p, models:
            # a JC turned at 7, seen held up 0.25 card heights from 7's stack, carried fast to 11 and read only
            # there, 4 card heights off, was judged taken at 11, a false WRONG_SOURCE_PILE; the stack of 7
            # stayed hidden). An unread card that came to rest somewhere may have been left there, and the card
            # read is the next one turned there (as in test_a_card_played_unseen_is_found_beneath_...)
            return expected
        if s0 is not s and (float(np.linalg.norm(s0.centre - s.centre)) < 2.0 * self.h or s0.shows(h.card)):
            # (the first look, unsure but leaning to the card, was the card: 9114 at 1080p, models: a 6C
            # first seen over 11 as it was turned there, leaning 0.85 to 6C, first read at 6, was judged
            # taken from 6, then from 13 by the stacks' looks)
            s = s0
        read_at = self._lying_position(sights[first_read])
        if s is s0 and s0 is not sights[first_read] and lying is None and read_at is not None \
                and read_at[1] != "under" and h.card is not None and h.card.home_pile != read_at[0]:
            # first seen held up midway between two stacks (no nearer one by ``SOURCE_TIE``), then read lying by
            # one of them, not beneath it nor at its own pile: shown by the stack it was turned at (9225 at 1080p,
            # models: a 6H turned at 1 by mistake, first seen 0.72 card heights from 1's stack and 0.73 from 2's,
            # in 2's zone, then held by 1 for 20 frames and put back: judged taken and put back at 2)
            d = self._stack_distances(s0.centre)
            two = np.argsort(d)[:2]
            if float(d[two[1]] - d[two[0]]) < SOURCE_TIE and read_at[0] - 1 in two:
                return read_at[0]
        g = self._ground(s.centre, s.height)
        q = self._pile_at(g)
        if q is None:
            d = np.linalg.norm(self.layout.centres - g, axis=1)
            q = int(np.argmin(d)) + 1
        # where its face was first seen, as seen and put back beneath (the elevation estimate is rough
        # when the camera is far): when the two disagree and one of them is where play is, that one
        raw = self._pile_at(s.centre)
        if raw is not None and raw != q and raw == expected:
            return raw
        if expected is not None and q != expected and lying is None:
            # held up between two stacks, nearer the one where play is: turned over there, whichever pile's
            # zone the point falls in (9680 at 640x360, oracle: the 5C lifted at 8, first seen 0.40 card
            # heights from 8's stack and 0.56 from 9's, in 9's zone, as the hand hid 9: judged taken from 9)
            d = self._stack_distances(s.centre)
            if int(np.argmin(d)) + 1 == expected and d[expected - 1] < SOURCE_NEAREST:
                return expected
        return q

    def _past_stray_shapes(self, h: _Hand, sights: list[_Sighting]) -> list[_Sighting]:
        """``sights`` from the card's first sure reading on, when every look before it was an unread shape
        (none leaning to the card, one index showing) lying out beneath a pile, in its fan, and the card was
        read only after the hand was lost for a look or more, ``NAMED_AWAY_JUMP`` card heights or more from the
        last of them: those shapes were a table card seen unread as an arm went by, not this card, and say
        nothing of where it was turned over.
        (9258 at 1080p, models: an unread shape lying still in 5's fan, then, four looks later and 5.3 card
        heights off, a 6S turned at 2 out of turn: judged "first seen lying out in a fan", so taken where play
        was, the WRONG_SOURCE_PILE missed and its return face down judged a card put beneath 2; 9256's 9S,
        turned at 1, after a shape in 4's fan 3.8 card heights off.) A card first seen lying unread in a fan
        and read there is that shape (2001's JD, see :meth:`_source`)."""
        k = next((j for j, x in enumerate(sights) if x.card is not None and x.card == h.card), None)
        if not k:
            return sights
        before, read = sights[k - 1], sights[k]
        if any(x.card is not None or x.leans == h.card for x in sights[:k]):
            return sights
        if any((pos := self._lying_position(x)) is None or pos[1] != "under" or x.both for x in sights[:k]):
            return sights  # (held up, or by a stack, or shown with both indices: perhaps the card turned over there)
        if read.frame - before.frame <= self.params.moving_every \
                or float(np.linalg.norm(read.centre - before.centre)) < NAMED_AWAY_JUMP * self.h:
            return sights
        return sights[k:]

    def _came_to_rest(self, sights: list[_Sighting]) -> bool:
        """Two looks in a row of ``sights`` at one lying place (within the still tolerance): the card lay there."""
        tol = self.eff.still_tolerance * self.h
        return any(float(np.linalg.norm(b.centre - a.centre)) < tol and self._lying_position(b) is not None
                   for a, b in zip(sights, sights[1:]))

    def _source_by_stacks(self, source: int, h: _Hand | None, since: int | None = None,
                          final: bool = False) -> tuple[int, bool]:
        """The pile a card was taken from, checked against the stacks' looks (``StackLooks``) since the
        last card came to rest: a source judged away from where play is, while the stack where play is
        lost its top card and the judged one looks untouched, was where play is (9025 at 1080p: a card
        read only after it was put down was judged taken from the pile it lay at; the stack of 9 it was
        taken from had changed, that of 6 not). Returns the pile and whether the looks decided it.
        ``since``: the frame the looks are compared from (default: the last card put down came to rest;
        a held turn keeps the one it was held with, as the card itself may be put down meanwhile).
        ``final``: the card is put down and the turn can wait no longer: a judged stack never seen settled
        since, while the one where play is lost its top card, gives the pile where play is (undecided
        still; see ``_release``); so do both stacks never seen settled since, with no back of the card seen."""
        expected = self._view.expected_pile if self._view is not None else None
        since = self._last_put if since is None else since
        if expected is None or source == expected or since is None or h is None:
            return source, True
        lifted = _lifted(h)
        there, judged = (self._stack_change(k, since, lifted) for k in (expected, source))
        # (backs seen before the last card was judged put down may be this card carried face down, already on
        # its way while that one lay: 9116 at 1080p, models, a JS carried face down from 7 and turned over at
        # 11, its own pile; they say nothing of where it was turned over)
        late = h.fd_points[h.fd_early:]
        backs_there = sum(pl == source for pl, _ in late)
        turned_there = backs_there >= 2 or (backs_there >= 1 and backs_there == len(late)) \
            or self._turned_over_beside(h, source, expected)
        # a card lying out beneath its own stack is in that stack's look: its change says nothing of a card
        # taken there (9083 at 1080p: a 2S carried from 1, read only as it came to lie beneath 2, changed
        # that stack by 10.2 grey levels, 1 by 7.7; judged taken at 2, a false WRONG_SOURCE_PILE)
        lying_beneath = h.lying_at is not None and h.lying_at[0] == source and h.lying_at[1] in ("near", "under")
        if self._home_is(h, source) and there is not None and there >= STACK_TAKEN \
                and (judged is None or judged <= there or lying_beneath) and not turned_there:
            # judged taken from its own pile, while the stack where play is lost its top card: the card
            # was carried there unread to be put beneath it, which changes (or hides) that stack as a
            # card taken from it would, so that stack says little (9014's 9S and 4S at 1080p: their own
            # stacks hidden by the hand, 7.5 and 4.7 where play was). Unless its own changed more: a hand
            # sweeping over both (8937 at 640x360: a 3S turned out of turn at 3 and put back, 60.3 there,
            # 53.1 where play was, 43.9 at pile 2, untouched). Not when it was seen lifted face down there,
            # twice, before its face showed: turned over at its own pile, out of turn (8993 at 640x360: an AS
            # turned at 1 by mistake, where play was at 13 the KS just put beneath it had changed the stack
            # by 4.2 grey levels; judged taken at 13, its return to 1 then taken for a place beneath 1); or
            # once, and face down nowhere else (9370 at 640x360: a 3D turned at 3 by mistake while play was
            # at 4, the arm reaching for 3 lay still across the stack of 4, 34 grey levels of "change")
            return expected, True
        if there is not None and judged is not None:
            # taken where play is when the judged stack looks untouched and the one where play is changed at
            # all (as when a hand still hides it, below; a stack a card was taken from changes by 2.6 grey levels
            # at the least: 9172 at 1080p, models, the 5C taken from 9, 3.4 there, 0.3 at 8, was judged taken
            # from 8), or when where play is lost its top card and the judged stack changed by under a quarter of that
            taken_there = judged < STACK_UNTOUCHED <= there or (there >= STACK_TAKEN and judged < 0.25 * there)
            return (expected if taken_there else source), True
        if judged is not None and judged >= STACK_TAKEN and there is None and self._home_is(h, source):
            # its own stack changed, but a card put beneath its own pile changes it as much: wait for the
            # stack where play is (9014's 5C at 1080p, carried from 4 and put beneath 5, 5.25 grey levels
            # of change at 5, the stack of 4 still hidden by the hand: judged taken at 5)
            return source, False
        if (judged is not None and judged >= STACK_TAKEN) or (there is not None and there < STACK_UNTOUCHED):
            return source, True
        if judged is not None and judged < STACK_UNTOUCHED:
            # the judged stack settled since, untouched, while a hand still hides the one where play is
            return expected, True
        if final and judged is None and there is not None and there >= STACK_TAKEN:
            # (9042's TD at 1080p: first read at 7 as it was carried from 6 to 10, the stack of 7 hidden by
            # the hand until the card was put down; 6 had changed by 11 grey levels. Had a card been put
            # beneath 7 unseen first, as ``_missed_card`` looks for, and not been found, "taken at 7" would
            # still be a false flag)
            return expected, False
        if final and judged is None and there is None and not late:
            # neither stack seen settled since the last card came to rest (a hand over both) and no back of
            # the card seen: the pile it was judged taken from is only where it was first read, which says
            # nothing of where it was taken (9173 at 1080p, models: a 2C turned at 4, carried fast and read
            # only as it came to lie beneath 2, judged taken at 2, a false WRONG_SOURCE_PILE; 9178's AS, read
            # first on its way past 2): where play is
            return expected, False
        return source, False

    def _askew_on_hidden_stack(self, h: _Hand, q: int) -> bool:
        """The hand card (not a table card moved), last seen in full view (both indices), lies within
        ``HIDDEN_TOP_ALONG`` of the stack of ``q``, which it hid at two looks and never let show: on top."""
        return h.from_table is None and h.stack_hidden >= 2 and h.last.both \
            and self._along(q, h.last.centre) < HIDDEN_TOP_ALONG

    def _above_stack_in_full_view(self, h: _Hand, q: int) -> bool:
        """The hand card (not a table card moved) lies within ``HIDDEN_TOP_ALONG`` of the stack of ``q`` and
        showed both its indices at every look of its rest (``still_reads`` at least): it lies above the stack, on top. A
        card that far in beneath has its inner index under the stack (the mirror of
        :meth:`_corner_beside_stack`). Oracle 9874 at 640x360: a 7H put on top of 7 by mistake came to rest
        askew 0.20-0.18 card heights out, past ``under_sure``, before creeping in to 0.156, and was judged
        beneath: a WRONG_SIDE missed."""
        if not self._both_known or h.from_table is not None or h.still < self.eff.still_reads:
            return False
        return self._along(q, h.last.centre) < HIDDEN_TOP_ALONG and all(
            x.both for x in h.sightings[-h.still:])

    def _inner_index_over_stack(self, h: _Hand, q: int) -> bool:
        """The hand card (not a table card moved) lies within ``HIDDEN_TOP_ALONG`` of the stack of ``q``, an index
        of its inner end (nearer the middle than the stack's centre) was read at a look of its rest, and the
        stack never showed while it lay there, though nothing moved around it at a look at least: that end
        lies over the stack, uncovered, so the card is on top. A card beneath has its inner end under the
        stack, and one slid out sideways far enough to show that index leaves the stack in view. (Oracle
        10212 at 640x360: a TS put on top of 10 by mistake came to rest askew 0.21 card heights out, a hand's
        fingers over its outer index, and was judged beneath: a WRONG_SIDE missed.) Only for a stack last seen
        ``STACK_RECENT_FRAMES`` before the card was first seen at most (9232's centre stack, 18 frames before
        the KD put on top of it): a stack not seen for long may be gone, and nothing covers the inner ends of
        the cards beneath it (9239 at 1080p, models: the tracker's count wrong after earlier misses, a card in
        2's fan, its stack used up, was judged put on top of it)."""
        if h.from_table is not None or h.stack_seen > 0 or h.stack_hidden < 1 \
                or self._along(q, h.last.centre) >= HIDDEN_TOP_ALONG \
                or self._stack_seen_at.get(q, -STACK_RECENT_FRAMES - 1) < h.first_frame - STACK_RECENT_FRAMES:
            return False
        return any(x.card is not None and x.index_at is not None and self._along(q, x.index_at) < 0.0
                   for x in h.sightings[-max(h.still, 1):])

    def _turned_over_beside(self, h: _Hand, pile: int, other: int) -> bool:
        """No back of the card seen anywhere, its face first seen held up on the stack of ``pile`` with both
        indices showing, and the stack of ``other`` its neighbour (within ``NEIGHBOUR_REACH`` card heights):
        it was turned over at ``pile``, and the hand holding it there may be what "changed" ``other``'s look
        (oracle 9455 at 640x360: a 6S turned at its own pile 6 by mistake and held up there, the hand still
        beside the stack of 7, where play was, which "changed" by 9.3 grey levels; judged carried from 7).
        A stack further off no such hand reaches: its change is a card taken there (9083 at 1080p: a KC
        carried from 4 face down unseen, first shown on the centre's stack with both indices)."""
        if h.fd_points or not h.sightings:
            return False
        s0 = h.sightings[0]
        ph = self._pile_h(pile)
        return s0.both and float(np.linalg.norm(s0.centre - self.layout.centres[pile - 1])) < 0.5 * ph \
            and float(np.linalg.norm(s0.centre - self.layout.centres[other - 1])) < NEIGHBOUR_REACH * ph

    def _stack_change(self, pile: int, since: int, lifted: int) -> float | None:
        """How much the stack of ``pile`` changed since frame ``since`` (``StackLooks.change_since``); for the
        game's first card, since the stack's first settled look, if that came before the card was lifted
        (9042 at 1080p: its first card, the 5C, first seen as it was carried to 5, was judged taken there:
        no stack had a look at frame 0 to compare with)."""
        first = self.stack_looks.first_settled(pile)
        if first is not None and since < first < lifted:
            since = first
        return self.stack_looks.change_since(pile, since, lifted)

    def _try_place(self, h: _Hand, index: int, t: float) -> list[Observation]:
        """The hand card lies still at a pile: put down if known, else ask after a while."""
        if h.from_table is not None or (h.card is not None and h.announced):
            return self._place(h, index, t, "seen")
        if not h.asked and h.lying_since is not None and t - h.lying_since >= self.params.ask_after_s:
            h.asked = True
            q = h.lying_at[0] if h.lying_at else None
            return [Observation(index, t, ["ask", q], None, "cannot read the card lying there")]
        return []

    def _place(self, h: _Hand, index: int, t: float, how: str = "timeout") -> list[Observation]:
        """Put the hand card down at ``h.lying_at``. Close to a stack, beneath or on top? Beneath when the
        stack showed while it lay there (a card on top hides it), or when the next card is taken; on top
        when it hides the stack while nothing moves over it, or is picked up again at once (the child
        corrects it); else by how close it lies."""
        assert h.lying_at is not None
        q, side = h.lying_at
        if side in ("near", "top"):
            side = self._side_close_to(h, q, how)
        s = next((x for x in reversed(h.sightings) if x.card in (h.card, None)), h.last)
        self.hand = None
        # a back seen since this card was read face up was not this card: were the next card to show in this
        # same look, it was that card lifted (``_fd_put``)
        read_at = next((x.frame for x in h.sightings if x.card is not None), None)
        self._fd_put = (index, [x for x in self.fd_recent if read_at is not None and x[0] > read_at])
        self.fd_recent.clear()
        # where play goes on from here: the stacks' looks since it came to rest (it may be put down
        # only when the next card shows, after that card was taken)
        # (only a card truly put down moves it: a table card "moved" nowhere, below, leaves it where it was)
        rest_frame = h.still_from if h.still_at is not None else self._still_since(h, index)
        if h.from_table is None:
            self._last_put = rest_frame
            if h.card is not None:
                self._last_read_put = rest_frame  # (a table card moved does not move where play is)
        if h.from_table is not None:
            old = self.table.cards.get(h.from_table)
            if old is not None and old.pile == q and old.side == side:
                old.centre, old.also_at, old.index_at = s.centre.copy(), None, None  # picked up and put back (or its place re-read): no event
                return []
            if old is not None and old.pile != q and not any(
                    x.shows(h.from_table) and self._pile_at(x.centre) != old.pile for x in h.sightings):
                # never read as that card (nor leaning to it) away from its own pile: the shape followed off
                # there was another
                # (9159 at 1080p, models: the 4C beneath 4 read at its place as an unread shape there was
                # followed; the trail leapt to an unread shape by the centre, and the 4C was "moved" to 13, a
                # false WRONG_TARGET_PILE, and back, five times in the game). A card truly moved is read
                # where it lies now, and is then moved from there. Nothing was put down (here, nor above): the
                # stacks' looks are compared from where they were (9257 at 1080p, models: a 4C turned at 8, followed
                # as the 8D lying there "picked up" and carried to 4, then read as itself: compared from the moment
                # that trail ended, 8's stack had not changed, and the 4C was judged taken at 4, a false
                # WRONG_SOURCE_PILE; 9247's QD turned at 12 under a QS "picked up" there and put back)
                return []
            if old is not None and old.pile == q == h.from_table.home_pile and old.side == "under":
                # lying where it belongs, "moved" to the top of that same pile: a correction puts a card
                # right, never wrong; it was seen off its place as the stack's next card was turned over it
                # (9076 at 1080p: the 5S beneath 5, seen 0.3 card heights off its place over the stack as
                # the 7H was turned there, a false WRONG_SIDE, then "moved" back; the KC beneath 13 alike).
                # Both places are its own from now on
                old.also_at = s.centre.copy()
                return []
            self.table.put(TableCard(h.from_table, q, side, s.centre.copy(), index, index))
            self._last_put = rest_frame
            return [Observation(index, t, ["move", str(h.from_table), q, side], round(h.confidence, 3), "moved")]
        if h.card is None:
            return []
        self.table.put(TableCard(h.card, q, side, s.centre.copy(), index, index))
        return [Observation(index, t, ["place", q, side], round(h.confidence, 3), "put down")]

    def _side_close_to(self, h: _Hand, q: int, how: str = "timeout") -> str:
        """Beneath or on top, for the hand card lying close to the stack of ``q`` (see :meth:`_place`)."""
        down = (self._view.face_down or {}).get(q) if self._view is not None else None
        by_place = self._side_by_place(q, h.last.centre, h)
        inward = self._along(q, h.last.centre) <= -INWARD_ON_TOP
        if down == 0 or not inward and (
                (h.stack_seen > 0 and not self._square_on(q, h.last.centre)) or self._corner_beside_stack(h)):
            # (not for a card lying square on the stack, which it covers: the stack was seen past it as
            # it came down: 9044's KD at 1080p, 0.005 card heights from the centre's, put on top and
            # judged beneath, a WRONG_SIDE missed; a card still sliding out beneath may rest a moment
            # nearer than ``top_sure``: 9025's 2D, 0.116 out, the stack seen, was beneath; but see
            # ``_corner_beside_stack``). Not for a card centred ``INWARD_ON_TOP`` or more inward of the stack:
            # the stack seen past it is its outer edge
            return "under"
        if inward:
            return "top"  # (however it came to be put down: nothing lies beneath a stack on that side)
        if by_place == "under" and down and (
                self._above_stack_in_full_view(h, q) or self._inner_index_over_stack(h, q)):
            return "top"
        if by_place is not None and not (by_place == "under" and self._askew_on_hidden_stack(h, q)):
            return by_place
        if h.stack_hidden >= 2:
            return "top"  # it hides the stack, and no hand does
        if how == "newcard":
            return "under"
        if how == "pickup":
            return "top"
        return "top" if self._along(q, h.last.centre) < self.params.top_radius else "under"

    def _returned_to(self, h: _Hand, q: int, after: list[int]) -> int:
        """The pile a read card lost from sight was turned face down at: ``q`` (the first face-down card
        seen after it, or where it was last seen), or where a card was last seen held face down, or its
        own pile when seen face down there and never at the one it came from."""
        last = h.last
        fl = self._fd_last
        # never carried off the pile it came from, and seen face down there among others: it went back there
        # (9174 at 1080p, models: a 2H turned at 4 out of turn and shown there, then seen face down at 4 and,
        # in the same look, at its neighbour 3, whose stack the hand half hid: "returned" to 3, a false
        # WRONG_TARGET_PILE, and the next card's turn at 4 a false WRONG_SOURCE_PILE)
        stayed = h.source is not None and not h.left_source
        if stayed and h.source in after:
            q = h.source
        if fl is not None and fl[0] > last.frame and not self._stray_back(fl[1], {q, h.source} - {None}, last.centre):
            # where it was last seen face down (coming to lie on a stack): the nearest stack
            # (grounded: a card still held up in a tilted view looks nearest a neighbouring stack: 8118;
            # but one on the stack it came from and never left lies there, however it grounds)
            grounded = int(np.argmin(self._stack_distances(self._ground(fl[1], fl[2])))) + 1
            q = h.source if stayed and self._pile_at(fl[1]) == h.source else grounded
        home = h.card.home_pile if h.card is not None else None
        if home is not None and home in after and h.source not in after:
            # seen face down at its own pile just after, never at the one it came from: carried there
            # and slid beneath it (9025's KD at 1080p, seen face down twice at the centre, last a little
            # nearer 4; 9046's QH, its back seen on the way from 7 to 12: both "returned" to another pile)
            q = home
        return q

    def _stray_back(self, point: np.ndarray, piles: set[int], last_seen: np.ndarray) -> bool:
        """A face-down shape on another stack's place, more than ``CARRIED_FAR`` card heights from every pile in
        ``piles`` and from where the card was last seen face up: that stack seen "held" as a hand passed, not
        the card turned down (9107 at 1080p, models: a 2C seen face down three times by 12, then 6's stack
        once, was "returned" to 6). By where it was last seen it is the card put back there (a mistake)."""
        p = self._on_a_stack(point)
        if p is None or p in piles:
            return False
        far = CARRIED_FAR * self._pile_h(p)
        return float(np.linalg.norm(self.layout.centres[p - 1] - last_seen)) > far and all(
            float(np.linalg.norm(self.layout.centres[p - 1] - self.layout.centres[q - 1])) > far for q in piles)

    def _vanished(self, h: _Hand, index: int, t: float, view: GameView, force: bool = False,
                  new_card: bool = False) -> list[Observation]:
        """The hand card has not been seen for a while: turned face down (returned or exchanged)?
        ``new_card``: forced because a new card is read meanwhile."""
        if not force and h.announced and h.from_table is None and self._carried_off(h):
            return []  # carried off, seen as a back on its way: it will be seen put down
        last = h.last
        g = self._ground(last.centre, last.height)
        # the card turned face down: the first face-down card seen off the stacks just after its face
        after = [pl for f, pl in self._down_after(last) if f <= last.frame + 20 and pl is not None]
        lp = self._pile_at(last.centre) or self._pile_at(g) or 13
        # turning over, or held up (bigger than a card lying there) when last seen
        shown_turning = self._turning(last, lp) or \
            last.height > self.eff.max_lying_scale * self.geometry.pile_size_at(lp, last.centre)
        flipping = force or shown_turning
        if new_card and not after and not shown_turning and h.from_table is None and h.announced \
                and h.card is not None and h.source is not None:
            # the next card is read, and nothing says this one was turned face down (no back seen after
            # its face, not last seen turning or held up): it was put down unseen, beneath its own pile
            # (9042's TC at 1080p, taken from 10 and put beneath 10, its place never read as lying there:
            # it was taken for one put back face down at 2, where the next card was carried)
            h.lying_at = (h.card.home_pile, self._unseen_side(h, h.card.home_pile))
            out = self._place(h, index, t, "vanished")
            self._last_put = self._last_read_put = last.frame
            return out
        q = after[0] if after else self._nearest_pile(g)
        if h.from_table is None and h.announced and (after or flipping):
            q = self._returned_to(h, q, after)
            home = h.card.home_pile if h.card is not None else None
            if h.source is not None and q not in (h.source, home) and (new_card or not force):
                # a card is put back face down on the pile it came from; a face-down card seen at another
                # pile (not its own), not where this one was seen turning down, is another card: the next
                # one lifted where play is, after this one, turned out of turn, went back unseen (9051's
                # 4C, 9049's 7D at 1080p: "returned" to 5 and 8), or a shape seen as this one is carried
                # on (9045's QH, carried from 5 to 12 past 4; 9048's 5S past the centre); and a card last
                # seen held up by another pile was being carried (9034's 2H, held up by 3 on its way to 2)
                if q == view.expected_pile and h.source != q:
                    q = h.source
                elif not force:
                    return []  # no sign it was turned face down: wait for it
                elif home is not None:
                    h.lying_at = (home, self._unseen_side(h, home))  # a new card is read: it went home unseen
                    return self._place(h, index, t, "vanished")
            self._last_put = self._last_read_put = last.frame
        if h.from_table is not None:
            king = h.from_table
            if view.exchange_possible and king.rank is Rank.KING and (after or flipping):
                self.hand = None
                self.fd_recent.clear()
                self.table.remove(king)
                self._exchange_pending = True
                return [Observation(index, t, ["exchange", q], None, "the king exchanged")]
            if h.missing >= 10 * self.params.vanish_reads:
                self.hand = None  # a table card out of sight for long: keep it where it was
            return []
        if not h.announced:
            self.hand = None  # never read: set it aside (it may be found again)
            self._orphan = h
            self._lost.append(h)
            return []
        if after or flipping:
            self.hand = None
            keep = deque((x for x in self.fd_recent if x[0] > last.frame + 20), maxlen=12)
            if self._home_is(h, q) and h.source not in (None, q):
                # "put back face down" at its own pile, not at the one it came from, is no mistake a
                # player makes: it slid beneath its pile unseen, and the face-down card seen there
                # just after is the next one taken from it (14 of the 30 false "return" flags in the
                # fourteen 1080p dev games were at the card's own pile; 12 of those cards had truly
                # been put beneath it)
                h.lying_at = (q, self._unseen_side(h, q))
                out = self._place(h, index, t, "vanished")
                self.fd_recent = keep
                self._last_put = self._last_read_put = last.frame
                return out
            self.fd_recent = keep
            self._put_back = (index, q)
            return [Observation(index, t, ["return", q], None, "put back face down")]
        return []  # no sign it was turned face down: it is out of sight somewhere; keep waiting

def _lifted(h: _Hand) -> int:
    """The frame a hand card was off its stack: when it (or its face) was first seen."""
    return min([h.first_frame] + [x.frame for x in h.sightings[:1]])


def _square(centre: np.ndarray, side: float) -> tuple[int, int, int, int]:
    """The box (x0, y0, x1, y1) of a square ``side`` pixels wide around ``centre`` (for ``zoom``)."""
    half = 0.5 * side
    return int(centre[0] - half), int(centre[1] - half), int(centre[0] + half), int(centre[1] + half)


def _aspects(quads: np.ndarray) -> np.ndarray:
    """Short side over long side of each quad (mean of opposite sides)."""
    q = np.asarray(quads, np.float64).reshape(-1, 4, 2)
    a = (np.linalg.norm(q[:, 1] - q[:, 0], axis=1) + np.linalg.norm(q[:, 2] - q[:, 3], axis=1)) / 2
    b = (np.linalg.norm(q[:, 3] - q[:, 0], axis=1) + np.linalg.norm(q[:, 2] - q[:, 1], axis=1)) / 2
    return np.minimum(a, b) / np.maximum(np.maximum(a, b), 1e-9)
