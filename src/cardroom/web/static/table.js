// A house game's table: bets through chips or typed amounts, the round dealt card by card
// from the server's events, hit/stand where the rules let the person choose, the
// settlement and this shoe's scoreboards. The server holds the shoe and the money: this
// page only sends bets and decisions, and shows what comes back.
//
// What a person sees is kept together: after every step the hands, the result and the
// decision buttons are scrolled into view (on a phone the bets' buttons sit in a bar at
// the bottom of the screen), focus stays on the next action (Deal, or Hit/Stand), and the
// result is said in a live region. The bets on the spots are kept in the browser's own
// storage (per person and game), with the last round's for Rebet.
import { api, showMoney, showSigned } from "./api.js";
import { cardImage } from "./cards.js";
import { showShoes } from "./shoes.js";

const $ = (id) => document.getElementById(id);
const table = $("table");
const game = table.dataset.game;
// a variant made in the lab has a table of its own, at its own routes
const tableApi = table.dataset.variant
  ? `/api/variants/${game}/${table.dataset.variant}`
  : `/api/games/${game}`;
const form = $("bets");
const message = $("message");
const status = $("status");
const result = $("result");
const inPlay = $("in-play");
const log = $("log");
// why the next round starts from a new shoe, as the API's reshuffle_cause says it
const DUE_WORDS = {
  cut_card: "The cut card has come out",
  reshuffle_point: "The shoe's reshuffle point is reached",
  round_limit: "This shoe's rounds have all been dealt",
};
const balance = $("balance");
const dealButton = $("deal");
const rebetButton = $("rebet");
const doubleButton = $("double");
const clearButton = $("clear");
const decide = $("decide");
const speed = $("speed");
const betTotal = $("bet-total");
const bar = form.querySelector(".bet-bar");
const spots = [...form.querySelectorAll(".spot")];
const reduceMotion = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
const limits = { min: table.dataset.min, max: table.dataset.max, unit: table.dataset.unit };

// The names of wagers and outcomes in words, and the outcomes' marks, as the server wrote
// them on the page (cardroom.app.words): never an id.
const NAMES = {};
const MARKS = {};
for (const spot of spots) NAMES[spot.dataset.wager] = spot.dataset.name;
for (const mark of document.querySelectorAll(".legend [data-outcome]")) {
  NAMES[mark.dataset.outcome] = mark.dataset.name;
  MARKS[mark.dataset.outcome] = mark.textContent;
}
const nameOf = (id) => NAMES[id] || String(id).replace(/_/g, " ");
const lower = (text) => (/^[A-Z][a-z]/.test(text) ? text[0].toLowerCase() + text.slice(1) : text);

let round = null; // the round shown
let shown = 0; // how many of its events are on the table
let queue = Promise.resolve();

// -- exact decimals (amounts are never floats) --------------------------------------------
/** A plain decimal ("10", "12.50") as [digits as a BigInt, places], or null. */
function dec(text) {
  const found = /^(\d+)(?:\.(\d+))?$/.exec(String(text).trim());
  if (!found || found[0].length > 40) return null;
  const part = found[2] || "";
  return [BigInt(found[1] + part), part.length];
}
const scaled = (d, places) => d[0] * 10n ** BigInt(places - d[1]);
const cmp = (a, b) => {
  const places = Math.max(a[1], b[1]);
  const x = scaled(a, places);
  const y = scaled(b, places);
  return x < y ? -1 : x > y ? 1 : 0;
};
const add = (a, b) => {
  const places = Math.max(a[1], b[1]);
  return [scaled(a, places) + scaled(b, places), places];
};
const sub = (a, b) => add(a, [-scaled(b, Math.max(a[1], b[1])), Math.max(a[1], b[1])]);
const ZERO = [0n, 0];
/** The shortest decimal string of d, as the server writes amounts ("9.5", "-10"). */
function decText(d) {
  const negative = d[0] < 0n;
  let digits = (negative ? -d[0] : d[0]).toString().padStart(d[1] + 1, "0");
  let part = d[1] ? digits.slice(-d[1]) : "";
  digits = d[1] ? digits.slice(0, -d[1]) : digits;
  part = part.replace(/0+$/, "");
  const text = part ? `${digits}.${part}` : digits;
  return negative && text !== "0" ? `-${text}` : text;
}
const isZero = (d) => d[0] === 0n;
const sumOf = (amounts) => amounts.reduce((total, d) => add(total, d), ZERO);

