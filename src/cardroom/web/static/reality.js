// The reality check: when the server refuses a bet because one is due (a 409 whose code
// is "reality_check", announced by api.js as a "cardroom:reality" event), or when the
// chemin de fer table is between coups and one has come due, a dialog shows the time
// played this session and its net result; "Play on" acknowledges it (recorded by the
// server), "Stop for now" goes to the wallet. A chemin de fer seat is never timed out
// while it is open: the table plays on and only new stakes wait.

import { api, showSigned } from "./api.js";

const dialog = document.getElementById("reality-check");

function show(details) {
  if (!dialog || dialog.open) return;
  const minutes = details.minutes;
  dialog.querySelector(".minutes").textContent = `${minutes} minute${minutes === 1 ? "" : "s"}`;
  dialog.querySelector(".net").textContent = showSigned(details.net);
  dialog.querySelector(".problem").textContent = "";
  dialog.showModal();
}

async function check() {
  try {
    const session = await api("GET", "/api/account/reality-check");
    if (session.due) show(session);
  } catch (err) {
    // signed out, or the server is away: nothing to show
  }
}

if (dialog) {
  window.addEventListener("cardroom:reality", (event) => show(event.detail || {}));
  window.addEventListener("cardroom:between-coups", check);
  dialog.querySelector(".play-on").addEventListener("click", async () => {
    try {
      await api("POST", "/api/account/reality-check/acknowledge");
      dialog.close();
    } catch (err) {
      if (err.status === 409) dialog.close(); // acknowledged already (another tab)
      else dialog.querySelector(".problem").textContent = err.message;
    }
  });
  dialog.addEventListener("cancel", (event) => event.preventDefault()); // choose one
}
