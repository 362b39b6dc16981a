"""The dealing page: start a dealing job, watch it live (polling a JSON status), pause,
resume or abort it.

The page reads and writes only the job's row in the store
(:mod:`dealer.store.dealing`). Starting a job starts the rig for it
(:mod:`webpanel.rig_process`), which publishes the job's status and camera
picture in that row and takes the director's commands from it. Jobs started
in a terminal (``boardwright deal``, ``boardwright demo``) are rows too, and
show here the same way.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from flask import (
    Blueprint,
    abort,
    current_app,
    flash,
    jsonify,
    redirect,
    render_template,
    request,
    send_file,
    url_for,
)
from werkzeug.wrappers import Response

from dealer.store import dealing as jobs
from dealer.store.models import DealSetRow
from webpanel import rig_process
from webpanel.db import store
from webpanel.security import director_required

bp = Blueprint("dealing", __name__, url_prefix="/dealing")

_SIGNATURES = {b"\xff\xd8\xff": "image/jpeg", b"\x89PNG\r\n\x1a\n": "image/png"}


def image_type(data: bytes) -> str | None:
    """The MIME type of a stored picture from its signature; ``None`` if not PNG or JPEG.

    >>> image_type(b"\\xff\\xd8\\xff\\xe0..."), image_type(b"\\x89PNG\\r\\n\\x1a\\n..."), image_type(b"<svg")
    ('image/jpeg', 'image/png', None)
    """
    for sig, mime in _SIGNATURES.items():
        if data.startswith(sig):
            return mime
    return None


def page_json(job: jobs.JobRecord, *, sealed: bool = False) -> dict[str, Any]:
    """What the page shows of a job (and polls as JSON).

    Dealing a sealed set is blind, as Duplimate's ``Status=Sealed``: the card
    being dealt and the camera's picture of it are not shown (they would give
    the hands away card by card); the counts, state and notices are.
    """
    show_image = job.image_crc is not None and not sealed
    return {"id": job.id, "deal_set_id": job.deal_set_id, "machine": job.machine,
            "state": job.state, "command": job.command, "boards_total": job.boards_total,
            "boards_done": job.boards_done, "cards_done": job.cards_done,
            "current_board": job.current_board, "card": "sealed" if sealed else job.card,
            "message": job.message, "sealed": sealed,
            "instruction": job.instruction, "has_image": show_image,
            # Changes when a new picture arrives: the page reloads the picture then only.
            "image_version": f"{job.image_crc:08x}" if show_image and job.image_crc is not None
            else None,
            "updated_at": job.updated_at.isoformat()}


def _sealed(set_id: int | None) -> bool:
    """Whether the job's deal set is sealed (a set deleted since counts as not)."""
    if set_id is None:
        return False
    with store().read() as s:
        row = s.get(DealSetRow, set_id)
        return bool(row is not None and row.sealed)


@bp.route("/")
@director_required
def index() -> str:
    sets = store().list()
    sealed = {s.id for s in sets if s.sealed}
    return render_template("dealing/index.html", sets=sets,
                           jobs=[page_json(j, sealed=j.deal_set_id in sealed)
                                 for j in jobs.jobs(store())])


@bp.route("/start/<int:set_id>")
@director_required
def start_form(set_id: int) -> str:
    if not any(summary.id == set_id for summary in store().list()):
        abort(404)  # no form for a set that is not there
    return render_template("dealing/start.html", set_id=set_id,
                           machine=current_app.config["RIG_MACHINE"])


@bp.route("/start/<int:set_id>", methods=["POST"])
@director_required
def start(set_id: int) -> Response:
    job = jobs.create(store(), set_id, machine=current_app.config["RIG_MACHINE"])
    rig_process.launch(store(), job, current_app.config, Path(current_app.instance_path) / "logs")
    flash(f"Dealing job {job} started.", "ok")
    return redirect(url_for("dealing.show", job_id=job))


@bp.route("/<int:job_id>")
@director_required
def show(job_id: int) -> str:
    job = jobs.get(store(), job_id)
    return render_template("dealing/show.html", st=page_json(job, sealed=_sealed(job.deal_set_id)))


@bp.route("/<int:job_id>/status.json")
@director_required
def status(job_id: int) -> Response:
    job = jobs.get(store(), job_id)
    return jsonify(page_json(job, sealed=_sealed(job.deal_set_id)))


@bp.route("/<int:job_id>/image")
@director_required
def image(job_id: int) -> Response:
    """The camera's latest picture (JPEG from the rig); the page asks again when
    ``image_version`` in the status changes. Anything but PNG or JPEG is never served."""
    if _sealed(jobs.set_of(store(), job_id)):
        abort(404)  # the picture shows the card being dealt: none while the set is sealed
    data = jobs.image(store(), job_id)
    mime = None if data is None else image_type(data)
    if data is None or mime is None:
        abort(404)
    resp = send_file(io.BytesIO(data), mimetype=mime)
    resp.headers["Cache-Control"] = "no-store"
    return resp


@bp.route("/<int:job_id>/command", methods=["POST"])
@director_required
def command(job_id: int) -> Response:
    jobs.command(store(), job_id, request.form.get("command", ""))
    if request.headers.get("X-Requested-With") == "fetch":
        return jsonify(ok=True)
    return redirect(url_for("dealing.show", job_id=job_id))
