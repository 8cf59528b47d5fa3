// Game recall: each round drawn from its record, and replayed card by card on request,
// with the server's check that the record gives the same round through the engine.
// A chemin de fer coup is drawn as its person saw it: both hands as they were turned
// over (a card never shown to them as its back), each named by who held it.
import { api } from "./api.js";
import { cardBack, cardImage } from "./cards.js";

const reduceMotion = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
const STEP_MS = reduceMotion ? 0 : 250;
const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function handBox(box, titleText) {
  const section = document.createElement("section");
  section.className = "hand small";
  const title = document.createElement("h3");
  title.textContent = titleText;
  const cards = document.createElement("div");
  cards.className = "cards";
  cards.setAttribute("role", "list");
  cards.setAttribute("aria-label", `${titleText}: cards`);
  section.append(title, cards);
  box.append(section);
  return cards;
}

// The cards to deal, in order, each with the row of cards it goes to.
function layout(article, data) {
  const box = article.querySelector(".recall-hands");
  box.replaceChildren();
  const steps = [];
  if (data.coup) {
    for (const hand of data.coup.hands) {
      const name = hand.hand === "player" ? "Player" : "Banker";
      const total = hand.total === null || hand.total === undefined ? "" : `: ${hand.total}`;
      const row = handBox(box, `${name} (${hand.name})${total}`);
      for (const card of hand.cards) steps.push([row, card.card, card.card_alt]);
    }
    if (!data.coup.hands.length) box.hidden = true;
    return steps;
  }
  const byHand = {};
  const totals = Object.fromEntries((data.hands || []).map((h) => [h.hand, h.total]));
  for (const event of data.events) {
    if (event.event !== "card") continue;
    if (!byHand[event.hand]) {
      const name = event.hand[0].toUpperCase() + event.hand.slice(1);
      const total = totals[event.hand];
      byHand[event.hand] = handBox(box, total ? `${name}: ${total}` : name);
    }
    steps.push([byHand[event.hand], event.card, event.card_alt]);
  }
  if (!steps.length) box.hidden = true;
  return steps;
}

async function deal(article, data, slow) {
  for (const [row, code, alt] of layout(article, data)) {
    row.append(code ? cardImage(code, alt) : cardBack(alt));
    if (slow) await wait(STEP_MS);
  }
}

for (const item of document.querySelectorAll(".recalled")) {
  const data = JSON.parse(item.querySelector(".round-data").textContent);
  deal(item, data, false);
  const button = item.querySelector(".replay");
  if (!button) continue;
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