// -- settings and the browser's own storage ---------------------------------------------
const STORE = `cardroom:${table.dataset.player}:${game}`;
const SPEED = "cardroom:dealing";

function stored(key) {
  try {
    return JSON.parse(window.localStorage.getItem(key) || "null");
  } catch (err) {
    return null;
  }
}

function store(key, value) {
  try {
    window.localStorage.setItem(key, JSON.stringify(value));
  } catch (err) {
    // private browsing, storage full: the page works without it
  }
}

function saved() {
  return stored(STORE) || {};
}

function save(patch) {
  store(STORE, { ...saved(), ...patch });
}

speed.value = stored(SPEED) || (reduceMotion ? "instant" : "normal");
speed.addEventListener("change", () => store(SPEED, speed.value));
const stepMs = () => (speed.value === "instant" ? 0 : 320);

// -- the page's state ---------------------------------------------------------------------
const isOff = (el) => el.disabled || el.getAttribute("aria-disabled") === "true";

/** A button on or off; one that has focus is only marked off, so focus stays there. */
function setUsable(el, on) {
  if (on) {
    el.disabled = false;
    el.removeAttribute("aria-disabled");
  } else if (document.activeElement === el) {
    el.setAttribute("aria-disabled", "true");
  } else {
    el.disabled = true;
  }
}

/** Buttons marked off while they had focus are really off once focus has moved on. */
document.addEventListener("focusin", () => {
  for (const el of document.querySelectorAll('button[aria-disabled="true"]')) {
    if (el !== document.activeElement) {
      el.disabled = true;
      el.removeAttribute("aria-disabled");
    }
  }
});

function setState(state) {
  table.dataset.state = state;
  const playing = state === "dealing" || state === "awaiting_action";
  for (const input of form.querySelectorAll(".spot input")) input.readOnly = playing;
  for (const el of [dealButton, rebetButton, doubleButton, clearButton, ...form.querySelectorAll(".add")]) {
    setUsable(el, !playing);
  }
}

const playing = () => table.dataset.state === "dealing" || table.dataset.state === "awaiting_action";

function say(text) {
  status.textContent = text;
}

/** A refusal (or, with info, a note) under the bets; "" clears it. */
function refuse(text, info = false) {
  message.textContent = text;
  message.classList.toggle("info", info && text !== "");
}

function setBalance(text) {
  if (!balance || text === null || text === undefined) return;
  balance.textContent = showMoney(text);
  balance.dataset.balance = text;
}

const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Scroll as little as needed for the table (hands, result, decisions) to be in view, above
 * the bets' bar where it is fixed at the bottom of the screen; the hands first if it is
 * taller than the screen. */
function keepInView() {
  const fixed = getComputedStyle(bar).position === "fixed";
  const room = window.innerHeight - (fixed ? bar.getBoundingClientRect().height : 0);
  const box = table.getBoundingClientRect();
  if (box.top >= 0 && box.bottom <= room) return;
  let by = box.bottom - room + 4;
  if (box.top < 0 || box.top - by < 0 || box.height > room) by = box.top - 4;
  const smooth = speed.value !== "instant" && !reduceMotion;
  window.scrollBy({ top: by, behavior: smooth ? "smooth" : "auto" });
}

// -- the bets -------------------------------------------------------------------------------
function spotInput(wager) {
  return $(`bet-${wager}`);
}

/** The amounts typed or built on the spots: {wager: text}, empty spots left out. */
function spotsNow() {
  const out = {};
  for (const spot of spots) {
    const value = spotInput(spot.dataset.wager).value.trim();
    if (value !== "") out[spot.dataset.wager] = value;
  }
  return out;
}

function fillSpots(bets) {
  for (const spot of spots) {
    const value = bets[spot.dataset.wager];
    spotInput(spot.dataset.wager).value = value === undefined ? "" : showMoney(value);
    delete spot.dataset.result;
  }
  showTotal();
}

function remember() {
  if (!playing()) save({ bets: spotsNow() });
  showTotal();
}

