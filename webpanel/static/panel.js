// boardwright panel: small progressive enhancements; every page works without them.
"use strict";

// A submission id made on this device, so a retried form is recognised as the same entry.
document.querySelectorAll("[data-bw-submission]").forEach((el) => {
  if (window.crypto && crypto.randomUUID && !el.dataset.keep) {
    const form = el.closest("form");
    // Only a fresh form gets a new id; a form shown again after a warning keeps its id.
    if (form && !form.querySelector("#warnings")) el.value = crypto.randomUUID().replace(/-/g, "");
  }
});

// The phone's outbox: a result recorded while the phone has no network (the club's Wi-Fi
// dropped) is kept on the phone and sent, with its own submission id, as soon as the
// network is back; the panel recognises a form sent twice, so nothing is entered twice.
const OUTBOX_KEY = "bw-outbox";
const outbox = () => {
  try { return JSON.parse(localStorage.getItem(OUTBOX_KEY) || "[]"); } catch (e) { return []; }
};
const keepOutbox = (list) => {
  try { localStorage.setItem(OUTBOX_KEY, JSON.stringify(list)); return true; } catch (e) { return false; }
};
const outboxNote = () => {
  const waiting = outbox().filter((o) => o.page === location.pathname);
  let note = document.getElementById("outbox");
  if (!waiting.length) { if (note) note.remove(); return; }
  if (!note) {
    note = document.createElement("p");
    note.id = "outbox";
    note.className = "flash warn";
    note.setAttribute("role", "status");
    const main = document.querySelector("main") || document.body;
    main.insertBefore(note, main.querySelector("#entry, .roundpick ~ *") || main.firstChild);
  }
  const boards = waiting.map((o) => o.board).join(", ");
  note.textContent = `No network: kept on this phone, board ${boards}. It is sent as soon ` +
    "as the Wi-Fi is back; keep this page open.";
};
let flushing = false;
const flushOutbox = async () => {
  if (flushing || !navigator.onLine) return;
  flushing = true;
  let sent = 0;
  try {
    for (const item of outbox()) {
      try {
        const r = await fetch(item.action, { method: "POST", body: new URLSearchParams(item.fields),
                                             redirect: "manual" });
        // Any answer from the panel ends the item: recorded, a resend recognised, or
        // refused with a reason the page then shows. No answer: keep it for later.
        if (r.type === "opaqueredirect" || r.status > 0) {
          keepOutbox(outbox().filter((o) => o.id !== item.id));
          sent += 1;
        }
      } catch (e) { break; }
    }
  } finally { flushing = false; }
  outboxNote();
  if (sent) location.reload();  // the page as the panel now has it
};
document.querySelectorAll("form[data-bw-entry]").forEach((form) => {
  form.addEventListener("submit", (ev) => {
    if (navigator.onLine !== false) return;
    const fields = [...new FormData(form)].map(([k, v]) => [k, String(v)]);
    const sid = (fields.find(([k]) => k === "submission_id") || [])[1] || String(Date.now());
    const board = (fields.find(([k]) => k === "board") || [])[1] || "?";
    const list = outbox().filter((o) => o.id !== sid);
    list.push({ id: sid, page: location.pathname, action: form.action, fields, board });
    if (!keepOutbox(list)) return;  // no storage: let the browser try (and say it failed)
    ev.preventDefault();
    ev.stopImmediatePropagation();
    outboxNote();
    const b = form.querySelector("button#send");
    if (b) { b.disabled = true; b.textContent = "Kept on this phone"; }
  });
});
window.addEventListener("online", flushOutbox);
outboxNote();
flushOutbox();

// Disable the button while a result is sent, so a double tap sends once.
document.querySelectorAll("form[data-bw-entry]").forEach((form) => {
  form.addEventListener("submit", () => {
    const b = form.querySelector("button#send") || form.querySelector("button");
    if (b) { setTimeout(() => { b.disabled = true; b.textContent = "Sending…"; }, 0); }
  });
});

