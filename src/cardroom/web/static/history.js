// Game recall: each round drawn from its record, and replayed card by card on request,
// with the server's check that the record gives the same round through the engine.
import { api } from "./api.js";
import { cardImage } from "./cards.js";

const reduceMotion = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
const STEP_MS = reduceMotion ? 0 : 250;
const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function hands(article, data) {
  const box = article.querySelector(".recall-hands");
  box.replaceChildren();
  const byHand = {};
  for (const event of data.events) {
    if (event.event !== "card") continue;
    if (!byHand[event.hand]) {
      const section = document.createElement("section");
      section.className = "hand small";
      const title = document.createElement("h3");
      title.textContent = event.hand[0].toUpperCase() + event.hand.slice(1);
      const cards = document.createElement("div");
      cards.className = "cards";
      cards.setAttribute("role", "list");
      cards.setAttribute("aria-label", `${title.textContent}'s cards`);
      section.append(title, cards);
      box.append(section);
      byHand[event.hand] = cards;
    }
  }
  return byHand;
}

async function deal(article, data, slow) {
  const byHand = hands(article, data);
  for (const event of data.events) {
    if (event.event !== "card") continue;
    byHand[event.hand].append(cardImage(event.card, event.card_alt));
    if (slow) await wait(STEP_MS);
  }
}

for (const item of document.querySelectorAll(".recalled")) {
  const data = JSON.parse(item.querySelector(".round-data").textContent);
  deal(item, data, false);
  const button = item.querySelector(".replay");
  const verdict = item.querySelector(".verdict");
  button.addEventListener("click", async () => {
    button.disabled = true;
    verdict.textContent = "Replaying…";
    item.dataset.replay = "running";
    await deal(item, data, true);
    try {
      const result = await api("GET", `/api/rounds/${data.id}/replay`);
      verdict.textContent = result.same
        ? "Replayed: the engine gives the same cards, decisions, outcome and payouts."
        : `The record does not replay: ${result.differences.join("; ")}`;
      item.dataset.replay = result.same ? "same" : "different";
    } catch (err) {
      verdict.textContent = err.message;
      item.dataset.replay = "error";
    }
    button.disabled = false;
  });
}
