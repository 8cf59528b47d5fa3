// A chemin de fer table: the seats, the bank, the two hands dealt card by card as the
// server's events arrive over the table's WebSocket, and the person's choices. The
// server holds the cards, the money and the clock: this page shows what its seat may see
// and sends the person's decisions; a choice it refuses comes back as an error message.
//
// Each message carries its events and the table as it stands after them (the server
// sends a message each time the table changes: a bank put up, a stake, a coup settled).
// The page shows the events one by one, then the table: so no stack, banker, coup number
// or balance moves before the cards that decide it have been shown.
import { api, csrfToken, showMoney, showSigned } from "./api.js";
import { cardBack, cardImage } from "./cards.js";
import { showShoes } from "./shoes.js";

const table = document.getElementById("table");
const tableId = table.dataset.table;
const seatsList = document.getElementById("seats");
const bankLine = document.getElementById("bank-line");
const status = document.getElementById("status");
const waiting = document.getElementById("waiting");
const result = document.getElementById("result");
const hands = table.querySelector(".hands");
const drawBox = document.getElementById("draw");
const youLine = document.getElementById("you");
const news = document.getElementById("news");
const sitForm = document.getElementById("sit");
const leaveButton = document.getElementById("leave");
const decide = document.getElementById("decide");
const asked = document.getElementById("asked");
const countdown = document.getElementById("countdown");
const amountRow = document.getElementById("amount-row");
const amountInput = document.getElementById("amount");
const amountLabel = document.getElementById("amount-label");
const message = document.getElementById("message");
const turnMessage = document.getElementById("turn-message");
const log = document.getElementById("log");
const balance = document.getElementById("balance");
const reduceMotion = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
const STEP_MS = reduceMotion ? 0 : 280;

let socket = null;
let names = [];
let mySeat = null;
let turn = null;
let deadline = 0;
let ticker = null;
let waitTicker = null;
let queue = Promise.resolve();
let retries = 0;
let closing = false;
// the first message on a connection brings the coup so far: shown at once, not dealt
let fresh = true;
// the log shows one coup: it starts again with the first line after the coup's end that
// is not part of its settlement (a notice, a seat taken, the next bank)
let coupOver = true;
const SETTLEMENT = new Set(["seat_settled", "commission", "banker", "game_over", "seat_left"]);

const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// `parts`: text, or a line's pieces (strings and elements, such as a name cut short).
function say(...parts) {
  status.replaceChildren(...parts);
}

// A refusal, said where the person looks: under the choices on a turn (a bar at the
// foot of a phone's screen), else in the seat's box.
function refuse(text) {
  const here = decide.hidden ? message : turnMessage;
  message.textContent = "";
  turnMessage.textContent = "";
  here.textContent = text;
}

function setBalance(text) {
  if (!balance || text === undefined || text === null) return;
  balance.textContent = showMoney(text);
  balance.dataset.balance = text;
}

async function refreshBalance() {
  try {
    const me = await api("GET", "/api/me");
    setBalance(me.balance);
  } catch (err) {
    /* the next update tries again */
  }
}

function nameOf(seat) {
  return names[seat] || `Seat ${seat + 1}`;
}

// Who holds a hand, as the page's person reads it.
function holder(seat) {
  return seat === mySeat ? "(you)" : `(${nameOf(seat)})`;
}

// The seats' names, as early as a message comes (the events name the seats by number; a
// seat that has just been left keeps its name for the events of the coup it played).
function learnNames(data) {
  for (const seat of data.seats) {
    if (seat.name) names[seat.seat] = seat.name;
  }
}

// A name inside a line, cut short on screen if it is too long for it (all of it in its
// title and for a screen reader).
function nameSpan(name) {
  const span = document.createElement("span");
  span.className = "name-cut";
  span.textContent = name;
  span.title = name;
  return span;
}

// The person's own news (standing up, and with what), kept until they sit down again.
function tell(text) {
  news.textContent = text;
  news.hidden = !text;
}