function showTotal() {
  const amounts = Object.values(spotsNow()).map(dec).filter((d) => d !== null);
  betTotal.textContent = showMoney(decText(sumOf(amounts)));
}

function wholeUnits(d) {
  const unit = dec(limits.unit);
  const places = Math.max(d[1], unit[1]);
  return scaled(d, places) % scaled(unit, places) === 0n;
}

/** What is wrong with a bet, in words ("" if nothing); `final`: also what only matters
 * when dealing (below the minimum, not in whole units), not while it is being typed. */
function betProblem(wager, raw, final) {
  const name = nameOf(wager);
  const text = String(raw).trim();
  if (text === "") return "";
  if (/^-\s*[\d.]/.test(text)) {
    return `A bet cannot be negative: type how much to bet on ${name}, such as ${showMoney(limits.min)}.`;
  }
  const d = dec(text);
  if (d === null) {
    return `Your bet on ${name}, “${text}”, is not an amount: type a number such as 10 or 12.50.`;
  }
  if (isZero(d)) return "";
  if (cmp(d, dec(limits.max)) > 0) {
    return `Your bet on ${name}, ${showMoney(decText(d))}, is above the table maximum of ${showMoney(limits.max)}.`;
  }
  if (!final) return "";
  if (cmp(d, dec(limits.min)) < 0) {
    return `Your bet on ${name}, ${showMoney(decText(d))}, is below the table minimum of ${showMoney(limits.min)}.`;
  }
  if (!wholeUnits(d)) {
    const whole = limits.unit === "0.01" ? "whole cents" : `whole multiples of ${showMoney(limits.unit)}`;
    return `Your bet on ${name}, ${text}, is not in ${whole}.`;
  }
  return "";
}

/** The first problem of a set of bets, the total against the balance last.
 * On Deal (final) the balance is left to the server, whose refusal says the way on
 * (a top-up) when the account has too little for any table. */
function betsProblem(bets, final) {
  for (const [wager, raw] of Object.entries(bets)) {
    const problem = betProblem(wager, raw, final);
    if (problem) return problem;
  }
  if (final) return "";
  const amounts = Object.values(bets).map(dec);
  if (amounts.some((d) => d === null) || !balance) return "";
  const total = sumOf(amounts);
  if (cmp(total, dec(balance.dataset.balance)) > 0) {
    return `Your bets total ${showMoney(decText(total))}, more than your balance of ${showMoney(balance.dataset.balance)}.`;
  }
  return "";
}

/** The bets to deal: the spots' amounts, zero left out. */
function betsToDeal() {
  const out = {};
  for (const [wager, raw] of Object.entries(spotsNow())) {
    const d = dec(raw);
    if (d !== null && isZero(d)) continue;
    out[wager] = raw;
  }
  return out;
}

