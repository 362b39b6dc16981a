"""Show any picture to the readers as the gate's camera would show its card.

The readers take a 640×480 frame with one card at the gate's scale (a card
covers 60,000-230,000 px, see :mod:`vision.locate`), as the dealing gate's
camera gives. A photograph is taken from any distance, either way up, at any
size; a saved frame may come from a camera of another size. :func:`gate_view`
turns a picture into such a frame, as an operator would bring a card to the
camera, and :func:`fit_frame` only fits it. Whatever the locator then says is
the reader's to say: this only chooses what the camera shows.

>>> import numpy as np
>>> fit_frame(np.zeros((1080, 1920, 3), np.uint8)).shape
(480, 640, 3)
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.locate import Located, locate

FRAME_W, FRAME_H = 640, 480
#: The card's area in a gate view of a photo (px of 640×480): about a gate card's, and the
#: real-photograph corpus's (bench/photos_fetch.py).
CARD_AREA = 95_000
MAX_CARD = 180_000  # brought closer, up to this, rather than show the photo's edge repeated
MAX_ENLARGE = 2.5

#: The working size of a photo's longer side where its shapes are sought
#: (:mod:`vision.photo_cards`, :mod:`vision.court_frame`): larger photos are looked at
#: shrunk; the face is still warped from the photo's own pixels.
WORK_SIDE = 640


def working_size(photo: np.ndarray) -> tuple[np.ndarray, float]:
    """The photo at the working size (:data:`WORK_SIDE`, never enlarged), and its scale."""
    h, w = photo.shape[:2]
    s = min(1.0, WORK_SIDE / max(h, w))
    return (cv2.resize(photo, (round(w * s), round(h * s)), interpolation=cv2.INTER_AREA) if s < 1 else photo), s


def is_gate_frame(picture: np.ndarray) -> bool:
    """Is ``picture`` a frame of the gate's size (640×480), to be read as it is?"""
    return picture.shape[:2] == (FRAME_H, FRAME_W)


def fit_frame(photo: np.ndarray) -> np.ndarray:
    """The photo scaled (down only) to fit 640×480, the rest filled by repeating its edge."""
    return fitted(photo)[0]


def fitted(photo: np.ndarray) -> tuple[np.ndarray, float, int, int]:
    """:func:`fit_frame`, and its scale and the photo's offset (left, top) in the frame."""
    h, w = photo.shape[:2]
    s = min(FRAME_W / w, FRAME_H / h, 1.0)
    if s < 1.0:
        photo = cv2.resize(photo, (max(1, round(w * s)), max(1, round(h * s))), interpolation=cv2.INTER_AREA)
    h, w = photo.shape[:2]
    top, left = (FRAME_H - h) // 2, (FRAME_W - w) // 2
    frame = cv2.copyMakeBorder(photo, top, FRAME_H - h - top, left, FRAME_W - w - left, cv2.BORDER_REPLICATE)
    return frame, s, left, top


def gate_view(photo: np.ndarray) -> np.ndarray:
    """The photo as the gate's camera would show its card: level-ish, at the gate's scale.

    The gate's camera sees every card at one scale, the long side level; a
    photograph is taken from any distance, either way up. So, as an operator
    would bring a card to the camera:

    1. a portrait photo is turned a quarter (the gate's frame is 4:3 landscape,
       and filling a portrait photo's sides by repeating its edge draws streaks
       that look like more cards);
    2. it is fitted into 640×480 (:func:`fit_frame`);
    3. when the locator finds one card-shaped outline there, only too small or
       too large to read (a phone photo of a card on a table, from a standing
       height), or beside another large shape (only in a picture that is not
       640×480: a frame of the gate's size may show a double feed), the card is
       brought to the gate's scale (:data:`CARD_AREA`) and laid level from the
       photo's own pixels, at most :data:`MAX_ENLARGE` times their size; past
       the photo, its edge is repeated;
    4. when no card-shaped outline is found at all (in a picture that is not
       640×480), the photo's middle is looked at closer (:data:`CENTRE_ZOOMS`),
       and the first view that finds one is taken as in step 3.

    Whatever the locator says of the result is the reader's to say again: this
    only chooses what the camera shows.
    """
    given_as_gate_frame = is_gate_frame(photo)
    h, w = photo.shape[:2]
    if h > w:
        photo = cv2.rotate(photo, cv2.ROTATE_90_CLOCKWISE)
    frame, s, left, top = fitted(photo)
    found = locate(frame)
    if isinstance(found, Located):
        return frame
    if found.evidence.get("another_shape") and given_as_gate_frame:
        # A frame of the gate's own size may be the gate's: a card beside another is a
        # double feed there, never to be looked past. (A photo's other shape is most
        # often a light strip of the table at its edge.)
        return frame
    if "outline" in found.evidence:
        quad = (np.asarray(found.evidence["outline"], np.float64) - (left, top)) / s  # photo pixels
        return _card_to_gate(photo, quad)
    if given_as_gate_frame:  # (the gate's camera does not move)
        return frame
    # A photo's subject is most often at its middle: looked at closer there, a card the
    # frame as a whole hides (clutter at the photo's edges, another card cut off by them,
    # a card too small for its outline to stand out) may stand alone.
    for zoom in CENTRE_ZOOMS:
        if min(h, w) / zoom < 8:  # (a picture of a few pixels has no middle to look at)
            break
        view, k, x0, y0 = _centre(photo, zoom)
        got = locate(view)
        if isinstance(got, Located):
            return view
        if "outline" in got.evidence and not got.evidence.get("another_shape"):
            return _card_to_gate(photo, np.asarray(got.evidence["outline"], np.float64) / k + (x0, y0))
    return frame