// -- the table -------------------------------------------------------------------------------
// This shoe's SHA-256 commitment (shown before its first card), the next shoe's, and the
// last shoe whose seed is revealed with a link to check it on /verify (docs/fairness.md).
// The table's messages carry them; never the seed of a shoe that may still deal.
const fair = document.getElementById("fair");
let fairShown = "";

function showShoe(shoe) {
  if (!fair || !shoe) return;
  const key = JSON.stringify(shoe);
  if (key === fairShown) return; // (unchanged: the copy buttons stay as they are)
  fairShown = key;
  const dealing = shoe.commitment ? { shoe: shoe.shoe, commitment: shoe.commitment } : null;
  showShoes(fair, dealing, shoe.next_commitment, shoe.revealed);
}

function showTable(data) {
  learnNames(data);
  showShoe(data.shoe);
  const items = data.seats.map((seat) => {
    const item = document.createElement("li");
    item.className = `seat seat-${seat.kind}`;
    item.dataset.seat = seat.seat;
    if (seat.seat === mySeat) item.classList.add("mine");
    if (seat.banker) item.classList.add("banker");
    const head = document.createElement("span");
    head.className = "seat-name";
    head.textContent = seat.kind === "empty" ? `Seat ${seat.seat + 1}: empty` : seat.name;
    if (seat.kind !== "empty") head.title = seat.name; // (a long name is cut short on screen)
    item.append(head);
    if (seat.kind !== "empty") {
      const stack = document.createElement("span");
      stack.className = "seat-stack";
      stack.textContent = showMoney(seat.stack);
      stack.dataset.stack = seat.stack;
      item.append(stack);
      const tags = [];
      if (seat.kind === "bot") tags.push("bot");
      if (seat.seat === mySeat) tags.push("you");
      if (seat.banker) tags.push("banker");
      if (seat.player) tags.push("player");
      if (seat.away) tags.push("away");
      if (seat.leaving) tags.push("leaving");
      if (tags.length) {
        const tag = document.createElement("span");
        tag.className = "seat-tags";
        tag.textContent = tags.join(" · ");
        item.append(tag);
      }
    }
    return item;
  });
  seatsList.replaceChildren(...items);
  if (data.playing && data.banker !== null) {
    const bank = data.bank ? `a bank of ${showMoney(data.bank)}` : "no bank put up yet";
    bankLine.replaceChildren(`Coup ${data.coup} · `, nameSpan(nameOf(data.banker)), ` holds the bank: ${bank}`);
  } else if (data.people === 0) {
    bankLine.textContent = "Nobody plays yet: take a seat to start the game with the bots.";
  } else {
    bankLine.textContent = "The game starts when two seats can play.";
  }
  table.dataset.coup = data.coup === null ? "" : String(data.coup);
}

function showYou(you) {
  const wasSeated = mySeat !== null;
  mySeat = you.seat;
  table.dataset.seat = mySeat === null ? "" : String(mySeat);
  if (mySeat === null) {
    youLine.textContent = news.textContent ? "Take a seat to play again." : "You are watching: take a seat to play.";
    youLine.dataset.stack = "";
    sitForm.hidden = false;
    leaveButton.hidden = true;
    if (wasSeated) refreshBalance();
  } else {
    if (!wasSeated) tell("");
    const leaving = you.leaving ? " You stand up after this coup." : "";
    youLine.textContent = `You sit at seat ${mySeat + 1} with a stack of ${showMoney(you.stack)}.${leaving}`;
    youLine.dataset.stack = you.stack;
    sitForm.hidden = true;
    leaveButton.hidden = false;
    leaveButton.disabled = you.leaving;
  }
}

// -- the cards -------------------------------------------------------------------------------
function hand(name) {
  return table.querySelector(`.hand[data-hand="${name}"]`);
}

function clearHands() {
  for (const name of ["player", "banker"]) {
    const box = hand(name);
    box.querySelector(".cards").replaceChildren();
    box.querySelector(".total").textContent = "";
    box.querySelector(".holder").textContent = "";
  }
  drawBox.querySelector(".cards").replaceChildren();
  drawBox.hidden = true;
  result.hidden = true;
  result.textContent = "";
}