/** The server's refusal as a sentence a person reads: wagers by name, no ids or quotes. */
function readable(err) {
  if (err.status === 401) return "You are signed out: sign in again, then come back to the table.";
  if (err.status === 403) return "This page is out of date: reload it and try again.";
  let out = String(err.message || "")
    .replace(/\s*\(#\d+\)/g, "")
    .replace(/#\d+\s*/g, "")
    .replace(/\bstake on ([a-z0-9_]+)/gi, (_, wager) => `your bet on ${nameOf(wager)}`)
    .replace(/'([^']*)'/g, "“$1”")
    .replace(/\b[a-z0-9]+(?:_[a-z0-9]+)+\b/g, (id) => nameOf(id))
    .trim();
  if (!out) return "The table refused that: try again.";
  out = out[0].toUpperCase() + out.slice(1);
  return /[.!?]$/.test(out) ? out : `${out}.`;
}

for (const input of form.querySelectorAll(".spot input")) {
  const wager = input.closest(".spot").dataset.wager;
  input.addEventListener("input", () => {
    if (playing()) return;
    refuse(betsProblem({ ...spotsNow(), [wager]: input.value }, false));
    remember();
  });
  input.addEventListener("change", () => {
    if (playing()) return;
    refuse(betProblem(wager, input.value, true) || betsProblem(spotsNow(), false));
  });
}

for (const button of form.querySelectorAll(".add")) {
  button.addEventListener("click", () => {
    if (isOff(button) || playing()) return;
    const wager = button.dataset.wager;
    const input = spotInput(wager);
    const chip = form.querySelector('input[name="chip"]:checked');
    const value = chip ? chip.value : limits.min;
    const current = dec(input.value) || ZERO;
    const next = add(current, dec(value));
    const name = nameOf(wager);
    if (cmp(next, dec(limits.max)) > 0) {
      refuse(
        `A chip of ${showMoney(value)} would make your bet on ${name} ${showMoney(decText(next))}, ` +
          `above the table maximum of ${showMoney(limits.max)}.`,
      );
      return;
    }
    const others = Object.entries(spotsNow())
      .filter(([w]) => w !== wager)
      .map(([, raw]) => dec(raw) || ZERO);
    const total = sumOf([...others, next]);
    if (balance && cmp(total, dec(balance.dataset.balance)) > 0) {
      refuse(
        `A chip of ${showMoney(value)} would make your bets total ${showMoney(decText(total))}, ` +
          `more than your balance of ${showMoney(balance.dataset.balance)}.`,
      );
      return;
    }
    input.value = showMoney(decText(next));
    refuse("");
    remember();
  });
}

clearButton.addEventListener("click", () => {
  if (isOff(clearButton) || playing()) return;
  fillSpots({});
  refuse("");
  remember();
});

rebetButton.addEventListener("click", () => {
  if (isOff(rebetButton) || playing()) return;
  const last = saved().last;
  if (!last) {
    refuse("There is no last round to bet again yet: place your bets with the chips.", true);
    return;
  }
  const problem = betsProblem(last, false);
  if (problem) {
    refuse(`Your last round's bets cannot go on again: ${lower(problem)}`);
    return;
  }
  fillSpots(last);
  refuse("");
  remember();
});

doubleButton.addEventListener("click", () => {
  if (isOff(doubleButton) || playing()) return;
  const now = betsToDeal();
  const base = Object.keys(now).length ? now : saved().last || {};
  if (!Object.keys(base).length) {
    refuse("There is no bet to double yet: place your bets with the chips.", true);
    return;
  }
  const doubled = {};
  for (const [wager, raw] of Object.entries(base)) {
    const d = dec(raw);
    if (d === null) {
      refuse(betProblem(wager, raw, false));
      return;
    }
    doubled[wager] = decText(add(d, d));
  }
  const problem = betsProblem(doubled, false);
  if (problem) {
    refuse(`Doubled, the bets would not fit: ${lower(problem)}`);
    return;
  }
  fillSpots(doubled);
  refuse("");
  remember();
});

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  if (playing() || isOff(dealButton)) return;
  refuse("");
  const placed = betsToDeal();
  if (Object.keys(placed).length === 0) {
    refuse("Place a bet first: pick a chip and press a bet's “+ chip”, or type an amount.");
    return;
  }
  const problem = betsProblem(placed, true);
  if (problem) {
    refuse(problem);
    return;
  }
  await queue;
  const key = crypto.randomUUID ? crypto.randomUUID() : `${Date.now()}-${Math.random()}`;
  setState("dealing");
  let data;
  try {
    data = await api("POST", `${tableApi}/rounds`, { bets: placed }, { "Idempotency-Key": key });
  } catch (err) {
    setState("betting");
    if (err.status === 409 && (await pickUp())) {
      refuse("Your last round here is not finished yet: it is back on the table with its bets. Finish it first.", true);
      return;
    }
    refuse(readable(err));
    focusNext();
    return;
  }
  save({ last: placed, bets: spotsNow() });
  await present(data);
});

// -- the round --------------------------------------------------------------------------------
function clearTable() {
  for (const hand of table.querySelectorAll(".hand")) {
    hand.querySelector(".cards").replaceChildren();
    hand.querySelector(".cards").style.removeProperty("--n");
    hand.querySelector(".total").textContent = "";
    hand.classList.remove("winner");
  }
  for (const spot of spots) delete spot.dataset.result;
  log.replaceChildren();
  $("settlement").hidden = true;
  $("reshuffle").hidden = true;
  result.hidden = true;
  result.replaceChildren();
  shown = 0;
}

