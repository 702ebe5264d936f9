"""A render worker process for :func:`companion.synth.record.render_frames`.

Run as ``python -m companion.synth.render_worker``: it reads a JSON job on stdin (the arguments of
:func:`companion.synth.record.build`, and the frame chunks it owns), rebuilds the same scene and
choreography from the seed (everything is deterministic), and writes, for each of its chunks in
order, one pickled list of frame patches to stdout. Fresh processes (not ``fork``) so that no lock
held by a thread of the parent (OpenCV, the video writer) can deadlock them.
"""

from __future__ import annotations

import json
import pickle
import sys


def main() -> None:
    import cv2

    cv2.setNumThreads(1)
    from .record import build
    from .scene import FrameRenderer

    job = json.loads(sys.stdin.readline())
    kw = job["build"]
    if isinstance(kw.get("resolution"), list):
        kw["resolution"] = tuple(kw["resolution"])
    scene, d = build(**kw)
    frames = d.frames
    r = FrameRenderer(scene, noise_seed=kw["seed"])
    out = sys.stdout.buffer
    for a, b in job["chunks"]:
        patches = [r.patch(frames[i], prev=frames[i - 1] if i else None) for i in range(a, b)]
        pickle.dump(patches, out, protocol=pickle.HIGHEST_PROTOCOL)
        out.flush()


if __name__ == "__main__":
    main()
