// A house game's table: bets through chips or typed amounts, the round dealt card by card
// from the server's events, hit/stand where the rules let the person choose, the
// settlement and this shoe's scoreboards. The server holds the shoe and the money: this
// page only sends bets and decisions, and shows what comes back.
import { api, showMoney, showSigned } from "./api.js";
import { cardImage } from "./cards.js";

const table = document.getElementById("table");
const game = table.dataset.game;
const form = document.getElementById("bets");
const message = document.getElementById("message");
const status = document.getElementById("status");
const log = document.getElementById("log");
const balance = document.getElementById("balance");
const dealButton = document.getElementById("deal");
const decide = document.getElementById("decide");
const reduceMotion = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
const STEP_MS = reduceMotion ? 0 : 320;
const MARKS = { player: "P", banker: "B", tie: "T", dealer: "D", push: "=" };

let round = null; // the round shown
let shown = 0; // how many of its events are on the table
let before = null; // the balance before the round's bets
let queue = Promise.resolve();

function setState(state) {
  table.dataset.state = state;
  const busy = state === "dealing" || state === "awaiting_action";
  dealButton.disabled = busy;
  for (const input of form.querySelectorAll("input, .add, #clear")) input.disabled = busy;
}

function say(text) {
  status.textContent = text;
}

function refuse(text) {
  message.textContent = text;
}

function setBalance(text) {
  balance.textContent = showMoney(text);
  balance.dataset.balance = text;
}

function clearTable() {
  for (const hand of table.querySelectorAll(".hand")) {
    hand.querySelector(".cards").replaceChildren();
    hand.querySelector(".total").textContent = "";
  }
  log.replaceChildren();
  document.getElementById("settlement").hidden = true;
  document.getElementById("reshuffle").hidden = true;
  shown = 0;
}

const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function showEvent(event) {
  const item = document.createElement("li");
  item.textContent = event.text;
  item.className = `event event-${event.event}`;
  if (event.event === "card") {
    const hand = table.querySelector(`.hand[data-hand="${event.hand}"]`);
    if (hand) {
      hand.querySelector(".cards").append(cardImage(event.card, event.card_alt));
      const total = event.total ? totalText(event.total) : "";
      hand.querySelector(".total").textContent = total;
    }
    say(event.text);
  } else if (event.event === "decision") {
    item.classList.add(event.forced ? "forced" : "chosen");
    say(event.text);
  } else if (event.event === "reshuffled") {
    const notice = document.getElementById("reshuffle");
    notice.textContent = event.text;
    notice.hidden = false;
  } else if (event.event === "outcome") {
    say(event.text);
  }
  log.append(item);
  if (event.event === "card" || event.event === "decision") await wait(STEP_MS);
}

function totalText(total) {
  if (total.named && total.named !== "natural") return `${total.value}`;
  if (total.soft === null || total.soft === undefined) return `${total.value}`;
  return `${total.soft ? "soft" : "hard"} ${total.value}`;
}

/** Show a round: the events not on the table yet, one by one, then what it asks or how it ended. */
function present(data) {
  queue = queue.then(async () => {
    if (!round || round.id !== data.id) {
      clearTable();
    }
    round = data;
    setState("dealing");
    for (const event of data.events.slice(shown)) {
      await showEvent(event);
      shown += 1;
    }
    if (data.state === "awaiting_action") {
      setBalance(data.balance);
      offer(data.legal_actions, data.asked);
      setState("awaiting_action");
    } else {
      offer([], "");
      settle(data);
      setState("finished");
      await refreshBoards();
    }
  });
  return queue;
}

function offer(actions, asked) {
  if (!decide) return;
  for (const button of decide.querySelectorAll("button")) {
    button.disabled = !actions.includes(button.dataset.action);
  }
  const text = document.getElementById("asked");
  if (actions.length) {
    text.textContent = `Your choice: ${asked}.`;
    decide.querySelector("button:not([disabled])").focus();
  } else {
    text.textContent = "Hit or stand: the buttons light up when the rules let you choose.";
  }
}