async function showEvent(event) {
  const item = document.createElement("li");
  item.textContent = event.text;
  item.className = `event event-${event.event}`;
  if (event.event === "card") {
    const hand = table.querySelector(`.hand[data-hand="${event.hand}"]`);
    if (hand) {
      const cards = hand.querySelector(".cards");
      cards.append(cardImage(event.card, event.card_alt));
      cards.style.setProperty("--n", cards.children.length);
      hand.querySelector(".total").textContent = event.total ? totalText(event.total) : "";
    }
    say(event.text);
  } else if (event.event === "decision") {
    item.classList.add(event.forced ? "forced" : "chosen");
    say(event.text);
  } else if (event.event === "reshuffled") {
    const notice = $("reshuffle");
    notice.textContent = event.text;
    notice.hidden = false;
  } else if (event.event === "outcome") {
    say(event.text);
    const winner = table.querySelector(`.hand[data-hand="${event.outcome}"]`);
    if (winner) winner.classList.add("winner");
  }
  log.append(item);
  if ((event.event === "card" || event.event === "decision") && stepMs() > 0) await wait(stepMs());
}

function totalText(total) {
  if (total.named && total.named !== "natural") return `${total.value}`;
  if (total.soft === null || total.soft === undefined) return `${total.value}`;
  return `${total.soft ? "soft" : "hard"} ${total.value}`;
}

/** The round's stakes in words: "Player 10 · Tie 20". */
function stakesText(stakes) {
  return Object.entries(stakes)
    .map(([wager, stake]) => `${nameOf(wager)} ${showMoney(stake)}`)
    .join(" · ");
}

/** Show a round: the events not on the table yet, one by one, then what it asks or how it ended. */
function present(data) {
  queue = queue.then(() =>
    show(data).catch(() => {
      setState("betting");
      refuse("The page could not show that round: reload the page to see it.");
    }),
  );
  return queue;
}

/** One round shown (see present). */
async function show(data) {
  if (!round || round.id !== data.id) clearTable();
  round = data;
  table.dataset.round = data.id; // which round the table shows (for scripts and tests)
  setState("dealing");
  if (data.state === "awaiting_action" || shown < data.events.length) {
    // the stakes in play stand on the spots and on the table (also after a reload, in
    // another tab)
    fillSpots(data.stakes);
    const stakes = Object.values(data.stakes);
    const total = showMoney(decText(sumOf(stakes.map((s) => dec(s) || ZERO))));
    inPlay.textContent = `Your bets this round: ${stakesText(data.stakes)}${stakes.length > 1 ? ` (${total} in all)` : ""}`;
    inPlay.hidden = false;
  }
  keepInView();
  for (const event of data.events.slice(shown)) {
    await showEvent(event);
    shown += 1;
  }
  if (data.state === "awaiting_action") {
    setBalance(data.balance);
    setState("awaiting_action");
    offer(data.legal_actions, data.asked);
    keepInView();
  } else {
    offer([], "");
    inPlay.hidden = true;
    settle(data);
    save({ last: data.stakes, bets: spotsNow() }); // for Rebet, and kept across a reload
    setState("finished");
    keepInView();
    focusNext();
    await refreshBoards();
  }
}

/** Focus on the next thing to do once a round is over: Deal (unless the person has gone
 * somewhere else on the page meanwhile). */
function focusNext() {
  const active = document.activeElement;
  if (!active || active === document.body || table.contains(active) || form.contains(active)) {
    dealButton.focus({ preventScroll: true });
  }
}

function offer(actions, asked) {
  if (!decide) return;
  const buttons = [...decide.querySelectorAll("button")];
  for (const button of buttons) setUsable(button, actions.includes(button.dataset.action));
  const text = $("asked");
  if (actions.length) {
    text.textContent = `Your choice: ${asked}.`;
    const active = document.activeElement;
    const next = buttons.includes(active) && actions.includes(active.dataset.action) ? active : buttons.find((b) => actions.includes(b.dataset.action));
    if (next && next !== active) next.focus({ preventScroll: true });
  } else {
    text.textContent = "Hit or stand: the buttons light up when the rules let you choose.";
  }
}