function addLog(event) {
  if (coupOver && !SETTLEMENT.has(event.event)) {
    coupOver = false;
    log.replaceChildren();
  }
  const item = document.createElement("li");
  item.textContent = event.text;
  item.className = `event event-${event.event}`;
  log.append(item);
  while (log.children.length > 80) log.firstElementChild.remove();
  if (["outcome", "coup_void", "game_over"].includes(event.event)) coupOver = true;
}

// A card drawn for the bank, under the name of the seat that drew it.
function drawnCard(event) {
  const name = nameOf(event.seat);
  const item = document.createElement("figure");
  item.className = "drawn";
  item.setAttribute("role", "listitem");
  const image = cardImage(event.card, `${event.card_alt}, drawn by ${name}${event.round > 1 ? " again" : ""}`);
  image.removeAttribute("role");
  const caption = document.createElement("figcaption");
  caption.textContent = name;
  caption.title = name;
  caption.setAttribute("aria-hidden", "true");
  item.append(image, caption);
  return item;
}

async function showEvent(event, instant) {
  const kind = event.event;
  if (kind === "bank" || kind === "bank_passed") {
    clearHands(); // a new coup
    if (!instant) window.dispatchEvent(new Event("cardroom:between-coups"));
  }
  addLog(event);
  if (kind === "draw_for_bank") {
    if (drawBox.hidden) clearHands();
    drawBox.hidden = false;
    drawBox.querySelector(".cards").append(drawnCard(event));
    say(event.text);
    if (!instant) await wait(STEP_MS);
  } else if (kind === "bank") {
    hand("banker").querySelector(".holder").textContent = holder(event.seat);
    say(event.text);
  } else if (kind === "player_hand") {
    hand("player").querySelector(".holder").textContent = holder(event.seat);
    say(event.text);
  } else if (kind === "hand_card") {
    hands.dataset.coup = String(event.coup);
    const cards = hand(event.hand).querySelector(".cards");
    const whose = `${nameOf(event.seat)}'s`;
    cards.append(event.card ? cardImage(event.card, `${event.card_alt}, ${whose} ${event.hand} card`) : cardBack(`a card face down, ${whose} ${event.hand} card`));
    if (event.total !== null && event.total !== undefined) {
      hand(event.hand).querySelector(".total").textContent = `= ${event.total.value ?? event.total}`;
    }
    say(event.text);
    if (!instant) await wait(STEP_MS);
  } else if (kind === "shown") {
    const cards = event.cards.map((code, n) => cardImage(code, `${event.cards_alt[n]}, ${nameOf(event.seat)}'s ${event.hand} card`));
    hand(event.hand).querySelector(".cards").replaceChildren(...cards);
    hand(event.hand).querySelector(".total").textContent = `= ${event.total}`;
    say(event.text);
  } else if (kind === "outcome") {
    result.hidden = false;
    result.textContent = event.text;
    say(event.text);
    keepInView();
  } else if (kind === "seat_settled" && event.seat === mySeat) {
    result.hidden = false;
    result.textContent += ` · You: ${showSigned(event.net)}`;
    result.dataset.net = event.net;
  } else if (kind === "seat_left" && event.seat === mySeat && !instant) {
    tell(`You stood up with ${showMoney(event.stack)}: it is back in your wallet.`);
    say(event.text);
  } else {
    say(event.text);
  }
}

// -- the choices -----------------------------------------------------------------------------
const LABELS = { put_bank: "Bank", stake: "Stake" };