function settle(data) {
  const rows = document.getElementById("settlement-rows");
  rows.replaceChildren();
  const reasons = {};
  for (const event of data.events) {
    if (event.event === "settled") reasons[event.wager] = event.text.replace(/^[^(]*\(?/, "").replace(/\)$/, "");
  }
  for (const [wager, stake] of Object.entries(data.stakes)) {
    const row = document.createElement("tr");
    const net = data.net[wager];
    row.dataset.wager = wager;
    row.className = net.startsWith("-") ? "lost" : /^0(\.0*)?$/.test(net) ? "even" : "won";
    for (const [text, cls] of [[wager.replace("_", " "), "wager"], [showMoney(stake), "num"], [showSigned(net), "num net"], [reasons[wager] || "", "why"]]) {
      const cell = document.createElement("td");
      cell.textContent = text;
      cell.className = cls;
      row.append(cell);
    }
    rows.append(row);
  }
  const bonus = document.getElementById("bonus");
  bonus.hidden = !data.bonus;
  bonus.textContent = data.bonus ? `Bonus won: ${data.bonus}` : "";
  const change = document.getElementById("balance-change");
  change.replaceChildren();
  const parts = [];
  if (before !== null) parts.push(`Balance ${showMoney(before)} → `);
  change.append(...parts);
  const after = document.createElement("strong");
  after.id = "balance-after";
  after.textContent = showMoney(data.balance);
  change.append(before === null ? "Balance " : "", after, " (");
  const net = document.createElement("span");
  net.id = "round-net";
  net.dataset.net = data.total_net;
  net.textContent = showSigned(data.total_net);
  change.append(net, ")");
  document.getElementById("settlement").hidden = false;
  setBalance(data.balance);
  if (data.reshuffle_due) {
    const notice = document.getElementById("reshuffle");
    notice.textContent = "⟳ The cut card has come out: the next round starts from a freshly shuffled shoe.";
    notice.hidden = false;
  }
  before = null;
}

function bets() {
  const out = {};
  for (const spot of form.querySelectorAll(".spot")) {
    const value = spot.querySelector("input").value.trim();
    if (value !== "") out[spot.dataset.wager] = value;
  }
  return out;
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  refuse("");
  const placed = bets();
  if (Object.keys(placed).length === 0) {
    refuse("Place a bet first: pick a chip and press a bet's “+ chip”, or type an amount.");
    return;
  }
  await queue;
  const key = crypto.randomUUID ? crypto.randomUUID() : `${Date.now()}-${Math.random()}`;
  const was = balance.dataset.balance;
  setState("dealing");
  try {
    const data = await api("POST", `/api/games/${game}/rounds`, { bets: placed }, { "Idempotency-Key": key });
    before = was;
    round = null;
    await present(data);
  } catch (err) {
    setState(round && round.state === "awaiting_action" ? "awaiting_action" : "betting");
    refuse(err.message);
  }
});

for (const button of form.querySelectorAll(".add")) {
  button.addEventListener("click", () => {
    const chip = form.querySelector('input[name="chip"]:checked');
    const input = document.getElementById(`bet-${button.dataset.wager}`);
    const current = input.value.trim() === "" ? "0" : input.value.trim();
    input.value = addDecimals(current, chip ? chip.value : "0");
  });
}

document.getElementById("clear").addEventListener("click", () => {
  for (const input of form.querySelectorAll(".spot input")) input.value = "";
  refuse("");
});

if (decide) {
  for (const button of decide.querySelectorAll("button")) {
    button.addEventListener("click", async () => {
      if (!round) return;
      for (const b of decide.querySelectorAll("button")) b.disabled = true;
      setState("dealing");
      refuse("");
      try {
        const data = await api("POST", `/api/rounds/${round.id}/actions`, { action: button.dataset.action });
        await present(data);
      } catch (err) {
        refuse(err.message);
        offer(round.legal_actions, round.asked);
        setState(round.state);
      }
    });
  }
}

/** Add two decimal strings exactly (chips on a bet spot), without floating point. */
function addDecimals(a, b) {
  if (!/^\d+(\.\d+)?$/.test(a)) return b;
  const places = Math.max((a.split(".")[1] || "").length, (b.split(".")[1] || "").length);
  const scale = (text) => BigInt(text.replace(".", "") + "0".repeat(places - (text.split(".")[1] || "").length));
  const sum = (scale(a) + scale(b)).toString().padStart(places + 1, "0");
  if (!places) return sum;
  const whole = sum.slice(0, -places);
  const part = sum.slice(-places).replace(/0+$/, "");
  return part ? `${whole}.${part}` : whole;
}

async function refreshBoards() {
  let data;
  try {
    data = await api("GET", `/api/games/${game}/table`);
  } catch (err) {
    return null;
  }
  drawBoard(document.getElementById("bead-plate"), data.bead_plate, "Bead plate");
  drawBoard(document.getElementById("big-road"), data.big_road, "Big road");
  document.getElementById("shoe-no").textContent = data.shoe ? `(shoe ${data.shoe})` : "";
  const counts = Object.entries(data.counts).map(([o, n]) => `${o} ${n}`).join(" · ");
  document.getElementById("counts").textContent = counts ? `Rounds won: ${counts}` : "No rounds from this shoe yet.";
  return data;
}

function drawBoard(board, cells, name) {
  if (!board) return;
  board.replaceChildren();
  const columns = Math.max(6, ...cells.map((c) => c.column + 1));
  board.style.setProperty("--columns", columns);
  for (const cell of cells) {
    const mark = document.createElement("span");
    mark.className = `mark mark-${cell.outcome}`;
    mark.style.gridColumn = cell.column + 1;
    mark.style.gridRow = cell.row + 1;
    mark.textContent = MARKS[cell.outcome] || "?";
    if (cell.ties) {
      mark.dataset.ties = cell.ties;
      mark.title = `${cell.ties} tie${cell.ties > 1 ? "s" : ""} after it`;
    }
    board.append(mark);
  }
  const words = cells.map((c) => c.outcome + (c.ties ? ` (+${c.ties} tie)` : "")).join(", ");
  board.setAttribute("aria-label", cells.length ? `${name}: ${words}` : `${name}: no rounds yet`);
}

async function start() {
  const data = await refreshBoards();
  if (data && data.round_in_play) {
    try {
      await present(await api("GET", `/api/rounds/${data.round_in_play}`));
    } catch (err) {
      refuse(err.message);
    }
  }
  table.dataset.ready = "true";
}

start();