function settle(data) {
  const rows = $("settlement-rows");
  rows.replaceChildren();
  const reasons = {};
  for (const event of data.events) {
    if (event.event === "settled") {
      const found = /\(([^()]*(?:\([^()]*\)[^()]*)*)\)$/.exec(event.text);
      reasons[event.wager] = found ? found[1] : "";
    }
  }
  for (const [wager, stake] of Object.entries(data.stakes)) {
    const row = document.createElement("tr");
    const net = data.net[wager] || "0";
    const outcome = net.startsWith("-") ? "lost" : showSigned(net) === "±0" ? "even" : "won";
    row.dataset.wager = wager;
    row.className = outcome;
    const spot = form.querySelector(`.spot[data-wager="${wager}"]`);
    if (spot) spot.dataset.result = outcome;
    for (const [text, cls] of [[nameOf(wager), "wager"], [showMoney(stake), "num"], [showSigned(net), "num net"], [reasons[wager] || "", "why"]]) {
      const cell = document.createElement("td");
      cell.textContent = text;
      cell.className = cls;
      row.append(cell);
    }
    rows.append(row);
  }
  const bonus = $("bonus");
  bonus.hidden = !data.bonus;
  bonus.textContent = data.bonus ? `Bonus won: ${data.bonus}` : "";
  const after = dec(data.balance);
  const net = dec(String(data.total_net).replace(/^-/, ""));
  const change = $("balance-change");
  change.replaceChildren();
  if (after && net) {
    const signedNet = String(data.total_net).startsWith("-") ? [-net[0], net[1]] : net;
    change.append(`Balance ${showMoney(decText(sub(after, signedNet)))} → `);
  } else {
    change.append("Balance ");
  }
  const strong = document.createElement("strong");
  strong.id = "balance-after";
  strong.textContent = showMoney(data.balance);
  const netText = document.createElement("span");
  netText.id = "round-net";
  netText.dataset.net = data.total_net;
  netText.textContent = showSigned(data.total_net);
  change.append(strong, " (", netText, ")");
  $("settlement").hidden = false;
  setBalance(data.balance);
  if (data.reshuffle_due) {
    const notice = $("reshuffle");
    notice.textContent = `⟳ ${DUE_WORDS[data.reshuffle_cause] || DUE_WORDS.reshuffle_point}: the next round starts from a freshly shuffled shoe.`;
    notice.hidden = false;
  }
  // the result, said once in the live region: what happened, then what it did to you
  const outcome = data.events.find((e) => e.event === "outcome");
  const total = String(data.total_net);
  const you = resultWords(data.net || {}, total);
  const told = document.createElement("span");
  told.className = "visually-hidden";
  told.textContent = outcome ? `${outcome.text}. ` : "";
  result.replaceChildren(told, `${you} · balance ${showMoney(data.balance)}`);
  result.dataset.result = total.startsWith("-") ? "lost" : showSigned(total) === "±0" ? "even" : "won";
  result.hidden = false;
}

// What a round did to the person: "You win 10", "You lose 10", "Your bets come back (±0)",
// or where one bet won and another lost, both and the sum: "You win 10, lose 10: ±0".
function resultWords(nets, total) {
  const values = Object.values(nets).map(String);
  const won = sumOf(values.filter((n) => !n.startsWith("-")).map(dec).filter(Boolean));
  const lost = sumOf(values.filter((n) => n.startsWith("-")).map((n) => dec(n.slice(1))).filter(Boolean));
  if (!isZero(won) && !isZero(lost)) {
    return `You win ${showMoney(decText(won))}, lose ${showMoney(decText(lost))}: ${showSigned(total)}`;
  }
  if (total.startsWith("-")) return `You lose ${showMoney(total.slice(1))}`;
  return showSigned(total) === "±0" ? "Your bets come back (±0)" : `You win ${showMoney(total)}`;
}

if (decide) {
  for (const button of decide.querySelectorAll("button")) {
    button.addEventListener("click", async () => {
      if (!round || isOff(button) || table.dataset.state !== "awaiting_action") return;
      for (const b of decide.querySelectorAll("button")) setUsable(b, false);
      setState("dealing");
      refuse("");
      try {
        await present(await api("POST", `/api/rounds/${round.id}/actions`, { action: button.dataset.action }));
      } catch (err) {
        if (err.status === 409 || err.status === 404) {
          // played on (or finished) in another tab: show it as it stands
          try {
            await present(await api("GET", `/api/rounds/${round.id}`));
            refuse("This round was played on in another window: here it is as it stands.", true);
            return;
          } catch (again) {
            // as below
          }
        }
        refuse(readable(err));
        setState(round.state);
        offer(round.legal_actions, round.asked);
      }
    });
  }
}