// A turn is set up once (the amount and the focus); the messages that repeat it while
// it waits leave what the person is typing alone. `again`: enable the choices anew
// (after a refusal).
function showTurn(data, received, again = false) {
  const same = Boolean(data && turn && data.id === turn.id);
  turn = data;
  table.dataset.turn = data ? "yours" : "";
  if (same && !again) return;
  for (const button of decide.querySelectorAll(".choice")) {
    const allowed = Boolean(data && data.actions.includes(button.dataset.action));
    button.disabled = !allowed;
    button.hidden = Boolean(data) && !allowed;
  }
  if (!data) {
    decide.hidden = true;
    stopClock();
    return;
  }
  decide.hidden = false;
  if (same) return; // (a refusal: the choices are back, the amount as typed)
  turnMessage.textContent = "";
  const banco = data.banco ? ` Banco covers the whole bank: ${showMoney(data.banco)}.` : "";
  asked.textContent = `${data.prompt}.${banco}`;
  if (data.amount) {
    amountRow.hidden = false;
    amountLabel.textContent = `${LABELS[data.amount.action]} (${showMoney(data.amount.low)} to ${showMoney(data.amount.high)})`;
    amountInput.min = data.amount.low;
    amountInput.max = data.amount.high;
    amountInput.value = data.amount.suggested;
    amountInput.focus({ preventScroll: true });
  } else {
    amountRow.hidden = true;
    const first = decide.querySelector(".choice:not([disabled])");
    if (first) first.focus({ preventScroll: true });
  }
  startClock(data.seconds_left, received);
  say(`Your turn: ${data.prompt.toLowerCase()}.`);
  keepInView();
}

// The hands and the result in view, above the choices (a bar at the foot of a phone's
// screen): scrolled to, if the page is scrolled away from them, when a turn comes or a
// coup ends.
function keepInView() {
  const top = hands.getBoundingClientRect().top;
  const bottom = (result.hidden ? hands : result).getBoundingClientRect().bottom;
  const fixed = !decide.hidden && getComputedStyle(decide).position === "fixed";
  const floor = fixed ? decide.getBoundingClientRect().top : window.innerHeight;
  if (top < 0) window.scrollBy(0, top - 8);
  else if (bottom > floor) window.scrollBy(0, Math.min(top - 8, bottom - floor + 8));
}

function startClock(seconds, since) {
  stopClock();
  deadline = since + seconds * 1000;
  const tick = () => {
    const left = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
    countdown.textContent = `${left} s left, then your seat's bot plays for you`;
    countdown.dataset.left = String(left);
  };
  tick();
  ticker = setInterval(tick, 500);
}

function stopClock() {
  if (ticker) clearInterval(ticker);
  ticker = null;
  countdown.textContent = "";
}

// Whom the table waits for (another seat), with the seconds they have left: counted down
// here from the server's figure, set again by every message.
function showWaiting(data, received) {
  if (waitTicker) clearInterval(waitTicker);
  waitTicker = null;
  const waited = data.turn ? null : data.waiting_for;
  if (!waited || waited.seat === mySeat) {
    waiting.hidden = true;
    waiting.textContent = "";
    waiting.dataset.left = "";
    waiting.dataset.seat = "";
    return;
  }
  const seat = data.table.seats[waited.seat];
  const away = Boolean(seat && seat.away);
  const ends = received + waited.seconds_left * 1000;
  const tick = () => {
    const left = Math.max(0, Math.ceil((ends - Date.now()) / 1000));
    const rest = away ? ` is away: the table plays for them in ${left} s.` : ` has ${left} s to decide.`;
    waiting.replaceChildren(nameSpan(waited.name), rest);
    waiting.dataset.left = String(left);
  };
  tick();
  waitTicker = setInterval(tick, 500);
  waiting.dataset.seat = String(waited.seat);
  waiting.dataset.away = String(away);
  waiting.hidden = false;
  const text = away ? `Waiting for ${waited.name}, who is away.` : `Waiting for ${waited.name}.`;
  if (status.textContent !== text) say("Waiting for ", nameSpan(waited.name), away ? ", who is away." : ".");
}

