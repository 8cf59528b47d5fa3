// The exact house edges are computed in the background the first time: ask until they are known.
import { api } from "./api.js";

const table = document.getElementById("paytable");

async function poll(delay) {
  let data;
  try {
    const variant = table.dataset.variant ? `?variant=${table.dataset.variant}` : "";
    data = await api("GET", `/api/games/${table.dataset.game}/edges${variant}`);
  } catch (err) {
    return;
  }
  if (data.status === "computing") {
    setTimeout(() => poll(Math.min(delay * 2, 8000)), delay);
    return;
  }
  table.dataset.status = data.status;
  for (const row of table.querySelectorAll("tbody tr")) {
    const cell = row.querySelector(".edge");
    const edge = data.wagers && data.wagers[row.dataset.wager];
    if (edge) {
      const span = document.createElement("span");
      span.title = `exactly ${edge.house_edge}`;
      span.textContent = `${edge.house_edge_percent}%`;
      cell.replaceChildren(span);
    } else {
      cell.textContent = "not available";
    }
  }
}

poll(1000);
