// The cards on every page: the server draws each one as SVG (/cards/<code>.svg, with its
// Finnish index and suit); these make the <img> with its text alternative.

/** An image of the card `code` (such as "Kh" or "Jo"), described by `alt` ("13 of hearts"). */
export function cardImage(code, alt) {
  const img = document.createElement("img");
  img.className = "card";
  img.src = `/cards/${encodeURIComponent(code)}.svg`;
  img.alt = alt;
  img.width = 100;
  img.height = 140;
  img.dataset.card = code;
  img.setAttribute("role", "listitem");
  return img;
}

/** The back of a card (a card nobody may see yet). */
export function cardBack(alt = "a card face down") {
  return cardImage("back", alt);
}