function choose(action) {
  if (!turn || !socket) return;
  refuse("");
  const message = { action };
  if (action === "put_bank" || action === "stake") {
    const text = amountInput.value.trim();
    const low = Number(turn.amount.low);
    const high = Number(turn.amount.high);
    const value = Number(text);
    if (!/^\d+(\.\d{1,2})?$/.test(text) || value < low || value > high) {
      refuse(`Write an amount from ${showMoney(turn.amount.low)} to ${showMoney(turn.amount.high)}.`);
      amountInput.focus();
      return;
    }
    message.amount = text;
  }
  for (const button of decide.querySelectorAll(".choice")) button.disabled = true;
  socket.send(JSON.stringify(message));
}

for (const button of decide.querySelectorAll(".choice")) {
  button.addEventListener("click", () => choose(button.dataset.action));
}
amountInput.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && turn && turn.amount) {
    event.preventDefault();
    choose(turn.amount.action);
  }
});

// -- seats -----------------------------------------------------------------------------------
sitForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  refuse("");
  const button = document.getElementById("sit-button");
  button.disabled = true;
  say("Taking a seat (between coups)…");
  try {
    const body = { buy_in: document.getElementById("buy-in").value.trim() };
    const seated = await api("POST", `/api/chemin-de-fer/tables/${tableId}/seats`, body);
    queue = queue.then(() => setBalance(seated.balance)); // (after what came before it)
    say(`You sit at seat ${seated.seat + 1} with ${showMoney(seated.stack)}.`);
  } catch (err) {
    refuse(err.message);
  } finally {
    button.disabled = false;
  }
});

leaveButton.addEventListener("click", async () => {
  refuse("");
  leaveButton.disabled = true;
  try {
    const left = await api("POST", `/api/chemin-de-fer/tables/${tableId}/leave`);
    queue = queue.then(() => setBalance(left.balance)); // (after the coup's last cards)
    if (left.left) tell(`You stood up with ${showMoney(left.stack)}: it is back in your wallet.`);
    else tell("You stand up after this coup; the table plays for you till then.");
  } catch (err) {
    refuse(err.message);
    leaveButton.disabled = false;
  }
});

// -- the connection --------------------------------------------------------------------------
function onUpdate(data) {
  if (data.type === "error") {
    refuse(data.error);
    if (turn) showTurn(turn, Date.now(), true);
    return;
  }
  const received = Date.now();
  // a connection's first message brings what happened before it: shown at once, the
  // table first; any other message's table is shown once its events have been
  const catchUp = fresh;
  fresh = false;
  queue = queue.then(async () => {
    if (data.reset) {
      clearHands();
      log.replaceChildren();
      coupOver = true; // the events sent again begin with a coup's first one
    }
    learnNames(data.table);
    if (catchUp) {
      showYou(data.you);
      showTable(data.table);
    }
    for (const notice of data.notices) addLog({ event: "notice", text: notice });
    for (const event of data.events) await showEvent(event, catchUp);
    showYou(data.you);
    showTable(data.table);
    showTurn(data.turn, received);
    showWaiting(data, received);
    table.dataset.state = data.turn ? "your_turn" : "watching";
    table.dataset.ready = "true";
  });
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  socket = new WebSocket(`${scheme}//${location.host}/api/chemin-de-fer/tables/${tableId}/ws`);
  socket.addEventListener("open", () => {
    retries = 0;
    fresh = true;
    socket.send(JSON.stringify({ type: "hello", csrf: csrfToken() }));
  });
  socket.addEventListener("message", (event) => {
    try {
      onUpdate(JSON.parse(event.data));
    } catch (err) {
      refuse("the server sent something this page cannot read");
    }
  });
  socket.addEventListener("close", () => {
    socket = null;
    if (closing) return;
    table.dataset.state = "disconnected";
    retries += 1;
    const delay = Math.min(10000, 1000 * retries);
    say(`The connection to the table is lost: trying again in ${Math.round(delay / 1000)} s (your seat is kept for a while).`);
    setTimeout(connect, delay);
  });
}

window.addEventListener("pagehide", () => {
  closing = true;
  if (socket) socket.close();
});
connect();