// The result chips (=, +1, −2) and the tricks taken say the same thing: keep them in
// step, and grey out the results the chosen level cannot have (7NT+1, 1S−8).
const syncResult = (form) => {
  const level = Number((form.querySelector("input[name=level]:checked") || {}).value || 0);
  const tricks = form.querySelector("select[name=tricks]");
  const chips = [...form.querySelectorAll("input[name=result]")];
  chips.forEach((c) => {
    const t = 6 + level + Number(c.dataset.delta);
    c.disabled = level > 0 && (t < 0 || t > 13);
    if (c.disabled && c.checked) c.checked = false;
  });
  const picked = chips.find((c) => c.checked);
  if (level && picked && tricks) tricks.value = String(6 + level + Number(picked.dataset.delta));
};
document.querySelectorAll("form[data-bw-entry], form.change").forEach((form) => {
  syncResult(form);
  form.addEventListener("change", (ev) => {
    const t = ev.target;
    if (t.name === "tricks") {  // tricks chosen: the matching chip, or none
      const level = Number((form.querySelector("input[name=level]:checked") || {}).value || 0);
      form.querySelectorAll("input[name=result]").forEach((c) => {
        c.checked = level > 0 && t.value !== "" &&
          6 + level + Number(c.dataset.delta) === Number(t.value);
      });
    } else if (t.name === "passed" && t.checked) {  // passed out: no contract to keep
      form.querySelectorAll("input[name=level], input[name=strain], input[name=result]")
        .forEach((c) => { c.checked = false; });
    } else if (["level", "strain"].includes(t.name)) {
      const p = form.querySelector("input[name=passed]");
      if (p) p.checked = false;
    }
    syncResult(form);
  });
});

// The score before sending: the core's own (the table's /score address), beside the
// Record button, as the chips are tapped. With this the form records at once; without
// JavaScript it goes through a confirm step that shows the same score.
document.querySelectorAll("form[data-bw-entry][data-bw-score]").forEach((form) => {
  const out = form.querySelector("[data-bw-preview]");
  const step = form.querySelector("[data-bw-step]");
  if (!out || !step) return;
  step.value = "record";
  let asked = 0;
  const ask = async () => {
    const n = ++asked;
    const q = new URLSearchParams();
    for (const [k, v] of new FormData(form)) {
      if (!["csrf_token", "submission_id", "step", "confirm"].includes(k)) q.append(k, v);
    }
    try {
      const r = await (await fetch(`${form.dataset.bwScore}?${q}`,
                                   { headers: { Accept: "application/json" } })).json();
      if (n !== asked) return;  // a later tap has asked again
      out.textContent = r.ok ? `Board ${r.board}: ${r.words}` : r.error;
      out.classList.toggle("bad", !r.ok);
    } catch (e) { out.textContent = ""; }
  };
  form.addEventListener("change", () => setTimeout(ask, 0));
  // A form shown again (a warning, an error) says its score at once; a fresh one waits.
  if (form.querySelector("input[name=level]:checked, input[name=passed]:checked")) ask();
});

// The dealing page: poll the job's status.
const dealing = document.querySelector("[data-bw-dealing]");
if (dealing) {
  const url = dealing.dataset.bwDealing;
  const tick = async () => {
    try {
      const st = await (await fetch(url, { headers: { Accept: "application/json" } })).json();
      for (const [k, v] of Object.entries(st)) {
        const el = dealing.querySelector(`[data-bw-field="${k}"]`);
        if (!el) continue;
        el.textContent = v === null || (k === "card" && !v) ? "–" : v;
        if (k === "message" || k === "instruction") el.hidden = !v;
      }
      dealing.dataset.state = st.state;
      const p = dealing.querySelector("[data-bw-progress]");
      if (p) p.value = st.cards_done;
      // A new camera picture: load it (the version in the address defeats caches) and
      // hide the "no picture" text. The same picture is not fetched again.
      const img = dealing.querySelector("[data-bw-camera]");
      if (img && st.image_version && img.dataset.version !== st.image_version) {
        img.dataset.version = st.image_version;
        img.src = dealing.dataset.bwImage + "?v=" + encodeURIComponent(st.image_version);
        img.hidden = false;
        const none = dealing.querySelector("[data-bw-nocamera]");
        if (none) none.hidden = true;
      }
      if (st.state === "done" || st.state === "aborted") return;
    } catch (e) { /* the next poll tries again */ }
    setTimeout(tick, 400);
  };
  tick();
}