def other_views(photo: np.ndarray, shown: np.ndarray | None = None) -> list[np.ndarray]:
    """A photograph's other 640×480 views, to read when the one :func:`gate_view` chose
    (``shown``, if the caller has it) is refused: the photo fitted whole, and its middle
    looked at closer (:data:`CENTRE_ZOOMS`, and :data:`LAST_ZOOM`). A card found in the
    view chosen may not be read there (its outline a shadow's, or its index soft at that
    scale) and be read in another; each view is read as it stands. None for a picture of
    the gate's own 640×480: the gate's camera does not move.
    """
    if is_gate_frame(photo):
        return []
    chosen = gate_view(photo) if shown is None else shown
    upright = cv2.rotate(photo, cv2.ROTATE_90_CLOCKWISE) if photo.shape[0] > photo.shape[1] else photo
    views = [fitted(upright)[0]]
    h, w = upright.shape[:2]
    views += [_centre(upright, z)[0] for z in (*CENTRE_ZOOMS, LAST_ZOOM) if min(h, w) / z >= 8]
    return [v for v in views if not np.array_equal(v, chosen)]


#: The closest look at a photo's middle among :func:`other_views` (only there: a card
#: this far in fills most of the frame, and the gate's view never zooms so far).
LAST_ZOOM = 2.8


#: How much closer the middle of a photo is looked at when its card is not found as it
#: stands (each a 640×480 frame of the photo's middle 1/zoom).
CENTRE_ZOOMS = (1.3, 1.7, 2.2)


def _centre(photo: np.ndarray, zoom: float) -> tuple[np.ndarray, float, float, float]:
    """The middle of the photo, ``zoom`` times closer, as a 640×480 frame; and its scale
    and its top-left corner in the photo."""
    h, w = photo.shape[:2]
    cw = min(w / zoom, h / zoom * FRAME_W / FRAME_H)
    ch = cw * FRAME_H / FRAME_W
    x0, y0 = (w - cw) / 2, (h - ch) / 2
    crop = photo[int(round(y0)):int(round(y0 + ch)), int(round(x0)):int(round(x0 + cw))]
    k = FRAME_W / crop.shape[1]
    view = cv2.resize(crop, (FRAME_W, FRAME_H), interpolation=cv2.INTER_AREA if k < 1 else cv2.INTER_CUBIC)
    return view, k, float(round(x0)), float(round(y0))


def _card_to_gate(photo: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """The 640×480 frame with the card whose outline is ``quad`` (photo pixels) at its
    centre, long side level, covering :data:`CARD_AREA`: brought closer, up to
    :data:`MAX_CARD`, while the frame would reach past the photo (the photo's own floor
    is better than its edge repeated, whose streaks look like more cards); enlarged
    :data:`MAX_ENLARGE` times at most."""
    area = float(cv2.contourArea(quad.astype(np.float32)))
    sides = np.roll(quad, -1, axis=0) - quad
    long_side = sides[int(np.argmax(np.hypot(sides[:, 0], sides[:, 1])))]
    angle = float(np.degrees(np.arctan2(long_side[1], long_side[0])))
    cx, cy = quad.mean(axis=0)
    h, w = photo.shape[:2]

    def to_frame(scale: float) -> np.ndarray:
        """The affine map from the photo to the frame at ``scale``."""
        m = cv2.getRotationMatrix2D((float(cx), float(cy)), angle, scale)
        m[:, 2] += (FRAME_W / 2 - cx, FRAME_H / 2 - cy)
        return m

    def reaches_past(m: np.ndarray) -> bool:
        corners = np.array([[0, 0, 1], [FRAME_W, 0, 1], [FRAME_W, FRAME_H, 1], [0, FRAME_H, 1]], float)
        back = corners @ cv2.invertAffineTransform(m).T
        return bool(((back < -1) | (back > (w + 1, h + 1))).any())

    most = min(float(np.sqrt(MAX_CARD / max(area, 1.0))), MAX_ENLARGE)
    scale = min(float(np.sqrt(CARD_AREA / max(area, 1.0))), most)
    while scale * 1.05 <= most and reaches_past(to_frame(scale)):
        scale *= 1.05
    if scale < 1.0:  # shrink with area averaging first, then turn: no aliasing
        photo = cv2.resize(photo, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        cx, cy, scale = cx * scale, cy * scale, 1.0
    return cv2.warpAffine(photo, to_frame(scale), (FRAME_W, FRAME_H),
                          flags=cv2.INTER_CUBIC if scale > 1 else cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)
