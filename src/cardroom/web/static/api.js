// Talking to the JSON API: the CSRF token from the page, errors as {"error": "..."}.

export function csrfToken() {
  const meta = document.querySelector('meta[name="csrf-token"]');
  return meta ? meta.content : "";
}

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** A JSON request; resolves to the body, or rejects with an ApiError carrying the server's message. */
export async function api(method, path, body, headers = {}) {
  const options = { method, headers: { Accept: "application/json", ...headers }, credentials: "same-origin" };
  if (method !== "GET") {
    options.headers["X-CSRF-Token"] = csrfToken();
  }
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, options);
  } catch (err) {
    throw new ApiError(0, "the server cannot be reached: check your connection and try again");
  }
  let data = null;
  try {
    data = await response.json();
  } catch (err) {
    data = null;
  }
  if (!response.ok) {
    const message = data && data.error ? data.error : `the server answered ${response.status}`;
    throw new ApiError(response.status, message);
  }
  return data;
}

/** An exact decimal string shown to people: whole numbers bare, else at least two places. */
export function showMoney(text) {
  if (text === null || text === undefined) return "";
  const negative = text.startsWith("-");
  const bare = negative ? text.slice(1) : text;
  const [whole, part = ""] = bare.split(".");
  const shown = part ? `${whole}.${part.padEnd(2, "0")}` : whole;
  return (negative ? "-" : "") + shown;
}

/** A result with its sign: +15, -10, ±0. */
export function showSigned(text) {
  if (text === null || text === undefined) return "";
  if (/^-/.test(text)) return showMoney(text);
  if (/^0(\.0*)?$/.test(text)) return "±0";
  return "+" + showMoney(text);
}
