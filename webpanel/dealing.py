"""The dealing page: start a dealing job, watch it live (polling a JSON status), pause,
resume or abort it.

The page reads only the store. The job is advanced by the panel's emulated
machine (:mod:`webpanel.runner`, no camera) or by the rig
(:mod:`webpanel.rigrunner`), which also stores the camera's latest picture.
"""

from __future__ import annotations

import io

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
from webpanel import rigrunner, runner
from webpanel.db import store
from webpanel.security import director_required

bp = Blueprint("dealing", __name__, url_prefix="/dealing")


@bp.route("/")
@director_required
def index() -> str:
    return render_template("dealing/index.html", jobs=jobs.jobs(store()), sets=store().list())


@bp.route("/start/<int:set_id>")
@director_required
def start_form(set_id: int) -> str:
    return render_template("dealing/start.html", set_id=set_id,
                           machine=current_app.config["DEALING_RUNNER"])


@bp.route("/start/<int:set_id>", methods=["POST"])
@director_required
def start(set_id: int) -> Response:
    job = jobs.create(store(), set_id, machine=current_app.config["DEALING_RUNNER"])
    if current_app.config["DEALING_RUNNER"] == "rig":
        rigrunner.start(store(), job, current_app.config)
    elif current_app.config["DEALING_RUNNER"] == "emulator":
        runner.start(store(), job, current_app.config)
    flash(f"Dealing job {job} started.", "ok")
    return redirect(url_for("dealing.show", job_id=job))


@bp.route("/<int:job_id>")
@director_required
def show(job_id: int) -> str:
    return render_template("dealing/show.html", st=jobs.status(store(), job_id))


@bp.route("/<int:job_id>/status.json")
@director_required
def status(job_id: int) -> Response:
    return jsonify(jobs.status(store(), job_id))


@bp.route("/<int:job_id>/image")
@director_required
def image(job_id: int) -> Response:
    """The camera's latest picture (JPEG from the rig); the page asks again when
    ``image_version`` in the status changes."""
    data = jobs.image(store(), job_id)
    if data is None:
        abort(404)
    resp = send_file(io.BytesIO(data), mimetype=jobs.image_type(data))
    resp.headers["Cache-Control"] = "no-store"
    return resp


@bp.route("/<int:job_id>/command", methods=["POST"])
@director_required
def command(job_id: int) -> Response:
    jobs.command(store(), job_id, request.form.get("command", ""))
    if request.headers.get("X-Requested-With") == "fetch":
        return jsonify(ok=True)
    return redirect(url_for("dealing.show", job_id=job_id))
