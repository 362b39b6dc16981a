// boardwright: the member search under each player's name field (the Pairs page and a
// table's players page). Without it the form works: "Find members" lists the matches.
"use strict";

document.querySelectorAll("form[data-bw-members]").forEach((form) => {
  const url = form.dataset.bwMembers;
  // Not `hidden`: the stylesheet gives buttons a display of their own, which wins over it.
  form.querySelectorAll("[data-bw-nojs]").forEach((b) => { b.style.display = "none"; });
  const fields = [...form.querySelectorAll("input[data-bw-player]")];
  fields.forEach((input, i) => {
    const list = document.getElementById(input.getAttribute("aria-describedby"));
    let timer = null;
    let asked = "";
    const clear = () => { if (list) list.replaceChildren(); };
    const choose = (label) => {
      input.value = label;
      clear();
      const next = fields[i + 1];
      if (next) next.focus(); else input.focus();
    };
    const search = async () => {
      const q = input.value.trim();
      if (q.length < 2 || q === asked || q.endsWith(")")) { if (q.length < 2) clear(); return; }
      asked = q;
      try {
        const r = await fetch(url + "?q=" + encodeURIComponent(q),
                              { headers: { Accept: "application/json" } });
        const found = (await r.json()).members || [];
        if (input.value.trim() !== q || !list) return; // typed on meanwhile
        list.replaceChildren(...found.map((m) => {
          const li = document.createElement("li");
          const b = document.createElement("button");
          b.type = "button";
          b.className = "pick";
          b.textContent = m.label;
          b.addEventListener("click", () => choose(m.label));
          li.append(b);
          return li;
        }));
      } catch (e) { /* no suggestions: the typed name is kept as it is */ }
    };
    input.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(search, 150); });
    input.addEventListener("keydown", (e) => { if (e.key === "Escape") clear(); });
  });
});
