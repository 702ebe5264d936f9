"""Vision: from camera frames to card detections (sources, layout, recognition, watching).

``Recogniser()(frame) -> Detections``: see :mod:`companion.vision.recogniser`.
"""

from .detections import Detections

__all__ = ["Detections", "Recogniser"]


def __getattr__(name: str):  # lazy: importing the package does not load onnxruntime
    if name == "Recogniser":
        from .recogniser import Recogniser

        return Recogniser
    raise AttributeError(name)
