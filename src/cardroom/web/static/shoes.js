// The shoes anyone can verify (docs/fairness.md), as the house and chemin de fer tables
// show them: this shoe's SHA-256 commitment (before its first card), the next shoe's,
// and the last shoe whose seed is revealed with a link to check it on /verify. Short
// forms on the page; the full value in the title, and a button that copies it. Never
// the seed of a shoe that may still deal: the server does not send one.

function hashItem(label, full, copyName) {
  const item = document.createElement("span");
  item.className = "fair-item";
  const code = document.createElement("code");
  code.className = "hash";
  code.title = full;
  code.dataset.full = full;
  code.textContent = `${full.slice(0, 10)}…`;
  const copy = document.createElement("button");
  copy.type = "button";
  copy.className = "copy";
  copy.textContent = "copy";
  copy.setAttribute("aria-label", `Copy ${copyName}`);
  copy.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(full);
      copy.textContent = "copied";
    } catch (err) {
      code.textContent = full; // the whole value, to select by hand
    }
  });
  item.append(`${label} `, code, " ", copy);
  return item;
}

/**
 * Fill `box` with the shoes: `dealing` ({shoe, commitment}) the shoe dealing, if it has
 * been shuffled; `next` the next shoe's commitment, if known; `revealed` ({shoe, id,
 * server_seed}) the last shoe whose seed is out.
 */
export function showShoes(box, dealing, next, revealed) {
  const items = [];
  if (dealing) items.push(hashItem(`Shoe ${dealing.shoe}'s commitment (SHA-256)`, dealing.commitment, `shoe ${dealing.shoe}'s commitment`));
  if (next) items.push(hashItem(dealing ? "the next shoe's" : "The next shoe's commitment (SHA-256)", next, "the next shoe's commitment"));
  if (revealed) {
    const item = hashItem(`Shoe ${revealed.shoe}'s seed, revealed`, revealed.server_seed, `shoe ${revealed.shoe}'s seed`);
    const link = document.createElement("a");
    link.href = `/verify?shoe=${revealed.id}`;
    link.id = "verify-last";
    link.textContent = `verify shoe ${revealed.shoe}`;
    item.append(" · ", link);
    items.push(item);
  }
  const about = document.createElement("a");
  about.href = "/verify";
  about.textContent = "How to check";
  box.replaceChildren();
  for (const item of items) box.append(item, " ");
  box.append(about);
  box.hidden = false;
}