// -- the shoes anyone can verify (docs/fairness.md) ---------------------------------------
// This shoe's SHA-256 commitment (shown before its first card), the next shoe's, and the
// last shoe whose seed is revealed with a link to check it on /verify. Short forms on the
// page; the full value in the title, and a button that copies it.
const fair = $("fair");
const tableKey = table.dataset.variant ? `${game}~${table.dataset.variant}` : game;

async function refreshShoes() {
  if (!fair) return;
  let data;
  try {
    data = await api("GET", `/api/shoes?table=${encodeURIComponent(tableKey)}`);
  } catch (err) {
    return;
  }
  const dealing = data.shoes.find((s) => !s.revealed);
  showShoes(fair, dealing, data.next_commitment, data.shoes.find((s) => s.revealed));
}

// -- the scoreboards, and the round in play ------------------------------------------------
async function refreshBoards() {
  refreshShoes();
  let data;
  try {
    data = await api("GET", `${tableApi}/table`);
  } catch (err) {
    return null;
  }
  drawBoard($("bead-plate"), data.bead_plate, "Bead plate");
  drawBoard($("big-road"), data.big_road, "Big road");
  $("shoe-no").textContent = data.shoe ? `(shoe ${data.shoe})` : "";
  const counts = Object.entries(data.counts)
    .map(([outcome, n]) => `${nameOf(outcome)} ${n}`)
    .join(" · ");
  $("counts").textContent = counts ? `Rounds won: ${counts}` : "No rounds from this shoe yet.";
  return data;
}

function drawBoard(board, cells, name) {
  if (!board) return;
  board.replaceChildren();
  const columns = Math.max(6, ...cells.map((c) => c.column + 1));
  board.style.setProperty("--columns", columns);
  const words = [];
  for (const cell of cells) {
    const mark = document.createElement("span");
    mark.className = `mark mark-${cell.outcome}`;
    mark.style.gridColumn = cell.column + 1;
    mark.style.gridRow = cell.row + 1;
    mark.textContent = MARKS[cell.outcome] || "?";
    let said = lower(nameOf(cell.outcome));
    if (cell.ties) {
      mark.dataset.ties = cell.ties;
      const even = lower(nameOf(Object.keys(MARKS).find((o) => o === "tie" || o === "push") || "tie"));
      said += ` (then ${cell.ties} ${even}${cell.ties > 1 ? "s" : ""})`;
    }
    for (const hand of cell.pairs || []) {
      const dot = document.createElement("span");
      dot.className = `pair pair-${hand}`;
      mark.append(dot);
      mark.classList.add(`paired-${hand}`);
      said += `, ${lower(nameOf(hand))} pair`;
    }
    board.append(mark);
    words.push(said);
  }
  board.setAttribute("aria-label", cells.length ? `${name}: ${words.join("; ")}` : `${name}: no rounds yet`);
}

/** The round in play at this table (from another tab, or before a reload) put on the table
 * to be finished here; false if there is none. */
async function pickUp() {
  const data = await refreshBoards();
  if (!data) return false;
  setBalance(data.balance);
  if (!data.round_in_play) return false;
  try {
    await present(await api("GET", `/api/rounds/${data.round_in_play}`));
  } catch (err) {
    return false;
  }
  return true;
}

/** Back to this tab: the table as it stands (another tab may have played). */
let syncing = false;
async function sync() {
  if (syncing || table.dataset.state === "dealing") return;
  syncing = true;
  try {
    const data = await refreshBoards();
    if (!data) return;
    setBalance(data.balance);
    if (data.round_in_play && (!round || round.id !== data.round_in_play)) {
      await pickUp();
    } else if (!data.round_in_play && round && round.state === "awaiting_action") {
      await present(await api("GET", `/api/rounds/${round.id}`));
    }
  } catch (err) {
    // the next visit tries again
  } finally {
    syncing = false;
  }
}

document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible") sync();
});

async function start() {
  fillSpots(saved().bets || {});
  if (!(await pickUp())) setState("betting");
  table.dataset.ready = "true";
}

start();