// The results desk: new results patch the page in place (desk/live.json). A part with a
// form being typed in (a field changed, focused, or an edit box open) is left as it is
// and tried again at the next poll: nothing the director types is ever thrown away.
const live = document.querySelector("[data-bw-live]");
if (live) {
  const url = live.dataset.bwLive;
  let polls = 0;
  const changed = (f) => {
    if (f.type === "hidden" || f.type === "submit" || f.type === "button") return false;
    if (f.type === "checkbox" || f.type === "radio") return f.checked !== f.defaultChecked;
    if (f.tagName === "SELECT") return [...f.options].some((o) => o.selected !== o.defaultSelected);
    return f.value !== f.defaultValue;
  };
  const busy = (el) => (el !== document.body && el.contains(document.activeElement)
                        && document.activeElement.matches("input, textarea, select"))
    || el.querySelector("details[open]") !== null
    || [...el.querySelectorAll("input, textarea, select")].some(changed);
  const board = (el) => Number(el.dataset.bwPart.slice(3));
  const place = (name, html) => {
    const el = document.querySelector(`[data-bw-part="${name}"]`);
    if (el) {
      if (busy(el)) { el.dataset.bwWaiting = "1"; return false; }
      el.outerHTML = html;
      return true;
    }
    const box = document.querySelector("[data-bw-travellers]");
    if (!box || !name.startsWith("tr-")) return true;
    const empty = box.querySelector("[data-bw-empty]");
    if (empty) empty.remove();
    const n = Number(name.slice(3));
    const next = [...box.querySelectorAll("[data-bw-part^='tr-']")].find((t) => board(t) > n);
    const tmp = document.createElement("div");
    tmp.innerHTML = html;
    box.insertBefore(tmp.firstElementChild, next || null);
    return true;
  };
  const poll = async () => {
    polls += 1;
    try {
      // Every tenth poll asks for everything: the tables' idle minutes move on their own.
      const q = polls % 10 ? `?stamp=${encodeURIComponent(live.dataset.bwStamp || "")}` : "";
      const resp = await fetch(url + q, { headers: { Accept: "application/json" } });
      const st = await resp.json();
      if (st.parts) {
        let all = true;
        for (const [name, html] of Object.entries(st.parts)) all = place(name, html) && all;
        // A part kept for a form being typed: ask again next time.
        if (all) live.dataset.bwStamp = st.stamp;
      }
    } catch (e) { /* keep polling */ }
    setTimeout(poll, 2000);
  };
  setTimeout(poll, 2000);
}

// Replay of a recorded play: show one more trick at a time.
const replay = document.querySelector("[data-bw-replay]");
if (replay) {
  const items = [...replay.children];
  let shown = 1;
  const show = () => {
    items.forEach((li, i) => { li.hidden = i >= shown; });
    const n = document.querySelector("[data-bw-trickno]");
    if (n) n.textContent = `trick ${shown} of ${items.length}`;
  };
  document.querySelectorAll("[data-bw-step]").forEach((b) => b.addEventListener("click", () => {
    shown = Math.min(items.length, Math.max(1, shown + Number(b.dataset.bwStep)));
    show();
  }));
  show();
}

// A select that shows its choice at once (CSP forbids inline handlers).
document.querySelectorAll("select[data-bw-autosubmit]").forEach((s) =>
  s.addEventListener("change", () => s.form.submit()));

// Score pads on this device: a pad's page notes its address in localStorage, and the
// pads page lists them. Nothing is sent to the server and no cookie is needed.
const PADS_KEY = "bw-pads";
const readPads = () => {
  try { return JSON.parse(localStorage.getItem(PADS_KEY) || "[]"); } catch (e) { return []; }
};
const writePads = (list) => {
  try { localStorage.setItem(PADS_KEY, JSON.stringify(list.slice(0, 50))); } catch (e) { /* refused */ }
};
const padHere = document.querySelector("[data-bw-pad]");
if (padHere) {
  const url = padHere.dataset.bwPad;
  writePads([{ url, name: padHere.dataset.name, kind: padHere.dataset.kind,
               at: new Date().toISOString() }, ...readPads().filter((p) => p.url !== url)]);
}
const myPads = document.querySelector("[data-bw-mypads]");
if (myPads) {
  const ul = myPads.querySelector("ul");
  const draw = () => {
    const list = readPads();
    ul.replaceChildren(...list.map((p) => {
      const li = document.createElement("li");
      const a = document.createElement("a");
      a.href = p.url;
      a.textContent = p.name || "score pad";
      const kind = document.createElement("small");
      kind.className = "muted";
      kind.textContent = `${p.kind || ""} · ${(p.at || "").slice(0, 10)}`;
      const forget = document.createElement("button");
      forget.type = "button";
      forget.className = "link";
      forget.textContent = "forget";
      forget.addEventListener("click", () => {
        writePads(readPads().filter((q) => q.url !== p.url));
        draw();
      });
      li.append(a, kind, forget);
      return li;
    }));
    myPads.hidden = list.length === 0;
  };
  draw();
}
