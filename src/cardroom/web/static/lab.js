// The lab: send both variants' changed values, show their exact edges when known, download their
// rules and their PAR sheets.
import { api } from "./api.js";

const form = document.getElementById("lab");
const errorLine = document.getElementById("lab-error");
const statusLine = document.getElementById("lab-status");
const table = document.getElementById("lab-edges");
const button = document.getElementById("work-out");
let rules = { a: null, b: null };
let asked = 0;

// A field's value as the form sends it (a checkbox: "true" or "false").
function valueOf(input) {
  if (input.type === "checkbox") return input.checked ? "true" : "false";
  return input.value.trim();
}

function inputs(side) {
  return form.querySelectorAll(`fieldset[data-side="${side}"] [data-default]`);
}

function values(side) {
  const out = {};
  for (const input of inputs(side)) {
    if (valueOf(input) !== input.dataset.default) out[input.name] = valueOf(input);
  }
  return out;
}

// Mark each value that is not the standard rules', and count them per variant.
function mark(input) {
  const field = input.closest(".lab-field");
  const changed = valueOf(input) !== input.dataset.default;
  field.classList.toggle("changed", changed);
  field.querySelector(".lab-standard").hidden = !changed;
  const side = input.closest(".lab-variant");
  const count = side.querySelectorAll(".lab-field.changed").length;
  side.querySelector(".lab-changed-count").textContent =
    count === 0 ? "The standard rules." : `${count} value${count === 1 ? "" : "s"} changed from the standard rules.`;
}

for (const side of ["a", "b"]) {
  for (const input of inputs(side)) {
    input.addEventListener("input", () => mark(input));
    input.addEventListener("change", () => mark(input));
    mark(input);
  }
}

for (const reset of form.querySelectorAll(".lab-reset")) {
  reset.addEventListener("click", () => {
    const input = document.getElementById(reset.dataset.for);
    if (input.type === "checkbox") input.checked = input.dataset.default === "true";
    else input.value = input.dataset.default;
    mark(input);
    input.focus();
  });
}

function cell(figure, ready) {
  const td = document.createElement("td");
  if (!figure) {
    // still being worked out, or none: the analyser refused the variant (said above)
    td.textContent = ready ? "—" : "…";
    if (ready) td.title = "no exact figure: see the line above the table";
    return td;
  }
  const span = document.createElement("span");
  span.title = `exactly ${figure.exact}`;
  span.textContent = `${figure.percent}%`;
  td.append(span);
  return td;
}

function show(data) {
  rules = { a: data.a.toml, b: data.b.toml };
  for (const b of form.querySelectorAll(".lab-download")) b.disabled = false;
  const rows = data.rows.map((row) => {
    const tr = document.createElement("tr");
    tr.dataset.wager = row.wager;
    const th = document.createElement("th");
    th.scope = "row";
    th.textContent = row.wager.replaceAll("_", " ");
    tr.append(th, cell(row.a, data.ready), cell(row.b, data.ready), cell(row.difference, data.ready));
    return tr;
  });
  table.tBodies[0].replaceChildren(...rows);
  table.hidden = rows.length === 0;
  const failed = ["a", "b"].filter((s) => data[s].status === "failed").map((s) => `variant ${s.toUpperCase()}: ${data[s].error || "failed"}`);
  statusLine.textContent = data.ready ? (failed.length ? failed.join("; ") : "Exact figures for both variants.") : "Working out the exact figures…";
  table.dataset.status = data.ready ? "ready" : "computing";
}

async function workOut(ask, delay) {
  const mine = asked;
  let data;
  try {
    data = await api("POST", `/api/lab/${form.dataset.game}`, ask);
  } catch (err) {
    if (mine !== asked) return;
    errorLine.textContent = err.message;
    statusLine.textContent = "";
    button.disabled = false;
    return;
  }
  if (mine !== asked) return;
  show(data);
  if (!data.ready) {
    setTimeout(() => workOut(ask, Math.min(delay * 2, 4000)), delay);
  } else {
    button.disabled = false;
  }
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  asked += 1;
  errorLine.textContent = "";
  statusLine.textContent = "Working out the exact figures…";
  button.disabled = true;
  workOut({ a: values("a"), b: values("b") }, 500);
});

function download(data, type, name) {
  const link = document.createElement("a");
  link.href = URL.createObjectURL(new Blob([data], { type }));
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
}

for (const b of form.querySelectorAll(".lab-download")) {
  b.addEventListener("click", () => {
    const text = rules[b.dataset.side];
    if (!text) return;
    download(text, "application/toml", `${form.dataset.game}-variant-${b.dataset.side}.toml`);
  });
}

async function parSheet(button, ask, delay) {
  const side = button.dataset.side.toUpperCase();
  let data;
  try {
    data = await api("POST", `/api/lab/${form.dataset.game}/par`, ask);
  } catch (err) {
    errorLine.textContent = err.message;
    statusLine.textContent = "";
    button.disabled = false;
    return;
  }
  if (data.status === "computing") {
    setTimeout(() => parSheet(button, ask, Math.min(delay * 2, 4000)), delay);
    return;
  }
  button.disabled = false;
  if (data.status !== "ready") {
    errorLine.textContent = `variant ${side}'s PAR sheet: ${data.error || "failed"}`;
    statusLine.textContent = "";
    return;
  }
  statusLine.textContent = `Variant ${side}'s PAR sheet is downloaded.`;
  const name = `${form.dataset.game}-variant-${button.dataset.side}-par.${ask.format}`;
  if (ask.format === "pdf") {
    const bytes = Uint8Array.from(atob(data.pdf), (c) => c.charCodeAt(0));
    download(bytes, "application/pdf", name);
  } else if (ask.format === "csv") {
    download(data.csv, "text/csv", name);
  } else {
    download(data.html, "text/html", name);
  }
}

for (const b of form.querySelectorAll(".lab-par")) {
  b.addEventListener("click", () => {
    errorLine.textContent = "";
    statusLine.textContent = `Working out variant ${b.dataset.side.toUpperCase()}'s PAR sheet…`;
    b.disabled = true;
    parSheet(b, { values: values(b.dataset.side), format: b.dataset.format }, 500);
  });
}

for (const b of form.querySelectorAll(".lab-play")) {
  b.addEventListener("click", async () => {
    errorLine.textContent = "";
    b.disabled = true;
    try {
      const data = await api("POST", `/api/lab/${form.dataset.game}/table`, { values: values(b.dataset.side) });
      if (data.playable) {
        window.location.assign(data.url);
        return;
      }
      // (this server deals only the variants an operator put on a public table)
      const kept = form.querySelector(`.lab-kept[data-side="${b.dataset.side}"]`);
      kept.textContent = `Variant ${b.dataset.side.toUpperCase()} is kept as ${data.variant}: an operator can put it on a public table, where it takes bets.`;
      b.disabled = false;
    } catch (err) {
      errorLine.textContent = err.message;
      b.disabled = false;
    }
  });
}
