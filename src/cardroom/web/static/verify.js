// Rebuild a shoe from its seeds with the browser's own SubtleCrypto and check every card
// of every round dealt from it (docs/fairness.md states the construction).
import { api } from "/static/api.js";

const enc = new TextEncoder();

function hexBytes(hex) {
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new Error("the server seed must be 64 hex digits");
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

function toHex(buffer) {
  return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");
}

// HMAC-SHA-256(key = server seed, message = client seed + ":" + counter), block after
// block, read as big-endian 32-bit words.
class Stream {
  constructor(key, client) {
    this.key = key;
    this.client = client;
    this.counter = 0;
    this.view = null;
    this.at = 0;
  }
  async word() {
    if (this.view === null || this.at >= 32) {
      const block = await crypto.subtle.sign("HMAC", this.key, enc.encode(`${this.client}:${this.counter}`));
      this.counter += 1;
      this.view = new DataView(block);
      this.at = 0;
    }
    const word = this.view.getUint32(this.at, false);
    this.at += 4;
    return word;
  }
  async randbelow(n) {
    const limit = 2 ** 32 - (2 ** 32 % n);
    for (;;) {
      const word = await this.word();
      if (word < limit) return word % n;
    }
  }
}

export async function permutation(seedHex, client, n) {
  const key = await crypto.subtle.importKey("raw", hexBytes(seedHex), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const stream = new Stream(key, client);
  const order = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = await stream.randbelow(i + 1);
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}

function burnOf(first, shoe) {
  if (!shoe.burn_by_first_card) return shoe.burn;
  const rank = first === "Jo" ? "Jo" : first.slice(0, -1);
  const number = { A: 1, T: 10, J: 10, Q: 10, K: 10, Jo: 0 }[rank] ?? parseInt(rank, 10);
  return 1 + Math.min(number, 10);
}

async function rebuild(seedHex, client, data, heldOut) {
  const pool = data.unshuffled.slice();
  for (const card of heldOut) pool.splice(pool.indexOf(card), 1);
  const order = (await permutation(seedHex, client, pool.length)).map((i) => pool[i]);
  return { order, burnt: order.length ? burnOf(order[0], data) : 0 };
}

// Every card the rounds took from shoe number `number`, held against the rebuilt shoe.
export async function check(seedHex, client, number, data) {
  const problems = [];
  const rounds = [];
  let expected = null;
  let at = 0;
  let burnt = 0;
  let cards = 0;
  for (const round of data.rounds) {
    const record = round.record;
    if (record.start && Object.keys(record.start).length) {
      // a coup of a table of seats: where its shoe stood as it began (docs/fairness.md)
      const place = record.start.shoe;
      if (!Array.isArray(place) || place.length !== 2) continue;
      const [shoe, before] = place;
      if (shoe > number) {
        if (expected !== null) break;
        continue;
      }
      if (shoe === number) {
        if (expected === null) {
          const built = await rebuild(seedHex, client, data, []);
          burnt = built.burnt;
          expected = built.order.slice(burnt);
        }
        if (before - burnt < at) problems.push(`round ${round.id}: the coup begins at card ${before + 1} of the shoe, which an earlier coup had dealt`);
        at = Math.max(at, before - burnt);
      }
    }
    let dealt = 0;
    let used = false;
    let done = false;
    for (const event of record.events) {
      if (event.event === "reshuffled") {
        if (event.shoe === number) {
          const built = await rebuild(seedHex, client, data, record.cards.slice(0, dealt));
          if (event.burnt !== built.burnt) problems.push(`round ${round.id}: the record burns ${event.burnt} cards, the shoe ${built.burnt}`);
          expected = built.order.slice(built.burnt);
          burnt = built.burnt;
          at = 0;
        } else if (expected !== null) {
          done = true;
          break;
        }
      } else if (event.event === "card" || event.event === "hand_card") {
        if (expected !== null) {
          used = true;
          const card = record.cards[dealt];
          if (at >= expected.length) problems.push(`round ${round.id}: ${card} dealt after the shoe's last card`);
          else if (expected[at] !== card) problems.push(`round ${round.id}: card ${at + 1} of the shoe was dealt as ${card}, the shoe holds ${expected[at]} there`);
          at += 1;
          cards += 1;
        }
        dealt += 1;
      }
    }
    if (used) rounds.push(round.id);
    if (done) break;
  }
  if (expected === null) problems.push(`no round recorded shuffling shoe ${number}`);
  return { problems, rounds, cards };
}

async function run(form, out, list) {
  out.textContent = "Checking…";
  list.replaceChildren();
  const seed = form.seed.value.trim().toLowerCase();
  const client = form.client.value;
  const data = await api("GET", `/api/shoes/${encodeURIComponent(form.shoe.value.trim())}`);
  const digest = toHex(await crypto.subtle.digest("SHA-256", hexBytes(seed)));
  const promised = form.commitment.value.trim().toLowerCase() || data.shoe.commitment;
  const problems = [];
  if (digest !== promised) problems.push(`the seed's SHA-256 is ${digest}, not the commitment ${promised}`);
  const found = await check(seed, client, data.shoe.shoe, data);
  problems.push(...found.problems);
  for (const problem of problems) {
    const li = document.createElement("li");
    li.textContent = problem;
    list.append(li);
  }
  out.textContent = problems.length
    ? `The shoe does NOT match: ${problems.length} difference(s).`
    : `Verified: the seed matches its commitment, and every card of ${found.rounds.length} rounds (${found.cards} cards) is the shoe's, in order.`;
  out.dataset.ok = problems.length ? "no" : "yes";
}

const form = document.getElementById("verify");
if (form) {
  const out = document.getElementById("verify-result");
  const list = document.getElementById("verify-rounds");
  if (form.dataset.shoe) {
    api("GET", `/api/shoes/${form.dataset.shoe}`).then((data) => {
      form.commitment.value = data.shoe.commitment;
      form.client.value = data.shoe.client_seed || "";
      form.seed.value = data.shoe.server_seed || "";
    }).catch((err) => { out.textContent = err.message; });
  }
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    run(form, out, list).catch((err) => { out.textContent = err.message; out.dataset.ok = "no"; });
  });
}
