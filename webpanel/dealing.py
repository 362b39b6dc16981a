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


def page_json(job: jobs.JobRecord) -> dict[str, Any]:
    """What the page shows of a job (and polls as JSON)."""
    return {"id": job.id, "deal_set_id": job.deal_set_id, "machine": job.machine,
            "state": job.state, "command": job.command, "boards_total": job.boards_total,
            "boards_done": job.boards_done, "cards_done": job.cards_done,
            "current_board": job.current_board, "card": job.card, "message": job.message,
            "instruction": job.instruction, "has_image": job.image_crc is not None,
            # Changes when a new picture arrives: the page reloads the picture then only.
            "image_version": None if job.image_crc is None else f"{job.image_crc:08x}",
            "updated_at": job.updated_at.isoformat()}


@bp.route("/")
@director_required
def index() -> str:
    return render_template("dealing/index.html", jobs=[page_json(j) for j in jobs.jobs(store())],
                           sets=store().list())


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
    return render_template("dealing/show.html", st=page_json(jobs.get(store(), job_id)))


@bp.route("/<int:job_id>/status.json")
@director_required
def status(job_id: int) -> Response:
    return jsonify(page_json(jobs.get(store(), job_id)))


@bp.route("/<int:job_id>/image")
@director_required
def image(job_id: int) -> Response:
    """The camera's latest picture (JPEG from the rig); the page asks again when
    ``image_version`` in the status changes. Anything but PNG or JPEG is never served."""
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
